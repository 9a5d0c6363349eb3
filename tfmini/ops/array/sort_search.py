"""Searching sorted rows: LowerBound and UpperBound (``tm.searchsorted``), as
``tensorflow/core/kernels/searchsorted_op.cc``.

``tm.sort``/``tm.argsort`` are TensorFlow's ``TopKV2``-based functions; TopKV2 belongs to the
nn family and is not on this branch, so they are not offered here yet.
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


__all__ = ["searchsorted"]
