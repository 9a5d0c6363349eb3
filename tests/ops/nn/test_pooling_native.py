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
from tfmini.runtime.options import RewriterConfig

G = load_golden("pool_act")
CASES = sorted(k[:-len("/input")] for k in G
               if k.startswith("max_pool/") and k.endswith("/input") and "/grad/" not in k)
needs_native = pytest.mark.skipif(not pooling_native.available(),
                                  reason="compiled loops off or not built")


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


REMAP_OFF = tm.ConfigProto(graph_options=tm.GraphOptions(
    rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF)))


def _pool_layer_gradient(dtype, fetch_pool_grad=False):
    """A relu-pool layer's gradient, as tm.gradients builds it: ReluGrad(MaxPoolGrad(h, ...),
    h) with h the Relu's output."""
    rng = np.random.default_rng(9)
    xs = rng.choice(np.array([-1.0, -0.0, 0.0, 1.0, 2.0]), size=(2, 4, 6, 32)).astype(dtype)
    dys = rng.standard_normal((2, 2, 3, 32)).astype(dtype)
    dys.flat[:5] = [-0.0, np.inf, -np.inf, np.nan, -1.0]
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(dtype, [None, 4, 6, 32])
        dy = tm.placeholder(dtype, [None, 2, 3, 32])
        h = tm.nn.relu(x)
        p = tm.nn.max_pool(h, 2, 2, "VALID")
        (dx,) = tm.gradients(p, [x], grad_ys=[dy])
        fetches = [dx]
        if fetch_pool_grad:
            fetches.append(dx.op.inputs[0])
    return g, fetches, {x: xs, dy: dys}


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_grad_of_max_pool_grad_runs_as_one_step(dtype, compiled, monkeypatch):
    """The remapping pass runs ReluGrad(MaxPoolGrad(h, y, dy), h) as one step: the same bits
    as the two ops (remapping off), ties, signed zeros and non-finite gradients included."""
    if not compiled:
        _numpy_only(monkeypatch)
    g, fetches, feeds = _pool_layer_gradient(dtype)
    results = []
    for config in (None, REMAP_OFF):
        with tm.Session(graph=g, config=config) as sess:
            results.append(sess.run(fetches[0], feeds))
            (plan,) = sess._plans.values()
            results.append([s.op.type for s in plan.steps])
    fused, fused_types, plain, plain_types = results
    assert "MaxPoolGrad" not in fused_types and "MaxPoolGrad" in plain_types
    assert np.isnan(plain).any() and np.isinf(plain).any()
    assert_same_bits(fused, plain)
    g, fetches, feeds = _pool_layer_gradient(dtype, fetch_pool_grad=True)
    with tm.Session(graph=g) as sess:  # the MaxPoolGrad value fetched: not fused
        dx, _ = sess.run(fetches, feeds)
        (plan,) = sess._plans.values()
        assert "MaxPoolGrad" in [s.op.type for s in plan.steps]
    assert_same_bits(dx, plain)


def test_fused_max_pool_grad_errors_name_the_max_pool_grad():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 4, 4, 16])
        dy = tm.placeholder(tm.float32, [None, None, None, 16])
        h = tm.nn.relu(x)
        y = tm.nn.max_pool(h, 2, 2, "VALID")
        dx = tm.raw_ops.MaxPoolGrad(orig_input=h, orig_output=y, grad=dy, ksize=[1, 2, 2, 1],
                                    strides=[1, 2, 2, 1], padding="VALID", name="pool_grad")
        out = tm.raw_ops.ReluGrad(gradients=dx, features=h)
    with tm.Session(graph=g) as sess:
        feeds = {x: np.ones((1, 4, 4, 16), np.float32), dy: np.ones((1, 3, 2, 16), np.float32)}
        with pytest.raises(tm.errors.InvalidArgumentError, match="MaxPoolGrad 'pool_grad'.*"
                           "Expected grad shape"):
            sess.run(out, feeds)
        feeds[dy] = np.ones((1, 2, 2, 16), np.float32)  # the session is still usable
        assert sess.run(out, feeds).shape == (1, 4, 4, 16)
