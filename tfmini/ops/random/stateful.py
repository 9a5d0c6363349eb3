"""The stateful random ops with a fixed cost per sample: RandomStandardNormal, RandomUniform,
RandomUniformInt and TruncatedNormal.

Each reads the same: registration (OpDef and shape function), then the kernel. TensorFlow's
kernels are in ``tensorflow/core/kernels/random_op.cc`` and ``random_op_cpu.h``; every run
reserves ``256`` Philox blocks per output element (``kReservedSamplesPerOutput``) from the op's
stream, whatever the distribution, and the samples are drawn as
:mod:`tfmini.ops.random.distributions` describes.
"""

from __future__ import annotations

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import distributions
from tfmini.ops.random.stream import check_size, output_dims, stream_for

__all__: list[str] = []

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]


def random_shape(ic):
    """TensorFlow's ``shape_inference::RandomShape``: the output shape is the ``shape`` input's
    value (partially known values give partially known shapes)."""
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


def _draw(ctx, node, shape, dtype, seed, seed2, sample):
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(n * distributions.RESERVED_BLOCKS_PER_OUTPUT, ctx)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    return sample(dtype.np_dtype, stream.key, base, n).reshape(dims)


# ----------------------------------------------------------------------------------------
# RandomStandardNormal


@register_op(
    "RandomStandardNormal",
    inputs=["shape: T"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "dtype: {half, float, double}", "T: {int32, int64}"],
    stateful=True,
    shape_fn=random_shape,
)
def random_standard_normal_kernel(ctx, shape, *, seed, seed2, dtype, node):
    """Standard normal samples (Box-Muller on pairs of uniforms)."""
    return _draw(ctx, node, shape, dtype, seed, seed2, distributions.normal)


# ----------------------------------------------------------------------------------------
# RandomUniform


@register_op(
    "RandomUniform",
    inputs=["shape: T"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "dtype: {half, float, double}", "T: {int32, int64}"],
    stateful=True,
    shape_fn=random_shape,
)
def random_uniform_kernel(ctx, shape, *, seed, seed2, dtype, node):
    """Uniform samples in [0, 1)."""
    return _draw(ctx, node, shape, dtype, seed, seed2, distributions.uniform)


# ----------------------------------------------------------------------------------------
# TruncatedNormal


@register_op(
    "TruncatedNormal",
    inputs=["shape: T"],
    outputs=["output: dtype"],
    attrs=[*_SEED_ATTRS, "dtype: {half, float, double}", "T: {int32, int64}"],
    stateful=True,
    shape_fn=random_shape,
)
def truncated_normal_kernel(ctx, shape, *, seed, seed2, dtype, node):
    """Standard normal samples with magnitude below 2 (others are drawn again)."""
    return _draw(ctx, node, shape, dtype, seed, seed2, distributions.truncated_normal)


# ----------------------------------------------------------------------------------------
# RandomUniformInt


def _random_uniform_int_shape(ic):
    shape_fns.with_rank(ic.input_shape("minval"), 0)
    shape_fns.with_rank(ic.input_shape("maxval"), 0)
    return random_shape(ic)


@register_op(
    "RandomUniformInt",
    inputs=["shape: T", "minval: Tout", "maxval: Tout"],
    outputs=["output: Tout"],
    attrs=[*_SEED_ATTRS, "Tout: {int32, int64}", "T: {int32, int64}"],
    stateful=True,
    shape_fn=_random_uniform_int_shape,
)
def random_uniform_int_kernel(ctx, shape, minval, maxval, *, seed, seed2, Tout, node):
    """Integers in [minval, maxval): ``minval + (bits mod (maxval - minval))``."""
    minval, maxval = np.asarray(minval), np.asarray(maxval)
    if minval.ndim != 0:
        raise invalid_argument(f"minval must be 0-D, got shape {dims_str(minval.shape)}")
    if maxval.ndim != 0:
        raise invalid_argument(f"maxval must be 0-D, got shape {dims_str(maxval.shape)}")
    dims = output_dims(shape)
    n = check_size(dims, Tout)
    if n == 0:  # TensorFlow checks the bounds only when there is something to draw
        return np.zeros(dims, Tout.np_dtype)
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    stream = stream_for(ctx, node, seed, seed2)
    base = stream.reserve(n * distributions.RESERVED_BLOCKS_PER_OUTPUT, ctx)
    return distributions.uniform_int(Tout.np_dtype, lo, hi, stream.key, base, n).reshape(dims)


for _op in ("RandomStandardNormal", "RandomUniform", "TruncatedNormal", "RandomUniformInt"):
    no_gradient(_op)
