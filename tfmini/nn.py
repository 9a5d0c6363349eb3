"""``tm.nn``: neural-network functions, as ``tf.compat.v1.nn``.

A thin namespace: the functions live with their ops in :mod:`tfmini.ops.nn`
(and, for ``sigmoid``/``tanh``, in :mod:`tfmini.ops.math`, as TensorFlow's
``tf.nn.sigmoid`` is ``tf.math.sigmoid``).
"""

from __future__ import annotations

from tfmini.ops import nn as _nn_ops
from tfmini.ops import nn_composite as _nn_composite
from tfmini.ops.fused_batch_norm import fused_batch_norm  # noqa: F401
from tfmini.ops.nn import *  # noqa: F401,F403
from tfmini.ops.nn_composite import *  # noqa: F401,F403
from tfmini.ops.nn_dropout import dropout  # noqa: F401

# TensorFlow's tf.nn aliases of math functions. Looked up when first used, so this module
# does not depend on the order in which the math family gains them.
_MATH_ALIASES = ("sigmoid", "tanh")


def __getattr__(name: str):
    if name in _MATH_ALIASES:
        from tfmini.ops import math as _math_ops

        fn = getattr(_math_ops, name, None)
        if fn is not None:
            return fn
    raise AttributeError(f"module 'tfmini.nn' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_MATH_ALIASES))


__all__ = list(_nn_ops.__all__) + list(_nn_composite.__all__) + ["dropout", "fused_batch_norm"]
