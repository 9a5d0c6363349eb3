"""MutexV2 / MutexLock / ConsumeMutexLock: the critical section DropStaleGradientOptimizer
relies on. Mutual exclusion across threads sharing a Session, release on consume, on a failed
run and when the lock value is dropped, deadlines and session close."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import hammer, run_in_thread, wait_until_waiting

R = tm.raw_ops


def _counter_graph(locked: bool):
    """A read-modify-write of ``v`` slowed by a matmul (NumPy releases the GIL there), so
    unsynchronised threads interleave; under the mutex none does."""
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(0.0)
        lock = R.MutexLock(mutex=R.MutexV2(shared_name="m"))
        with tm.control_dependencies([lock] if locked else []):
            slow = tm.reduce_sum(tm.matmul(tm.ones([100, 100]), tm.ones([100, 100]))) * 0.0
            update = v.assign(v.read_value() + 1.0 + slow, read_value=False)
        with tm.control_dependencies([update]):
            consume = R.ConsumeMutexLock(mutex_lock=lock)
    return g, v, [update, consume] if locked else [update]


def test_mutex_makes_a_read_modify_write_atomic():
    g, v, step = _counter_graph(locked=True)
    with tm.Session(graph=g) as sess:
        sess.run(v.initializer)
        assert hammer(lambda: sess.run(step), threads=8, times=30) == []
        assert sess.run(v) == 240.0


def test_a_waiting_critical_section_does_not_start():
    g, v, step = _counter_graph(locked=True)
    with g.as_default():
        lock = R.MutexLock(mutex=R.MutexV2(shared_name="m"))
    with tm.Session(graph=g) as sess:
        sess.run(v.initializer)
        held = sess.run(lock)
        t = run_in_thread(sess.run, step)
        wait_until_waiting(sess)  # parked in MutexLock's wait (not a 200 ms join)
        assert t.is_alive() and sess.run(v) == 0.0  # waits at the lock, nothing done yet
        del held
        t.result(5)
        assert not t.is_alive() and sess.run(v) == 1.0


def test_lock_is_held_until_its_value_is_dropped():
    g = tm.Graph()
    with g.as_default():
        lock = R.MutexLock(mutex=R.MutexV2(shared_name="m"))
    with tm.Session(graph=g) as sess:
        held = sess.run(lock)
        assert "held by lock" in repr(held)
        with pytest.raises(tm.errors.DeadlineExceededError, match="Timed out waiting for mutex m"):
            sess.run(lock, options=tm.RunOptions(timeout_in_ms=50))
        del held  # TensorFlow's rule: the lock lives as long as its tensor
        sess.run(lock)


def test_consume_releases_and_mutexes_are_shared_by_name():
    g = tm.Graph()
    with g.as_default():
        a = R.MutexV2(shared_name="shared")
        b = R.MutexV2(shared_name="shared")
        other = R.MutexV2(shared_name="other")
        lock_a = R.MutexLock(mutex=a)
        release_a = R.ConsumeMutexLock(mutex_lock=lock_a)
        lock_b = R.MutexLock(mutex=b)
        lock_other = R.MutexLock(mutex=other)
    with tm.Session(graph=g) as sess:
        for _ in range(3):
            sess.run(release_a)  # each run takes and frees it
        held_b = sess.run(lock_b)
        with pytest.raises(tm.errors.DeadlineExceededError):
            sess.run(release_a, options=tm.RunOptions(timeout_in_ms=50))
        assert sess.run(lock_other) is not None  # another name, another mutex
        del held_b


def test_two_critical_sections_of_one_mutex_in_one_run():
    # MutexLock runs on a thread of its own, so the second lock waits without stalling the
    # run that will free the first.
    g = tm.Graph()
    with g.as_default():
        m = R.MutexV2(shared_name="m")
        releases = []
        for _ in range(2):
            lock = R.MutexLock(mutex=m)
            releases.append(R.ConsumeMutexLock(mutex_lock=lock))
    with tm.Session(graph=g) as sess:
        sess.run(releases, options=tm.RunOptions(timeout_in_ms=5000))


def test_failed_run_releases_the_lock_and_rolls_back_first():
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(np.zeros(3, np.float32))
        lock = R.MutexLock(mutex=R.MutexV2(shared_name="m"))
        with tm.control_dependencies([lock]):
            add = v.assign_add([1.0, 1.0, 1.0], read_value=False)
        with tm.control_dependencies([add]):
            bad = tm.gather(tm.constant([1.0, 2.0]), tm.constant(5))  # out of range
        with tm.control_dependencies([bad]):
            release = R.ConsumeMutexLock(mutex_lock=lock)
    with tm.Session(graph=g) as sess:
        sess.run(v.initializer)
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(release)
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0, 0.0])
        sess.run(lock, options=tm.RunOptions(timeout_in_ms=1000))  # free again


def test_close_cancels_a_waiting_lock():
    g = tm.Graph()
    with g.as_default():
        lock = R.MutexLock(mutex=R.MutexV2(shared_name="m"))
    sess = tm.Session(graph=g)
    held = sess.run(lock)
    t = run_in_thread(sess.run, lock)
    wait_until_waiting(sess)  # the second MutexLock waits for the held one
    sess.close()
    failure = t.exception(5)
    assert not t.is_alive()
    assert isinstance(failure, tm.errors.CancelledError)
    del held


def test_consume_needs_a_lock():
    g = tm.Graph()
    with g.as_default():
        bad = R.ConsumeMutexLock(mutex_lock=tm.constant(np.array(3, dtype=object), tm.variant))
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="Expected input to be a "
                                                                 "MutexLock"):
            sess.run(bad)


def test_mutex_ops_have_no_gradient():
    for op_type in ("MutexV2", "MutexLock", "ConsumeMutexLock"):
        assert tm.ops.__getattr__(op_type).OP_NAME == op_type
        from tfmini.core import registry

        assert registry.get(op_type).no_gradient
