"""Op families and the generated ``tm.ops.<OpType>`` classes.

``tm.ops.Add`` is generated from the registry on first access, so every
registered op (built-in or custom) has a class with ``OP_NAME`` and
``create(scope, ...)``.
"""

from __future__ import annotations

from tfmini.core import registry as _registry
from tfmini.core.wrappers import OpWrapper, op_class

# Importing the families registers the built-in ops (each family's front imports its forward
# modules); the grad modules then register the gradient functions (and mark the ops that have
# none). No front imports a grad module, so the families' fronts import each other one way.
from tfmini.ops import array, math, nn, control_flow, variables  # noqa: F401,E402
from tfmini.ops import data_flow, random, tpu_embedding, io  # noqa: F401,E402
from tfmini.ops import check_ops  # noqa: F401,E402  (registers no op; builds on Assert)
from tfmini.ops import data  # noqa: F401,E402  (after random: shuffle uses its Philox stream)
from tfmini.ops.array import grad as _array_grad  # noqa: F401,E402
from tfmini.ops.array import layout_grad as _array_layout_grad  # noqa: F401,E402
from tfmini.ops.math import grad as _math_grad  # noqa: F401,E402
from tfmini.ops.math import linalg_grad as _linalg_grad  # noqa: F401,E402
from tfmini.ops.math import special_grad as _special_grad  # noqa: F401,E402
from tfmini.ops.nn import fused_batch_norm_grad as _fused_batch_norm_grad  # noqa: F401,E402
from tfmini.ops.nn import grad as _nn_grad  # noqa: F401,E402
from tfmini.ops.nn import lrn_top_k_grad as _nn_lrn_top_k_grad  # noqa: F401,E402
from tfmini.ops.nn import conv_grad as _conv_grad  # noqa: F401,E402
from tfmini.ops.nn import pooling_grad as _pooling_grad  # noqa: F401,E402
from tfmini.ops.random import grad as _random_grad  # noqa: F401,E402
from tfmini.ops.data_flow import grad as _data_flow_grad  # noqa: F401,E402

def __getattr__(name: str):
    if name[:1].isupper():
        if _registry.lookup(name) is not None:
            return op_class(name)
        try:
            _registry.get(name)  # its NotFoundError lists close matches
        except Exception as e:
            raise AttributeError(f"module 'tfmini.ops' has no attribute {name!r}. {e}") from None
    raise AttributeError(f"module 'tfmini.ops' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_registry.registered_ops()))


__all__ = ["OpWrapper", "op_class"]
