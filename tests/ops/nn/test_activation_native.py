"""The compiled Relu and ReluGrad loops (tfmini/ops/nn/activation_native.py): TensorFlow
2.21's recorded results (tools/record_goldens_pool_act.py) with and without them, and the
NumPy path's bits on special values."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.nn.test_pooling_native import assert_same_bits
from tfmini.ops.nn import activation_native, nn_ops

G = load_golden("pool_act")
needs_native = pytest.mark.skipif(not activation_native.available(),
                                  reason="compiled loops off or not built")


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_and_grad_match_tensorflow(dtype, compiled, monkeypatch):
    """Relu(-0.0) is 0.0 and Relu(NaN) NaN; ReluGrad multiplies by the 0/1 mask (a NaN or
    inf gradient where the mask is 0 gives NaN, a negative one -0.0)."""
    if compiled:
        monkeypatch.setattr(activation_native, "MIN_ELEMENTS", 0)  # the loops take small ones
    else:
        monkeypatch.setattr(activation_native, "_fn", lambda *a: None)
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.Relu(features=G[f"relu/{dtype}/features"])
        dx = tm.raw_ops.ReluGrad(gradients=G[f"relu_grad/{dtype}/gradients"],
                                 features=G[f"relu_grad/{dtype}/features"])
    with tm.Session(graph=g) as sess:
        got_y, got_dx = sess.run([y, dx])
    assert_same_bits(got_y, G[f"relu/{dtype}/activations"])
    assert_same_bits(got_dx, G[f"relu_grad/{dtype}/backprops"])


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_loops_give_the_numpy_paths_bits(dtype, monkeypatch):
    rng = np.random.default_rng(4)
    special = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1e-310])
    f = rng.standard_normal((7, 129)).astype(dtype)  # an odd size: the loops' tails
    g = rng.standard_normal(f.shape).astype(dtype)
    f.flat[:9] = special
    g.flat[9:18] = special
    g.flat[:9] = special[::-1]
    bits = np.uint32 if dtype == np.float32 else np.uint64
    monkeypatch.setattr(activation_native, "MIN_ELEMENTS", 0)
    with np.errstate(invalid="ignore"):  # inf * 0 (a run computes it silently)
        fast = nn_ops._relu(f), nn_ops._relu_grad(g, f)
        monkeypatch.setattr(activation_native, "_fn", lambda *a: None)
        slow = nn_ops._relu(f), nn_ops._relu_grad(g, f)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a.view(bits), b.view(bits))  # NaN payloads too


@needs_native
def test_compiled_loops_decline_what_they_cannot_do(monkeypatch):
    x = np.ones((4, 4), np.float32)
    assert activation_native.relu(x) is None  # small: NumPy's call is as quick
    monkeypatch.setattr(activation_native, "MIN_ELEMENTS", 0)
    assert activation_native.relu(x) is not None
    assert activation_native.relu(x[:, ::2]) is None
    assert activation_native.relu(x.astype(np.int32)) is None
    assert activation_native.relu(x.astype(np.float16)) is None
    assert activation_native.relu_grad(x, x.astype(np.float64)) is None
    assert activation_native.relu_grad(x, x.T.copy()[:2]) is None


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c", [3, 32])
def test_fused_bias_add_relu_gives_the_two_kernels_bits(dtype, c, monkeypatch):
    """The fusion of a bias add and Relu (nn_ops._bias_add_relu, run for Relu(AddV2(x, b))
    at plan time): compiled and NumPy paths against ``np.add`` then Relu, bit for bit."""
    rng = np.random.default_rng(c)
    x = rng.standard_normal((5, 7, c)).astype(dtype)
    b = rng.standard_normal(c).astype(dtype)
    x.flat[:6] = [-0.0, np.nan, np.inf, -np.inf, 0.0, -1e-30]
    b[:3] = [0.0, -0.0, -np.inf]  # inf + -inf: NaN
    bits = np.uint32 if dtype == np.float32 else np.uint64
    monkeypatch.setattr(activation_native, "MIN_ELEMENTS", 0)
    with np.errstate(invalid="ignore"):
        want = np.maximum(np.add(x, b), dtype(0))
        fast = nn_ops._bias_add_relu(x, b)
        monkeypatch.setattr(activation_native, "_fn", lambda *a: None)
        slow = nn_ops._bias_add_relu(x, b)
    assert np.isnan(want).any()
    for got in (fast, slow):
        np.testing.assert_array_equal(got.view(bits), want.view(bits))
