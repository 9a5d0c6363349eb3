"""``tm.sparse``: the SparseTensor type and the sparse functions tfmini has so far, as
``tf.compat.v1.sparse``.

A thin namespace: :class:`SparseTensor` lives in ``tfmini/ops/common/sparse_tensor.py`` and the
ops in the array family (``tfmini/ops/array/sparse_ops.py``, ``segment_ops.py``).
"""

from __future__ import annotations

from tfmini.ops.array import (
    sparse_fill_empty_rows,
    sparse_placeholder,
    sparse_reshape,
    sparse_retain,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    sparse_tensor_to_dense,
)
from tfmini.ops.common.sparse_tensor import SparseTensor, SparseTensorValue

to_dense = sparse_tensor_to_dense
fill_empty_rows = sparse_fill_empty_rows
reshape = sparse_reshape
retain = sparse_retain
placeholder = sparse_placeholder
segment_sum = sparse_segment_sum
segment_mean = sparse_segment_mean
segment_sqrt_n = sparse_segment_sqrt_n

__all__ = ["SparseTensor", "SparseTensorValue", "fill_empty_rows", "placeholder", "reshape",
           "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "to_dense"]
