"""Math functions TensorFlow builds from other ops: ``polyval``, ``is_non_decreasing``,
``is_strictly_increasing``, ``reduce_variance``, ``reduce_std``, ``reciprocal_no_nan``, and
the linear-algebra ``norm``, ``logdet``, ``cholesky_solve`` and ``matvec``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops import array as array_ops
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.math.linalg_ops import cholesky, matrix_triangular_solve
from tfmini.ops.math.matmul_ops import matmul
from tfmini.ops.math.reduction import reduce_all, reduce_max, reduce_mean, reduce_sum


def polyval(coeffs: list, x: Any, name: str | None = None) -> Output:
    """``coeffs[0] * x^(n-1) + ... + coeffs[n-1]`` by Horner's rule (``tf.math.polyval``).

    Raises:
        ValueError: ``coeffs`` is not a list.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval", [*coeffs, x]):
        x = as_operand(x)
        if not coeffs:
            return array_ops.zeros_like(x, name=name)
        p = as_operand(coeffs[0], x.dtype)
        for c in coeffs[1:]:
            p = build_output("AddV2", [as_operand(c, x.dtype), build_output("Mul", [p, x])])
        return p


def _monotonic_diff(x: Any) -> Output:
    x = array_ops.reshape(as_operand(x), [-1])
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Expected x to be numeric, not {x.dtype.name}")
    return build_output("Sub", [x[1:], x[:-1]])


def is_non_decreasing(x: Any, name: str | None = None) -> Output:
    """Whether the flattened ``x`` never decreases (``tf.math.is_non_decreasing``)."""
    with name_scope(name, "is_non_decreasing", [x]):
        diff = _monotonic_diff(x)
        return reduce_all(build_output("LessEqual", [convert_to_tensor(0, diff.dtype), diff]))


def is_strictly_increasing(x: Any, name: str | None = None) -> Output:
    """Whether the flattened ``x`` strictly increases (``tf.math.is_strictly_increasing``)."""
    with name_scope(name, "is_strictly_increasing", [x]):
        diff = _monotonic_diff(x)
        return reduce_all(build_output("Less", [convert_to_tensor(0, diff.dtype), diff]))


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: str | None = None) -> Output:
    """Variance over axes (``tf.math.reduce_variance``).

    Raises:
        TypeError: an integer input.
    """
    with name_scope(name or "reduce_variance"):
        x = as_operand(input_tensor)
        means = reduce_mean(x, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{means.dtype.name}.")
        squared = build_output("Square", [build_output("Sub", [x, means])])
        return reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Output:
    """Standard deviation over axes (``tf.math.reduce_std``)."""
    with name_scope(name or "reduce_std"):
        return build_output("Sqrt", [reduce_variance(input_tensor, axis=axis,
                                                     keepdims=keepdims)])


def reciprocal_no_nan(x: Any, name: str | None = None) -> Output:
    """1 / x, 0 where x is 0 (``tf.math.reciprocal_no_nan``)."""
    with name_scope(name, "reciprocal_no_nan", [x]):
        x = as_operand(x)
        return build_output("DivNoNan", [convert_to_tensor(1, x.dtype), x])


_VECTOR_ORDS = ("fro", "euclidean", 1, 2, np.inf)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
         keepdims: bool | None = None, name: str | None = None,
         keep_dims: bool | None = None) -> Output:
    """Vector and matrix norms (``tf.norm``), built as TensorFlow builds them.

    Args:
        tensor: A float tensor.
        ord: ``"euclidean"``/``"fro"``, 1, 2, ``np.inf`` or a positive p (vectors); for
            matrices (``axis`` a pair) ``"fro"``, 1, 2 or ``np.inf``.
        axis: None (all elements as one vector), an int, or a pair for matrix norms.
        keepdims: Keep reduced axes with length 1.
        name: Name scope (default ``norm``).
        keep_dims: Deprecated alias of keepdims.

    Returns:
        The norms.

    Raises:
        ValueError: an unsupported ``ord`` or ``axis``.
    """
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must contain 2 unique integers, got {axis}")
        if ord not in ("fro", "euclidean", 1, 2, np.inf):
            raise ValueError(f"'ord' must be a supported matrix norm in "
                             f"['euclidean', 'fro', 1, 2, inf], got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ord in _VECTOR_ORDS or (isinstance(ord, (int, float)) and ord > 0)
        if not supported:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    with name_scope(name, "norm", [tensor]):
        x = as_operand(tensor)
        if ord in ("fro", "euclidean", 2, 2.0) and not (is_matrix and ord in (2, 2.0)):
            result = build_output("Sqrt", [reduce_sum(build_output("Mul", [x, x]), axis,
                                                      keepdims=True)])
        elif is_matrix and ord in (2, 2.0):
            rank = x.shape.rank
            if rank is None:
                raise ValueError("The matrix 2-norm needs an input of known rank")
            pos = [a % rank for a in axis]
            perm_before = [i for i in range(rank) if i not in pos] + pos
            perm_after = [perm_before.index(i) for i in range(rank)]
            permed = array_ops.transpose(x, perm_before)
            s = build_output("Svd", [permed], {"compute_uv": False, "full_matrices": False})
            largest = reduce_max(build_output("Abs", [s]), axis=-1, keepdims=True)
            result = array_ops.transpose(array_ops.expand_dims(largest, -1), perm_after)
        else:
            result = build_output("Abs", [x])
            if ord == 1:
                if not is_matrix:
                    result = reduce_sum(result, axis, keepdims=True)
                else:
                    result = reduce_max(reduce_sum(result, axis[-2], keepdims=True), axis[-1],
                                        keepdims=True)
            elif ord == np.inf:
                if not is_matrix:
                    result = reduce_max(result, axis, keepdims=True)
                else:
                    result = reduce_max(reduce_sum(result, axis[-1], keepdims=True), axis[-2],
                                        keepdims=True)
            else:
                p = convert_to_tensor(ord, x.dtype)
                inv = convert_to_tensor(1.0 / ord, x.dtype)
                result = build_output("Pow", [reduce_sum(build_output("Pow", [result, p]), axis,
                                                         keepdims=True), inv])
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def logdet(matrix: Any, name: str | None = None) -> Output:
    """log(det(matrix)) of Hermitian positive definite matrices, via Cholesky
    (``tf.linalg.logdet``)."""
    with name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        diag = array_ops.matrix_diag_part(chol)
        return build_output("Mul", [convert_to_tensor(2.0, chol.dtype),
                                    reduce_sum(build_output("Log", [diag]), axis=[-1])])


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Output:
    """X with ``A X = rhs`` given A's Cholesky factor (``tf.linalg.cholesky_solve``)."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = matrix_triangular_solve(chol, rhs, adjoint=False, lower=True)
        return matrix_triangular_solve(chol, y, adjoint=True, lower=True)


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: str | None = None) -> Output:
    """Matrix times vector (``tf.linalg.matvec``): MatMul with b as a column, squeezed."""
    with name_scope(name, "MatVec", [a, b]):
        out = matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a,
                     adjoint_a=adjoint_a)
        return array_ops.squeeze(out, axis=-1)


def lbeta(x: Any, name: str | None = None) -> Output:
    """log |Beta(x)| over the last dimension: sum(lgamma(x)) - lgamma(sum(x))
    (``tf.math.lbeta``)."""
    with name_scope(name, "lbeta", [x]):
        x = as_operand(x)
        log_prod = reduce_sum(build_output("Lgamma", [x]), axis=[-1])
        log_gamma_sum = build_output("Lgamma", [reduce_sum(x, axis=[-1])])
        return build_output("Sub", [log_prod, log_gamma_sum])


def zero_fraction(value: Any, name: str | None = None) -> Output:
    """The fraction of zeros in ``value``, as float32 (``tf.math.zero_fraction``)."""
    from tfmini.core import dtypes
    from tfmini.ops.math.cast_ops import cast
    from tfmini.ops.math.reduction import count_nonzero

    with name_scope(name, "zero_fraction", [value]):
        value = as_operand(value)
        size = array_ops.size(value, out_type=dtypes.int64)
        nonzero = count_nonzero(value, dtype=dtypes.int64)
        with name_scope("counts_to_fraction"):
            zeros = build_output("Sub", [size, nonzero])
            fraction = build_output("RealDiv", [cast(zeros, dtypes.float32),
                                                cast(size, dtypes.float32)])
        return array_ops.identity(fraction, name="fraction")


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False,
                name: str | None = None) -> Output:
    """The numerical rank of each inner matrix: singular values above ``tol`` (default
    ``eps * max(M, N) * max(s)``) (``tf.linalg.matrix_rank``)."""
    from tfmini.core import dtypes
    from tfmini.ops.math.cast_ops import cast

    del validate_args
    with name_scope(name or "matrix_rank"):
        a = as_operand(a)
        s = build_output("Svd", [a], {"compute_uv": False, "full_matrices": False})
        if tol is None:
            m, n = a.shape.dims[-2:] if a.shape.rank is not None else (None, None)
            if m is None or n is None:
                raise ValueError("matrix_rank without tol needs static matrix dimensions")
            eps = np.finfo(a.dtype.np_dtype).eps
            tol = build_output("Mul", [convert_to_tensor(eps * max(m, n), a.dtype),
                                       reduce_max(s, axis=-1, keepdims=True)])
        else:
            tol = as_operand(tol, a.dtype)
        above = cast(build_output("Greater", [s, tol]), dtypes.int32)
        return reduce_sum(above, axis=-1)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False,
         name: str | None = None) -> Output:
    """Moore-Penrose pseudo-inverse by SVD, small singular values dropped
    (``tf.linalg.pinv``)."""
    del validate_args
    with name_scope(name or "pinv"):
        a = as_operand(a)
        dtype = a.dtype.np_dtype
        if rcond is None:
            m, n = a.shape.dims[-2:] if a.shape.rank is not None else (None, None)
            if m is None or n is None:
                raise ValueError("pinv without rcond needs static matrix dimensions")
            rcond = 10.0 * max(m, n) * np.finfo(dtype).eps
        op_outputs = build_output("Svd", [a], {"compute_uv": True, "full_matrices": False}).op
        s, u, v = op_outputs.outputs
        cutoff = build_output("Mul", [as_operand(rcond, a.dtype), reduce_max(s, axis=-1)])
        kept = build_output("SelectV2", [build_output("Greater", [
            s, array_ops.expand_dims(cutoff, -1)]), s, np.array(np.inf, dtype)])
        scaled = build_output("RealDiv", [v, array_ops.expand_dims(kept, -2)])
        return matmul(scaled, u, adjoint_b=True)


def arg_max(input: Any, dimension: Any, output_type: Any = None,  # noqa: A002
            name: str | None = None) -> Output:
    """TF1 ``tf.arg_max``: op ArgMax (int64 indices unless ``output_type``)."""
    from tfmini.ops.math.reduction import argmax

    kwargs = {} if output_type is None else {"output_type": output_type}
    return argmax(input, dimension, name=name, **kwargs)


def arg_min(input: Any, dimension: Any, output_type: Any = None,  # noqa: A002
            name: str | None = None) -> Output:
    """TF1 ``tf.arg_min``: op ArgMin (int64 indices unless ``output_type``)."""
    from tfmini.ops.math.reduction import argmin

    kwargs = {} if output_type is None else {"output_type": output_type}
    return argmin(input, dimension, name=name, **kwargs)


__all__ = ["arg_max", "arg_min", "cholesky_solve", "is_non_decreasing", "is_strictly_increasing",
           "lbeta", "norm"]
