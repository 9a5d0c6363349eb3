"""``tm.manip``: tensor manipulation, as ``tf.compat.v1.manip`` (a thin namespace over the
array family)."""

from __future__ import annotations

from tfmini.ops.array import (  # noqa: F401
    batch_to_space_nd,
    gather_nd,
    reshape,
    reverse,
    roll,
    scatter_nd,
    space_to_batch_nd,
    tile,
)

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]
