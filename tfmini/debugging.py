"""``tm.debugging``: checks, as ``tf.compat.v1.debugging``: ``Assert``, ``check_numerics``,
the ``assert_*`` family (:mod:`tfmini.ops.check_ops`) and the monotonic predicates.

A thin namespace over the families that define them.
"""

from __future__ import annotations

from tfmini.ops.array import check_numerics, is_tensor  # noqa: F401
from tfmini.ops.check_ops import *  # noqa: F401,F403
from tfmini.ops.check_ops import __all__ as _check_names
from tfmini.ops.control_flow import Assert  # noqa: F401
from tfmini.ops.math import (  # noqa: F401
    is_finite,
    is_inf,
    is_nan,
    is_non_decreasing,
    is_strictly_increasing,
)

__all__ = ["Assert", "check_numerics", "is_finite", "is_inf", "is_nan", "is_non_decreasing",
           "is_strictly_increasing", *_check_names]
