"""The convolution kernels' compiled loops, with NumPy as the fallback: col2im for the
input gradient, and a direct convolution (forward and filter gradient) for one input
channel.

The input gradient of an ungrouped convolution is ``dcol = dy @ w^T`` (one product with a
good shape: ``[rows, O] x [O, taps*C]``) followed by col2im, which adds each row's
``taps*C`` values back into the input cells its window read. In NumPy col2im is one
strided add per tap (25 for a 5x5 filter) over the whole chunk; this loop does them all in
one pass over ``dcol`` while it is still in cache, a C-long vector add per (output, tap).

One input channel (the first layer on grey images) makes im2col's product a poor shape
(``taps`` = 25 deep, O = 32 wide): a direct loop that keeps 16 output channels per vector
register, and several outputs' (or taps') sums in registers at once, does the same sums in
about two thirds of the time.

Each loop's sums differ from its NumPy path's only in their order (col2im's per input
cell by output position then tap, where NumPy goes tap by tap; the direct loops' by
filter row, where sgemm blocks the taps its own way), so results agree to float rounding;
every order is valid (TensorFlow's own kernels sum in yet another order). Compiled through
``tfmini.ops.common.native.library`` (``TFMINI_NATIVE=0`` turns them off); where one
cannot run, :func:`col2im_loop` and :func:`one_channel_loop` return None and the caller
takes its NumPy path.

This module is internal to the nn family: it exports nothing to ``tm.*``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

import numpy as np

from tfmini.ops.common import native

__all__: list[str] = []

# Up to 3 spatial dims (Conv2D is Conv3D with a depth of 1). ``dx`` (unpadded, channels
# last) is zeroed per image, then each (output, tap) adds its C values where the tap's cell
# lies inside the input: the padding's share is dropped, as TensorFlow's kernels drop it.
# Without dilation in the last dim a filter row's taps land on adjacent cells: their
# kw*C values are one contiguous add (the same adds in the same order per cell; 54 -> 45 us
# per 4-image chunk of the convnet's second layer).
_SOURCE = r"""
#include <stddef.h>
#include <string.h>

#define COL2IM(NAME, T)                                                                 \
void NAME(const T *restrict dcol, T *restrict dx, ptrdiff_t nb, const ptrdiff_t *in,  \
          ptrdiff_t c, const ptrdiff_t *out, const ptrdiff_t *k, const ptrdiff_t *s,   \
          const ptrdiff_t *d, const ptrdiff_t *pad) {                                  \
    ptrdiff_t image = in[0] * in[1] * in[2] * c;                                       \
    ptrdiff_t row = k[0] * k[1] * k[2] * c;                                            \
    for (ptrdiff_t n = 0; n < nb; ++n) {                                               \
        T *restrict dxn = dx + n * image;                                              \
        memset(dxn, 0, (size_t)image * sizeof(T));                                     \
        for (ptrdiff_t o0 = 0; o0 < out[0]; ++o0)                                      \
        for (ptrdiff_t o1 = 0; o1 < out[1]; ++o1)                                      \
        for (ptrdiff_t o2 = 0; o2 < out[2]; ++o2, dcol += row) {                       \
            const T *restrict src = dcol;                                              \
            for (ptrdiff_t t0 = 0; t0 < k[0]; ++t0) {                                  \
                ptrdiff_t i0 = o0 * s[0] + t0 * d[0] - pad[0];                         \
                if (i0 < 0 || i0 >= in[0]) { src += k[1] * k[2] * c; continue; }      \
                for (ptrdiff_t t1 = 0; t1 < k[1]; ++t1) {                              \
                    ptrdiff_t i1 = o1 * s[1] + t1 * d[1] - pad[1];                     \
                    if (i1 < 0 || i1 >= in[1]) { src += k[2] * c; continue; }          \
                    T *restrict base = dxn + (i0 * in[1] + i1) * in[2] * c;            \
                    if (d[2] == 1) {                                                   \
                        ptrdiff_t first = o2 * s[2] - pad[2];                          \
                        ptrdiff_t lo = first < 0 ? -first : 0;                         \
                        ptrdiff_t hi = in[2] - first < k[2] ? in[2] - first : k[2];    \
                        if (hi > lo) {                                                 \
                            T *restrict dst = base + (first + lo) * c;                 \
                            const T *restrict from = src + lo * c;                     \
                            ptrdiff_t len = (hi - lo) * c;                             \
                            for (ptrdiff_t j = 0; j < len; ++j) dst[j] += from[j];     \
                        }                                                              \
                        src += k[2] * c;                                               \
                        continue;                                                      \
                    }                                                                  \
                    for (ptrdiff_t t2 = 0; t2 < k[2]; ++t2, src += c) {                \
                        ptrdiff_t i2 = o2 * s[2] + t2 * d[2] - pad[2];                 \
                        if (i2 < 0 || i2 >= in[2]) continue;                           \
                        T *restrict dst = base + i2 * c;                               \
                        for (ptrdiff_t j = 0; j < c; ++j) dst[j] += src[j];            \
                    }                                                                  \
                }                                                                      \
            }                                                                          \
        }                                                                              \
    }                                                                                  \
}

COL2IM(tfmini_col2im_f32, float)
COL2IM(tfmini_col2im_f64, double)

/* One input channel (a grey image's first layer), 2-D, float32, O a multiple of 16: a
   direct convolution, 16 output channels per vector. xp [nb, hp, wp] is the padded input,
   w [kh*kw, O]. The forward keeps 4 output pixels' sums in registers per filter row read;
   the filter gradient keeps a filter row's kw sums in registers per dy vector read. */
typedef float v16 __attribute__((vector_size(64)));
static inline v16 ld16(const float *p) { v16 v; memcpy(&v, p, 64); return v; }
static inline void st16(float *p, v16 v) { memcpy(p, &v, 64); }

void tfmini_conv1_forward_f32(const float *restrict xp, const float *restrict w,
                              float *restrict y, ptrdiff_t nb, ptrdiff_t hp, ptrdiff_t wp,
                              ptrdiff_t oh, ptrdiff_t ow, ptrdiff_t o, ptrdiff_t kh,
                              ptrdiff_t kw, ptrdiff_t sh, ptrdiff_t sw, ptrdiff_t dh,
                              ptrdiff_t dw) {
    for (ptrdiff_t n = 0; n < nb; ++n)
    for (ptrdiff_t i = 0; i < oh; ++i) {
        const float *xr = xp + (n * hp + i * sh) * wp;
        float *yr = y + (n * oh + i) * ow * o;
        for (ptrdiff_t b = 0; b < o; b += 16) {
            ptrdiff_t j = 0;
            for (; j + 4 <= ow; j += 4) {
                v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
                for (ptrdiff_t a = 0; a < kh; ++a)
                for (ptrdiff_t c = 0; c < kw; ++c) {
                    v16 wv = ld16(w + (a * kw + c) * o + b);
                    const float *xx = xr + a * dh * wp + c * dw + j * sw;
                    a0 += xx[0] * wv;
                    a1 += xx[sw] * wv;
                    a2 += xx[2 * sw] * wv;
                    a3 += xx[3 * sw] * wv;
                }
                st16(yr + j * o + b, a0);
                st16(yr + (j + 1) * o + b, a1);
                st16(yr + (j + 2) * o + b, a2);
                st16(yr + (j + 3) * o + b, a3);
            }
            for (; j < ow; ++j) {
                v16 a0 = {0};
                for (ptrdiff_t a = 0; a < kh; ++a)
                for (ptrdiff_t c = 0; c < kw; ++c)
                    a0 += xr[a * dh * wp + c * dw + j * sw] * ld16(w + (a * kw + c) * o + b);
                st16(yr + j * o + b, a0);
            }
        }
    }
}

#define FILTER_ROW(KW)                                                                 \
    {                                                                                  \
        v16 acc[KW];                                                                   \
        for (int c = 0; c < KW; ++c) acc[c] = (v16){0};                                \
        for (ptrdiff_t j = 0; j < ow; ++j) {                                           \
            v16 g = ld16(dr + j * o + b);                                              \
            const float *xj = xx + j * sw;                                             \
            for (int c = 0; c < KW; ++c) acc[c] += xj[c * dw] * g;                     \
        }                                                                              \
        for (int c = 0; c < KW; ++c) {                                                 \
            float *t = dwt + (a * kw + c) * o + b;                                     \
            st16(t, ld16(t) + acc[c]);                                                 \
        }                                                                              \
    }

/* kw is at most 8 (the caller checks). dwt [kh*kw, O] is overwritten. */
void tfmini_conv1_filter_f32(const float *restrict xp, const float *restrict dy,
                             float *restrict dwt, ptrdiff_t nb, ptrdiff_t hp, ptrdiff_t wp,
                             ptrdiff_t oh, ptrdiff_t ow, ptrdiff_t o, ptrdiff_t kh,
                             ptrdiff_t kw, ptrdiff_t sh, ptrdiff_t sw, ptrdiff_t dh,
                             ptrdiff_t dw) {
    memset(dwt, 0, (size_t)(kh * kw * o) * sizeof(float));
    for (ptrdiff_t n = 0; n < nb; ++n)
    for (ptrdiff_t i = 0; i < oh; ++i) {
        const float *xr = xp + (n * hp + i * sh) * wp;
        const float *dr = dy + (n * oh + i) * ow * o;
        for (ptrdiff_t b = 0; b < o; b += 16)
        for (ptrdiff_t a = 0; a < kh; ++a) {
            const float *xx = xr + a * dh * wp;
            switch (kw) {
            case 1: FILTER_ROW(1) break;
            case 2: FILTER_ROW(2) break;
            case 3: FILTER_ROW(3) break;
            case 4: FILTER_ROW(4) break;
            case 5: FILTER_ROW(5) break;
            case 6: FILTER_ROW(6) break;
            case 7: FILTER_ROW(7) break;
            default: FILTER_ROW(8) break;
            }
        }
    }
}
"""

_NAMES = {np.dtype(np.float32): "tfmini_col2im_f32", np.dtype(np.float64): "tfmini_col2im_f64"}
_fns: dict = {}


def _fn(dtype: np.dtype):
    fn = _fns.get(dtype)
    if fn is None:
        lib = native.library(_SOURCE)
        name = _NAMES.get(dtype)
        if lib is None or name is None:
            return None
        fn = getattr(lib, name)
        fn.restype = None
        p, n = ctypes.c_void_p, ctypes.c_ssize_t
        fn.argtypes = [p, p, n, p, n, p, p, p, p, p]
        _fns[dtype] = fn
    return fn


def _dims(values: Sequence[int], fill: int) -> np.ndarray:
    # The loop takes 3 spatial dims: fewer are padded in front with size-1 dims.
    return np.array([fill] * (3 - len(values)) + [int(v) for v in values], np.intp)


def col2im_loop(dtype: np.dtype, spatial_in: Sequence[int], c: int, ksizes: Sequence[int],
                strides: Sequence[int], dilations: Sequence[int],
                pads: Sequence[tuple[int, int]], outs: Sequence[int]
                ) -> Callable[[np.ndarray, np.ndarray], None] | None:
    """The compiled col2im of one convolution geometry, or None when it cannot run here
    (not compiled, ``TFMINI_NATIVE=0``, a dtype other than float32/float64, more than 3
    spatial dims): the caller takes its NumPy path.

    The loop, called as ``loop(dcol, dx)`` on C-contiguous ``dcol`` ``[nb*prod(outs),
    prod(ksizes)*C]`` and ``dx`` ``[nb, *spatial_in, C]`` (overwritten), sets ``dx[n, i.., c]
    = sum dcol[n, o.., t.., c]`` over the (output, tap) pairs with ``o*s + t*d -
    pad_before == i``.
    """
    if len(ksizes) > 3:
        return None
    fn = _fns.get(np.dtype(dtype)) or _fn(np.dtype(dtype))
    if fn is None:
        return None
    geo = [_dims(spatial_in, 1), _dims(outs, 1), _dims(ksizes, 1), _dims(strides, 1),
           _dims(dilations, 1), _dims([b for b, _ in pads], 0)]
    ptrs = [g.ctypes.data for g in geo]
    image_in = int(np.prod(spatial_in)) * c
    image_col = int(np.prod(outs)) * int(np.prod(ksizes)) * c

    def loop(dcol: np.ndarray, dx: np.ndarray) -> None:
        nb = dx.shape[0]
        # A wrong buffer here would be a kernel bug: refuse it rather than write past dx.
        if not (dcol.flags.c_contiguous and dx.flags.c_contiguous and dx.flags.writeable
                and dcol.dtype == dx.dtype == fn_dtype and dx.size == nb * image_in
                and dcol.size == nb * image_col):
            raise ValueError("col2im: buffers do not match the geometry")
        fn(dcol.ctypes.data, dx.ctypes.data, nb, ptrs[0], c, ptrs[1], ptrs[2], ptrs[3],
           ptrs[4], ptrs[5])

    fn_dtype = np.dtype(dtype)
    loop.geometry = geo  # keeps the arrays the pointers point into alive
    return loop


_ONE_CHANNEL = {"forward": "tfmini_conv1_forward_f32", "filter": "tfmini_conv1_filter_f32"}
_one_channel_fns: dict = {}


def _one_channel_fn(which: str):
    fn = _one_channel_fns.get(which)
    if fn is None:
        lib = native.library(_SOURCE)
        if lib is None:
            return None
        fn = getattr(lib, _ONE_CHANNEL[which])
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_ssize_t] * 12
        _one_channel_fns[which] = fn
    return fn


# The filter gradient keeps a filter row's sums in registers: at most this many taps a row.
MAX_ONE_CHANNEL_KW = 8


def one_channel_loop(which: str, dtype: np.dtype, ksizes: Sequence[int], o: int,
                     strides: Sequence[int], dilations: Sequence[int], outs: Sequence[int]
                     ) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None:
    """The direct convolution of a one-channel 2-D float32 input with O a multiple of 16
    (``which`` "forward" or "filter"), or None where it does not apply or cannot run here.

    The loop, called as ``loop(xp, b, out)`` on the C-contiguous padded input ``xp``
    ``[nb, hp, wp, 1]``: forward ``out[nb, *outs, O] = conv(xp, b)`` for the filter ``b``
    ``[kh, kw, 1, O]``; filter gradient ``out[kh, kw, 1, O] = sum xp-windows * b`` for
    ``b = dy`` ``[nb, *outs, O]`` (overwritten, not accumulated).

    Measured against im2col + sgemm on the convnet's first layer (32x28x28x1, 5x5x1x32,
    one thread, SkylakeX kernels): forward 0.39 -> 0.29 ms, filter gradient 0.45 -> 0.27 ms.
    """
    if (np.dtype(dtype) != np.float32 or len(ksizes) != 2 or o % 16 or o <= 0
            or min(outs) <= 0 or min(ksizes) <= 0  # an empty filter: the NumPy path
            or (which == "filter" and ksizes[1] > MAX_ONE_CHANNEL_KW)):
        return None
    fn = _one_channel_fns.get(which) or _one_channel_fn(which)
    if fn is None:
        return None
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = ksizes, strides, dilations, outs

    def loop(xp: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        nb, hp, wp = xp.shape[:3]
        want = ((nb, oh, ow, o), (kh, kw, 1, o)) if which == "forward" else (
            (kh, kw, 1, o), (nb, oh, ow, o))
        arrays = (xp, b, out)
        # A wrong buffer here would be a kernel bug: refuse it rather than read past one.
        if (any(a.dtype != np.float32 or not a.flags.c_contiguous for a in arrays)
                or xp.shape[3] != 1 or (hp - 1 - (oh - 1) * sh) < (kh - 1) * dh
                or (wp - 1 - (ow - 1) * sw) < (kw - 1) * dw
                or (out.shape, b.shape) != want or not out.flags.writeable):
            raise ValueError("one-channel convolution: buffers do not match the geometry")
        fn(xp.ctypes.data, b.ctypes.data, out.ctypes.data, nb, hp, wp, oh, ow, o, kh, kw,
           sh, sw, dh, dw)

    return loop
