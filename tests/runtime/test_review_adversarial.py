"""Adversarial tests of the runtime: the compiled executor, the dataflow scheduler, Session.

Each test pins a bug found in review (or a behaviour checked against TensorFlow 2.21's
``tf.compat.v1`` while looking for one).
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import wait_for, wait_until_waiting, waiting_kernels
from tests.runtime import counter_ops
from tfmini.core.registry import register_op, unregister

# -- multi-output ops run for their effects ----------------------------------------------


def test_multi_output_op_as_a_target_runs(graph):
    # The compiled plan deleted "_" after a multi-output op whose outputs nobody reads, though
    # that line never assigned it: UnboundLocalError, reported as UnknownError.
    parts = tm.split(tm.constant([1.0, 2.0, 3.0, 4.0]), 2)
    with tm.Session(graph=graph) as sess:
        assert sess.run(parts[0].op) is None
        assert sess.run([parts[0].op, parts[1]])[1].tolist() == [3.0, 4.0]


def test_multi_output_op_as_a_control_dependency_runs(graph):
    x = tm.placeholder(tm.float32, shape=(4,), name="x")
    uniq = tm.unique(x)
    with tm.control_dependencies([uniq[0].op]):
        out = tm.identity(x * 2.0)
    with tm.Session(graph=graph) as sess:
        assert sess.run(out, {x: [1, 1, 2, 3]}).tolist() == [2.0, 2.0, 4.0, 6.0]


# -- blocking ops (the counter ops of counter_ops.py, plus the ones below) ---------------

_counter = counter_ops.get_counter


@pytest.fixture(autouse=True, scope="module")
def review_ops():
    @register_op("RvRaise", inputs=["x: float"], outputs=["y: float"],
                 attrs=["kind: string", "blocking: bool = false", "after_waiting: int = 0",
                        "after_slow: bool = false"])
    def raise_(ctx, x, *, kind, blocking, after_waiting, after_slow):
        # Fails only once the blocking steps dispatched before it are under way: RvSlow has
        # started (after_slow), and after_waiting blocking kernels of the session are parked
        # in their waits.
        if after_slow:
            wait_for(_SLOW_STARTED.is_set, message="RvSlow to start")
        wait_for(lambda: waiting_kernels(ctx.session) >= after_waiting,
                 message=f"{after_waiting} blocking step(s) to wait")
        raise _RAISE[kind]("raised by a kernel")

    @register_op("RvRaiseBlocking", inputs=["x: float"], outputs=["y: float"],
                 attrs=["kind: string"], blocking=True)
    def raise_blocking(x, *, kind):
        raise _RAISE[kind]("raised by a blocking kernel")

    @register_op("RvSlow", inputs=["x: float"], outputs=["y: float"], blocking=True)
    def slow(x):
        _SLOW_STARTED.set()
        # The behaviour under test, not a synchronisation: a blocking kernel deaf to
        # cancellation for a while (the run's other steps end before it does).
        time.sleep(0.1)
        return x

    @register_op("RvLogged", inputs=["n: int32"], outputs=["count: int32"],
                 attrs=["counter: string"], stateful=True, blocking=True)
    def logged_wait(ctx, n, *, counter):
        c = _counter(ctx, counter)
        try:
            with c.cond:
                ctx.wait(c.cond, lambda: c.value >= n, f"counter '{counter}'")
                return np.int32(c.value)
        finally:
            # The behaviour under test, not a synchronisation: still busy a little after its
            # wait ended, so a rollback that did not wait for this step would come first.
            time.sleep(0.05)
            _EVENTS.append("blocking step stopped")

    @register_op("RvStateful", inputs=["x: float"], outputs=["y: float"], stateful=True)
    def stateful(ctx, x):
        ctx.on_failure(lambda: _EVENTS.append("rolled back"))
        return x

    @register_op("RvTrack", inputs=["x: float"], outputs=["y: float"])
    def track(x):
        _ALIVE.append(sum(r() is not None for r in _TRACKED))
        y = x + 1.0
        _TRACKED.append(weakref.ref(y))
        return y

    yield
    for name in ("RvRaise", "RvRaiseBlocking", "RvSlow", "RvLogged", "RvStateful", "RvTrack"):
        unregister(name)


_RAISE = {"interrupt": KeyboardInterrupt, "exit": SystemExit, "value": ValueError}
_EVENTS: list[str] = []
_SLOW_STARTED = threading.Event()  # set by RvSlow when it starts
_TRACKED: list[weakref.ref] = []  # every value RvTrack made
_ALIVE: list[int] = []  # how many of them were alive when each RvTrack started


_wait = counter_ops.wait_op
_signal = counter_ops.signal


# A deadline, so that a regression fails the test instead of hanging it.
_PATIENT = tm.RunOptions(timeout_in_ms=5000)


# -- a blocking step inside a function (cond branch, loop body) --------------------------


def test_blocking_step_in_a_cond_branch_is_satisfied_by_the_same_run(graph):
    # TF runs If asynchronously: a dequeue in a branch is fed by an enqueue of the same run
    # (checked with tf.compat.v1 and control flow v2). tfmini ran the If inline, so the branch
    # waited for a signal that could only run after it: DeadlineExceededError (or a hang).
    pred = tm.placeholder(tm.bool, shape=(), name="pred")
    out = tm.cond(pred, lambda: _wait(1, "cond"), lambda: tm.constant(-1))
    sig = _signal(tm.constant(0.0), "cond")  # built after: in creation order it runs later
    with tm.Session(graph=graph) as sess:
        assert sess.run([out, sig], {pred: True}, options=_PATIENT) == [1, 0.0]
        assert sess.run([out, sig], {pred: False}, options=_PATIENT) == [-1, 0.0]


def test_blocking_step_in_a_while_body_is_satisfied_by_the_same_run(graph):
    def body(i):
        return i + _wait(1, "loop") * 0 + 1

    out = tm.while_loop(lambda i: i < 3, body, [tm.constant(0)])
    sig = _signal(tm.constant(0.0), "loop")
    with tm.Session(graph=graph) as sess:
        assert sess.run([out, sig], options=_PATIENT) == [3, 0.0]


def test_blocking_step_in_a_cond_nested_in_a_while_body(graph):
    def body(i):
        inner = tm.cond(i > 0, lambda: _wait(1, "nested"), lambda: tm.constant(0))
        return i + inner * 0 + 1

    out = tm.while_loop(lambda i: i < 3, body, [tm.constant(0)])
    sig = _signal(tm.constant(0.0), "nested")
    with tm.Session(graph=graph) as sess:
        assert sess.run([out, sig], options=_PATIENT) == [3, 0.0]


def test_function_without_blocking_steps_keeps_the_compiled_path(graph):
    x = tm.placeholder(tm.float32, shape=(), name="x")
    out = tm.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
    with tm.Session(graph=graph) as sess:
        assert sess.run(out, {x: 3.0}) == 6.0
        (plan,) = sess._plans.values()
    assert not plan.has_blocking


# -- BaseException from kernels, failures while blocking steps are in flight -------------


def _scheduler_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tfmini ")]


@pytest.mark.parametrize("kind", ["interrupt", "exit"])
def test_base_exception_from_a_blocking_kernel_is_not_wrapped(graph, kind):
    # A blocking kernel runs on a worker thread; its KeyboardInterrupt/SystemExit came back as
    # UnknownError("KeyboardInterrupt: ...").
    out = tm.raw_ops.RvRaiseBlocking(x=tm.constant(1.0), kind=kind)
    with tm.Session(graph=graph) as sess:
        with pytest.raises(_RAISE[kind], match="raised by a blocking kernel"):
            sess.run(out, options=_PATIENT)


def test_ordinary_error_from_a_blocking_kernel_is_still_wrapped(graph):
    out = tm.raw_ops.RvRaiseBlocking(x=tm.constant(1.0), kind="value", name="blk")
    with tm.Session(graph=graph) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="RvRaiseBlocking 'blk'"):
            sess.run(out, options=_PATIENT)


@pytest.mark.parametrize("kind", ["interrupt", "value"])
def test_failure_while_a_blocking_step_waits_stops_it_before_the_rollback(graph, kind):
    # A KeyboardInterrupt in an inline step left the blocking steps waiting (no deadline: for
    # ever) and the run rolled back while they still ran; they must end first, as they do for
    # an ordinary error.
    waited = tm.raw_ops.RvLogged(n=1, counter="interrupted")  # dispatched first
    changed = tm.raw_ops.RvStateful(x=tm.constant(1.0))
    bad = tm.raw_ops.RvRaise(x=changed, kind=kind, after_waiting=1)  # once RvLogged waits
    sig = _signal(tm.constant(0.0), "interrupted")
    _EVENTS.clear()
    with tm.Session(graph=graph) as sess:
        with pytest.raises(KeyboardInterrupt if kind == "interrupt" else tm.errors.OpError):
            sess.run([waited, bad])  # no deadline
        assert _scheduler_threads() == []
        assert _EVENTS == ["blocking step stopped", "rolled back"]
        # The session is usable, and no stale step of the failed run takes part any more.
        assert sess.run([waited, sig], options=_PATIENT)[0] == 1


def test_failure_inside_a_function_is_reported_not_the_cancellations_it_caused(graph):
    # A failing step inside a cond branch cancels the run; a sibling wait then ends with
    # CancelledError before the branch (still stopping its own blocking steps) reports. The
    # run must raise the cause, as TensorFlow does, not the cancellation.
    pred = tm.placeholder(tm.bool, shape=(), name="pred")

    def branch():
        slow = tm.raw_ops.RvSlow(x=tm.constant(1.0))  # in flight when the next step fails
        return tm.raw_ops.RvRaise(x=tm.constant(1.0), kind="value", name="cause",
                                  after_waiting=1, after_slow=True) + slow

    sibling = _wait(1, "never")
    out = tm.cond(pred, branch, lambda: tm.constant(0.0))
    _SLOW_STARTED.clear()
    with tm.Session(graph=graph) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="cause"):
            sess.run([sibling, out], {pred: True}, options=_PATIENT)
        assert _scheduler_threads() == []


# -- memory ------------------------------------------------------------------------------


@pytest.mark.parametrize("with_blocking_step", [False, True])
def test_a_long_chain_frees_each_value_after_its_last_reader(graph, with_blocking_step):
    # The compiled plan frees values early; the dataflow scheduler (used when the plan holds a
    # blocking step) kept every intermediate until the run ended.
    y = tm.constant(np.zeros(1000, np.float32))
    for _ in range(50):
        y = tm.raw_ops.RvTrack(x=y)
    fetches = [y, _wait(0, "free")] if with_blocking_step else [y]
    _TRACKED.clear()
    _ALIVE.clear()
    with tm.Session(graph=graph) as sess:
        out = sess.run(fetches, options=_PATIENT)
    assert out[0][0] == 50.0
    assert len(_ALIVE) == 50 and max(_ALIVE) <= 2, _ALIVE


def test_ten_thousand_op_chain_compiles_and_runs(graph):
    x = tm.placeholder(tm.float32, shape=(), name="x")
    y = x
    for _ in range(10_000):
        y = y + 1.0
    with tm.Session(graph=graph) as sess:
        assert sess.run(y, {x: 0.5}) == 10_000.5
        (plan,) = sess._plans.values()
    # Register reuse: a chain needs a couple of locals, not one per op.
    assert len({n for n in plan.program.generated.local_name.values()}) <= 3


def test_dataflow_keeps_a_value_read_twice_and_fetched(graph):
    # A value read by several steps (and fetched) survives until the last of them.
    a = tm.raw_ops.RvTrack(x=tm.constant(np.zeros(3, np.float32)))
    b = a * 2.0
    c = a + b
    with tm.Session(graph=graph) as sess:
        got = sess.run([a, c, b, _wait(0, "keep")], options=_PATIENT)
    assert [v.tolist() for v in got[:3]] == [[1.0] * 3, [3.0] * 3, [2.0] * 3]


# -- behaviours checked while looking (pinned so they stay) -------------------------------


def test_keyboard_interrupt_in_the_compiled_plan_propagates_and_rolls_back(graph):
    changed = tm.raw_ops.RvStateful(x=tm.constant(1.0))
    bad = tm.raw_ops.RvRaise(x=changed, kind="interrupt")
    _EVENTS.clear()
    with tm.Session(graph=graph) as sess:
        with pytest.raises(KeyboardInterrupt):
            sess.run(bad)
        assert _EVENTS == ["rolled back"]
        assert sess.run(changed) == 1.0


def test_concurrent_runs_with_and_without_blocking_steps(graph):
    x = tm.placeholder(tm.float32, shape=(), name="x")
    pairs = []
    for k in range(4):
        waited = _wait(1, f"conc{k}")
        sig = _signal(x, f"conc{k}")
        pairs.append((tm.cast(waited, tm.float32) * 0.0 + x, sig))
    plain = x * 2.0
    errors = []
    barrier = threading.Barrier(12)

    def work(i):
        try:
            barrier.wait()
            for j in range(30):
                a, b = pairs[(i + j) % 4]
                assert sess.run([a, b], {x: float(i)}, options=_PATIENT) == [i, i]
                assert sess.run(plain, {x: float(j)}) == 2.0 * j
        except BaseException as e:  # re-raised in the main thread
            errors.append(e)

    with tm.Session(graph=graph) as sess:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not any(t.is_alive() for t in threads)
    if errors:
        raise errors[0]
    assert _scheduler_threads() == []


def test_close_racing_blocked_and_plain_runs_ends_them_all(graph):
    v = tm.Variable(np.ones(100, np.float32))
    read = tm.reduce_sum(v.read_value())
    waited = _wait(1, "never-closed")
    sess = tm.Session(graph=graph)
    sess.run(v.initializer)
    outcomes = []
    plain_runs = []

    def work(fetch):
        while True:
            try:
                sess.run(fetch)
                plain_runs.append(1)
            except (RuntimeError, tm.errors.OpError) as e:
                outcomes.append(e)
                return

    threads = [threading.Thread(target=work, args=(f,)) for f in (read, waited, [read, waited])]
    for t in threads:
        t.start()
    # Close while all three are in flight: both blocked runs parked in their waits, the plain
    # one looping (it has finished a run at least once).
    wait_until_waiting(sess, 2)
    wait_for(lambda: plain_runs, message="a plain run to finish")
    sess.close()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads) and len(outcomes) == 3
    assert _scheduler_threads() == []
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(read)


def test_feeding_the_output_of_a_blocking_step_skips_it(graph):
    waited = _wait(1, "never-fed")
    doubled = waited * 2
    with tm.Session(graph=graph) as sess:
        assert sess.run(doubled, {waited: 5}, options=_PATIENT) == 10
        assert sess.run([waited, doubled], {waited: 4}, options=_PATIENT) == [4, 8]


def test_fed_tensor_fetched_twice_and_its_consumer(graph):
    x = tm.placeholder(tm.float32, shape=(2,), name="x")
    c = tm.constant([1.0, 2.0])
    fed = np.array([3.0, 4.0], np.float32)
    with tm.Session(graph=graph) as sess:
        got = sess.run({"a": [x, (x,)], "b": x + c, "c": c}, {x: fed, c: [5.0, 5.0]})
    assert got["a"][0] is got["a"][1][0]  # one value per unique tensor, as TF
    assert got["a"][0] is not fed and got["a"][0].tolist() == [3.0, 4.0]
    assert got["b"].tolist() == [8.0, 9.0] and got["c"].tolist() == [5.0, 5.0]


def test_feeding_one_output_of_a_multi_output_op_that_still_runs(graph):
    x = tm.placeholder(tm.float32, shape=(4,), name="x")
    first, second = tm.split(x, 2)
    with tm.Session(graph=graph) as sess:
        got = sess.run([first + 0.0, second], {x: [1, 2, 3, 4], first: [9.0, 9.0]})
    assert [v.tolist() for v in got] == [[9.0, 9.0], [3.0, 4.0]]


def test_make_callable_with_options_and_metadata(graph):
    x = tm.placeholder(tm.float32, shape=(), name="x")
    waited = _wait(1, "callable")
    sig = _signal(x, "callable")
    with tm.Session(graph=graph) as sess:
        call = sess.make_callable([waited, sig], feed_list=[x], accept_options=True)
        meta = tm.RunMetadata()
        full = tm.RunOptions(timeout_in_ms=5000, trace_level=tm.RunOptions.FULL_TRACE)
        assert call(2.0, options=full, run_metadata=meta) == [1, 2.0]
        names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
        assert {waited.op.name, sig.op.name} <= names
        lonely = sess.make_callable(_wait(100, "callable"), accept_options=True)
        with pytest.raises(tm.errors.DeadlineExceededError):
            lonely(options=tm.RunOptions(timeout_in_ms=50))
