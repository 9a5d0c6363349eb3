"""``tm.linalg``: linear algebra, as ``tf.compat.v1.linalg``, with TensorFlow's short names
(``inv``, ``det``, ``solve``, ``eigh``, ...).

A thin namespace: the ops and functions live in the math family
(:mod:`tfmini.ops.math.linalg_ops`, ``composites``, ``einsum_ops``) and, for diagonals and
bands, the array family (:mod:`tfmini.ops.array.matrix_diag`).
"""

from __future__ import annotations

from tfmini.ops.array import (
    diag as tensor_diag,
)
from tfmini.ops.array import (
    diag_part as tensor_diag_part,
)
from tfmini.ops.array import (
    matrix_band_part as band_part,
)
from tfmini.ops.array import (
    matrix_diag as diag,
)
from tfmini.ops.array import (
    matrix_diag_part as diag_part,
)
from tfmini.ops.array import (
    matrix_set_diag as set_diag,
)
from tfmini.ops.math import (
    cholesky,
    cholesky_solve,
    cross,
    einsum,
    eye,
    logdet,
    matmul,
    matrix_rank,
    matrix_transpose,
    matvec,
    norm,
    pinv,
    qr,
    slogdet,
    svd,
    tensordot,
    trace,
)
from tfmini.ops.math import (
    matrix_determinant as det,
)
from tfmini.ops.math import (
    matrix_inverse as inv,
)
from tfmini.ops.math import (
    matrix_solve as solve,
)
from tfmini.ops.math import (
    matrix_solve_ls as lstsq,
)
from tfmini.ops.math import (
    matrix_triangular_solve as triangular_solve,
)
from tfmini.ops.math import (
    self_adjoint_eig as eigh,
)
from tfmini.ops.math import (
    self_adjoint_eigvals as eigvalsh,
)
from tfmini.ops.nn import global_norm

transpose = matrix_transpose
adjoint = matrix_transpose  # real dtypes only: the adjoint is the transpose

__all__ = [
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "matrix_rank",
    "pinv", "diag", "diag_part", "eigh",
    "eigvalsh", "einsum", "eye", "global_norm", "inv", "logdet", "lstsq", "matmul",
    "matrix_transpose", "matvec", "norm", "qr", "set_diag", "slogdet", "solve", "svd",
    "tensor_diag", "tensor_diag_part", "tensordot", "trace", "transpose", "triangular_solve",
]
