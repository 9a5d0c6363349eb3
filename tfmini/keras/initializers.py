"""``tm.keras.initializers``: the basic Keras initializers as ``tf.compat.v1.keras``
(graph mode) has them: TF1's initializer classes under Keras names, with Keras's defaults
(``RandomNormal(0.0, 0.05)``, ``RandomUniform(-0.05, 0.05)``, ``TruncatedNormal(0.0, 0.05)``),
and ``get`` / ``serialize`` / ``deserialize``.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.dtypes import float32
from tfmini.ops import variables as _init  # the initializers live in the variables family

Initializer = _init.Initializer
Zeros = _init.zeros_initializer
Ones = _init.ones_initializer
Constant = _init.constant_initializer
VarianceScaling = _init.variance_scaling_initializer
GlorotUniform = _init.glorot_uniform_initializer
GlorotNormal = _init.glorot_normal_initializer
Orthogonal = _init.orthogonal_initializer
Identity = _init.identity_initializer


class RandomNormal(_init.random_normal_initializer):
    """Normal values, ``stddev`` 0.05 by default."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None,
                 dtype: Any = float32):
        super().__init__(mean, stddev, seed, dtype)


class RandomUniform(_init.random_uniform_initializer):
    """Uniform values in ``[-0.05, 0.05)`` by default."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None,
                 dtype: Any = float32):
        super().__init__(minval, maxval, seed, dtype)


class TruncatedNormal(_init.truncated_normal_initializer):
    """Truncated normal values, ``stddev`` 0.05 by default."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None,
                 dtype: Any = float32):
        super().__init__(mean, stddev, seed, dtype)


class HeNormal(VarianceScaling):
    """``VarianceScaling(2.0, "fan_in", "truncated_normal")``."""

    def __init__(self, seed: int | None = None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class HeUniform(VarianceScaling):
    """``VarianceScaling(2.0, "fan_in", "uniform")``."""

    def __init__(self, seed: int | None = None):
        super().__init__(2.0, "fan_in", "uniform", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class LecunNormal(VarianceScaling):
    """``VarianceScaling(1.0, "fan_in", "truncated_normal")``."""

    def __init__(self, seed: int | None = None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class LecunUniform(VarianceScaling):
    """``VarianceScaling(1.0, "fan_in", "uniform")``."""

    def __init__(self, seed: int | None = None):
        super().__init__(1.0, "fan_in", "uniform", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform,
    "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform, "orthogonal": Orthogonal,
    "identity": Identity,
}
_BY_NAME.update({cls.__name__: cls for cls in list(_BY_NAME.values())})
# Keras's lowercase aliases.
zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_uniform, glorot_normal, orthogonal, identity = GlorotUniform, GlorotNormal, Orthogonal, \
    Identity
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, \
    LecunUniform


def serialize(initializer: Initializer) -> dict:
    """``{"class_name": ..., "config": ...}``."""
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config: dict) -> Initializer:
    """The initializer a :func:`serialize` dict describes."""
    cls = _BY_NAME.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Unknown initializer: {config['class_name']}")
    return cls.from_config(config.get("config", {}))


def get(identifier: Any) -> Initializer | None:
    """An initializer from a name, a config dict, a class or an instance (None stays None)."""
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


__all__ = sorted(_BY_NAME) + ["Initializer", "deserialize", "get", "serialize"]
