"""The compiled SparseSoftmaxCrossEntropyWithLogits loop (tfmini/ops/nn/xent_native.py)
against the kernel's NumPy path."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.nn import nn_ops, xent_native

needs_native = pytest.mark.skipif(not xent_native.available(), reason="no C compiler here")
kernel = nn_ops.sparse_softmax_cross_entropy_with_logits_kernel


def _numpy_path(monkeypatch, features, labels):
    with monkeypatch.context() as m:
        m.setattr(xent_native, "sparse_xent", lambda f, lab: None)
        return kernel(features, labels)


def _ulps(dtype):
    return 8 * np.finfo(dtype).eps


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(32, 10), (1, 1), (7, 3), (5, 1000), (128, 2)])
def test_the_loop_gives_the_numpy_paths_numbers(monkeypatch, dtype, label_dtype, shape):
    rng = np.random.default_rng(sum(shape))
    features = (rng.standard_normal(shape) * 6).astype(dtype)
    labels = rng.integers(0, shape[1], shape[0]).astype(label_dtype)
    loss, backprop = kernel(features, labels)
    want_loss, want_backprop = _numpy_path(monkeypatch, features, labels)
    assert loss.dtype == backprop.dtype == dtype
    assert loss.shape == (shape[0],) and backprop.shape == shape
    np.testing.assert_allclose(loss, want_loss, rtol=_ulps(dtype), atol=_ulps(dtype))
    np.testing.assert_allclose(backprop, want_backprop, rtol=0, atol=_ulps(dtype))
    # The gradient's rows sum to zero (softmax sums to one, less the one at the label).
    np.testing.assert_allclose(backprop.sum(axis=1), 0, atol=_ulps(dtype) * shape[1])


@needs_native
def test_special_values_match_the_numpy_path(monkeypatch):
    inf, nan = np.inf, np.nan
    features = np.array([[1.0, 2.0, 3.0],
                         [nan, 1.0, 2.0],
                         [1.0, nan, 2.0],
                         [inf, 1.0, 2.0],
                         [-inf, 1.0, 2.0],
                         [-inf, -inf, -inf],
                         [1e30, -1e30, 0.0],
                         [-0.0, 0.0, 0.0]], np.float32)
    labels = np.array([2, 0, 1, 0, 0, 1, 1, 2], np.int64)
    with np.errstate(all="ignore"):
        got = kernel(features, labels)
        want = _numpy_path(monkeypatch, features, labels)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=_ulps(np.float32), atol=_ulps(np.float32))


@needs_native
@pytest.mark.parametrize("bad", [-1, 3, 2**40])
def test_a_label_out_of_range_raises_tensorflows_error(bad):
    features = np.zeros((4, 3), np.float32)
    labels = np.array([0, 1, 0, 2], np.int64)
    labels[2] = bad
    with pytest.raises(tm.errors.InvalidArgumentError, match=f"label value of {bad} "):
        kernel(features, labels)


@needs_native
def test_strided_and_half_inputs_take_the_numpy_path(monkeypatch):
    calls = []
    real = xent_native._fn

    def spy(dtype, label_dtype):
        fn = real(dtype, label_dtype)
        calls.append(dtype)
        return fn

    monkeypatch.setattr(xent_native, "_fn", spy)
    rng = np.random.default_rng(3)
    wide = rng.standard_normal((4, 6)).astype(np.float32)
    labels = np.array([0, 2, 1, 2], np.int64)
    strided = wide[:, ::2]  # not C-contiguous: NumPy's path, the same numbers
    np.testing.assert_allclose(kernel(strided, labels)[1],
                               kernel(np.ascontiguousarray(strided), labels)[1],
                               rtol=0, atol=_ulps(np.float32))
    loss, backprop = kernel(strided.astype(np.float16), labels)
    assert loss.dtype == backprop.dtype == np.float16
    assert calls.count(np.dtype(np.float16)) == 1  # asked, no loop for half


def test_the_op_in_a_graph_trains_the_same_either_way(monkeypatch):
    """A softmax classifier's loss and gradient through the graph, loop or no loop."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((16, 4)).astype(np.float32)
    ys = rng.integers(0, 3, 16)
    results = []
    for use_loop in (True, False):
        if not use_loop:
            monkeypatch.setattr(xent_native, "sparse_xent", lambda f, lab: None)
        g = tm.Graph()
        with g.as_default():
            x = tm.placeholder(tm.float32, [None, 4])
            y = tm.placeholder(tm.int64, [None])
            w = tm.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
            loss = tm.reduce_mean(tm.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=tm.matmul(x, w)))
            (grad,) = tm.gradients(loss, [w])
        with tm.Session(graph=g) as sess:
            sess.run(w.initializer)
            results.append(sess.run([loss, grad], {x: xs, y: ys}))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-7)
