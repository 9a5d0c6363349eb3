"""Helpers of the layers: ``smart_cond`` and argument normalisation (tf_keras
``utils/control_flow_util.py``, ``utils/conv_utils.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.ops.common.build_util import constant_value
from tfmini.ops.control_flow import cond

__all__: list[str] = []


def static_bool(pred: Any) -> bool | None:
    """The value of ``pred`` when known at build time, else None.

    Raises:
        TypeError: ``pred`` is a tensor that is not bool (TensorFlow's message, from the
            Switch op its smart_cond builds).
    """
    if isinstance(pred, bool) or pred is None:
        return pred
    if isinstance(pred, int):
        return bool(pred)
    if is_symbolic(pred):
        t = convert_to_tensor(pred)
        if t.dtype.name != "bool":
            raise TypeError(f"Input 'pred' of 'Switch' Op has type {t.dtype.name} that does "
                            "not match expected type of bool.")
        value = constant_value(t)
        return None if value is None else bool(value)
    return bool(pred)


def smart_cond(pred: Any, true_fn: Callable, false_fn: Callable, name: str | None = None):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known at build time, else ``tm.cond``.

    Raises:
        TypeError: ``pred`` is a non-bool tensor.
    """
    value = static_bool(pred)
    if value is None:
        return cond(pred, true_fn, false_fn, name=name)
    return true_fn() if value else false_fn()


def normalize_tuple(value: Any, n: int, name: str) -> tuple:
    """``value`` as an n-tuple of ints (an int repeats).

    Raises:
        ValueError: not an int nor n ints.
    """
    if isinstance(value, int):
        return (value,) * n
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return values


def normalize_padding(value: str) -> str:
    """``"valid"`` or ``"same"`` (case-insensitive).

    Raises:
        ValueError: another value.
    """
    padding = value.lower() if isinstance(value, str) else value
    if padding not in {"valid", "same", "causal"}:
        raise ValueError("The `padding` argument must be a list/tuple or one of "
                         f'"valid", "same" (or "causal", only for `Conv1D). Received: {value}')
    return padding


def normalize_data_format(value: str | None) -> str:
    """``channels_last`` (default) or ``channels_first``.

    Raises:
        ValueError: another value.
    """
    fmt = "channels_last" if value is None else value.lower()
    if fmt not in {"channels_first", "channels_last"}:
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value}')
    return fmt
