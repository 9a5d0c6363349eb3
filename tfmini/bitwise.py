"""``tm.bitwise``: bitwise operations on integers, as ``tf.compat.v1.bitwise``."""

from __future__ import annotations

from tfmini.ops.math import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
