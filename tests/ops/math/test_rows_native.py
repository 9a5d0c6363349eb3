"""The compiled column sums (tfmini/ops/math/rows_native.py): the bias gradient (Sum over
all axes but the last) against TensorFlow 2.21's recorded results
(tools/record_goldens_pool_act.py), with the bias add, and the NumPy reduction's bits."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.ops.math import reduction, rows_native

G = load_golden("pool_act")
needs_native = pytest.mark.skipif(not rows_native.available(),
                                  reason="compiled loops off or not built")
CASES = sorted(k[:-len("/output")] for k in G if k.startswith("bias_grad/")
               and k.endswith("/output"))


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_bias_grad_sum_matches_tensorflow(case, compiled, monkeypatch):
    """Within float tolerance (TensorFlow's Eigen reduction adds in another order); a column
    of -0.0 sums to 0.0 as there."""
    if compiled:
        monkeypatch.setattr(rows_native, "MIN_ELEMENTS", 0)  # the loop takes small ones
    else:
        monkeypatch.setattr(rows_native, "_fn", lambda *a: None)
    g = tm.Graph()
    with g.as_default():
        x = G[f"{case}/input"]
        s = tm.raw_ops.Sum(input=x, axis=G[f"{case}/axis"])
        kept = tm.reduce_sum(x, axis=[0, 1, 2], keepdims=True)
    with tm.Session(graph=g) as sess:
        got, got_kept = sess.run([s, kept])
    want = G[f"{case}/output"]
    assert got.dtype == want.dtype and got.shape == want.shape
    eps = np.finfo(want.dtype).eps
    scale = np.abs(x).sum(axis=(0, 1, 2))  # the rounding of a sum grows with its terms
    assert (np.abs(got - want) <= 8 * eps * scale).all(), (got, want)
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))
    np.testing.assert_array_equal(got_kept.reshape(-1), got)
    bias_add = G[f"{case.replace('bias_grad', 'bias_add')}/z"]
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(tm.raw_ops.AddV2(
            x=G[f"{case.replace('bias_grad', 'bias_add')}/x"],
            y=G[f"{case.replace('bias_grad', 'bias_add')}/y"])), bias_add)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 28, 28, 32), (3, 5, 2), (9000, 17), (2, 3, 4, 64),
                                   (4, 1000), (0, 5), (5, 2)])
def test_column_sums_give_the_numpy_reductions_bits(dtype, shape, monkeypatch):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(dtype)
    if x.size:
        x[..., 0] = -0.0
        x.flat[3::97] = np.inf
        x.flat[5::89] = -np.inf
    axes = np.arange(x.ndim - 1, dtype=np.int32)[::-1]  # any order of the same axes
    bits = np.uint32 if dtype == np.float32 else np.uint64
    monkeypatch.setattr(rows_native, "MIN_ELEMENTS", 0)
    with np.errstate(invalid="ignore"):
        fast = reduction.sum_kernel(x, axes, keep_dims=False)
        monkeypatch.setattr(rows_native, "_fn", lambda *a: None)
        slow = reduction.sum_kernel(x, axes, keep_dims=False)
    np.testing.assert_array_equal(fast.view(bits), slow.view(bits))


@needs_native
def test_column_sums_decline_what_they_cannot_do(monkeypatch):
    x = np.ones((6, 4), np.float32)
    assert rows_native.column_sums(x) is None  # small: NumPy's reduction is as quick
    monkeypatch.setattr(rows_native, "MIN_ELEMENTS", 0)
    assert rows_native.column_sums(x) is not None
    assert rows_native.column_sums(x[:, :1].copy()) is None  # NumPy sums one column pairwise
    assert rows_native.column_sums(x[:, ::2]) is None
    assert rows_native.column_sums(x.astype(np.int32)) is None
    assert rows_native.column_sums(np.ones(4, np.float32)) is None
