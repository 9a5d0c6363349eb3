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


def _rejection_runs(accept: np.ndarray) -> np.ndarray:
    """For each candidate, how many rejections in a row end at it (0 where accepted)."""
    idx = np.arange(accept.size)
    last = np.maximum.accumulate(np.where(accept, idx, -1))
    return idx - last


class _Row:
    """The sampler one row's parameters select, and its candidates from a stream position."""

    def __init__(self, dt, key, base, mean, std, lo, hi):
        if (lo == -np.inf) or hi < mean:
            lo, hi, std = hi, lo, -std
        self.dt, self.key, self.base, self.mean, self.std = dt, key, base, mean, std
        a = (lo - mean) / std
        b = (hi - mean) / std
        two, four = dt.type(2), dt.type(4)
        sqrt_factor = np.sqrt(a * a + four)
        cutoff = two * _exp(np.asarray(dt.type(0.5) + (a * (a - sqrt_factor)) / four), dt) / (
            a + sqrt_factor)
        self.a, self.b, self.diff = a, b, b - a
        self.per = 2 if dt == np.float64 else 4
        inside = dt.type(_RANDN_INSIDE)
        # A unit is what one pass of TensorFlow's loop consumes: one block of normals, a block
        # of proposals and a block of uniforms, or one block of exponential pairs.
        if (a < -inside and b >= 0) or (b > inside and a <= 0):
            self.mode, self.cands, self.blocks_per = "randn", self.per, 1
        elif self.diff < cutoff:
            self.mode, self.cands, self.blocks_per = "uniform", self.per, 2
        else:
            self.mode, self.cands, self.blocks_per = "exp", self.per // 2, 1
        self.alpha = (a + np.sqrt(a * a + four)) / two
        self.plus = dt.type(0) if a < 0 else a * a

    def candidates(self, block: int, units: int) -> tuple[np.ndarray, np.ndarray]:
        """The normalised candidates of ``units`` units from block ``block`` and which are
        accepted."""
        dt, a, b, two = self.dt, self.a, self.b, self.dt.type(2)
        n = units * self.blocks_per * self.per
        start = self.base + block
        if self.mode == "randn":
            z = distributions.normal(dt, self.key, start, n)
            return z, (z >= a) & (z <= b)
        if self.mode == "uniform":
            u2 = distributions.uniform(dt, self.key, start, n).reshape(units, 2, self.per)
            z = u2[:, 0] * self.diff + a
            g = (self.plus - z * z) / two
            return z.reshape(-1), (u2[:, 1] <= _exp(g, dt)).reshape(-1)
        r = distributions.uniform(dt, self.key, start, n)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            z = -_log(r[0::2], dt) / self.alpha + a
            x = self.alpha - z if a < self.alpha else np.full_like(z, a - self.alpha)
            g = _exp(-x * x / two, dt)
        return z, (r[1::2] <= g) & (z < b)


def _draw_rows(row: _Row, pos: int, needs: list[int]) -> tuple[list[np.ndarray], int]:
    """The samples of consecutive rows sharing ``row``'s parameters, the first from block
    ``pos`` on, each next one from the block after the previous one's last accepted
    candidate; returns them and the next free block."""
    cands = row.cands
    z = np.empty(0, row.dt)
    accept = np.empty(0, bool)
    cum = np.zeros(0, np.int64)  # accepted candidates up to and including each one
    risky = False  # whether the buffer holds MAX_ITERATIONS rejections in a row
    buf_unit = 0  # unit (from pos) of the buffer's first candidate
    unit = 0  # unit where the current row starts
    grow = max(8, 2 * max(needs, default=0) // cands + 4)
    out = []

    def failed(i0: int, stop: int) -> bool:
        # Rejections in a row within the row (TensorFlow's count restarts with each row).
        runs = np.minimum(_rejection_runs(accept[i0:stop]), np.arange(1, stop - i0 + 1))
        return bool(runs.size) and int(runs.max()) >= MAX_ITERATIONS

    for need in needs:
        if need <= 0:
            out.append(np.empty(0, row.dt))
            continue
        while True:
            i0 = (unit - buf_unit) * cands
            before = int(cum[i0 - 1]) if i0 else 0
            if cum.size and cum[-1] - before >= need:
                e = int(np.searchsorted(cum, before + need))
                if risky and failed(i0, e + 1):
                    raise SamplerFailure
                out.append(z[i0:e + 1][accept[i0:e + 1]])
                unit = buf_unit + e // cands + 1
                break
            if risky and failed(i0, accept.size):
                raise SamplerFailure
            # Not enough candidates: keep the row's part of the buffer and draw more.
            more_z, more_accept = row.candidates(
                pos + (buf_unit + z.size // cands) * row.blocks_per, grow)
            z = np.concatenate([z[i0:], more_z])
            accept = np.concatenate([accept[i0:], more_accept])
            cum = np.cumsum(accept)
            risky = bool(accept.size) and int(_rejection_runs(accept).max()) >= MAX_ITERATIONS
            buf_unit = unit
            grow *= 2
    with np.errstate(over="ignore", invalid="ignore"):
        return [v * row.std + row.mean for v in out], pos + unit * row.blocks_per


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
    bi = 0
    while bi < num_batches:
        mean, std, lo, hi = (p[0 if p.size == 1 else bi] for p in params)
        if not (std > 0 and lo < hi and (np.isfinite(lo) or np.isfinite(hi))):
            raise ValueError("Invalid parameters")
        # Consecutive rows with the same parameters share one vectorised pass.
        last = bi + 1
        while last < num_batches and all(
                p.size == 1 or p[last] == p[bi] for p in params):
            last += 1
        starts = [r * samples_per_batch for r in range(bi, last)]
        limits = [min(s + samples_per_batch, num_elements) for s in starts]
        vals, pos = _draw_rows(_Row(dt, key, base, mean, std, lo, hi), pos,
                               [lim - s for s, lim in zip(starts, limits)])
        for s, lim, v in zip(starts, limits, vals):
            out[s:lim] = v
        bi = last
    return out
