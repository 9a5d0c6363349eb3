"""``tm.initializers``: the initializer classes and functions of ``tf.compat.v1.initializers``.

A namespace over the variables family (:mod:`tfmini.ops.variables`): its initializer classes
(which build TensorFlow's random ops) and its variable-initializer functions.
"""

from __future__ import annotations

from tfmini.ops import variables as _init  # the initializers live in the variables family

constant = _init.constant_initializer
glorot_normal = _init.glorot_normal_initializer
glorot_uniform = _init.glorot_uniform_initializer
he_normal = _init.he_normal
he_uniform = _init.he_uniform
identity = _init.identity_initializer
lecun_normal = _init.lecun_normal
lecun_uniform = _init.lecun_uniform
ones = _init.ones_initializer
orthogonal = _init.orthogonal_initializer
random_normal = _init.random_normal_initializer
random_uniform = _init.random_uniform_initializer
truncated_normal = _init.truncated_normal_initializer
uniform_unit_scaling = _init.uniform_unit_scaling_initializer
variance_scaling = _init.variance_scaling_initializer
zeros = _init.zeros_initializer
global_variables = _init.global_variables_initializer
local_variables = _init.local_variables_initializer
variables = _init.variables_initializer

__all__ = ["constant", "global_variables", "glorot_normal", "glorot_uniform", "he_normal",
           "he_uniform", "identity", "lecun_normal", "lecun_uniform", "local_variables", "ones",
           "orthogonal", "random_normal", "random_uniform", "truncated_normal",
           "uniform_unit_scaling", "variables", "variance_scaling", "zeros"]
