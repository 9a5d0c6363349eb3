"""TF1's contrib regularizers: functions ``weights -> scalar loss`` for ``kernel_regularizer``
or ``get_variable(regularizer=...)``, and :func:`apply_regularization`."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import name_scope
from tfmini.ops import math, nn
from tfmini.ops.variables import GraphKeys, add_to_collection, get_collection

__all__ = ["apply_regularization", "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
           "sum_regularizer"]


def _check_scale(scale: Any) -> None:
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}")


def l1_regularizer(scale: float, scope: str | None = None) -> Callable:
    """``scale * Σ|w|`` (a regularizer that returns None when ``scale`` is 0).

    Raises:
        ValueError: an integer or negative ``scale``.
    """
    _check_scale(scale)
    if isinstance(scale, numbers.Real) and scale == 0.0:
        return lambda _: None

    def l1(weights: Any, name: str | None = None) -> Any:
        with name_scope(scope, "l1_regularizer"):
            my_scale = convert_to_tensor(scale, dtype=weights.dtype, name="scale")
            return math.multiply(my_scale, math.reduce_sum(math.abs(weights)), name=name)

    return l1


def l2_regularizer(scale: float, scope: str | None = None) -> Callable:
    """``scale * Σw² / 2`` (``tf.nn.l2_loss``; None when ``scale`` is 0).

    Raises:
        ValueError: an integer or negative ``scale``.
    """
    _check_scale(scale)
    if isinstance(scale, numbers.Real) and scale == 0.0:
        return lambda _: None

    def l2(weights: Any, name: str | None = None) -> Any:
        with name_scope(scope, "l2_regularizer"):
            my_scale = convert_to_tensor(scale, dtype=weights.dtype, name="scale")
            return math.multiply(my_scale, nn.l2_loss(weights), name=name)

    return l2


def sum_regularizer(regularizer_list: Iterable[Callable], scope: str | None = None) -> Callable:
    """The sum of several regularizers' losses (None when every one gives None)."""
    regularizers = list(regularizer_list)
    if not regularizers:
        return lambda _: None

    def total(weights: Any) -> Any:
        with name_scope(scope, "sum_regularizer"):
            terms = [t for t in (r(weights) for r in regularizers) if t is not None]
            return math.add_n(terms) if terms else None

    return total


def l1_l2_regularizer(scale_l1: float = 1.0, scale_l2: float = 1.0,
                      scope: str | None = None) -> Callable:
    """``l1_regularizer(scale_l1) + l2_regularizer(scale_l2)``."""
    if isinstance(scale_l1, numbers.Real) and scale_l1 == 0.0 and \
            isinstance(scale_l2, numbers.Real) and scale_l2 == 0.0:
        return lambda _: None
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def apply_regularization(regularizer: Callable, weights_list: Iterable | None = None) -> Any:
    """The sum of ``regularizer(w)`` over ``weights_list`` (default: the ``WEIGHTS``
    collection), also added to ``REGULARIZATION_LOSSES``.

    Raises:
        ValueError: no weights, or no penalty at all.
    """
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty"):
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p for p in penalties if p is not None]
        if not penalties:
            raise ValueError("No regularization penalties were produced.")
        summed = math.add_n(penalties)
    add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
    return summed
