"""tm.gradients itself (tfmini/gradients.py): names, aggregation, the three no-gradient states,
the checks on gradient functions, grad_ys, stop_gradients, IndexedSlices, gate_gradients.

The per-op maths lives with each op family's tests; here the ops are custom ones registered by
the test (and unregistered afterwards), so the algorithm is tested on its own. Only a few tests
need built-ins (variables, tm.stop_gradient, cond), and say so.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.scope import current_scope

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "gradients.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], np.float32)


def _same_shape(ic):
    return [ic.input_shape(0)]


def _op(op_type: str, *inputs, name=None, attrs=None):
    return build_op(current_scope(), op_type, list(inputs), attrs or {}, name=name)


def _mul(a, b):
    return _op("Mul", a, b).outputs[0]


@pytest.fixture
def ops():
    """Custom ops with known gradients, and some without; unregistered afterwards."""
    before = set(registry.registered_ops())

    @tm.register_op("GtSquare", inputs=["x: T"], outputs=["y: T"],
                    attrs=["T: {float, double}"], shape_fn=_same_shape)
    def _square(x):
        return x * x

    @tm.RegisterGradient("GtSquare")
    def _square_grad(op, dy):
        return _mul(dy, _mul(op.inputs[0], np.asarray(2, op.inputs[0].dtype.np_dtype)))

    @tm.register_op("GtHalfGrad", inputs=["x: double"], outputs=["y: double"],
                    shape_fn=_same_shape)
    def _half(x):
        return x * x

    @tm.RegisterGradient("GtHalfGrad")
    def _half_grad(op, dy):
        return _mul(dy, op.inputs[0])

    @tm.register_op("GtMul", inputs=["x: float", "y: float"], outputs=["z: float"],
                    shape_fn=_same_shape)
    def _times(x, y):
        return x * y

    @tm.RegisterGradient("GtMul")
    def _times_grad(op, dz):
        return [_mul(dz, op.inputs[1]), _mul(dz, op.inputs[0])]

    # Integer-valued ops without any gradient registration: integer paths need none.
    @tm.register_op("GtPositive", inputs=["x: float"], outputs=["y: int32"],
                    shape_fn=_same_shape)
    def _positive(x):
        return (x > 0).astype(np.int32)

    @tm.register_op("GtToFloat", inputs=["x: int32"], outputs=["y: float"],
                    shape_fn=_same_shape)
    def _to_float(x):
        return x.astype(np.float32)

    @tm.register_op("GtMarked", inputs=["x: float"], outputs=["y: float"], shape_fn=_same_shape)
    def _marked(x):
        return x + 1

    tm.no_gradient("GtMarked")

    @tm.register_op("GtMissing", inputs=["a: float", "b: float"], outputs=["y: float"],
                    shape_fn=_same_shape)
    def _missing(a, b):
        return a + b

    @tm.register_op("GtTooMany", inputs=["x: float"], outputs=["y: float"], shape_fn=_same_shape)
    def _too_many(x):
        return x

    @tm.RegisterGradient("GtTooMany")
    def _too_many_grad(op, dy):
        return [dy, dy]

    @tm.register_op("GtTransposedGrad", inputs=["x: float"], outputs=["y: float"],
                    shape_fn=_same_shape)
    def _transposed(x):
        return x

    @tm.RegisterGradient("GtTransposedGrad")
    def _transposed_grad(op, dy):
        return _op("Transpose", dy, [1, 0]).outputs[0]

    @tm.register_op("GtGather", inputs=["params: float", "indices: Tindices"],
                    outputs=["y: float"], attrs=["Tindices: {int32, int64}"],
                    shape_fn=lambda ic: [tm.TensorShape(
                        ic.input_shape(1).dims + ic.input_shape(0).dims[1:])])
    def _gather(params, indices):
        return params[indices]

    @tm.RegisterGradient("GtGather")
    def _gather_grad(op, dy):
        params_shape = _op("Shape", op.inputs[0]).outputs[0]
        return [tm.IndexedSlices(dy, op.inputs[1], params_shape), None]

    @tm.register_op("GtReadHandle", inputs=["h: resource"], outputs=["y: float"],
                    shape_fn=lambda ic: [tm.TensorShape([3])])
    def _read_handle(h):
        raise NotImplementedError("built, never run")

    @tm.RegisterGradient("GtReadHandle")
    def _read_handle_grad(op, dy):
        return dy  # shape [3] for a scalar handle input, as a variable read's gradient

    yield
    for name in set(registry.registered_ops()) - before:
        registry.unregister(name)


def _square(x, name=None):
    return _op("GtSquare", x, name=name).outputs[0]


def _times(x, y):
    return _op("GtMul", x, y).outputs[0]


def _run(fetches, feed_dict=None, graph=None, init=False):
    with tm.Session(graph=graph or tm.get_default_graph()) as sess:
        if init:
            sess.run(tm.global_variables_initializer())
        return sess.run(fetches, feed_dict)


@pytest.fixture
def graph():
    g = tm.Graph()
    with g.as_default():
        yield g


# ----------------------------------------------------------------------------------------
# Names


def test_gradient_ops_live_under_gradients_and_name_the_forward_op(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    with tm.name_scope("layer"):
        y = _square(x)
    assert y.op.name == "layer/GtSquare"
    (dx,) = tm.gradients(y, [x])
    assert dx.name.startswith("gradients/layer/GtSquare_grad/")
    new = [op.name for op in graph.get_operations() if op.name.startswith("gradients")]
    # The default grad_ys as TensorFlow names them, then the op's gradient in its own scope.
    assert new[:3] == ["gradients/Shape", "gradients/grad_ys_0/Const", "gradients/grad_ys_0"]
    assert all(n.startswith("gradients/layer/GtSquare_grad/") for n in new[3:]), new
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X)


def test_a_second_call_and_name_give_new_scopes(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = _square(x)
    (d1,) = tm.gradients(y, [x])
    (d2,) = tm.gradients(y, [x])
    (d3,) = tm.gradients(y, [x], name="my_grads")
    assert d1.name.startswith("gradients/GtSquare_grad/")
    assert d2.name.startswith("gradients_1/GtSquare_grad/")
    assert d3.name.startswith("my_grads/GtSquare_grad/")


# ----------------------------------------------------------------------------------------
# Several ys, unconnected xs, intermediate xs


def test_several_ys_are_summed_with_addn(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    c = tm.constant(np.full((2, 3), 3.0, np.float32))
    (dx,) = tm.gradients([_square(x), _times(x, c)], [x])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X + 3.0)
    assert [op.name for op in graph.get_operations() if op.type == "AddN"] == ["gradients/AddN"]


def test_aggregation_methods_agree(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    ys = [_square(x), _times(x, x), _square(x)]
    values = [_run(tm.gradients(ys, [x], aggregation_method=m)[0], {x: X})
              for m in (tm.AggregationMethod.ADD_N, tm.AggregationMethod.EXPERIMENTAL_TREE,
                        tm.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N, None)]
    for v in values:
        np.testing.assert_allclose(v, 6 * X)


def test_a_y_reaching_another_y_counts_once_per_path(ops, graph):
    # ys = [h, h*x] with h = x^2: d/dx (x^2 + x^3) = 2x + 3x^2.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    h = _square(x)
    (dx,) = tm.gradients([h, _times(h, x)], [x])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X + 3 * X**2, rtol=1e-6)


def test_unconnected_x_gives_none_or_zeros(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    other = tm.placeholder(tm.float64, [4], name="other")
    y = _square(x)
    assert tm.gradients(y, [x, other])[1] is None
    assert tm.gradients(y, other) == [None]
    dx, dother = tm.gradients(y, [x, other], unconnected_gradients="zero")
    # As TensorFlow's zeros_like: zeros of the static shape, so `other` need not be fed.
    value = _run(dother, {x: X})
    assert value.dtype == np.float64
    np.testing.assert_array_equal(value, np.zeros(4))
    assert tm.gradients(y, [other], unconnected_gradients=tm.UnconnectedGradients.ZERO)[0] \
        is not None
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tm.gradients(y, [x], unconnected_gradients="zeros")


def test_gradient_with_respect_to_an_intermediate_tensor(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    h = _square(x)
    y = _times(h, x)
    dh, dx = tm.gradients(y, [h, x])
    got_dh, got_dx = _run([dh, dx], {x: X})
    np.testing.assert_allclose(got_dh, X)
    np.testing.assert_allclose(got_dx, 3 * X**2, rtol=1e-6)  # x^3 through both paths


def test_gradient_of_y_with_respect_to_itself_is_ones(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = _square(x)
    (dy,) = tm.gradients(y, [y])
    np.testing.assert_array_equal(_run(dy, {x: X}), np.ones((2, 3), np.float32))


# ----------------------------------------------------------------------------------------
# Integer paths


def test_integer_paths_are_dropped_without_gradient_functions(ops, graph):
    # y = x * float(x > 0): the mask path is integer, and its ops have no gradient at all.
    # As TensorFlow, ops reached from x only through an integer output are not differentiated.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    mask = _op("GtToFloat", _op("GtPositive", x).outputs[0]).outputs[0]
    (dx,) = tm.gradients(_times(x, mask), [x])
    np.testing.assert_array_equal(_run(dx, {x: X}), (X > 0).astype(np.float32))


def test_gradient_towards_an_integer_x_is_none(ops, graph):
    # As TensorFlow: no gradient flows out of an integer x, so nothing is differentiated and
    # GtToFloat (no gradient function) is never asked for one.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    positive = _op("GtPositive", x).outputs[0]
    y = _op("GtToFloat", positive).outputs[0]
    assert tm.gradients(y, [positive]) == [None]
    assert tm.gradients(y, [x]) == [None]


@pytest.mark.parametrize("dtype", [tm.float32, tm.float64])
def test_builtin_integer_path_x_times_cast_argmax(dtype):
    # The example, with built-ins (needs Mul's and Cast's gradients, math_grad.py).
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(dtype, [2, 3], name="x")
        index = tm.cast(tm.argmax(x, axis=1), dtype)
        y = x * tm.expand_dims(index, 1)
        (dx,) = tm.gradients(y, [x])
        value = _run(dx, {x: X}, graph=g)
    want = np.broadcast_to(np.argmax(X, axis=1)[:, None], X.shape)
    np.testing.assert_array_equal(value, want)


# ----------------------------------------------------------------------------------------
# The three states


def test_no_gradient_mark_stops_silently(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    marked = _op("GtMarked", x).outputs[0]
    assert tm.gradients(marked, [x]) == [None]
    # The mark stops only that path: the other one still flows.
    (dx,) = tm.gradients([_square(x), marked], [x])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X)


def test_missing_gradient_raises_lookup_error_saying_what_and_where(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    c = tm.constant(np.ones((2, 3), np.float32), name="c")
    line = _line_of("tag: missing gradient")
    # build_op directly: the op is "defined at" the line that calls the builder.
    adder = build_op(current_scope(), "GtMissing", [c, x], name="adder")  # tag: missing gradient
    with pytest.raises(LookupError) as info:
        tm.gradients(adder.outputs[0], [x])
    msg = str(info.value)
    assert "'adder'" in msg and "GtMissing" in msg
    assert "input 1" in msg  # x reaches the op through b, its input 1
    assert f"defined at test_gradients.py:{line}" in msg
    assert "tm.no_gradient" in msg and "tm.stop_gradient" in msg


def test_missing_gradient_off_the_path_is_not_an_error(ops, graph):
    # The op without gradient depends on x but does not lead to y: never asked.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    _op("GtMissing", x, x)
    (dx,) = tm.gradients(_square(x), [x])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X)


def test_missing_gradient_behind_stop_gradients_is_not_an_error(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    missing = _op("GtMissing", x, x).outputs[0]
    (dx,) = tm.gradients(_times(missing, x), [x], stop_gradients=[missing])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X)


def test_disconnected_gives_none_even_through_missing_gradients(ops, graph):
    # y depends on an op without gradient, but not on x: nothing is differentiated.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    c = tm.placeholder(tm.float32, [2, 3], name="c")
    y = _op("GtMissing", c, c).outputs[0]
    assert tm.gradients(y, [x]) == [None]


# ----------------------------------------------------------------------------------------
# What gradient functions return


def test_wrong_number_of_gradients_is_a_value_error_naming_the_op(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = _op("GtTooMany", x, name="too_many").outputs[0]
    with pytest.raises(ValueError, match=r"Num gradients 2 generated for op 'too_many' "
                                         r"\(GtTooMany\) do not match num inputs 1"):
        tm.gradients(y, [x])


def test_wrong_gradient_shape_is_a_value_error_naming_the_op(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = _op("GtTransposedGrad", x, name="flip").outputs[0]
    with pytest.raises(ValueError) as info:
        tm.gradients(y, [x])
    msg = str(info.value)
    assert "flip (GtTransposedGrad)" in msg and "Input index: 0" in msg
    assert "(2, 3)" in msg and "(3, 2)" in msg


def test_gradient_of_a_resource_input_may_have_the_value_shape(ops, graph):
    # A handle is a scalar; its gradient has the variable's shape (as TensorFlow exempts it).
    h = tm.placeholder(tm.resource, [], name="h")
    y = _op("GtReadHandle", h).outputs[0]
    (dh,) = tm.gradients(y, [h])
    assert dh.shape.as_list() == [3]


# ----------------------------------------------------------------------------------------
# grad_ys


def test_grad_ys_weights_each_y(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    w1 = np.arange(6, dtype=np.float32).reshape(2, 3)
    w2 = tm.placeholder(tm.float32, [2, 3], name="w2")
    (dx,) = tm.gradients([_square(x), _times(x, x)], [x], grad_ys=[w1, w2])
    np.testing.assert_allclose(_run(dx, {x: X, w2: -w1}), 2 * X * w1 - 2 * X * w1)
    (dx,) = tm.gradients([_square(x), _times(x, x)], [x], grad_ys=[None, w1])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X + 2 * X * w1)


def test_grad_ys_must_match_ys(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    y = _square(x)
    with pytest.raises(ValueError, match="Passed 2 grad_ys for 1 ys"):
        tm.gradients(y, [x], grad_ys=[X, X])
    with pytest.raises(ValueError, match="Gradient type float64 generated for tensor GtSquare:0 "
                                         "with type float32 must be the same"):
        tm.gradients(y, [x], grad_ys=tm.constant(X.astype(np.float64)))
    with pytest.raises(ValueError, match=r"grad_ys\[0\] has shape \(3, 2\), incompatible with "
                                         r"the shape \(2, 3\) of ys\[0\] \(GtSquare:0\)"):
        tm.gradients(y, [x], grad_ys=[X.T])
    # A partly known shape that fits is accepted.
    dy = tm.placeholder(tm.float32, [None, 3])
    (dx,) = tm.gradients(y, [x], grad_ys=[dy])
    np.testing.assert_allclose(_run(dx, {x: X, dy: X}), 2 * X * X)


# ----------------------------------------------------------------------------------------
# stop_gradients


def test_stop_gradients_hold_tensors_constant(ops, graph):
    # y = h * x with h = x^2: 3x^2 normally; h held constant gives h = x^2.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    h = _square(x)
    y = _times(h, x)
    (full,) = tm.gradients(y, [x])
    (held,) = tm.gradients(y, [x], stop_gradients=[h])
    (both,) = tm.gradients(y, [x], stop_gradients=h)
    got_full, got_held, got_both = _run([full, held, both], {x: X})
    np.testing.assert_allclose(got_full, 3 * X**2, rtol=1e-6)
    np.testing.assert_allclose(got_held, X**2)
    np.testing.assert_allclose(got_both, X**2)


def test_stop_gradients_on_x_itself_still_differentiates_x(ops, graph):
    # As TensorFlow: a stop tensor stops what is behind it, its own gradient is still computed.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    h = _square(x)
    dh, dx = tm.gradients(_times(h, h), [h, x], stop_gradients=[h])
    np.testing.assert_allclose(_run(dh, {x: X}), 2 * X**2)
    assert dx is None


def test_tm_stop_gradient(ops, graph):
    # Needs StopGradient's no-gradient mark (array_grad.py).
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    h = tm.stop_gradient(_square(x))
    (dx,) = tm.gradients(_times(h, x), [x])
    np.testing.assert_allclose(_run(dx, {x: X}), X**2)
    assert tm.gradients(h, [x]) == [None]


# ----------------------------------------------------------------------------------------
# IndexedSlices


def test_two_gathers_of_one_tensor_aggregate_as_indexed_slices(ops, graph):
    params = tm.placeholder(tm.float32, [4, 3], name="params")
    a = _op("GtGather", params, np.array([0, 2], np.int32)).outputs[0]
    b = _op("GtGather", params, np.array([2, 3, 2], np.int32)).outputs[0]
    (dp,) = tm.gradients([a, b], [params])
    assert isinstance(dp, tm.IndexedSlices)
    assert dp.shape.as_list() == [4, 3]
    p = np.arange(12, dtype=np.float32).reshape(4, 3)
    value = _run(dp, {params: p})
    assert isinstance(value, tm.IndexedSlicesValue)
    np.testing.assert_array_equal(value.indices, [0, 2, 2, 3, 2])
    np.testing.assert_array_equal(value.values, np.ones((5, 3)))
    np.testing.assert_array_equal(value.dense_shape, [4, 3])
    dense = _run(tm.convert_to_tensor(dp), {params: p})
    np.testing.assert_array_equal(dense, [[1, 1, 1], [0, 0, 0], [3, 3, 3], [1, 1, 1]])


def test_indexed_slices_with_int32_and_int64_indices_aggregate_as_int64(ops, graph):
    params = tm.placeholder(tm.float32, [4, 3], name="params")
    a = _op("GtGather", params, np.array([1], np.int32)).outputs[0]
    b = _op("GtGather", params, np.array([1, 3], np.int64)).outputs[0]
    (dp,) = tm.gradients([a, b], [params])
    assert dp.indices.dtype == tm.int64
    value = _run(tm.convert_to_tensor(dp), {params: np.zeros((4, 3), np.float32)})
    np.testing.assert_array_equal(value[:, 0], [0, 2, 0, 1])


def test_indexed_slices_and_dense_gradients_aggregate_dense(ops, graph):
    params = tm.placeholder(tm.float32, [4, 3], name="params")
    a = _op("GtGather", params, np.array([1, 1], np.int32)).outputs[0]
    (dp,) = tm.gradients([a, _square(params)], [params])
    assert isinstance(dp, tm.Tensor) and dp.op.type == "AddN"
    p = np.ones((4, 3), np.float32)
    np.testing.assert_array_equal(_run(dp, {params: p})[:, 0], [2, 4, 2, 2])


def test_a_single_gather_gradient_stays_sparse(ops, graph):
    params = tm.placeholder(tm.float32, [4, 3], name="params")
    a = _op("GtGather", params, np.array([3, 0], np.int32)).outputs[0]
    dy = np.arange(6, dtype=np.float32).reshape(2, 3)
    (dp,) = tm.gradients(a, [params], grad_ys=[dy])
    value = _run(dp, {params: np.zeros((4, 3), np.float32)})
    np.testing.assert_array_equal(value.indices, [3, 0])
    np.testing.assert_array_equal(value.values, dy)


# ----------------------------------------------------------------------------------------
# gate_gradients


def test_gate_gradients_passes_each_ops_gradients_through_one_tuple(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    z = tm.placeholder(tm.float32, [2, 3], name="z")
    y = _times(x, z)
    dx, dz = tm.gradients(y, [x, z], gate_gradients=True)
    # Each gated gradient waits for the other's op: an Identity with a control input.
    for d in (dx, dz):
        assert d.op.type == "Identity" and d.op.name.startswith("gradients/GtMul_grad/tuple/")
        assert d.op.control_inputs
    got_dx, got_dz = _run([dx, dz], {x: X, z: 2 * X})
    np.testing.assert_allclose(got_dx, 2 * X)
    np.testing.assert_allclose(got_dz, X)
    ungated = tm.gradients(y, [x, z])
    assert all(d.op.type == "Mul" for d in ungated)


# ----------------------------------------------------------------------------------------
# Variables, sub-graphs (built-ins)


def test_gradient_with_respect_to_a_variable(ops, graph):
    # Through its handle: needs ReadVariableOp's gradient (array_grad.py).
    v = tm.Variable(X, name="v")
    y = _square(v.read_value() if hasattr(v, "read_value") else tm.identity(v))
    (dv,) = tm.gradients(y, [v])
    np.testing.assert_allclose(_run(dv, init=True), 2 * X)
    (via_handle,) = tm.gradients(y, [v.handle])
    np.testing.assert_allclose(_run(via_handle, init=True), 2 * X)


def test_unconnected_variable_gets_zeros_of_its_dtype_and_shape(ops, graph):
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    v = tm.Variable(np.ones(4), name="v")
    (dv,) = tm.gradients(_square(x), [v], unconnected_gradients="zero")
    assert dv.dtype == tm.float64 and dv.shape.as_list() == [4]
    np.testing.assert_array_equal(_run(dv, init=True), np.zeros(4))


def test_gradients_inside_a_cond_branch(ops, graph):
    # tm.gradients works in whatever graph is current, here a cond branch's FuncGraph.
    x = tm.placeholder(tm.float32, [2, 3], name="x")
    flag = tm.placeholder(tm.bool, [], name="flag")

    def branch():
        inner = tm.identity(x)
        (d,) = tm.gradients(_square(inner), [inner])
        return d

    out = tm.cond(flag, branch, lambda: tm.identity(x))
    np.testing.assert_allclose(_run(out, {x: X, flag: True}), 2 * X)
    np.testing.assert_allclose(_run(out, {x: X, flag: False}), X)


# ----------------------------------------------------------------------------------------
# tm.test


def test_compute_gradient_of_a_custom_op(ops, graph):
    x = tm.placeholder(tm.float64, [2, 3], name="x")
    y = _square(x)
    with tm.Session():
        jac_t, jac_n = tm.test.compute_gradient(x, [2, 3], y, [2, 3], x_init_value=X)
        error = tm.test.compute_gradient_error(x, [2, 3], y, [2, 3])
    np.testing.assert_allclose(jac_t, np.diag(2 * X.reshape(-1)))
    np.testing.assert_allclose(jac_n, jac_t, atol=1e-8)
    assert error < 1e-8


def test_compute_gradient_error_sees_a_wrong_gradient(ops, graph):
    # GtHalfGrad is x^2 with the factor 2 forgotten in its gradient: off by x everywhere.
    x = tm.placeholder(tm.float64, [2, 3], name="x")
    y = _op("GtHalfGrad", x).outputs[0]
    with tm.Session():
        error = tm.test.compute_gradient_error(x, [2, 3], y, [2, 3], x_init_value=X)
    np.testing.assert_allclose(error, np.abs(X).max(), rtol=1e-6)


def _line_of(tag: str) -> int:
    text = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(text, 1) if line.rstrip().endswith(f"# {tag}"))


# ----------------------------------------------------------------------------------------
# docs/gradients.md


def test_documented_examples_run():
    before = set(registry.registered_ops())
    text = DOC.read_text(encoding="utf-8")
    blocks = [(text.count("\n", 0, m.start(1)), m.group(1)) for m in _BLOCK.finditer(text)]
    assert len(blocks) >= 3
    namespace: dict = {"__name__": "gradients_doc"}
    try:
        for offset, code in blocks:
            # Padding keeps tracebacks on the doc's own lines.
            exec(compile("\n" * offset + code, str(DOC), "exec"), namespace)
    finally:
        for name in set(registry.registered_ops()) - before:
            registry.unregister(name)
