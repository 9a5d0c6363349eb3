"""The math family: elementwise arithmetic, comparisons, casts, matmul, reductions, select.

* ``elementwise``: the unary/binary op factories, arithmetic, comparisons, logical ops, AddN;
* ``select``: Select, SelectV2 (``where``, ``where_v2``);
* ``complex_ops``: Complex, Real, Imag, Angle, ComplexAbs, Conj (``complex``, ``real``,
  ``imag``, ``angle``, ``conj``);
* ``cast``: Cast (``cast``, ``to_float``, ...);
* ``linalg_ops``: Qr (``tm.linalg.qr``);
* ``matmul_ops``: MatMul, BatchMatMulV2 (``matmul``);
* ``reduction``: Sum, Prod, Mean, Max, Min, ArgMax, ArgMin (``reduce_*``, ``argmax``);
* ``broadcasting``: BroadcastGradientArgs and ``unbroadcast`` for broadcasting gradients;
* ``operators``: Python's operators on tensors (``x + y``, ``x @ y``, ...), installed on import.

Signatures are TensorFlow's OpDefs restricted to tfmini's dtypes. Where TensorFlow's OpDef
allows a type for which it registers no CPU kernel (``RealDiv`` on integers), the op builds
and its kernel fails at run time as TensorFlow's does. The Session runs every plan under one
``np.errstate(all="ignore")`` (TensorFlow returns inf/nan silently), so kernels stay bare ufunc
calls. Gradients are in ``grad``.
"""

from __future__ import annotations

from tfmini.ops.math import cast_ops as _cast_ops
from tfmini.ops.math import complex_ops as _complex_ops
from tfmini.ops.math import elementwise as _elementwise
from tfmini.ops.math import linalg_ops as _linalg_ops
from tfmini.ops.math import matmul_ops as _matmul_ops
from tfmini.ops.math import operators as _operators
from tfmini.ops.math import reduction as _reduction
from tfmini.ops.math import select as _select

# Helpers for other families' gradients (not part of tm.*).
from tfmini.ops.math.broadcasting import broadcast_gradient_args, reduce_gradient_args, unbroadcast  # noqa: F401,E501
from tfmini.ops.math.cast_ops import *  # noqa: F403
from tfmini.ops.math.complex_ops import *  # noqa: F403
from tfmini.ops.math.elementwise import *  # noqa: F403
from tfmini.ops.math.linalg_ops import *  # noqa: F403
from tfmini.ops.math.matmul_ops import *  # noqa: F403
from tfmini.ops.math.operators import *  # noqa: F403
from tfmini.ops.math.reduction import *  # noqa: F403
from tfmini.ops.math.select import *  # noqa: F403

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_linalg_ops, _cast_ops, _complex_ops, _elementwise, _matmul_ops, _reduction, _select,
          _operators)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
