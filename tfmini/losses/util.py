"""The loss collections (``tensorflow/python/ops/losses/util.py``)."""

from __future__ import annotations

from typing import Any

from tfmini.ops import math
from tfmini.ops.array import constant
from tfmini.ops.variables import GraphKeys, get_collection

__all__ = ["get_losses", "get_regularization_loss", "get_regularization_losses",
           "get_total_loss"]


def get_losses(scope: str | None = None, loss_collection: str = GraphKeys.LOSSES) -> list:
    """The losses in ``loss_collection`` (names matching ``scope``)."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope: str | None = None) -> list:
    """The tensors in ``REGULARIZATION_LOSSES`` (names matching ``scope``)."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: str | None = None,
                            name: str = "total_regularization_loss") -> Any:
    """The sum of the regularization losses (``total_regularization_loss``), or 0.0."""
    losses = get_regularization_losses(scope)
    if losses:
        return math.add_n(losses, name=name)
    return constant(0.0)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: str | None = None) -> Any:
    """``add_n`` of the ``LOSSES`` (and regularization losses): ``total_loss``.

    Raises:
        ValueError: no losses at all.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("No losses found: add losses to the LOSSES or REGULARIZATION_LOSSES "
                         "collection first.")
    return math.add_n(losses, name=name)
