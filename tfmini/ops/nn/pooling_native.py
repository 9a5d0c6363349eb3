"""Max pooling of windows that tile the input, in compiled loops (NumPy otherwise).

The NumPy path of a tiled MaxPool (pooling_kernels.py) is one strided ``np.maximum`` pass
per tap plus a NaN check; its gradient recomputes the maxima, then compares every tap with
them and writes each tap's slab of ``dx``: a dozen passes over the input. The loops below
read each window once while it is in the core's first-level cache. They are compiled on
first use by ``tfmini.ops.common.native.library`` (one library for this source).

They give the NumPy path's bits (tested, special values included): the maximum is the
first maximal cell of the window in row-major scan (a later cell replaces it only when
strictly greater, so a tie of ``-0.0`` and ``0.0`` keeps the earlier one, as TensorFlow's
``SpatialMaxPoolWithArgMaxHelper`` does); the gradient is ``dy + 0`` at that cell and
``+0.0`` elsewhere, as TensorFlow adds the gradient into a zeroed ``dx`` (so a ``-0.0``
gradient lands as ``0.0``, and an infinite or NaN one lands in its cell alone). A window
holding NaN is left to the general path, which skips NaN as TensorFlow does: the loops
report it and the caller runs the NumPy path.
"""

from __future__ import annotations

import ctypes

import numpy as np

from tfmini.ops.common import native

__all__: list[str] = []

_SOURCE = r"""
#include <stddef.h>
#include <string.h>

/* x: [n, h, w, c] C-contiguous, windows kh x kw with stride (kh, kw) tiling it exactly;
   a window's rows are `row` = w * c apart, its cells c apart. Channels go in 64-byte
   blocks of GCC vector type (the running maxima stay in registers) when c allows, else in
   plain loops over c. Each entry point returns 1 when a cell is NaN: the caller then takes
   the general path. I is an integer as wide as T (the comparisons' lane type). */
#define POOL(SUF, T, I)                                                                   \
typedef T V_##SUF __attribute__((vector_size(64)));                                       \
typedef I IV_##SUF __attribute__((vector_size(64)));                                      \
enum { BL_##SUF = 64 / sizeof(T) };                                                       \
                                                                                          \
static inline V_##SUF load_##SUF(const T *p) {                                            \
    V_##SUF v;                                                                            \
    memcpy(&v, p, sizeof v);                                                              \
    return v;                                                                             \
}                                                                                         \
                                                                                          \
static inline V_##SUF pick_##SUF(IV_##SUF mask, V_##SUF a, V_##SUF b) {                   \
    return (V_##SUF)((mask & (IV_##SUF)a) | (~mask & (IV_##SUF)b));                       \
}                                                                                         \
                                                                                          \
static int any_##SUF(IV_##SUF bad) {                                                      \
    int any = 0;                                                                          \
    for (int k = 0; k < BL_##SUF; ++k) any |= bad[k] != 0;                                \
    return any;                                                                           \
}                                                                                         \
                                                                                          \
/* Images [b0, b1) of y = max pooling of x: the first maximal cell's value (a later cell  \
   replaces the maximum only when strictly greater, so ties keep the earlier cell). */    \
int tfmini_max_pool_tiled_##SUF(const T *restrict x, T *restrict y, ptrdiff_t b0,         \
                                ptrdiff_t b1, ptrdiff_t h, ptrdiff_t w, ptrdiff_t c,      \
                                ptrdiff_t kh, ptrdiff_t kw) {                             \
    ptrdiff_t oh = h / kh, ow = w / kw, row = w * c;                                      \
    IV_##SUF badv = {0};                                                                  \
    int bad = 0;                                                                          \
    for (ptrdiff_t b = b0; b < b1; ++b)                                                   \
    for (ptrdiff_t oy = 0; oy < oh; ++oy)                                                 \
    for (ptrdiff_t ox = 0; ox < ow; ++ox) {                                               \
        const T *corner = x + (b * h + oy * kh) * row + ox * kw * c;                      \
        T *out = y + ((b * oh + oy) * ow + ox) * c;                                       \
        if (c % BL_##SUF == 0) {                                                          \
            for (ptrdiff_t k0 = 0; k0 < c; k0 += BL_##SUF) {                              \
                V_##SUF m = load_##SUF(corner + k0);                                      \
                badv |= m != m;                                                           \
                for (ptrdiff_t a = 0; a < kh; ++a)                                        \
                for (ptrdiff_t e = (a == 0); e < kw; ++e) {                               \
                    V_##SUF v = load_##SUF(corner + a * row + e * c + k0);                \
                    badv |= v != v;                                                       \
                    m = pick_##SUF(v > m, v, m);                                          \
                }                                                                         \
                memcpy(out + k0, &m, sizeof m);                                           \
            }                                                                             \
            continue;                                                                     \
        }                                                                                 \
        for (ptrdiff_t k = 0; k < c; ++k) {                                               \
            T v = corner[k];                                                              \
            out[k] = v;                                                                   \
            bad |= v != v;                                                                \
        }                                                                                 \
        for (ptrdiff_t a = 0; a < kh; ++a)                                                \
        for (ptrdiff_t e = (a == 0); e < kw; ++e) {                                       \
            const T *p = corner + a * row + e * c;                                        \
            for (ptrdiff_t k = 0; k < c; ++k) {                                           \
                T v = p[k], m = out[k];                                                   \
                out[k] = v > m ? v : m;                                                   \
                bad |= v != v;                                                            \
            }                                                                             \
        }                                                                                 \
    }                                                                                     \
    return bad | any_##SUF(badv);                                                         \
}                                                                                         \
                                                                                          \
/* Images [b0, b1) of dx = MaxPoolGrad(x, dy): dy at the window's first maximal cell      \
   (plus 0: a -0.0 lands as 0.0, as TensorFlow adds it into zeros), 0 elsewhere. With     \
   relu, that value times (x > 0 ? 1 : 0): ReluGrad(dx, x), as relu_grad computes it.     \
   m, at: scratch of c values each (the running maximum and its tap). */                  \
int tfmini_max_pool_grad_tiled_##SUF(const T *restrict x, const T *restrict dy,           \
                                     T *restrict dx, T *restrict m, I *restrict at,       \
                                     ptrdiff_t b0, ptrdiff_t b1, ptrdiff_t h,             \
                                     ptrdiff_t w, ptrdiff_t c, ptrdiff_t kh,              \
                                     ptrdiff_t kw, int relu) {                            \
    ptrdiff_t oh = h / kh, ow = w / kw, row = w * c;                                      \
    IV_##SUF badv = {0};                                                                  \
    const V_##SUF zero = {0};                                                             \
    int bad = 0;                                                                          \
    for (ptrdiff_t b = b0; b < b1; ++b)                                                   \
    for (ptrdiff_t oy = 0; oy < oh; ++oy)                                                 \
    for (ptrdiff_t ox = 0; ox < ow; ++ox) {                                               \
        ptrdiff_t start = (b * h + oy * kh) * row + ox * kw * c;                          \
        const T *corner = x + start;                                                      \
        const T *g = dy + ((b * oh + oy) * ow + ox) * c;                                  \
        if (c % BL_##SUF == 0) {                                                          \
            for (ptrdiff_t k0 = 0; k0 < c; k0 += BL_##SUF) {                              \
                V_##SUF mv = load_##SUF(corner + k0);                                     \
                IV_##SUF atv = {0};                                                       \
                I tap = 0;                                                                \
                badv |= mv != mv;                                                         \
                for (ptrdiff_t a = 0; a < kh; ++a)                                        \
                for (ptrdiff_t e = (a == 0); e < kw; ++e) {                               \
                    V_##SUF v = load_##SUF(corner + a * row + e * c + k0);                \
                    IV_##SUF more = v > mv;                                               \
                    ++tap;                                                                \
                    badv |= v != v;                                                       \
                    mv = pick_##SUF(more, v, mv);                                         \
                    atv = (more & tap) | (~more & atv);                                   \
                }                                                                         \
                V_##SUF gv = load_##SUF(g + k0) + (T)0;                                   \
                tap = 0;                                                                  \
                for (ptrdiff_t a = 0; a < kh; ++a)                                        \
                for (ptrdiff_t e = 0; e < kw; ++e, ++tap) {                               \
                    ptrdiff_t off = start + a * row + e * c + k0;                         \
                    V_##SUF out = pick_##SUF(atv == tap, gv, zero);                       \
                    if (relu) {                                                           \
                        V_##SUF v = load_##SUF(x + off);                                  \
                        out = out * pick_##SUF(v > zero, zero + (T)1, zero);              \
                    }                                                                     \
                    memcpy(dx + off, &out, sizeof out);                                   \
                }                                                                         \
            }                                                                             \
            continue;                                                                     \
        }                                                                                 \
        for (ptrdiff_t k = 0; k < c; ++k) {                                               \
            T v = corner[k];                                                              \
            m[k] = v;                                                                     \
            at[k] = 0;                                                                    \
            bad |= v != v;                                                                \
        }                                                                                 \
        I tap = 0;                                                                        \
        for (ptrdiff_t a = 0; a < kh; ++a)                                                \
        for (ptrdiff_t e = (a == 0); e < kw; ++e) {                                       \
            const T *p = corner + a * row + e * c;                                        \
            ++tap;                                                                        \
            for (ptrdiff_t k = 0; k < c; ++k) {                                           \
                T v = p[k], cur = m[k];                                                   \
                int more = v > cur;                                                       \
                m[k] = more ? v : cur;                                                    \
                at[k] = more ? tap : at[k];                                               \
                bad |= v != v;                                                            \
            }                                                                             \
        }                                                                                 \
        tap = 0;                                                                          \
        for (ptrdiff_t a = 0; a < kh; ++a)                                                \
        for (ptrdiff_t e = 0; e < kw; ++e, ++tap) {                                       \
            const T *p = corner + a * row + e * c;                                        \
            T *q = dx + start + a * row + e * c;                                          \
            for (ptrdiff_t k = 0; k < c; ++k)                                             \
                q[k] = at[k] == tap ? g[k] + (T)0 : (T)0;                                 \
            if (relu)                                                                     \
                for (ptrdiff_t k = 0; k < c; ++k)                                         \
                    q[k] = q[k] * (p[k] > (T)0 ? (T)1 : (T)0);                            \
        }                                                                                 \
    }                                                                                     \
    return bad | any_##SUF(badv);                                                         \
}

POOL(f32, float, int)
POOL(f64, double, long long)
"""

def available() -> bool:
    """Whether the compiled loops are in use (compiling them if not tried yet)."""
    return native.library(_SOURCE) is not None


_ARGTYPES = {
    "max_pool_tiled": [ctypes.c_void_p] * 2 + [ctypes.c_ssize_t] * 7,
    "max_pool_grad_tiled": [ctypes.c_void_p] * 5 + [ctypes.c_ssize_t] * 7 + [ctypes.c_int],
}


def _fn(kind: str, dtype: np.dtype):
    return native.typed_function(_SOURCE, kind, dtype, ctypes.c_int, _ARGTYPES[kind])


def _tiles(x: np.ndarray, ksizes, strides, pads, outs) -> bool:
    """Whether the compiled loops take ``x``: 4-D, C-contiguous float32/float64, windows
    that tile it exactly (stride = window, no padding)."""
    return (x.ndim == 4 and x.dtype in native.FLOAT_SUFFIXES and x.flags.c_contiguous
            and list(ksizes) == list(strides) and all(tuple(p) == (0, 0) for p in pads)
            and all(o * k == d for o, k, d in zip(outs, ksizes, x.shape[1:-1])))


def max_pool(x: np.ndarray, ksizes, strides, pads, outs) -> np.ndarray | None:
    """Max pooling of windows that tile ``x`` in one compiled pass; None when the loop is
    not available, does not take these arrays, or a window holds NaN."""
    if not _tiles(x, ksizes, strides, pads, outs):
        return None
    fn = _fn("max_pool_tiled", x.dtype)
    if fn is None:
        return None
    n, h, w, c = x.shape
    y = np.empty((n, *outs, c), x.dtype)
    # One thread: a helper's hand-off cost more than it saved (32x28x28x32 float32: 63 us
    # in the caller alone, 130 us split in two on this 2-core machine).
    if fn(x.ctypes.data, y.ctypes.data, 0, n, h, w, c, *ksizes):
        return None
    return y


def max_pool_grad(x: np.ndarray, dy: np.ndarray, ksizes, strides, pads, outs,
                  relu: bool = False) -> np.ndarray | None:
    """MaxPoolGrad of windows that tile ``x`` in one compiled pass (with ``relu``, then
    ReluGrad of that with ``x`` as its features: ``dx * (x > 0)``); None when the loop is
    not available, does not take these arrays, or a window holds NaN."""
    if not _tiles(x, ksizes, strides, pads, outs):
        return None
    fn = _fn("max_pool_grad_tiled", x.dtype)
    if fn is None or dy.dtype != x.dtype:
        return None
    dy = np.ascontiguousarray(dy)
    n, h, w, c = x.shape
    dx = np.empty(x.shape, x.dtype)
    m = np.empty(c, x.dtype)  # scratch of the loop over any channel count
    at = np.empty(c, np.int32 if x.dtype.itemsize == 4 else np.int64)
    if fn(x.ctypes.data, dy.ctypes.data, dx.ctypes.data, m.ctypes.data, at.ctypes.data, 0, n,
          h, w, c, *ksizes, 1 if relu else 0):
        return None
    return dx
