"""TF1's recurrent networks: the cells of ``tf.compat.v1.nn.rnn_cell`` and the drivers
``static_rnn``, ``dynamic_rnn``, their bidirectional forms, ``raw_rnn`` and
``static_state_saving_rnn``. They reach users as ``tm.nn.rnn_cell`` and ``tm.nn.<driver>``.

A top layer like :mod:`tfmini.layers` (cells are layers): it never imports the runtime,
``train``, ``keras`` or ``tpu``. See docs/rnn.md.
"""

from __future__ import annotations

from tfmini.rnn import cells as _cells
from tfmini.rnn import drivers as _drivers
from tfmini.rnn import rnn_cell  # noqa: F401  (tm.nn.rnn_cell)
from tfmini.rnn import wrappers as _wrappers
from tfmini.rnn.cells import *  # noqa: F403
from tfmini.rnn.drivers import *  # noqa: F403
from tfmini.rnn.wrappers import *  # noqa: F403

__all__ = sorted({*_cells.__all__, *_drivers.__all__, *_wrappers.__all__, "rnn_cell"})
