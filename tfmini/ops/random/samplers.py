"""Stateful random ops with a variable cost per sample: RandomShuffle, Multinomial,
RandomGamma, RandomPoisson / RandomPoissonV2 and ParameterizedTruncatedNormal.

Signatures, attrs and shape functions are TensorFlow's (``tensorflow/core/ops/random_ops.cc``).
Each run reserves what TensorFlow's kernel reserves from the op's stream (kernels
``random_shuffle_op.cc``, ``multinomial_op.cc``, ``random_op.cc`` (gamma),
``random_poisson_op.cc``, ``parameterized_truncated_normal_op.cc``) and the samples are
TensorFlow's bits (:mod:`tfmini.ops.random.sampling`, :mod:`tfmini.ops.random.truncated`).
"""

from __future__ import annotations

import math

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import sampling, truncated
from tfmini.ops.random.stateful import random_shape
from tfmini.ops.random.stream import check_size, output_dims, stream_for

__all__: list[str] = []

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]


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
    """``value`` with its first dimension in a random order (forward Fisher-Yates, one word
    per step; a run reserves ``ceil((n - 1) / 4)`` blocks)."""
    value = np.asarray(value)
    if value.size <= 1 or value.shape[0] <= 1:
        return value.copy()
    n = value.shape[0]
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(-(-(n - 1) // 4), ctx)
    return value[sampling.shuffle_permutation(n, stream.key, base)]


# ----------------------------------------------------------------------------------------
# Multinomial


def check_multinomial(logits, num_samples) -> tuple[np.ndarray, int]:
    """The checks of ``MultinomialOp::DoCompute``, in its order: the logits and the number of
    samples."""
    logits = np.asarray(logits)
    if logits.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {dims_str(logits.shape)}")
    num = np.asarray(num_samples)
    if num.ndim != 0:
        raise invalid_argument(f"num_samples should be a scalar, got shape {dims_str(num.shape)}")
    n = int(num)
    if n < 0:
        raise invalid_argument(f"num_samples should be non-negative, got {n}")
    if logits.shape[1] <= 0:
        raise invalid_argument(f"num_classes should be positive, got {logits.shape[1]}")
    return logits, n


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
    logits, n = check_multinomial(logits, num_samples)
    batch = logits.shape[0]
    check_size([batch, n], output_dtype)
    if batch * n == 0:
        return np.zeros((batch, n), output_dtype.np_dtype)
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(sampling.multinomial_reserved_blocks(batch, n), ctx)
    return sampling.multinomial(logits, n, stream.key, base).astype(output_dtype.np_dtype)


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
    """Gamma(alpha, 1) samples of shape ``shape + alpha.shape`` (Marsaglia and Tsang; a run
    reserves 256 blocks per output)."""
    return _per_param(ctx, node, shape, alpha, seed, seed2, T, "alpha", sampling.gamma)


# ----------------------------------------------------------------------------------------
# RandomPoisson (deprecated) and RandomPoissonV2


def _per_param(ctx, node, shape, param, seed, seed2, dtype, what, sample):
    """Samples of shape ``shape + param.shape`` drawn by ``sample`` with TensorFlow's
    reservation of 256 blocks per output."""
    dims = output_dims(shape)
    per = check_size(dims, dtype)
    param = np.asarray(param)
    dims = dims + list(param.shape)
    n = check_size(dims, dtype)
    if per == 0:
        return np.zeros(dims, dtype.np_dtype)
    if param.size == 0 and what == "alpha":
        raise invalid_argument("Input alpha should have non-zero element count, got: 0")
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(n * sampling.RESERVED_BLOCKS_PER_OUTPUT, ctx)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    return sample(param, per, stream.key, base, dtype.np_dtype).reshape(dims)


def _poisson(ctx, node, shape, rate, seed, seed2, dtype):
    return _per_param(ctx, node, shape, rate, seed, seed2, dtype, "rate", sampling.poisson)


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
    shape_arr = np.asarray(shape)
    if shape_arr.ndim != 1:
        raise invalid_argument(
            f"Input shape should be a vector, got shape: {dims_str(shape_arr.shape)}")
    if shape_arr.size == 0:
        raise invalid_argument(f"Shape tensor must not be empty, got Tensor<type: "
                               f"{shape_arr.dtype} shape: [0] values: >")
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    params = [np.asarray(p) for p in (means, stdevs, minvals, maxvals)]
    for name, p in zip(("means", "stddevs", "minvals", "maxvals"), params):
        if p.ndim > 1:
            raise invalid_argument(
                f"Input {name} should be a scalar or vector, got shape: {dims_str(p.shape)}")
    num_batches = dims[0]
    per = n // num_batches if num_batches else math.prod(dims[1:])
    if all(p.size == 1 for p in params[:2]) and params[2].ndim == 0 and params[3].ndim == 0:
        # All rows share the parameters: TensorFlow re-cuts the output into rows of 100.
        per = 100
        num_batches = -(-n // per)
    else:
        for name, p in zip(("means", "stddevs", "minvals", "maxvals"), params):
            if p.ndim == 1 and p.shape[0] not in (1, num_batches):
                raise invalid_argument(f"Input {name} should have length 1 or shape[0], got "
                                       f"shape: {dims_str(p.shape)}")
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(truncated.reserved_blocks(num_batches, per), ctx)
    flat = [p.reshape(-1).astype(dtype.np_dtype) for p in params]
    try:
        out = truncated.parameterized_truncated_normal(flat, num_batches, per, n, stream.key,
                                                       base, dtype.np_dtype)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    except truncated.SamplerFailure:
        raise errors.InternalError(
            None, None, "TruncatedNormal rejection sampler failed to accept a sample.") from None
    return out.reshape(dims)


# RandomGamma's gradient (for alpha) is in grad.py.
for _op in ("RandomShuffle", "Multinomial", "RandomPoisson", "RandomPoissonV2",
            "ParameterizedTruncatedNormal"):
    no_gradient(_op)
