"""Select ops: Select and SelectV2, and the TF1-style ``where``/``where_v2``.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.math.operators``, the family's front module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import build_output
from tfmini.ops.common.kernel_util import invalid_argument

# ----------------------------------------------------------------------------------------
# Select, SelectV2


def _select_shape(ic) -> list[TensorShape]:
    # TensorFlow's SelectShapeFn: 'then' and 'else' merge; cond is a scalar, a vector over
    # the first dimension, or of the same shape.
    data = shape_fns.merge_shapes(ic.input_shape(1), ic.input_shape(2))
    cond = as_shape(ic.input_shape(0))
    if cond.rank is None or data.rank is None or cond.rank == 0:
        return [data]
    if cond.rank != 1 or data.rank == 0:
        return [shape_fns.merge_shapes(data, cond)]
    shape_fns.merge_shapes(cond, TensorShape([data.dims[0]]))
    return [data]


def _check_then_else(t_shape: tuple, e_shape: tuple) -> None:
    if t_shape != e_shape:
        raise invalid_argument(
            f"'then' and 'else' must have the same size.  but received: {dims_str(t_shape)} "
            f"vs. {dims_str(e_shape)}",
        )


@register_op(
    "Select",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_shape,
    api_names={"t": "x", "e": "y"},
)
def select_kernel(condition, t, e):
    """Picks from ``t`` where ``condition`` else ``e``; a vector condition picks rows."""
    c = np.asarray(condition)
    t_shape, e_shape = np.shape(t), np.shape(e)
    if c.ndim == 0:
        _check_then_else(t_shape, e_shape)
        return t if c else e
    if c.ndim == 1 and len(t_shape) != 1:
        if not t_shape:
            raise invalid_argument(
                f"'then' must be at least a vector, but saw shape: {dims_str(t_shape)}"
            )
        if t_shape[0] != c.shape[0]:
            raise invalid_argument(
                "Number of batches of 'then' must match size of 'cond', but saw: "
                f"{t_shape[0]} vs. {c.shape[0]}",
            )
        _check_then_else(t_shape, e_shape)
        return np.where(c.reshape(c.shape + (1,) * (len(t_shape) - 1)), t, e)
    for i, s in ((1, t_shape), (2, e_shape)):
        if s != c.shape:
            raise invalid_argument(
                "Inputs to operation Select of type Select must have the same size and shape.  "
                f"Input 0: {dims_str(c.shape)} != input {i}: {dims_str(s)}",
            )
    return np.where(c, t, e)


def _select_v2_shape(ic) -> list[TensorShape]:
    other = shape_fns.broadcast_shapes(ic.input_shape(1), ic.input_shape(2))
    return [shape_fns.broadcast_shapes(ic.input_shape(0), other)]


@register_op(
    "SelectV2",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_v2_shape,
)
def select_v2_kernel(condition, t, e):
    """Picks from ``t`` where ``condition`` else ``e``; all three broadcast."""
    try:
        return np.where(condition, t, e)
    except ValueError:
        raise invalid_argument(
            f"condition {dims_str(np.shape(condition))}, then {dims_str(np.shape(t))}, and "
            f"else {dims_str(np.shape(e))} must be broadcastable",
        ) from None


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _select(op_type: str, condition: Any, x: Any, y: Any, name: str | None) -> Output:
    # Without x and y, tf.where is the coordinates of true elements (the array family's Where).
    if x is None and y is None:
        return build_output("Where", [condition], name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return build_output(op_type, [condition, x, y], name=name)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Output:
    """TF1 ``tf.where``: ``Select`` (a vector condition picks rows of x and y).

    With neither x nor y it returns the coordinates of true elements (op ``Where``,
    which the array family provides).

    Args:
        condition: A bool tensor: a scalar, a vector over x's first dimension, or x's shape.
        x: Values where condition is true.
        y: Values where condition is false (same shape and dtype as x).
        name: Optional op name.

    Returns:
        A tensor of x's shape and dtype.

    Raises:
        ValueError: only one of x and y is given, or the shapes do not fit.
    """
    return _select("Select", condition, x, y, name)


def where_v2(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Output:
    """``tf.where`` of TensorFlow 2: ``SelectV2``, condition, x and y broadcast together.

    Args:
        condition: A bool tensor.
        x: Values where condition is true.
        y: Values where condition is false.
        name: Optional op name.

    Returns:
        A tensor of the broadcast shape.

    Raises:
        ValueError: only one of x and y is given, or the shapes do not broadcast.
    """
    return _select("SelectV2", condition, x, y, name)


__all__ = [
    "where",
    "where_v2",
]
