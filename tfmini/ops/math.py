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
from tfmini.ops import math_cast, math_elementwise, math_matmul, math_reduction, math_select
from tfmini.ops.build_util import build_output

# Re-exported: every part's public functions are this module's (names bound here, listed in
# __all__ below from the parts' own lists, so the two cannot drift apart).
from tfmini.ops.math_cast import *  # noqa: F403
from tfmini.ops.math_elementwise import *  # noqa: F403
from tfmini.ops.math_matmul import *  # noqa: F403
from tfmini.ops.math_reduction import *  # noqa: F403
from tfmini.ops.math_select import *  # noqa: F403

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


__all__ = sorted({
    *math_cast.__all__,
    *math_elementwise.__all__,
    *math_matmul.__all__,
    *math_reduction.__all__,
    *math_select.__all__,
})
