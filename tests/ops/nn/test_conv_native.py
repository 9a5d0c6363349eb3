"""tfmini/ops/nn/conv_native.py: the compiled col2im behind the input gradient agrees with
the NumPy paths (the transposed convolution, the per-tap products, col2im by strided adds)
on every geometry the kernels serve, and declines what it cannot do."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.common import native
from tfmini.ops.nn import conv_kernels as ck
from tfmini.ops.nn import conv_native
from tfmini.ops.nn.window_geometry import output_geometry

needs_native = pytest.mark.skipif(
    conv_native.col2im_loop(np.dtype(np.float64), [3, 3], 2, [2, 2], [1, 1], [1, 1],
                            [(0, 1), (0, 1)], [3, 3]) is None,
    reason="compiled loops off (TFMINI_NATIVE=0) or no C compiler here")

CASES = [  # spatial, ksizes, strides, dilations, padding, explicit pairs
    ([9, 8], [3, 3], [1, 1], [1, 1], "SAME", None),
    ([9, 8], [5, 5], [1, 1], [1, 1], "SAME", None),
    ([4, 3], [3, 5], [1, 1], [1, 1], "SAME", None),  # a filter row wider than the input
    ([9, 8], [3, 2], [2, 3], [1, 1], "SAME", None),
    ([9, 8], [3, 3], [1, 1], [2, 1], "VALID", None),
    ([9, 8], [2, 3], [2, 1], [1, 2], "EXPLICIT", [(3, 0), (1, 2)]),
    ([6, 5, 7], [2, 3, 2], [1, 2, 1], [1, 1, 2], "SAME", None),
    ([6, 5, 7], [3, 1, 3], [2, 1, 1], [1, 1, 1], "VALID", None),
]


def _geometry(spatial, ksizes, strides, dilations, padding, pairs):
    pairs = pairs or [(0, 0)] * len(spatial)
    outs, pads = output_geometry(spatial, ksizes, strides, dilations, padding, pairs)
    return strides, dilations, pads, outs


@needs_native
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("case", CASES)
def test_col2im_input_gradient_matches_the_numpy_paths(case, dtype, tol, monkeypatch):
    spatial, ksizes = case[0], case[1]
    geo = _geometry(*case)
    rng = np.random.default_rng(len(spatial) + sum(ksizes))
    in_shape = (3, *spatial, 5)
    w = rng.normal(size=(*ksizes, 5, 4)).astype(dtype)
    dy = rng.normal(size=(3, *geo[3], 4)).astype(dtype)
    fast = ck.conv_backprop_input(in_shape, w, dy, *geo)
    monkeypatch.setattr(conv_native, "col2im_loop", lambda *a: None)
    slow = ck.conv_backprop_input(in_shape, w, dy, *geo)
    # The adjoint written out: col2im of dy @ w^T by one strided add per tap.
    dcol = (dy.reshape(-1, 4) @ w.reshape(-1, 4).T).reshape(3, *geo[3], *ksizes, 5)
    want = ck.col2im(dcol, in_shape, ksizes, geo[0], geo[1], geo[2], geo[3])
    assert fast.dtype == slow.dtype == dtype and fast.flags.c_contiguous
    np.testing.assert_allclose(fast, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(slow, want, rtol=tol, atol=tol)


@needs_native
def test_col2im_in_chunks_of_images_matches_the_whole_batch(monkeypatch):
    """Chunks of one image (and batch parts on the kernel helpers) give the whole-batch
    result: each chunk writes only its own images of the gradient."""
    geo = _geometry([7, 7], [3, 3], [1, 1], [1, 1], "SAME", None)
    rng = np.random.default_rng(1)
    w = rng.normal(size=(3, 3, 6, 2))
    dy = rng.normal(size=(5, 7, 7, 2))
    whole = ck.conv_backprop_input((5, 7, 7, 6), w, dy, *geo)
    monkeypatch.setattr(ck, "_CHUNK_BYTES", 1)
    np.testing.assert_allclose(ck.conv_backprop_input((5, 7, 7, 6), w, dy, *geo), whole,
                               rtol=1e-13, atol=1e-13)


def test_col2im_loop_declines_what_it_cannot_do(monkeypatch):
    pads = [(0, 0)] * 4
    assert conv_native.col2im_loop(np.dtype(np.float16), [3, 3], 2, [2, 2], [1, 1], [1, 1],
                                   pads[:2], [2, 2]) is None
    assert conv_native.col2im_loop(np.dtype(np.int64), [3, 3], 2, [2, 2], [1, 1], [1, 1],
                                   pads[:2], [2, 2]) is None
    assert conv_native.col2im_loop(np.dtype(np.float32), [3] * 4, 2, [2] * 4, [1] * 4,
                                   [1] * 4, pads, [2] * 4) is None
    monkeypatch.setattr(native, "library", lambda source: None)  # TFMINI_NATIVE=0
    monkeypatch.setattr(conv_native, "_fns", {})
    assert conv_native.col2im_loop(np.dtype(np.float32), [3, 3], 2, [2, 2], [1, 1], [1, 1],
                                   pads[:2], [2, 2]) is None


@needs_native
def test_col2im_loop_refuses_buffers_that_do_not_fit():
    loop = conv_native.col2im_loop(np.dtype(np.float32), [3, 3], 2, [2, 2], [1, 1], [1, 1],
                                   [(0, 0), (0, 0)], [2, 2])
    dcol = np.zeros((4, 8), np.float32)
    loop(dcol, np.empty((1, 3, 3, 2), np.float32))
    with pytest.raises(ValueError, match="col2im"):
        loop(dcol, np.empty((2, 3, 3, 2), np.float32))  # one image of dcol, two of dx
    with pytest.raises(ValueError, match="col2im"):
        loop(dcol.astype(np.float64), np.empty((1, 3, 3, 2), np.float64))


ONE_CHANNEL_CASES = [  # spatial, ksizes, strides, dilations, padding, explicit pairs, O
    ([28, 28], [5, 5], [1, 1], [1, 1], "SAME", None, 32),
    ([9, 11], [3, 2], [2, 3], [1, 1], "SAME", None, 16),
    ([9, 10], [3, 3], [1, 1], [2, 3], "VALID", None, 48),
    ([8, 9], [2, 8], [2, 1], [1, 1], "EXPLICIT", [(3, 0), (1, 5)], 16),
    ([7, 13], [1, 1], [1, 2], [1, 1], "SAME", None, 16),
]


def _one_channel(case, seed):
    *geometry, o = case
    spatial, ksizes = geometry[0], geometry[1]
    geo = _geometry(*geometry)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, *spatial, 1)).astype(np.float32)
    w = rng.normal(size=(*ksizes, 1, o)).astype(np.float32)
    dy = rng.normal(size=(3, *geo[3], o)).astype(np.float32)
    return x, w, dy, geo


@needs_native
@pytest.mark.parametrize("case", ONE_CHANNEL_CASES)
def test_one_channel_direct_convolution_matches_im2col(case, monkeypatch):
    """The direct loops (forward, filter gradient) against the transposed-im2col products,
    and both against float64 arithmetic."""
    x, w, dy, geo = _one_channel(case, seed=sum(case[1]))
    assert conv_native.one_channel_loop("forward", x.dtype, case[1], case[-1], geo[0],
                                        geo[1], geo[3]) is not None
    fast = (ck.conv_forward(x, w, *geo), ck.conv_backprop_filter(x, w.shape, dy, *geo))
    monkeypatch.setattr(conv_native, "one_channel_loop", lambda *a: None)
    slow = (ck.conv_forward(x, w, *geo), ck.conv_backprop_filter(x, w.shape, dy, *geo))
    exact = (ck.conv_forward(x.astype(np.float64), w.astype(np.float64), *geo),
             ck.conv_backprop_filter(x.astype(np.float64), w.shape, dy.astype(np.float64),
                                     *geo))
    for f, s, e in zip(fast, slow, exact):
        assert f.dtype == np.float32 and f.shape == e.shape
        scale = max(1.0, float(np.abs(e).max()))
        np.testing.assert_allclose(f, e, rtol=0, atol=2e-6 * scale)
        np.testing.assert_allclose(s, e, rtol=0, atol=2e-6 * scale)


@needs_native
def test_one_channel_filter_gradient_in_batch_parts_sums_every_part(widths, monkeypatch):
    """Two batch parts on two threads: each part's loop overwrites its own buffer and the
    parts' sums are added (the loop does not accumulate into its output)."""
    x, w, dy, geo = _one_channel(ONE_CHANNEL_CASES[0], seed=2)
    whole = ck.conv_backprop_filter(x, w.shape, dy, *geo)
    from tfmini.ops.nn import batch_split

    widths(2, 1)
    monkeypatch.setattr(batch_split, "MIN_PART_MACS", 1)
    assert len(batch_split.parts(3, 3 * 28 * 28 * 25 * 32)) == 2
    parts = ck.conv_backprop_filter(x, w.shape, dy, *geo)
    np.testing.assert_allclose(parts, whole, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ck.conv_forward(x, w, *geo)[1:],
                               ck.conv_forward(x[1:], w, *geo), rtol=1e-6, atol=1e-6)


def test_one_channel_loop_takes_only_what_it_vectorizes():
    f32 = np.dtype(np.float32)
    args = ([1, 1], [1, 1], [4, 4])
    assert conv_native.one_channel_loop("forward", np.dtype(np.float64), [3, 3], 16,
                                        *args) is None
    assert conv_native.one_channel_loop("forward", f32, [3, 3], 24, *args) is None  # O % 16
    assert conv_native.one_channel_loop("forward", f32, [3, 3, 3], 16, [1] * 3, [1] * 3,
                                        [4] * 3) is None
    assert conv_native.one_channel_loop(
        "filter", f32, [3, conv_native.MAX_ONE_CHANNEL_KW + 1], 16, *args) is None
    assert conv_native.one_channel_loop("forward", f32, [3, 3], 16, [1, 1], [1, 1],
                                        [0, 4]) is None  # nothing to compute
    for ksizes in ([5, 0], [0, 5]):  # an empty filter: its loops would write 8 columns
        for which in ("forward", "filter"):
            assert conv_native.one_channel_loop(which, f32, ksizes, 16, *args) is None


def test_a_zero_width_filter_has_an_empty_gradient():
    # Conv2DBackpropFilter of a 5x0 filter: nothing to compute, and nothing written outside
    # the empty result (the compiled loop once wrote 8 columns into it).
    x = tm.constant(np.ones((2, 6, 6, 1), np.float32))
    dy = tm.constant(np.ones((2, 6, 6, 16), np.float32))
    dw = tm.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[5, 0, 1, 16],
                                         out_backprop=dy, strides=[1, 1, 1, 1],
                                         padding="SAME")
    with tm.Session() as sess:
        assert sess.run(dw).shape == (5, 0, 1, 16)


@pytest.mark.parametrize("spatial", [[0, 5], [4, 0]])
def test_empty_inputs_take_the_numpy_paths(spatial):
    geo = _geometry(spatial, [3, 3], [1, 1], [1, 1], "SAME", None)
    x = np.ones((2, *spatial, 1), np.float32)
    w = np.ones((3, 3, 1, 16), np.float32)
    dy = np.ones((2, *geo[3], 16), np.float32)
    assert ck.conv_forward(x, w, *geo).shape == (2, *spatial, 16)
    np.testing.assert_array_equal(ck.conv_backprop_filter(x, w.shape, dy, *geo), 0)
    x2 = np.ones((2, *spatial, 4), np.float32)
    w2 = np.ones((3, 3, 4, 16), np.float32)
    assert ck.conv_backprop_input(x2.shape, w2, dy, *geo).shape == x2.shape


@needs_native
def test_one_channel_loop_refuses_buffers_that_do_not_fit():
    loop = conv_native.one_channel_loop("forward", np.dtype(np.float32), [3, 3], 16, [1, 1],
                                        [1, 1], [4, 4])
    w = np.zeros((3, 3, 1, 16), np.float32)
    loop(np.zeros((2, 6, 6, 1), np.float32), w, np.empty((2, 4, 4, 16), np.float32))
    with pytest.raises(ValueError, match="one-channel"):  # too small for the windows
        loop(np.zeros((2, 5, 6, 1), np.float32), w, np.empty((2, 4, 4, 16), np.float32))
    with pytest.raises(ValueError, match="one-channel"):
        loop(np.zeros((2, 6, 6, 1), np.float32), w, np.empty((1, 4, 4, 16), np.float32))
