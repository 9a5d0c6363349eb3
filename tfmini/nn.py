"""``tm.nn``: neural-network functions, as ``tf.compat.v1.nn``.

A thin namespace: the functions live with their ops in the nn family (:mod:`tfmini.ops.nn`),
and, for ``sigmoid``/``tanh``, in the math family, as TensorFlow's ``tf.nn.sigmoid`` is
``tf.math.sigmoid``.
"""

from __future__ import annotations

from tfmini.ops import nn as _nn_family
from tfmini.ops.math import sigmoid, tanh  # noqa: F401  (tf.nn.sigmoid is tf.math.sigmoid)
from tfmini.ops.nn import *  # noqa: F401,F403

# The clipping functions are TensorFlow's top-level tf.clip_by_* (tm.clip_by_value), not tf.nn.
_TOP_LEVEL_ONLY = {"clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"}
for _name in _TOP_LEVEL_ONLY:
    del globals()[_name]
del _name

__all__ = sorted(
    {*_nn_family.__all__, "sigmoid", "tanh"} - _TOP_LEVEL_ONLY
)

# The RNN cells and drivers sit in the top layer tfmini.rnn (cells are layers, which need
# tfmini.gradients and variables): loaded on first use, so this low module imports nothing above.
_RNN_NAMES = frozenset({
    "bidirectional_dynamic_rnn", "dynamic_rnn", "raw_rnn", "rnn_cell",
    "static_bidirectional_rnn", "static_rnn", "static_state_saving_rnn",
})


def __getattr__(name: str):
    if name in _RNN_NAMES:
        import tfmini.rnn as rnn

        return getattr(rnn, name)
    raise AttributeError(f"module 'tfmini.nn' has no attribute {name!r}")


def __dir__() -> list:
    return sorted({*globals(), *_RNN_NAMES})
