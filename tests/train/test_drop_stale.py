"""DropStaleGradientOptimizer: TensorFlow r1.15's drop_stale_gradient_optimizer_test.py (one,
two and three workers), the behaviour and errors of TF r1.15's contrib/opt
drop_stale_gradient_optimizer.py, and many threads sharing one Session (nothing lost, nothing
half-applied, the staleness bound kept).

TensorFlow's multi-worker test orders the workers with two FIFO queues; here test-only ops
play those queues (a blocking take of tokens, and a put), so each worker's single
``Session.run`` waits exactly where TensorFlow's does: the chief computes its gradients last
and applies them first, then the others apply one at a time with staleness 1, 2, ...
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import join_all, run_in_thread
from tfmini.core import registry

DropStale = tm.contrib.opt.DropStaleGradientOptimizer


class _Tokens:
    def __init__(self):
        self.count = 0
        self.cond = threading.Condition()


def _tokens(ctx, queue):
    return ctx.resource_manager.lookup_or_create("", f"test_tokens/{queue}", _Tokens)


@pytest.fixture(scope="module", autouse=True)
def token_ops():
    """``TestTokenPut`` adds a token to a named queue; ``TestTokenTake`` waits for ``n``
    tokens and takes them (TensorFlow's enqueue and dequeue_many, without the values)."""

    @tm.register_op("TestTokenPut", attrs=["queue: string"], stateful=True)
    def put(ctx, *, queue):
        t = _tokens(ctx, queue)
        with t.cond:
            t.count += 1
            t.cond.notify_all()

    @tm.register_op("TestTokenTake", attrs=["queue: string", "n: int"], stateful=True,
                    blocking=True)
    def take(ctx, *, queue, n):
        t = _tokens(ctx, queue)
        with t.cond:
            ctx.wait(t.cond, lambda: t.count >= n, f"{n} tokens of {queue}")
            t.count -= n

    yield
    for name in ("TestTokenPut", "TestTokenTake"):
        registry.unregister(name)


def _put(queue):
    return tm.raw_ops.TestTokenPut(queue=queue)


def _take(queue, n=1):
    return tm.raw_ops.TestTokenTake(queue=queue, n=n)


def _workers(num_workers: int, staleness: int):
    """The r1.15 test's workers in one graph: shared v0 = 0, v1 = 1, loss = -v0 - v1 (every
    gradient -1), SGD with learning rate 1; worker 0 is the chief."""
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.create_global_step()
        v0 = tm.Variable(0.0, name="v0")
        v1 = tm.Variable(1.0, name="v1")
        train_ops = []
        for worker_id in range(num_workers):
            # Every worker's stale_counter is the same variable, as on TensorFlow's ps.
            with tm.variable_scope(tm.get_variable_scope(), reuse=worker_id > 0), \
                    tm.name_scope(f"worker_{worker_id}"):
                loss = 0 - v0 - v1
                opt = DropStale(tm.train.GradientDescentOptimizer(1.0), staleness)
                if worker_id == 0:
                    with tm.control_dependencies([_take("compute", num_workers - 1)]):
                        grads_and_vars = opt.compute_gradients(loss)
                    with tm.control_dependencies([opt.apply_gradients(grads_and_vars, gs)]):
                        train_ops.append(_put("apply"))
                else:
                    grads_and_vars = opt.compute_gradients(loss)
                    with tm.control_dependencies([gv[0] for gv in grads_and_vars]):
                        computed = _put("compute")
                    with tm.control_dependencies([computed, _take("apply")]):
                        applied = opt.apply_gradients(grads_and_vars, gs)
                    with tm.control_dependencies([applied]):
                        train_ops.append(_put("apply"))
        counter = [v for v in tm.global_variables() if v.name == "stale_counter:0"]
    assert len(counter) == 1
    return g, train_ops, (gs, v0, v1, counter[0])


def _run_workers(num_workers: int, staleness: int):
    g, train_ops, state = _workers(num_workers, staleness)
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        assert sess.run(list(state)) == [0, 0.0, 1.0, 0.0]
        failures: list[Exception] = []

        def run(op):
            try:
                sess.run(op, options=tm.RunOptions(timeout_in_ms=10_000))
            except Exception as e:  # pragma: no cover - reported below
                failures.append(e)

        join_all([run_in_thread(run, op) for op in train_ops])
        assert failures == []
        return sess.run(list(state))


# ----------------------------------------------------------------------------------------
# drop_stale_gradient_optimizer_test.py (r1.15)


def _one_worker(staleness: int):
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.create_global_step()
        v0 = tm.Variable(0.0, name="v0")
        v1 = tm.Variable(1.0, name="v1")
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), staleness)
        train = opt.apply_gradients(opt.compute_gradients(0 - v0 - v1), gs)
        counter = tm.global_variables()[-1]
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        value = sess.run(train)
        return value, sess.run([gs, v0, v1, counter])


def test_1_worker():
    value, state = _one_worker(0)
    assert state == [1, 1.0, 2.0, 0.0]
    assert value == 0.0 and value.dtype == np.float32  # the counter after the step


def test_1_worker_negative_staleness():
    value, state = _one_worker(-1)
    assert state == [0, 0.0, 1.0, 1.0]
    assert value == 1.0


def test_2_workers_staleness_0():
    # Only the chief's update is applied.
    assert _run_workers(2, 0) == [1, 1.0, 2.0, 1.0]


def test_2_workers_staleness_1():
    assert _run_workers(2, 1) == [2, 2.0, 3.0, 0.0]


def test_3_workers_staleness_0():
    assert _run_workers(3, 0) == [1, 1.0, 2.0, 2.0]


def test_3_workers_staleness_1():
    assert _run_workers(3, 1) == [2, 2.0, 3.0, 1.0]


# ----------------------------------------------------------------------------------------
# The graph and the API


def test_stale_counter_and_the_returned_value():
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.get_or_create_global_step()
        w = tm.Variable([1.0, 2.0], name="w")
        opt = DropStale(tm.train.GradientDescentOptimizer(0.5), 2)
        out = opt.minimize(tm.reduce_sum(w), global_step=gs)
        (counter,) = [v for v in tm.global_variables() if v.name == "stale_counter:0"]
        assert counter.dtype == tm.float32 and counter.shape.rank == 0
        assert not counter.trainable and counter not in tm.trainable_variables()
        # The value of the counter's assign-add, of a cond on staleness <= 2 (int64).
        assert out.op.type == "AssignAddVariableOp" and out.op.inputs[0] is counter.handle
        (less_equal,) = [o for o in g.get_operations() if o.type == "LessEqual"]
        assert less_equal.inputs[0].dtype == tm.int64
        assert less_equal.outputs[0].consumers()[0].type == "If"
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        assert [sess.run(out) for _ in range(3)] == [0.0, 0.0, 0.0]
        np.testing.assert_allclose(sess.run(w), [-0.5, 0.5])
        assert sess.run(gs) == 3


def test_local_step_is_read_before_the_loss():
    g = tm.Graph()
    with g.as_default():
        tm.train.get_or_create_global_step()
        w = tm.Variable(1.0)
        opt = DropStale(tm.train.GradientDescentOptimizer(0.5), 0)
        (grad, var), = opt.compute_gradients(w * 3.0)
        assert var is w
    assert opt._local_step.dtype == tm.int64
    identities = [o for o in g.get_operations()
                  if o.type == "Identity" and opt._local_step.op in o.control_inputs]
    assert identities  # the loss (and so every gradient) waits for the snapshot


def test_slots_are_the_wrapped_optimizers():
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.get_or_create_global_step()
        w = tm.Variable([1.0, 2.0], name="w")
        inner = tm.train.MomentumOptimizer(0.1, 0.9)
        opt = DropStale(inner, 1)
        opt.minimize(tm.reduce_sum(w), global_step=gs)
        assert opt.get_slot_names() == ["momentum"]
        slot = opt.get_slot(w, "momentum")
        assert slot is inner.get_slot(w, "momentum") and slot.name == "w/Momentum:0"
        assert opt.get_slot(w, "nope") is None
        # Created outside the cond's branch, in the graph itself.
        assert slot.graph is g


def test_sparse_gradients_and_adam_through_the_cond():
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.get_or_create_global_step()
        emb = tm.Variable(np.ones((4, 2), np.float32), name="emb")
        dense = tm.Variable([1.0, 1.0], name="dense")
        loss = tm.reduce_sum(tm.gather(emb, [1, 3, 1])) + tm.reduce_sum(dense * dense)
        plain = tm.train.AdamOptimizer(0.1)
        plain_step = plain.minimize(loss)
        opt = DropStale(tm.train.AdamOptimizer(0.1), 0)
        step = opt.minimize(loss, global_step=gs)
        assert isinstance(opt.compute_gradients(loss)[0][0], tm.IndexedSlices)
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        for _ in range(2):
            sess.run(step)
        wrapped = sess.run([emb, dense])
        sess.run(tm.global_variables_initializer())
        for _ in range(2):
            sess.run(plain_step)
        for got, want in zip(wrapped, sess.run([emb, dense])):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        assert wrapped[0][0, 0] == 1.0 and wrapped[0][1, 0] < 1.0


# ----------------------------------------------------------------------------------------
# Errors (TF r1.15's drop_stale_gradient_optimizer.py)


def test_compute_needs_a_global_step():
    with tm.Graph().as_default():
        w = tm.Variable(1.0)
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), 0)
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute "
                                                 "'read_value'"):
            opt.compute_gradients(w * 2.0)


def test_apply_needs_compute_first():
    with tm.Graph().as_default():
        gs = tm.train.get_or_create_global_step()
        w = tm.Variable(1.0)
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), 0)
        with pytest.raises(AttributeError, match="_local_step"):
            opt.apply_gradients([(tm.constant(1.0), w)], gs)


def test_apply_needs_the_global_step():
    with tm.Graph().as_default():
        tm.train.get_or_create_global_step()
        w = tm.Variable(1.0)
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), 0)
        grads_and_vars = opt.compute_gradients(w * 2.0)
        with pytest.raises(ValueError, match="Trying to reset colocation"):
            opt.apply_gradients(grads_and_vars)


def test_second_apply_in_the_same_variable_scope():
    with tm.Graph().as_default():
        gs = tm.train.get_or_create_global_step()
        w = tm.Variable(1.0)
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), 0)
        grads_and_vars = opt.compute_gradients(w * 2.0)
        opt.apply_gradients(grads_and_vars, gs)
        with pytest.raises(ValueError, match="Variable stale_counter already exists, "
                                             "disallowed. Did you mean to set reuse=True"):
            opt.apply_gradients(grads_and_vars, gs)
        with tm.variable_scope("second"):
            opt.apply_gradients(grads_and_vars, gs)  # another scope, another counter


def test_also_under_tm_train():
    assert tm.train.DropStaleGradientOptimizer is DropStale


# ----------------------------------------------------------------------------------------
# Many threads, one Session


def _shared_model(num_workers: int, staleness: int):
    """``num_workers`` DropStale optimizers sharing v = 0 (gradient -1, SGD rate 1, so v counts
    the applied updates) and u, whose gradient is minus the worker's global step snapshot:
    u sums the snapshots of the applied updates."""
    g = tm.Graph()
    with g.as_default():
        gs = tm.train.create_global_step()
        v = tm.Variable(0.0, name="v")
        u = tm.Variable(0.0, name="u")
        train_ops = []
        for worker_id in range(num_workers):
            with tm.variable_scope(tm.get_variable_scope(), reuse=worker_id > 0):
                opt = DropStale(tm.train.GradientDescentOptimizer(1.0), staleness)
                grads_and_vars = opt.compute_gradients(0 - v, var_list=[v])
                snapshot = -tm.cast(opt._local_step, tm.float32)
                train_ops.append(opt.apply_gradients(grads_and_vars + [(snapshot, u)], gs))
        counter = [x for x in tm.global_variables() if x.name == "stale_counter:0"][0]
    return g, train_ops, (gs, v, u, counter)


def _hammer(train_ops, sess, steps: int) -> list[Exception]:
    failures: list[Exception] = []
    start = threading.Barrier(len(train_ops))

    def work(op):
        try:
            start.wait()
            for _ in range(steps):
                sess.run(op)
        except Exception as e:  # pragma: no cover - reported by the caller
            failures.append(e)

    join_all([run_in_thread(work, op) for op in train_ops], timeout=60)
    return failures


@pytest.fixture
def frequent_thread_switches():
    """Python switches threads every 10 us instead of 5 ms, so runs interleave inside the
    accept-or-drop sequence: without its critical section the invariants below fail."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


@pytest.mark.parametrize("staleness", [0, 2])
def test_eight_threads_two_hundred_steps(staleness, frequent_thread_switches):
    g, train_ops, state = _shared_model(8, staleness)
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        assert _hammer(train_ops, sess, 200) == []
        step, v, u, dropped = sess.run(list(state))
    # Every attempt was either applied (the global step) or dropped (the counter)...
    assert step + dropped == 8 * 200
    # ...each applied one whole: v moved once per applied step...
    assert v == step
    assert step > 0
    if staleness == 0:
        # ...and, the check and the apply being atomic, the k-th applied update was computed
        # at global step k exactly (0 + 1 + ... + (n - 1)).
        assert u == step * (step - 1) / 2
    else:
        # Snapshots lag the global step by at most the staleness bound.
        assert step * (step - 1) / 2 - staleness * step <= u <= step * (step - 1) / 2


def test_reference_variables_are_refused_with_a_reason():
    with tm.Graph().as_default():
        gs = tm.train.get_or_create_global_step()
        w = tm.Variable(1.0, name="w", use_resource=False)
        opt = DropStale(tm.train.GradientDescentOptimizer(1.0), 0)
        with pytest.raises(TypeError, match=r"cannot update reference variables.*'w:0'"):
            opt.minimize(w * 2.0, global_step=gs)
