"""``tm.keras.regularizers``: Keras's weight regularizers ``l1``, ``l2``, ``l1_l2``
(tf_keras ``regularizers.py``): ``l1·Σ|w| + l2·Σw²``."""

from __future__ import annotations

from typing import Any

from tfmini.ops import math

__all__ = ["L1", "L1L2", "L2", "Regularizer", "l1", "l1_l2", "l2"]


class Regularizer:
    """Base class: a callable ``weights -> scalar loss``."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    def get_config(self) -> dict:
        """The constructor arguments."""
        return {}


class L1L2(Regularizer):
    """``l1·Σ|w| + l2·Σw²``.

    Args:
        l1, l2: The factors (default 0).
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0):  # noqa: D107
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x: Any) -> Any:
        loss = None
        if self.l1:
            loss = math.multiply(self.l1, math.reduce_sum(math.abs(x)))
        if self.l2:
            term = math.multiply(self.l2, math.reduce_sum(math.square(x)))
            loss = term if loss is None else math.add(loss, term)
        return loss if loss is not None else math.cast(0.0, x.dtype)

    def get_config(self) -> dict:
        """``{"l1": ..., "l2": ...}``."""
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """``l1·Σ|w|`` (default 0.01)."""

    def __init__(self, l1: float = 0.01):  # noqa: D107
        super().__init__(l1=l1)


class L2(L1L2):
    """``l2·Σw²`` (default 0.01)."""

    def __init__(self, l2: float = 0.01):  # noqa: D107
        super().__init__(l2=l2)


def l1(l1: float = 0.01) -> L1:  # noqa: D103
    return L1(l1)


def l2(l2: float = 0.01) -> L2:  # noqa: D103
    return L2(l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """``L1L2(l1, l2)`` with Keras's defaults (0.01 each)."""
    return L1L2(l1, l2)
