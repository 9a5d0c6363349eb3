"""The initializer classes of ``tf.compat.v1`` (``tm.zeros_initializer()``, ...).

Constant initializers build a Const named as TensorFlow names it ("zeros", "ones",
"Const"); random ones build TensorFlow's random ops exactly as
``tensorflow/python/ops/init_ops.py`` does (``random_uniform(-limit, limit)`` for Glorot,
...), so a seeded graph gives TensorFlow's values. Re-exported by ``tfmini.ops.variables``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core.dtypes import DType, as_dtype, float32
from tfmini.core.graph import Output
from tfmini.core.shapes import as_shape
from tfmini.ops.array import constant, reshape
from tfmini.ops.array import transpose as array_transpose
from tfmini.ops.math import qr, reduce_sum, sign
from tfmini.ops.random import random_normal, random_uniform, truncated_normal


def _shape_list(shape: Any) -> list[int]:
    s = as_shape(shape)
    if not s.is_fully_defined():
        raise ValueError(f"Initializers need a fully defined shape, got {s}")
    return list(s.dims)


class Initializer:
    """Base of the initializer classes: ``init(shape, dtype=None, partition_info=None)``."""

    dtype: DType = float32

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        return cls(**config)

    def _dtype(self, dtype: Any) -> DType:
        return as_dtype(dtype) if dtype is not None else self.dtype


class _Filled(Initializer):
    """An initializer to one value everywhere: ``_fill`` (``np.zeros``...) builds it as a
    Const named ``_op_name``."""

    _fill: Callable[..., np.ndarray]
    _op_name: str

    def __init__(self, dtype: Any = float32):
        self.dtype = as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        return constant(type(self)._fill(_shape_list(shape), dt.np_dtype), dt, name=self._op_name)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Zeros(_Filled):
    """Initializes to zeros (``tm.zeros_initializer()``)."""

    _fill, _op_name = np.zeros, "zeros"


class Ones(_Filled):
    """Initializes to ones (``tm.ones_initializer()``)."""

    _fill, _op_name = np.ones, "ones"


class Constant(Initializer):
    """Initializes to ``value`` (a scalar is broadcast; ``tm.constant_initializer(v)``)."""

    def __init__(self, value: Any = 0, dtype: Any = float32, verify_shape: bool = False):
        self.value = value
        self.dtype = as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None,
                 verify_shape: bool | None = None) -> Output:
        verify = self._verify_shape if verify_shape is None else verify_shape
        return constant(self.value, self._dtype(dtype), shape=_shape_list(shape), name="Const",
                        verify_shape=verify)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name, "verify_shape": self._verify_shape}


class RandomNormal(Initializer):
    """Normal values: ``tm.random_normal(shape, mean, stddev, dtype, seed)``."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        return random_normal(shape, self.mean, self.stddev, self._dtype(dtype), seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values within two standard deviations of the mean (``tm.truncated_normal``)."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        return truncated_normal(shape, self.mean, self.stddev, self._dtype(dtype),
                                seed=self.seed)


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""

    def __init__(self, minval: float = 0.0, maxval: float | None = None,
                 seed: int | None = None, dtype: Any = float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        return random_uniform(shape, self.minval, self.maxval, self._dtype(dtype),
                              seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """Uniform in ``+-sqrt(3 / input_size) * factor``, ``input_size`` the product of all dims
    but the last (deprecated in TensorFlow, still in ``tf.compat.v1``)."""

    def __init__(self, factor: float = 1.0, seed: int | None = None, dtype: Any = float32):
        self.factor, self.seed, self.dtype = factor, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dims = _shape_list(shape)
        input_size = 1.0
        for d in dims[:-1]:
            input_size *= float(d)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return random_uniform(shape, -max_val, max_val, self._dtype(dtype), seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _fans(shape: list[int]) -> tuple[float, float]:
    if not shape:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class VarianceScaling(Initializer):
    """Values scaled to the shape's fans (TensorFlow's VarianceScaling; Glorot/He are cases)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: int | None = None,
                 dtype: Any = float32):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        dims = _shape_list(shape)
        fan_in, fan_out = _fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution in ("normal", "truncated_normal"):
            # The standard deviation of a standard normal cut at +-2 (scipy's truncnorm.std).
            stddev = math.sqrt(scale) / 0.87962566103423978
            return truncated_normal(shape, 0.0, stddev, dt, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(shape, 0.0, math.sqrt(scale), dt, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_uniform(shape, -limit, limit, dt, seed=self.seed)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Glorot/Xavier uniform: limit ``sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, seed: int | None = None, dtype: Any = float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Glorot/Xavier truncated normal: stddev ``sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, seed: int | None = None, dtype: Any = float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """An orthogonal matrix (``tm.orthogonal_initializer``): the Q of a QR decomposition of a
    ``tm.random_normal`` matrix, signs fixed by R's diagonal, times ``gain``. The normal draws
    are TensorFlow's; the factorisation is LAPACK's (values agree to rounding)."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = float32):
        self.gain, self.seed, self.dtype = gain, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        dims = _shape_list(shape)
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows = math.prod(dims[:-1])
        cols = dims[-1]
        flat = (cols, rows) if rows < cols else (rows, cols)
        a = random_normal(flat, dtype=dt, seed=self.seed)
        q = _orthogonal_factor(a, transpose=rows < cols)
        return self.gain * reshape(q, dims)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """The identity matrix times ``gain`` (2-D shapes only)."""

    def __init__(self, gain: float = 1.0, dtype: Any = float32):
        self.gain, self.dtype = gain, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dims = _shape_list(shape)
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dt = self._dtype(dtype)
        return constant(np.eye(*dims, dtype=dt.np_dtype) * self.gain, dt, name="Const")

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


def he_normal(seed: int | None = None) -> VarianceScaling:
    """He normal: truncated normal, ``stddev = sqrt(2 / fan_in)``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    """He uniform: ``limit = sqrt(6 / fan_in)``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    """LeCun normal: truncated normal, ``stddev = sqrt(1 / fan_in)``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    """LeCun uniform: ``limit = sqrt(3 / fan_in)``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
uniform_unit_scaling_initializer = UniformUnitScaling
orthogonal_initializer = Orthogonal
identity_initializer = Identity


def _orthogonal_factor(a: Any, transpose: bool = False) -> Output:
    """The Q of ``a``'s QR with its columns' signs fixed by R's diagonal (the orthogonal
    initializer's construction in ``tensorflow/python/ops/init_ops.py``)."""
    q, r = qr(a)
    n = min(*a.shape.as_list()) if a.shape.is_fully_defined() else None
    if n is None:
        raise ValueError("orthogonal_factor needs a static shape")
    eye = np.eye(r.shape.as_list()[-2], r.shape.as_list()[-1], dtype=r.dtype.np_dtype)
    d = (r * eye)
    q = q * sign(reduce_sum(d, axis=0))
    if transpose:
        q = array_transpose(q)
    return q

__all__ = [
    "constant_initializer",
    "he_normal",
    "he_uniform",
    "identity_initializer",
    "lecun_normal",
    "lecun_uniform",
    "orthogonal_initializer",
    "uniform_unit_scaling_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]
