"""Adversarial cases of ``tm.gradients``; expected values checked with TF 2.21's
``tf.compat.v1.gradients`` where TensorFlow defines them."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.core.registry import register_op, unregister

X = np.array([1.0, 2.0, 3.0], np.float32)


@pytest.fixture
def x(graph):
    return tm.placeholder(tm.float32, shape=(3,), name="x")


def _run(graph, tensors, feed):
    with tm.Session(graph=graph) as sess:
        return sess.run(tensors, feed)


def test_repeated_xs_each_get_the_full_gradient(graph, x):
    y = x * x
    g1, g2 = tm.gradients(y, [x, x])
    a, b = _run(graph, [g1, g2], {x: X})
    assert a.tolist() == b.tolist() == [2.0, 4.0, 6.0]  # TF: both 2x, not split


def test_x_that_is_a_y(graph, x):
    y = x * x
    (gx,) = tm.gradients(x, x)
    (both,) = tm.gradients([x, y], [x])
    gy, gyy = tm.gradients([y], [x, y])
    got = _run(graph, [gx, both, gy, gyy], {x: X})
    assert [v.tolist() for v in got] == [[1.0] * 3, [3.0, 5.0, 7.0], [2.0, 4.0, 6.0], [1.0] * 3]


def test_integer_ys_give_no_gradient(graph, x):
    xi = tm.placeholder(tm.int32, shape=(3,), name="xi")
    assert tm.gradients(xi * 2, xi) == [None]
    assert tm.gradients(tm.cast(x, tm.int32), x) == [None]
    # An integer y that is its own x gets its grad_ys (ones), as in TF.
    (g,) = tm.gradients(xi, xi)
    assert g.dtype == tm.int32
    assert _run(graph, g, {xi: [5, 6, 7]}).tolist() == [1, 1, 1]


def test_grad_ys_as_indexed_slices(graph):
    params = tm.Variable(np.ones((4, 2), np.float32))
    rows = tm.gather(params, [0, 2])
    upstream = tm.IndexedSlices(tm.ones((2, 2)), tm.constant([0, 1]), tm.constant([2, 2]))
    (g,) = tm.gradients(rows, params, grad_ys=upstream)
    (same,) = tm.gradients(rows, rows, grad_ys=upstream)
    with tm.Session(graph=graph) as sess:
        sess.run(params.initializer)
        gv, sv = sess.run([g, same])
    assert gv.indices.tolist() == [0, 2] and gv.dense_shape.tolist() == [4, 2]
    assert gv.values.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert sv.indices.tolist() == [0, 1]


@pytest.fixture
def constant_grad_op():
    result = {}

    @register_op("AdvConstGrad", inputs=["x: float"], outputs=["y: float"])
    def kernel(x):
        return x * x

    @tm.RegisterGradient("AdvConstGrad")
    def _grad(op, grad):
        return result["value"]

    yield result
    unregister("AdvConstGrad")


def test_gradient_function_returning_a_python_scalar_for_a_scalar_input(graph, constant_grad_op):
    constant_grad_op["value"] = 3.0
    s = tm.placeholder(tm.float32, shape=(), name="s")
    (g,) = tm.gradients(tm.raw_ops.AdvConstGrad(x=s), s)
    assert g.dtype == tm.float32
    assert g.name.startswith("gradients/AdvConstGrad_grad/")  # built in the op's grad scope
    assert _run(graph, g, {s: 2.0}) == 3.0


def test_gradient_function_returning_a_wrongly_shaped_python_value_names_the_op(
    graph, x, constant_grad_op
):
    # The value was converted only after the shape check, so set_shape failed with a bare
    # "Shapes () and (3,) are not compatible" naming nothing. (TF itself fails here with
    # AttributeError: 'float' object has no attribute 'name'.)
    constant_grad_op["value"] = 3.0
    y = tm.raw_ops.AdvConstGrad(x=x, name="sq")
    with pytest.raises(ValueError, match="Incompatible shapes.*Forward operation: sq"):
        tm.gradients(y, x)


def test_gradient_function_returning_a_numpy_array(graph, x, constant_grad_op):
    constant_grad_op["value"] = np.array([1.0, 2.0, 3.0])  # float64: takes the input's dtype
    y = tm.raw_ops.AdvConstGrad(x=x)
    (g,) = tm.gradients(y + y, x, gate_gradients=True)
    assert g.dtype == tm.float32
    assert _run(graph, g, {x: X}).tolist() == [1.0, 2.0, 3.0]
