"""``tm.debugging``: checks, as ``tf.compat.v1.debugging``: ``Assert``, ``check_numerics``,
the ``assert_*`` family (the math family's ``check_ops``) and the monotonic predicates.

A thin namespace over the families that define them.
"""

from __future__ import annotations

from tfmini.ops import math as _math
from tfmini.ops.array import check_numerics, is_tensor  # noqa: F401
from tfmini.ops.control_flow import Assert  # noqa: F401
from tfmini.ops.math import (  # noqa: F401
    is_finite,
    is_inf,
    is_nan,
    is_non_decreasing,
    is_strictly_increasing,
)

# The assert_* functions, from the math family's own list.
_CHECK_NAMES = [name for name in _math.__all__ if name.startswith("assert_")]
globals().update({name: getattr(_math, name) for name in _CHECK_NAMES})

__all__ = ["Assert", "check_numerics", "is_finite", "is_inf", "is_nan", "is_non_decreasing",
           "is_strictly_increasing", *_CHECK_NAMES]
