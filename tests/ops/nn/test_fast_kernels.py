"""Kernels rewritten for speed (issue 17) in the nn family, against TensorFlow 2.21's
recorded results (tools/record_goldens_perf.py): masked-multiply ReluGrad/Relu6Grad with
non-finite gradients; tiled MaxPool/MaxPoolGrad against the general path."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden

G = load_golden("perf")


def _run(op):
    with tm.Session(graph=tm.get_default_graph()) as sess:
        return sess.run(op)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("case,op", [("relu_grad", "ReluGrad"), ("relu6_grad", "Relu6Grad")])
def test_activation_grads_match_tensorflow_with_nonfinite_gradients(graph, case, op, dtype):
    key = f"{case}/{dtype}"
    got = _run(getattr(tm.raw_ops, op)(gradients=G[f"{key}/gradients"],
                                         features=G[f"{key}/features"]))
    want = G[f"{key}/backprops"]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # NaN where TensorFlow has NaN, bit for bit


@pytest.mark.parametrize("chunk_bytes", [1, 1 << 19])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_tiled_max_pool_grad_matches_the_general_path_on_ties(dtype, chunk_bytes,
                                                              monkeypatch):
    """Windows that tile the input take the strided-slab path (in chunks of one image, or
    the whole batch at once); ties go to the first maximal cell in row-major scan either
    way (as TensorFlow's CPU kernel picks it)."""
    from tfmini.ops.nn import pooling_kernels as pk

    monkeypatch.setattr(pk, "_GRAD_CHUNK_BYTES", chunk_bytes)

    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, size=(2, 6, 8, 3)).astype(dtype)  # many tied maxima
    dy = rng.integers(1, 9, size=(2, 3, 4, 3)).astype(dtype)
    geo = ([2, 2], [2, 2], [(0, 0), (0, 0)], [3, 4])
    fast = pk.tiled_max_grad(x, dy, *geo)
    _, arg = pk.max_argmax(x, geo[0], geo[1], geo[2], geo[3])
    slow = pk.max_pool_grad(x.shape, arg, dy, geo[0], geo[1], geo[2])
    assert fast is not None
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(pk.tiled_max(x, *geo), pk.max_argmax(x, *geo)[0])


def test_tiled_max_pool_leaves_nan_and_overlap_to_the_general_path(monkeypatch):
    """The NumPy tiled path (the compiled loops off: they take non-finite gradients
    themselves, tests/ops/nn/test_pooling_native.py)."""
    from tfmini.ops.nn import pooling_kernels as pk
    from tfmini.ops.nn import pooling_native

    monkeypatch.setattr(pooling_native, "max_pool", lambda *a: None)
    monkeypatch.setattr(pooling_native, "max_pool_grad", lambda *a: None)

    x = np.zeros((1, 4, 4, 1), np.float32)
    x[0, 1, 1, 0] = np.nan
    geo = ([2, 2], [2, 2], [(0, 0), (0, 0)], [2, 2])
    assert pk.tiled_max(x, *geo) is None
    assert pk.tiled_max(np.zeros((1, 4, 4, 1), np.float32), [3, 3], [1, 1],
                        [(0, 0), (0, 0)], [2, 2]) is None
    dy = np.full((1, 2, 2, 1), np.inf, np.float32)
    assert pk.tiled_max_grad(np.zeros((1, 4, 4, 1), np.float32), dy, *geo) is None
    # NaN in a later chunk than the first still sends the whole batch to the general path.
    xs = np.zeros((3, 4, 4, 1), np.float32)
    xs[2, 0, 0, 0] = np.nan
    monkeypatch.setattr(pk, "_GRAD_CHUNK_BYTES", 1)
    assert pk.tiled_max_grad(xs, np.ones((3, 2, 2, 1), np.float32), *geo) is None


@pytest.mark.parametrize("nd,strides,dilations", [(2, [1, 1], [1, 1]), (2, [2, 1], [1, 2]),
                                                  (3, [1, 2, 1], [1, 1, 1])])
def test_one_channel_convolution_paths_match_the_general_path(nd, strides, dilations):
    """One input channel builds the transposed patch matrix (and its input gradient takes
    every tap in one product); a second, all-zero input channel with its own filter slice
    takes the general path and must give the same output and gradients."""
    from tfmini.ops.nn import conv_kernels as ck
    from tfmini.ops.nn.window_geometry import output_geometry

    rng = np.random.default_rng(3)
    spatial, ksizes = [7, 6, 5][:nd], [3, 2, 2][:nd]
    x = rng.normal(size=(3, *spatial, 1))
    w = rng.normal(size=(*ksizes, 1, 4))
    outs, pads = output_geometry(spatial, ksizes, strides, dilations, "SAME", [(0, 0)] * nd)
    x2 = np.concatenate([x, np.zeros_like(x)], axis=-1)
    w2 = np.concatenate([w, rng.normal(size=w.shape)], axis=-2)
    dy = rng.normal(size=(3, *outs, 4))
    geo = (strides, dilations, pads, outs)
    np.testing.assert_allclose(ck.conv_forward(x, w, *geo), ck.conv_forward(x2, w2, *geo),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ck.conv_backprop_filter(x, w.shape, dy, *geo),
                               ck.conv_backprop_filter(x2, w2.shape, dy, *geo)[..., :1, :],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ck.conv_backprop_input(x.shape, w, dy, *geo),
                               ck.conv_backprop_input(x2.shape, w2, dy, *geo)[..., :1],
                               rtol=1e-12, atol=1e-12)
