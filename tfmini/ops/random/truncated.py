"""ParameterizedTruncatedNormal's samples, bit for bit
(``tensorflow/core/kernels/parameterized_truncated_normal_op.cc``, ``TruncatedNormalFunctor``).

Each batch row (``shape[0]`` rows; rows of 100 when all four parameters are scalars) picks one
of three samplers from its normalised bounds ``[a, b]``:

* the bounds hold the mean and 1.3 standard deviations on one side: normal draws, kept when
  inside ``[a, b]``;
* else, when ``b - a`` is below a cutoff: a uniform ``z`` on ``[a, b]`` from one block, kept when
  a uniform from the next block is at most ``exp((a**2 if a > 0 else 0) - z*z) / 2)``;
* else: exponential proposals from pairs of uniforms.

All arithmetic is in the output type (halves: each step rounded, as ``Eigen::half``), with the
C library's ``expf``/``logf`` (``exp``/``log`` for doubles). The rows read one stream in
order, each from the block after the last one the previous row used: that is TensorFlow's
order when it runs the rows on one thread, which it does unless the work is large (its shard
cost above about 200 000 cycles, roughly 1 000 samples), where its own bits depend on the
thread count.
"""

from __future__ import annotations

import numpy as np

from tfmini.ops.random import distributions, libm

__all__: list[str] = []

MAX_ITERATIONS = 1000
_RANDN_INSIDE = 1.3


class SamplerFailure(Exception):
    """A rejection sampler rejected ``MAX_ITERATIONS`` proposals in a row (TensorFlow: an
    Internal error)."""


def reserved_blocks(num_batches: int, samples_per_batch: int) -> int:
    """``ReserveSamples128(num_batches * 2 * kMaxIterations * (samples_per_batch + 3) / 4)``."""
    return num_batches * 2 * MAX_ITERATIONS * (samples_per_batch + 3) // 4


def _exp(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    if dt == np.float64:
        return libm.exp(x)
    return libm.expf(x.astype(np.float32)).astype(dt)


def _log(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    if dt == np.float64:
        return libm.log(x)
    with np.errstate(divide="ignore"):
        return libm.logf(x.astype(np.float32)).astype(dt)


def _first_accepted(accept: np.ndarray, need: int) -> int:
    """How many candidates (in order) it takes to accept ``need``; -1 if ``accept`` has fewer.
    Raises SamplerFailure on a run of ``MAX_ITERATIONS`` rejections before that."""
    hits = np.flatnonzero(accept)
    end = hits[need - 1] + 1 if hits.size >= need else accept.size
    gaps = np.diff(np.concatenate([[-1], hits[hits < end]])) - 1
    tail = end - 1 - (hits[hits < end][-1] if (hits < end).any() else -1)
    if (gaps.size and gaps.max() >= MAX_ITERATIONS) or (hits.size < need
                                                        and tail >= MAX_ITERATIONS):
        raise SamplerFailure
    return int(end) if hits.size >= need else -1


def _draw_batch(dt, key, base, pos, need, mean, std, lo, hi):
    """``need`` samples of one row from block ``pos`` on; returns them and the next block."""
    if (lo == -np.inf) or hi < mean:
        lo, hi, std = hi, lo, -std
    a = (lo - mean) / std
    b = (hi - mean) / std
    two, four = dt.type(2), dt.type(4)
    sqrt_factor = np.sqrt(a * a + four)
    cutoff = two * _exp(np.asarray(dt.type(0.5) + (a * (a - sqrt_factor)) / four), dt) / (
        a + sqrt_factor)
    diff = b - a
    per = 2 if dt == np.float64 else 4
    out = np.empty(0, dt)
    if need <= 0:
        return out, pos
    inside = dt.type(_RANDN_INSIDE)
    if (a < -inside and b >= 0) or (b > inside and a <= 0):
        mode, cands, blocks_per = "randn", per, 1
    elif diff < cutoff:
        mode, cands, blocks_per = "uniform", per, 2
    else:
        mode, cands, blocks_per = "exp", per // 2, 1
    alpha = (a + np.sqrt(a * a + four)) / two
    plus = dt.type(0) if a < 0 else a * a
    chunk = max(8, 2 * need // cands + 4)
    while need > 0:
        n = chunk * blocks_per * per
        if mode == "randn":
            z = distributions.normal(dt, key, base + pos, n)
            accept = (z >= a) & (z <= b)
        elif mode == "uniform":
            u2 = distributions.uniform(dt, key, base + pos, n).reshape(chunk, 2, per)
            z = u2[:, 0] * diff + a
            g = (plus - z * z) / two
            accept = (u2[:, 1] <= _exp(g, dt)).reshape(-1)
            z = z.reshape(-1)
        else:
            r = distributions.uniform(dt, key, base + pos, n)
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                z = -_log(r[0::2], dt) / alpha + a
                x = alpha - z if a < alpha else np.full_like(z, a - alpha)
                g = _exp(-x * x / two, dt)
            accept = (r[1::2] <= g) & (z < b)
        end = _first_accepted(accept, need)
        if end < 0:  # the whole chunk goes by without enough samples
            out = np.concatenate([out, z[accept]])
            need -= int(accept.sum())
            pos += chunk * blocks_per
            chunk *= 2
            continue
        out = np.concatenate([out, z[:end][accept[:end]]])
        pos += int((end - 1) // cands + 1) * blocks_per
        need = 0
    with np.errstate(over="ignore", invalid="ignore"):
        return out * std + mean, pos


def parameterized_truncated_normal(params, num_batches: int, samples_per_batch: int,
                                   num_elements: int, key, base: int, dtype) -> np.ndarray:
    """The flat output of one run.

    Args:
        params: ``(means, stddevs, minvals, maxvals)``, 1-D arrays of the output dtype of
            length 1 or ``num_batches``.
        num_batches, samples_per_batch: The rows as the kernel arranges them.
        num_elements: The output size (the last row may be short).
        key, base: The stream and the first block the run reserved.
        dtype: The output dtype.

    Raises:
        ValueError: a row's parameters are invalid (TensorFlow: "Invalid parameters").
        SamplerFailure: see the class.
    """
    dt = np.dtype(dtype)
    out = np.empty(num_elements, dt)
    pos = 0
    for bi in range(num_batches):
        mean, std, lo, hi = (p[0 if p.size == 1 else bi] for p in params)
        if not (std > 0 and lo < hi and (np.isfinite(lo) or np.isfinite(hi))):
            raise ValueError("Invalid parameters")
        start = bi * samples_per_batch
        limit = min(start + samples_per_batch, num_elements)
        vals, pos = _draw_batch(dt, key, base, pos, limit - start, mean, std, lo, hi)
        out[start:limit] = vals
    return out
