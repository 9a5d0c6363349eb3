"""The stateless random ops: the seed is an input, so the same seed gives the same numbers on
every run (``tensorflow/core/kernels/stateless_random_ops.cc``).

The ``[2]`` seed input is scrambled into a Philox key and counter as TensorFlow's
``GenerateKey`` does: one Philox block of counter ``(seed0, seed1)`` under a fixed key gives
the key (its first two words) and the counter's high half (the other two). The samples are
then drawn exactly as the stateful ops draw them from counter 0 of that stream (bit-exact for
normal, uniform, uniform int and truncated normal; StatelessMultinomial as Multinomial).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype, float32, int64
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import op_scope
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import distributions, philox, samplers, sampling
from tfmini.ops.random.random_ops import reserve_scope_name, shape_tensor
from tfmini.ops.random.stream import check_size, output_dims

__all__ = [
    "stateless_categorical",
    "stateless_multinomial",
    "stateless_random_normal",
    "stateless_random_uniform",
    "stateless_truncated_normal",
]

# GenerateKey's fixed scrambling key (stateless_random_ops.cc).
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)


def key_counter_from_seed(seed: Any) -> tuple[tuple[int, int], int]:
    """The Philox key and first counter for a stateless ``[2]`` seed."""
    s0, s1 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.asarray(seed).reshape(-1))
    mix = philox.blocks(_SCRAMBLE_KEY, s0 | (s1 << 64), 1)[0]
    return (int(mix[0]), int(mix[1])), philox.counter_of((0, 0, int(mix[2]), int(mix[3])))


def check_seed(seed: Any) -> np.ndarray:
    """A stateless op's ``[2]`` seed input, checked as TensorFlow checks it."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {dims_str(seed.shape)}")
    return seed


def _stateless_shape(ic):
    seed = shape_fns.with_rank(ic.input_shape("seed"), 1)
    if seed.dims[0] is not None and seed.dims[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {seed.dims[0]}")
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


_STATELESS_ATTRS = ["dtype: {half, float, double} = DT_FLOAT", "T: {int32, int64} = DT_INT32",
                    "Tseed: {int32, int64} = DT_INT64"]


def _stateless(shape, seed, dtype, sample):
    seed = check_seed(seed)
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    key, counter = key_counter_from_seed(seed)
    return sample(dtype.np_dtype, key, counter, n).reshape(dims)


@register_op("StatelessRandomNormal", inputs=["shape: T", "seed: Tseed"],
             outputs=["output: dtype"], attrs=_STATELESS_ATTRS, shape_fn=_stateless_shape)
def stateless_random_normal_kernel(shape, seed, *, dtype):
    """Standard normal samples determined by ``seed``."""
    return _stateless(shape, seed, dtype, distributions.normal)


@register_op("StatelessRandomUniform", inputs=["shape: T", "seed: Tseed"],
             outputs=["output: dtype"], attrs=_STATELESS_ATTRS, shape_fn=_stateless_shape)
def stateless_random_uniform_kernel(shape, seed, *, dtype):
    """Uniform [0, 1) samples determined by ``seed``."""
    return _stateless(shape, seed, dtype, distributions.uniform)


@register_op("StatelessTruncatedNormal", inputs=["shape: T", "seed: Tseed"],
             outputs=["output: dtype"], attrs=_STATELESS_ATTRS, shape_fn=_stateless_shape)
def stateless_truncated_normal_kernel(shape, seed, *, dtype):
    """Standard normal samples below 2 in magnitude, determined by ``seed``."""
    return _stateless(shape, seed, dtype, distributions.truncated_normal)


def _stateless_int_shape(ic):
    shape_fns.with_rank(ic.input_shape("minval"), 0)
    shape_fns.with_rank(ic.input_shape("maxval"), 0)
    return _stateless_shape(ic)


@register_op("StatelessRandomUniformInt",
             inputs=["shape: T", "seed: Tseed", "minval: dtype", "maxval: dtype"],
             outputs=["output: dtype"],
             attrs=["dtype: {int32, int64}", "T: {int32, int64}",
                    "Tseed: {int32, int64} = DT_INT64"],
             shape_fn=_stateless_int_shape)
def stateless_random_uniform_int_kernel(shape, seed, minval, maxval, *, dtype):
    """Integers in [minval, maxval) determined by ``seed``."""
    minval, maxval = np.asarray(minval), np.asarray(maxval)
    if minval.ndim != 0:
        raise invalid_argument(f"minval must be 0-D, got shape {dims_str(minval.shape)}")
    if maxval.ndim != 0:
        raise invalid_argument(f"maxval must be 0-D, got shape {dims_str(maxval.shape)}")
    seed = check_seed(seed)
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    key, counter = key_counter_from_seed(seed)
    return distributions.uniform_int(dtype.np_dtype, lo, hi, key, counter, n).reshape(dims)


def _stateless_multinomial_shape(ic):
    logits = shape_fns.with_rank(ic.input_shape("logits"), 2)
    shape_fns.with_rank(ic.input_shape("num_samples"), 0)
    shape_fns.with_rank(ic.input_shape("seed"), 1)
    n = shape_fns.dim_from_scalar_input(ic, "num_samples", 1)
    return [TensorShape([logits.dims[0], n])]


@register_op("StatelessMultinomial",
             inputs=["logits: T", "num_samples: int32", "seed: Tseed"],
             outputs=["output: output_dtype"],
             attrs=["T: {half, float, double, int32, int64}", "Tseed: {int32, int64} = DT_INT64",
                    "output_dtype: {int32, int64} = DT_INT64"],
             shape_fn=_stateless_multinomial_shape)
def stateless_multinomial_kernel(logits, num_samples, seed, *, output_dtype):
    """Class indices from ``softmax(logits)`` row by row, determined by ``seed`` (drawn as
    Multinomial draws them, from counter 0 of the seed's stream)."""
    seed = check_seed(seed)
    logits, n = samplers.check_multinomial(logits, num_samples)
    batch = logits.shape[0]
    check_size([batch, n], output_dtype)
    if batch * n == 0:
        return np.zeros((batch, n), output_dtype.np_dtype)
    key, counter = key_counter_from_seed(seed)
    return sampling.multinomial(logits, n, key, counter).astype(output_dtype.np_dtype)


for _op in ("StatelessRandomNormal", "StatelessRandomUniform", "StatelessTruncatedNormal",
            "StatelessRandomUniformInt", "StatelessMultinomial"):
    no_gradient(_op)


# ------------------------------------------------------------------------------------------
# Python API (tensorflow/python/ops/stateless_random_ops.py)


def _seed_tensor(seed: Any) -> Output:
    return convert_to_tensor(seed, dtype=int64, name="seed") if not hasattr(seed, "op") \
        else seed


def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                            dtype: Any = float32, name: str | None = None) -> Output:
    """Normal samples determined by the ``[2]`` int ``seed`` (``tf.random.stateless_normal``).
    """
    dtype = as_dtype(dtype)
    with op_scope(name, "stateless_random_normal") as (outer, base):
        shape_t = shape_tensor(shape)
        seed_t = _seed_tensor(seed)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = build_op(current_scope(), "StatelessRandomNormal", [shape_t, seed_t],
                       {"dtype": dtype}).outputs[0]
        return build_op(outer, "AddV2", [rnd * stddev_t, mean_t], name=base).outputs[0]


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = float32, name: str | None = None) -> Output:
    """Truncated normal samples determined by ``seed``
    (``tf.random.stateless_truncated_normal``)."""
    dtype = as_dtype(dtype)
    with op_scope(name, "stateless_truncated_normal") as (outer, base):
        shape_t = shape_tensor(shape)
        seed_t = _seed_tensor(seed)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = build_op(current_scope(), "StatelessTruncatedNormal", [shape_t, seed_t],
                       {"dtype": dtype}).outputs[0]
        return build_op(outer, "AddV2", [rnd * stddev_t, mean_t], name=base).outputs[0]


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = float32, name: str | None = None) -> Output:
    """Uniform samples in ``[minval, maxval)`` determined by ``seed``
    (``tf.random.stateless_uniform``; integer dtypes need ``maxval``)."""
    dtype = as_dtype(dtype)
    if dtype.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise ValueError(f"Invalid dtype {dtype!r}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with op_scope(name, "stateless_random_uniform") as (outer, base):
        shape_t = shape_tensor(shape)
        seed_t = _seed_tensor(seed)
        minval_t = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval_t = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return build_op(outer, "StatelessRandomUniformInt",
                            [shape_t, seed_t, minval_t, maxval_t], name=base).outputs[0]
        rnd = build_op(current_scope(), "StatelessRandomUniform", [shape_t, seed_t],
                       {"dtype": dtype}).outputs[0]
        return build_op(outer, "AddV2", [rnd * (maxval_t - minval_t), minval_t],
                        name=base).outputs[0]


def stateless_multinomial(logits: Any, num_samples: Any, seed: Any, output_dtype: Any = int64,
                          name: str | None = None) -> Output:
    """Class indices from ``logits`` determined by ``seed`` (``tf.random.stateless_multinomial``).
    """
    with op_scope(name, "stateless_multinomial") as (outer, base):
        reserve_scope_name()
        logits_t = convert_to_tensor(logits, name="logits")
        num = convert_to_tensor(num_samples, name="num_samples")
        return build_op(current_scope(), "StatelessMultinomial",
                        [logits_t, num, _seed_tensor(seed)],
                        {"output_dtype": as_dtype(output_dtype)}).outputs[0]


def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = int64,
                          name: str | None = None) -> Output:
    """``tf.random.stateless_categorical``: :func:`stateless_multinomial` with ``dtype``."""
    return stateless_multinomial(logits, num_samples, seed, output_dtype=dtype,
                                 name=name or "stateless_categorical")
