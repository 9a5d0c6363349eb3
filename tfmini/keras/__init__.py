"""``tm.keras``: the Keras-2 optimizers and learning-rate schedules, in graph mode.

Layer: above ``tfmini.gradients``; never imports ``tfmini.runtime`` (the default session
comes from ``tfmini.core.context``).
"""

from __future__ import annotations

from tfmini.keras import initializers, optimizers, regularizers

__all__ = ["initializers", "optimizers", "regularizers"]
