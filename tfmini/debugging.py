"""``tm.debugging``: run-time checks, as ``tf.compat.v1.debugging`` (``check_numerics``).

A thin namespace over the array family (:mod:`tfmini.ops.array`).
"""

from __future__ import annotations

from tfmini.ops.array import check_numerics, is_tensor  # noqa: F401

__all__ = ["check_numerics"]
