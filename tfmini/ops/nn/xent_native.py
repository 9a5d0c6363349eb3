"""SparseSoftmaxCrossEntropyWithLogits in one compiled loop (NumPy otherwise).

The NumPy kernel (nn_ops.py) makes about a dozen calls for a batch of logits: the labels'
range, the row maxima, the shift, ``exp``, the row sums, ``log``, two fancy-indexed reads
and writes. For a classifier's batch (32 x 10 logits) that is 14 us of calls on a few
hundred numbers, and 20-30 us inside a training step whose products keep evicting the
interpreter's working set from the caches (docs/performance.md). One loop per row does
the same arithmetic, compiled on first use by ``tfmini.ops.common.native.library``:

* the row maximum ``m`` (NaN if the row holds one, as ``np.max``), the shifted logits
  ``s = x - m`` and ``e = exp(s)``, their sum ``z``;
* ``loss = log(z) - s[label]``, ``backprop = e / z``, less 1 at the label.

The same operations in the same order as the NumPy path but two: ``exp`` and ``log`` are
the C library's (NumPy has its own vectorized ones) and ``z`` is summed left to right in
double precision, then rounded (NumPy sums pairwise in the input's type, in blocks of
eight; summed in float, a row of 1,000 float32 logits drifted 2.5e-6 from it). The
results agree with the NumPy path's within a few units in the last place
(``tests/ops/nn/test_xent_native.py``); TensorFlow's Eigen kernels differ from both by as
much. A label out of range makes the loop return before anything is written, and the
NumPy path then raises TensorFlow's error; float16 (computed in float32 and rounded) and
empty batches stay with NumPy.
"""

from __future__ import annotations

import ctypes

import numpy as np

from tfmini.ops.common import native

__all__: list[str] = []

_SOURCE = r"""
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define XENT(SUF, T, ACC, EXP, LOG, LSUF, L)                                              \
ptrdiff_t tfmini_sparse_xent_##SUF##_##LSUF(const T *restrict x, const L *restrict labels,  \
                                          T *restrict loss, T *restrict backprop,        \
                                          ptrdiff_t rows, ptrdiff_t classes) {           \
    for (ptrdiff_t r = 0; r < rows; ++r)                                                \
        if (labels[r] < 0 || labels[r] >= classes) return r;                            \
    for (ptrdiff_t r = 0; r < rows; ++r) {                                              \
        const T *p = x + r * classes;                                                   \
        T *b = backprop + r * classes;                                                  \
        T m = p[0];                                                                     \
        for (ptrdiff_t k = 1; k < classes && m == m; ++k)                               \
            if (p[k] > m || p[k] != p[k]) m = p[k];                                     \
        ACC sum = 0;                                                                    \
        for (ptrdiff_t k = 0; k < classes; ++k) {                                       \
            T e = EXP(p[k] - m);                                                        \
            b[k] = e;                                                                   \
            sum += e;                                                                   \
        }                                                                               \
        T z = (T)sum;                                                                   \
        ptrdiff_t label = (ptrdiff_t)labels[r];                                         \
        loss[r] = LOG(z) - (p[label] - m);                                              \
        for (ptrdiff_t k = 0; k < classes; ++k) b[k] = b[k] / z;                        \
        b[label] -= (T)1;                                                               \
    }                                                                                   \
    return -1;                                                                          \
}

XENT(f32, float, double, expf, logf, i64, int64_t)
XENT(f32, float, double, expf, logf, i32, int32_t)
XENT(f64, double, double, exp, log, i64, int64_t)
XENT(f64, double, double, exp, log, i32, int32_t)
"""

_ARGTYPES = [ctypes.c_void_p] * 4 + [ctypes.c_ssize_t] * 2
_LABEL_SUFFIXES = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32"}
_fns: dict = {}


def available() -> bool:
    """Whether the compiled loop is in use (compiling it if not tried yet)."""
    return native.library(_SOURCE) is not None


def _fn(dtype: np.dtype, label_dtype: np.dtype):
    key = (dtype, label_dtype)
    fn = _fns.get(key)
    if fn is None:
        suffix = native.FLOAT_SUFFIXES.get(dtype)
        lsuffix = _LABEL_SUFFIXES.get(label_dtype)
        lib = native.library(_SOURCE) if suffix and lsuffix else None
        if lib is None:
            return None
        fn = getattr(lib, f"tfmini_sparse_xent_{suffix}_{lsuffix}")
        fn.restype = ctypes.c_ssize_t
        fn.argtypes = _ARGTYPES
        _fns[key] = fn
    return fn


def sparse_xent(features: np.ndarray, labels: np.ndarray):
    """``(loss, backprop)`` of 2-D float32/float64 ``features`` against int32/int64
    ``labels`` (one per row, the shapes already checked); None when the loop is not
    available, the arrays are not C-contiguous or empty, or a label is out of range (the
    NumPy path then raises)."""
    rows, classes = features.shape
    if not rows or not classes:
        return None
    fn = _fn(features.dtype, labels.dtype)
    if fn is None or not (features.flags.c_contiguous and labels.flags.c_contiguous):
        return None
    loss = np.empty(rows, features.dtype)
    backprop = np.empty((rows, classes), features.dtype)
    if fn(features.ctypes.data, labels.ctypes.data, loss.ctypes.data, backprop.ctypes.data,
          rows, classes) >= 0:
        return None
    return loss, backprop
