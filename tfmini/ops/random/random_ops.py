"""The ``tf.compat.v1`` random functions (``tensorflow/python/ops/random_ops.py``): the raw op,
then the same arithmetic TensorFlow builds after it, under the same names, so a seeded graph
gives TensorFlow's values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.dtypes import as_dtype, float32, int32, int64
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.array import shape as array_shape
from tfmini.ops.array import slice as array_slice
from tfmini.ops.common.build_util import op_scope
from tfmini.ops.math import floormod, maximum, multiply, realdiv, subtract
from tfmini.ops.random.seeds import get_seed

__all__ = [
    "multinomial",
    "random_crop",
    "random_gamma",
    "random_normal",
    "random_poisson",
    "random_shuffle",
    "random_uniform",
    "truncated_normal",
]

_UNIFORM_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _seed_attrs(seed: int | None) -> dict:
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def reserve_scope_name() -> None:
    """Takes the current op scope's own name when no op will be named after it (TensorFlow's
    ``name_scope`` takes it on entry), so the next call gets ``<name>_1``."""
    scope = current_scope()
    scope.graph.unique_name(scope.name_prefix)


def shape_tensor(shape: Any) -> Output:
    """TensorFlow's ``tensor_util.shape_tensor``: a shape as an int32 (int64 when a dim needs
    it) tensor named ``shape``; a tensor is used as it is."""
    if is_symbolic(shape):
        return convert_to_tensor(shape)
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    arr = np.asarray(shape)
    if arr.dtype.kind == "f" and arr.size and not np.all(np.mod(arr, 1) == 0):
        raise TypeError(f"Shape must be integers, got {shape!r}")
    if arr.dtype.kind not in "iub" and arr.size:
        raise TypeError(f"Shape must be integers, got {shape!r}")
    dtype = int32
    if arr.size and (arr.max() > np.iinfo(np.int32).max):
        dtype = int64
    return convert_to_tensor(arr.astype(np.int64 if dtype == int64 else np.int32), dtype=dtype,
                             name="shape")


def _scaled(raw_type: str, default_name: str, shape, mean, stddev, dtype, seed, name) -> Output:
    dtype = as_dtype(dtype)
    with op_scope(name, default_name) as (outer, base):
        shape_t = shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = build_op(current_scope(), raw_type, [shape_t],
                       {"dtype": dtype, **_seed_attrs(seed)}).outputs[0]
        mul = rnd * stddev_t
        return build_op(outer, "AddV2", [mul, mean_t], name=base).outputs[0]


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,
                  seed: int | None = None, name: str | None = None) -> Output:
    """Normal samples ``RandomStandardNormal * stddev + mean`` (``tf.random.normal``).

    Args:
        shape: Output shape (list or 1-D int tensor).
        mean, stddev: Scalars or tensors (broadcast), in ``dtype``.
        dtype: half, float32 or float64.
        seed: Op seed; combined with the graph seed by :func:`get_seed`.
        name: Name scope (default ``"random_normal"``); the result op takes it.
    """
    return _scaled("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed,
                   name)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,
                     seed: int | None = None, name: str | None = None) -> Output:
    """Normal samples cut at two standard deviations (``tf.random.truncated_normal``): values
    further out are drawn again. Arguments as :func:`random_normal`."""
    return _scaled("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed,
                   name)


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32,
                   seed: int | None = None, name: str | None = None) -> Output:
    """Uniform samples in ``[minval, maxval)`` (``tf.random.uniform``).

    Floats are ``RandomUniform * (maxval - minval) + minval`` (only the raw op for the default
    ``0`` and ``1``); integers come from ``RandomUniformInt`` (``maxval`` required).

    Raises:
        ValueError: an unsupported dtype, or no ``maxval`` for an integer dtype.
    """
    dtype = as_dtype(dtype)
    if dtype.name not in _UNIFORM_DTYPES:
        raise ValueError(f"Invalid dtype {dtype!r}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with op_scope(name, "random_uniform") as (outer, base):
        shape_t = shape_tensor(shape)
        minval_is_zero = isinstance(minval, int) and not isinstance(minval, bool) and minval == 0
        maxval_is_one = isinstance(maxval, int) and not isinstance(maxval, bool) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seeds = _seed_attrs(seed)
        if dtype.is_integer:
            return build_op(outer, "RandomUniformInt", [shape_t, minval, maxval], seeds,
                            name=base).outputs[0]
        result = build_op(current_scope(), "RandomUniform", [shape_t],
                          {"dtype": dtype, **seeds}).outputs[0]
        if minval_is_zero:
            reserve_scope_name()
            if not maxval_is_one:
                result = multiply(result, maxval)
            return result
        return build_op(outer, "AddV2", [result * (maxval - minval), minval],
                        name=base).outputs[0]


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Output:
    """``value`` with its first dimension shuffled (``tf.random.shuffle``)."""
    return build_op(current_scope(), "RandomShuffle", [value], _seed_attrs(seed),
                    name=name).outputs[0]


def multinomial(logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None,
                output_dtype: Any = None) -> Output:
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], unnormalised log
    probabilities) (``tf.random.categorical``; ``output_dtype`` int64 by default)."""
    with op_scope(name, "multinomial") as (outer, base):
        reserve_scope_name()
        logits = convert_to_tensor(logits, name="logits")
        num = convert_to_tensor(num_samples, dtype=int32, name="num_samples")
        attrs = {**_seed_attrs(seed), "output_dtype": as_dtype(output_dtype or int64)}
        # TensorFlow names the op "Multinomial" inside the scope; the scope holds no other op.
        return build_op(current_scope(), "Multinomial", [logits, num], attrs).outputs[0]


def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = float32,
                 seed: int | None = None, name: str | None = None) -> Output:
    """Gamma samples of shape ``shape + broadcast(alpha, beta).shape`` (``tf.random.gamma``);
    ``beta`` is the inverse scale (rate)."""
    dtype = as_dtype(dtype)
    with op_scope(name, "random_gamma") as (outer, base):
        reserve_scope_name()
        shape_t = convert_to_tensor(shape, dtype=int32, name="shape")
        alpha_t = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta_t = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        from tfmini.ops.array import broadcast_to, zeros_like

        # broadcast(alpha, beta): alpha + 0 * beta keeps alpha's values and takes both shapes.
        alpha_b = broadcast_to(alpha_t, array_shape(alpha_t + zeros_like(beta_t)))
        sample = build_op(current_scope(), "RandomGamma", [shape_t, alpha_b],
                          _seed_attrs(seed)).outputs[0]
        tiny = np.finfo(dtype.np_dtype).tiny
        return maximum(np.asarray(tiny, dtype.np_dtype), realdiv(sample, beta_t))


def random_poisson(lam: Any, shape: Any, dtype: Any = float32, seed: int | None = None,
                   name: str | None = None) -> Output:
    """Poisson samples of shape ``shape + lam.shape`` (``tf.random.poisson``, TF1 order:
    ``lam`` first)."""
    with op_scope(name, "random_poisson") as (outer, base):
        reserve_scope_name()
        shape_t = convert_to_tensor(shape, dtype=int32, name="shape")
        lam_t = convert_to_tensor(lam)
        return build_op(current_scope(), "RandomPoissonV2", [shape_t, lam_t],
                        {"dtype": as_dtype(dtype), **_seed_attrs(seed)}).outputs[0]


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None
                ) -> Output:
    """A random ``size`` slice of ``value`` (``tf.image.random_crop``): offsets uniform over
    the positions where the slice fits."""
    with op_scope(name, "random_crop") as (outer, base):
        value = convert_to_tensor(value, name="value")
        size_t = convert_to_tensor(size, dtype=int32, name="size")
        shape = array_shape(value)
        limit = subtract(shape, size_t) + 1
        offset = floormod(
            random_uniform(array_shape(shape), dtype=int32, maxval=np.iinfo(np.int32).max,
                           seed=seed), limit)
        return array_slice(value, offset, size_t, name=base)
