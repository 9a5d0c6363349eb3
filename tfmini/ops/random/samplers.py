"""Stateful random ops whose samples are not TensorFlow's bits: RandomShuffle, Multinomial,
RandomGamma, RandomPoisson / RandomPoissonV2 and ParameterizedTruncatedNormal.

Their signatures, attrs, shape functions, errors and per-session streams are TensorFlow's
(``tensorflow/core/ops/random_ops.cc``; kernels ``random_shuffle_op.cc``,
``multinomial_op.cc``, ``random_gamma_op.cc``, ``random_poisson_op.cc``,
``parameterized_truncated_normal_op.cc``), and each run draws the next numbers of the op's
stream, but the samples come from NumPy's samplers driven by a generator keyed by the op's
Philox key and counter: the same seeds give the same values in tfmini, and the distributions
are right, but the values differ from TensorFlow's (docs/random.md).
"""

from __future__ import annotations

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random.stateful import random_shape
from tfmini.ops.random.stream import check_size, output_dims, stream_for

__all__: list[str] = []

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]


def _generator(ctx, node, seed, seed2, n_outputs: int) -> np.random.Generator:
    """A NumPy generator for this run: the op's key and the counter this run reserved."""
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(max(n_outputs, 1) * 256, ctx)
    key = stream.key[0] | (stream.key[1] << 32)
    return np.random.Generator(np.random.Philox(key=key, counter=base))


# ----------------------------------------------------------------------------------------
# RandomShuffle


@register_op(
    "RandomShuffle",
    inputs=["value: T"],
    outputs=["output: T"],
    attrs=[*_SEED_ATTRS, "T: type"],
    stateful=True,
    shape_fn=shape_fns.unchanged,
)
def random_shuffle_kernel(ctx, value, *, seed, seed2, node):
    """``value`` with its first dimension in a random order."""
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    rng = _generator(ctx, node, seed, seed2, value.shape[0])
    return value[rng.permutation(value.shape[0])]


# ----------------------------------------------------------------------------------------
# Multinomial


def _multinomial_shape(ic):
    logits = shape_fns.with_rank(ic.input_shape("logits"), 2)
    shape_fns.with_rank(ic.input_shape("num_samples"), 0)
    n = shape_fns.dim_from_scalar_input(ic, "num_samples", 1)
    return [TensorShape([logits.dims[0], n])]


@register_op(
    "Multinomial",
    inputs=["logits: T", "num_samples: int32"],
    outputs=["output: output_dtype"],
    attrs=[*_SEED_ATTRS, "T: {half, float, double, int32, int64}",
           "output_dtype: {int32, int64} = DT_INT64"],
    stateful=True,
    shape_fn=_multinomial_shape,
)
def multinomial_kernel(ctx, logits, num_samples, *, seed, seed2, output_dtype, node):
    """Class indices drawn from ``softmax(logits)`` row by row."""
    logits = np.asarray(logits)
    if logits.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {dims_str(logits.shape)}")
    num = np.asarray(num_samples)
    if num.ndim != 0:
        raise invalid_argument(f"num_samples should be a scalar, got shape {dims_str(num.shape)}")
    n = int(num)
    if n < 0:
        raise invalid_argument(f"num_samples should be nonnegative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and batch * n:
        raise invalid_argument(f"num_classes should be positive, got {classes}")
    check_size([batch, n], output_dtype)
    if batch * n == 0:
        return np.zeros((batch, n), output_dtype.np_dtype)
    rng = _generator(ctx, node, seed, seed2, batch * n)
    x = logits.astype(np.float64)
    x = x - np.max(np.where(np.isfinite(x), x, -np.inf), axis=1, keepdims=True)
    cdf = np.cumsum(np.where(np.isfinite(x), np.exp(x), 0.0), axis=1)
    u = rng.random((batch, n)) * cdf[:, -1:]
    out = np.empty((batch, n), np.int64)
    for b in range(batch):
        out[b] = np.minimum(np.searchsorted(cdf[b], u[b], side="right"), classes - 1)
    return out.astype(output_dtype.np_dtype)


# ----------------------------------------------------------------------------------------
# RandomGamma


def _gamma_shape(ic):
    out = shape_fns.shape_from_shape_tensor(ic, "shape")
    alpha = ic.input_shape("alpha")
    if out.dims is None or alpha.dims is None:
        return [TensorShape(None)]
    return [TensorShape(list(out.dims) + list(alpha.dims))]


@register_op(
    "RandomGamma",
    inputs=["shape: S", "alpha: T"],
    outputs=["output: T"],
    attrs=[*_SEED_ATTRS, "S: {int32, int64}", "T: {half, float, double}"],
    stateful=True,
    shape_fn=_gamma_shape,
)
def random_gamma_kernel(ctx, shape, alpha, *, seed, seed2, T, node):  # noqa: N803
    """Gamma(alpha, 1) samples of shape ``shape + alpha.shape``."""
    dims = output_dims(shape) + list(np.shape(alpha))
    n = check_size(dims, T)
    if n == 0:
        return np.zeros(dims, T.np_dtype)
    rng = _generator(ctx, node, seed, seed2, n)
    a = np.broadcast_to(np.asarray(alpha, np.float64), dims)
    with np.errstate(invalid="ignore"):
        out = np.where(a > 0, rng.standard_gamma(np.where(a > 0, a, 1.0)), np.nan)
    return out.astype(T.np_dtype)


# ----------------------------------------------------------------------------------------
# RandomPoisson (deprecated) and RandomPoissonV2


def _poisson(ctx, node, shape, rate, seed, seed2, dtype):
    dims = output_dims(shape) + list(np.shape(rate))
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    rng = _generator(ctx, node, seed, seed2, n)
    lam = np.broadcast_to(np.asarray(rate, np.float64), dims)
    ok = np.isfinite(lam) & (lam >= 0)
    draws = rng.poisson(np.where(ok, lam, 0.0)).astype(np.float64)
    draws = np.where(ok, draws, np.nan)
    if dtype.is_integer:
        draws = np.where(ok, draws, 0)
    return draws.astype(dtype.np_dtype)


def _rate_shape(ic):
    out = shape_fns.shape_from_shape_tensor(ic, "shape")
    rate = ic.input_shape("rate")
    if out.dims is None or rate.dims is None:
        return [TensorShape(None)]
    return [TensorShape(list(out.dims) + list(rate.dims))]


@register_op(
    "RandomPoisson",
    inputs=["shape: S", "rate: dtype"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "S: {int32, int64}", "dtype: {half, float, double}"],
    stateful=True,
    shape_fn=_rate_shape,
)
def random_poisson_kernel(ctx, shape, rate, *, seed, seed2, dtype, node):
    """Poisson(rate) samples of shape ``shape + rate.shape`` (deprecated V1)."""
    return _poisson(ctx, node, shape, rate, seed, seed2, dtype)


@register_op(
    "RandomPoissonV2",
    inputs=["shape: S", "rate: R"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "S: {int32, int64}", "R: {half, float, double, int32, int64} = DT_DOUBLE",
           "dtype: {half, float, double, int32, int64} = DT_INT64"],
    stateful=True,
    shape_fn=_rate_shape,
)
def random_poisson_v2_kernel(ctx, shape, rate, *, seed, seed2, dtype, node):
    """Poisson(rate) samples of shape ``shape + rate.shape``."""
    return _poisson(ctx, node, shape, rate, seed, seed2, dtype)


# ----------------------------------------------------------------------------------------
# ParameterizedTruncatedNormal


@register_op(
    "ParameterizedTruncatedNormal",
    inputs=["shape: T", "means: dtype", "stdevs: dtype", "minvals: dtype", "maxvals: dtype"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "dtype: {half, float, double}", "T: {int32, int64}"],
    stateful=True,
    shape_fn=random_shape,
)
def parameterized_truncated_normal_kernel(ctx, shape, means, stdevs, minvals, maxvals, *,
                                          seed, seed2, dtype, node):
    """Normal(mean, stdev) samples cut to [minval, maxval], one batch row per parameter."""
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    batch = dims[0] if dims else 1
    per = n // batch if batch else 0
    params = []
    for name, p in (("means", means), ("stdevs", stdevs), ("minvals", minvals),
                    ("maxvals", maxvals)):
        p = np.asarray(p, np.float64).reshape(-1)
        if p.size not in (1, batch):
            raise invalid_argument(
                f"Input {name} should have length 1 or shape[0], got shape: {p.size}")
        params.append(np.broadcast_to(p, (batch,))[:, None])
    mean, std, lo, hi = params
    rng = _generator(ctx, node, seed, seed2, n)
    a = (lo - mean) / std
    b = (hi - mean) / std
    out = np.empty((batch, per))
    todo = np.ones((batch, per), bool)
    z = np.zeros((batch, per))
    for _ in range(1000):
        if not todo.any():
            break
        cand = rng.standard_normal((batch, per))
        ok = todo & (cand >= a) & (cand <= b)
        z[ok] = cand[ok]
        todo &= ~ok
    if todo.any():  # far tails: uniform over the interval (rare; TensorFlow uses exponentials)
        fill = rng.uniform(np.broadcast_to(a, (batch, per)), np.broadcast_to(b, (batch, per)))
        z[todo] = fill[todo]
    out = mean + std * z
    return out.reshape(dims).astype(dtype.np_dtype)


for _op in ("RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "RandomPoissonV2",
            "ParameterizedTruncatedNormal"):
    no_gradient(_op)
