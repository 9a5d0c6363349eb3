"""The variables family: resource and reference variables, their ops, scopes and initializers.

* ``variables``: :class:`Variable` (a resource variable), graph collections (``GraphKeys``),
  ``global_variables_initializer`` and the TF1 assignment functions;
* ``ref_variables``: TF1's reference variables (VariableV2, Assign*, Scatter* on refs);
* ``variable_resource``: a variable's run-time state and the rules for changing it;
* ``resource_ops``: VarHandleOp, ReadVariableOp, AssignVariableOp and the other resource ops;
* ``variable_scopes``: ``variable_scope``, ``get_variable``;
* ``init_ops``: the initializer classes (``zeros_initializer``, ``glorot_uniform_initializer``);
* ``training_ops``: the raw optimizer updates (ApplyGradientDescent, ResourceApplyAdam, ...);
* ``training_ops_more``: RMSProp, Adadelta, FTRL, the proximal updates, AdagradDA, AdaMax,
  PowerSign and AddSign (dense and sparse);
* ``mutex``: MutexV2 and MutexLock (TensorFlow registers them beside the resource variable
  ops, in ``tensorflow/core/ops/resource_variable_ops.cc``).
"""

from __future__ import annotations

from tfmini.ops.variables import count_up_to_ops as _count_up_to_ops
from tfmini.ops.variables import init_ops as _init_ops
from tfmini.ops.variables import mutex as _mutex
from tfmini.ops.variables import ref_variables as _ref_variables
from tfmini.ops.variables import resource_ops as _resource_ops
from tfmini.ops.variables import training_ops as _training_ops
from tfmini.ops.variables import training_ops_more as _training_ops_more
from tfmini.ops.variables import variable_resource as _variable_resource
from tfmini.ops.variables import variable_scopes as _variable_scopes
from tfmini.ops.variables import variables as _variables
from tfmini.ops.variables.count_up_to_ops import *  # noqa: F403
from tfmini.ops.variables.init_ops import *  # noqa: F403
from tfmini.ops.variables.init_ops import Initializer as Initializer  # (the base class)
from tfmini.ops.variables.mutex import *  # noqa: F403
from tfmini.ops.variables.ref_variables import *  # noqa: F403
from tfmini.ops.variables.resource_ops import *  # noqa: F403

# For other families (not part of tm.*): build-time handle data of a resource input.
from tfmini.ops.variables.resource_ops import handle_data  # noqa: F401
from tfmini.ops.variables.training_ops import *  # noqa: F403
from tfmini.ops.variables.training_ops_more import *  # noqa: F403
from tfmini.ops.variables.variable_resource import *  # noqa: F403
from tfmini.ops.variables.variable_scopes import *  # noqa: F403
from tfmini.ops.variables.variables import *  # noqa: F403

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_variables, _ref_variables, _variable_resource, _resource_ops, _variable_scopes,
          _init_ops, _mutex, _training_ops, _training_ops_more, _count_up_to_ops)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
