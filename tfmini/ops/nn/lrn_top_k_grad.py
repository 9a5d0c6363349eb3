"""Gradients of LRN and TopKV2, as TensorFlow's ``nn_grad.py`` builds them.

LRN's gradient is the LRNGrad op. TensorFlow registers no gradient for LRNGrad (a second
derivative through it fails there); tfmini marks it not differentiable so the contract holds,
and InTopKV2 (a bool output) is not differentiable in TensorFlow either.
TopKV2 sends each value's gradient back to the position its index names, zeros elsewhere.
"""

from __future__ import annotations

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops

no_gradient("LRNGrad")
no_gradient("InTopKV2")


@RegisterGradient("LRN")
def _lrn_grad(op: Operation, grad: Output) -> Output:
    """LRNGrad(grad, input, output) with the op's attrs."""
    attrs = {k: op.get_attr(k) for k in ("depth_radius", "bias", "alpha", "beta")}
    return build_op(current_scope(), "LRNGrad", [grad, op.inputs[0], op.outputs[0]],
                    attrs).outputs[0]


@RegisterGradient("TopKV2")
def _top_k_grad(op: Operation, grad: Output, _indices_grad: Output) -> tuple[Output, None]:
    """Scatters the values' gradient to the input positions their indices name.

    As TensorFlow's ``_TopKGrad``: the indices are flattened to ``[rows, k]``, offset by
    ``row * n`` to index the flattened input, and ``grad`` is scattered into zeros of the
    input's size, then reshaped. ``k`` gets no gradient.
    """
    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    indices = math_ops.cast(op.outputs[1], "int32")
    ind_lastdim = array_ops.gather(ind_shape, array_ops.size(ind_shape) - 1)
    ind_2d = array_ops.reshape(indices, array_ops.stack([np.int32(-1), ind_lastdim]))
    in_lastdim = array_ops.gather(in_shape, array_ops.size(in_shape) - 1)
    outerdim = array_ops.shape(ind_2d)[0]
    offsets = array_ops.expand_dims(
        array_ops.range(np.int32(0), outerdim * in_lastdim, in_lastdim), -1)
    ind = array_ops.reshape(ind_2d + offsets, np.array([-1], np.int32))
    flat = array_ops.scatter_nd(array_ops.expand_dims(ind, -1),
                                array_ops.reshape(grad, np.array([-1], np.int32)),
                                array_ops.expand_dims(math_ops.reduce_prod(in_shape), 0))
    return array_ops.reshape(flat, in_shape), None
