"""``tm.nn.rnn_cell``: the cells of ``tf.compat.v1.nn.rnn_cell``."""

from __future__ import annotations

from tfmini.rnn.cells import (
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)
from tfmini.rnn.wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
]
