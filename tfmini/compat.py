"""The TF2 switches a TF1 script calls after ``import tensorflow.compat.v1 as tf``.

tfmini only has graph mode and resource variables, so switching to them changes nothing:
these are kept so a ported script runs unchanged.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

import numpy as np


def disable_v2_behavior() -> None:
    """No-op: tfmini always behaves as TF1 graph mode."""


def disable_eager_execution() -> None:
    """No-op: tfmini has no eager mode."""


def enable_resource_variables() -> None:
    """No-op: ``tm.Variable`` is a resource variable unless ``use_resource=False``."""


def executing_eagerly() -> bool:
    """Always False: ops build graphs, which a Session runs."""
    return False


# ``tf.compat``'s string and type helpers (reachable as tm.compat.*, not at the top level).
# tm.compat.v1 and tm.compat.v2 are tfmini itself (set by tfmini/__init__.py), so
# `tf.compat.v1.placeholder` ports as is.

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes, encoding text (``tf.compat.as_bytes``).

    Raises:
        TypeError: neither bytes nor text.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as str, decoding bytes (``tf.compat.as_text``, ``as_str``).

    Raises:
        TypeError: neither bytes nor text.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """``as_str`` for bytes, ``str(value)`` for anything else (``tf.compat.as_str_any``)."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path: Any) -> Any:
    """A path-like object as str; anything else unchanged (``tf.compat.path_to_str``)."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


def dimension_value(dimension: Any) -> Any:
    """The int (or None) of a dimension (``tf.compat.dimension_value``)."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape: Any, index: int) -> Any:
    """Dimension ``index`` of a shape, None when the rank or dimension is unknown
    (``tf.compat.dimension_at_index``)."""
    dims = getattr(shape, "dims", shape)
    return None if dims is None else dims[index]


__all__ = [
    "disable_eager_execution",
    "disable_v2_behavior",
    "enable_resource_variables",
    "executing_eagerly",
]
