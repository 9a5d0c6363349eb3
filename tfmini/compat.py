"""The TF2 switches a TF1 script calls after ``import tensorflow.compat.v1 as tf``.

tfmini only has graph mode and resource variables, so switching to them changes nothing:
these are kept so a ported script runs unchanged.
"""

from __future__ import annotations

from typing import Any


def disable_v2_behavior() -> None:
    """No-op: tfmini always behaves as TF1 graph mode."""


def disable_eager_execution() -> None:
    """No-op: tfmini has no eager mode."""


def enable_resource_variables() -> None:
    """No-op: ``tm.Variable`` is a resource variable unless ``use_resource=False``."""


def executing_eagerly() -> bool:
    """Always False: ops build graphs, which a Session runs."""
    return False


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """``tm.compat.as_bytes``: ``bytes`` as is, ``str`` encoded (bytearray copied).

    Raises:
        TypeError: anything else ("Expected binary or unicode string, got 1").
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """``tm.compat.as_text`` (also ``as_str``): ``str`` as is, ``bytes`` decoded.

    Raises:
        TypeError: anything else ("Expected binary or unicode string, got 1").
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """``tm.compat.as_str_any``: bytes decoded, anything else ``str(value)``."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


# as_bytes/as_text/as_str/as_str_any live in tm.compat only (not at tm's top level).
__all__ = [
    "disable_eager_execution",
    "disable_v2_behavior",
    "enable_resource_variables",
    "executing_eagerly",
]
