"""Accumulators under contention and blocking: many threads through one Session, FIFO takers,
takes ended by deadlines and by Session.close(), and a single run holding a take and the
applies that satisfy it (tfmini/ops/data_flow/, the dataflow executor in runtime/executors.py).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import join_all, run_in_thread, wait_for
from tfmini.runtime.kernel_context import WAIT_POLL_SECONDS

R = tm.raw_ops

# The bound for ending a blocked take, plus one poll of the waiting kernel.
CANCEL_BOUND = 0.1 + WAIT_POLL_SECONDS


def resource(sess, name):
    return sess._device("CPU").resource_manager.lookup("", name)


def takers(acc, n):
    """Waits until ``n`` takes are queued on the accumulator ``acc`` (blocked in their wait)."""
    wait_for(lambda: len(acc.takers) == n,
             message=lambda: f"{n} queued take(s) ({len(acc.takers)} queued)")


def started(sess, name="Q", fetch=None):
    """Runs the accumulator's creation once and returns the accumulator object."""
    sess.run(fetch)
    return resource(sess, name)


# ----------------------------------------------------------------------------------------
# Many threads, one Session


def test_eight_threads_times_100_applies_lose_nothing(graph):
    q = tm.ConditionalAccumulator(tm.float64, name="Q", shape=[16], reduction_type="SUM")
    x = tm.placeholder(tm.float64, [16])
    take = q.take_grad(800)
    size = q.num_accumulated()
    with tm.Session() as sess:
        apply = sess.make_callable(q.apply_grad(x), [x])
        start = threading.Barrier(8)
        seen_sizes: list[int] = []

        def worker(t):
            start.wait()
            for i in range(100):
                # Distinct integers (exact in float64): a lost or doubled one changes the sum.
                apply(np.full(16, t * 1000.0 + i) + np.arange(16))

        def reader():
            while len(seen_sizes) < 2000 and (not seen_sizes or seen_sizes[-1] < 800):
                seen_sizes.append(int(sess.run(size)))

        join_all([run_in_thread(worker, t) for t in range(8)] + [run_in_thread(reader)])
        assert sess.run(size) == 800
        total = sess.run(take)
    expected = sum(t * 1000.0 + i for t in range(8) for i in range(100)) + 800.0 * np.arange(16)
    np.testing.assert_array_equal(total, expected)
    assert seen_sizes == sorted(seen_sizes)  # the counter never goes back: no torn update


def test_sparse_eight_threads_times_100_applies_lose_nothing(graph):
    q = tm.SparseConditionalAccumulator(tm.float64, name="Q", shape=[8, 2],
                                        reduction_type="SUM")
    idx = tm.placeholder(tm.int64, [None])
    val = tm.placeholder(tm.float64, [None, 2])
    with tm.Session() as sess:
        apply = sess.make_callable(q.apply_grad(idx, val), [idx, val])
        start = threading.Barrier(8)

        def worker(t):
            start.wait()
            for i in range(100):
                rows = np.array(sorted({t, (t + i) % 8}), np.int64)
                apply(rows, np.full((len(rows), 2), float(i)))

        join_all([run_in_thread(worker, t) for t in range(8)])
        indices, values, _ = sess.run(q.take_grad(800))
    expected = np.zeros((8, 2))
    for t in range(8):
        for i in range(100):
            for r in {t, (t + i) % 8}:
                expected[r] += i
    np.testing.assert_array_equal(indices, np.arange(8))
    np.testing.assert_array_equal(values, expected)


# ----------------------------------------------------------------------------------------
# FIFO takers


def test_many_takers_are_served_in_arrival_order(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[])
    x = tm.placeholder(tm.float32, [])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    take = q.take_grad(1)
    with tm.Session() as sess:
        acc = started(sess, fetch=q.num_accumulated())
        threads = []
        for i in range(16):
            threads.append(run_in_thread(sess.run, take))
            takers(acc, i + 1)  # arrival order is known
        for k in range(16):
            sess.run(apply, feed_dict={x: float(k), step: k})  # serves exactly the head
        values = join_all(threads, 5)
    assert values == [float(k) for k in range(16)]


def test_blocked_head_blocks_later_takers(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[])
    x = tm.placeholder(tm.float32, [])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    take3, take1 = q.take_grad(3), q.take_grad(1)
    with tm.Session() as sess:
        acc = started(sess, fetch=q.num_accumulated())
        big = run_in_thread(sess.run, take3)
        takers(acc, 1)
        small = run_in_thread(sess.run, take1)
        takers(acc, 2)
        sess.run(apply, feed_dict={x: 1.0, step: 0})
        # One gradient would satisfy take(1), but it waits behind take(3).
        assert sess.run(q.num_accumulated()) == 1 and len(acc.takers) == 2
        sess.run(apply, feed_dict={x: 2.0, step: 0})
        sess.run(apply, feed_dict={x: 3.0, step: 0})
        assert big.result(5) == 2.0
        assert small.is_alive() and sess.run(q.num_accumulated()) == 0  # a fresh round
        sess.run(apply, feed_dict={x: 7.0, step: 1})
        small_value = small.result(5)
    assert small_value == 7.0


def test_a_timed_out_head_leaves_the_queue_and_unblocks_the_next(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[])
    take5, take1 = q.take_grad(5), q.take_grad(1)
    with tm.Session() as sess:
        acc = started(sess, fetch=q.num_accumulated())
        sess.run(q.apply_grad(4.0))
        head = run_in_thread(sess.run, take5, options=tm.RunOptions(timeout_in_ms=150))
        takers(acc, 1)
        nxt = run_in_thread(sess.run, take1)
        head_error = head.exception(5)
        nxt_value = nxt.result(5)
    assert isinstance(head_error, tm.errors.DeadlineExceededError)
    assert nxt_value == 4.0  # served the moment the head gave up
    assert nxt.ended_at - head.ended_at < CANCEL_BOUND


# ----------------------------------------------------------------------------------------
# Deadlines and close()


def test_timeout_ends_a_blocked_take_in_time_and_keeps_the_gradients(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[2])
    take = q.take_grad(5, name="take5")
    with tm.Session() as sess:
        sess.run(q.apply_grad(np.array([1.0, 2.0], np.float32)))
        sess.run(q.apply_grad(np.array([3.0, 4.0], np.float32)))
        start = time.monotonic()
        with pytest.raises(tm.errors.DeadlineExceededError) as info:
            sess.run(take, options=tm.RunOptions(timeout_in_ms=200))
        late = time.monotonic() - start - 0.2
        message = str(info.value)
        assert "take5" in message and "Timed out waiting for TakeGrad operation" in message
        assert "accumulator 'Q' has 2 of 5 gradients" in message
        assert -0.01 < late < CANCEL_BOUND
        assert sess.run(q.num_accumulated()) == 2
        np.testing.assert_array_equal(sess.run(q.take_grad(2)), [2.0, 3.0])


def test_session_default_deadline(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2])
    config = tm.ConfigProto(operation_timeout_in_ms=100)
    with tm.Session(config=config) as sess:
        sess.run(q.apply_grad([1], np.ones((1, 2), np.float32)))
        start = time.monotonic()
        with pytest.raises(tm.errors.DeadlineExceededError, match="has 1 of 2 gradients"):
            sess.run(q.take_grad(2))
        assert time.monotonic() - start - 0.1 < CANCEL_BOUND
        assert sess.run(q.num_accumulated()) == 1


@pytest.mark.parametrize("sparse", [False, True])
def test_close_ends_a_blocked_take_in_time_and_keeps_the_gradients(graph, sparse):
    if sparse:
        q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2])
        applies = [q.apply_grad([0], np.ones((1, 2), np.float32)) for _ in range(2)]
    else:
        q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[2])
        applies = [q.apply_grad(np.ones(2, np.float32)) for _ in range(2)]
    take = q.take_grad(3)
    sess = tm.Session()
    for a in applies:
        sess.run(a)
    acc = resource(sess, "Q")
    t = run_in_thread(sess.run, take)
    takers(acc, 1)
    closed_at = time.monotonic()
    sess.close()
    error = t.exception(5)
    assert isinstance(error, tm.errors.CancelledError)
    assert "TakeGrad operation was cancelled" in str(error)
    assert t.ended_at - closed_at < CANCEL_BOUND
    assert acc.counter == 2 and not acc.takers  # the accumulator kept both gradients


# ----------------------------------------------------------------------------------------
# One run holding a take and its applies (the dataflow executor)


def test_one_run_with_take_and_its_applies_completes(graph):
    q = tm.ConditionalAccumulator(tm.float64, name="Q", shape=[2])
    take = q.take_grad(3)
    applies = [q.apply_grad(np.full(2, float(v))) for v in (1.0, 2.0, 6.0)]
    with tm.Session() as sess:
        for _ in range(5):  # the take sorts before the applies it waits for
            out = sess.run([take] + applies, options=tm.RunOptions(timeout_in_ms=5000))
            np.testing.assert_array_equal(out[0], [3.0, 3.0])
            # The take moved the step on, which would make the applies' local_step 0 stale.
            sess.run(q.set_global_step(0))


def test_one_sparse_run_with_take_and_its_applies_completes(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[4, 1])
    take = q.take_indexed_slices_grad(3)
    applies = [q.apply_grad([r], np.array([[float(r)]], np.float32)) for r in (0, 2, 2)]
    with tm.Session() as sess:
        got = sess.run([take] + applies, options=tm.RunOptions(timeout_in_ms=5000))[0]
    np.testing.assert_array_equal(got.indices, [0, 2])
    np.testing.assert_array_equal(got.values, [[0.0], [2.0]])


def test_one_run_short_of_gradients_times_out_and_undoes_its_applies(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[])
    applies = [q.apply_grad(1.0), q.apply_grad(2.0)]
    with tm.Session() as sess:
        sess.run(q.apply_grad(5.0))  # from an earlier, successful run: stays
        with pytest.raises(tm.errors.DeadlineExceededError, match="has 3 of 4 gradients"):
            sess.run([q.take_grad(4)] + applies, options=tm.RunOptions(timeout_in_ms=150))
        assert sess.run(q.num_accumulated()) == 1  # the failed run's two applies are undone
        assert sess.run(q.take_grad(1)) == 5.0


# ----------------------------------------------------------------------------------------
# examples/sync_replicas.py


def test_sync_replicas_example_trains_and_drops_the_late_gradients(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / "sync_replicas.py"
    spec = importlib.util.spec_from_file_location("sync_replicas_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = example.main(workers=3, steps=12, samples=32, slow_every=3)
    # Worker 0 falls behind at steps 2, 5, 8 and 11 (unless, on a loaded machine, the
    # others carried the chief past one of those steps before it even started it).
    assert 1 <= out["late"] <= 4
    assert out["dropped"] >= out["late"]  # every late gradient was dropped as stale
    assert out["applied"] <= 3 * 12  # lock-step: at most one gradient per worker and step
    assert all(2 <= n <= 3 for n in out["per_round"])  # the chief waits for workers - 1
    assert out["losses"][-1] < 0.05 * out["losses"][0]
    printed = capsys.readouterr().out
    assert "dropped as stale" in printed and "step  10" in printed
