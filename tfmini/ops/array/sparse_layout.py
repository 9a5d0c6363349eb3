"""Rearranging SparseTensors (``tensorflow/core/ops/sparse_ops.cc``): SparseReorder
(``sparse_reorder_op.cc``), SparseConcat (``sparse_concat_op.cc``), SparseSlice and its
gradient helper SparseSliceGrad (``sparse_slice_op.cc``, ``sparse_slice_grad_op.cc``), with
TensorFlow's Python functions (``sparse_ops.py``): ``reorder``, ``concat``, ``slice``,
``transpose``, ``from_dense`` and ``to_indicator``. Gradients are in ``sparse_grad``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.array.basic import identity
from tfmini.ops.array.concat_split import concat, stack
from tfmini.ops.array.filling import fill, ones, zeros_like
from tfmini.ops.array.filling import range as range_
from tfmini.ops.array.gather_scatter import gather
from tfmini.ops.array.shape_ops import expand_dims, shape, transpose
from tfmini.ops.array.sparse_kernels_util import row_major_order, sparse_parts
from tfmini.ops.common.build_util import op_scope
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.sparse_tensor import SparseTensor

__all__ = ["sparse_concat", "sparse_reorder", "sparse_slice", "sparse_to_indicator",
           "sparse_transpose"]


def _indices_values_shape(ic) -> list[TensorShape]:
    idx = ic.input_shape("input_indices")
    return [idx, ic.input_shape("input_values")]


# ----------------------------------------------------------------------------------------
# SparseReorder


@register_op(
    "SparseReorder",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64"],
    outputs=["output_indices: int64", "output_values: T"],
    attrs=["T: type"],
    shape_fn=_indices_values_shape,
)
def sparse_reorder_kernel(input_indices, input_values, input_shape):
    """The entries in row-major (canonical) order; equal indices keep their order.

    As TensorFlow's kernel, indices outside the dense shape are sorted, not refused.
    """
    idx, vals, _ = sparse_parts(input_indices, input_values, input_shape)
    order = row_major_order(idx)
    return idx[order], vals[order]


# ----------------------------------------------------------------------------------------
# SparseConcat


@register_op(
    "SparseConcat",
    inputs=["indices: N * int64", "values: N * T", "shapes: N * int64"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["concat_dim: int", "N: int >= 2", "T: type"],
    shape_fn=lambda ic: [TensorShape([None, None]), TensorShape([None]), TensorShape([None])],
)
def sparse_concat_kernel(indices, values, shapes, *, concat_dim):
    """The SparseTensors concatenated along ``concat_dim``, in row-major order."""
    parts = [sparse_parts(i, v, s) for i, v, s in zip(indices, values, shapes)]
    rank = parts[0][2].size
    if not -rank <= concat_dim < rank:
        raise invalid_argument(
            f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    dim = concat_dim % rank
    first = parts[0][2]
    offset = 0
    all_idx, all_vals = [], []
    for k, (idx, vals, dims) in enumerate(parts):
        if dims.size != rank:
            raise invalid_argument(
                f"Ranks of all input tensors must match: expected {rank} but got {dims.size} "
                f"at position {k}")
        for d in range(rank):
            if d != dim and dims[d] != first[d]:
                raise invalid_argument(
                    f"Input shapes must match: expected {int(first[d])} for dimension {d} but "
                    f"got {int(dims[d])} at position {k}")
        shifted = idx.copy()
        shifted[:, dim] += offset
        offset += int(dims[dim])
        all_idx.append(shifted)
        all_vals.append(vals)
    idx = np.concatenate(all_idx)
    vals = np.concatenate(all_vals)
    out_shape = first.copy()
    out_shape[dim] = offset
    order = row_major_order(idx)
    return idx[order], vals[order], out_shape


no_gradient("SparseConcat")  # as TensorFlow (sparse_grad.py)


# ----------------------------------------------------------------------------------------
# SparseSlice, SparseSliceGrad


@register_op(
    "SparseSlice",
    inputs=["indices: int64", "values: T", "shape: int64", "start: int64", "size: int64"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["T: type"],
    shape_fn=lambda ic: [TensorShape([None, ic.input_shape("shape").dims[0]
                                      if ic.input_shape("shape").dims else None]),
                         TensorShape([None]), ic.input_shape("shape")],
)
def sparse_slice_kernel(indices, values, shape, start, size):
    """The entries inside ``[start, start + size)``, shifted by ``start``."""
    idx, vals, dims = sparse_parts(indices, values, shape)
    start = np.asarray(start, np.int64)
    size = np.asarray(size, np.int64)
    if start.shape != dims.shape:
        raise invalid_argument(
            f"Expected start to be a vector of length {dims.size} but got length "
            f"{start.size}")
    if size.shape != dims.shape:
        raise invalid_argument(
            f"Expected size to be a vector of length {dims.size} but got length {size.size}")
    end = np.minimum(start + size, dims)
    out_shape = np.maximum(end - start, 0)
    inside = ((idx >= start) & (idx < end)).all(axis=1)
    return (idx[inside] - start).reshape(-1, dims.size), vals[inside], out_shape


@register_op(
    "SparseSliceGrad",
    inputs=["backprop_val_grad: T", "input_indices: int64", "input_start: int64",
            "output_indices: int64"],
    outputs=["val_grad: T"],
    attrs=["T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, complex64, "
           "complex128}"],
    shape_fn=lambda ic: [TensorShape([ic.input_shape("input_indices").dims[0]
                                      if ic.input_shape("input_indices").dims else None])],
)
def sparse_slice_grad_kernel(backprop_val_grad, input_indices, input_start, output_indices):
    """The sliced entries' gradients put back at their input entries (0 elsewhere)."""
    grad = np.asarray(backprop_val_grad)
    start = np.asarray(input_start, np.int64)
    where = {tuple(r): i for i, r in enumerate((np.asarray(output_indices) + start).tolist())}
    rows = np.asarray(input_indices).tolist()
    if len(where) != grad.shape[0]:
        raise invalid_argument(
            f"backprop_val_grad has {grad.shape[0]} values for {len(where)} output indices: "
            f"{dims_str(grad.shape)}")
    out = np.zeros(len(rows), grad.dtype)
    for i, r in enumerate(rows):
        j = where.get(tuple(r))
        if j is not None:
            out[i] = grad[j]
    return out


no_gradient("SparseSliceGrad")


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _shape_or_identity(sp: SparseTensor):
    # TensorFlow keeps a fully known dense shape static (a Const), else passes it through.
    if sp.shape.is_fully_defined():
        return np.array(sp.shape.as_list(), np.int64)
    return identity(sp.dense_shape)


def sparse_reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The SparseTensor with its entries in row-major order (``tf.sparse.reorder``).

    Args:
        sp_input: A SparseTensor.
        name: Optional op name.

    Returns:
        A SparseTensor of the same dense shape, entries sorted.
    """
    op = build_op(current_scope(), "SparseReorder",
                  [sp_input.indices, sp_input.values, sp_input.dense_shape], name=name)
    return SparseTensor(op.outputs[0], op.outputs[1], _shape_or_identity(sp_input))


def sparse_concat(axis: int, sp_inputs: list, name: str | None = None,
                  expand_nonconcat_dim: bool = False, concat_dim: int | None = None,
                  expand_nonconcat_dims: bool | None = None) -> SparseTensor:
    """Concatenates SparseTensors along ``axis`` (``tf.sparse.concat``, TF1 form).

    Args:
        axis: The dimension to concatenate along.
        sp_inputs: SparseTensors of one rank whose other dimensions match.
        name: Optional op name.
        expand_nonconcat_dim: Not supported in tfmini (must be False).
        concat_dim: Deprecated name of ``axis``.
        expand_nonconcat_dims: Not supported in tfmini.

    Returns:
        The concatenated SparseTensor, in row-major order.

    Raises:
        NotImplementedError: ``expand_nonconcat_dim`` is set.
    """
    if expand_nonconcat_dim or expand_nonconcat_dims:
        raise NotImplementedError("tm.sparse.concat: expand_nonconcat_dims is not supported")
    axis = concat_dim if concat_dim is not None else axis
    sp_inputs = [SparseTensor.from_value(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    op = build_op(current_scope(), "SparseConcat",
                  [[s.indices for s in sp_inputs], [s.values for s in sp_inputs],
                   [s.dense_shape for s in sp_inputs]], {"concat_dim": axis}, name=name)
    out_shape = op.outputs[2]
    shapes = [s.shape for s in sp_inputs]
    if all(sh.is_fully_defined() for sh in shapes):
        dims = list(shapes[0].as_list())
        dims[axis] = sum(sh.as_list()[axis] for sh in shapes)
        out_shape = np.array(dims, np.int64)
    return SparseTensor(op.outputs[0], op.outputs[1], out_shape)


def sparse_slice(sp_input: SparseTensor, start: Any, size: Any,
                 name: str | None = None) -> SparseTensor:
    """The part of a SparseTensor inside ``[start, start + size)`` (``tf.sparse.slice``).

    Args:
        sp_input: A SparseTensor.
        start: int64 start coordinates, one per dimension.
        size: int64 sizes, one per dimension (clipped at the dense shape).
        name: Optional name scope.

    Returns:
        A SparseTensor with indices relative to ``start``.
    """
    with name_scope(name, "SparseSlice", [sp_input]):
        start = convert_to_tensor(start, dtype=dtypes.int64, name="start")
        size = convert_to_tensor(size, dtype=dtypes.int64, name="size")
        op = build_op(current_scope(), "SparseSlice",
                      [sp_input.indices, sp_input.values, sp_input.dense_shape, start, size])
    return SparseTensor(*op.outputs)


def sparse_transpose(sp_input: SparseTensor, perm: Any = None,
                     name: str | None = None) -> SparseTensor:
    """Transposes a SparseTensor (``tf.sparse.transpose``); default: reverse the dimensions.

    Args:
        sp_input: A SparseTensor.
        perm: A permutation of the dimensions.
        name: Optional name scope.

    Returns:
        The transposed SparseTensor, in row-major order.
    """
    with name_scope(name, "SparseTranspose", [sp_input]):
        rank = sp_input.shape.rank
        if perm is None:
            if rank is None:
                raise ValueError("tm.sparse.transpose needs a known rank or an explicit perm")
            perm = np.arange(rank - 1, -1, -1, dtype=np.int32)
        indices = sp_input.indices
        transposed = transpose(gather(transpose(indices), perm))
        perm_value = static_value(convert_to_tensor(perm))
        if perm_value is not None and sp_input.shape.is_fully_defined():
            dims = np.array(sp_input.shape.as_list(), np.int64)[np.asarray(perm_value)]
            dense_shape = dims
        else:
            dense_shape = gather(sp_input.dense_shape, perm)
        return sparse_reorder(SparseTensor(transposed, sp_input.values, dense_shape))


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The SparseTensor of a dense tensor's non-zero entries (``tf.sparse.from_dense``).

    Args:
        tensor: A dense tensor.
        name: Optional name scope.

    Returns:
        A SparseTensor with the same dense shape, entries in row-major order.
    """
    with name_scope(name, "dense_to_sparse", [tensor]):
        tensor = convert_to_tensor(tensor)
        nonzero = build_op(current_scope(), "NotEqual", [tensor, zeros_like(tensor)]).outputs[0]
        indices = build_op(current_scope(), "Where", [nonzero]).outputs[0]
        values = build_op(current_scope(), "GatherNd", [tensor, indices]).outputs[0]
        return SparseTensor(indices, values, shape(tensor, out_type=dtypes.int64))


def sparse_to_indicator(sp_input: SparseTensor, vocab_size: int,
                        name: str | None = None) -> Any:
    """A dense bool tensor marking, per row, the ids present in the last dimension
    (``tf.sparse.to_indicator``).

    Args:
        sp_input: A SparseTensor of int32/int64 ids (rank >= 2).
        vocab_size: The size of the new last dimension.
        name: Optional name scope.

    Returns:
        A bool tensor: ``out[..., id]`` is true where ``id`` occurs in that row.
    """
    with op_scope(name, "SparseToIndicator") as (outer, base):
        num_entries = shape(sp_input.indices)[0]
        ids = sp_input.values
        if ids.dtype != dtypes.int64:
            ids = build_op(current_scope(), "Cast", [ids], {"DstT": dtypes.int64}).outputs[0]
        new_indices = concat([sp_input.indices[:, :-1], expand_dims(ids, 1)], 1)
        new_shape = concat([sp_input.dense_shape[:-1],
                            np.array([vocab_size], np.int64)], 0)
        values = fill(expand_dims(num_entries, 0), True)
        ordered = sparse_reorder(SparseTensor(new_indices, values, new_shape))
        default = convert_to_tensor(False)
    # Duplicate ids in a row are allowed, so the indices are not validated.
    return build_op(outer, "SparseToDense", [ordered.indices, new_shape, ordered.values, default],
                    {"validate_indices": False}, name=base).outputs[0]


def sparse_expand_dims(sp_input: SparseTensor, axis: int | None = None,
                       name: str | None = None) -> SparseTensor:
    """Inserts a dimension of size 1 (``tf.sparse.expand_dims``): a column of zeros in the
    indices and a 1 in the dense shape.

    Args:
        sp_input: A SparseTensor.
        axis: Where the new dimension goes (negative counts from the end; default -1).
        name: Optional name scope.

    Returns:
        A SparseTensor of one more dimension, with the same values.

    Raises:
        ValueError: ``axis`` is negative and the rank is not known when the graph is built.
    """
    axis = -1 if axis is None else int(axis)
    rank = sp_input.shape.rank
    with name_scope(name, "expand_dims", [sp_input]):
        if axis < 0:
            if rank is None:
                raise ValueError("tm.sparse.expand_dims: a negative axis needs a known rank")
            axis += rank + 1
        column = zeros_like(sp_input.indices[:, :1])
        indices = concat([sp_input.indices[:, :axis], column, sp_input.indices[:, axis:]], 1)
        dense_shape = concat([sp_input.dense_shape[:axis], np.array([1], np.int64),
                              sp_input.dense_shape[axis:]], 0)
        return SparseTensor(indices, sp_input.values, dense_shape)


def sparse_eye(num_rows: Any, num_columns: Any = None, dtype: Any = dtypes.float32,
               name: str | None = None) -> SparseTensor:
    """A SparseTensor identity matrix, ones on the diagonal (``tf.sparse.eye``).

    Args:
        num_rows: The number of rows.
        num_columns: The number of columns (default: num_rows).
        dtype: The values' dtype.
        name: Optional name scope.

    Returns:
        A ``[num_rows, num_columns]`` SparseTensor.
    """

    with name_scope(name, "eye", [num_rows, num_columns]):
        rows = convert_to_tensor(num_rows, dtype=dtypes.int64, name="num_rows")
        cols = rows if num_columns is None else convert_to_tensor(
            num_columns, dtype=dtypes.int64, name="num_columns")
        size = build_op(current_scope(), "Minimum", [rows, cols]).outputs[0]
        diag = range_(size, dtype=dtypes.int64)
        return SparseTensor(stack([diag, diag], axis=1), ones(
            expand_dims(size, 0), dtype=dtype), stack([rows, cols]))
