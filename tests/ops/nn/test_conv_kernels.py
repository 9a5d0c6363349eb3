"""tfmini/ops/nn/conv_kernels.py: the filter-row path of 2-D convolutions (stride 1 in
height) gives the im2col products' results for the forward and the filter gradient, over
padding modes, dilations, width strides, chunks, batch parts and dtypes."""

from __future__ import annotations

import numpy as np
import pytest

from tfmini.ops.nn import batch_split
from tfmini.ops.nn import conv_kernels as ck
from tfmini.ops.nn.window_geometry import output_geometry

CASES = [  # spatial, ksizes, C, strides, dilations, padding, explicit pairs
    ([9, 8], [5, 5], 16, [1, 1], [1, 1], "SAME", None),
    ([9, 11], [3, 4], 16, [1, 2], [1, 1], "SAME", None),
    ([10, 9], [3, 2], 32, [1, 1], [2, 3], "VALID", None),
    ([7, 8], [2, 4], 16, [1, 3], [3, 1], "EXPLICIT", [(2, 1), (0, 3)]),
]


def _case(spatial, ksizes, c, strides, dilations, padding, pairs, dtype, seed=0):
    outs, pads = output_geometry(spatial, ksizes, strides, dilations, padding,
                                 pairs or [(0, 0), (0, 0)])
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        x = rng.integers(-4, 5, size=(3, *spatial, c)).astype(dtype)
        w = rng.integers(-4, 5, size=(*ksizes, c, 6)).astype(dtype)
        dy = rng.integers(-4, 5, size=(3, *outs, 6)).astype(dtype)
    else:
        x = rng.normal(size=(3, *spatial, c)).astype(dtype)
        w = rng.normal(size=(*ksizes, c, 6)).astype(dtype)
        dy = rng.normal(size=(3, *outs, 6)).astype(dtype)
    return x, w, dy, (strides, dilations, pads, outs)


def _both(x, w, dy, geo, monkeypatch):
    got = (ck.conv_forward(x, w, *geo), ck.conv_backprop_filter(x, w.shape, dy, *geo))
    with monkeypatch.context() as mp:
        mp.setattr(ck, "_ROW_TAPS", False)
        want = (ck.conv_forward(x, w, *geo), ck.conv_backprop_filter(x, w.shape, dy, *geo))
    return got, want


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("case", CASES)
def test_filter_rows_match_the_im2col_products(case, dtype, monkeypatch):
    x, w, dy, geo = _case(*case, dtype)
    assert ck._row_taps_apply(case[1], case[2], case[3])
    got, want = _both(x, w, dy, geo, monkeypatch)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype and g.shape == e.shape and g.flags.c_contiguous
        if np.dtype(dtype).kind == "i":
            np.testing.assert_array_equal(g, e)
        else:
            tol = 1e-12 if dtype == np.float64 else 1e-4
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


def test_filter_rows_in_chunks_and_batch_parts(widths, monkeypatch):
    """Chunks of one image and two batch parts on two threads: each writes only its own
    images of y, and the filter gradient adds every part's sums once."""
    x, w, dy, geo = _case(*CASES[0], np.float64, seed=1)
    monkeypatch.setattr(ck, "_CHUNK_BYTES", 1)
    monkeypatch.setattr(batch_split, "MIN_PART_MACS", 1)
    widths(2, 1)
    assert len(batch_split.parts(3, 10**6)) == 2
    got, want = _both(x, w, dy, geo, monkeypatch)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_filter_rows_only_where_they_apply():
    assert not ck._row_taps_apply([5, 5], 16, [2, 1])  # a height stride: blocks not contiguous
    assert not ck._row_taps_apply([1, 5], 16, [1, 1])  # one filter row
    assert not ck._row_taps_apply([5, 5], 8, [1, 1])  # rows 40 deep
    assert not ck._row_taps_apply([3, 3, 3], 32, [1, 1, 1])  # 3-D
    assert ck._row_taps_apply([5, 5], 32, [1, 3])
