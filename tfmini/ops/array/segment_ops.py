"""SegmentSum and the sparse segment reductions (SparseSegmentSum, SparseSegmentMean,
SparseSegmentSqrtN and their *Grad ops), as ``embedding_lookup_sparse`` uses them
(``tensorflow/core/ops/math_ops.cc``; kernels ``segment_reduction_ops_impl.h``).

Segment ids are sorted; the output has ``last id + 1`` rows and rows no id names are zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.segment_reduce import unsorted_segment_sum_into

__all__ = ["sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum"]

_REAL = "{float, double, int32, uint8, int16, int8, int64, half}"
_FLOAT = "{half, float, double}"
_IDX = ["Tidx: {int32, int64} = DT_INT32", "Tsegmentids: {int32, int64} = DT_INT32"]


def _check_sorted(ids: np.ndarray) -> None:
    if ids.size and (ids[0] < 0 or (np.diff(ids) < 0).any()):
        raise invalid_argument("segment ids are not increasing")


# ----------------------------------------------------------------------------------------
# SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN


def _sparse_segment_shape(ic) -> list[TensorShape]:
    data = ic.input_shape("data")
    shape_fns.with_rank(ic.input_shape("indices"), 1)
    shape_fns.with_rank(ic.input_shape("segment_ids"), 1)
    if data.dims is None:
        return [unknown_shape()]
    data = shape_fns.with_rank_at_least(data, 1)
    return [TensorShape((None,) + tuple(data.dims[1:]))]


def _scales(kind: str, ids: np.ndarray, n: int) -> np.ndarray:
    counts = np.bincount(ids, minlength=n).astype(np.float64)
    if kind == "Sum":
        return np.ones(n)
    counts = np.maximum(counts, 1.0)
    return 1.0 / counts if kind == "Mean" else 1.0 / np.sqrt(counts)


def _checked(data, indices, segment_ids):
    data, idx, ids = np.asarray(data), np.asarray(indices), np.asarray(segment_ids)
    if idx.ndim != 1:
        raise invalid_argument(f"indices should be a vector, got shape {dims_str(idx.shape)}")
    if ids.ndim != 1:
        raise invalid_argument(
            f"segment_ids should be a vector, got shape {dims_str(ids.shape)}")
    if idx.size != ids.size:
        raise invalid_argument(
            f"segment_ids and indices should have same size. segment_ids shape: "
            f"{dims_str(ids.shape)} indices shape: {dims_str(idx.shape)}")
    idx, ids = idx.astype(np.int64), ids.astype(np.int64)
    _check_sorted(ids)
    return data, idx, ids


def _sparse_segment(kind: str):
    def kernel(data, indices, segment_ids):
        data, idx, ids = _checked(data, indices, segment_ids)
        rows = data.shape[0] if data.ndim else 0
        bad = np.flatnonzero((idx < 0) | (idx >= rows))
        if bad.size:
            i = int(bad[0])
            raise invalid_argument(f"Bad: indices[{i}] == {idx[i]} out of range [0, {rows})")
        n = int(ids[-1]) + 1 if ids.size else 0
        acc = np.zeros((n,) + data.shape[1:], np.float64 if data.dtype.kind == "f" else
                       data.dtype)
        unsorted_segment_sum_into(acc, ids, data[idx].astype(acc.dtype))
        if kind != "Sum":
            scale = _scales(kind, ids, n).reshape((n,) + (1,) * (data.ndim - 1))
            acc = acc * scale
        return acc.astype(data.dtype)
    kernel.__name__ = f"sparse_segment_{kind.lower()}_kernel"
    kernel.__doc__ = f"SparseSegment{kind}: {kind.lower()} of ``data[indices]`` per segment."
    return kernel


def _sparse_segment_grad(kind: str):
    def kernel(grad, indices, segment_ids, output_dim0):
        grad, idx, ids = _checked(grad, indices, segment_ids)
        n = int(output_dim0)
        if ids.size and int(ids[-1]) >= grad.shape[0]:
            raise invalid_argument(f"Segment id {ids[-1]} out of range [0, {grad.shape[0]}).")
        bad = np.flatnonzero((idx < 0) | (idx >= n))
        if bad.size:
            raise invalid_argument(f"Index {idx[bad[0]]} out of range [0, {n}).")
        scale = _scales(kind, ids, grad.shape[0]).reshape((-1,) + (1,) * (grad.ndim - 1))
        rows = grad.astype(np.float64)[ids] * scale[ids]
        out = np.zeros((n,) + grad.shape[1:], np.float64)
        unsorted_segment_sum_into(out, idx, rows)
        return out.astype(grad.dtype)
    kernel.__name__ = f"sparse_segment_{kind.lower()}_grad_kernel"
    kernel.__doc__ = f"SparseSegment{kind}Grad: the gradient of SparseSegment{kind}."
    return kernel


def _sparse_segment_grad_v2(kind: str):
    def kernel(grad, indices, segment_ids, dense_output_dim0):
        grad, idx, ids = _checked(grad, indices, segment_ids)
        n = int(dense_output_dim0)
        bad = np.flatnonzero((idx < 0) | (idx >= n))
        if bad.size:
            raise invalid_argument(f"Index {idx[bad[0]]} out of range [0, {n}).")
        unique, where = np.unique(idx, return_inverse=True)
        scale = _scales(kind, ids, grad.shape[0]).reshape((-1,) + (1,) * (grad.ndim - 1))
        rows = grad.astype(np.float64)[ids] * scale[ids]
        out = np.zeros((unique.size,) + grad.shape[1:], np.float64)
        unsorted_segment_sum_into(out, where.reshape(-1), rows)
        return out.astype(grad.dtype), unique.astype(np.asarray(indices).dtype)
    kernel.__name__ = f"sparse_segment_{kind.lower()}_grad_v2_kernel"
    kernel.__doc__ = (f"SparseSegment{kind}GradV2: the gradient rows of SparseSegment{kind} "
                      "for the distinct indices, sorted.")
    return kernel


def _grad_v2_shape(ic) -> list[TensorShape]:
    g = ic.input_shape("grad")
    tail = unknown_shape() if g.dims is None else TensorShape((None,) + tuple(g.dims[1:]))
    return [tail, TensorShape([None])]


def _grad_shape(ic) -> list[TensorShape]:
    g = ic.input_shape("grad")
    n = shape_fns.dim_from_scalar_input(ic, "output_dim0", 3)
    if g.dims is None:
        return [unknown_shape()]
    return [TensorShape((n,) + tuple(g.dims[1:]))]


for _kind in ("Sum", "Mean", "SqrtN"):
    register_op(
        f"SparseSegment{_kind}",
        inputs=["data: T", "indices: Tidx", "segment_ids: Tsegmentids"],
        outputs=["output: T"],
        attrs=[f"T: {_REAL if _kind == 'Sum' else _FLOAT}", *_IDX,
               "sparse_gradient: bool = false"],
        shape_fn=_sparse_segment_shape,
    )(_sparse_segment(_kind))
    register_op(
        f"SparseSegment{_kind}Grad",
        inputs=["grad: T", "indices: Tidx", "segment_ids: Tsegmentids", "output_dim0: int32"],
        outputs=["output: T"],
        attrs=[f"T: {_FLOAT}", *_IDX],
        shape_fn=_grad_shape,
    )(_sparse_segment_grad(_kind))
    register_op(
        f"SparseSegment{_kind}GradV2",
        inputs=["grad: T", "indices: Tidx", "segment_ids: Tsegmentids",
                "dense_output_dim0: int32"],
        outputs=["output: T", "sorted_unique_indices: Tidx"],
        attrs=[f"T: {_FLOAT}", *_IDX],
        shape_fn=_grad_v2_shape,
    )(_sparse_segment_grad_v2(_kind))
    # TensorFlow registers no gradient for the backprop ops.
    no_gradient(f"SparseSegment{_kind}Grad")
    no_gradient(f"SparseSegment{_kind}GradV2")


def _build(op_type, data, indices, segment_ids, name, num_segments, sparse_gradient):
    if num_segments is not None:
        raise NotImplementedError(f"{op_type} with num_segments is not supported")
    return build_op(current_scope(), op_type, [data, indices, segment_ids],
                     {"sparse_gradient": bool(sparse_gradient)}, name=name).outputs[0]


def sparse_segment_sum(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
                       num_segments: Any = None, sparse_gradient: bool = False) -> Output:
    """Sums of ``data[indices]`` per sorted segment id (``tf.sparse.segment_sum``).

    With ``sparse_gradient`` the gradient with respect to ``data`` is an IndexedSlices over
    the distinct indices (``SparseSegmentSumGradV2``), else dense.
    """
    return _build("SparseSegmentSum", data, indices, segment_ids, name, num_segments,
                  sparse_gradient)


def sparse_segment_mean(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
                        num_segments: Any = None, sparse_gradient: bool = False) -> Output:
    """Means of ``data[indices]`` per sorted segment id (``tf.sparse.segment_mean``)."""
    return _build("SparseSegmentMean", data, indices, segment_ids, name, num_segments,
                  sparse_gradient)


def sparse_segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
                          num_segments: Any = None, sparse_gradient: bool = False) -> Output:
    """Sums of ``data[indices]`` per segment divided by the square root of the segment's size
    (``tf.sparse.segment_sqrt_n``)."""
    return _build("SparseSegmentSqrtN", data, indices, segment_ids, name, num_segments,
                  sparse_gradient)
