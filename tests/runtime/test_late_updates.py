"""Updates applied in place once the run has succeeded (``runtime/late_updates.py``).

Traced runs never defer (the kernel swaps buffers as before), so a traced training loop is
the reference every plain loop must equal bit for bit.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.common import native
from tfmini.ops.variables import training_ops
from tfmini.runtime import late_updates

needs_native = pytest.mark.skipif(not native.available(), reason="no C compiler here")


@pytest.fixture(autouse=True)
def _small_variables_commit_late(monkeypatch):
    # The kernels defer only large variables' updates (training_ops.LATE_MIN_ELEMENTS);
    # these models are small.
    monkeypatch.setattr(training_ops, "LATE_MIN_ELEMENTS", 0)


_TRACE = dict(options=tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE))


def _model(optimizer=None):
    """A two-layer model trained by Adam (or ``optimizer()``): (graph, x, loss, train, init,
    variables)."""
    g = tm.Graph()
    with g.as_default():
        rng = np.random.default_rng(0)
        x = tm.placeholder(tm.float32, [None, 6], name="x")
        w0 = tm.Variable(rng.standard_normal((6, 5)).astype(np.float32), name="w0")
        b0 = tm.Variable(np.zeros(5, np.float32), name="b0")
        w1 = tm.Variable(rng.standard_normal((5, 1)).astype(np.float32), name="w1")
        h = tm.nn.relu(tm.matmul(x, w0) + b0)
        loss = tm.reduce_mean(tm.square(tm.matmul(h, w1) - 1.0))
        tm.identity(w0.read_value(), name="early")  # made before the optimizer: runs before
        train = (optimizer() if optimizer else tm.train.AdamOptimizer(0.05)).minimize(loss)
        init = tm.global_variables_initializer()
    return g, x, loss, train, init, [w0, b0, w1]


def _batch(seed):
    return np.random.default_rng(seed).standard_normal((8, 6)).astype(np.float32)


def _late_names(sess, fetches, feed_dict=None):
    sess.run(fetches, feed_dict)
    plan = next(reversed(sess._plans.values()))  # the plan that run used
    return sorted(op.name for op in plan.late_ops)


def test_the_optimizer_updates_are_marked():
    g, x, loss, train, init, _ = _model()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        names = _late_names(sess, train, {x: _batch(0)})
    assert sum("ResourceApplyAdam" in n for n in names) == 3
    # The beta powers' assigns come last and touch nothing else.
    assert any("AssignVariableOp" in n for n in names)


@needs_native
@pytest.mark.parametrize("sgd", [False, True])
def test_plain_runs_equal_traced_runs_bit_for_bit(sgd):
    results = []
    for traced in (False, True):
        g, x, loss, train, init, params = _model(
            (lambda: tm.train.GradientDescentOptimizer(0.1)) if sgd else None)
        with tm.Session(graph=g) as sess:
            sess.run(init)
            for i in range(6):
                sess.run(train, {x: _batch(i)}, **(_TRACE if traced else {}))
            late = next(reversed(sess._plans.values())).late_ops
            results.append(sess.run(params))
        want = "ResourceApplyGradientDescent" if sgd else "ResourceApplyAdam"
        assert sum(op.type == want for op in late) == 3  # deferred in both; traced: not used
    for a, b in zip(*results):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


def test_a_run_failing_after_the_updates_changes_nothing():
    g, x, loss, train, init, params = _model()
    with g.as_default():
        with tm.control_dependencies([train]):
            # Stateless and after every update: the updates are deferred, then this fails.
            bad = tm.reshape(x, [7, -1])
    with tm.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: _batch(0)})
        before = sess.run(params)
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(bad, {x: _batch(1)})
        plan = next(reversed(sess._plans.values()))
        assert sum(op.type == "ResourceApplyAdam" for op in plan.late_ops) == 3
        for a, b in zip(before, sess.run(params)):
            np.testing.assert_array_equal(a, b)
        sess.run(train, {x: _batch(1)})  # the session is still usable
        assert not np.array_equal(before[0], sess.run(params[0]))


def test_a_value_read_in_the_same_run_is_not_written_over():
    g, x, loss, train, init, params = _model()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: _batch(0)})
        before = sess.run(params[0])
        # The read runs before the (deferred) update; the fetched array keeps what it read.
        read = g.get_tensor_by_name("early:0")
        _, got = sess.run([train, read], {x: _batch(1)})
        plan = next(reversed(sess._plans.values()))
        after = sess.run(params[0])
    assert any(op.name.startswith("Adam/update_w0") for op in plan.late_ops)
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(got, before)


def test_a_later_reader_keeps_the_update_in_the_run():
    g, x, loss, train, init, params = _model()
    with g.as_default():
        with tm.control_dependencies([train]):
            after = params[0].read_value()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        names = _late_names(sess, after, {x: _batch(0)})
        got = sess.run(after, {x: _batch(1)})
        np.testing.assert_array_equal(got, sess.run(params[0]))
    assert not any("update_w0" in n for n in names)
    assert any("update_w1" in n for n in names)


def _steps(ops):
    return [type("S", (), {"op": op})() for op in ops]


def test_unknown_handles_and_other_stateful_ops_stop_the_marking():
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(np.ones(3, np.float32), name="v")
        u = tm.Variable(np.ones(3, np.float32), name="u")
        up_v = v.assign_add(np.ones(3, np.float32), read_value=False)
        up_u = u.assign_add(np.ones(3, np.float32), read_value=False)
        stateless = tm.raw_ops.StatelessRandomUniform(shape=[2], seed=[1, 2])
        handle = tm.placeholder(tm.resource, [], name="h")
        via_feed = tm.raw_ops.ReadVariableOp(resource=handle, dtype=tm.float32)
    ops = [up_v, up_u]
    assert late_updates.late_ops(_steps(ops), []) == frozenset(ops)
    # A later step reading a fed handle might read any variable.
    assert late_updates.late_ops(_steps(ops + [via_feed.op]), []) == frozenset()
    # A later stateless op changes nothing.
    assert late_updates.late_ops(_steps(ops + [stateless.op]), []) == frozenset(ops)
    # A later step on the same variable keeps the earlier one in the run.
    assert late_updates.late_ops(_steps([up_v, up_u, up_v]), []) == frozenset({up_u, up_v})


def test_commit_checks_everything_before_writing():
    class Res:
        def __init__(self):
            import threading
            self.lock = threading.Lock()

    applied = []

    def fail():
        raise tm.errors.InvalidArgumentError(None, None, "changed")

    ok = late_updates.LateUpdate(None, [Res()], lambda: None, lambda: applied.append(1))
    bad = late_updates.LateUpdate(None, [Res()], fail, lambda: applied.append(2))
    with pytest.raises(tm.errors.InvalidArgumentError):
        late_updates.commit([ok, bad])
    assert applied == []
    late_updates.commit([ok, ok])
    assert applied == [1, 1]


@needs_native
def test_only_large_variables_are_written_over(monkeypatch):
    monkeypatch.setattr(training_ops, "LATE_MIN_ELEMENTS", 30)  # w0 (6x5) large, b0 not

    def buffers(var_list):
        g, x, loss, train, init, params = _model(
            lambda: tm.train.GradientDescentOptimizer(0.1))
        with g.as_default():
            train = tm.train.GradientDescentOptimizer(0.1).minimize(
                loss, var_list=[p for p in params if p.op.name in var_list])
        with tm.Session(graph=g) as sess:
            sess.run(init)
            manager = sess._device("CPU").resource_manager
            ids = {name: set() for name in var_list}
            for i in range(4):
                sess.run(train, {x: _batch(i)})
                for name in ids:
                    ids[name].add(id(manager.lookup("", name).value))
        return {name: len(v) for name, v in ids.items()}

    # Alone, the small update swaps two buffers during the run; after w0's deferred update
    # it waits too (run order), and is written over as well.
    assert buffers(["b0"]) == {"b0": 2}
    assert buffers(["w0", "b0"]) == {"w0": 1, "b0": 1}


def test_a_later_update_never_shows_before_a_deferred_one():
    # The trainer's run: v -= 1 (deferred: 2**17 elements), then, by a control dependency,
    # step += 1. Another thread that reads step == s and then v must see v <= -s; with the
    # increment applied at once and v's update at the run's end it saw step s with v == -(s-1).
    n = 1 << 17
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(np.zeros(n, np.float32))
        step = tm.Variable(0, dtype=tm.int64)
        update = tm.raw_ops.ResourceApplyGradientDescent(
            var=v.handle, alpha=tm.constant(1.0), delta=tm.constant(np.ones(n, np.float32)))
        with tm.control_dependencies([update]):
            train = step.assign_add(1, read_value=False)
        read_step, read_v0 = step.read_value(), v.read_value()[0]
        init = tm.global_variables_initializer()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        assert len(_late_names(sess, train)) == 2  # the increment waits with the update
        stop = threading.Event()
        seen = []

        def trainer():
            while not stop.is_set():
                sess.run(train)

        thread = threading.Thread(target=trainer)
        thread.start()
        end = time.monotonic() + 1.5  # the probe that found it saw ~600 violations a second
        try:
            while time.monotonic() < end:
                s = sess.run(read_step)
                seen.append((int(s), float(sess.run(read_v0))))
        finally:
            stop.set()
            thread.join(timeout=30)
    assert seen[-1][0] > 0  # the trainer did run meanwhile
    assert all(value <= -s for s, value in seen)


def test_a_failed_commit_check_names_the_op():
    class Res:
        def __init__(self):
            self.lock = threading.Lock()

    g = tm.Graph()
    with g.as_default():
        op = tm.no_op(name="the_update")

    def fail():
        raise tm.errors.InvalidArgumentError(None, None, "var and delta differ")

    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        late_updates.commit([late_updates.LateUpdate(op, [Res()], fail, lambda: None)])
    assert info.value.op is op
    assert "'the_update'" in str(info.value) and "var and delta differ" in str(info.value)
