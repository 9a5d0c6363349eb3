"""``tm.math``: math functions, as ``tf.compat.v1.math``.

A thin namespace over the math family (:mod:`tfmini.ops.math`), with the array family's
``bincount``/``invert_permutation`` and the nn family's activations that TensorFlow also
lists under ``tf.math``.
"""

from __future__ import annotations

from tfmini.ops import math as _math_family
from tfmini.ops.array import bincount, invert_permutation, unsorted_segment_sum  # noqa: F401
from tfmini.ops.math import *  # noqa: F401,F403
from tfmini.ops.math import (  # noqa: F401
    cumulative_logsumexp,
    is_non_decreasing,
    is_strictly_increasing,
    multiply_no_nan,
    nextafter,
    polyval,
    reciprocal_no_nan,
    reduce_std,
    reduce_variance,
    zero_fraction,
)
from tfmini.ops.math import population_count as popcount  # noqa: F401
from tfmini.ops.nn import log_softmax, softmax, softplus, softsign  # noqa: F401

_EXTRA = ["bincount", "cumulative_logsumexp", "invert_permutation", "is_non_decreasing",
          "is_strictly_increasing", "log_softmax", "multiply_no_nan", "nextafter", "polyval",
          "popcount", "reciprocal_no_nan", "reduce_std", "reduce_variance", "softmax",
          "softplus", "softsign", "unsorted_segment_sum", "zero_fraction"]

# Linear algebra lives in tm.linalg; tf.math lists none of it.
_LINALG = {"cholesky", "eye", "matrix_determinant", "matrix_inverse", "matrix_solve",
           "matrix_solve_ls", "matrix_transpose", "matrix_triangular_solve", "qr",
           "self_adjoint_eig", "self_adjoint_eigvals", "svd", "trace", "norm", "einsum",
           "tensordot", "cross", "lin_space", "linspace", "arg_max", "arg_min", "cholesky_solve",
           "saturate_cast", "to_double"}

__all__ = sorted((set(_math_family.__all__) - _LINALG) | set(_EXTRA))
