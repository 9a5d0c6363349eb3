"""Python's operators on tensors: ``x + y``, ``-x``, ``x @ y``, ``x < y``, ...

Importing this module installs the overloads on ``Output``; each calls the math
family's TF1-style function, so ``x + y`` builds the same op as ``tm.add(x, y)``
(``AddV2``, or ``Add`` for strings, as TensorFlow's ``math_ops`` dispatches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core import dtypes
from tfmini.core.graph import Output, register_operator_override
from tfmini.ops.common.build_util import build_output
from tfmini.ops.math import elementwise as math_elementwise
from tfmini.ops.math import matmul_ops as math_matmul


def _add_dispatch(x: Any, y: Any, name: str | None = None) -> Output:
    # TensorFlow's __add__: strings concatenate with Add, everything else is AddV2.
    xs = x if isinstance(x, Output) else y
    return build_output("Add" if xs.dtype == dtypes.string else "AddV2", [x, y], name=name)


def _operator(fn: Callable, name: str, reflected: bool = False) -> Callable:
    # TensorFlow names the op after the operator ("add", "truediv"); the builder uniquifies.
    if reflected:
        return lambda self, other: fn(other, self, name=name)
    return lambda self, other: fn(self, other, name=name)


_BINARY_OPERATORS = {
    "add": _add_dispatch,
    "sub": math_elementwise.subtract,
    "mul": math_elementwise.multiply,
    "truediv": math_elementwise.truediv,
    "floordiv": math_elementwise.floordiv,
    "mod": math_elementwise.floormod,
    "pow": math_elementwise.pow,
    "matmul": math_matmul.matmul,
    "and": math_elementwise.logical_and,
    "or": math_elementwise.logical_or,
    "xor": math_elementwise.logical_xor,
}
for _name, _fn in _BINARY_OPERATORS.items():
    register_operator_override(f"__{_name}__", _operator(_fn, _name))
    register_operator_override(f"__r{_name}__", _operator(_fn, _name, reflected=True))
_COMPARISONS = {
    "lt": math_elementwise.less,
    "le": math_elementwise.less_equal,
    "gt": math_elementwise.greater,
    "ge": math_elementwise.greater_equal,
}
for _name, _fn in _COMPARISONS.items():
    register_operator_override(f"__{_name}__", _operator(_fn, None))
register_operator_override("__neg__", math_elementwise.negative)
register_operator_override("__abs__", math_elementwise.abs)
register_operator_override("__invert__", math_elementwise.logical_not)
del _name, _fn


__all__: list[str] = []
