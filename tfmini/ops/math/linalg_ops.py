"""Linear-algebra ops: Qr (for the orthogonal initializer).

TensorFlow's kernel is ``tensorflow/core/kernels/linalg/qr_op_impl.h`` (Eigen's Householder
QR); this one is LAPACK's through NumPy, so values agree to rounding, not bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument

__all__ = ["qr"]


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


no_gradient("Qr")


def qr(input: Any, full_matrices: bool = False, name: str | None = None):  # noqa: A002
    """``(q, r)`` with ``input = q @ r`` (``tf.linalg.qr``)."""
    op = build_op(current_scope(), "Qr", [input], {"full_matrices": full_matrices}, name=name)
    return op.outputs[0], op.outputs[1]
