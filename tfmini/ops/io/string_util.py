"""Small helpers the string-op modules share: tfmini's string tensors are object arrays whose
elements are ``bytes`` (fed or computed) or ``str`` (Python literals); TensorFlow's are bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_bytes(v: Any) -> bytes:
    """One element as bytes (a ``str`` is UTF-8 encoded)."""
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    return bytes(v)


def as_text(v: Any) -> str:
    """One element as text (bytes are decoded as UTF-8)."""
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def byte_strings(x: Any) -> np.ndarray:
    """``x`` as an object array of bytes, of x's shape."""
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = as_bytes(v)
    return out


def map_strings(fn, x: Any, otype=object) -> np.ndarray:
    """``fn`` applied to each element of ``x`` (as bytes); an array of x's shape."""
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=otype)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = fn(as_bytes(v))
    return out


def utf8_char_starts(s: bytes) -> list[int]:
    """The byte offset of each UTF-8 character of ``s`` (continuation bytes are skipped)."""
    return [i for i, b in enumerate(s) if (b & 0xC0) != 0x80]
