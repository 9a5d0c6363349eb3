"""LinSpace (``linspace``), Cross (``cross``) and MulNoNan (``multiply_no_nan``), as
``tensorflow/core/kernels/sequence_ops.cc``, ``cross_op.cc`` and ``cwise_op_mul_1.cc``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output, operand_pair
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import FLOAT_TYPES, NUMERIC_TYPES
from tfmini.ops.math.elementwise import binary_op

# ----------------------------------------------------------------------------------------
# LinSpace


def _lin_space_shape(ic) -> list[TensorShape]:
    for i, what in ((0, "start"), (1, "stop"), (2, "num")):
        s = as_shape(ic.input_shape(i))
        if s.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {s.rank} for {what}")
    num = ic.input_value(2)
    return [TensorShape([None if num is None else int(num)])]


@register_op(
    "LinSpace",
    inputs=["start: T", "stop: T", "num: Tidx"],
    outputs=["output: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}", "Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_lin_space_shape,
)
def lin_space_kernel(start, stop, num):
    """``num`` evenly spaced values, ``start + i * (stop - start) / (num - 1)``."""
    a, b, n = np.asarray(start), np.asarray(stop), np.asarray(num)
    for what, v in (("start", a), ("stop", b), ("num", n)):
        if v.ndim != 0:
            raise invalid_argument(f"{what} must be a scalar, not shape {dims_str(v.shape)}")
    n = int(n)
    if n <= 0:
        raise invalid_argument(f"Requires num > 0: {n}")
    if n == 1:
        return np.asarray([a], a.dtype)
    step = (b - a) / a.dtype.type(n - 1)
    return (a + step * np.arange(n, dtype=a.dtype)).astype(a.dtype)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Output:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``), built
    as TensorFlow 2's ``linspace_nd`` builds it for scalars: the ends are exact, the inner
    points are ``start + delta * i`` (``delta = (stop - start) / max(num - 1, 1)``).

    Args:
        start: Scalar float.
        stop: Scalar float of start's dtype.
        num: Scalar int > 0.
        name: Name scope (default ``linspace``).
        axis: Must be 0 (scalar ends).

    Returns:
        1-D tensor of ``num`` values.

    Raises:
        NotImplementedError: non-scalar ends or another axis.
    """
    with name_scope(name, "linspace", [start, stop]):
        start, stop = operand_pair(start, stop)
        if start.shape.rank != 0 or stop.shape.rank != 0 or axis != 0:
            raise NotImplementedError("tfmini's linspace takes scalar start and stop")
        num_int = as_operand(num, dtypes.int32)
        one = as_operand(1, dtypes.int32)
        # delta = (stop - start) / max(num - 1, 1); inner points 1 .. max(num - 2, 0).
        steps = build_output("Maximum", [build_output("Sub", [num_int, one]), one])
        delta = build_output("RealDiv", [build_output("Sub", [stop, start]), build_output(
            "Cast", [steps], {"DstT": start.dtype, "Truncate": False})])
        n_inner = build_output("Maximum", [build_output("Sub", [num_int, as_operand(
            2, dtypes.int32)]), as_operand(0, dtypes.int32)])
        inner = build_output("Cast", [build_output("Range", [1, build_output(
            "AddV2", [n_inner, one]), 1])], {"DstT": start.dtype, "Truncate": False})
        middle = build_output("AddV2", [start, build_output("Mul", [delta, inner])])
        whole = array_ops.concat([array_ops.reshape(start, [1]), middle,
                                  array_ops.reshape(stop, [1])], 0)
        return array_ops.slice(whole, [0], array_ops.reshape(num_int, [1]))


lin_space = linspace

# ----------------------------------------------------------------------------------------
# Cross


def _cross_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    s = shape_fns.merge_shapes(a, b)
    if s.dims is not None and s.dims[-1] is not None and s.dims[-1] != 3:
        raise ValueError(f"Dimension must be 3 but is {s.dims[-1]}")
    return [s if s.dims is not None else unknown_shape()]


@register_op(
    "Cross",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=[f"T: {{{NUMERIC_TYPES}}}"],
    shape_fn=_cross_shape,
)
def cross_kernel(a, b):
    """Pairwise cross products of 3-vectors in the last dimension."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise invalid_argument(f"Both inputs must be of same shape: {dims_str(a.shape)} vs. "
                               f"{dims_str(b.shape)}")
    if a.ndim < 1:
        raise invalid_argument("Input must be at least 1D")
    if a.shape[-1] != 3:
        raise invalid_argument(f"Argument 'a' must have 3 elements in its inner-most dimension, "
                               f"got {a.shape[-1]}")
    return np.cross(a, b).astype(a.dtype)


def cross(a: Any, b: Any, name: str | None = None) -> Output:
    """Cross products of 3-vectors (``tf.linalg.cross``, op ``Cross``)."""
    return build_output("Cross", list(operand_pair(a, b)), name=name)


# ----------------------------------------------------------------------------------------
# MulNoNan


def _mul_no_nan(x, y):
    return np.where(y == 0, np.zeros((), x.dtype), np.multiply(x, y)).astype(x.dtype)


binary_op("MulNoNan", _mul_no_nan, FLOAT_TYPES, doc="x * y, 0 where y == 0 (even if x is NaN).")


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> Output:
    """x * y, 0 where y is 0 even for infinite or NaN x (``tf.math.multiply_no_nan``)."""
    return build_output("MulNoNan", list(operand_pair(x, y)), name=name)


__all__ = ["cross", "lin_space", "linspace"]
