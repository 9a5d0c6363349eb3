"""``tm.sparse``: the SparseTensor type and the sparse functions, as ``tf.compat.v1.sparse``.

A thin namespace: :class:`SparseTensor` lives in ``tfmini/ops/common/sparse_tensor.py`` and the
ops in the array family (``tfmini/ops/array/sparse_ops.py``, ``sparse_math.py``,
``sparse_layout.py``, ``segment_ops.py``).
"""

from __future__ import annotations

from tfmini.ops.array import (
    from_dense,
    sparse_add,
    sparse_concat,
    sparse_expand_dims,
    sparse_eye,
    sparse_fill_empty_rows,
    sparse_maximum,
    sparse_minimum,
    sparse_placeholder,
    sparse_reduce_max,
    sparse_reduce_max_sparse,
    sparse_reduce_sum,
    sparse_reduce_sum_sparse,
    sparse_reorder,
    sparse_reshape,
    sparse_retain,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    sparse_slice,
    sparse_softmax,
    sparse_tensor_dense_matmul,
    sparse_tensor_to_dense,
    sparse_to_indicator,
    sparse_transpose,
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
add = sparse_add
reduce_sum = sparse_reduce_sum
reduce_max = sparse_reduce_max
reduce_max_sparse = sparse_reduce_max_sparse
reduce_sum_sparse = sparse_reduce_sum_sparse
sparse_dense_matmul = sparse_tensor_dense_matmul
matmul = sparse_tensor_dense_matmul
reorder = sparse_reorder
concat = sparse_concat
slice = sparse_slice  # noqa: A001  (tf.sparse.slice)
transpose = sparse_transpose
to_indicator = sparse_to_indicator
expand_dims = sparse_expand_dims
eye = sparse_eye
maximum = sparse_maximum
minimum = sparse_minimum
softmax = sparse_softmax

__all__ = ["SparseTensor", "SparseTensorValue", "add", "concat", "expand_dims", "eye",
           "fill_empty_rows", "from_dense", "matmul", "maximum", "minimum", "placeholder",
           "reduce_max", "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse", "reorder",
           "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice",
           "softmax", "sparse_dense_matmul", "to_dense", "to_indicator", "transpose"]
