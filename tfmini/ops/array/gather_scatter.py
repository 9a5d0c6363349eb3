"""Array ops that pick or place elements by index: GatherV2, ScatterNd,
UnsortedSegmentSum, Unique and OneHot.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.array.basic``, the family's front module.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, build_autopacked, constant_value, op_scope
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import (
    as_int_list,
    check_indices,
    check_non_negative_dims,
    invalid_argument,
    slice_debug_string,
)
from tfmini.ops.common.memory import check_allocation
from tfmini.ops.common.segment_reduce import unique_in_order, unsorted_segment_sum_into

# ----------------------------------------------------------------------------------------
# GatherV2


def _gather_v2_shape(ic):
    params = shape_fns.with_rank_at_least(ic.input_shape("params"), 1)
    indices = ic.input_shape("indices")
    shape_fns.with_rank(ic.input_shape("axis"), 0)
    batch_dims = ic.attrs["batch_dims"]
    axis = ic.input_value("axis")
    if axis is None:
        if params.rank is not None and indices.rank is not None:
            return [unknown_shape(params.rank + indices.rank - 1 - batch_dims)]
        return [unknown_shape()]
    axis = int(axis)
    shape_fns.with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    shape_fns.with_rank_at_least(indices, abs(batch_dims))
    if params.dims is None or indices.dims is None:
        return [unknown_shape()]
    if batch_dims < 0:
        batch_dims += indices.rank
    shape_fns.with_rank_at_least(params, batch_dims + 1)
    ax = axis + params.rank if axis < 0 else axis
    return [TensorShape(params.dims[:ax] + indices.dims[batch_dims:] + params.dims[ax + 1 :])]


@register_op(
    "GatherV2",
    inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
    outputs=["output: Tparams"],
    attrs=["batch_dims: int = 0", "Tparams: type", "Tindices: {int16, int32, int64}",
           "Taxis: {int32, int64}"],
    shape_fn=_gather_v2_shape,
    value_fn=fold_constant,
)
def gather_v2_kernel(params, indices, axis, *, batch_dims):
    """Slices of ``params`` along ``axis`` picked by ``indices`` (per batch when
    ``batch_dims > 0``): ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``."""
    params, indices, axis = np.asarray(params), np.asarray(indices), np.asarray(axis)
    if params.ndim < 1:
        raise invalid_argument("params must be at least 1 dimensional")
    if axis.ndim != 0:
        raise invalid_argument("axis must be scalar")
    ax = int(axis)
    min_dims = -ax if ax < 0 else ax + 1
    if params.ndim < min_dims:
        raise invalid_argument(f"Shape must be at least rank {min_dims} but is rank {params.ndim}")
    if ax < 0:
        ax += params.ndim
    b = batch_dims
    if b != 0:
        if not -indices.ndim <= b <= indices.ndim:
            raise invalid_argument(
                f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got {b}"
            )
        if b < 0:
            b += indices.ndim
        if b >= params.ndim:
            raise invalid_argument(
                f"batch_dims ({b}) must be less than rank(params) ({params.ndim})."
            )
        if ax < b:
            raise invalid_argument(f"batch_dims ({b}) must be less than or equal to axis ({ax}).")
        for i in builtins.range(b):
            if params.shape[i] != indices.shape[i]:
                raise invalid_argument(
                    f"params.shape[{i}]: {params.shape[i]} should be equal to "
                    f"indices.shape[{i}]: {indices.shape[i]}"
                )
    check_indices(indices, params.shape[ax])
    if b == 0:
        return np.take(params, indices, axis=ax)
    batch = params.shape[:b]
    out_shape = batch + params.shape[b:ax] + indices.shape[b:] + params.shape[ax + 1 :]
    n = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((n,) + params.shape[b:])
    ind = indices.reshape((n,) + indices.shape[b:])
    if n == 0:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack([np.take(p[k], ind[k], axis=ax - b) for k in builtins.range(n)]).reshape(
        out_shape
    )


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
           axis: Any = None, batch_dims: int = 0) -> Output:
    """Gathers slices (TF1 ``tf.gather``).

    As in TensorFlow, ``axis`` defaults to ``batch_dims``, and when ``axis`` is
    0 ``batch_dims`` is not passed on; a variable (anything with
    ``sparse_read``) is read with its own gather then.

    Args:
        params: The tensor (or variable) to gather from.
        indices: int32/int64 indices into ``params``'s ``axis``.
        validate_indices: Ignored (TensorFlow's deprecated argument).
        name: Op name (default ``"GatherV2"``).
        axis: The dimension to gather along.
        batch_dims: The number of leading batch dimensions shared by params and indices.
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    axis_value = constant_value(axis)
    if axis_value is None or np.ndim(axis_value) != 0 or int(axis_value) != 0:
        attrs = {"batch_dims": batch_dims}
        return build_autopacked("GatherV2", [params, indices, axis], attrs, name=name).outputs[0]
    sparse_read = getattr(params, "sparse_read", None)
    if sparse_read is not None:
        return sparse_read(indices, name=name)
    return build_autopacked("GatherV2", [params, indices, axis], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# ScatterNd


def _scatter_nd_shape(ic):
    indices = shape_fns.with_rank_at_least(ic.input_shape("indices"), 1)
    updates = ic.input_shape("updates")
    out = shape_fns.shape_from_shape_tensor(ic, "shape")
    out = shape_fns.with_rank_at_least(out, 1)
    if out.num_elements() == 0 and (indices.num_elements() or updates.num_elements()):
        raise ValueError("Indices and updates specified for empty input")
    if indices.dims is None or updates.dims is None or updates.rank == 0:
        return [out]
    outer = indices.rank - 1
    ix = indices.dims[-1]
    if ix is None:
        return [out]
    prefix_i, prefix_u = TensorShape(indices.dims[:outer]), TensorShape(updates.dims[:outer])
    try:
        shape_fns.merge_shapes(prefix_i, prefix_u)
    except ValueError as e:
        raise ValueError(
            f"Dimensions [0,{outer}) of indices[shape={indices.tf_str()}] = {prefix_i.tf_str()} "
            f"must match dimensions [0,{outer}) of updates[shape={updates.tf_str()}] = "
            f"{prefix_u.tf_str()}: {e}"
        ) from None
    if out.dims is None:
        return [out]
    suffix_o, suffix_u = TensorShape(out.dims[ix:]), TensorShape(updates.dims[outer:])
    try:
        shape_fns.merge_shapes(suffix_o, suffix_u)
    except ValueError as e:
        raise ValueError(
            f"Dimensions [{ix},{out.rank}) of input[shape={out.tf_str()}] = {suffix_o.tf_str()} "
            f"must match dimensions [{outer},{updates.rank}) of updates[shape={updates.tf_str()}]"
            f" = {suffix_u.tf_str()}: {e}"
        ) from None
    return [out]


@register_op(
    "ScatterNd",
    inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
    outputs=["output: T"],
    attrs=["T: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_scatter_nd_shape,
    value_fn=fold_constant,
)
def scatter_nd_kernel(indices, updates, shape, *, bad_indices_policy):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add up)."""
    indices, updates, shape = np.asarray(indices), np.asarray(updates), np.asarray(shape)
    if indices.ndim < 1:
        raise invalid_argument(
            f"Indices shape must have rank at least one. Found:{dims_str(indices.shape)}"
        )
    if updates.ndim < 1:
        raise invalid_argument(
            f"Updates shape must have rank at least one. Found:{dims_str(updates.shape)}"
        )
    out_shape = tuple(as_int_list(shape))
    check_non_negative_dims(out_shape)
    if shape.size == 0 and (indices.size or updates.size):
        raise invalid_argument("Indices and updates specified for empty output shape")
    outer = indices.ndim - 1
    for i in builtins.range(outer):
        if indices.shape[i] != updates.shape[i]:
            raise invalid_argument(
                f"Dimensions [0,{outer}) of indices[shape={dims_str(indices.shape)}] must match "
                f"dimensions [0,{outer}) of updates[shape={dims_str(updates.shape)}]"
            )
    ix = indices.shape[-1]
    inner = updates.shape[outer:]
    if len(inner) != len(out_shape) - ix or inner != out_shape[ix:]:
        raise invalid_argument(
            f"Dimensions [{ix},{len(out_shape)}) of input[shape={dims_str(out_shape)}] must match "
            f"dimensions [{outer},{updates.ndim}) of updates[shape={dims_str(updates.shape)}]"
        )
    if shape.ndim != 1:
        raise invalid_argument("Shape must be a vector")
    if int(np.prod(out_shape, dtype=np.int64)) == 0 and indices.size:
        raise invalid_argument(
            f"Indices and updates specified for empty output.  indices shape: "
            f"{dims_str(indices.shape)}"
        )
    rows = indices.reshape(-1, ix).astype(np.int64)
    upd = updates.reshape((rows.shape[0],) + inner)
    bad = ((rows < 0) | (rows >= np.array(out_shape[:ix], dtype=np.int64))).any(axis=1)
    if bad.any():
        if bad_indices_policy != "IGNORE":
            i = int(np.argmax(bad))
            raise invalid_argument(
                f"indices{slice_debug_string(indices.shape[:-1], i)} = "
                f"[{', '.join(str(v) for v in rows[i].tolist())}] does not index into shape "
                f"{dims_str(out_shape)}"
            )
        rows, upd = rows[~bad], upd[~bad]
    out = np.zeros(out_shape, dtype=updates.dtype)
    if ix == 0:
        out += upd.sum(axis=0, dtype=updates.dtype)
    else:
        np.add.at(out, tuple(rows.T), upd)
    return out


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Output:
    """Scatters ``updates`` into zeros of ``shape`` at ``indices`` (``tf.scatter_nd``).

    Duplicate indices add up. Out-of-range indices are an InvalidArgumentError at run time.

    Args:
        indices: int ``[..., K]`` indices into the first K dimensions of the output.
        updates: Values of shape ``indices.shape[:-1] + shape[K:]``.
        shape: The output shape.
        name: Op name (default ``"ScatterNd"``).
    """
    return build_autopacked("ScatterNd", [indices, updates, shape], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# UnsortedSegmentSum


def _unsorted_segment_shape(ic):
    data = ic.input_shape("data")
    ids = ic.input_shape("segment_ids")
    shape_fns.with_rank(ic.input_shape("num_segments"), 0)
    if ids.dims is None:
        return [unknown_shape()]
    if data.dims is not None:
        data = shape_fns.with_rank_at_least(data, ids.rank)
        for a, b in zip(data.dims, ids.dims):
            shape_fns.merge_dim(a, b)
    num = shape_fns.dim_from_scalar_input(ic, "num_segments", 2)
    if data.dims is None:
        return [unknown_shape()]
    return [TensorShape((num,) + data.dims[ids.rank :])]


@register_op(
    "UnsortedSegmentSum",
    inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
    outputs=["output: T"],
    attrs=["T: {float, double, int32, uint8, int16, int8, int64, half}",
           "Tindices: {int16, int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"],
    shape_fn=_unsorted_segment_shape,
    value_fn=fold_constant,
)
def unsorted_segment_sum_kernel(data, segment_ids, num_segments):
    """Sums of the rows of ``data`` per segment id; negative ids are dropped."""
    data, ids, num = np.asarray(data), np.asarray(segment_ids), np.asarray(num_segments)
    if num.ndim != 0:
        raise invalid_argument(f"num_segments should be a scalar, not shape {dims_str(num.shape)}")
    if data.shape[: ids.ndim] != ids.shape:
        raise invalid_argument(
            f"data.shape = {dims_str(data.shape)} does not start with segment_ids.shape = "
            f"{dims_str(ids.shape)}"
        )
    n = int(num)
    if n < 0:
        raise invalid_argument(f"Input num_segments == {n} must not be negative.")
    flat_ids = ids.ravel().astype(np.int64)
    over = flat_ids >= n
    if over.any():
        i = int(np.argmax(over))
        raise invalid_argument(
            f"segment_ids{slice_debug_string(ids.shape, i)} = {flat_ids[i]} is out of range "
            f"[0, {n})"
        )
    inner = data.shape[ids.ndim :]
    rows = data.reshape((flat_ids.size,) + inner)
    out = np.zeros((n,) + inner, dtype=data.dtype)
    if flat_ids.size and flat_ids.min() < 0:  # negative ids are dropped, as in TensorFlow
        keep = flat_ids >= 0
        flat_ids, rows = flat_ids[keep], rows[keep]
    unsorted_segment_sum_into(out, flat_ids, rows)
    return out


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Output:
    """Sums ``data`` by segment (``tf.math.unsorted_segment_sum``).

    ``output[i] = sum(data[j] for j where segment_ids[j] == i)``; rows with a
    negative id are dropped, ids ``>= num_segments`` are an InvalidArgumentError.

    Args:
        data: A tensor whose leading dimensions match ``segment_ids``'s shape.
        segment_ids: int ids.
        num_segments: The number of output rows.
        name: Op name (default ``"UnsortedSegmentSum"``).
    """
    op = build_autopacked("UnsortedSegmentSum", [data, segment_ids, num_segments], name=name)
    return op.outputs[0]


# ----------------------------------------------------------------------------------------
# Unique


def _unique_shape(ic):
    x = shape_fns.with_rank(ic.input_shape("x"), 1)
    return [TensorShape((None,)), x]


@register_op(
    "Unique",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape_fn=_unique_shape,
    value_fn=fold_constant,
)
def unique_kernel(x, *, out_idx):
    """The distinct elements of ``x`` in order of first appearance, and for each element of
    ``x`` the position of its value in ``y``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("unique expects a 1D vector.")
    if x.size == 0:
        return x.copy(), np.zeros(0, out_idx.as_numpy_dtype)
    if x.dtype.kind in "iu":  # one packed sort, no second sort to renumber
        y, idx = unique_in_order(x)
        return y, idx.astype(out_idx.as_numpy_dtype)
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    # np.unique sorts; TensorFlow keeps first-appearance order, so renumber by first position.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y = x[np.sort(first)]
    return y, rank[inverse.ravel()].astype(out_idx.as_numpy_dtype)


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None):
    """The distinct values of a 1-D tensor (``tf.unique``).

    Returns ``(y, idx)``: ``y`` holds the values of ``x`` in order of first appearance,
    and ``x == gather(y, idx)``.

    Args:
        x: A 1-D tensor.
        out_idx: The dtype of ``idx`` (int32 or int64).
        name: Op name (default ``"Unique"``).

    Raises:
        ValueError: ``x`` is not 1-D (when its rank is known).
    """
    op = build_autopacked("Unique", [x], {"out_idx": as_dtype(out_idx)}, name=name)
    return op.outputs[0], op.outputs[1]


# ----------------------------------------------------------------------------------------
# OneHot


def _one_hot_shape(ic):
    axis = ic.attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = shape_fns.dim_from_scalar_input(ic, "depth", 1)
    inp = ic.input_shape("indices")
    if inp.dims is None:
        return [unknown_shape()]
    new_rank = inp.rank + 1
    at = (axis + new_rank) % new_rank
    return [TensorShape(inp.dims[:at] + (depth,) + inp.dims[at:])]


@register_op(
    "OneHot",
    inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
    outputs=["output: T"],
    attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"],
    shape_fn=_one_hot_shape,
    value_fn=fold_constant,
)
def one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    """``on_value`` where ``indices`` hits a position along the new ``axis`` of length
    ``depth``, ``off_value`` elsewhere (out-of-range indices give an all-off row)."""
    indices, depth = np.asarray(indices), np.asarray(depth)
    on_value, off_value = np.asarray(on_value), np.asarray(off_value)
    out_rank = indices.ndim + 1
    if not (axis == -1 or 0 <= axis < out_rank):
        raise invalid_argument(
            f"Expected axis to be -1 or between [0, {out_rank}).  But received: {axis}"
        )
    for what, v in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if v.ndim != 0:
            raise invalid_argument(f"{what} must be a scalar, but got: {dims_str(v.shape)}")
    d = int(depth)
    if d < 0:
        raise invalid_argument(f"depth must be non-negative, got: {d}")
    check_allocation([*indices.shape, d], as_dtype(on_value.dtype))
    hot = indices.astype(np.int64)[..., None] == np.arange(d)
    out = np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    return np.moveaxis(out, -1, indices.ndim if axis == -1 else axis)


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: int | None = None, dtype: Any = None, name: str | None = None) -> Output:
    """One-hot encoding (``tf.one_hot``).

    The dtype comes from ``dtype``, else ``on_value``/``off_value``, else float32.

    Args:
        indices: int indices; out-of-range ones (negative included) give all ``off_value``.
        depth: The length of the one-hot dimension.
        on_value, off_value: The fill values (default 1 and 0).
        axis: Where the new dimension goes (default -1, last).
        dtype: The output dtype.
        name: Op name (default ``"one_hot"``).

    Raises:
        TypeError: ``dtype``, ``on_value`` and ``off_value`` disagree.
    """
    want = as_dtype(dtype) if dtype is not None else None
    with op_scope(name, "one_hot") as (outer, base):
        on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=want)
        off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=want)
        if on is not None or off is not None:
            if want is not None:
                if on is not None and on.dtype != want:
                    raise TypeError(f"dtype {on.dtype} of on_value does not match dtype "
                                    f"parameter {want}")
                if off is not None and off.dtype != want:
                    raise TypeError(f"dtype {off.dtype} of off_value does not match dtype "
                                    f"parameter {want}")
            else:
                want = on.dtype if on is not None else off.dtype
        elif want is None:
            want = dtypes.float32
        if on is None:
            on = convert_to_tensor(1, want, name="on_value")
        if off is None:
            off = convert_to_tensor(0, want, name="off_value")
        if on.dtype != off.dtype:
            raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of "
                            "off_value")
        attrs = {} if axis is None else {"axis": axis}
        inputs = [autopack(indices), autopack(depth), on, off]
        return build_op(outer, "OneHot", inputs, attrs, name=base).outputs[0]


# ----------------------------------------------------------------------------------------
# GatherNd


def _gather_nd_shape(ic) -> list[TensorShape]:
    params = ic.input_shape(0)
    indices = shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    shape_fns.with_rank_at_least(params, 1)
    if indices.dims is None or indices.dims[-1] is None:
        return [unknown_shape()]
    depth = indices.dims[-1]
    if params.dims is not None and depth > len(params.dims):
        raise ValueError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
            f"{indices.tf_str()} and params shape: {params.tf_str()}"
        )
    if params.dims is None:
        return [unknown_shape()]
    return [TensorShape(indices.dims[:-1] + params.dims[depth:])]


@register_op(
    "GatherNd",
    inputs=["params: Tparams", "indices: Tindices"],
    outputs=["output: Tparams"],
    attrs=["Tparams: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_gather_nd_shape,
)
def gather_nd_kernel(params, indices, *, bad_indices_policy, node):
    """Slices of ``params`` at the index tuples in the last dimension of ``indices``."""
    params = np.asarray(params)
    idx = np.asarray(indices)
    if params.ndim < 1:
        raise invalid_argument("params must be at least a vector")
    if idx.ndim < 1:
        raise invalid_argument("indices must be at least a vector")
    depth = idx.shape[-1]
    if depth > params.ndim:
        raise invalid_argument(
            "index innermost dimension length must be <= params rank; saw: "
            f"{depth} vs. {params.ndim}")
    outer, inner = idx.shape[:-1], params.shape[depth:]
    n = int(np.prod(outer))
    if n > 0 and params.size == 0:
        raise invalid_argument(
            "Requested more than 0 entries, but params is empty.  Params shape: "
            f"{dims_str(params.shape)}")
    flat = idx.reshape(n, depth).astype(np.int64)
    limits = np.array(params.shape[:depth], dtype=np.int64)
    bad = ((flat < 0) | (flat >= limits)).any(axis=1)
    if bad.any() and bad_indices_policy != "IGNORE":
        i = int(np.flatnonzero(bad)[0])
        raise invalid_argument(
            f"indices{slice_debug_string(outer, i)} = [{', '.join(map(str, flat[i].tolist()))}]"
            f" does not index into param shape {dims_str(params.shape)}, node name: {node.name}"
        )
    safe = np.where(bad[:, None], 0, flat)
    if depth == 0:
        out = np.broadcast_to(params, (n,) + inner).copy()
    else:
        out = params[tuple(safe.T)]
    if bad.any():
        out[bad] = 0  # IGNORE: out-of-range index tuples give zeros, as TensorFlow's CPU kernel
    return out.reshape(outer + inner)


__all__ = [
    "gather",
    "one_hot",
    "scatter_nd",
    "unique",
    "unsorted_segment_sum",
]
