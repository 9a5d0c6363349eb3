"""Blocking steps: the dataflow scheduler, deadlines, close() and cancellation.

The tests use the counter ops of counter_ops.py: ``BlkSignal`` adds one to a counter, and
the blocking ``BlkWaitFor`` waits (through ``KernelContext.wait``) until it reaches ``n``.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import run_in_thread, wait_for, wait_until_waiting
from tests.runtime import counter_ops
from tfmini.core.registry import register_op, unregister
from tfmini.runtime.kernel_context import WAIT_POLL_SECONDS

_counter = counter_ops.get_counter
_wait_op = counter_ops.wait_op
_signal = counter_ops.signal


def test_one_run_holding_a_wait_and_the_steps_that_satisfy_it_completes():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(3)  # built first: in creation order it would run (and block) first
        signals = [_signal(tm.constant(float(i))) for i in range(3)]
    with tm.Session(graph=g) as sess:
        count, values = sess.run([waited, signals])
    assert count == 3 and values == [0.0, 1.0, 2.0]


def test_dependent_steps_wait_for_the_blocking_step():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(2)
        after = tm.cast(waited, tm.float32) * 10.0
        with tm.control_dependencies([_signal(tm.constant(0.0)), _signal(tm.constant(1.0))]):
            anchor = tm.no_op()
    with tm.Session(graph=g) as sess:
        assert sess.run([after, anchor])[0] == 20.0


def test_waits_are_satisfied_across_threads_and_runs():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(2)
        sig = _signal(tm.constant(1.0))
    with tm.Session(graph=g) as sess:
        t = run_in_thread(sess.run, waited)
        wait_until_waiting(sess)  # the run is parked in the BlkWaitFor kernel's wait
        assert t.is_alive(), "the wait blocks while nothing has signalled"
        sess.run(sig)
        sess.run(sig)
        assert t.result(2) == 2


def _assert_prompt(elapsed, bound):
    # The bound is 100 ms; a waiting step looks at the clock every WAIT_POLL_SECONDS.
    assert elapsed < bound + WAIT_POLL_SECONDS + 0.05, f"took {elapsed * 1e3:.0f} ms"


def test_timeout_ends_the_wait_with_deadline_exceeded_naming_op_and_counts():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(5)
        sig = _signal(tm.constant(1.0))
    with tm.Session(graph=g) as sess:
        sess.run(sig)
        start = time.monotonic()
        with pytest.raises(tm.errors.DeadlineExceededError) as info:
            sess.run(waited, options=tm.RunOptions(timeout_in_ms=100))
        _assert_prompt(time.monotonic() - start - 0.1, 0.1)
        msg = str(info.value)
        assert "BlkWaitFor" in msg and "counter 'c'" in msg and "1 of 5 signals" in msg
        assert info.value.op is waited.op
        # The session is usable and the state is intact.
        sess.run(sig)
        assert sess.run(_wait_count(g, 2)) == 2


def _wait_count(g, n):
    with g.as_default():
        return _wait_op(n)


def test_session_default_timeout_from_config():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(1, counter="never")
    with tm.Session(graph=g, config=tm.ConfigProto(operation_timeout_in_ms=50)) as sess:
        with pytest.raises(tm.errors.DeadlineExceededError):
            sess.run(waited)


def test_close_cancels_a_blocked_run_promptly():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(1, counter="never")
    sess = tm.Session(graph=g)
    t = run_in_thread(sess.run, waited)
    wait_until_waiting(sess)  # blocked in the kernel's wait, not merely started
    closed_at = time.monotonic()
    sess.close()
    error, when = t.exception(2), t.ended_at
    assert not t.is_alive()
    assert isinstance(error, tm.errors.CancelledError)
    assert "was cancelled" in str(error)
    _assert_prompt(when - closed_at, 0.1)


def test_a_failing_step_cancels_the_waiting_ones_and_rolls_back():
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(1.0, name="v")
        waited = _wait_op(10, counter="never")
        p = tm.placeholder(tm.float32, name="unfed")
        with tm.control_dependencies([v.assign_add(5.0)]):
            bad = tm.identity(p)
    with tm.Session(graph=g) as sess:
        sess.run(v.initializer)
        start = time.monotonic()
        with pytest.raises(tm.errors.InvalidArgumentError, match="unfed"):
            sess.run([waited, bad])
        assert time.monotonic() - start < 1.0
        assert sess.run(v) == 1.0  # the run's assign_add was undone


def test_blocking_step_inside_a_cond_branch():
    g = tm.Graph()
    with g.as_default():
        pred = tm.placeholder(tm.bool, shape=(), name="pred")
        out = tm.cond(pred, lambda: _wait_op(1, counter="b"), lambda: tm.constant(-1))
        sig = _signal(tm.constant(0.0), counter="b")
    with tm.Session(graph=g) as sess:
        assert sess.run(out, {pred: False}) == -1
        sess.run(sig)
        assert sess.run(out, {pred: True}) == 1


def test_traced_run_with_blocking_steps_records_every_op():
    g = tm.Graph()
    with g.as_default():
        waited = _wait_op(1, counter="t")
        sig = _signal(tm.constant(0.0), counter="t")
    meta = tm.RunMetadata()
    with tm.Session(graph=g) as sess:
        sess.run([waited, sig], options=tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert {waited.op.name, sig.op.name} <= names


def test_ref_outputs_are_dereferenced_for_value_inputs():
    # A reference output (Ref(T)) feeding an ordinary input gets the referenced value, as in TF.
    class Cell:
        def __init__(self, value):
            self.value = value

        def _tm_deref(self):
            return self.value

    @register_op("BlkRefCell", outputs=["ref: Ref(float)"], stateful=True)
    def ref_cell():
        return Cell(np.float32(4.0))

    @register_op("BlkTakesRef", inputs=["ref: Ref(float)"], outputs=["is_cell: bool"])
    def takes_ref(ref):
        return np.bool_(isinstance(ref, Cell))

    try:
        g = tm.Graph()
        with g.as_default():
            r = tm.raw_ops.BlkRefCell()
            doubled = r * 2.0
            kept = tm.raw_ops.BlkTakesRef(ref=r)
        with tm.Session(graph=g) as sess:
            assert sess.run([doubled, kept]) == [8.0, True]
    finally:
        unregister("BlkRefCell")
        unregister("BlkTakesRef")


def test_close_lets_a_running_step_finish_before_freeing_resources():
    # A run busy in a kernel when close() is called ends normally: its resources are freed
    # only after it (TensorFlow waits for runs in flight, too).
    started = threading.Event()

    @register_op("BlkSlowRead", inputs=["x: float"], outputs=["y: float"], stateful=True)
    def slow_read(ctx, x):
        c = _counter(ctx, "slow")
        started.set()
        # Busy until close() has begun (synchronised), then a little longer: that sleep is the
        # behaviour under test (a kernel still working while close() runs), giving a close()
        # that did not wait for this run the time to clear the resources under it.
        wait_for(lambda: ctx.session.closed, message="close() to begin")
        time.sleep(0.05)
        # Still there: close() has not cleared the resource manager under this run.
        assert ctx.resource_manager.lookup("", "slow") is c
        return x

    try:
        g = tm.Graph()
        with g.as_default():
            y = tm.raw_ops.BlkSlowRead(x=tm.constant(1.0))
        sess = tm.Session(graph=g)
        t = run_in_thread(sess.run, y)
        wait_for(started.is_set, message="BlkSlowRead to start")
        sess.close()
        assert t.result(2) == 1.0
        with pytest.raises(RuntimeError, match="closed Session"):
            sess.run(y)
    finally:
        unregister("BlkSlowRead")


def test_config_accepts_device_filters():
    # TensorFlow programs pass device_filters (mnist_replica.py); a session runs with them.
    config = tm.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
    assert config.device_filters == ["/job:ps", "/job:worker/task:0"]
    assert tm.ConfigProto().device_filters == []
    with tm.Graph().as_default(), tm.Session(config=config) as sess:
        assert sess.run(tm.constant(3.0) * 2.0) == 6.0


def test_a_blocking_step_runs_in_the_calling_thread_only_when_nothing_else_can_run():
    # Alone (no other step ready or in flight), nothing of the run could satisfy its wait: it
    # runs in the calling thread. Next to a ready step, it gets a thread of its own.
    threads = []

    @register_op("BlkWhere", inputs=["x: float"], outputs=["y: float"], stateful=True,
                 blocking=True)
    def where(x):
        threads.append(threading.current_thread())
        return x

    try:
        g = tm.Graph()
        with g.as_default():
            x = tm.placeholder(tm.float32, [])
            alone = tm.raw_ops.BlkWhere(x=x)
            beside = tm.raw_ops.BlkWhere(x=x)
            other = tm.raw_ops.BlkWhere(x=x)
        with tm.Session(graph=g) as sess:
            assert sess.run(alone, {x: 1.0}) == 1.0
            assert threads == [threading.current_thread()]
            threads.clear()
            assert sess.run([beside, other], {x: 2.0}) == [2.0, 2.0]
            # The first had the other beside it (the second may find it done already).
            assert len(threads) == 2 and threads.count(threading.current_thread()) < 2
    finally:
        unregister("BlkWhere")
