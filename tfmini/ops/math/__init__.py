"""The math family: elementwise arithmetic, comparisons, casts, matmul, reductions, select.

* ``elementwise``: the unary/binary op factories, arithmetic, comparisons, logical ops, AddN;
* ``select``: Select, SelectV2 (``where``, ``where_v2``);
* ``complex_ops``: Complex, Real, Imag, Angle, ComplexAbs, Conj (``complex``, ``real``,
  ``imag``, ``angle``, ``conj``);
* ``cast``: Cast (``cast``, ``to_float``, ...);
* ``linalg_ops``: Qr, MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky,
  MatrixSolve, MatrixTriangularSolve, MatrixSolveLs, Svd, SelfAdjointEigV2 (``tm.linalg``);
* ``special``: rounding, trigonometric, special functions, Xlogy/Xdivy, TruncateDiv/Mod,
  IsFinite/IsNan/IsInf;
* ``incomplete``: Igamma, Igammac, IgammaGradA, Betainc (incomplete gamma and beta);
* ``bitwise``: BitwiseAnd/Or/Xor, Invert, Left/RightShift, PopulationCount (``tm.bitwise``);
* ``cumulative``: Cumsum, Cumprod, CumulativeLogsumexp;
* ``segment_reduction``: Segment* and UnsortedSegmentMax/Min/Prod;
* ``einsum_ops``: Einsum (``einsum``, ``tensordot``);
* ``vector_ops``: LinSpace, Cross, MulNoNan;
* ``composites``: ``polyval``, ``reduce_variance``, ``norm``, ``logdet`` ... built from ops;
* ``matmul_ops``: MatMul, BatchMatMulV2 (``matmul``);
* ``reduction``: Sum, Prod, Mean, Max, Min, All, Any, EuclideanNorm, ArgMax, ArgMin
  (``reduce_*``, ``argmax``, ``count_nonzero``);
* ``check_ops``: the ``assert_*`` family (TensorFlow's check_ops.py), built on Assert;
* ``broadcasting``: BroadcastGradientArgs and ``unbroadcast`` for broadcasting gradients;
* ``operators``: Python's operators on tensors (``x + y``, ``x @ y``, ...), installed on import.

Signatures are TensorFlow's OpDefs restricted to tfmini's dtypes. Where TensorFlow's OpDef
allows a type for which it registers no CPU kernel (``RealDiv`` on integers), the op builds
and its kernel fails at run time as TensorFlow's does. The Session runs every plan under one
``np.errstate(all="ignore")`` (TensorFlow returns inf/nan silently), so kernels stay bare ufunc
calls. Gradients are in ``grad``.
"""

from __future__ import annotations

from tfmini.ops.math import bitwise as _bitwise
from tfmini.ops.math import cast_ops as _cast_ops
from tfmini.ops.math import check_ops as _check_ops
from tfmini.ops.math import complex_ops as _complex_ops
from tfmini.ops.math import composites as _composites
from tfmini.ops.math import cumulative as _cumulative
from tfmini.ops.math import einsum_ops as _einsum_ops
from tfmini.ops.math import elementwise as _elementwise
from tfmini.ops.math import incomplete as _incomplete
from tfmini.ops.math import linalg_ops as _linalg_ops
from tfmini.ops.math import matmul_ops as _matmul_ops
from tfmini.ops.math import operators as _operators
from tfmini.ops.math import reduction as _reduction
from tfmini.ops.math import segment_reduction as _segment_reduction
from tfmini.ops.math import select as _select
from tfmini.ops.math import special as _special
from tfmini.ops.math import vector_ops as _vector_ops
from tfmini.ops.math.bitwise import *  # noqa: F403

# Functions that only the tm.math / tm.linalg / tm.bitwise namespaces list (not tm.*).
from tfmini.ops.math.bitwise import (  # noqa: F401,E402
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    population_count,
    right_shift,
)

# Helpers for other families' gradients (not part of tm.*).
from tfmini.ops.math.broadcasting import broadcast_gradient_args, reduce_gradient_args, unbroadcast  # noqa: F401,E501
from tfmini.ops.math.cast_ops import *  # noqa: F403
from tfmini.ops.math.check_ops import *  # noqa: F403
from tfmini.ops.math.complex_ops import *  # noqa: F403
from tfmini.ops.math.composites import *  # noqa: F403
from tfmini.ops.math.composites import (  # noqa: F401,E402
    logdet,
    matrix_rank,
    matvec,
    pinv,
    polyval,
    reciprocal_no_nan,
    reduce_std,
    reduce_variance,
    zero_fraction,
)
from tfmini.ops.math.cumulative import *  # noqa: F403
from tfmini.ops.math.cumulative import cumulative_logsumexp  # noqa: F401,E402
from tfmini.ops.math.einsum_ops import *  # noqa: F403
from tfmini.ops.math.elementwise import *  # noqa: F403
from tfmini.ops.math.incomplete import *  # noqa: F403
from tfmini.ops.math.linalg_ops import *  # noqa: F403
from tfmini.ops.math.linalg_ops import slogdet  # noqa: F401,E402
from tfmini.ops.math.matmul_ops import *  # noqa: F403
from tfmini.ops.math.operators import *  # noqa: F403
from tfmini.ops.math.reduction import *  # noqa: F403
from tfmini.ops.math.segment_reduction import *  # noqa: F403
from tfmini.ops.math.select import *  # noqa: F403
from tfmini.ops.math.special import *  # noqa: F403
from tfmini.ops.math.special import nextafter  # noqa: F401,E402
from tfmini.ops.math.vector_ops import *  # noqa: F403
from tfmini.ops.math.vector_ops import multiply_no_nan  # noqa: F401,E402

# Each part lists its public names; the front's list is derived from theirs.
_PARTS = (_linalg_ops, _cast_ops, _complex_ops, _elementwise, _matmul_ops, _reduction, _select,
          _operators, _special, _bitwise, _cumulative, _segment_reduction, _einsum_ops,
          _composites, _vector_ops, _incomplete, _check_ops)
__all__ = sorted({name for part in _PARTS for name in part.__all__})
