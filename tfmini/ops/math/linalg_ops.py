"""Linear-algebra ops (``tm.linalg``): Qr, MatrixInverse, MatrixDeterminant,
LogMatrixDeterminant, Cholesky, MatrixSolve, MatrixTriangularSolve, MatrixSolveLs, Svd,
SelfAdjointEigV2, and the functions built from them and the array family (``trace``,
``eye``, ``matrix_transpose``, ``norm``).

TensorFlow's kernels (``tensorflow/core/kernels/linalg/*.cc``) use Eigen; these use LAPACK
through NumPy, so values agree to rounding, not bit for bit. Errors are TensorFlow's: a
non-square input fails the shape function at build time ("Dimensions must be equal") or the
kernel at run time ("Input matrix must be square."), a singular matrix to MatrixInverse is
"Input is not invertible.".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument


def _qr_shape(ic):
    s = shape_fns.with_rank_at_least(ic.input_shape("input"), 2)
    if s.dims is None:
        return [TensorShape(None), TensorShape(None)]
    *batch, m, n = s.dims
    full = ic.attrs["full_matrices"]
    k = None if m is None or n is None else min(m, n)
    q = [*batch, m, m if full else k]
    r = [*batch, m if full else k, n]
    return [TensorShape(q), TensorShape(r)]


@register_op(
    "Qr",
    inputs=["input: T"],
    outputs=["q: T", "r: T"],
    attrs=["full_matrices: bool = false", "T: {double, float, half}"],
    shape_fn=_qr_shape,
)
def qr_kernel(input, *, full_matrices):  # noqa: A002  (TensorFlow's argument name)
    """Q and R of each inner matrix."""
    a = np.asarray(input)
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {a.ndim}")
    work = a.astype(np.float64) if a.dtype == np.float16 else a
    q, r = np.linalg.qr(work, mode="complete" if full_matrices else "reduced")
    return q.astype(a.dtype), r.astype(a.dtype)



def qr(input: Any, full_matrices: bool = False, name: str | None = None):  # noqa: A002
    """``(q, r)`` with ``input = q @ r`` (``tf.linalg.qr``)."""
    op = build_op(current_scope(), "Qr", [input], {"full_matrices": full_matrices}, name=name)
    return op.outputs[0], op.outputs[1]


# ----------------------------------------------------------------------------------------
# Shared shape functions and checks


def _square_shape(ic) -> list[TensorShape]:
    s = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    if s.dims is None:
        return [s]
    *batch, m, n = s.dims
    if m is not None and n is not None and m != n:
        raise ValueError(f"Dimensions must be equal, but are {m} and {n}")
    d = shape_fns.merge_dim(m, n)
    return [TensorShape([*batch, d, d])]


def _batch_scalar_shape(ic) -> list[TensorShape]:
    s = _square_shape(ic)[0]
    if s.dims is None:
        return [TensorShape(None)]
    return [TensorShape(s.dims[:-2])]


def _check_square(a: np.ndarray) -> None:
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {a.ndim}")
    if a.shape[-1] != a.shape[-2]:
        raise invalid_argument("Input matrix must be square.")


def _work(a: np.ndarray) -> np.ndarray:
    # Half is computed in float32 and rounded once, as TensorFlow's Eigen kernels do.
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _solve_shape(ic) -> list[TensorShape]:
    a = _square_shape(ic)[0]
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 2)
    if a.dims is None or b.dims is None:
        return [TensorShape(None) if b.dims is None else b]
    shape_fns.merge_dim(a.dims[-2], b.dims[-2])
    batch = shape_fns.merge_shapes(TensorShape(a.dims[:-2]), TensorShape(b.dims[:-2])) \
        if len(a.dims) == len(b.dims) else TensorShape(b.dims[:-2])
    return [TensorShape([*batch.dims, a.dims[-1], b.dims[-1]])]


# ----------------------------------------------------------------------------------------
# MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky


@register_op(
    "MatrixInverse",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["adjoint: bool = false", "T: {double, float, half}"],
    shape_fn=_square_shape,
)
def matrix_inverse_kernel(input, *, adjoint):  # noqa: A002
    """The inverse of each inner matrix (of its adjoint with ``adjoint``)."""
    a = np.asarray(input)
    _check_square(a)
    w = _work(a)
    if adjoint:
        w = np.swapaxes(w, -1, -2)
    if a.shape[-1] == 0:
        return a.copy()
    # TensorFlow's kernel (LU with partial pivoting) refuses a matrix with a zero pivot, as
    # LAPACK's getrf/getri behind NumPy's inv does.
    try:
        return np.linalg.inv(w).astype(a.dtype)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input is not invertible.") from None


@register_op(
    "MatrixDeterminant",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {half, float, double}"],
    shape_fn=_batch_scalar_shape,
)
def matrix_determinant_kernel(input):  # noqa: A002
    """The determinant of each inner matrix."""
    a = np.asarray(input)
    _check_square(a)
    return np.asarray(np.linalg.det(_work(a))).astype(a.dtype)


@register_op(
    "LogMatrixDeterminant",
    inputs=["input: T"],
    outputs=["sign: T", "log_abs_determinant: T"],
    attrs=["T: {half, float, double}"],
    shape_fn=lambda ic: _batch_scalar_shape(ic) * 2,
)
def log_matrix_determinant_kernel(input):  # noqa: A002
    """Sign and log of the absolute determinant of each inner matrix."""
    a = np.asarray(input)
    _check_square(a)
    sign, logdet = np.linalg.slogdet(_work(a))
    return np.asarray(sign).astype(a.dtype), np.asarray(logdet).astype(a.dtype)


@register_op(
    "Cholesky",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {double, float, half}"],
    shape_fn=_square_shape,
)
def cholesky_kernel(input):  # noqa: A002
    """The lower Cholesky factor of each inner (symmetric positive definite) matrix; only
    the lower triangle is read. A matrix that is not positive definite gives NaNs, as
    TensorFlow's CPU kernel (Eigen's LLT, unchecked) leaves it."""
    a = np.asarray(input)
    _check_square(a)
    w = _work(a)
    lower = np.tril(w) + np.swapaxes(np.tril(w, -1), -1, -2)
    n = a.shape[-1]
    flat = lower.reshape(-1, n, n)
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = np.nan
    return out.reshape(a.shape).astype(a.dtype)


# ----------------------------------------------------------------------------------------
# MatrixSolve, MatrixTriangularSolve, MatrixSolveLs


@register_op(
    "MatrixSolve",
    inputs=["matrix: T", "rhs: T"],
    outputs=["output: T"],
    attrs=["adjoint: bool = false", "T: {double, float, half}"],
    shape_fn=_solve_shape,
)
def matrix_solve_kernel(matrix, rhs, *, adjoint):
    """X with ``matrix @ X = rhs`` (``adjoint(matrix) @ X`` with ``adjoint``)."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    _check_square(a)
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-1]:
        raise invalid_argument(
            f"Input matrix and right-hand side must have the same number of rows: "
            f"{a.shape[-2]} vs. {b.shape[-2] if b.ndim >= 2 else b.ndim}")
    w = _work(a)
    if adjoint:
        w = np.swapaxes(w, -1, -2)
    try:
        return np.linalg.solve(w, _work(b)).astype(a.dtype)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input matrix is not invertible.") from None


def _triangular_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 2)
    if a.dims is None or b.dims is None:
        return [TensorShape(None)]
    shape_fns.merge_dim(a.dims[-2], a.dims[-1])
    shape_fns.merge_dim(a.dims[-2], b.dims[-2])
    batch = shape_fns.broadcast_shapes(TensorShape(a.dims[:-2]), TensorShape(b.dims[:-2]))
    return [TensorShape([*batch.dims, b.dims[-2], b.dims[-1]])] if batch.dims is not None \
        else [TensorShape(None)]


@register_op(
    "MatrixTriangularSolve",
    inputs=["matrix: T", "rhs: T"],
    outputs=["output: T"],
    attrs=["lower: bool = true", "adjoint: bool = false", "T: {double, float, half}"],
    shape_fn=_triangular_shape,
)
def matrix_triangular_solve_kernel(matrix, rhs, *, lower, adjoint):
    """X with ``matrix @ X = rhs`` for triangular matrices (only that triangle is read);
    batch dimensions broadcast."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    _check_square(a)
    tri = np.tril(_work(a)) if lower else np.triu(_work(a))
    if adjoint:
        tri = np.swapaxes(tri, -1, -2)
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise invalid_argument(
            f"Input matrix and right-hand side must have the same number of rows: "
            f"{a.shape[-2]} vs. {b.shape[-2] if b.ndim >= 2 else b.ndim}")
    diag = np.diagonal(tri, axis1=-2, axis2=-1)
    if a.shape[-1] and (diag == 0).any():
        raise invalid_argument("Input matrix is not invertible.")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    tri = np.broadcast_to(tri, batch + tri.shape[-2:])
    bb = np.broadcast_to(_work(b), batch + b.shape[-2:])
    return np.linalg.solve(tri, bb).astype(a.dtype)


def _solve_ls_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 2)
    shape_fns.with_rank(ic.input_shape(2), 0)
    if a.dims is None or b.dims is None:
        return [TensorShape(None)]
    shape_fns.merge_dim(a.dims[-2], b.dims[-2])
    batch = shape_fns.merge_shapes(TensorShape(a.dims[:-2]), TensorShape(b.dims[:-2]))
    return [TensorShape([*batch.dims, a.dims[-1], b.dims[-1]])]


@register_op(
    "MatrixSolveLs",
    inputs=["matrix: T", "rhs: T", "l2_regularizer: double"],
    outputs=["output: T"],
    attrs=["T: {double, float, half}", "fast: bool = true"],
    shape_fn=_solve_ls_shape,
)
def matrix_solve_ls_kernel(matrix, rhs, l2_regularizer, *, fast):
    """Least-squares solutions, by the regularized normal equations as TensorFlow's fast
    path (``fast=False``: complete orthogonal decomposition, here NumPy's lstsq)."""
    a, b = np.asarray(matrix), np.asarray(rhs)
    if a.ndim < 2 or b.ndim != a.ndim or a.shape[-2] != b.shape[-2]:
        raise invalid_argument(
            f"Input matrix and right-hand side must have the same number of rows: "
            f"{a.shape[-2] if a.ndim >= 2 else a.ndim} vs. {b.shape[-2] if b.ndim >= 2 else 0}")
    w, r = _work(a).astype(np.float64), _work(b).astype(np.float64)
    lam = float(l2_regularizer)
    m, n = a.shape[-2:]
    at = np.swapaxes(w, -1, -2)
    if not fast:
        out = np.stack([np.linalg.lstsq(x, y, rcond=None)[0]
                        for x, y in zip(w.reshape(-1, m, n), r.reshape(-1, m, r.shape[-1]))])
        return out.reshape(a.shape[:-2] + (n, b.shape[-1])).astype(a.dtype)
    if m >= n:
        gram = at @ w + lam * np.eye(n)
        out = np.linalg.solve(gram, at @ r)
    else:
        gram = w @ at + lam * np.eye(m)
        out = at @ np.linalg.solve(gram, r)
    return out.astype(a.dtype)


# ----------------------------------------------------------------------------------------
# Svd, SelfAdjointEigV2


def _svd_shape(ic) -> list[TensorShape]:
    s = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    if s.dims is None:
        return [TensorShape(None)] * 3
    *batch, m, n = s.dims
    p = None if m is None or n is None else min(m, n)
    if not ic.attrs["compute_uv"]:
        return [TensorShape([*batch, p]), TensorShape([0]), TensorShape([0])]
    full = ic.attrs["full_matrices"]
    return [TensorShape([*batch, p]), TensorShape([*batch, m, m if full else p]),
            TensorShape([*batch, n, n if full else p])]


@register_op(
    "Svd",
    inputs=["input: T"],
    outputs=["s: T", "u: T", "v: T"],
    attrs=["compute_uv: bool = true", "full_matrices: bool = false",
           "T: {double, float, half}"],
    shape_fn=_svd_shape,
)
def svd_kernel(input, *, compute_uv, full_matrices):  # noqa: A002
    """Singular values (descending) and, with ``compute_uv``, U and V (not V^H)."""
    a = np.asarray(input)
    if a.ndim < 2:
        raise invalid_argument(f"Input tensor 0 must have rank >= 2, got {a.ndim}")
    w = _work(a)
    if not compute_uv:
        s = np.linalg.svd(w, compute_uv=False)
        return s.astype(a.dtype), np.zeros(0, a.dtype), np.zeros(0, a.dtype)
    u, s, vh = np.linalg.svd(w, full_matrices=full_matrices)
    return s.astype(a.dtype), u.astype(a.dtype), np.swapaxes(vh, -1, -2).astype(a.dtype)


def _eig_shape(ic) -> list[TensorShape]:
    s = _square_shape(ic)[0]
    if s.dims is None:
        return [TensorShape(None), TensorShape(None)]
    v = s if ic.attrs["compute_v"] else TensorShape([0])
    return [TensorShape(s.dims[:-1]), v]


@register_op(
    "SelfAdjointEigV2",
    inputs=["input: T"],
    outputs=["e: T", "v: T"],
    attrs=["compute_v: bool = true", "T: {double, float, half}"],
    shape_fn=_eig_shape,
)
def self_adjoint_eig_v2_kernel(input, *, compute_v):  # noqa: A002
    """Eigenvalues (ascending) and eigenvectors (columns) of each inner self-adjoint matrix;
    only the lower triangle is read."""
    a = np.asarray(input)
    _check_square(a)
    e, v = np.linalg.eigh(_work(a), UPLO="L")
    if not compute_v:
        return e.astype(a.dtype), np.zeros(0, a.dtype)
    return e.astype(a.dtype), v.astype(a.dtype)


# ----------------------------------------------------------------------------------------
# TF1-style functions (tm.linalg.*)


def _unary_linalg(op_type: str, public: str, doc: str, attrs_fn=None):
    def fn(input: Any, name: str | None = None) -> Output:  # noqa: A002
        return build_output(op_type, [input], name=name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} (``tf.linalg.{public}``, op ``{op_type}``).\n\nArgs:\n"
                  "    input: ``[..., M, M]`` float tensor.\n    name: Optional op name.\n")
    return fn


matrix_determinant = _unary_linalg("MatrixDeterminant", "det", "Determinants")
cholesky = _unary_linalg("Cholesky", "cholesky", "Lower Cholesky factors")


def matrix_inverse(input: Any, adjoint: bool = False, name: str | None = None) -> Output:  # noqa: A002
    """Inverses of the inner matrices (``tf.linalg.inv``, op ``MatrixInverse``).

    Raises at run time InvalidArgumentError "Input is not invertible." for a singular matrix.
    """
    return build_output("MatrixInverse", [input], {"adjoint": adjoint}, name=name)


def slogdet(input: Any, name: str | None = None):  # noqa: A002
    """``(sign, log|det|)`` of the inner matrices (``tf.linalg.slogdet``)."""
    op = build_op(current_scope(), "LogMatrixDeterminant", [input], name=name)
    return op.outputs[0], op.outputs[1]


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None):
    """X with ``matrix @ X = rhs`` (``tf.linalg.solve``, op ``MatrixSolve``)."""
    m = as_operand(matrix)
    return build_output("MatrixSolve", [m, as_operand(rhs, m.dtype)], {"adjoint": adjoint},
                        name=name)


def matrix_triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: str | None = None) -> Output:
    """X with ``matrix @ X = rhs`` for triangular matrices (``tf.linalg.triangular_solve``)."""
    m = as_operand(matrix)
    return build_output("MatrixTriangularSolve", [m, as_operand(rhs, m.dtype)],
                        {"lower": lower, "adjoint": adjoint}, name=name)


def matrix_solve_ls(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True,
                    name: str | None = None) -> Output:
    """Least-squares solutions (``tf.linalg.lstsq``, op ``MatrixSolveLs``)."""
    m = as_operand(matrix)
    return build_output("MatrixSolveLs", [m, as_operand(rhs, m.dtype),
                                          as_operand(l2_regularizer, dtypes.float64)],
                        {"fast": fast}, name=name)


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None):
    """``(s, u, v)`` (or ``s`` alone without ``compute_uv``) (``tf.linalg.svd``)."""
    op = build_op(current_scope(), "Svd", [tensor],
                  {"compute_uv": compute_uv, "full_matrices": full_matrices}, name=name)
    if compute_uv:
        return op.outputs[0], op.outputs[1], op.outputs[2]
    return op.outputs[0]


def self_adjoint_eig(tensor: Any, name: str | None = None):
    """``(e, v)``: eigenvalues and eigenvectors (``tf.linalg.eigh``)."""
    op = build_op(current_scope(), "SelfAdjointEigV2", [tensor], {"compute_v": True},
                  name=name)
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor: Any, name: str | None = None) -> Output:
    """Eigenvalues only (``tf.linalg.eigvalsh``)."""
    return build_op(current_scope(), "SelfAdjointEigV2", [tensor], {"compute_v": False},
                    name=name).outputs[0]


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Output:
    """Swaps the last two dimensions (``tf.linalg.matrix_transpose``); real dtypes only, so
    ``conjugate`` changes nothing."""
    from tfmini.core.scope import name_scope

    del conjugate
    with name_scope(name, "matrix_transpose", [a]):
        a = as_operand(a)
        rank = a.shape.rank
        if rank is not None:
            if rank < 2:
                raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                                 f"Received `a` = {a} with shape: {a.shape}")
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        else:
            r = array_ops.rank(a)
            perm = array_ops.concat([build_output("Range", [0, build_output("Sub", [r, 2]), 1]),
                                     array_ops.stack([r - 1, r - 2])], 0)
        return array_ops.transpose(a, perm)


def trace(x: Any, name: str | None = None) -> Output:
    """Sum of each inner matrix's diagonal (``tf.linalg.trace``)."""
    from tfmini.core.scope import name_scope

    with name_scope(name, "Trace", [x]):
        x = as_operand(x)
        return build_output("Sum", [array_ops.matrix_diag_part(x), [-1]], {"keep_dims": False})


def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
        dtype: Any = dtypes.float32, name: str | None = None) -> Output:
    """Identity matrices (``tf.eye``), built as TensorFlow builds them (ones on a diagonal).

    Args:
        num_rows: Rows.
        num_columns: Columns (default: num_rows).
        batch_shape: Leading dimensions.
        dtype: The element dtype.
        name: Name scope (default ``eye``).

    Returns:
        ``batch_shape + [num_rows, num_columns]``.
    """
    from tfmini.core.convert import is_symbolic
    from tfmini.core.scope import name_scope

    with name_scope(name, "eye"):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        symbolic = is_symbolic(num_rows) or is_symbolic(num_columns)
        if symbolic:
            diag_size = build_output("Minimum", [as_operand(num_rows),
                                                 as_operand(num_columns)])
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(
                    num_columns, (int, np.integer)):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer "
                                f"values. Received: num_rows={num_rows}, "
                                f"num_columns={num_columns}")
            is_square = num_rows == num_columns
            diag_size = int(min(num_rows, num_columns))
        if symbolic or is_symbolic(batch_shape):
            bs = as_operand(batch_shape, dtypes.int32) if not isinstance(batch_shape, list) or \
                batch_shape else as_operand(np.zeros(0, np.int32))
            diag_shape = array_ops.concat([bs, array_ops.reshape(diag_size, [1])], 0)
            shape = None if is_square else array_ops.concat(
                [bs, array_ops.stack([num_rows, num_columns])], 0)
        else:
            diag_shape = list(batch_shape) + [diag_size]
            shape = None if is_square else list(batch_shape) + [num_rows, num_columns]
        ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return array_ops.matrix_diag(ones)
        return array_ops.matrix_set_diag(array_ops.zeros(shape, dtype=dtype), ones)


# tm.linalg holds these under TensorFlow's names; the top level gets TF1's spellings.
__all__ = ["cholesky", "eye", "matrix_determinant", "matrix_inverse", "matrix_solve",
           "matrix_solve_ls", "matrix_transpose", "matrix_triangular_solve", "qr",
           "self_adjoint_eig", "self_adjoint_eigvals", "svd", "trace"]
