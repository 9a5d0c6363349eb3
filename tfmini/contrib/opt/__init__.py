"""``tm.contrib.opt``: ``DropStaleGradientOptimizer`` (TF r1.15's ``tf.contrib.opt``)."""

from __future__ import annotations

from tfmini.train.drop_stale import DropStaleGradientOptimizer

__all__ = ["DropStaleGradientOptimizer"]
