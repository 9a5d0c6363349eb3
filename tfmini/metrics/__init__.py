"""``tm.metrics``: TF1's ``tf.compat.v1.metrics``, ``(value, update_op)`` pairs over local
variables. A top layer above ``tfmini.ops``: it never imports the runtime, ``train``,
``keras`` or ``tpu``."""

from __future__ import annotations

from tfmini.metrics import metrics_impl as _metrics_impl
from tfmini.metrics.metrics_impl import *  # noqa: F403

__all__ = sorted(_metrics_impl.__all__)
