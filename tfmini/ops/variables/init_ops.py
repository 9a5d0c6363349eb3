"""The initializer classes of ``tf.compat.v1`` (``tm.zeros_initializer()``, ...).

Each builds its value as a Const named as TensorFlow names the op producing it
("zeros", "ones", "Const", "random_uniform", ...). Random initializers draw
their values with NumPy when the graph is built (a seeded initializer gives the
same values every time; TensorFlow's own random streams are not reproduced).
Re-exported by ``tfmini.ops.variables.variables``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core.dtypes import DType, as_dtype, float32
from tfmini.core.graph import Output
from tfmini.core.shapes import as_shape
from tfmini.ops.array import constant


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


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)


class RandomNormal(Initializer):
    """Normal values (drawn when the graph is built; same values for the same seed)."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        values = _rng(self.seed).normal(self.mean, self.stddev, _shape_list(shape))
        return constant(values.astype(dt.np_dtype), dt, name="random_normal")

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


def _truncated_normal(rng: np.random.Generator, mean: float, stddev: float,
                      shape: list[int]) -> np.ndarray:
    # Redraw values more than two standard deviations out, as TensorFlow's TruncatedNormal.
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return mean + stddev * out


class TruncatedNormal(RandomNormal):
    """Normal values within two standard deviations of the mean."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        values = _truncated_normal(_rng(self.seed), self.mean, self.stddev, _shape_list(shape))
        return constant(values.astype(dt.np_dtype), dt, name="truncated_normal")


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""

    def __init__(self, minval: float = 0, maxval: float | None = None, seed: int | None = None,
                 dtype: Any = float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        dims = _shape_list(shape)
        if dt.is_integer:
            if self.maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
            values = _rng(self.seed).integers(self.minval, self.maxval, dims)
        else:
            hi = 1.0 if self.maxval is None else self.maxval
            values = _rng(self.seed).uniform(self.minval, hi, dims)
        return constant(values.astype(dt.np_dtype), dt, name="random_uniform")

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


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
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Output:
        dt = self._dtype(dtype)
        dims = _shape_list(shape)
        fan_in, fan_out = _fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        rng = _rng(self.seed)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            values, op_name = rng.uniform(-limit, limit, dims), "random_uniform"
        elif self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / 0.87962566103423978  # std of a N(0,1) cut at +-2
            values, op_name = _truncated_normal(rng, 0.0, stddev, dims), "truncated_normal"
        else:
            values, op_name = rng.normal(0.0, math.sqrt(scale), dims), "random_normal"
        return constant(values.astype(dt.np_dtype), dt, name=op_name)

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


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal


__all__ = [
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]
