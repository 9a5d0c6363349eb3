"""Matrix products: MatMul and BatchMatMulV2, and the TF1-style ``matmul``.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. ``matmul`` is
re-exported by ``tfmini.ops.math.operators``, the family's front module, which also makes
it ``x @ y``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import parallel, shape_fns
from tfmini.ops.common.build_util import build_output, operand_pair
from tfmini.ops.common.kernel_util import invalid_argument, no_kernel
from tfmini.ops.common.type_lists import COMPLEX_TYPES, FLOAT_TYPES
from tfmini.ops.math.complex_ops import conj

# TensorFlow's allowed-type lists for the products, cut to the dtypes tfmini has.
MATMUL_TYPES = f"{FLOAT_TYPES}, int32, int64, uint8, {COMPLEX_TYPES}"
BATCH_MATMUL_TYPES = f"{FLOAT_TYPES}, int16, int32, int64, uint8, {COMPLEX_TYPES}"
_NARROW_FLOATS = (np.dtype(np.float16), np.dtype("bfloat16"))
_SPLIT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


# ----------------------------------------------------------------------------------------
# MatMul, BatchMatMulV2


def _mat_mul_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank(ic.input_shape(0), 2)
    b = shape_fns.with_rank(ic.input_shape(1), 2)
    ta, tb = ic.attrs["transpose_a"], ic.attrs["transpose_b"]
    rows, inner_a = (a[1], a[0]) if ta else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if tb else (b[0], b[1])
    shape_fns.merge_dim(inner_a, inner_b)
    return [TensorShape([rows, cols])]


def _matmul(a, b):
    if a.dtype in _NARROW_FLOATS:  # accumulate in float, as TensorFlow's half kernels do
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    return np.matmul(a, b)


@register_op(
    "MatMul",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=["transpose_a: bool = false", "transpose_b: bool = false", f"T: {{{MATMUL_TYPES}}}",
           "grad_a: bool = false", "grad_b: bool = false"],
    shape_fn=_mat_mul_shape,
)
def mat_mul_kernel(a, b, *, transpose_a, transpose_b, node):
    """Matrix product of two rank-2 tensors, either transposed first."""
    if a.dtype == np.uint8:
        raise no_kernel(node)
    for i, m in enumerate((a, b)):
        if m.ndim != 2:
            raise invalid_argument(
                f"In[{i}] is not a matrix. Instead it has shape {dims_str(m.shape)}"
            )
    x = a.T if transpose_a else a
    y = b.T if transpose_b else b
    if x.shape[1] != y.shape[0]:
        raise invalid_argument(
            f"Matrix size-incompatible: In[0]: {dims_str(a.shape)}, In[1]: {dims_str(b.shape)}",
        )
    if x.dtype in _SPLIT_TYPES:
        # A large product in blocks shared with a helper thread when the BLAS pool is smaller
        # than the cores this run may use (ops/common/parallel.py says why).
        parts = parallel.product_parts(x.shape[0], x.shape[1], y.shape[1])
        if parts > 1:
            return parallel.matmul(x, y, parts)
    return _matmul(x, y)


def _batch_mat_mul_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 2)
    if a.rank is None or b.rank is None:
        return [unknown_shape()]
    adj_x, adj_y = ic.attrs["adj_x"], ic.attrs["adj_y"]
    rows, inner_a = (a[-1], a[-2]) if adj_x else (a[-2], a[-1])
    inner_b, cols = (b[-1], b[-2]) if adj_y else (b[-2], b[-1])
    shape_fns.merge_dim(inner_a, inner_b)
    batch = shape_fns.broadcast_shapes(a[:-2], b[:-2])
    return [batch.concatenate([rows, cols])]


@register_op(
    "BatchMatMulV2",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{BATCH_MATMUL_TYPES}}}", "adj_x: bool = false", "adj_y: bool = false",
           "grad_x: bool = false", "grad_y: bool = false"],
    shape_fn=_batch_mat_mul_shape,
)
def batch_mat_mul_v2_kernel(x, y, *, adj_x, adj_y, node):
    """Batched matrix product over the last two dimensions; batch dimensions broadcast."""
    if x.dtype == np.uint8:
        raise no_kernel(node)
    for i, m in enumerate((x, y)):
        if m.ndim < 2:
            raise invalid_argument(f"In[{i}] ndims must be >= 2: {m.ndim}")
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise invalid_argument(
            "In[0] and In[1] must have compatible batch dimensions: "
            f"{dims_str(x.shape)} vs. {dims_str(y.shape)}",
        ) from None
    # The adjoint: the conjugate transpose (the plain transpose for real types).
    a = np.conj(np.swapaxes(x, -1, -2)) if adj_x else x
    b = np.conj(np.swapaxes(y, -1, -2)) if adj_y else y
    if a.shape[-1] != b.shape[-2]:
        raise invalid_argument(
            f"Matrix size-incompatible: In[0]: {dims_str(x.shape)}, In[1]: {dims_str(y.shape)}",
        )
    return _matmul(a, b)


# ----------------------------------------------------------------------------------------
# TF1-style functions


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> Output:
    """Matrix product (``tf.linalg.matmul``).

    Rank-2 operands give a ``MatMul``; when either operand has a higher or unknown rank the
    product is a ``BatchMatMulV2`` whose batch dimensions broadcast. For real types the
    adjoint is the transpose.

    Args:
        a: A tensor of rank >= 2.
        b: A tensor of a's dtype (a literal takes a's dtype).
        transpose_a: Transpose a's last two dimensions first.
        transpose_b: Transpose b's last two dimensions first.
        adjoint_a: Conjugate-transpose a (the transpose for real types).
        adjoint_b: Conjugate-transpose b.
        a_is_sparse: Ignored (a hint in TensorFlow).
        b_is_sparse: Ignored.
        name: Optional op name.

    Returns:
        The product tensor.

    Raises:
        ValueError: both transpose and adjoint are set for one operand, or the inner
            dimensions differ ("Dimensions must be equal, but are 3 and 4").
        TypeError: a and b have different dtypes.
    """
    del a_is_sparse, b_is_sparse  # hints for TensorFlow's sparse kernels; dense here
    if transpose_a and adjoint_a:
        raise ValueError(
            "Only one of `transpose_a` and `adjoint_a` can be True. Received "
            f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}."
        )
    if transpose_b and adjoint_b:
        raise ValueError(
            "Only one of `transpose_b` and `adjoint_b` can be True. Received "
            f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}."
        )
    a, b = operand_pair(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    # As TensorFlow: BatchMatMulV2 only has adjoints, MatMul only transposes; for complex
    # operands the difference is a Conj (for real ones conj is no op).
    if ra is None or rb is None or ra > 2 or rb > 2:
        a = conj(a) if transpose_a else a
        b = conj(b) if transpose_b else b
        return build_output("BatchMatMulV2", [a, b],
                            {"adj_x": transpose_a or adjoint_a, "adj_y": transpose_b or adjoint_b},
                            name=name or "MatMul")
    a = conj(a) if adjoint_a else a
    b = conj(b) if adjoint_b else b
    return build_output("MatMul", [a, b], {"transpose_a": transpose_a or adjoint_a,
                                           "transpose_b": transpose_b or adjoint_b}, name=name)


__all__ = [
    "matmul",
]
