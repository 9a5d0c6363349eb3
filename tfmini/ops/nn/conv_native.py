"""The convolution kernels' compiled loop: col2im, with NumPy as the fallback.

The input gradient of an ungrouped convolution is ``dcol = dy @ w^T`` (one product with a
good shape: ``[rows, O] x [O, taps*C]``) followed by col2im, which adds each row's
``taps*C`` values back into the input cells its window read. In NumPy col2im is one
strided add per tap (25 for a 5x5 filter) over the whole chunk; this loop does them all in
one pass over ``dcol`` while it is still in cache, a C-long vector add per (output, tap).

The sums differ from the NumPy adds only in their order (per input cell, by output
position then tap, where NumPy goes tap by tap), so results agree to float rounding; both
orders are valid (TensorFlow's own kernels sum in yet another order). Compiled through
``tfmini.ops.common.native.library`` (``TFMINI_NATIVE=0`` turns it off); where it cannot
run, :func:`col2im_loop` returns None and the caller takes its NumPy path.

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
