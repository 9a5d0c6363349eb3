"""``tm.contrib``: what tfmini keeps of TensorFlow 1's ``tf.contrib`` (``tm.contrib.opt``)."""

from __future__ import annotations

from tfmini.contrib import opt

__all__ = ["opt"]
