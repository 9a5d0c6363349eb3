"""Relu, ReluGrad and a bias add fused with Relu, in compiled loops (NumPy otherwise).

``np.maximum(x, 0)`` takes NumPy's NaN-propagating path (about 4x the time of an add over
the same array), and ReluGrad's NumPy form is two passes with a mask in between
(nn_ops.py). One loop each does the same arithmetic, compiled on first use by
``tfmini.ops.common.native.library``:

* Relu: ``x`` where ``x > 0`` or ``x`` is NaN (the NaN itself, as ``np.maximum`` returns
  it), else ``+0.0`` (so ``-0.0`` gives ``0.0``, as ``np.maximum(-0.0, 0.0)`` and
  TensorFlow do);
* the bias add fused with Relu (nn_ops.py's fusion): ``x + b`` for a row vector ``b``,
  then Relu as above;
* ReluGrad: ``gradients * (features > 0)``, the product with a 1 or a 0 as the NumPy path
  computes it (a NaN or inf gradient where the mask is 0 stays NaN, a negative one gives
  ``-0.0``).

Same bits as the NumPy path (tested, special values included), except one case: where
both ``x`` and ``b`` are NaN, the sum is NaN either way but its sign bit may come from the
other operand (IEEE leaves the choice open, and the compiler may order the operands of
``+`` differently from NumPy's loop).
"""

from __future__ import annotations

import ctypes

import numpy as np

from tfmini.ops.common import native

__all__: list[str] = []

_SOURCE = r"""
#include <stddef.h>

#define ACT(SUF, T)                                                                       \
void tfmini_relu_##SUF(const T *restrict x, T *restrict y, ptrdiff_t n) {                 \
    for (ptrdiff_t i = 0; i < n; ++i) {                                                   \
        T v = x[i];                                                                       \
        T r = v > (T)0 ? v : (T)0;                                                        \
        y[i] = v != v ? v : r;                                                            \
    }                                                                                     \
}                                                                                         \
                                                                                          \
/* Relu(x + b) for x [rows, c] and b [c]: the add, then Relu as above. */              \
void tfmini_bias_add_relu_##SUF(const T *restrict x, const T *restrict b, T *restrict y,  \
                                ptrdiff_t rows, ptrdiff_t c) {                            \
    for (ptrdiff_t r = 0; r < rows; ++r) {                                                \
        const T *p = x + r * c;                                                           \
        T *q = y + r * c;                                                                 \
        for (ptrdiff_t k = 0; k < c; ++k) {                                               \
            T v = p[k] + b[k];                                                            \
            T z = v > (T)0 ? v : (T)0;                                                    \
            q[k] = v != v ? v : z;                                                        \
        }                                                                                 \
    }                                                                                     \
}                                                                                         \
                                                                                          \
void tfmini_relu_grad_##SUF(const T *restrict g, const T *restrict f, T *restrict out,    \
                            ptrdiff_t n) {                                                \
    for (ptrdiff_t i = 0; i < n; ++i)                                                     \
        out[i] = g[i] * (f[i] > (T)0 ? (T)1 : (T)0);                                      \
}

ACT(f32, float)
ACT(f64, double)
"""

# Below this many elements NumPy's call is as quick as the loop's (a ctypes call costs about
# 2 us; measured equal near 16,384 float32), so small arrays stay with NumPy.
MIN_ELEMENTS = 1 << 15


def available() -> bool:
    """Whether the compiled loops are in use (compiling them if not tried yet)."""
    return native.library(_SOURCE) is not None


_ARGTYPES = {
    "relu": [ctypes.c_void_p] * 2 + [ctypes.c_ssize_t],
    "relu_grad": [ctypes.c_void_p] * 3 + [ctypes.c_ssize_t],
    "bias_add_relu": [ctypes.c_void_p] * 3 + [ctypes.c_ssize_t] * 2,
}


def _fn(kind: str, dtype: np.dtype):
    return native.typed_function(_SOURCE, kind, dtype, None, _ARGTYPES[kind])


def relu(x: np.ndarray) -> np.ndarray | None:
    """``max(x, 0)`` in one compiled pass; None when the loop is not available or ``x`` is
    not a C-contiguous float32/float64 array of at least ``MIN_ELEMENTS``."""
    if x.size < MIN_ELEMENTS:
        return None
    fn = _fn("relu", x.dtype)
    if fn is None or not x.flags.c_contiguous:
        return None
    y = np.empty(x.shape, x.dtype)
    fn(x.ctypes.data, y.ctypes.data, x.size)
    return y


def relu_grad(gradients: np.ndarray, features: np.ndarray) -> np.ndarray | None:
    """``gradients * (features > 0)`` in one compiled pass; None when the loop is not
    available or the two are not C-contiguous arrays of one float32/float64 dtype and
    shape, of at least ``MIN_ELEMENTS``."""
    if gradients.size < MIN_ELEMENTS:
        return None
    fn = _fn("relu_grad", gradients.dtype)
    if (fn is None or features.dtype != gradients.dtype or features.shape != gradients.shape
            or not (gradients.flags.c_contiguous and features.flags.c_contiguous)):
        return None
    out = np.empty(gradients.shape, gradients.dtype)
    fn(gradients.ctypes.data, features.ctypes.data, out.ctypes.data, gradients.size)
    return out


def bias_add_relu(x: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``max(x + b, 0)`` for a vector ``b`` as long as ``x``'s last axis, in one compiled
    pass (the add, then Relu, one IEEE operation each: the bits of ``np.add`` then Relu);
    None when the loop is not available or the arrays are not C-contiguous, of one
    float32/float64 dtype and of those shapes, ``x`` of at least ``MIN_ELEMENTS``."""
    if (x.size < MIN_ELEMENTS or b.ndim != 1 or x.ndim < 1 or x.shape[-1] != b.shape[0]
            or x.dtype != b.dtype or not (x.flags.c_contiguous and b.flags.c_contiguous)):
        return None
    fn = _fn("bias_add_relu", x.dtype)
    if fn is None:
        return None
    y = np.empty(x.shape, x.dtype)
    c = x.shape[-1]
    if c:
        fn(x.ctypes.data, b.ctypes.data, y.ctypes.data, x.size // c, c)
    return y
