"""Training ops (tfmini/ops/variables/training_ops.py and training_ops_more.py): TF 2.21
goldens through the resource and the ref spelling, TensorFlow's training_ops_test cases,
errors, concurrency and rollback."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.helpers import join_all, run_in_thread
from tfmini.ops.variables.resource_ops import VariableResource

R = tm.raw_ops
GOLDENS = load_golden("training_ops")
CASES = sorted({k.split("/")[0] for k in GOLDENS})


@pytest.fixture
def graph():
    g = tm.Graph()
    with g.as_default():
        yield g


def _res_var(value, name):
    value = np.asarray(value)
    h = R.VarHandleOp(dtype=tm.as_dtype(value.dtype), shape=value.shape, shared_name=name)
    return h, R.AssignVariableOp(resource=h, value=value), R.ReadVariableOp(
        resource=h, dtype=tm.as_dtype(value.dtype))


def _ref_var(value, name):
    value = np.asarray(value)
    ref = R.VariableV2(dtype=tm.as_dtype(value.dtype), shape=value.shape, name=name)
    return ref, R.Assign(ref=ref, value=value).op, tm.identity(ref)


# ----------------------------------------------------------------------------------------
# Goldens: every case through ResourceX and (the same kernel, ref inputs) X


@pytest.mark.parametrize("kind", ["resource", "ref"])
@pytest.mark.parametrize("case", CASES)
def test_matches_tensorflow(case, kind):
    meta = json.loads(str(GOLDENS[f"{case}/meta"]))
    op_type = meta["op"] if kind == "resource" else meta["op"][len("Resource"):]
    inputs = sorted({k.split("/")[2] for k in GOLDENS if k.startswith(f"{case}/in/")})
    rtol = 1e-2 if meta["dtype"] == "float16" else 1e-5
    g = tm.Graph()
    with g.as_default():
        make = _res_var if kind == "resource" else _ref_var
        made = {v: make(GOLDENS[f"{case}/init/{v}"], v) for v in meta["vars"]}
        feeds = {k: tm.placeholder(tm.as_dtype(GOLDENS[f"{case}/in/{k}"].dtype), name=k)
                 for k in inputs}
        op = getattr(R, op_type)(**{v: m[0] for v, m in made.items()}, **feeds, **meta["attrs"])
        with tm.Session() as sess:
            sess.run([m[1] for m in made.values()])
            for step in range(meta["steps"]):
                sess.run(op, {feeds[k]: GOLDENS[f"{case}/in/{k}"][step] for k in inputs})
                got = sess.run({v: m[2] for v, m in made.items()})
                for v in meta["vars"]:
                    want = GOLDENS[f"{case}/out/{v}"][step]
                    assert got[v].dtype == want.dtype
                    np.testing.assert_allclose(got[v], want, rtol=rtol, atol=rtol * 1e-2,
                                               err_msg=f"{case} {v} step {step}")


def test_goldens_cover_every_update_op():
    ops = {json.loads(str(GOLDENS[f"{c}/meta"]))["op"] for c in CASES}
    assert ops == {
        "ResourceApplyGradientDescent", "ResourceApplyMomentum", "ResourceApplyAdagrad",
        "ResourceApplyAdagradV2", "ResourceApplyAdam", "ResourceSparseApplyAdagrad",
        "ResourceSparseApplyAdagradV2", "ResourceSparseApplyMomentum",
        # tfmini/ops/variables/training_ops_more.py
        "ResourceApplyRMSProp", "ResourceApplyCenteredRMSProp", "ResourceApplyAdadelta",
        "ResourceApplyFtrl", "ResourceApplyFtrlV2", "ResourceApplyProximalGradientDescent",
        "ResourceApplyProximalAdagrad", "ResourceApplyAdagradDA", "ResourceApplyAdaMax",
        "ResourceApplyPowerSign", "ResourceApplyAddSign", "ResourceSparseApplyRMSProp",
        "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyAdadelta",
        "ResourceSparseApplyFtrl", "ResourceSparseApplyFtrlV2",
        "ResourceSparseApplyProximalGradientDescent", "ResourceSparseApplyProximalAdagrad",
        "ResourceSparseApplyAdagradDA",
    }


# ----------------------------------------------------------------------------------------
# TensorFlow's training_ops_test.py and adagrad_test.py cases (tensorflow/python/training/)


def test_training_ops_test_apply_adagrad(graph):
    for dtype in (np.float32, np.float64):
        x = np.arange(100).astype(dtype)
        y = np.arange(1, 101).astype(dtype)
        lr = np.array(2.0, dtype)
        grad = np.arange(100).astype(dtype)
        var, init_v, read_v = _ref_var(x, f"x{dtype.__name__}")
        acc, init_a, read_a = _ref_var(y, f"y{dtype.__name__}")
        out = tm.identity(R.ApplyAdagrad(var=var, accum=acc, lr=lr, grad=grad))
        with tm.Session() as sess:
            sess.run([init_v, init_a])
            got = sess.run(out)
            np.testing.assert_allclose(got, x - lr * grad * (y + grad * grad) ** -0.5,
                                       rtol=1e-6)
            np.testing.assert_allclose(sess.run(read_a), y + grad * grad, rtol=1e-6)


def test_training_ops_test_sparse_apply_adagrad(graph):
    x = np.arange(10, dtype=np.float32).reshape(5, 2) + 1
    y = np.full((5, 2), 0.5, np.float32)
    grad = np.arange(6, dtype=np.float32).reshape(3, 2) / 4
    indices = np.array([0, 4, 2], np.int64)
    var, iv, rv = _ref_var(x, "x")
    acc, ia, ra = _ref_var(y, "y")
    op = R.SparseApplyAdagrad(var=var, accum=acc, lr=np.float32(2.0), grad=grad,
                              indices=indices)
    with tm.Session() as sess:
        sess.run([iv, ia])
        sess.run(op)
        got_x, got_y = sess.run([rv, ra])
    want_y, want_x = y.copy(), x.copy()
    for i, index in enumerate(indices):
        want_y[index] += grad[i] ** 2
        want_x[index] -= 2.0 * grad[i] * want_y[index] ** -0.5
    np.testing.assert_allclose(got_y, want_y, rtol=1e-6)
    np.testing.assert_allclose(got_x, want_x, rtol=1e-6)


def test_adagrad_test_basic_three_steps(graph):
    v0, i0, r0 = _res_var(np.array([1.0, 2.0], np.float32), "v0")
    v1, i1, r1 = _res_var(np.array([3.0, 4.0], np.float32), "v1")
    a0, j0, _ = _res_var(np.full(2, 0.1, np.float32), "a0")
    a1, j1, _ = _res_var(np.full(2, 0.1, np.float32), "a1")
    ops = [R.ResourceApplyAdagrad(var=v0, accum=a0, lr=np.float32(3.0),
                                  grad=np.full(2, 0.1, np.float32)),
           R.ResourceApplyAdagrad(var=v1, accum=a1, lr=np.float32(3.0),
                                  grad=np.full(2, 0.01, np.float32))]
    with tm.Session() as sess:
        sess.run([i0, i1, j0, j1])
        for _ in range(3):
            sess.run(ops)
        np.testing.assert_allclose(sess.run(r0), [-1.6026098728179932, -0.6026098728179932],
                                   rtol=1e-6)
        np.testing.assert_allclose(sess.run(r1), [2.715679168701172, 3.715679168701172],
                                   rtol=1e-6)


def test_repeated_indices_are_applied_in_turn(graph):
    # TensorFlow's documented duplicate-index example: [2,2] with g=1, lr=1, acc 0.1: acc -> 2.1,
    # var -= 1/sqrt(1.1) + 1/sqrt(2.1)
    v, iv, rv = _res_var(np.zeros((3, 1), np.float32), "v")
    a, ia, ra = _res_var(np.full((3, 1), 0.1, np.float32), "a")
    op = R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=np.float32(1), grad=np.ones((2, 1),
                                      np.float32), indices=np.array([2, 2], np.int32))
    with tm.Session() as sess:
        sess.run([iv, ia])
        sess.run(op)
        np.testing.assert_allclose(sess.run(ra).ravel(), [0.1, 0.1, 2.1], rtol=1e-6)
        np.testing.assert_allclose(sess.run(rv).ravel(),
                                   [0, 0, -1 / np.sqrt(1.1) - 1 / np.sqrt(2.1)], rtol=1e-6)


def test_many_duplicate_rounds_match_a_python_row_loop(graph):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 7, 60).astype(np.int32)  # ~9 occurrences per row
    grad = rng.standard_normal((60, 3))
    var0, acc0 = rng.standard_normal((7, 3)), np.full((7, 3), 0.5)
    v, iv, rv = _res_var(var0, "v")
    a, ia, ra = _res_var(acc0, "a")
    op = R.ResourceSparseApplyAdagradV2(var=v, accum=a, lr=np.float64(0.1),
                                        epsilon=np.float64(0.01), grad=grad,
                                        indices=idx)
    with tm.Session() as sess:
        sess.run([iv, ia])
        sess.run(op)
        got_v, got_a = sess.run([rv, ra])
    want_v, want_a = var0.copy(), acc0.copy()
    for i, row in enumerate(idx):
        want_a[row] += grad[i] ** 2
        want_v[row] -= 0.1 * grad[i] / (np.sqrt(want_a[row]) + 0.01)
    np.testing.assert_allclose(got_a, want_a, rtol=1e-12)
    np.testing.assert_allclose(got_v, want_v, rtol=1e-12)


def test_adagrad_zero_accumulator_and_gradient_gives_nan(graph):
    v, iv, rv = _res_var(np.zeros(2, np.float32), "v")
    a, ia, _ = _res_var(np.zeros(2, np.float32), "a")
    op = R.ResourceApplyAdagrad(var=v, accum=a, lr=np.float32(1), grad=np.zeros(2, np.float32))
    with tm.Session() as sess:
        sess.run([iv, ia])
        sess.run(op)
        assert np.isnan(sess.run(rv)).all()  # 0/0, as TensorFlow


def test_ref_op_outputs_the_updated_reference(graph):
    w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
    step = R.ApplyGradientDescent(var=w, alpha=0.5, delta=[1.0, 1.0])
    assert step.shape == (2,) and step.dtype == tm.float32
    doubled = step * 2  # a value input fed by a reference reads the variable after the update
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(doubled), [1.0, 3.0])
        np.testing.assert_allclose(sess.run(w), [0.5, 1.5])


# ----------------------------------------------------------------------------------------
# Errors (tensorflow/core/kernels/training_ops.cc; messages as TF 2.21 gives them at run time)


F = np.float32
M = np.array([[1, 2], [3, 4], [5, 6]], F)


def _unknown(value):
    """A tensor whose shape is unknown when the graph is built (so the kernel checks it)."""
    return tm.placeholder_with_default(np.asarray(value), shape=None)


def _run_error(build, setup_values):
    g = tm.Graph()
    with g.as_default():
        handles = []
        inits = []
        for k, v in enumerate(setup_values):
            h = R.VarHandleOp(dtype=tm.as_dtype(v.dtype), shape=None, shared_name=f"v{k}")
            handles.append(h)
            inits.append(R.AssignVariableOp(resource=h, value=v))
        op = build(*handles)
        with tm.Session() as sess:
            sess.run(inits)
            sess.run(op)


@pytest.mark.parametrize("build, values, cls, message", [
    (lambda v, a: R.ResourceApplyAdagrad(var=v, accum=a, lr=F(1), grad=np.ones(2, F)),
     [np.ones(2, F), np.ones(3, F)], tm.errors.InvalidArgumentError,
     "var and accum do not have the same shape[2] [3]"),
    (lambda v, a: R.ResourceApplyAdagrad(var=v, accum=a, lr=_unknown(F([1])),
                                         grad=np.ones(2, F)),
     [np.ones(2, F), np.ones(2, F)], tm.errors.InvalidArgumentError, "lr is not a scalar: [1]"),
    (lambda v, a: R.ResourceApplyAdagrad(var=v, accum=a, lr=F(1), grad=_unknown(np.ones(3, F))),
     [np.ones(2, F), np.ones(2, F)], tm.errors.InvalidArgumentError,
     "var and grad do not have the same shape[2] [3]"),
    (lambda v: R.ResourceApplyGradientDescent(var=v, alpha=F(1), delta=_unknown(np.ones(3, F))),
     [np.ones(2, F)], tm.errors.InvalidArgumentError,
     "var and delta do not have the same shape[2] [3]"),
    (lambda v: R.ResourceApplyGradientDescent(var=v, alpha=_unknown(F([1])), delta=np.ones(2, F)),
     [np.ones(2, F)], tm.errors.InvalidArgumentError, "alpha is not a scalar: [1]"),
    (lambda v, a: R.ResourceApplyMomentum(var=v, accum=a, lr=F(1), grad=np.ones(2, F),
                                          momentum=_unknown(F([1]))),
     [np.ones(2, F), np.ones(2, F)], tm.errors.InvalidArgumentError,
     "momentum is not a scalar: [1]"),
    (lambda v, m, w: R.ResourceApplyAdam(var=v, m=m, v=w, beta1_power=F(.9), beta2_power=F(.9),
                                         lr=_unknown(F([1])), beta1=F(.9), beta2=F(.9),
                                         epsilon=F(1e-7), grad=np.ones(2, F)),
     [np.ones(2, F)] * 3, tm.errors.InvalidArgumentError, "lr is not a scalar : [1]"),
    (lambda v, m, w: R.ResourceApplyAdam(var=v, m=m, v=w, beta1_power=F(.9), beta2_power=F(.9),
                                         lr=F(1), beta1=F(.9), beta2=F(.9), epsilon=F(1e-7),
                                         grad=np.ones(2, F)),
     [np.ones(2, F), np.ones(2, F), np.ones(3, F)], tm.errors.InvalidArgumentError,
     "var and v do not have the same shape[2] [3]"),
    (lambda v, a: R.ResourceApplyAdagradV2(var=v, accum=a, lr=F(1), epsilon=_unknown(F([1])),
                                           grad=np.ones(2, F)),
     [np.ones(2, F), np.ones(2, F)], tm.errors.InvalidArgumentError,
     "epsilon is not a scalar: [1]"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=M[:1],
                                               indices=_unknown(np.array([[0]], np.int32))),
     [M, M], tm.errors.InvalidArgumentError, "indices must be one-dimensional"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1),
                                               grad=_unknown(np.ones((1, 3), F)),
                                               indices=np.array([0], np.int32)),
     [M, M], tm.errors.InvalidArgumentError, "var and grad must match in dimension 1"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1),
                                               grad=_unknown(np.ones((2, 2), F)),
                                               indices=np.array([0], np.int32)),
     [M, M], tm.errors.InvalidArgumentError,
     "grad must be the same size as indices in the first dimension."),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=M[:1],
                                               indices=np.array([5], np.int32)),
     [M, M], tm.errors.InvalidArgumentError, "Index 5 at offset 0 in indices is out of range"),
    (lambda v, a: R.ResourceSparseApplyMomentum(var=v, accum=a, lr=F(1), grad=M[:2],
                                                indices=np.array([0, -1], np.int64),
                                                momentum=F(0.9)),
     [M, M], tm.errors.InvalidArgumentError, "Index -1 at offset 1 in indices is out of range"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=M[:1],
                                               indices=np.array([0], np.int32)),
     [M, np.ones(2, F)], tm.errors.InvalidArgumentError,
     "var and accum do not have the same shape[3,2] [2]"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=_unknown(F([1])),
                                               indices=np.array([0], np.int32)),
     [F(1), F(1)], tm.errors.InvalidArgumentError, "var must be at least 1 dimensional"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=_unknown(F(1)),
                                               indices=np.array([0], np.int32)),
     [M, M], tm.errors.InvalidArgumentError,
     "grad must have the same number of dimensions as var"),
    (lambda v, a: R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=np.zeros((1, 0), F),
                                               indices=np.array([0], np.int32)),
     [np.zeros((3, 0), F)] * 2, tm.errors.InvalidArgumentError,
     "Inner dimension should be greater than zero."),
    (lambda v: R.ResourceApplyGradientDescent(var=v, alpha=np.int32(1), delta=np.ones(2, np.int32)),
     [np.ones(2, np.int32)], tm.errors.InvalidArgumentError,
     "No OpKernel was registered to support Op 'ResourceApplyGradientDescent'"),
    (lambda v: R.ResourceApplyGradientDescent(var=v, alpha=F(1), delta=np.ones(2, F)),
     [np.ones(2, np.float64)], tm.errors.InvalidArgumentError, "var has dtype double"),
])
def test_errors(build, values, cls, message):
    with pytest.raises(cls) as info:
        _run_error(build, values)
    assert message in str(info.value)


def test_missing_resource_variable_is_an_invalid_reference(graph):
    h = R.VarHandleOp(dtype=tm.float32, shape=[2], shared_name="nowhere")
    op = R.ResourceApplyGradientDescent(var=h, alpha=F(1), delta=np.ones(2, F))
    with tm.Session() as sess, pytest.raises(tm.errors.InternalError,
                                             match="Invalid variable reference"):
        sess.run(op)


def test_uninitialized_ref_variable_fails_precondition(graph):
    ref = R.VariableV2(dtype=tm.float32, shape=[2], name="w")
    op = R.ApplyGradientDescent(var=ref, alpha=F(1), delta=np.ones(2, F))
    with tm.Session() as sess, pytest.raises(tm.errors.FailedPreconditionError,
                                             match="Attempting to use uninitialized value w"):
        sess.run(op)


@pytest.mark.parametrize("build, message", [
    (lambda h: R.ResourceApplyGradientDescent(var=h, alpha=F([1]), delta=np.ones(2, F)),
     "Shape must be rank 0 but is rank 1"),
    (lambda h: R.ResourceApplyGradientDescent(var=h, alpha=F(1), delta=np.ones(3, F)),
     "Dimension 0 in both shapes must be equal"),
    (lambda h: R.ResourceSparseApplyAdagrad(var=h, accum=h, lr=F(1), grad=np.ones((1, 2), F),
                                            indices=np.zeros((1, 1), np.int32)),
     "Shape must be rank 1 but is rank 2"),
])
def test_shape_functions_use_the_handle_shape(graph, build, message):
    h = R.VarHandleOp(dtype=tm.float32, shape=[2], shared_name="v")
    with pytest.raises(ValueError, match=message):
        build(h)


def test_ops_have_no_gradient():
    from tfmini.core import registry

    for name in ("ApplyGradientDescent", "ResourceApplyAdam", "ResourceSparseApplyMomentum",
                 "SparseApplyAdagradV2"):
        op_def = registry.get(name)
        assert op_def.grad_fn is None and op_def.no_gradient and op_def.is_stateful


# ----------------------------------------------------------------------------------------
# Concurrency, rollback, buffers


def test_eight_threads_with_use_locking_lose_nothing(graph):
    h, init, read = _res_var(np.zeros(4, np.float64), "w")
    op = R.ResourceApplyGradientDescent(var=h, alpha=np.float64(0.5),
                                        delta=-np.arange(4, dtype=np.float64),
                                        use_locking=True)
    with tm.Session() as sess:
        sess.run(init)
        errors = []

        def work():
            try:
                for _ in range(200):
                    sess.run(op)
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        join_all([run_in_thread(work) for _ in range(8)])
        assert not errors
        np.testing.assert_array_equal(sess.run(read), 0.5 * 1600 * np.arange(4))


def test_eight_threads_sparse_updates_lose_nothing(graph):
    h, init, read = _res_var(np.zeros((5, 2), np.float64), "w")
    a, ia, _ = _res_var(np.zeros((5, 2), np.float64), "a")
    # Momentum 1 and lr 1 make each step add the running sum; with g = -1 on rows 1 and 3,
    # after n steps accum = -n and var = n(n+1)/2 exactly, whatever the interleaving.
    op = R.ResourceSparseApplyMomentum(var=h, accum=a, lr=np.float64(1), grad=-np.ones((2, 2)),
                                       indices=np.array([1, 3], np.int32),
                                       momentum=np.float64(1))
    with tm.Session() as sess:
        sess.run([init, ia])
        join_all([run_in_thread(lambda: [sess.run(op) for _ in range(200)]) for _ in range(8)])
        got = sess.run(read)
    n = 1600
    np.testing.assert_array_equal(got[[1, 3]], np.full((2, 2), n * (n + 1) / 2))
    np.testing.assert_array_equal(got[[0, 2, 4]], 0)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_failing_later_step_undoes_the_update(graph, sparse):
    v, iv, rv = _res_var(np.ones((3, 2), F), "v")
    a, ia, ra = _res_var(np.ones((3, 2), F), "a")
    if sparse:
        op = R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=np.ones((2, 2), F),
                                          indices=np.array([0, 0], np.int32))
    else:
        op = R.ResourceApplyAdagrad(var=v, accum=a, lr=F(1), grad=np.ones((3, 2), F))
    with tm.control_dependencies([op]):  # fails at run time, after the update
        bad = tm.reshape(_unknown(np.ones(3, F)), [2])
    with tm.Session() as sess:
        sess.run([iv, ia])
        before = sess.run([rv, ra])
        with pytest.raises(tm.errors.InvalidArgumentError, match="Reshape"):
            sess.run(bad)
        after = sess.run([rv, ra])
        np.testing.assert_array_equal(after[0], before[0])
        np.testing.assert_array_equal(after[1], before[1])
        sess.run(op)  # and the update still works afterwards
        assert not np.array_equal(sess.run(rv), before[0])


def _storage(sess, name):
    return sess._device("CPU").resource_manager.lookup("", name)


def test_dense_updates_alternate_between_two_buffers(graph):
    v, iv, rv = _res_var(np.zeros((4, 4), F), "v")
    op = R.ResourceApplyGradientDescent(var=v, alpha=F(1), delta=np.ones((4, 4), F))
    with tm.Session() as sess:
        sess.run(iv)
        res = _storage(sess, "v")
        ids = set()
        for _ in range(6):
            sess.run(op)
            ids.add(id(res.value))
            assert not res.value.flags.writeable
        # No new array per step: written in place once the run succeeded (the run's last
        # update: runtime/late_updates.py), else double buffering.
        assert len(ids) <= 2
        held = res.value  # somebody holds the current value: it must never be written
        snapshot = held.copy()
        for _ in range(3):
            sess.run(op)
        np.testing.assert_array_equal(held, snapshot)
        np.testing.assert_array_equal(sess.run(rv), np.full((4, 4), -9, F))


def test_sparse_updates_write_in_place_only_when_nobody_holds_the_array(graph):
    v, iv, rv = _res_var(np.zeros((4, 2), F), "v")
    a, ia, _ = _res_var(np.ones((4, 2), F), "a")
    op = R.ResourceSparseApplyAdagrad(var=v, accum=a, lr=F(1), grad=np.ones((1, 2), F),
                                      indices=np.array([2], np.int32))
    with tm.Session() as sess:
        sess.run([iv, ia])
        res = _storage(sess, "v")
        sess.run(op)
        first = id(res.value)
        sess.run(op)
        assert id(res.value) == first  # nobody held it: updated in place
        held = res.read()
        snapshot = held.copy()
        sess.run(op)
        assert res.value is not held  # a reader holds it: copy-on-write
        np.testing.assert_array_equal(held, snapshot)
        assert sys.getrefcount(held) >= 2


def test_undo_of_an_in_place_update_keeps_a_readers_array(graph):
    class Ctx:
        def __init__(self):
            self.undo = []

        def on_failure(self, fn):
            self.undo.append(fn)

    res = VariableResource(tm.float32)
    res.value = np.zeros((3, 2), F)
    res.value.flags.writeable = False
    ctx = Ctx()
    rows = np.array([1])
    with res.lock:
        arr = res.begin_update(ctx, rows)
        assert arr is res.value
        arr[rows] = 5
        res.finish_update(ctx, arr)
        del arr
    reader = res.read()
    np.testing.assert_array_equal(reader[1], [5, 5])
    ctx.undo[0]()  # the run failed: rows restored, but not in the array the reader holds
    np.testing.assert_array_equal(res.value, np.zeros((3, 2)))
    np.testing.assert_array_equal(reader[1], [5, 5])
    assert not res.value.flags.writeable
