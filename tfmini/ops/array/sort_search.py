"""Searching sorted rows: LowerBound and UpperBound (``tm.searchsorted``), as
``tensorflow/core/kernels/searchsorted_op.cc``; and ``tm.sort`` / ``tm.argsort``, built as
``tensorflow/python/ops/sort_ops.py`` builds them: one ``TopKV2`` with k = the size of the
sorted axis (O(n) memory), a transpose around it for another axis, and an order-reversing map
of the values for ASCENDING. Gradients flow through TopKV2's (and Neg/Sub/Transpose).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, name_scope
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


def _descending_sort(values: Output, axis: int, return_argsort: bool) -> Output:
    """``TopKV2`` with k = the axis size over the last axis, swapping ``axis`` to the end and
    back when it is another (the swap is its own inverse), as ``sort_ops._descending_sort``."""
    from tfmini.ops.array.basic import constant
    from tfmini.ops.array.filling import range as range_
    from tfmini.ops.array.shape_ops import rank, shape, transpose
    from tfmini.ops.array.tensor_scatter import tensor_scatter_update

    k = shape(values)[axis]
    dyn_rank = rank(values)
    static_rank = values.shape.rank
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if axis < 0:
            axis = axis + static_rank if static_rank is not None else axis + dyn_rank
        if static_rank is not None:
            perm = [*range(axis), static_rank - 1, *range(axis + 1, static_rank - 1), axis]
            transposition = constant(np.asarray(perm, np.int64), name="transposition")
        else:
            transposition = tensor_scatter_update(
                range_(dyn_rank), [[axis], [dyn_rank - 1]], [dyn_rank - 1, axis])
        top_k_input = transpose(values, transposition)
    # TopKV2 belongs to the nn family, which imports this one: it is built by its type name.
    topk = build_op(current_scope(), "TopKV2", [top_k_input, k], {"sorted": True},
                    name="TopKV2")
    out = topk.outputs[1] if return_argsort else topk.outputs[0]
    return transpose(out, transposition) if transposition is not None else out


def _ascending_sort(values: Output, axis: int, return_argsort: bool) -> Output:
    """The descending sort of an order-reversing map of ``values``, mapped back: ``max - x``
    for unsigned types, ``-x - 1`` for signed integers (exact at the minimum), ``-x`` for
    floats. TopKV2 puts the lower index first among equals, so the order is stable."""
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        out = _descending_sort(offset - values, axis, return_argsort)
        return out if return_argsort else offset - out
    if dtype.is_integer:
        out = _descending_sort(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Output:
    """As ``tensorflow/python/ops/sort_ops.py``: the axis must be a constant scalar."""
    impl = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}
    if direction not in impl:
        raise ValueError("Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    axis_t = convert_to_tensor(axis, name="axis")
    axis_static = static_value(axis_t)
    if axis_t.shape.rank not in (None, 0) or axis_static is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    return impl[direction](values, int(axis_static), return_argsort)


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
    with name_scope(name or "sort"):
        return _sort_or_argsort(values, axis, direction, False)


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Output:
    """The int32 indices that sort ``values`` along ``axis`` (``tf.argsort``); ties keep their
    order, so the result is stable either way."""
    del stable  # TopKV2 already keeps equal values in their order
    with name_scope(name or "argsort"):
        return _sort_or_argsort(values, axis, direction, True)


__all__ = ["argsort", "searchsorted", "sort"]
