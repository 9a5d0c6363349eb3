"""Checks and orderings the sparse kernels share (TensorFlow's ``sparse_tensor.h``:
``IndicesValid``, row-major ``Reorder``)."""

from __future__ import annotations

import numpy as np

from tfmini.core.shapes import dims_str
from tfmini.ops.common.kernel_util import invalid_argument


def sparse_parts(indices, values, shape, what: str = "input"):
    """The three parts as arrays, with TensorFlow's shape checks."""
    idx = np.asarray(indices, np.int64)
    vals = np.asarray(values)
    dims = np.asarray(shape, np.int64)
    if idx.ndim != 2:
        raise invalid_argument(
            f"{what}_indices should be a matrix but received shape {dims_str(idx.shape)}")
    if vals.ndim != 1:
        raise invalid_argument(
            f"{what}_values should be a vector but received shape {dims_str(vals.shape)}")
    if dims.ndim != 1:
        raise invalid_argument(
            f"{what}_shape should be a vector but received shape {dims_str(dims.shape)}")
    if idx.shape[0] != vals.shape[0]:
        raise invalid_argument(
            f"Expected {idx.shape[0]} non-empty {what} values, got {vals.shape[0]}")
    if idx.shape[1] != dims.shape[0]:
        raise invalid_argument(
            f"Expected {what}_indices with {dims.shape[0]} columns (the rank of {what}_shape), "
            f"got {idx.shape[1]}")
    return idx, vals, dims


def check_in_bounds(idx: np.ndarray, dims: np.ndarray) -> None:
    """TensorFlow's out-of-bounds message for the first bad index."""
    if not idx.size:
        return
    bad = np.flatnonzero(((idx < 0) | (idx >= dims)).any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"indices[{i}] = [{','.join(str(int(v)) for v in idx[i])}] is out of bounds: "
            f"need 0 <= index < [{','.join(str(int(d)) for d in dims)}]")


def row_major_order(idx: np.ndarray) -> np.ndarray:
    """The stable permutation that sorts the index rows lexicographically."""
    if idx.shape[0] == 0 or idx.shape[1] == 0:
        return np.arange(idx.shape[0])
    return np.lexsort(idx.T[::-1])


def linear_keys(idx: np.ndarray, dims: np.ndarray) -> np.ndarray:
    """Row-major linear positions of in-bounds indices (object ints when int64 overflows)."""
    if idx.shape[0] == 0:
        return np.zeros(0, np.int64)
    total = 1
    for d in dims.tolist():
        total *= max(int(d), 1)
    if total < 2 ** 62:  # the common case: int64 arithmetic, no overflow possible
        strides64 = np.ones(len(dims), np.int64)
        for k in range(len(dims) - 2, -1, -1):
            strides64[k] = strides64[k + 1] * max(int(dims[k + 1]), 1)
        return idx @ strides64
    strides = np.ones(len(dims), dtype=object)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = strides[k + 1] * int(dims[k + 1])
    keys = (idx.astype(object) * strides).sum(axis=1)
    try:
        return keys.astype(np.int64)
    except OverflowError:
        return keys
