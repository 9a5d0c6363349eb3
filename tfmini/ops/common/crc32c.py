"""CRC-32C (Castagnoli), as TensorFlow's files use it, and the "masked" form they store.

TensorFlow's checkpoint tables, bundle entries, TFRecord and event files all checksum with
CRC-32C (``tsl/lib/hash/crc32c.h``) and store the CRC *masked*, so that a CRC of data that
itself holds CRCs is not degenerate::

    mask(c) = ((c >> 15) | (c << 17)) + 0xA282EAD8   (mod 2**32)

The sums come from ``google-crc32c`` (Google's C library, hardware CRC where the CPU has it;
about 16 GB/s here). Without its compiled extension a table-driven fallback in Python runs,
correct but slow (about 10 MB/s): only suitable for small files.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # the compiled library; its pure-Python fallback is no faster than ours
    import google_crc32c as _g

    _FAST = _g.implementation == "c"
except ImportError:  # pragma: no cover - depends on the environment
    _g = None
    _FAST = False

__all__ = ["crc32c", "extend", "mask", "unmask", "masked_crc32c"]

_MASK_DELTA = 0xA282EAD8
_POLY = 0x82F63B78  # CRC-32C, reflected


def _table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _table()


def _as_readonly_bytes(data: Any) -> Any:
    """``data`` in a form the C library takes without a copy (a read-only byte buffer)."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, np.ndarray):
        view = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        if view.flags.writeable:
            view = view.view()
            view.flags.writeable = False
        return view
    return bytes(data)


def extend(crc: int, data: Any) -> int:
    """The CRC-32C of (bytes whose CRC is ``crc``) followed by ``data`` (bytes or an array)."""
    if _FAST:
        return _g.extend(crc, _as_readonly_bytes(data))
    raw = bytes(_as_readonly_bytes(data))
    c = crc ^ 0xFFFFFFFF
    table = _TABLE
    for b in raw:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc32c(data: Any) -> int:
    """The CRC-32C of ``data``: ``crc32c(b"123456789") == 0xE3069283``."""
    return extend(0, data)


def mask(crc: int) -> int:
    """TensorFlow's stored form of a CRC (``crc32c::Mask``)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC a stored (masked) value stands for (``crc32c::Unmask``)."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: Any) -> int:
    """``mask(crc32c(data))``."""
    return mask(crc32c(data))
