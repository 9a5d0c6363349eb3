"""``tm.initializers``: the initializer classes and functions of ``tf.compat.v1.initializers``.

A namespace over :mod:`tfmini.ops.init_ops` (the classes build TensorFlow's random ops) and
the variable-initializer functions of :mod:`tfmini.ops.variables`.
"""

from __future__ import annotations

from tfmini.ops import init_ops as _init
from tfmini.ops import variables as _variables

constant = _init.Constant
glorot_normal = _init.GlorotNormal
glorot_uniform = _init.GlorotUniform
he_normal = _init.he_normal
he_uniform = _init.he_uniform
identity = _init.Identity
lecun_normal = _init.lecun_normal
lecun_uniform = _init.lecun_uniform
ones = _init.Ones
orthogonal = _init.Orthogonal
random_normal = _init.RandomNormal
random_uniform = _init.RandomUniform
truncated_normal = _init.TruncatedNormal
uniform_unit_scaling = _init.UniformUnitScaling
variance_scaling = _init.VarianceScaling
zeros = _init.Zeros
global_variables = _variables.global_variables_initializer
local_variables = _variables.local_variables_initializer
variables = _variables.variables_initializer

__all__ = ["constant", "global_variables", "glorot_normal", "glorot_uniform", "he_normal",
           "he_uniform", "identity", "lecun_normal", "lecun_uniform", "local_variables", "ones",
           "orthogonal", "random_normal", "random_uniform", "truncated_normal",
           "uniform_unit_scaling", "variables", "variance_scaling", "zeros"]
