"""The compiled max-pooling loops (tfmini/ops/nn/pooling_native.py): TensorFlow 2.21's
recorded results (tools/record_goldens_pool_act.py) with and without them, and the same
bits as the NumPy paths on tie-heavy inputs."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.ops.nn import pooling_kernels as pk
from tfmini.ops.nn import pooling_native

G = load_golden("pool_act")
CASES = sorted(k[:-len("/input")] for k in G
               if k.startswith("max_pool/") and k.endswith("/input") and "/grad/" not in k)
needs_native = pytest.mark.skipif(not pooling_native.available(), reason="no C compiler here")


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values, the sign of zeros included; NaN where ``want`` has NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


def _numpy_only(monkeypatch) -> None:
    monkeypatch.setattr(pooling_native, "_fn", lambda *a: None)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_max_pool_and_grad_match_tensorflow(case, compiled, monkeypatch):
    """Ties (``-0.0`` against ``0.0`` too) go to the first maximal cell; a gradient lands
    as ``dy + 0`` there and ``+0.0`` elsewhere; windows with NaN skip it (general path)."""
    if not compiled:
        _numpy_only(monkeypatch)
    kh, kw = (int(v) for v in case.split("/")[3].split("x"))
    attrs = {"ksize": [1, kh, kw, 1], "strides": [1, kh, kw, 1], "padding": "VALID"}
    g = tm.Graph()
    with g.as_default():
        x = tm.constant(G[f"{case}/input"])
        y = tm.raw_ops.MaxPool(input=x, **attrs)
        dx = tm.raw_ops.MaxPoolGrad(orig_input=x, orig_output=G[f"{case}/grad/orig_output"],
                                    grad=G[f"{case}/grad/grad"], **attrs)
    with tm.Session(graph=g) as sess:
        got_y, got_dx = sess.run([y, dx])
    assert_same_bits(got_y, G[f"{case}/output"])
    assert_same_bits(got_dx, G[f"{case}/grad/output"])


def _tie_heavy(shape, dtype, rng):
    x = rng.choice(np.array([-1.0, -0.0, 0.0, 1.0, np.inf, -np.inf]), size=shape)
    return x.astype(dtype)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c", [1, 5, 8, 16, 32, 48])
@pytest.mark.parametrize("ksizes", [(2, 2), (3, 2), (1, 3), (1, 1)])
def test_compiled_loops_give_the_numpy_paths_bits(dtype, c, ksizes, monkeypatch):
    rng = np.random.default_rng(c * 10 + ksizes[0])
    outs = [3, 2]
    x = _tie_heavy((2, outs[0] * ksizes[0], outs[1] * ksizes[1], c), dtype, rng)
    dy = rng.standard_normal((2, *outs, c)).astype(dtype)
    dy.flat[::5] = -0.0
    dy.flat[1::7] = np.inf
    dy.flat[2::11] = np.nan
    geo = (list(ksizes), list(ksizes), [(0, 0), (0, 0)], outs)
    fast_y, fast_dx = pooling_native.max_pool(x, *geo), pooling_native.max_pool_grad(x, dy, *geo)
    assert fast_y is not None and fast_dx is not None
    _numpy_only(monkeypatch)
    slow_y = pk.tiled_max(x, *geo)
    slow_dx = pk.tiled_max_grad(x, dy, *geo)
    assert slow_dx is None  # non-finite gradients: the NumPy tiled path declines them
    _, arg = pk.max_argmax(x, *geo)
    slow_dx = pk.max_pool_grad(x.shape, arg, dy, *geo[:3])
    assert_same_bits(fast_y, slow_y)
    assert_same_bits(fast_dx, slow_dx)
    finite = np.nan_to_num(dy, nan=1.0, posinf=2.0)  # the NumPy tiled path takes these
    assert_same_bits(pk.tiled_max_grad(x, finite, *geo),
                     pk.max_pool_grad(x.shape, arg, finite, *geo[:3]))


@needs_native
def test_compiled_loops_decline_what_they_cannot_do():
    geo = ([2, 2], [2, 2], [(0, 0), (0, 0)], [2, 2])
    x = np.zeros((1, 4, 4, 16), np.float32)
    dy = np.ones((1, 2, 2, 16), np.float32)
    assert pooling_native.max_pool(x, *geo) is not None
    nan = x.copy()
    nan[0, 3, 2, 7] = np.nan  # NaN in a later tap of a window: the general path skips it
    assert pooling_native.max_pool(nan, *geo) is None
    assert pooling_native.max_pool_grad(nan, dy, *geo) is None
    for other in (x.astype(np.float16), x.astype(np.int32), np.zeros((1, 4, 8, 16),
                                                                     np.float32)[:, :, ::2]):
        assert pooling_native.max_pool(other, *geo) is None
    assert pooling_native.max_pool(x, [3, 3], [1, 1], [(0, 0), (0, 0)], [2, 2]) is None
    assert pooling_native.max_pool(x, [2, 2], [2, 2], [(0, 1), (0, 0)], [2, 2]) is None
    assert pooling_native.max_pool_grad(x, dy.astype(np.float64), *geo) is None
