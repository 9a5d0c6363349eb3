"""Bitwise ops on integers: BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift,
PopulationCount (``tm.bitwise.*``), as ``tensorflow/core/kernels/cwise_op_*.cc``: shifts are
clamped to ``[0, bits - 1]`` and RightShift is arithmetic on signed types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import build_output, operand_pair
from tfmini.ops.common.type_lists import INT_TYPES
from tfmini.ops.math.elementwise import binary_op, unary_op


def _clamped(x, y):
    bits = x.dtype.itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype)


def _left_shift(x, y):
    return np.left_shift(x, _clamped(x, y))


def _right_shift(x, y):
    return np.right_shift(x, _clamped(x, y))


def _population_count(x):
    u = x.view(f"u{x.dtype.itemsize}") if x.dtype.kind == "i" else x
    counts = np.zeros(x.shape, np.uint8)
    for bit in range(x.dtype.itemsize * 8):
        counts += ((u >> np.asarray(bit, u.dtype)) & np.asarray(1, u.dtype)).astype(np.uint8)
    return counts


binary_op("BitwiseAnd", np.bitwise_and, INT_TYPES, doc="x & y.")
binary_op("BitwiseOr", np.bitwise_or, INT_TYPES, doc="x | y.")
binary_op("BitwiseXor", np.bitwise_xor, INT_TYPES, doc="x ^ y.")
binary_op("LeftShift", _left_shift, INT_TYPES, doc="x << y (y clamped to the bit width).")
binary_op("RightShift", _right_shift, INT_TYPES, doc="x >> y, arithmetic for signed types.")
unary_op("Invert", np.invert, INT_TYPES, doc="~x.")
register_op("PopulationCount", inputs=["x: T"], outputs=["y: uint8"],
            attrs=[f"T: {{{INT_TYPES}}}"], shape_fn=shape_fns.unchanged,
            doc="The number of set bits of each element.")(_population_count)


def _binary(op_type: str, public: str, doc: str):
    def fn(x: Any, y: Any, name: str | None = None) -> Output:
        return build_output(op_type, list(operand_pair(x, y)), name=name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} (``tf.bitwise.{public}``, op ``{op_type}``).\n\nArgs:\n"
                  "    x: An integer tensor.\n    y: An integer tensor of x's dtype.\n"
                  "    name: Optional op name.\n\nReturns:\n    The broadcast result.\n")
    return fn


bitwise_and = _binary("BitwiseAnd", "bitwise_and", "x & y")
bitwise_or = _binary("BitwiseOr", "bitwise_or", "x | y")
bitwise_xor = _binary("BitwiseXor", "bitwise_xor", "x ^ y")
left_shift = _binary("LeftShift", "left_shift", "x << y")
right_shift = _binary("RightShift", "right_shift", "x >> y")


def invert(x: Any, name: str | None = None) -> Output:
    """~x (``tf.bitwise.invert``, op ``Invert``)."""
    return build_output("Invert", [x], name=name)


def population_count(x: Any, name: str | None = None) -> Output:
    """Set bits per element, as uint8 (``tf.math.popcount``, op ``PopulationCount``)."""
    return build_output("PopulationCount", [x], name=name)


# tm.bitwise holds these; tm.* gets none of them (TensorFlow has no top-level bitwise names).
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

__all__: list[str] = []
