"""Math ops: elementwise arithmetic, comparisons, reductions, matmul, casts.

Elementwise ops come from two small factories (:func:`unary_op`,
:func:`binary_op`) so each reads as one line: type string, NumPy function,
allowed types. The kernels are the NumPy ufuncs themselves where NumPy's
semantics equal TensorFlow's, which keeps the interpreter overhead per op low.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import register_operator_override
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.ops import shape_fns

FLOAT_TYPES = "half, float, double"
INT_TYPES = "int8, int16, int32, int64, uint8"
NUMERIC_TYPES = f"{FLOAT_TYPES}, {INT_TYPES}"


def binary_op(op_type: str, kernel: Callable, types: str = NUMERIC_TYPES, doc: str = "",
              out_type: str | None = None) -> None:
    """Registers ``z = kernel(x, y)`` with broadcasting; ``out_type`` fixes z's dtype (bool)."""
    register_op(
        op_type,
        inputs=["x: T", "y: T"],
        outputs=[f"z: {out_type or 'T'}"],
        attrs=[f"T: {{{types}}}"],
        shape_fn=shape_fns.broadcast_binary,
        doc=doc,
    )(kernel)


def unary_op(op_type: str, kernel: Callable, types: str = NUMERIC_TYPES, doc: str = "") -> None:
    """Registers ``y = kernel(x)``, same shape and dtype."""
    register_op(
        op_type,
        inputs=["x: T"],
        outputs=["y: T"],
        attrs=[f"T: {{{types}}}"],
        shape_fn=shape_fns.unchanged,
        doc=doc,
    )(kernel)


binary_op("Add", np.add, doc="x + y, elementwise with broadcasting.")
binary_op("AddV2", np.add, doc="x + y, elementwise with broadcasting.")


def _binary_fn(op_type: str):
    def fn(x: Any, y: Any, name: str | None = None):
        return build_op(current_scope(), op_type, [x, y], name=name).outputs[0]

    fn.__name__ = op_type.lower()
    return fn


add = _binary_fn("AddV2")

register_operator_override("__add__", lambda x, y: add(x, y))
register_operator_override("__radd__", lambda y, x: add(x, y))


__all__ = ["add"]
