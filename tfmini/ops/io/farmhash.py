"""FarmHash's ``Fingerprint64`` (farmhashna::Hash64), the hash TensorFlow's
``StringToHashBucketFast`` and ``Fingerprint`` use (``tensorflow/core/platform/fingerprint.h``).

A plain-Python implementation of Google's published algorithm (github.com/google/farmhash,
MIT licence), with every 64-bit operation masked. Fingerprints are stable across platforms,
so tfmini's hash buckets equal TensorFlow's (tests check them against TensorFlow 2.21).
"""

from __future__ import annotations

_M = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _u64(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _u32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rot(v: int, r: int) -> int:
    return ((v >> r) | (v << (64 - r))) & _M if r else v


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _mix16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len_0_to_16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _M
        a = (_u64(s, 0) + _K2) & _M
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _mix16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M
        return _mix16((n + (_u32(s, 0) << 3)) & _M, _u32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len_17_to_32(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _M
    a = (_u64(s, 0) * _K1) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * _K2) & _M
    return _mix16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                  (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _len_33_to_64(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _M
    a = (_u64(s, 0) * _K2) & _M
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M
    d = (_u64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _mix16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_u64(s, 16) * mul) & _M
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _M
    h = ((z + _u64(s, n - 24)) * mul) & _M
    return _mix16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                  (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _u64(s, i), _u64(s, i + 8), _u64(s, i + 16), _u64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    """FarmHash Fingerprint64 of ``s`` (an unsigned 64-bit int)."""
    n = len(s)
    if n <= 16:
        return _len_0_to_16(s)
    if n <= 32:
        return _len_17_to_32(s)
    if n <= 64:
        return _len_33_to_64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _u64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v[1] + _u64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _u64(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _u64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _M
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _M
    v0 = (v[0] + w0) & _M
    w0 = (w0 + v0) & _M
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _u64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _u64(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _u64(s, i + 16)) & _M)
    z, x = x, z
    return _mix16((_mix16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M,
                  (_mix16(v[1], w[1], mul) + x) & _M, mul)
