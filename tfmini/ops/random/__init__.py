"""The random family: TensorFlow's Philox streams, the stateful and stateless random ops, and
the ``tf.compat.v1`` functions over them (``random_normal``, ``set_random_seed``, ...).

Parts: ``philox`` (the generator and bits-to-sample conversions), ``libm`` (glibc's float
``logf``/``sincosf`` bits), ``distributions`` (TensorFlow's sample layout), ``stream`` (per-op
state), ``stateful`` / ``samplers`` / ``stateless`` / ``stateless_v2`` (the ops), ``lanes`` and
``sampling`` (the variable-cost samplers' streams and algorithms), ``seeds`` (graph and op seeds),
``random_ops`` (the Python API). docs/random.md explains the design.
"""

from __future__ import annotations

from tfmini.ops.random import (  # noqa: E402
    gamma_derivative,  # noqa: F401  (registers RandomGammaGrad)
    random_ops,
    samplers,  # noqa: F401,E402  (registers the ops)
    seeds,
    stateful,  # noqa: F401  (registers the ops)
    stateless,  # noqa: E402
    stateless_samplers,  # noqa: F401  (registers the ops)
    stateless_v2,  # noqa: F401  (registers the ops)
)

# For other families (not part of tm.*): the Philox stream, word by word (the data family's
# shuffle and data_flow's RandomShuffleQueue read it so).
from tfmini.ops.random.philox import blocks, key_counter_from_seeds  # noqa: E402,F401
from tfmini.ops.random.random_ops import *  # noqa: E402,F401,F403
from tfmini.ops.random.seeds import *  # noqa: E402,F401,F403
from tfmini.ops.random.stateless import *  # noqa: E402,F401,F403

__all__ = [*random_ops.__all__, *seeds.__all__, *stateless.__all__]

# Family-internal helpers other families use (not TensorFlow names, so not in __all__): the
# nn family's candidate samplers read Philox streams and glibc's float maths.
from tfmini.ops.random import libm, philox  # noqa: E402,F401
from tfmini.ops.random.stream import PhiloxStream  # noqa: E402,F401
