"""Arithmetic on SparseTensors (``tensorflow/core/ops/sparse_ops.cc``): SparseAdd and its
gradient helper SparseAddGrad (``sparse_add_op.cc``, ``sparse_add_grad_op.cc``),
SparseTensorDenseAdd, SparseReduceSum / SparseReduceSumSparse (``sparse_reduce_op.cc``) and
SparseTensorDenseMatMul (``sparse_tensor_dense_matmul_op.cc``), with TensorFlow's Python
functions (``sparse_ops.py``). Gradients are in ``sparse_grad``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.array.sparse_kernels_util import (
    check_in_bounds,
    linear_keys,
    sparse_parts,
)
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.sparse_tensor import SparseTensor
from tfmini.ops.common.type_lists import NUMBER_TYPES, REAL_TYPES

__all__ = ["sparse_add", "sparse_maximum", "sparse_minimum", "sparse_reduce_max",
           "sparse_reduce_max_sparse", "sparse_reduce_sum", "sparse_reduce_sum_sparse",
           "sparse_softmax", "sparse_tensor_dense_matmul"]

_SPARSE_OUT = lambda ic: [TensorShape([None, None]), TensorShape([None]),  # noqa: E731
                          TensorShape([None])]


def _check_same_shape(a_shape: np.ndarray, b_shape: np.ndarray) -> None:
    if a_shape.shape != b_shape.shape:
        raise invalid_argument(
            f"Operands do not have the same ranks; got shapes: {dims_str(a_shape)} and "
            f"{dims_str(b_shape)}")
    for d, (x, y) in enumerate(zip(a_shape.tolist(), b_shape.tolist())):
        if x != y:
            raise invalid_argument(
                f"Operands' shapes do not match: got {x} and {y} for dimension {d}")


# ----------------------------------------------------------------------------------------
# SparseAdd, SparseAddGrad, SparseTensorDenseAdd


@register_op(
    "SparseAdd",
    inputs=["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
            "b_values: T", "b_shape: int64", "thresh: Treal"],
    outputs=["sum_indices: int64", "sum_values: T", "sum_shape: int64"],
    attrs=[f"T: {{{NUMBER_TYPES}}}", f"Treal: {{{REAL_TYPES}}}"],
    shape_fn=_SPARSE_OUT,
)
def sparse_add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    """A + B for two ordered SparseTensors; a sum of two entries is kept when its magnitude
    is at least ``thresh`` (entries present in one operand only are always kept)."""
    ai, av, ashape = sparse_parts(a_indices, a_values, a_shape, "a")
    bi, bv, bshape = sparse_parts(b_indices, b_values, b_shape, "b")
    if np.ndim(thresh) != 0:
        raise invalid_argument(
            f"The magnitude threshold must be a scalar: got shape {dims_str(np.shape(thresh))}")
    _check_same_shape(ashape, bshape)
    idx = np.concatenate([ai, bi])
    vals = np.concatenate([av, bv])
    keys = linear_keys(idx, ashape)
    order = np.argsort(keys, kind="stable")  # a's entry first where both have one
    idx, vals, keys = idx[order], vals[order], keys[order]
    keep = np.ones(len(keys), bool)
    if len(keys) > 1:
        dup = np.flatnonzero(keys[1:] == keys[:-1])  # pairs (i, i + 1): a then b
        vals = vals.copy()
        vals[dup] = vals[dup] + vals[dup + 1]
        keep[dup + 1] = False
        small = dup[np.abs(vals[dup]) < thresh]
        keep[small] = False
    return idx[keep].reshape(-1, ashape.size), vals[keep], ashape


@register_op(
    "SparseAddGrad",
    inputs=["backprop_val_grad: T", "a_indices: int64", "b_indices: int64",
            "sum_indices: int64"],
    outputs=["a_val_grad: T", "b_val_grad: T"],
    attrs=[f"T: {{{NUMBER_TYPES}}}"],
    shape_fn=lambda ic: [TensorShape([ic.input_shape("a_indices").dims[0]
                                      if ic.input_shape("a_indices").dims else None]),
                         TensorShape([ic.input_shape("b_indices").dims[0]
                                      if ic.input_shape("b_indices").dims else None])],
)
def sparse_add_grad_kernel(backprop_val_grad, a_indices, b_indices, sum_indices):
    """Each operand entry's gradient is that of the sum entry at its index (0 if dropped)."""
    grad = np.asarray(backprop_val_grad)
    where = {tuple(r): i for i, r in enumerate(np.asarray(sum_indices).tolist())}
    outs = []
    for idx in (a_indices, b_indices):
        rows = np.asarray(idx).tolist()
        out = np.zeros(len(rows), grad.dtype)
        for i, r in enumerate(rows):
            j = where.get(tuple(r))
            if j is not None:
                out[i] = grad[j]
        outs.append(out)
    return outs


no_gradient("SparseAddGrad")


@register_op(
    "SparseTensorDenseAdd",
    inputs=["a_indices: Tindices", "a_values: T", "a_shape: Tindices", "b: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{NUMBER_TYPES}}}", "Tindices: {int32, int64}"],
    shape_fn=lambda ic: [ic.input_shape("b")],
)
def sparse_tensor_dense_add_kernel(a_indices, a_values, a_shape, b):
    """The dense ``b`` plus the SparseTensor A."""
    ai, av, ashape = sparse_parts(a_indices, a_values, a_shape, "a")
    dense = np.asarray(b)
    if ashape.size != dense.ndim:
        raise invalid_argument(
            f"Dimension mismatch: a_shape {dims_str(ashape.tolist())} vs. b.shape "
            f"{dims_str(dense.shape)}")
    for d, (x, y) in enumerate(zip(ashape.tolist(), dense.shape)):
        if x != y:
            raise invalid_argument(
                f"Dimension {d} does not equal (no broadcasting is supported): sparse side {x} "
                f"vs dense side {y}")
    check_in_bounds(ai, ashape)
    out = dense.copy()
    np.add.at(out, tuple(ai.T), av)
    return out


# ----------------------------------------------------------------------------------------
# SparseReduceSum, SparseReduceSumSparse


def _reduce_axes(axes, rank: int) -> list[int]:
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if a < -rank or a >= rank:
            raise invalid_argument(
                f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        a %= rank
        if a not in out:
            out.append(a)
    return sorted(out)


def _group_sums(input_indices, input_values, input_shape, reduction_axes, ufunc=np.add):
    idx, vals, dims = sparse_parts(input_indices, input_values, input_shape)
    axes = _reduce_axes(reduction_axes, dims.size)
    kept = [d for d in range(dims.size) if d not in axes]
    out_dims = dims[kept]
    out_idx = idx[:, kept]
    keys = linear_keys(out_idx, out_dims)
    # TensorFlow checks only where each group is written (sparse_reduce_op.cc), and as an
    # internal error; coordinates in the reduced dimensions are not checked.
    size = int(np.prod(out_dims)) if len(kept) else 1
    bad = np.flatnonzero((out_idx < 0).any(axis=1) | (out_idx >= out_dims).any(axis=1)
                         | (keys >= size))
    if bad.size:
        raise errors.InternalError(
            None, None, f"Obtained a write index of {int(keys[bad[0]])} which is outside of "
            f"bounds of [0, {size})")
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if ufunc is np.add:
        sums = np.zeros(len(uniq), vals.dtype)
    else:
        sums = np.full(len(uniq), _lowest(vals.dtype), vals.dtype)
    ufunc.at(sums, inverse.reshape(-1), vals)
    return dims, axes, kept, out_idx[first], sums


def _lowest(dt: np.dtype):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _dense_result(dims, axes, kept, idx, vals, whole, keep_dims: bool) -> np.ndarray:
    """The dense output of a sparse reduction from its groups (``_group_sums``): a group
    with no entry holds 0; ``whole`` reduces every group into one when no axis is kept."""
    if not kept:  # everything reduced: one group (or none)
        out = np.array(whole(vals) if len(vals) else 0, vals.dtype)
    else:
        out = np.zeros([int(d) for d in dims[kept]], vals.dtype)
        if len(vals):
            out[tuple(idx.T)] = vals
    if keep_dims:
        out = out.reshape([1 if d in axes else int(n) for d, n in enumerate(dims)])
    return out


def _sparse_result(dims, axes, kept, idx, vals, keep_dims: bool):
    """The SparseTensor output (indices, values, shape) of a sparse reduction."""
    if keep_dims:
        full = np.zeros((len(vals), dims.size), np.int64)
        full[:, kept] = idx
        shape = np.array([1 if d in axes else n for d, n in enumerate(dims.tolist())],
                         np.int64)
        return full, vals, shape
    return idx.reshape(len(vals), len(kept)).astype(np.int64), vals, dims[kept]


@register_op(
    "SparseReduceSum",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
            "reduction_axes: int32"],
    outputs=["output: T"],
    attrs=["keep_dims: bool = false", f"T: {{{NUMBER_TYPES}}}"],
    shape_fn=lambda ic: [unknown_shape()],
)
def sparse_reduce_sum_kernel(input_indices, input_values, input_shape, reduction_axes, *,
                             keep_dims):
    """The dense sum of the SparseTensor over the given axes."""
    groups = _group_sums(input_indices, input_values, input_shape, reduction_axes)
    return _dense_result(*groups, np.sum, keep_dims)


@register_op(
    "SparseReduceSumSparse",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
            "reduction_axes: int32"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["keep_dims: bool = false", f"T: {{{NUMBER_TYPES}}}"],
    shape_fn=_SPARSE_OUT,
)
def sparse_reduce_sum_sparse_kernel(input_indices, input_values, input_shape, reduction_axes,
                                    *, keep_dims):
    """The sum over the given axes as a SparseTensor (one entry per non-empty group)."""
    groups = _group_sums(input_indices, input_values, input_shape, reduction_axes)
    return _sparse_result(*groups, keep_dims)


# TensorFlow registers no gradient for the sparse-output form.
no_gradient("SparseReduceSumSparse")


@register_op(
    "SparseReduceMax",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
            "reduction_axes: int32"],
    outputs=["output: T"],
    attrs=["keep_dims: bool = false", f"T: {{{REAL_TYPES}}}"],
    shape_fn=lambda ic: [unknown_shape()],
)
def sparse_reduce_max_kernel(input_indices, input_values, input_shape, reduction_axes, *,
                             keep_dims):
    """The dense maximum of the SparseTensor's entries over the given axes; only entries
    present count, and groups with no entry hold 0, as in TensorFlow's kernel."""
    groups = _group_sums(input_indices, input_values, input_shape, reduction_axes, np.maximum)
    return _dense_result(*groups, np.max, keep_dims)


@register_op(
    "SparseReduceMaxSparse",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
            "reduction_axes: int32"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["keep_dims: bool = false", f"T: {{{REAL_TYPES}}}"],
    shape_fn=_SPARSE_OUT,
)
def sparse_reduce_max_sparse_kernel(input_indices, input_values, input_shape, reduction_axes,
                                    *, keep_dims):
    """The maximum over the given axes as a SparseTensor (one entry per non-empty group)."""
    groups = _group_sums(input_indices, input_values, input_shape, reduction_axes, np.maximum)
    return _sparse_result(*groups, keep_dims)


# TensorFlow registers no gradients for the max reductions (sparse_grad.py).
no_gradient("SparseReduceMax")
no_gradient("SparseReduceMaxSparse")


# ----------------------------------------------------------------------------------------
# SparseTensorDenseMatMul


def _sparse_matmul_shape(ic) -> list[TensorShape]:
    b = shape_fns.with_rank(ic.input_shape("b"), 2)
    a_shape = ic.input_value("a_shape")
    rows = None
    b_inner = b.dims[1] if ic.attrs["adjoint_b"] else b.dims[0]
    if a_shape is not None:
        a_shape = np.asarray(a_shape).reshape(-1)
        if a_shape.size != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {a_shape.size}")
        rows = int(a_shape[1] if ic.attrs["adjoint_a"] else a_shape[0])
        inner = int(a_shape[0] if ic.attrs["adjoint_a"] else a_shape[1])
        if b_inner is not None and inner != b_inner:
            raise ValueError(f"Dimensions must be equal, but are {inner} and {b_inner}")
    cols = b.dims[0] if ic.attrs["adjoint_b"] else b.dims[1]
    return [TensorShape([rows, cols])]


@register_op(
    "SparseTensorDenseMatMul",
    inputs=["a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"],
    outputs=["product: T"],
    attrs=["T: type", "Tindices: {int32, int64} = int64", "adjoint_a: bool = false",
           "adjoint_b: bool = false"],
    shape_fn=_sparse_matmul_shape,
)
def sparse_tensor_dense_mat_mul_kernel(a_indices, a_values, a_shape, b, *, adjoint_a,
                                       adjoint_b):
    """The product of the rank-2 SparseTensor A and the dense matrix B (either adjointed)."""
    idx, vals, shape = sparse_parts(a_indices, a_values, a_shape, "a")
    dense = np.asarray(b)
    if shape.size != 2:
        raise invalid_argument(f"Tensor 'a_shape' is not a vector of length 2: "
                               f"{dims_str(shape.tolist())}")
    if dense.ndim != 2:
        raise invalid_argument(
            f"Tensor 'b' is not a matrix: {dims_str(dense.shape)}")
    if adjoint_b:
        dense = np.conj(dense.T)
    rows_col, inner_col = (1, 0) if adjoint_a else (0, 1)
    out_rows, inner = int(shape[rows_col]), int(shape[inner_col])
    if inner != dense.shape[0]:
        raise invalid_argument(
            f"Cannot multiply A and B because inner dimension does not match: {inner} vs. "
            f"{dense.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
            f"[{int(shape[0])}, {int(shape[1])}).  Dimensions of B: {dims_str(np.shape(b))}")
    vals = np.conj(vals) if adjoint_a else vals
    rows, ks = idx[:, rows_col], idx[:, inner_col]
    bad = np.flatnonzero((ks < 0) | (ks >= inner) | (rows < 0) | (rows >= out_rows))
    if bad.size:  # the first bad entry, k checked before m as TensorFlow's kernel does
        i = int(bad[0])
        r, k = int(rows[i]), int(ks[i])
        if not 0 <= k < inner:
            raise invalid_argument(
                f"k ({k}) from index[{i},{inner_col}] out of bounds (>={inner})")
        raise invalid_argument(
            f"m ({r}) from index[{i},{rows_col}] out of bounds (>={out_rows})")
    out = np.zeros((out_rows, dense.shape[1]), np.result_type(vals.dtype, dense.dtype))
    np.add.at(out, idx[:, rows_col], vals[:, None] * dense[idx[:, inner_col]])
    return out.astype(dense.dtype, copy=False)


# ----------------------------------------------------------------------------------------
# SparseDenseCwiseMul, SparseDenseCwiseDiv, SparseDenseCwiseAdd


def _cwise(op_type: str, fn, doc: str) -> None:
    def kernel(sp_indices, sp_values, sp_shape, dense):
        idx, vals, dims = sparse_parts(sp_indices, sp_values, sp_shape, "sp")
        y = np.asarray(dense)
        if y.ndim > dims.size or any(
                d not in (1, n) for d, n in zip(y.shape[::-1], dims.tolist()[::-1])):
            raise invalid_argument(
                f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                f"shapes: [{','.join(str(int(d)) for d in dims)}] vs. "
                f"[{','.join(str(d) for d in y.shape)}]")
        full = np.broadcast_to(y, tuple(int(d) for d in dims))
        check_in_bounds(idx, dims)
        return fn(vals, full[tuple(idx.T)] if idx.shape[0] else np.zeros(0, y.dtype))

    register_op(op_type, inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64",
                                 "dense: T"],
                outputs=["output: T"], attrs=[f"T: {{{NUMBER_TYPES}}}"],
                shape_fn=lambda ic: [TensorShape([ic.input_shape("sp_values").dims[0]
                                                  if ic.input_shape("sp_values").dims
                                                  else None])],
                doc=doc)(kernel)


_cwise("SparseDenseCwiseMul", np.multiply, "Each entry times the dense value at its index.")
_cwise("SparseDenseCwiseDiv", np.true_divide, "Each entry divided by the dense value there.")
_cwise("SparseDenseCwiseAdd", np.add, "Each entry plus the dense value at its index.")


# ----------------------------------------------------------------------------------------
# SparseSoftmax, SparseSparseMaximum, SparseSparseMinimum


@register_op(
    "SparseSoftmax",
    inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64"],
    outputs=["output: T"],
    attrs=["T: {half, float, double}"],
    shape_fn=lambda ic: [ic.input_shape("sp_values")],
)
def sparse_softmax_kernel(sp_indices, sp_values, sp_shape):
    """Softmax over the entries present in each innermost row (all but the last coordinate
    equal); absent entries take no part, as in TensorFlow's kernel."""
    idx, vals, dims = sparse_parts(sp_indices, sp_values, sp_shape, "sp")
    if dims.size < 2:
        raise invalid_argument(f"Input should have rank >= 2, but received shape: "
                               f"{dims_str(dims.tolist())}")
    keys = linear_keys(idx[:, :-1], dims[:-1])
    _, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    top = np.full(inverse.max() + 1 if len(inverse) else 0, -np.inf, vals.dtype)
    np.maximum.at(top, inverse, vals)
    e = np.exp(vals - top[inverse])
    total = np.zeros(len(top), vals.dtype)
    np.add.at(total, inverse, e)
    return (e / total[inverse]).astype(vals.dtype)


def _sparse_sparse(op_type: str, fn, doc: str) -> None:
    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        ai, av, ashape = sparse_parts(a_indices, a_values, a_shape, "a")
        bi, bv, bshape = sparse_parts(b_indices, b_values, b_shape, "b")
        _check_same_shape(ashape, bshape)
        ka, kb = linear_keys(ai, ashape), linear_keys(bi, bshape)
        keys, first = np.unique(np.concatenate([ka, kb]), return_index=True)
        both_idx = np.concatenate([ai, bi])[first]
        # Entries absent from one operand count as 0 there (TensorFlow's union of indices).
        a_full = np.zeros(len(keys), av.dtype)
        b_full = np.zeros(len(keys), bv.dtype)
        a_full[np.searchsorted(keys, ka)] = av
        b_full[np.searchsorted(keys, kb)] = bv
        return both_idx.reshape(-1, ashape.size), fn(a_full, b_full)

    register_op(op_type,
                inputs=["a_indices: int64", "a_values: T", "a_shape: int64",
                        "b_indices: int64", "b_values: T", "b_shape: int64"],
                outputs=["output_indices: int64", "output_values: T"],
                attrs=[f"T: {{{REAL_TYPES}}}"],
                shape_fn=lambda ic: [TensorShape([None, None]), TensorShape([None])],
                doc=doc)(kernel)


_sparse_sparse("SparseSparseMaximum", np.maximum,
               "Elementwise max of two SparseTensors (absent entries are 0).")
_sparse_sparse("SparseSparseMinimum", np.minimum,
               "Elementwise min of two SparseTensors (absent entries are 0).")


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _as_sparse(x: Any) -> SparseTensor:
    return SparseTensor.from_value(x)


def sparse_add(a: Any, b: Any, threshold: Any = None, thresh: Any = None,
               name: str | None = None) -> Any:
    """A + B where at least one is a SparseTensor (``tf.sparse.add``, TF1 form).

    Two SparseTensors give a SparseTensor (SparseAdd; both must be in row-major order, as
    ``tf.sparse.reorder`` leaves them); a SparseTensor and a dense tensor give a dense tensor
    (SparseTensorDenseAdd).

    Args:
        a: A SparseTensor or dense tensor.
        b: A SparseTensor or dense tensor (of a's dtype and shape).
        threshold: Sums (of two entries) with a smaller magnitude are dropped (default 0).
        thresh: Deprecated name of ``threshold``.
        name: Unused, as in TensorFlow.

    Returns:
        A SparseTensor, or a dense tensor when one operand is dense.

    Raises:
        TypeError: neither operand is a SparseTensor.
    """
    del name
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'.")
    threshold = thresh if threshold is None else threshold
    sparse = [isinstance(x, SparseTensor) for x in (a, b)]
    if not any(sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add?")
    if all(sparse):
        t = convert_to_tensor(0 if threshold is None else threshold,
                              dtype=a.values.dtype.real_dtype, name="threshold")
        op = build_op(current_scope(), "SparseAdd",
                      [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                       t])
        a_shape, b_shape = a.shape, b.shape
        if not a_shape.is_compatible_with(b_shape):
            raise ValueError(f"Shapes {a_shape} and {b_shape} are incompatible")
        merged = shape_fns.merge_shapes(a_shape, b_shape)
        out_shape = (np.array(merged.as_list(), np.int64) if merged.is_fully_defined()
                     else op.outputs[2])
        return SparseTensor(op.outputs[0], op.outputs[1], out_shape)
    if sparse[1]:
        a, b = b, a
    return build_op(current_scope(), "SparseTensorDenseAdd",
                    [a.indices, a.values, a.dense_shape, b]).outputs[0]


def _reduction_axes(sp: SparseTensor, axis: Any) -> Any:
    if axis is not None:
        return axis
    rank = sp.dense_shape.shape.dims[0] if sp.dense_shape.shape.dims else None
    if rank is not None:
        return np.arange(rank, dtype=np.int32)
    from tfmini.ops.array.filling import range as range_
    from tfmini.ops.array.shape_ops import size

    return range_(0, size(sp.dense_shape))


def _keep(keepdims, keep_dims) -> bool:
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    return bool(keepdims if keepdims is not None else keep_dims)


def sparse_reduce_sum(sp_input: SparseTensor, axis: Any = None, keepdims: bool | None = None,
                      reduction_axes: Any = None, keep_dims: bool | None = None,
                      name: str | None = None) -> Output:
    """The sum of a SparseTensor's entries over axes, as a dense tensor
    (``tf.sparse.reduce_sum``, TF1 form).

    Args:
        sp_input: A SparseTensor.
        axis: The axes to reduce (None: all, giving a scalar).
        keepdims: Keep reduced axes with size 1.
        reduction_axes: Deprecated name of ``axis``.
        keep_dims: Deprecated name of ``keepdims``.
        name: Optional op name.

    Returns:
        A dense tensor of the values' dtype.
    """
    axis = reduction_axes if axis is None else axis
    out = build_op(current_scope(), "SparseReduceSum",
                   [sp_input.indices, sp_input.values, sp_input.dense_shape,
                    convert_to_tensor(_reduction_axes(sp_input, axis), dtype=dtypes.int32)],
                   {"keep_dims": _keep(keepdims, keep_dims)}, name=name).outputs[0]
    return out


def sparse_reduce_sum_sparse(sp_input: SparseTensor, axis: Any = None,
                             keepdims: bool | None = None, reduction_axes: Any = None,
                             keep_dims: bool | None = None,
                             name: str | None = None) -> SparseTensor:
    """As :func:`sparse_reduce_sum`, the result a SparseTensor
    (``tf.sparse.reduce_sum_sparse``)."""
    axis = reduction_axes if axis is None else axis
    op = build_op(current_scope(), "SparseReduceSumSparse",
                  [sp_input.indices, sp_input.values, sp_input.dense_shape,
                   convert_to_tensor(_reduction_axes(sp_input, axis), dtype=dtypes.int32)],
                  {"keep_dims": _keep(keepdims, keep_dims)}, name=name)
    return SparseTensor(*op.outputs)


def sparse_reduce_max(sp_input: SparseTensor, axis: Any = None, keepdims: bool | None = None,
                      reduction_axes: Any = None, keep_dims: bool | None = None,
                      name: str | None = None) -> Output:
    """The maximum of a SparseTensor's entries over axes, as a dense tensor
    (``tf.sparse.reduce_max``, TF1 form); only the entries present count (an empty group
    gives 0). Arguments as :func:`sparse_reduce_sum`."""
    axis = reduction_axes if axis is None else axis
    return build_op(current_scope(), "SparseReduceMax",
                    [sp_input.indices, sp_input.values, sp_input.dense_shape,
                     convert_to_tensor(_reduction_axes(sp_input, axis), dtype=dtypes.int32)],
                    {"keep_dims": _keep(keepdims, keep_dims)}, name=name).outputs[0]


def sparse_reduce_max_sparse(sp_input: SparseTensor, axis: Any = None,
                             keepdims: bool | None = None, reduction_axes: Any = None,
                             keep_dims: bool | None = None,
                             name: str | None = None) -> SparseTensor:
    """As :func:`sparse_reduce_max`, the result a SparseTensor
    (``tf.sparse.reduce_max_sparse``)."""
    axis = reduction_axes if axis is None else axis
    op = build_op(current_scope(), "SparseReduceMaxSparse",
                  [sp_input.indices, sp_input.values, sp_input.dense_shape,
                   convert_to_tensor(_reduction_axes(sp_input, axis), dtype=dtypes.int32)],
                  {"keep_dims": _keep(keepdims, keep_dims)}, name=name)
    return SparseTensor(*op.outputs)


def sparse_softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Softmax over each innermost row's present entries (``tf.sparse.softmax``).

    Args:
        sp_input: A SparseTensor of rank >= 2 (float types).
        name: Optional name scope.

    Returns:
        A SparseTensor on the same indices.
    """
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out = build_op(current_scope(), "SparseSoftmax",
                       [sp_input.indices, sp_input.values, sp_input.dense_shape]).outputs[0]
        return SparseTensor(sp_input.indices, out, sp_input.dense_shape)


def _sparse_sparse_fn(op_type: str, default: str, sp_a: SparseTensor, sp_b: SparseTensor,
                      name: str | None) -> SparseTensor:
    with name_scope(name, default, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]):
        out_indices, out_values = build_op(
            current_scope(), op_type, [sp_a.indices, sp_a.values, sp_a.dense_shape,
                                       sp_b.indices, sp_b.values, sp_b.dense_shape]).outputs
        return SparseTensor(out_indices, out_values, sp_a.dense_shape)


def sparse_maximum(sp_a: SparseTensor, sp_b: SparseTensor,
                   name: str | None = None) -> SparseTensor:
    """Elementwise maximum of two SparseTensors of one shape (``tf.sparse.maximum``); an entry
    missing from one operand counts as 0 there."""
    return _sparse_sparse_fn("SparseSparseMaximum", "SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a: SparseTensor, sp_b: SparseTensor,
                   name: str | None = None) -> SparseTensor:
    """Elementwise minimum of two SparseTensors of one shape (``tf.sparse.minimum``); an entry
    missing from one operand counts as 0 there."""
    return _sparse_sparse_fn("SparseSparseMinimum", "SparseSparseMinimum", sp_a, sp_b, name)


def sparse_tensor_dense_matmul(sp_a: SparseTensor, b: Any, adjoint_a: bool = False,
                               adjoint_b: bool = False, name: str | None = None) -> Output:
    """The product of a rank-2 SparseTensor and a dense matrix
    (``tf.sparse.sparse_dense_matmul``).

    Args:
        sp_a: A rank-2 SparseTensor.
        b: A dense matrix of sp_a's dtype.
        adjoint_a: Use the (conjugate) transpose of A.
        adjoint_b: Use the (conjugate) transpose of B.
        name: Optional name scope.

    Returns:
        The dense product.
    """
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return build_op(current_scope(), "SparseTensorDenseMatMul",
                        [sp_a.indices, sp_a.values, sp_a.dense_shape, b],
                        {"adjoint_a": adjoint_a, "adjoint_b": adjoint_b}).outputs[0]


