"""Samples from a Philox stream exactly as TensorFlow's CPU kernels draw them.

Pure NumPy (no ops): every function takes the stream's key and the counter of its first
block and returns a flat array. The layout follows ``tensorflow/core/kernels/random_op_cpu.h``
(``FillPhiloxRandom``) and ``tensorflow/core/lib/random/random_distributions.h``:

* Fixed-cost distributions (uniform, normal, uniform int): output group ``g`` (4 elements for
  16/32-bit types, 2 for 64-bit ones) is computed from block ``base + g`` alone; a final
  partial group computes a whole block and keeps its first elements.
* Truncated normal: group ``g`` reads its own stream, starting at block ``base + g * 256``
  (``+ g * 128`` for doubles: kReservedSamplesPerOutput times the group size over the four
  words of a block), word by word, and keeps the normals with ``|z| < 2`` until it has its
  group's count (``TruncatedNormalDistribution`` with ``SingleSampleAdapter``).

Work is done in chunks of blocks small enough for the temporaries to stay in cache (the
Box-Muller path has more temporaries, so it takes half the chunk the others take).
"""

from __future__ import annotations

import numpy as np

from tfmini.ops.random import philox

__all__: list[str] = []

# TensorFlow reserves this many blocks per output element per run (random_op.cc:
# kReservedSamplesPerOutput), whatever the distribution.
RESERVED_BLOCKS_PER_OUTPUT = 256
CHUNK_BLOCKS = 4096


def group_size(dtype: np.dtype) -> int:
    """Elements computed from one Philox block: 4 for 16/32-bit types, 2 for 64-bit ones."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _fill(n: int, per_block: int, dtype, key, base: int, convert, chunk: int = 0) -> np.ndarray:
    """Runs ``convert(words)`` (``(m, 4)`` uint32 -> ``(m, per_block)`` samples) over the
    blocks that ``n`` samples need, chunk by chunk."""
    nb = -(-n // per_block)
    out = np.empty((nb, per_block), dtype)
    chunk = chunk or CHUNK_BLOCKS
    for start in range(0, nb, chunk):
        stop = min(nb, start + chunk)
        out[start:stop] = convert(philox.blocks(key, base + start, stop - start))
    return out.reshape(-1)[:n]


_MANTISSA32 = np.uint64(0x7FFFFF)
_ONE32 = np.uint32(0x3F800000)


def _uniform32(n: int, key, base: int) -> np.ndarray:
    # The float32 path fused for speed: each word's low 23 bits go straight into its output
    # column, then one pass sets the exponent of 1.0 and one subtracts 1 (the mantissa trick
    # of philox.uniform_float32, without the intermediate block array).
    nb = -(-n // 4)
    out = np.empty((nb, 4), np.float32)
    bits = out.view(np.uint32)
    chunk = 2 * CHUNK_BLOCKS
    for start in range(0, nb, chunk):
        stop = min(nb, start + chunk)
        w = philox.words_run(key, base + start, stop - start, low_words_only=True)
        rows = bits[start:stop]
        for j in range(4):
            np.bitwise_and(w[j], _MANTISSA32, out=rows[:, j], casting="unsafe")
        rows |= _ONE32
        out[start:stop] -= np.float32(1.0)
    return out.reshape(-1)[:n]


def uniform(dtype, key, base: int, n: int) -> np.ndarray:
    """``n`` uniform [0, 1) samples of a float dtype (float16, float32, float64)."""
    dt = np.dtype(dtype)
    if dt == np.float32:
        return _uniform32(n, key, base)
    if dt == np.float16:
        return _fill(n, 4, dt, key, base, philox.uniform_float16, 2 * CHUNK_BLOCKS)

    def f64(w):
        return np.stack([philox.uniform_float64(w[:, 0], w[:, 1]),
                         philox.uniform_float64(w[:, 2], w[:, 3])], axis=1)
    return _fill(n, 2, dt, key, base, f64, 2 * CHUNK_BLOCKS)


def _normal32(w: np.ndarray) -> np.ndarray:
    # Both pairs of every block in one Box-Muller call: (w0, w1) -> outputs 0, 1 and
    # (w2, w3) -> outputs 2, 3.
    m = w.shape[0]
    s, c = philox.box_muller_float32(w[:, 0::2].reshape(-1), w[:, 1::2].reshape(-1))
    out = np.empty((m, 4), np.float32)
    out[:, 0::2] = s.reshape(m, 2)
    out[:, 1::2] = c.reshape(m, 2)
    return out


def _normal64(w: np.ndarray) -> np.ndarray:
    out = np.empty((w.shape[0], 2), np.float64)
    out[:, 0], out[:, 1] = philox.box_muller_float64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
    return out


def normal(dtype, key, base: int, n: int) -> np.ndarray:
    """``n`` standard normal samples (half: the float32 values rounded)."""
    dt = np.dtype(dtype)
    if dt == np.float64:
        return _fill(n, 2, dt, key, base, _normal64)
    return _fill(n, 4, np.float32, key, base, _normal32).astype(dt, copy=False)


def uniform_int(dtype, lo: int, hi: int, key, base: int, n: int) -> np.ndarray:
    """``n`` integers ``lo + (bits mod (hi - lo))`` (int32: one word each; int64: two)."""
    dt = np.dtype(dtype)
    if dt == np.int32:
        span = np.uint32((hi - lo) & 0xFFFFFFFF)
        low = np.uint32(lo & 0xFFFFFFFF)

        def i32(w):
            return (low + w % span).view(np.int32)
        return _fill(n, 4, dt, key, base, i32, 2 * CHUNK_BLOCKS)
    span64 = np.uint64((hi - lo) & 0xFFFFFFFFFFFFFFFF)
    low64 = np.uint64(lo & 0xFFFFFFFFFFFFFFFF)

    def i64(w):
        w = w.astype(np.uint64)
        bits = np.stack([w[:, 0] | (w[:, 1] << np.uint64(32)),
                         w[:, 2] | (w[:, 3] << np.uint64(32))], axis=1)
        return (low64 + bits % span64).view(np.int64)
    return _fill(n, 2, dt, key, base, i64, 2 * CHUNK_BLOCKS)


def truncated_normal(dtype, key, base: int, n: int) -> np.ndarray:
    """``n`` standard normals with ``|z| < 2``, group by group as TensorFlow draws them."""
    dt = np.dtype(dtype)
    size = group_size(dt)
    groups = -(-n // size)
    stride = RESERVED_BLOCKS_PER_OUTPUT * size // 4
    work = np.float64 if dt == np.float64 else np.float32
    out = np.zeros((groups, size), work)
    count = np.zeros(groups, np.int64)
    active = np.arange(groups, dtype=np.int64)
    step = 0
    while active.size:
        offsets = active.astype(np.uint64) * np.uint64(stride) + np.uint64(step)
        w = philox.blocks_at(key, base, offsets)
        if work == np.float64:
            s, c = philox.box_muller_float64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
            candidates = (s, c)
        else:
            s0, c0 = philox.box_muller_float32(w[:, 0], w[:, 1])
            s1, c1 = philox.box_muller_float32(w[:, 2], w[:, 3])
            candidates = (s0, c0, s1, c1)
        cnt = count[active]
        for v in candidates:
            take = (np.abs(v) < 2.0) & (cnt < size)
            out[active[take], cnt[take]] = v[take]
            cnt += take
        count[active] = cnt
        active = active[cnt < size]
        step += 1
    return out.reshape(-1)[:n].astype(dt, copy=False)
