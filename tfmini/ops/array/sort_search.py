"""Searching sorted rows: LowerBound and UpperBound (``tm.searchsorted``), as
``tensorflow/core/kernels/searchsorted_op.cc``.

``tm.sort``/``tm.argsort``: TensorFlow builds them from ``TopKV2``, which belongs to the nn
family and is not on this branch; until it is, they are built here from comparisons (each
element's rank is the number of elements before it in the sorted order, ties by position, as
TopKV2 orders ties), which costs O(n^2) memory along the sorted axis. Values, order of ties
and gradients (through GatherV2) are TensorFlow's; the graph is not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument


def _bound_shape(ic) -> list[TensorShape]:
    sorted_inputs = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    values = shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    if sorted_inputs.rank is not None and values.rank is not None:
        shape_fns.with_rank(values, sorted_inputs.rank)
        for a, b in zip(sorted_inputs.dims[:-1], values.dims[:-1]):
            shape_fns.merge_dim(a, b)
    return [values]


def _bound_kernel(side: str):
    def kernel(sorted_inputs, values, *, out_type):
        s, v = np.asarray(sorted_inputs), np.asarray(values)
        if s.ndim < 1 or v.ndim != s.ndim or s.shape[:-1] != v.shape[:-1]:
            raise invalid_argument(
                "Leading dim_size of both tensors must match. sorted_inputs: "
                f"{dims_str(s.shape)} values: {dims_str(v.shape)}")
        if s.shape[-1] >= np.iinfo(out_type.np_dtype).max:
            raise invalid_argument("trailing dim_size must less than INT_MAX for int32 output")
        rows_s = s.reshape(-1, s.shape[-1])
        rows_v = v.reshape(-1, v.shape[-1])
        out = np.empty(rows_v.shape, dtype=out_type.np_dtype)
        for r in range(rows_v.shape[0]):
            out[r] = np.searchsorted(rows_s[r], rows_v[r], side=side)
        return out.reshape(v.shape)

    kernel.__name__ = f"{side}_bound_kernel"
    return kernel


for _op_type, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    register_op(
        _op_type,
        inputs=["sorted_inputs: T", "values: T"],
        outputs=["output: out_type"],
        attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
        shape_fn=_bound_shape,
        doc=f"Per row, the {_side}most insertion index of each value in a sorted row.",
    )(_bound_kernel(_side))


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left",
                 out_type: Any = dtypes.int32, name: str | None = None) -> Output:
    """Insertion indices of ``values`` in the rows of ``sorted_sequence`` (``tf.searchsorted``).

    The innermost dimension is searched; leading dimensions are batches that must match.
    Inputs are reshaped to 2-D and back, as TensorFlow does.

    Args:
        sorted_sequence: N-D tensor sorted along its last dimension.
        values: N-D tensor of values to place.
        side: ``"left"`` (op ``LowerBound``) or ``"right"`` (``UpperBound``).
        out_type: int32 or int64.
        name: Optional op name.

    Returns:
        Indices of ``values``' shape.

    Raises:
        ValueError: ``side`` is neither.
    """
    from tfmini.ops.array.shape_ops import reshape, shape

    sorted_sequence, values = as_operand(sorted_sequence), as_operand(values)
    seq_shape, val_shape = shape(sorted_sequence), shape(values)
    seq_2d = reshape(sorted_sequence, [-1, seq_shape[-1]])
    val_2d = reshape(values, [-1, val_shape[-1]])
    if side == "right":
        op_type = "UpperBound"
    elif side == "left":
        op_type = "LowerBound"
    else:
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    out = build_output(op_type, [seq_2d, val_2d], {"out_type": dtypes.as_dtype(out_type)},
                       name=name)
    result = reshape(out, val_shape)
    result.set_shape(as_shape(values.shape))
    return result


def _sort_indices(x: Output, descending: bool) -> Output:
    """argsort of ``x`` along its last axis, from pairwise comparisons."""
    xi = build_output("ExpandDims", [x, -1])          # [..., n, 1]: x_i
    xj = build_output("ExpandDims", [x, -2])          # [..., 1, n]: x_j
    ahead = build_output("Greater" if descending else "Less", [xj, xi])
    ties = build_output("Equal", [xj, xi], {"incompatible_shape_error": True})
    n = build_output("StridedSlice", [build_output("Shape", [x]), [-1], [0], [1]],
                     {"begin_mask": 0, "end_mask": 1, "ellipsis_mask": 0, "new_axis_mask": 0,
                      "shrink_axis_mask": 1})
    positions = build_output("Range", [0, n, 1])
    earlier = build_output("Less", [build_output("ExpandDims", [positions, 0]),
                                    build_output("ExpandDims", [positions, 1])])  # j < i
    before = build_output("LogicalOr", [ahead, build_output("LogicalAnd", [ties, earlier])])
    rank = build_output("Sum", [build_output("Cast", [before], {"DstT": dtypes.int32,
                                                                "Truncate": False}), [-1]],
                        {"keep_dims": False})          # [..., n]: sorted position of x_i
    slot = build_output("Equal", [build_output("ExpandDims", [rank, -2]),
                                  build_output("ExpandDims", [positions, 1])],
                        {"incompatible_shape_error": True})  # [..., k, i]: rank_i == k
    return build_output("ArgMax", [build_output("Cast", [slot], {"DstT": dtypes.int32,
                                                                 "Truncate": False}), -1],
                        {"output_type": dtypes.int32})


def _sort_or_argsort(values: Any, axis: int, direction: str, want_values: bool,
                     name: str) -> Output:
    from tfmini.core.scope import name_scope
    from tfmini.ops.array.gather_scatter import gather
    from tfmini.ops.array.shape_ops import transpose

    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    with name_scope(name):
        x = as_operand(values)
        rank = x.shape.rank
        if rank is None:
            raise ValueError("sort needs an input of known rank")
        if not isinstance(axis, (int, np.integer)):
            raise ValueError(f"axis must be a constant scalar, got {axis!r}")
        if rank == 0 or not -rank <= axis < rank:
            raise ValueError(f"Axis {axis} out of range for rank {rank}")
        axis %= rank
        perm = None
        if axis != rank - 1:
            perm = list(range(rank))
            perm[axis], perm[-1] = perm[-1], perm[axis]
            x = transpose(x, perm)
        idx = _sort_indices(x, direction == "DESCENDING")
        out = gather(x, idx, axis=-1, batch_dims=rank - 1) if want_values else idx
        return transpose(out, perm) if perm is not None else out


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING",
         name: str | None = None) -> Output:
    """The values sorted along ``axis`` (``tf.sort``).

    Args:
        values: A real tensor of known rank.
        axis: A constant axis (default the last).
        direction: ``"ASCENDING"`` or ``"DESCENDING"``.
        name: Name scope (default ``sort``).

    Returns:
        A tensor of ``values``' shape.

    Raises:
        ValueError: a bad ``direction`` or ``axis``.
    """
    return _sort_or_argsort(values, axis, direction, True, name or "sort")


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Output:
    """The int32 indices that sort ``values`` along ``axis`` (``tf.argsort``); ties keep their
    order, so the result is stable either way."""
    del stable
    return _sort_or_argsort(values, axis, direction, False, name or "argsort")


__all__ = ["argsort", "searchsorted", "sort"]
