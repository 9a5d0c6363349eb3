"""The sparse ops the embedding functions need (``tensorflow/core/ops/sparse_ops.cc``,
``array_ops.cc``): SparseToDense (``sparse_to_dense_op.cc``), SparseFillEmptyRows and its
gradient (``sparse_fill_empty_rows_op.cc``), SparseReshape (``reshape_util.cc``) and Where
(``where_op.cc``), with TensorFlow's Python functions over
:class:`~tfmini.ops.common.sparse_tensor.SparseTensor` (``sparse_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, name_scope, scope_context
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.array.basic import identity, placeholder, placeholder_with_default
from tfmini.ops.array.gather_scatter import gather
from tfmini.ops.array.shape_ops import reshape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import op_scope
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.sparse_tensor import SparseTensor

__all__ = ["sparse_fill_empty_rows", "sparse_placeholder", "sparse_reshape", "sparse_retain",
           "sparse_tensor_to_dense", "sparse_to_dense"]


def _sparse_to_dense_shape(ic) -> list[TensorShape]:
    return [shape_fns.shape_from_shape_tensor(ic, "output_shape")]


@register_op(
    "SparseToDense",
    inputs=["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
            "default_value: T"],
    outputs=["dense: T"],
    attrs=["validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"],
    shape_fn=_sparse_to_dense_shape,
)
def sparse_to_dense_kernel(sparse_indices, output_shape, sparse_values, default_value, *,
                           validate_indices):
    """A dense tensor of ``default_value`` with ``sparse_values`` at ``sparse_indices``."""
    idx = np.asarray(sparse_indices)
    shape = np.asarray(output_shape)
    values = np.asarray(sparse_values)
    default = np.asarray(default_value)
    if idx.ndim > 2:
        raise invalid_argument(
            f"sparse_indices should be a scalar, vector, or matrix, got shape "
            f"{dims_str(idx.shape)}")
    if shape.ndim > 1:
        raise invalid_argument(
            f"output_shape should be a scalar or vector, got shape {dims_str(shape.shape)}")
    num = idx.shape[0] if idx.ndim > 0 else 1
    rank = shape.size
    idx2 = idx.reshape(num, -1) if idx.ndim else idx.reshape(1, 1)
    if idx2.shape[1] != rank:
        raise invalid_argument(
            f"sparse_indices should have {rank} columns (the rank of output_shape), got "
            f"{idx2.shape[1]}")
    if values.ndim > 1 or (values.ndim == 1 and values.size != num):
        raise invalid_argument(
            f"sparse_values has incorrect shape {dims_str(values.shape)}, should be [] or "
            f"[{num}]")
    if default.ndim != 0:
        raise invalid_argument("default_value should be a scalar.")
    dims = [int(d) for d in shape.reshape(-1)]
    out = np.full(dims, default, values.dtype)
    if num == 0:
        return out
    bad = np.flatnonzero(((idx2 < 0) | (idx2 >= np.array(dims, np.int64))).any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"indices[{i}] = [{','.join(str(int(v)) for v in idx2[i])}] is out of bounds: "
            f"need 0 <= index < [{','.join(str(d) for d in dims)}]")
    if validate_indices and num > 1:
        flat = np.ravel_multi_index(tuple(idx2.T.astype(np.int64)), dims)
        order = np.diff(flat)
        if (order <= 0).any():
            i = int(np.flatnonzero(order <= 0)[0]) + 1
            kind = "repeated" if order[i - 1] == 0 else "out of order"
            # TensorFlow adds a hint to the out-of-order message only.
            hint = ". Many sparse ops require sorted indices." if kind == "out of order" else ""
            raise invalid_argument(
                f"indices[{i}] = [{','.join(str(int(v)) for v in idx2[i])}] is {kind}{hint}")
    out[tuple(idx2.T.astype(np.int64))] = values
    return out


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any,
                    default_value: Any = 0, validate_indices: bool = True,
                    name: str | None = None) -> Output:
    """A dense tensor from sparse indices and values (``tf.sparse_to_dense``)."""
    values = convert_to_tensor(sparse_values)
    default = convert_to_tensor(default_value, dtype=values.dtype)
    op = build_op(current_scope(), "SparseToDense",
                  [sparse_indices, output_shape, values, default],
                  {"validate_indices": validate_indices}, name=name)
    return op.outputs[0]


def sparse_tensor_to_dense(sp_input: SparseTensor, default_value: Any = None,
                           validate_indices: bool = True, name: str | None = None) -> Output:
    """The dense tensor a SparseTensor stands for (``tf.sparse.to_dense``)."""
    if default_value is None:
        # TensorFlow's default is the type's zero: "" for strings.
        default_value = (np.array(b"", dtype=object) if sp_input.dtype == dtypes.string
                         else np.zeros((), sp_input.dtype.np_dtype))
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                           default_value=default_value, validate_indices=validate_indices,
                           name=name)


def sparse_placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> SparseTensor:
    """A SparseTensor of placeholders to feed a SparseTensorValue
    (``tf.compat.v1.sparse_placeholder``): ``<name>/values``, ``<name>/indices`` and
    ``<name>/shape`` (a placeholder with the given shape as its default when ``shape`` is
    given; unknown dimensions are -1)."""
    sub = (lambda part: None) if name is None else (lambda part: f"{name}/{part}")
    if shape is None:
        dense_shape = placeholder(dtypes.int64, [None], name=sub("shape"))
        rank = None
    else:
        dims = TensorShape(shape).dims
        rank = len(dims)
        default = np.array([-1 if d is None else d for d in dims], np.int64)
        dense_shape = placeholder_with_default(default, [rank], name=sub("shape"))
    values = placeholder(dtype, [None], name=sub("values"))
    indices = placeholder(dtypes.int64, [None, rank], name=sub("indices"))
    return SparseTensor(indices, values, dense_shape)


# ----------------------------------------------------------------------------------------
# SparseFillEmptyRows, SparseFillEmptyRowsGrad


def _fill_empty_rows_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape("indices"), 2)
    shape_fns.with_rank(ic.input_shape("values"), 1)
    shape_fns.with_rank(ic.input_shape("dense_shape"), 1)
    shape_fns.with_rank(ic.input_shape("default_value"), 0)
    idx = ic.input_shape("indices")
    n = ic.input_shape("values").dims[0] if ic.input_shape("values").dims else None
    return [TensorShape([None, idx.dims[1] if idx.dims else None]), TensorShape([None]),
            TensorShape([None]), TensorShape([n])]


@register_op(
    "SparseFillEmptyRows",
    inputs=["indices: int64", "values: T", "dense_shape: int64", "default_value: T"],
    outputs=["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
             "reverse_index_map: int64"],
    attrs=["T: type"],
    shape_fn=_fill_empty_rows_shape,
)
def sparse_fill_empty_rows_kernel(indices, values, dense_shape, default_value):
    """Adds ``default_value`` at ``[row, 0, ...]`` for every row with no entry."""
    idx, vals = np.asarray(indices), np.asarray(values)
    shape, default = np.asarray(dense_shape), np.asarray(default_value)
    if shape.ndim != 1:
        raise invalid_argument(f"dense_shape must be a vector, saw: {dims_str(shape.shape)}")
    if idx.ndim != 2:
        raise invalid_argument(f"indices must be a matrix, saw: {dims_str(idx.shape)}")
    if vals.ndim != 1:
        raise invalid_argument(f"values must be a vector, saw: {dims_str(vals.shape)}")
    if default.ndim != 0:
        raise invalid_argument(
            f"default_value must be a scalar, saw: {dims_str(default.shape)}")
    n = idx.shape[0]
    if vals.shape[0] != n:
        raise invalid_argument(
            f"The length of `values` ({vals.shape[0]}) must match the first dimension of "
            f"`indices` ({n}).")
    if shape.size == 0:
        raise invalid_argument("Dense shape must be at least rank 1.")
    dense_rows = int(shape[0])
    if dense_rows == 0:
        if n:
            raise invalid_argument(
                f"Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {n}")
        return (np.zeros((0, shape.size), np.int64), vals[:0].copy(), np.zeros(0, bool),
                np.zeros(0, np.int64))
    rows = idx[:, 0].astype(np.int64) if n else np.zeros(0, np.int64)
    bad = np.flatnonzero((rows < 0) | (rows >= dense_rows))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"indices({i}, 0) is invalid: {rows[i]} {'<' if rows[i] < 0 else '>='} "
            f"{0 if rows[i] < 0 else dense_rows}")
    counts = np.bincount(rows, minlength=dense_rows)
    empty = counts == 0
    # Each row's entries keep their input order; an empty row gets one default entry.
    order = np.argsort(rows, kind="stable")
    slots = np.maximum(counts, 1)
    starts = np.concatenate([[0], np.cumsum(slots)[:-1]])
    total = int(slots.sum())
    out_idx = np.zeros((total, shape.size), np.int64)
    out_vals = np.empty(total, vals.dtype)
    reverse = np.empty(n, np.int64)
    within = np.arange(n) - np.concatenate([[0], np.cumsum(counts)[:-1]])[rows[order]]
    pos = starts[rows[order]] + within
    reverse[order] = pos
    out_idx[pos] = idx[order]
    out_vals[pos] = vals[order]
    empty_rows = np.flatnonzero(empty)
    out_idx[starts[empty_rows], 0] = empty_rows
    out_vals[starts[empty_rows]] = default
    return out_idx, out_vals, empty, reverse


@register_op(
    "SparseFillEmptyRowsGrad",
    inputs=["reverse_index_map: int64", "grad_values: T"],
    outputs=["d_values: T", "d_default_value: T"],
    attrs=["T: type"],
    shape_fn=lambda ic: [ic.input_shape("reverse_index_map"), TensorShape([])],
)
def sparse_fill_empty_rows_grad_kernel(reverse_index_map, grad_values):
    """The values' gradient (gathered back) and the default value's (the rest, summed)."""
    rmap, g = np.asarray(reverse_index_map), np.asarray(grad_values)
    if rmap.ndim != 1:
        raise invalid_argument(
            f"reverse_index_map must be a vector, saw: {dims_str(rmap.shape)}")
    if g.ndim != 1:
        raise invalid_argument(f"grad_values must be a vector, saw: {dims_str(g.shape)}")
    bad = np.flatnonzero((rmap < 0) | (rmap >= g.size))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"Elements in reverse index must be in [0, {g.size}) but got {rmap[i]}")
    d_values = g[rmap]
    visited = np.zeros(g.size, bool)
    visited[rmap] = True
    return d_values, g[~visited].sum(dtype=g.dtype)


no_gradient("SparseFillEmptyRowsGrad")


def sparse_fill_empty_rows(sp_input: SparseTensor, default_value: Any,
                           name: str | None = None):
    """Fills empty rows with ``default_value`` (``tf.sparse.fill_empty_rows``).

    Returns:
        ``(SparseTensor, empty_row_indicator)``.
    """
    with name_scope(name, "SparseFillEmptyRows"):
        default = convert_to_tensor(default_value, dtype=sp_input.dtype)
        op = build_op(current_scope(), "SparseFillEmptyRows",
                      [sp_input.indices, sp_input.values, sp_input.dense_shape, default])
        out = op.outputs
        return SparseTensor(out[0], out[1], sp_input.dense_shape), out[2]


# ----------------------------------------------------------------------------------------
# SparseReshape


@register_op(
    "SparseReshape",
    inputs=["input_indices: int64", "input_shape: int64", "new_shape: int64"],
    outputs=["output_indices: int64", "output_shape: int64"],
    shape_fn=lambda ic: [
        TensorShape([shape_fns.with_rank(ic.input_shape("input_indices"), 2).dims[0],
                     shape_fns.with_rank(ic.input_shape("new_shape"), 1).dims[0]]),
        TensorShape([ic.input_shape("new_shape").dims[0]])],
)
def sparse_reshape_kernel(input_indices, input_shape, new_shape):
    """The same entries at the coordinates of the reshaped dense tensor."""
    idx, old, new = (np.asarray(a, np.int64) for a in (input_indices, input_shape, new_shape))
    if idx.ndim != 2:
        raise invalid_argument(
            f"Input indices should be a matrix but received shape {dims_str(idx.shape)}")
    if old.ndim != 1 or new.ndim != 1:
        raise invalid_argument("Input shape and target shape should be vectors")
    dense = int(np.prod(old))
    unknown = np.flatnonzero(new == -1)
    if unknown.size > 1:
        raise invalid_argument(
            f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}")
    out = new.copy()
    known = int(np.prod(new[new != -1]))
    if unknown.size:
        if known == 0 or dense % known:
            raise invalid_argument(
                f"Input to reshape is a SparseTensor with {dense} dense values, but the "
                f"requested shape requires a multiple of {known}")
        out[unknown[0]] = dense // known
    elif known != dense:
        raise invalid_argument(
            f"Input to reshape is a tensor with {dense} dense values, but the requested "
            f"shape has {known}")
    if idx.shape[0] == 0:
        return np.zeros((0, out.size), np.int64), out
    linear = np.ravel_multi_index(tuple(idx.T), tuple(old))
    return np.stack(np.unravel_index(linear, tuple(out)), axis=1).astype(np.int64), out


no_gradient("SparseReshape")


def sparse_reshape(sp_input: SparseTensor, shape: Any, name: str | None = None):
    """The SparseTensor reshaped (``tf.sparse.reshape``)."""
    with op_scope(name, "SparseReshape") as (outer, base):
        shape = convert_to_tensor(shape, dtype=dtypes.int64, name="new_shape")
        op = build_op(outer, "SparseReshape", [sp_input.indices, sp_input.dense_shape, shape],
                      name=base)
        reshaped_shape = op.outputs[1]
        # TensorFlow's sparse_ops.py: with both shapes known when the graph is built, the new
        # dense shape is a constant (and a wrong element count is a build-time ValueError).
        new = static_value(shape)
        old = sp_input.shape
        if new is not None and old.is_fully_defined():
            dims = [int(d) for d in np.asarray(new).reshape(-1)]
            if sum(d == -1 for d in dims) > 1:
                raise ValueError(
                    f"At most one dimension can be unknown, but got "
                    f"{sum(d == -1 for d in dims)}")
            size = int(np.prod(old.as_list()))
            known = int(np.prod([d for d in dims if d != -1]))
            if -1 in dims and known and size % known == 0:
                dims[dims.index(-1)] = size // known
            if -1 not in dims:
                if int(np.prod(dims)) != size:
                    raise ValueError(
                        f"Cannot reshape a tensor with {size} elements to shape {dims} "
                        f"({int(np.prod(dims))} elements).")
                with scope_context(outer):
                    with name_scope(base + "/"):
                        reshaped_shape = convert_to_tensor(np.array(dims, np.int64))
        with scope_context(outer):
            with name_scope(base + "/"):
                values = identity(sp_input.values)
    return SparseTensor(op.outputs[0], values, reshaped_shape)




def sparse_retain(sp_input: SparseTensor, to_retain: Any) -> SparseTensor:
    """The entries where ``to_retain`` (a bool vector, one per entry) is true
    (``tf.sparse.retain``)."""
    to_retain = convert_to_tensor(to_retain)
    if to_retain.shape.dims is not None and to_retain.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {to_retain.shape.rank}")
    where_true = reshape(build_op(current_scope(), "Where", [to_retain]).outputs[0], [-1])
    return SparseTensor(gather(sp_input.indices, where_true),
                        gather(sp_input.values, where_true), identity(sp_input.dense_shape))
