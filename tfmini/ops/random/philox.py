"""Philox4x32-10, vectorised over blocks, and TensorFlow's bits-to-sample conversions.

The generator is the counter-based Philox4x32-10 of Salmon et al. ("Parallel random numbers:
as easy as 1, 2, 3", SC 2011), as TensorFlow implements it in
``tensorflow/core/lib/random/philox_random.h`` (now ``xla/tsl/lib/random/philox_random.h``):
a 128-bit counter and a 64-bit key give one block of four uint32 words. Block ``i`` of a stream
is the function of ``counter + i`` alone, so a whole request is computed at once: every
uint32 operation below runs on arrays of counters (uint64 lanes holding 32-bit values, so a
32x32 product is one exact uint64 multiply).

The conversions from words to samples follow ``tensorflow/core/lib/random/
random_distributions_utils.h`` and ``random_distributions.h``: the mantissa trick for uniform
floats, Box-Muller for normals (:mod:`tfmini.ops.random.libm` gives glibc's ``logf``/``sincosf``
bits), modulo for bounded integers.
"""

from __future__ import annotations

import math

import numpy as np

from tfmini.ops.random import libm

__all__: list[str] = []

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_LOW = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1

# Blocks computed per pass: small enough for the working arrays to stay in cache.
_CHUNK = 1 << 15


def _round_keys(key: tuple[int, int]) -> list[tuple[np.uint64, np.uint64]]:
    k0, k1 = key
    keys = []
    for _ in range(10):
        keys.append((np.uint64(k0), np.uint64(k1)))
        k0 = (k0 + _W0) & 0xFFFFFFFF
        k1 = (k1 + _W1) & 0xFFFFFFFF
    return keys


def _philox(c0, c1, c2, c3, keys, low_words_only: bool = False):
    """Ten Philox rounds on uint64 arrays (values < 2**32), in place; ``c0``..``c3`` become
    the four output words. Two scratch arrays hold the products. With ``low_words_only``
    only the low 32 bits of the outputs are right (the last round skips two masks: for
    callers that mask the words themselves)."""
    p0 = np.empty_like(c0)
    p1 = np.empty_like(c0)
    last = len(keys) - 1
    for r, (k0, k1) in enumerate(keys):
        np.multiply(c0, _M0, out=p0)
        np.multiply(c2, _M1, out=p1)
        np.right_shift(p1, _S32, out=c0)
        c0 ^= c1
        c0 ^= k0
        np.right_shift(p0, _S32, out=c2)
        c2 ^= c3
        c2 ^= k1
        if low_words_only and r == last:
            return c0, p1, c2, p0
        np.bitwise_and(p1, _LOW, out=c1)
        np.bitwise_and(p0, _LOW, out=c3)
    return c0, c1, c2, c3


def _philox_run(c0, c1: int, c2: int, c3: int, keys, low_words_only: bool = False):
    """:func:`_philox` for consecutive counters whose only varying word is ``c0`` (the
    others are Python ints): the first two rounds have a constant half, computed once."""
    k0, k1 = (int(k) for k in keys[0])
    # Round 1: c2 * M1 is a constant, so new c0 and c1 are too.
    q = c2 * int(_M1)
    s0, s1 = (q >> 32) ^ c1 ^ k0, q & 0xFFFFFFFF
    p0 = c0 * _M0
    a2 = np.right_shift(p0, _S32)
    a2 ^= np.uint64(c3 ^ k1)
    a3 = np.bitwise_and(p0, _LOW, out=p0)
    # Round 2: s0 * M0 is a constant, so new c3 is.
    k0, k1 = (int(k) for k in keys[1])
    q = s0 * int(_M0)
    p1 = a2 * _M1
    b0 = np.right_shift(p1, _S32)
    b0 ^= np.uint64(s1 ^ k0)
    b1 = np.bitwise_and(p1, _LOW, out=p1)
    a3 ^= np.uint64((q >> 32) ^ k1)  # new c2, in a3's array
    b3 = np.full_like(b0, q & 0xFFFFFFFF)
    return _philox(b0, b1, a3, b3, keys[2:], low_words_only)


def words_run(key: tuple[int, int], base: int, count: int,
              low_words_only: bool = False) -> tuple[np.ndarray, ...]:
    """The four words of the ``count`` consecutive blocks from counter ``base`` (four uint64
    arrays): :func:`words_at` for a run, faster when the run's counters differ only in their
    lowest word (the usual case). ``low_words_only``: see :func:`_philox`."""
    base &= _MASK128
    c0 = base & 0xFFFFFFFF
    if c0 + count > 1 << 32:
        return words_at(key, base, np.arange(count, dtype=np.uint64))
    first = np.arange(c0, c0 + count, dtype=np.uint64)
    return _philox_run(first, (base >> 32) & 0xFFFFFFFF, (base >> 64) & 0xFFFFFFFF,
                       base >> 96, _round_keys(key), low_words_only)


def split_counter(counter: int) -> tuple[int, int]:
    """A 128-bit counter as its (low, high) 64-bit halves."""
    counter &= _MASK128
    return counter & _MASK64, counter >> 64


def counter_of(words: tuple[int, int, int, int]) -> int:
    """The 128-bit counter whose uint32 words (least significant first) are ``words``."""
    c0, c1, c2, c3 = (int(w) & 0xFFFFFFFF for w in words)
    return c0 | (c1 << 32) | (c2 << 64) | (c3 << 96)


def words_at(key: tuple[int, int], base: int, offsets: np.ndarray) -> tuple[np.ndarray, ...]:
    """The four words of Philox blocks ``base + offsets[j]``, as four uint64 arrays (values
    below 2**32), for callers that convert them without assembling blocks first.

    Args:
        key: The two uint32 key words.
        base: The 128-bit counter of block 0 (a Python int).
        offsets: uint64 block offsets from ``base`` (one chunk: all are computed at once).
    """
    off = np.asarray(offsets, np.uint64).reshape(-1)
    lo, hi = split_counter(base)
    low = off + np.uint64(lo)  # wraps modulo 2**64 like the 128-bit counter's low half
    carry = low < off
    c0 = low & _LOW
    c1 = low >> _S32
    if carry.any():
        high = np.uint64(hi) + carry.astype(np.uint64)
        c2, c3 = high & _LOW, high >> _S32
    else:
        c2 = np.full(off.size, hi & 0xFFFFFFFF, np.uint64)
        c3 = np.full(off.size, hi >> 32, np.uint64)
    return _philox(c0, c1, c2, c3, _round_keys(key))


def blocks_at(key: tuple[int, int], base: int, offsets: np.ndarray) -> np.ndarray:
    """Philox blocks ``base + offsets[j]`` as a ``(len(offsets), 4)`` uint32 array.

    Args:
        key: The two uint32 key words.
        base: The 128-bit counter of block 0 (a Python int).
        offsets: uint64 block offsets from ``base``.
    """
    offsets = np.asarray(offsets, np.uint64).reshape(-1)
    n = offsets.size
    out = np.empty((n, 4), np.uint32)
    for start in range(0, n, _CHUNK):
        w = words_at(key, base, offsets[start:start + _CHUNK])
        block = out[start:start + w[0].size]
        for j in range(4):
            block[:, j] = w[j]
    return out


def blocks(key: tuple[int, int], base: int, count: int) -> np.ndarray:
    """``count`` consecutive Philox blocks from counter ``base``: a ``(count, 4)`` uint32 array."""
    out = np.empty((count, 4), np.uint32)
    for start in range(0, count, _CHUNK):
        w = words_run(key, base + start, min(_CHUNK, count - start))
        block = out[start:start + w[0].size]
        for j in range(4):
            block[:, j] = w[j]
    return out


def key_counter_from_seeds(seed: int, seed2: int) -> tuple[tuple[int, int], int]:
    """TensorFlow's stateful seeding (``core/util/guarded_philox_random.cc``): key = seed,
    counter = (0, 0, seed2 low, seed2 high); both as 64-bit two's complement."""
    seed &= _MASK64
    seed2 &= _MASK64
    return (seed & 0xFFFFFFFF, seed >> 32), seed2 << 64


# ------------------------------------------------------------------------------------------
# Words -> samples (random_distributions.h)


def uniform_float32(words: np.ndarray) -> np.ndarray:
    """[0, 1) floats from uint32 words: exponent 127, mantissa = the low 23 bits, minus 1."""
    bits = (words & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)
    return bits.view(np.float32) - np.float32(1.0)


def uniform_float16(words: np.ndarray) -> np.ndarray:
    """[0, 1) halves: the low 10 bits of each word as the mantissa of a half in [1, 2)."""
    bits = ((words & np.uint32(0x3FF)) | np.uint32(0x3C00)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def uniform_float64(lo_words: np.ndarray, hi_words: np.ndarray) -> np.ndarray:
    """[0, 1) doubles from word pairs: mantissa = (low 20 bits of the first) * 2**32 + second."""
    bits = ((lo_words.astype(np.uint64) & np.uint64(0xFFFFF)) << _S32) | hi_words.astype(
        np.uint64)
    bits |= np.uint64(0x3FF0000000000000)
    return bits.view(np.float64) - 1.0


_TWO_PI = 2.0 * math.pi


def box_muller_float32(w0: np.ndarray, w1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TensorFlow's BoxMullerFloat: two float32 normals from each pair of words."""
    u1 = uniform_float32(w0)
    np.maximum(u1, np.float32(1.0e-7), out=u1)
    v = (_TWO_PI * uniform_float32(w1).astype(np.float64)).astype(np.float32)
    r = np.sqrt(np.float32(-2.0) * libm.logf(u1))
    s, c = libm.sincosf(v)
    s *= r
    c *= r
    return s, c


def box_muller_float64(w0, w1, w2, w3) -> tuple[np.ndarray, np.ndarray]:
    """TensorFlow's BoxMullerDouble: two float64 normals from four words."""
    u1 = uniform_float64(w0, w1)
    np.maximum(u1, 1.0e-7, out=u1)
    v = _TWO_PI * uniform_float64(w2, w3)
    r = np.sqrt(-2.0 * libm.log(u1))
    s, c = libm.sincos(v)
    return s * r, c * r


def interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[0], b[0], a[1], b[1], ...``"""
    out = np.empty(a.size + b.size, a.dtype)
    out[0::2] = a
    out[1::2] = b
    return out
