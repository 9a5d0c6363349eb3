"""TensorFlow's samplers with a variable cost per sample, bit for bit: the random permutation
of RandomShuffle, Multinomial's class draws, Gamma and Poisson.

Pure NumPy (no ops): each function takes the stream's key and the counter of the first block
the run reserved. The reservations themselves (how far a run moves the op's counter) are the
ops' business (:mod:`tfmini.ops.random.samplers`).

* Shuffle (``tensorflow/core/kernels/random_shuffle_op.cc``): forward Fisher-Yates, one 32-bit
  word per step read in order (``SingleSampleAdapter``), ``j = i + word % (n - i)``.
* Multinomial (``multinomial_op.cc``): per row an unnormalised double CDF of
  ``exp(logit - max)`` over the finite logits, then for each sample a double uniform from two
  consecutive words (``SimplePhilox::RandDouble``) times the total, and ``upper_bound``. Rows
  read one shared word sequence; TensorFlow shards rows over threads only for large inputs
  (cost above ``kMinCostPerShard``), where its own bits depend on the thread count.
* Gamma (``random_op.cc``, ``RandomGammaOp``) and Poisson (``random_poisson_op.cc``): output
  ``o = param_index * samples_per_param + sample_index`` draws from its own stream at block
  ``base + 256 * o`` (:class:`tfmini.ops.random.lanes.Lanes`), all arithmetic in double with
  the C library's ``log``, ``log1p``, ``pow`` and ``lgamma``.
"""

from __future__ import annotations

import numpy as np

from tfmini.ops.random import libm, philox
from tfmini.ops.random.lanes import Lanes

__all__: list[str] = []

RESERVED_BLOCKS_PER_OUTPUT = 256


def words(key, base: int, count: int) -> np.ndarray:
    """The first ``count`` 32-bit words of the stream at ``base``, in reading order."""
    return philox.blocks(key, base, -(-count // 4)).reshape(-1)[:count]


def shuffle_permutation(n: int, key, base: int) -> np.ndarray:
    """The order RandomShuffle gives ``range(n)`` (``n >= 2``; ``n - 1`` words)."""
    w = words(key, base, n - 1).astype(np.int64)
    # uint32 modulo, as the kernel's ``uniform(uint32 n)`` lambda computes it.
    spans = (np.arange(n, 1, -1, dtype=np.int64) & 0xFFFFFFFF)
    j = (np.arange(n - 1) + w % spans).tolist()
    perm = list(range(n))
    for i, k in enumerate(j):
        perm[i], perm[k] = perm[k], perm[i]
    return np.array(perm, np.int64)


def multinomial_reserved_blocks(batch: int, num_samples: int) -> int:
    """Blocks a Multinomial run reserves: ``ReserveRandomOutputs(batch * ceil4(n) * 2, 256)``
    (the CPU kernel draws doubles, two words each)."""
    return batch * (-(-num_samples // 4) * 4) * 2 * RESERVED_BLOCKS_PER_OUTPUT


def multinomial(logits: np.ndarray, num_samples: int, key, base: int) -> np.ndarray:
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], classes > 0)."""
    logits = np.asarray(logits)
    batch, classes = logits.shape
    finite = np.isfinite(logits)
    lowest = float(np.finfo(logits.dtype).min) if logits.dtype.kind == "f" else float(
        np.iinfo(logits.dtype).min)
    x = logits.astype(np.float64)
    top = np.where(finite, x, -np.inf).max(axis=1, initial=-np.inf)
    top = np.where(np.isfinite(top), top, lowest)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.where(finite, np.exp(x - top[:, None]), 0.0)
    cdf = np.cumsum(terms, axis=1)
    w = words(key, base, 2 * batch * num_samples)
    u = philox.uniform_float64(w[0::2], w[1::2]).reshape(batch, num_samples)
    out = np.empty((batch, num_samples), np.int64)
    for b in range(batch):
        out[b] = np.searchsorted(cdf[b], u[b] * cdf[b, -1], side="right")
    return out


def _gamma_log_test(u, x, v, d) -> np.ndarray:
    """Marsaglia and Tsang's ``log(u) < x*x/2 + d * (1 - v + log(v))`` with the C library's
    logs: NumPy's decide where the two sides are further apart than the logs' possible
    difference can move them; the near ties use the C library's."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lu, lv = np.log(u), np.log(v)
        rhs = 0.5 * x * x + d * (1 - v + lv)
        margin = 8 * (np.spacing(np.abs(lu)) + np.abs(d) * np.spacing(np.abs(lv))
                      + np.spacing(np.abs(rhs)))
        close = ~(np.abs(lu - rhs) > margin)
        out = lu < rhs
    idx = np.flatnonzero(close)
    if idx.size:
        out[idx] = libm.log(u[idx]) < 0.5 * x[idx] * x[idx] + d[idx] * (
            1 - v[idx] + libm.log(v[idx]))
    return out


def _lanes(key, base: int, n_params: int, per_param: int) -> tuple[Lanes, np.ndarray]:
    """One stream per output, in TensorFlow's output order (parameter-major), and each lane's
    parameter index."""
    n = n_params * per_param
    lanes = Lanes(key, base, np.arange(n, dtype=np.uint64) * np.uint64(
        RESERVED_BLOCKS_PER_OUTPUT))
    return lanes, np.repeat(np.arange(n_params), per_param)


def flush_subnormals(values: np.ndarray) -> np.ndarray:
    """Subnormal floats as zeros (keeping the sign): TensorFlow runs kernels with the CPU's
    flush-to-zero mode on (``port::ScopedFlushDenormal``, tensorflow/core/platform/denormal.h
    in the executor), so a result that would be subnormal comes out as zero."""
    tiny = np.finfo(values.dtype).tiny
    with np.errstate(invalid="ignore"):
        small = np.abs(values) < tiny
    if small.any():
        values = np.where(small, np.copysign(np.zeros((), values.dtype), values), values)
    return values


def _to_output(values: np.ndarray, n_params: int, per_param: int, dtype) -> np.ndarray:
    """Lane values (parameter-major) as the output layout ``[per_param, n_params]`` in
    ``dtype``, converted under flush-to-zero; halves are rounded through float, as
    ``Eigen::half(double)`` does."""
    out = np.ascontiguousarray(values.reshape(n_params, per_param).T)
    dt = np.dtype(dtype)
    if dt.kind != "f":
        return out.astype(dt)
    if dt == np.float16:
        return flush_subnormals(out.astype(np.float32)).astype(dt)
    return flush_subnormals(out.astype(dt))


def gamma(alpha: np.ndarray, per_alpha: int, key, base: int, dtype) -> np.ndarray:
    """Gamma(alpha, 1) samples, ``[per_alpha, alpha.size]`` (Marsaglia and Tsang)."""
    a_flat = np.asarray(alpha).reshape(-1).astype(np.float64)
    lanes, param = _lanes(key, base, a_flat.size, per_alpha)
    alpha_l = a_flat[param]
    res = np.zeros(alpha_l.size)
    one = np.flatnonzero(alpha_l == 1.0)
    if one.size:  # exponential: one uniform (the block's last)
        res[one] = -libm.log1p(-lanes.uniform(one))
    small = alpha_l < 1
    d = alpha_l + np.where(small, 2.0 / 3, -1.0 / 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1.0 / 3 / np.sqrt(d)
    active = np.flatnonzero(alpha_l != 1.0)
    while active.size:
        x = lanes.normal(active)
        with np.errstate(invalid="ignore", over="ignore"):
            v = 1 + c[active] * x
            ok = ~(v <= 0)
        retry = active[~ok]  # these draw the next normal
        active, x, v = active[ok], x[ok], v[ok]
        with np.errstate(invalid="ignore", over="ignore"):
            v = v * v * v
            u = lanes.uniform(active)
            x2 = x * x
            accept = u < 1 - 0.0331 * x2 * x2
            slow = np.flatnonzero(~accept)
            if slow.size:
                accept[slow] = _gamma_log_test(u[slow], x[slow], v[slow], d[active[slow]])
        done = active[accept]
        r = d[done] * v[accept]
        boost = np.flatnonzero(small[done])
        if boost.size:
            b = lanes.uniform(done[boost])
            with np.errstate(all="ignore"):
                r[boost] *= flush_subnormals(libm.pow_(b, 1 / alpha_l[done[boost]]))
        res[done] = r
        active = np.concatenate([retry, active[~accept]])
    return _to_output(res, a_flat.size, per_alpha, dtype)


def _log_at_most(arg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``log(arg) <= t`` with the C library's ``log``: NumPy's log decides wherever it is more
    than a few ulps from ``t`` (both logs are within about an ulp of the true value); the
    near ties are settled with the C library's."""
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.log(arg)
        margin = 8 * np.spacing(np.maximum(np.abs(s), np.abs(t)))
        close = ~(np.abs(s - t) > margin)
    idx = np.flatnonzero(close)
    if idx.size:
        s[idx] = libm.log(arg[idx])
    return s <= t


def _knuth_blocks(key, base: int, lanes: Lanes, knuth: np.ndarray, limit: np.ndarray,
                  res: np.ndarray) -> np.ndarray:
    """Knuth's count for fresh lanes in one pass: each lane's first blocks give its uniforms
    in the kernel's order (per block ``U(w2, w3)`` then ``U(w0, w1)``), whose running product
    (in order, as the kernel multiplies) is compared with ``limit``. Writes the counts into
    ``res`` and returns the positions (in ``knuth``) of lanes that need more blocks."""
    rates = -np.log(limit)
    slow = []
    for start in range(0, knuth.size, 8192):
        part = knuth[start:start + 8192]
        top = max(float(np.nanmax(rates[start:start + 8192])), 0.0)  # rates < 0: one draw
        m = int(np.ceil((top + 6 * np.sqrt(top) + 10) / 2))
        first = lanes.next[part]
        offsets = (first[:, None] + np.arange(m, dtype=np.uint64)).reshape(-1)
        w = philox.blocks_at(key, base, offsets)
        seq = np.empty((part.size, m, 2))
        seq[:, :, 0] = philox.uniform_float64(w[:, 2], w[:, 3]).reshape(part.size, m)
        seq[:, :, 1] = philox.uniform_float64(w[:, 0], w[:, 1]).reshape(part.size, m)
        prod = np.cumprod(seq.reshape(part.size, 2 * m), axis=1)
        hit = prod <= limit[start:start + 8192, None]
        found = hit.any(axis=1)
        res[part[found]] = np.argmax(hit[found], axis=1)
        slow.append(start + np.flatnonzero(~found))
    return np.concatenate(slow) if slow else np.zeros(0, np.int64)


def poisson(rate: np.ndarray, per_rate: int, key, base: int, dtype) -> np.ndarray:
    """Poisson(rate) samples, ``[per_rate, rate.size]``: Knuth's product of uniforms below
    rate 10, Hormann's transformed rejection (PTRS) from 10 on. Rates that are not finite
    give nan (0 for integer outputs), where TensorFlow's kernel never returns."""
    r_flat = np.asarray(rate).reshape(-1).astype(np.float64)
    lanes, param = _lanes(key, base, r_flat.size, per_rate)
    lam = r_flat[param]
    dt = np.dtype(dtype)
    highest = float(np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max)
    res = np.full(lam.size, np.nan)
    # Knuth: count uniforms until their product drops to exp(-rate).
    knuth = np.flatnonzero(lam < 10)
    if knuth.size:
        limit = libm.unique_apply(libm.exp, -lam[knuth])
        slow = _knuth_blocks(key, base, lanes, knuth, limit, res)
        prod = np.ones(slow.size)
        x = np.zeros(slow.size)
        todo = np.arange(slow.size)
        while todo.size:  # the rare lanes the block pass did not finish
            prod[todo] *= lanes.uniform(knuth[slow[todo]])
            stop = (prod[todo] <= limit[slow[todo]]) & (x[todo] <= highest)
            res[knuth[slow[todo[stop]]]] = x[todo[stop]]
            todo = todo[~stop]
            x[todo] += 1
    hormann = np.flatnonzero((lam >= 10) & np.isfinite(lam))
    if hormann.size:
        lr = lam[hormann]
        log_rate = libm.unique_apply(libm.log, lr)
        b = 0.931 + 2.53 * np.sqrt(lr)
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        todo = np.arange(hormann.size)
        while todo.size:
            lane = hormann[todo]
            u = lanes.uniform(lane) - 0.5
            v = lanes.uniform(lane)
            us = 0.5 - np.abs(u)
            at, bt = a[todo], b[todo]
            k = np.floor((2 * at / us + bt) * u + lr[todo] + 0.43)
            ok = ~(k > highest)
            accept = ok & (us >= 0.07) & (v <= v_r[todo])
            rest = ok & ~accept & ~((k < 0) | ((us < 0.013) & (v > us)))
            idx = np.flatnonzero(rest)
            if idx.size:
                arg = v[idx] * inv_alpha[todo[idx]] / (at[idx] / (us[idx] * us[idx]) + bt[idx])
                # k is a whole number: lgamma(k + 1) once per distinct k.
                t = (-lr[todo[idx]] + k[idx] * log_rate[todo[idx]]
                     - libm.unique_apply(libm.lgamma, k[idx] + 1))
                accept[idx] = _log_at_most(arg, t)
            res[lane[accept]] = k[accept]
            todo = todo[~accept]
    if dt.kind != "f":
        res = np.where(np.isnan(res), 0, res)
    return _to_output(res, r_flat.size, per_rate, dt)
