"""The column sums of a ``[rows, c]`` array (``Sum`` over every axis but the last: a bias
gradient) in a loop compiled on first use (NumPy otherwise).

NumPy runs it as an outer loop over rows around an inner loop of ``c`` elements, which for
a few dozen channels costs more in per-row overhead than in arithmetic. The compiled loop
(``tfmini.ops.common.native.library``) adds the rows in order into a zeroed accumulator,
one float add at a time: the order NumPy's reduction takes when the kept axis is the
contiguous inner one (for ``c >= 2``; a single column is summed pairwise, so it stays with
NumPy). So the bits are the same as before (TensorFlow's Eigen reduction sums in another
order: the goldens compare within float tolerance).
"""

from __future__ import annotations

import ctypes

import numpy as np

from tfmini.ops.common import native

__all__: list[str] = []

_SOURCE = r"""
#include <stddef.h>

#define ROWS(SUF, T)                                                                      \
void tfmini_column_sums_##SUF(const T *restrict x, T *restrict out, ptrdiff_t rows,       \
                              ptrdiff_t c) {                                              \
    for (ptrdiff_t k = 0; k < c; ++k) out[k] = 0;                                         \
    for (ptrdiff_t r = 0; r < rows; ++r) {                                                \
        const T *p = x + r * c;                                                           \
        for (ptrdiff_t k = 0; k < c; ++k) out[k] += p[k];                                 \
    }                                                                                     \
}

ROWS(f32, float)
ROWS(f64, double)
"""

# Below this many elements NumPy's reduction is as quick (a ctypes call costs about 2 us).
MIN_ELEMENTS = 1 << 11


def available() -> bool:
    """Whether the compiled loops are in use (compiling them if not tried yet)."""
    return native.library(_SOURCE) is not None


_ARGTYPES = [ctypes.c_void_p] * 2 + [ctypes.c_ssize_t] * 2


def _fn(kind: str, dtype: np.dtype):
    return native.typed_function(_SOURCE, kind, dtype, None, _ARGTYPES)


def column_sums(x: np.ndarray) -> np.ndarray | None:
    """The sum over every axis of ``x`` but the last (shape ``[c]``), rows added in order;
    None when the loop is not available or ``x`` is not a C-contiguous float32/float64
    array of rank 2 or more with at least 2 columns and ``MIN_ELEMENTS``."""
    if x.size < MIN_ELEMENTS or x.ndim < 2 or x.shape[-1] < 2 or not x.flags.c_contiguous:
        return None
    fn = _fn("column_sums", x.dtype)
    if fn is None:
        return None
    c = x.shape[-1]
    out = np.empty(c, x.dtype)
    fn(x.ctypes.data, out.ctypes.data, x.size // c, c)
    return out

