"""DynamicPartition, DynamicStitch and ParallelDynamicStitch
(``tensorflow/core/ops/data_flow_ops.cc``; kernels ``dynamic_partition_op.cc``,
``dynamic_stitch_op.cc``): the ops ``embedding_lookup`` routes the ids of sharded tables with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument

__all__ = ["dynamic_partition", "dynamic_stitch"]


# ----------------------------------------------------------------------------------------
# DynamicPartition


def _dynamic_partition_shape(ic) -> list[TensorShape]:
    n = ic.attrs["num_partitions"]
    data = ic.input_shape("data")
    parts = ic.input_shape("partitions")
    if data.dims is None or parts.dims is None:
        return [unknown_shape()] * n
    data = shape_fns.with_rank_at_least(data, parts.rank)
    for a, b in zip(data.dims, parts.dims):
        shape_fns.merge_dim(a, b)
    return [TensorShape((None,) + tuple(data.dims[parts.rank:]))] * n


@register_op(
    "DynamicPartition",
    inputs=["data: T", "partitions: int32"],
    outputs=["outputs: num_partitions * T"],
    attrs=["num_partitions: int >= 1", "T: type"],
    shape_fn=_dynamic_partition_shape,
)
def dynamic_partition_kernel(data, partitions, *, num_partitions):
    """``outputs[i]`` = the slices of ``data`` whose partition is ``i``, in order."""
    data, parts = np.asarray(data), np.asarray(partitions)
    if data.shape[:parts.ndim] != parts.shape:
        raise invalid_argument(
            f"data.shape must start with partitions.shape, got data.shape = "
            f"{dims_str(data.shape)}, partitions.shape = {dims_str(parts.shape)}")
    flat = parts.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= num_partitions))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"partitions[{i}] = {flat[i]} is not in [0, {num_partitions})")
    rows = data.reshape((flat.size,) + data.shape[parts.ndim:])
    return [rows[flat == p] for p in range(num_partitions)]


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: str | None = None) -> list[Output]:
    """Splits ``data`` into ``num_partitions`` tensors by ``partitions``
    (``tf.dynamic_partition``)."""
    op = build_op(current_scope(), "DynamicPartition", [data, partitions],
                  {"num_partitions": num_partitions}, name=name)
    return list(op.outputs)


# ----------------------------------------------------------------------------------------
# DynamicStitch, ParallelDynamicStitch


def _dynamic_stitch_shape(ic) -> list[TensorShape]:
    extra = None
    for ind, d in zip(ic.input_shape("indices"), ic.input_shape("data")):
        if ind.dims is None or d.dims is None:
            continue
        d = shape_fns.with_rank_at_least(d, ind.rank)
        tail = TensorShape(d.dims[ind.rank:])
        extra = tail if extra is None else shape_fns.merge_shapes(extra, tail)
    if extra is None or extra.dims is None:
        return [unknown_shape()]
    return [TensorShape((None,) + tuple(extra.dims))]


def _stitch(indices, data):
    indices = [np.asarray(i) for i in indices]
    data = [np.asarray(d) for d in data]
    for k, (ind, d) in enumerate(zip(indices, data)):
        if d.shape[:ind.ndim] != ind.shape:
            raise invalid_argument(
                f"data[{k}].shape = {dims_str(d.shape)} does not start with indices[{k}].shape "
                f"= {dims_str(ind.shape)}")
    d0, i0 = data[0], indices[0]
    inner = d0.shape[i0.ndim:]
    flat_i = [i.reshape(-1).astype(np.int64) for i in indices]
    n = int(max((int(i.max()) for i in flat_i if i.size), default=-1)) + 1
    out = np.zeros((n,) + inner, d0.dtype)
    for k, (ind, d) in enumerate(zip(flat_i, data)):
        if d.shape[indices[k].ndim:] != inner:
            raise invalid_argument(
                f"Need data[{k}].shape[{indices[k].ndim}:] = "
                f"{dims_str(d.shape[indices[k].ndim:])} to match data[0].shape"
                f"[{i0.ndim}:] = {dims_str(inner)}")
        if (ind < 0).any():
            raise invalid_argument(f"indices[{int(ind[ind < 0][0])}] is out of range")
        out[ind] = d.reshape((ind.size,) + inner)
    return out


for _op_type in ("DynamicStitch", "ParallelDynamicStitch"):
    register_op(
        _op_type,
        inputs=["indices: N * int32", "data: N * T"],
        outputs=["merged: T"],
        attrs=["N: int >= 1", "T: type"],
        shape_fn=_dynamic_stitch_shape,
    )(_stitch)


def dynamic_stitch(indices: Any, data: Any, name: str | None = None) -> Output:
    """Interleaves the rows of ``data`` into one tensor at ``indices``
    (``tf.dynamic_stitch``); a later index wins where two coincide."""
    op = build_op(current_scope(), "DynamicStitch", [list(indices), list(data)], name=name)
    return op.outputs[0]


def parallel_dynamic_stitch(indices: Any, data: Any, name: str | None = None) -> Output:
    """``ParallelDynamicStitch``: :func:`dynamic_stitch` (TensorFlow's parallel kernel leaves
    the winner of coinciding indices unspecified)."""
    op = build_op(current_scope(), "ParallelDynamicStitch", [list(indices), list(data)],
                  name=name)
    return op.outputs[0]
