"""Keras-2 optimizers (``tf.keras.optimizers.legacy``) for tfmini graphs, and the
learning-rate schedules (``tm.keras.optimizers.schedules``)."""

from __future__ import annotations

from tfmini.keras.optimizers import schedules
from tfmini.keras.optimizers.adagrad import Adagrad
from tfmini.keras.optimizers.optimizer_v2 import OptimizerV2

Optimizer = OptimizerV2  # tf.keras.optimizers.legacy.Optimizer

__all__ = ["Adagrad", "Optimizer", "OptimizerV2", "schedules"]
