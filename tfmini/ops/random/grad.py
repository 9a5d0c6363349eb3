"""Gradient functions of the random family (TensorFlow's ``random_grad.py``).

Every sampler is marked non-differentiable where it is registered except RandomGamma, whose
gradient with respect to ``alpha`` is the implicit reparameterization derivative computed by
RandomGammaGrad (:mod:`tfmini.ops.random.gamma_derivative`).
"""

from __future__ import annotations

from tfmini.core.builder import build_op
from tfmini.core.dtypes import int32
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import control_dependencies, current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops


@RegisterGradient("RandomGamma")
def _random_gamma_grad(op: Operation, grad: Output) -> tuple[None, Output]:
    """No gradient for the shape; for ``alpha``, ``grad * d sample / d alpha`` summed over the
    sample dimensions (``alpha`` reshaped with leading unit dimensions to broadcast against
    the samples)."""
    shape, alpha = op.inputs
    sample = op.outputs[0]
    with control_dependencies([grad]):
        num_sample_dims = array_ops.strided_slice(array_ops.shape(shape), [0], [1], [1],
                                                  shrink_axis_mask=1)
        leading = array_ops.ones(array_ops.reshape(num_sample_dims, [1]), dtype=int32)
        alpha_b = array_ops.reshape(alpha, array_ops.concat(
            [leading, array_ops.shape(alpha)], 0))
        partial_a = build_op(current_scope(), "RandomGammaGrad", [alpha_b, sample]).outputs[0]
        return None, math_ops.reduce_sum(grad * partial_a,
                                          axis=array_ops.range(0, num_sample_dims))
