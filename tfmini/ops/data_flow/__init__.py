"""The data-flow family (TensorFlow's ``data_flow_ops``): conditional accumulators, the
gradient aggregation of synchronous training, and queues.

* ``conditional_accumulator``: the ``tf.compat.v1`` classes :class:`ConditionalAccumulator`
  and :class:`SparseConditionalAccumulator`;
* ``accumulator_ops``: the thirteen ops with TensorFlow 2.21's signatures (ref and resource
  handles, dense and sparse); importing the family registers them;
* ``accumulator_state``: the accumulator resources (dense and sparse state machines) that the
  kernels drive, and how a failed run is undone;
* ``queues``: the ``tf.compat.v1`` queue classes (:class:`FIFOQueue`, :class:`PaddingFIFOQueue`,
  :class:`PriorityQueue`, :class:`RandomShuffleQueue`, :class:`QueueBase`);
* ``queue_ops``: the queue ops (resource and ref handles); ``queue_state``: the queues'
  state machines, following ``tensorflow/core/kernels/queue_base.cc`` (docs/queues.md).

Semantics follow TensorFlow's ``tensorflow/core/kernels/conditional_accumulator_base.cc``
and its tests (``tensorflow/python/kernel_tests/data_structures/conditional_accumulator_test.py``).
"""

from __future__ import annotations

from tfmini.ops.data_flow import accumulator_ops as _accumulator_ops  # noqa: F401  (registers)
from tfmini.ops.data_flow import conditional_accumulator as _conditional_accumulator
from tfmini.ops.data_flow import functional_ops as _functional_ops
from tfmini.ops.data_flow import queues as _queues
from tfmini.ops.data_flow import script_ops as _script_ops
from tfmini.ops.data_flow import sendrecv_ops as _sendrecv_ops  # noqa: F401  (registers)
from tfmini.ops.data_flow import tensor_array as _tensor_array
from tfmini.ops.data_flow import tensor_array_ops as _tensor_array_ops  # noqa: F401  (registers)
from tfmini.ops.data_flow.conditional_accumulator import *  # noqa: F403
from tfmini.ops.data_flow.functional_ops import *  # noqa: F403
from tfmini.ops.data_flow.queues import *  # noqa: F403
from tfmini.ops.data_flow.script_ops import *  # noqa: F403
from tfmini.ops.data_flow.sendrecv_ops import Rendezvous, rendezvous_key  # noqa: F401
from tfmini.ops.data_flow.tensor_array import *  # noqa: F403
from tfmini.ops.data_flow.tensor_array_ops import REPLAYABLE_OPS as TENSOR_ARRAY_OPS  # noqa: F401

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_conditional_accumulator, _functional_ops, _queues, _script_ops, _tensor_array)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
