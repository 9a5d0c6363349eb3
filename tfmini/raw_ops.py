"""``tm.raw_ops.<OpType>(**kwargs)``: every registered op as a keyword-only function.

Inputs and attrs are passed by TensorFlow's names (``x=``, ``epsilon=``; where
TensorFlow's ``tf.raw_ops`` renames an OpDef argument, e.g. Sum's ``axis``, that
name too), plus ``name=``. Single-output ops return the Output, multi-output ops a
namedtuple of Outputs, ops without outputs the Operation.
"""

from __future__ import annotations

from tfmini.core import registry as _registry
from tfmini.core.wrappers import raw_op_function


def __getattr__(name: str):
    if _registry.lookup(name) is not None:
        return raw_op_function(name)
    # Unknown: the registry's NotFoundError lists close matches; raise AttributeError as TF does.
    try:
        _registry.get(name)
    except Exception as e:
        raise AttributeError(f"module 'tfmini.raw_ops' has no attribute {name!r}. {e}") from None
    raise AttributeError(name)


def __dir__():
    return sorted(_registry.registered_ops())
