"""Math ops: the math family's front, and Python's operators on tensors.

The family is split by kind of op, one module each:

* ``math_elementwise``: the unary/binary op factories (:func:`binary_op`,
  :func:`unary_op`), arithmetic, comparisons, logical ops and AddN;
* ``math_select``: Select, SelectV2 (``where``, ``where_v2``);
* ``math_cast``: Cast (``cast``, ``to_float``, ...);
* ``math_matmul``: MatMul, BatchMatMulV2 (``matmul``);
* ``math_reduction``: Sum, Prod, Mean, Max, Min, ArgMax, ArgMin (``reduce_*``,
  ``argmax``, ``argmin``).

Their TF1-style functions are re-exported here, so ``tm.add`` is
``tfmini.ops.math.add`` and gradient functions call ``math_ops.<fn>``;
importing this module registers the whole family. This module itself installs
the operator overloads on ``Output`` (``x + y``, ``-x``, ``x @ y``, ``x < y``, ...).

Signatures (input, output and attr names, allowed types) are TensorFlow's
OpDefs, restricted to the dtypes tfmini has. Where TensorFlow's OpDef allows a
type for which TensorFlow registers no CPU kernel (``RealDiv`` on integers,
``MatMul`` on uint8), the op builds and its kernel fails at run time as
TensorFlow's does.

Warnings: TensorFlow returns inf/nan silently. The Session runs every plan under
one ``np.errstate(all="ignore")``, so kernels need no warning handling of their own
and most stay bare ufunc calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core import dtypes
from tfmini.core.graph import Output, register_operator_override
from tfmini.ops.build_util import build_output
from tfmini.ops.math_cast import cast, to_float, to_int32, to_int64
from tfmini.ops.math_elementwise import (
    abs,
    add,
    add_n,
    cos,
    div,
    divide,
    equal,
    exp,
    floor_div,
    floordiv,
    floormod,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    realdiv,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
    truediv,
)
from tfmini.ops.math_matmul import matmul
from tfmini.ops.math_reduction import (
    argmax,
    argmin,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from tfmini.ops.math_select import where, where_v2

# ----------------------------------------------------------------------------------------
# Python operators on Outputs (x + y, -x, x @ y, x < y, ...)


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
    "sub": subtract,
    "mul": multiply,
    "truediv": truediv,
    "floordiv": floordiv,
    "mod": floormod,
    "pow": pow,
    "matmul": matmul,
    "and": logical_and,
    "or": logical_or,
    "xor": logical_xor,
}
for _name, _fn in _BINARY_OPERATORS.items():
    register_operator_override(f"__{_name}__", _operator(_fn, _name))
    register_operator_override(f"__r{_name}__", _operator(_fn, _name, reflected=True))
for _name, _fn in {"lt": less, "le": less_equal, "gt": greater, "ge": greater_equal}.items():
    register_operator_override(f"__{_name}__", _operator(_fn, None))
register_operator_override("__neg__", lambda x: negative(x))
register_operator_override("__abs__", lambda x: abs(x))
register_operator_override("__invert__", lambda x: logical_not(x))
del _name, _fn


__all__ = [
    "abs",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "cast",
    "cos",
    "div",
    "divide",
    "equal",
    "exp",
    "floor_div",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "realdiv",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "rsqrt",
    "scalar_mul",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "to_float",
    "to_int32",
    "to_int64",
    "truediv",
    "where",
    "where_v2",
]
