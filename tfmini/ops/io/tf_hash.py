"""TensorFlow's own ``Hash64`` (``tensorflow/core/lib/hash/hash.cc``: MurmurHash64A with the
seed ``0xDECAFCAFFE``), the hash of the ``StringToHashBucket`` op, in plain Python with every
64-bit operation masked; tests check its buckets against TensorFlow 2.21."""

from __future__ import annotations

_M = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SHIFT = 47
SEED = 0xDECAFCAFFE


def hash64(s: bytes, seed: int = SEED) -> int:
    """TensorFlow's Hash64 of ``s`` (an unsigned 64-bit int)."""
    n = len(s)
    h = (seed ^ (n * _MUL)) & _M
    full = n - n % 8
    for i in range(0, full, 8):
        k = (int.from_bytes(s[i:i + 8], "little") * _MUL) & _M
        k ^= k >> _SHIFT
        h ^= (k * _MUL) & _M
        h = (h * _MUL) & _M
    if n > full:  # the last 1..7 bytes, little-endian
        h ^= int.from_bytes(s[full:], "little")
        h = (h * _MUL) & _M
    h ^= h >> _SHIFT
    h = (h * _MUL) & _M
    return h ^ (h >> _SHIFT)
