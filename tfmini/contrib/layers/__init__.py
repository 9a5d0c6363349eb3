"""``tm.contrib.layers``: TF1's weight regularizers (``tf.contrib.layers``:
``tensorflow/contrib/layers/python/layers/regularizers.py`` in TensorFlow 1.15)."""

from __future__ import annotations

from tfmini.contrib.layers import regularizers as _regularizers
from tfmini.contrib.layers.regularizers import *  # noqa: F403

__all__ = sorted(_regularizers.__all__)
