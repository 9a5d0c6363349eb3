"""Gradients of the linear-algebra ops, as TensorFlow's ``linalg_grad.py`` defines them
(real dtypes, so adjoints are transposes).
"""

from __future__ import annotations

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.math import unbroadcast


def _o(op_type: str, inputs: list, attrs: dict | None = None) -> Output:
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _mm(a, b, adjoint_a=False, adjoint_b=False) -> Output:
    return math_ops.matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def _adj(a: Output) -> Output:
    return math_ops.matrix_transpose(a)


def _safe_reciprocal(x: Output, epsilon: float = 1e-20) -> Output:
    return _o("Mul", [x, _o("Reciprocal", [_o("AddV2", [_o("Mul", [x, x]), convert_to_tensor(
        epsilon, x.dtype)])])])


def _dense(g):
    return None if g is None else convert_to_tensor(g)


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op: Operation, grad) -> Output:
    ainv = op.outputs[0]
    adjoint = op.get_attr("adjoint")
    inner = _mm(_dense(grad), ainv, adjoint_a=adjoint, adjoint_b=not adjoint)
    return _o("Neg", [_mm(ainv, inner, adjoint_a=not adjoint)])


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op: Operation, grad) -> Output:
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = math_ops.matrix_inverse(a, adjoint=True)
    shape = array_ops.concat([array_ops.shape(c), [1, 1]], 0)
    multipliers = array_ops.reshape(_o("Mul", [_dense(grad), c]), shape)
    return _o("Mul", [multipliers, a_adj_inv])


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op: Operation, _, grad_b) -> Output:
    a_adj_inv = math_ops.matrix_inverse(op.inputs[0], adjoint=True)
    grad_b = _dense(grad_b)
    multipliers = array_ops.reshape(grad_b, array_ops.concat([array_ops.shape(grad_b), [1, 1]],
                                                              0))
    return _o("Mul", [multipliers, a_adj_inv])


@RegisterGradient("Cholesky")
def _cholesky_grad(op: Operation, grad) -> Output:
    lower = op.outputs[0]
    shape = array_ops.shape(lower)
    eye = math_ops.eye(shape[-1], batch_shape=shape[:-2], dtype=lower.dtype)
    l_inverse = math_ops.matrix_triangular_solve(lower, eye)
    middle = _mm(lower, _dense(grad), adjoint_a=True)
    half = convert_to_tensor(0.5, lower.dtype)
    middle = array_ops.matrix_set_diag(middle, _o("Mul", [half,
                                                          array_ops.matrix_diag_part(middle)]))
    middle = array_ops.matrix_band_part(middle, -1, 0)
    grad_a = _mm(_mm(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a = _o("AddV2", [grad_a, _adj(grad_a)])
    return _o("Mul", [grad_a, half])


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op: Operation, grad) -> list:
    a, c = op.inputs[0], op.outputs[0]
    adjoint = op.get_attr("adjoint")
    grad_b = math_ops.matrix_solve(a, _dense(grad), adjoint=not adjoint)
    if adjoint:
        grad_a = _o("Neg", [_mm(c, grad_b, adjoint_b=True)])
    else:
        grad_a = _o("Neg", [_mm(grad_b, c, adjoint_b=True)])
    return [grad_a, grad_b]


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op: Operation, grad) -> list:
    a, b, c = op.inputs[0], op.inputs[1], op.outputs[0]
    adjoint, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = math_ops.matrix_triangular_solve(a, _dense(grad), lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = _o("Neg", [_mm(c, grad_b, adjoint_b=True)])
    else:
        grad_a = _o("Neg", [_mm(grad_b, c, adjoint_b=True)])
    grad_a = array_ops.matrix_band_part(grad_a, -1, 0) if lower else \
        array_ops.matrix_band_part(grad_a, 0, -1)
    # Batch dimensions broadcast in the kernel: sum them back to each input's shape.
    if a.shape.rank is not None and b.shape.rank is not None and \
            a.shape.dims[:-2] == b.shape.dims[:-2]:
        return [grad_a, grad_b]
    return [unbroadcast(grad_a, a), unbroadcast(grad_b, b)]


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op: Operation, grad_e, grad_v) -> Output:
    e = op.outputs[0]
    grad_e = _dense(grad_e) if grad_e is not None else array_ops.zeros_like(e)
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        grad_v = _dense(grad_v) if grad_v is not None else array_ops.zeros_like(v)
        f = array_ops.matrix_set_diag(_safe_reciprocal(_o("Sub", [
            array_ops.expand_dims(e, -2), array_ops.expand_dims(e, -1)])),
            array_ops.zeros_like(e))
        inner = _o("AddV2", [array_ops.matrix_diag(grad_e),
                             _o("Mul", [f, _mm(v, grad_v, adjoint_a=True)])])
        grad_a = _mm(v, _mm(inner, v, adjoint_b=True))
    else:
        _, v = math_ops.self_adjoint_eig(op.inputs[0])
        grad_a = _mm(v, _mm(array_ops.matrix_diag(grad_e), v, adjoint_b=True))
    grad_a = array_ops.matrix_band_part(_o("AddV2", [grad_a, _adj(grad_a)]), -1, 0)
    half = convert_to_tensor(0.5, e.dtype)
    return array_ops.matrix_set_diag(grad_a, _o("Mul", [half, array_ops.matrix_diag_part(grad_a)]))


@RegisterGradient("Svd")
def _svd_grad(op: Operation, grad_s, grad_u, grad_v) -> Output:
    a = op.inputs[0]
    s = op.outputs[0]
    grad_s = _dense(grad_s) if grad_s is not None else array_ops.zeros_like(s)
    grad_s_mat = array_ops.matrix_diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = math_ops.svd(a, compute_uv=True)
        return _mm(u, _mm(grad_s_mat, v, adjoint_b=True))
    full = op.get_attr("full_matrices")
    if a.shape.rank is None or a.shape.dims[-2] is None or a.shape.dims[-1] is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    m, n = a.shape.dims[-2:]
    u, v = op.outputs[1], op.outputs[2]
    grad_u = _dense(grad_u) if grad_u is not None else array_ops.zeros_like(u)
    grad_v = _dense(grad_v) if grad_v is not None else array_ops.zeros_like(v)
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when "
                                  "full_matrices is True")
    s_mat = array_ops.matrix_diag(s)
    s_2 = _o("Square", [s])
    f = array_ops.matrix_set_diag(_safe_reciprocal(_o("Sub", [
        array_ops.expand_dims(s_2, -2), array_ops.expand_dims(s_2, -1)])),
        array_ops.zeros_like(s))
    s_inv_mat = array_ops.matrix_diag(_safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    f_u = _o("Mul", [f, _mm(u, grad_u, adjoint_a=True)])
    f_v = _o("Mul", [f, _mm(v1, grad_v1, adjoint_a=True)])
    term1_nouv = _o("AddV2", [_o("AddV2", [grad_s_mat, _mm(_o("AddV2", [f_u, _adj(f_u)]), s_mat)]),
                              _mm(s_mat, _o("AddV2", [f_v, _adj(f_v)]))])
    term1 = _mm(u, _mm(term1_nouv, v1, adjoint_b=True))
    if m == n:
        before = term1
    else:
        gv1t = _adj(grad_v1)
        gv1t_v1 = _mm(gv1t, v1)
        term2_nous = _o("Sub", [gv1t, _mm(gv1t_v1, v1, adjoint_b=True)])
        if full:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            term2_nous = _o("Sub", [term2_nous, _mm(_mm(v1, grad_v2, adjoint_a=True), v2,
                                                    adjoint_b=True)])
        term2 = _mm(_mm(u, s_inv_mat), term2_nous)
        before = _o("AddV2", [term1, term2])
    grad_a = _adj(before) if use_adjoint else before
    grad_a.set_shape(a.shape)
    return grad_a


def _cholesky_solve(chol: Output, rhs: Output) -> Output:
    y = math_ops.matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
    return math_ops.matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def _gramian_cholesky(matrix: Output, l2: Output, first_kind: bool) -> Output:
    gramian = _mm(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    size = array_ops.shape(gramian)[-1]
    gramian = _o("AddV2", [gramian, _o("Mul", [l2, math_ops.eye(size, dtype=matrix.dtype)])])
    return math_ops.cholesky(gramian)


@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op: Operation, grad) -> list:
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    a, b = op.inputs[0], op.inputs[1]
    grad = _dense(grad)
    l2 = math_ops.cast(op.inputs[2], a.dtype)
    dims = a.shape.dims
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("MatrixSolveLs gradient needs a static matrix shape")
    if dims[-2] >= dims[-1]:
        x = op.outputs[0]
        chol = _gramian_cholesky(a, l2, first_kind=True)
        z = _cholesky_solve(chol, grad)
        xzt = _mm(x, z, adjoint_b=True)
        zx_sym = _o("AddV2", [xzt, _adj(xzt)])
        grad_a = _o("AddV2", [_o("Neg", [_mm(a, zx_sym)]), _mm(b, z, adjoint_b=True)])
        return [grad_a, _mm(a, z), None]
    chol = _gramian_cholesky(a, l2, first_kind=False)
    grad_b = _cholesky_solve(chol, _mm(a, grad))
    tmp = _cholesky_solve(chol, b)
    a1 = _o("Neg", [_mm(grad_b, _mm(tmp, a, adjoint_a=True))])
    a2 = _mm(tmp, _o("Sub", [grad, _mm(a, grad_b, adjoint_a=True)]), adjoint_b=True)
    return [_o("AddV2", [a1, a2]), grad_b, None]


@RegisterGradient("Qr")
def _qr_grad(op: Operation, dq, dr) -> Output:
    q, r = op.outputs
    dq = _dense(dq) if dq is not None else array_ops.zeros_like(q)
    dr = _dense(dr) if dr is not None else array_ops.zeros_like(r)
    if r.shape.rank is None or r.shape.dims[-2] is None or r.shape.dims[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                  f"r.shape: {r.shape}")
    if r.shape.dims[-2] > r.shape.dims[-1] and q.shape.dims[-2] == q.shape.dims[-1]:
        raise NotImplementedError(
            f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
            f"r.shape={r.shape} with nrows={r.shape.dims[-2]} and ncols={r.shape.dims[-1]}.")

    def triangular_solve(x, upper):
        # x @ inverse(upper)^T for an upper-triangular matrix.
        return _adj(math_ops.matrix_triangular_solve(upper, _adj(x), lower=False,
                                                     adjoint=False))

    def square_and_deep(q, r, dq, dr):
        qdq = _mm(q, dq, adjoint_a=True)
        qdq_ = _o("Sub", [qdq, _adj(qdq)])
        rdr = _mm(r, dr, adjoint_b=True)
        rdr_ = _o("Sub", [rdr, _adj(rdr)])
        tril = array_ops.matrix_band_part(_o("AddV2", [qdq_, rdr_]), -1, 0)
        grad_a = _mm(q, _o("AddV2", [dr, triangular_solve(tril, r)]))
        grad_b = triangular_solve(_o("Sub", [dq, _mm(q, qdq)]), r)
        return _o("AddV2", [grad_a, grad_b])

    num_rows, num_cols = q.shape.dims[-2], r.shape.dims[-1]
    if num_rows >= num_cols:
        return square_and_deep(q, r, dq, dr)
    # A wide matrix: partition a = [x, y], r = [u, v] and reduce to the square case.
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = _mm(q, dv)
    dx = square_and_deep(q, u, _o("AddV2", [dq, _mm(y, dv, adjoint_b=True)]), du)
    return array_ops.concat([dx, dy], -1)
