"""Op families and the generated ``tm.ops.<OpType>`` classes.

``tm.ops.Add`` is generated from the registry on first access, so every
registered op (built-in or custom) has a class with ``OP_NAME`` and
``create(scope, ...)``.
"""

from __future__ import annotations

from tfmini.core import registry as _registry
from tfmini.core.wrappers import OpWrapper, op_class

# Importing the families registers the built-in ops; the *_grad modules register their
# gradient functions (and mark the ops that have none).
from tfmini.ops import array, control_flow, math, nn, state, variables  # noqa: F401,E402
from tfmini.ops import fused_batch_norm, indexed_slices, ref_variables  # noqa: F401,E402
from tfmini.ops import accumulators, tpu_embedding, training  # noqa: F401,E402
from tfmini.ops import linalg, random  # noqa: F401,E402
from tfmini.ops import array_grad, math_grad, nn_grad  # noqa: F401,E402


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
