"""``tm.train``: the TF1 optimizers and the global step (``tf.compat.v1.train``).

``Optimizer`` and its subclasses ``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdagradOptimizer``, ``AdamOptimizer``, ``RMSPropOptimizer``, ``AdadeltaOptimizer``,
``FtrlOptimizer``, ``ProximalGradientDescentOptimizer``, ``ProximalAdagradOptimizer``,
``AdagradDAOptimizer`` (slots made by ``slot_creator``); the learning-rate decays
(``exponential_decay``...); ``ExponentialMovingAverage`` and ``assign_moving_average``;
``DropStaleGradientOptimizer`` (also ``tm.contrib.opt``); the global step functions; and, as
in TensorFlow,
``global_variables``/``trainable_variables``. This package sits above ``tfmini.gradients``
and builds only with the ops layer: it never imports the runtime.
"""

from __future__ import annotations

from tfmini.ops.variables import global_variables, trainable_variables
from tfmini.train.adadelta import AdadeltaOptimizer
from tfmini.train.adagrad import AdagradOptimizer
from tfmini.train.adagrad_da import AdagradDAOptimizer
from tfmini.train.adam import AdamOptimizer
from tfmini.train.drop_stale import DropStaleGradientOptimizer
from tfmini.train.ftrl import FtrlOptimizer
from tfmini.train.gradient_descent import GradientDescentOptimizer
from tfmini.train.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    polynomial_decay,
)
from tfmini.train.momentum import MomentumOptimizer
from tfmini.train.moving_averages import ExponentialMovingAverage, assign_moving_average
from tfmini.train.optimizer import Optimizer
from tfmini.train.proximal import ProximalAdagradOptimizer, ProximalGradientDescentOptimizer
from tfmini.train.rmsprop import RMSPropOptimizer
from tfmini.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "DropStaleGradientOptimizer",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "assign_moving_average",
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "polynomial_decay",
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "global_variables",
    "trainable_variables",
]
