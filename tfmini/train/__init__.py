"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``; ``DropStaleGradientOptimizer`` (also
``tm.contrib.opt``); the global step functions; and, as in TensorFlow,
``global_variables``/``trainable_variables``. This package sits above ``tfmini.gradients``
and builds only with the ops layer: it never imports the runtime.
"""

from __future__ import annotations

from tfmini.ops.variables import global_variables, trainable_variables
from tfmini.train.adagrad import AdagradOptimizer
from tfmini.train.adam import AdamOptimizer
from tfmini.train.drop_stale import DropStaleGradientOptimizer
from tfmini.train.gradient_descent import GradientDescentOptimizer
from tfmini.train.momentum import MomentumOptimizer
from tfmini.train.optimizer import Optimizer
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
    "DropStaleGradientOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "global_variables",
    "trainable_variables",
]
