"""``tm.contrib``: what tfmini keeps of TensorFlow 1's ``tf.contrib`` (``tm.contrib.opt``,
``tm.contrib.layers``)."""

from __future__ import annotations

from tfmini.contrib import layers, opt

__all__ = ["layers", "opt"]
