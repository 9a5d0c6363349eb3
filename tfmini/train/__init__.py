"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``; ``DropStaleGradientOptimizer`` (also
``tm.contrib.opt``); the global step functions; queue runners, the Coordinator and the
input pipeline helpers (``batch``, ``shuffle_batch``, ``slice_input_producer``, ...); and, as
in TensorFlow, ``global_variables``/``trainable_variables``. This package sits above
``tfmini.gradients`` and builds only with the ops layer: it never imports the runtime.
"""

from __future__ import annotations

from tfmini.ops.variables import global_variables, trainable_variables
from tfmini.train.adagrad import AdagradOptimizer
from tfmini.train.adam import AdamOptimizer
from tfmini.train.coordinator import Coordinator, LooperThread
from tfmini.train.drop_stale import DropStaleGradientOptimizer
from tfmini.train.gradient_descent import GradientDescentOptimizer
from tfmini.train.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from tfmini.train.momentum import MomentumOptimizer
from tfmini.train.optimizer import Optimizer
from tfmini.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from tfmini.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "AdagradOptimizer",
    "AdamOptimizer",
    "Coordinator",
    "DropStaleGradientOptimizer",
    "GradientDescentOptimizer",
    "LooperThread",
    "MomentumOptimizer",
    "Optimizer",
    "QueueRunner",
    "add_queue_runner",
    "assert_global_step",
    "batch",
    "batch_join",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "global_variables",
    "input_producer",
    "limit_epochs",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "start_queue_runners",
    "string_input_producer",
    "trainable_variables",
]
