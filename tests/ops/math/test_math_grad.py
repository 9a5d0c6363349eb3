"""Gradients of the math family (tfmini/ops/math_grad.py).

Three kinds of checks:

* numeric: every differentiable op against central differences (``tm.test``) on random
  inputs, float64 with a tight bound and float32 with a loose one, with broadcasting shapes,
  placeholders of unknown shape, and reductions over negative axes and with keep_dims;
* golden: the gradients TensorFlow 2.21 computes for the same raw ops and upstream
  gradients, recorded by tools/record_goldens_math_grad.py into tests/goldens/math_grad.npz
  (ties of Max/Min and Maximum/Minimum, Pow at 0, Prod with zeros, all transposes, batch
  broadcasting, dynamic shapes);
* structure: what is not differentiable gives None, integer paths are not differentiated,
  and static shapes keep the gradient graph free of run-time shape ops.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.scope import current_scope
from tfmini.ops.math.broadcasting import broadcast_gradient_args, unbroadcast

# ----------------------------------------------------------------------------------------
# Numeric checks

RNG = np.random.default_rng(7)
# Central differences with these steps are accurate to about 1e-9 (float64) and 1e-3
# (float32); a wrong gradient is off by O(1).
STEP = {tm.float64: 1e-6, tm.float32: 1e-3}
BOUND = {tm.float64: 1e-7, tm.float32: 2e-2}


def _error(fn, shapes, dtype=tm.float64, unknown=False, low=-1.0, high=1.0, values=None,
           step=None):
    """compute_gradient_error of ``fn(*placeholders)`` w.r.t. every placeholder."""
    g = tm.Graph()
    with g.as_default(), tm.Session(graph=g) as sess:
        xs = [tm.placeholder(dtype, None if unknown else s) for s in shapes]
        y = fn(*xs)
        if values is None:
            values = [RNG.uniform(low, high, s).astype(dtype.np_dtype) for s in shapes]
        values = [np.asarray(v, dtype.np_dtype) for v in values]
        y_shape = np.shape(sess.run(y, dict(zip(xs, values))))
        return tm.test.compute_gradient_error(xs, [np.shape(v) for v in values], y, y_shape,
                                              x_init_value=values,
                                              delta=step or STEP[dtype])


UNARY = {
    "Abs": (tm.abs, 0.2, 1.0),  # away from the kink at 0 (sign flipped below)
    "Neg": (tm.negative, -1.0, 1.0),
    "Sign": (tm.sign, 0.2, 1.0),
    "Square": (tm.square, -1.0, 1.0),
    "Sqrt": (tm.sqrt, 0.2, 2.0),
    "Rsqrt": (tm.rsqrt, 0.2, 2.0),
    "Exp": (tm.exp, -1.0, 1.0),
    "Log": (tm.log, 0.2, 2.0),
    "Log1p": (tm.log1p, -0.5, 1.0),
    "Sin": (tm.sin, -2.0, 2.0),
    "Cos": (tm.cos, -2.0, 2.0),
    "Tanh": (tm.tanh, -2.0, 2.0),
    "Sigmoid": (tm.sigmoid, -2.0, 2.0),
}


@pytest.mark.parametrize("dtype", [tm.float64, tm.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_numeric(op, unknown, dtype):
    fn, low, high = UNARY[op]
    values = RNG.uniform(low, high, (2, 3))
    if op in ("Abs", "Sign"):
        values[0] *= -1  # both signs, none near 0
    assert _error(fn, [(2, 3)], dtype, unknown, values=[values]) < BOUND[dtype]


BINARY = {
    "AddV2": (tm.add, (-1, 1), (-1, 1)),
    "Add": (lambda x, y: build_op(current_scope(), "Add", [x, y]).outputs[0], (-1, 1),
            (-1, 1)),
    "Sub": (tm.subtract, (-1, 1), (-1, 1)),
    "Mul": (tm.multiply, (-1, 1), (-1, 1)),
    "RealDiv": (tm.realdiv, (-1, 1), (0.5, 2)),
    "Div": (lambda x, y: build_op(current_scope(), "Div", [x, y]).outputs[0], (-1, 1),
            (0.5, 2)),
    # x in [2.2, 2.6], y in [1.0, 1.1]: floor(x / y) = 2 everywhere near the point.
    "FloorMod": (tm.floormod, (2.2, 2.6), (1.0, 1.1)),
    "Pow": (tm.pow, (0.5, 2), (-2, 2)),
    "Maximum": (tm.maximum, (-1, 1), (-1, 1)),
    "Minimum": (tm.minimum, (-1, 1), (-1, 1)),
}
SHAPES = {
    "same": ((2, 3), (2, 3)),
    "row": ((2, 3), (3,)),
    "col_row": ((2, 1, 3), (4, 1)),
    "scalar": ((), (2, 3)),
    "ones": ((1, 3), (2, 1)),
}


@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
@pytest.mark.parametrize("shapes", sorted(SHAPES))
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_numeric_float64(op, shapes, unknown):
    fn, (xl, xh), (yl, yh) = BINARY[op]
    sx, sy = SHAPES[shapes]
    values = [RNG.uniform(xl, xh, sx), RNG.uniform(yl, yh, sy)]
    assert _error(fn, [sx, sy], tm.float64, unknown, values=values) < BOUND[tm.float64]


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_numeric_float32(op):
    fn, (xl, xh), (yl, yh) = BINARY[op]
    values = [RNG.uniform(xl, xh, (2, 1, 3)), RNG.uniform(yl, yh, (4, 1))]
    assert _error(fn, [(2, 1, 3), (4, 1)], tm.float32, values=values) < BOUND[tm.float32]


def test_add_n_numeric():
    assert _error(lambda a, b, c: tm.add_n([a, b, c]) * a, [(2, 3)] * 3) < 1e-7


@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
@pytest.mark.parametrize("cond", ["same", "vector", "scalar"])
def test_select_numeric(cond, unknown):
    c = {"same": [[True, False, True], [False, True, True]], "vector": [True, False],
         "scalar": False}[cond]
    err = _error(lambda x, y: tm.where(tm.constant(c), x * x, y * 3.0), [(2, 3), (2, 3)],
                 unknown=unknown)
    assert err < 1e-7


@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
def test_select_v2_broadcasting_numeric(unknown):
    c = [[True, False, True], [False, True, False]]
    err = _error(lambda x, y: tm.where_v2(tm.constant(c), x * x, y * 3.0), [(3,), (2, 1)],
                 unknown=unknown)
    assert err < 1e-7


@pytest.mark.parametrize("src,dst", [(tm.float64, tm.float32), (tm.float32, tm.float64)])
def test_cast_numeric(src, dst):
    # y = cast(x) * cast(x) in dst, cast back; the narrower type sets the accuracy. (Half
    # precision is too coarse for differences; the goldens check its Cast gradient.)
    def fn(x):
        c = tm.cast(x, dst)
        return tm.cast(c * c, src)

    assert _error(fn, [(2, 3)], src, step=STEP[tm.float32]) < BOUND[tm.float32]


@pytest.mark.parametrize("dtype", [tm.float64, tm.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul_numeric(ta, tb, dtype):
    sa = (3, 2) if ta else (2, 3)
    sb = (4, 3) if tb else (3, 4)
    err = _error(lambda a, b: tm.matmul(a, b, transpose_a=ta, transpose_b=tb), [sa, sb], dtype)
    assert err < BOUND[dtype]


BATCH = {
    "same": ((2, 3, 4), (2, 4, 5)),
    "x_batch": ((2, 3, 4), (4, 5)),
    "y_batch": ((3, 4), (2, 4, 5)),
    "broadcast": ((2, 1, 3, 4), (3, 4, 2)),
    "ones": ((1, 3, 4), (1, 4, 2)),
}


@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["nn", "an", "na", "aa"])
@pytest.mark.parametrize("case", sorted(BATCH))
def test_batch_matmul_numeric(case, adj, unknown):
    sx, sy = BATCH[case]
    ax, ay = adj
    sx = sx[:-2] + sx[:-3:-1] if ax else sx
    sy = sy[:-2] + sy[:-3:-1] if ay else sy

    def fn(x, y):
        return build_op(current_scope(), "BatchMatMulV2", [x, y],
                        {"adj_x": ax, "adj_y": ay}).outputs[0]

    assert _error(fn, [sx, sy], unknown=unknown) < 1e-7


AXES = {"all": None, "axis1": 1, "neg": -1, "two": [0, -1], "none": np.array([], np.int32)}


@pytest.mark.parametrize("dtype", [tm.float64, tm.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("unknown", [False, True], ids=["static", "unknown"])
@pytest.mark.parametrize("keep", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("axes", sorted(AXES))
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                "reduce_prod"])
def test_reduction_numeric(op, axes, keep, unknown, dtype):
    # Distinct values: Max/Min have one winner per group, at least 1e-2 from the next.
    values = (RNG.permutation(24).reshape(2, 3, 4) / 12.0 - 0.9) * 1.5
    fn = getattr(tm, op)
    err = _error(lambda x: fn(x, AXES[axes], keepdims=keep), [(2, 3, 4)], dtype, unknown,
                 values=[values])
    assert err < BOUND[dtype]


@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min", "Prod"])
def test_reduction_with_fed_axes_numeric(op):
    # Axes known only at run time: the reduced shape is computed in the graph.
    g = tm.Graph()
    with g.as_default(), tm.Session(graph=g) as sess:
        x = tm.placeholder(tm.float64, None)
        axes = tm.placeholder(tm.int32, None)
        for keep in (False, True):
            y = build_op(current_scope(), op, [x, axes], {"keep_dims": keep}).outputs[0]
            values = (RNG.permutation(24).reshape(2, 3, 4) / 12.0 - 0.9) * 1.5
            for a in (np.array([-1, 0], np.int32), np.array(1, np.int32)):
                feeds = {axes: a}
                y_shape = np.shape(sess.run(y, {x: values, **feeds}))
                err = tm.test.compute_gradient_error(x, (2, 3, 4), y, y_shape, values,
                                                     delta=1e-6, extra_feed_dict=feeds)
                assert err < 1e-7, (keep, a)


@pytest.mark.parametrize("values", [
    [[1.5, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 2.0], [0.5, 2.0, -2.0, 1.5]],
    [[0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 1.0, 1.0]],
], ids=["some_zeros", "many_zeros"])
@pytest.mark.parametrize("axis", [0, 1])
def test_prod_with_zeros_numeric(values, axis):
    # The product is a polynomial: differences are exact enough even at the zeros.
    err = _error(lambda x: tm.reduce_prod(x, axis), [(3, 4)], values=[values])
    assert err < 1e-7


# ----------------------------------------------------------------------------------------
# Golden values from TensorFlow


def _unpack(raw):
    index = json.loads(bytes(raw["index"]).decode("utf-8"))
    arrays = {}
    for key, ref in index["arrays"].items():
        pool = raw[f"pool/{ref['pool']}"]
        n = int(np.prod(ref["shape"], dtype=np.int64))
        arrays[key] = pool[ref["offset"]:ref["offset"] + n].reshape(ref["shape"])
    return arrays, index["meta"]


ARRAYS, META = _unpack(load_golden("math_grad"))
TOL = {"float16": dict(rtol=1e-3, atol=1e-3)}
DEFAULT_TOL = dict(rtol=1e-4, atol=1e-6)


def _golden_graph(case: str):
    meta = META[case]
    inputs, flat, feeds = [], [], {}
    for i, n in enumerate(meta["args"]):
        if n is not None:
            ts = [tm.constant(ARRAYS[f"{case}/in{i}_{j}"]) for j in range(n)]
            inputs.append(ts)
            flat.append(ts)
            continue
        value = ARRAYS[f"{case}/in{i}"]
        if i in meta["fed"]:
            t = tm.placeholder(tm.as_dtype(value.dtype), None)
            feeds[t] = value
        else:
            t = tm.constant(value)
        inputs.append(t)
        flat.append(t)
    attrs = {k: tm.as_dtype(v["dtype"]) if isinstance(v, dict) else v
             for k, v in meta["attrs"].items()}
    y = build_op(current_scope(), meta["op"], inputs, attrs).outputs[0]
    xs = [x for i in meta["wrt"] for x in (flat[i] if isinstance(flat[i], list) else [flat[i]])]
    return y, xs, feeds


@pytest.mark.parametrize("case", sorted(META))
def test_matches_tensorflow(case):
    meta = META[case]
    g = tm.Graph()
    with g.as_default():
        y, xs, feeds = _golden_graph(case)
        grads = tm.gradients(y, xs, grad_ys=tm.constant(ARRAYS[f"{case}/dy"]))
        assert [k for k, gr in enumerate(grads) if gr is None] == meta["none"]
        with tm.Session(graph=g) as sess:
            values = sess.run([gr for gr in grads if gr is not None], feeds)
    it = iter(values)
    for k, gr in enumerate(grads):
        if gr is None:
            continue
        expected = ARRAYS[f"{case}/grad{k}"]
        actual = np.asarray(next(it))
        assert actual.dtype == expected.dtype, (k, actual.dtype, expected.dtype)
        assert actual.shape == expected.shape, (k, actual.shape, expected.shape)
        assert gr.shape.is_compatible_with(expected.shape)
        np.testing.assert_allclose(actual, expected, equal_nan=True, err_msg=f"grad {k}",
                                   **TOL.get(expected.dtype.name, DEFAULT_TOL))


def test_goldens_cover_every_differentiable_math_op():
    ops = {m["op"] for m in META.values()}
    expected = {"Abs", "Neg", "Sign", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Sin",
                "Cos", "Tanh", "Sigmoid", "AddV2", "Add", "Sub", "Mul", "RealDiv", "Div",
                "FloorDiv", "FloorMod", "Pow", "Maximum", "Minimum", "Select", "SelectV2",
                "Cast", "AddN", "MatMul", "BatchMatMulV2", "Sum", "Mean", "Max", "Min",
                "Prod"}
    assert expected <= ops, expected - ops


# ----------------------------------------------------------------------------------------
# Not differentiable, integer paths


NOT_DIFFERENTIABLE = ["Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                      "LogicalAnd", "LogicalOr", "LogicalNot"]


@pytest.mark.parametrize("op_type", NOT_DIFFERENTIABLE)
def test_comparisons_and_logical_ops_are_marked_not_differentiable(op_type):
    assert registry.get(op_type).no_gradient


@pytest.mark.parametrize("fn", [tm.less, tm.less_equal, tm.greater, tm.greater_equal,
                                tm.equal, tm.not_equal])
def test_comparison_gives_none_without_error(graph, fn):
    x = tm.placeholder(tm.float32, [3])
    y = tm.placeholder(tm.float32, [3])
    # Without the no-gradient mark, tm.gradients raises LookupError here.
    assert tm.gradients(fn(x, y), [x, y]) == [None, None]


def test_logical_ops_give_none_without_error(graph):
    a = tm.placeholder(tm.bool, [3])
    b = tm.placeholder(tm.bool, [3])
    z = tm.logical_not(tm.logical_or(tm.logical_and(a, b), a))
    assert tm.gradients(z, [a, b]) == [None, None]


def test_select_condition_gets_no_gradient(graph):
    c = tm.placeholder(tm.bool, [3])
    x = tm.placeholder(tm.float32, [3])
    y = tm.where(c, x, x * 2.0)
    assert tm.gradients(y, [c]) == [None]
    assert tm.gradients(y, [x])[0] is not None


@pytest.mark.parametrize("fn", [tm.argmax, tm.argmin])
def test_argmax_argmin_give_none(graph, fn):
    x = tm.placeholder(tm.float32, [2, 3])
    assert tm.gradients(fn(x, 1), x) == [None]


def test_floordiv_gives_none(graph):
    x = tm.placeholder(tm.float32, [3])
    y = tm.placeholder(tm.float32, [3])
    assert tm.gradients(tm.floordiv(x, y) + x * 0.0, [x, y])[1] is None


def test_sign_gives_zeros_not_none(graph):
    x = tm.constant([-2.0, 0.0, 3.0])
    (gx,) = tm.gradients(tm.sign(x), x)
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx), [0.0, 0.0, 0.0])


def test_integer_path_is_not_differentiated(graph):
    x = tm.placeholder(tm.float32, [3])
    i = tm.cast(x, tm.int32)
    # Integer arithmetic, including ops whose float gradient would use Log or divisions.
    z = tm.reduce_max(tm.pow(i, 2) * i, 0) + tm.reduce_mean(i) + tm.reduce_prod(i)
    y = tm.cast(z, tm.float32) + tm.reduce_sum(x)
    (gx,) = tm.gradients(y, x)
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx, {x: [1.0, 2.0, 3.0]}), [1.0, 1.0, 1.0])
    assert tm.gradients(tm.cast(z, tm.float32), x) == [None]


@pytest.mark.parametrize("op", ["pow", "multiply", "maximum", "reduce_max", "reduce_mean",
                                "matmul"])
def test_integer_op_gradient_is_none(graph, op):
    a = tm.placeholder(tm.int32, [2, 2])
    fn = getattr(tm, op)
    y = fn(a, 0) if op.startswith("reduce") else fn(a, a)
    assert tm.gradients(y, a) == [None]


def test_cast_between_float_and_int_gives_none(graph):
    x = tm.placeholder(tm.float32, [3])
    n = tm.placeholder(tm.int32, [3])
    assert tm.gradients(tm.cast(n, tm.float32), n) == [None]
    assert tm.gradients(tm.cast(tm.cast(x, tm.int32), tm.float32), x) == [None]


def test_cast_gradient_keeps_source_dtype(graph):
    x = tm.placeholder(tm.float16, [3])
    (gx,) = tm.gradients(tm.cast(x, tm.float64), x)
    assert gx.dtype == tm.float16


# ----------------------------------------------------------------------------------------
# Broadcasting helpers and graph structure


@pytest.mark.parametrize("s0,s1,r0,r1", [
    ([2, 3, 5], [1], [], [0, 1, 2]),
    ([1, 2], [1, 2], [], []),
    ([], [], [], []),
    ([], [3], [0], []),
    ([2, 1, 3], [4, 1], [1], [0, 2]),
    ([1, 1], [1], [0, 1], [0, 1]),
    ([0], [1], [], [0]),
    ([3, 1], [1, 0], [1], [0]),
    ([1], [], [0], [0]),
    ([5, 1, 1], [1, 1, 1], [1, 2], [0, 1, 2]),
])
def test_broadcast_gradient_args_matches_tensorflow(graph, s0, s1, r0, r1):
    # Expected values recorded from TensorFlow 2.21's BroadcastGradientArgs.
    assert broadcast_gradient_args(s0, s1) == (r0, r1)
    for dtype in (np.int32, np.int64):
        out = build_op(current_scope(), "BroadcastGradientArgs",
                       [np.array(s0, dtype), np.array(s1, dtype)]).outputs
        with tm.Session() as sess:
            v0, v1 = sess.run(list(out))
        assert v0.tolist() == r0 and v1.tolist() == r1
        assert v0.dtype == dtype


def test_broadcast_gradient_args_errors(graph):
    out = build_op(current_scope(), "BroadcastGradientArgs",
                   [np.array([2, 3], np.int32), np.array([3, 2], np.int32)]).outputs
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Incompatible shapes: \[2,3\] vs. \[3,2\]"):
            sess.run(out[0])
    with pytest.raises(ValueError, match="rank 1"):
        build_op(current_scope(), "BroadcastGradientArgs",
                 [np.zeros((2, 2), np.int32), np.array([3], np.int32)])


@pytest.mark.parametrize("target_shape,static", [
    ((4, 3), True), ((3,), True), ((1, 3), True), ((4, 1), True), ((), True),
    (None, False), ((None, 3), False),
])
def test_unbroadcast(graph, target_shape, static):
    value_shape = {None: (4, 1), (None, 3): (1, 3)}.get(target_shape, target_shape)
    target = tm.placeholder(tm.float64, target_shape)
    grad = tm.constant(RNG.uniform(-1, 1, (4, 3)))
    out = unbroadcast(grad, target)
    types = {op.type for op in graph.get_operations()}
    assert ("BroadcastGradientArgs" in types) != static
    if target_shape is not None and None not in target_shape:
        assert out.shape.as_list() == list(target_shape)
    with tm.Session() as sess:
        g, v = sess.run([grad, out], {target: np.zeros(value_shape)})
    n_lead = len(np.shape(g)) - len(value_shape)
    expected = g.sum(axis=tuple(range(n_lead)))
    expected = expected.sum(axis=tuple(i for i, d in enumerate(value_shape) if d == 1),
                            keepdims=True).reshape(value_shape)
    np.testing.assert_allclose(v, expected)


def test_unbroadcast_returns_grad_itself_when_nothing_broadcast(graph):
    grad = tm.constant(np.ones((2, 3)))
    assert unbroadcast(grad, tm.placeholder(tm.float64, (2, 3))) is grad
    assert unbroadcast(None, grad) is None


def test_static_shapes_need_no_shape_ops(graph):
    x = tm.placeholder(tm.float32, [4, 3])
    b = tm.placeholder(tm.float32, [3])
    w = tm.placeholder(tm.float32, [2, 3, 4])
    y = tm.reduce_mean(tm.maximum(x * b, x - b) / b) + tm.reduce_max(w, [0]) @ x
    tm.gradients(y, [x, b, w])
    # Only the ops built by the gradient functions (inside gradients/<op>_grad/).
    types = {op.type for op in graph.get_operations()
             if op.name.startswith("gradients/") and "_grad/" in op.name}
    assert "Sum" in types
    assert not types & {"Shape", "BroadcastGradientArgs", "Size", "Rank"}, types


def test_gradient_ops_live_in_the_op_grad_scope(graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = tm.reduce_sum(tm.multiply(x, x, name="sq"), name="total")
    tm.gradients(y, x)
    names = [op.name for op in graph.get_operations() if op.name.startswith("gradients/")]
    assert any(n.startswith("gradients/sq_grad/") for n in names)
    assert any(n.startswith("gradients/total_grad/") for n in names)


def test_matmul_gradients_are_marked_as_gradients(graph):
    a = tm.placeholder(tm.float32, [2, 3])
    b = tm.placeholder(tm.float32, [3, 4])
    ga, gb = tm.gradients(tm.matmul(a, b), [a, b])
    assert ga.op.attrs["grad_a"] and not ga.op.attrs["grad_b"]
    assert gb.op.attrs["grad_b"] and ga.op.attrs["transpose_b"]


def test_every_math_op_has_a_gradient_or_a_mark():
    import tfmini.ops.math as math_family

    # Every op the math family's package registers.
    package = os.path.dirname(math_family.__file__)
    ops = [name for name, d in registry.registered_ops().items()
           if os.path.dirname(d.defined_at.filename) == package]
    assert len(ops) > 40
    missing = [op for op in ops
               if registry.get(op).grad_fn is None and not registry.get(op).no_gradient]
    assert not missing, missing


def test_cast_keeps_a_sparse_gradient_sparse(graph):
    x = tm.constant(np.arange(6.0).reshape(3, 2))
    y = tm.gather(tm.cast(x, tm.float32), [0, 2])
    (gx,) = tm.gradients(tm.reduce_sum(y), x)
    assert isinstance(gx, tm.IndexedSlices)
    assert gx.values.dtype == tm.float64
    with tm.Session() as sess:
        v = sess.run(gx)
    np.testing.assert_array_equal(v.indices, [0, 2])
    np.testing.assert_array_equal(v.values, np.ones((2, 2)))


@pytest.mark.parametrize("fn", [tm.tanh, tm.sigmoid, tm.sqrt, tm.rsqrt, tm.log, tm.exp,
                                lambda x: tm.pow(x, x), lambda x: tm.reduce_prod(x * x)],
                         ids=["tanh", "sigmoid", "sqrt", "rsqrt", "log", "exp", "pow", "prod"])
def test_second_order_gradients(fn):
    # The gradients are built from differentiable ops, so they differentiate again.
    g = tm.Graph()
    with g.as_default(), tm.Session(graph=g):
        x = tm.placeholder(tm.float64, [3])
        (gx,) = tm.gradients(tm.reduce_sum(fn(x)), x)
        err = tm.test.compute_gradient_error(x, (3,), gx, (3,), np.array([0.5, 1.0, 1.5]),
                                             delta=1e-6)
    assert err < 1e-7


def test_reduce_sum_gradient_of_a_fed_scalar():
    # The linear-regression tutorial: placeholders of unknown rank, fed scalars. The gradient
    # of Sum computes range(rank) % rank with rank 0, an empty FloorMod by zero, which
    # TensorFlow's kernel accepts (nothing is divided); it used to fail here.
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32)
        w = tm.Variable(2.0)
        cost = tm.reduce_sum(tm.pow(x * w - 1.0, 2))
        (dw,) = tm.gradients(cost, [w])
        with tm.Session() as sess:
            sess.run(w.initializer)
            np.testing.assert_allclose(sess.run(dw, {x: 3.0}), 2 * (3 * 2 - 1) * 3)
            empty = tm.floormod(np.zeros([0], np.int32), np.int32(0))
            assert sess.run(empty).shape == (0,)
            with pytest.raises(tm.errors.InvalidArgumentError, match="Integer division by zero"):
                sess.run(tm.floormod(np.int32([3]), np.int32(0)))
