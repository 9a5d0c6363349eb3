"""Gradient functions of the nn family, as TensorFlow's ``nn_grad.py`` builds them.

Each function is registered for its op type with :class:`RegisterGradient` and called by
``tm.gradients`` as ``fn(op, *output_grads)`` inside ``gradients/<op name>_grad/``; it
returns one gradient (or None) per op input. The subgraphs are TensorFlow's, op for op, so
values (and, where TensorFlow's own second derivatives go through them, the ``*Grad`` ops)
agree with ``tf.gradients``. Where tfmini departs from TensorFlow it says so at the function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops


def _op(op_type: str, inputs: list, attrs: dict | None = None) -> Output:
    """The first output of a new ``op_type`` op (TensorFlow's ``gen_nn_ops`` calls)."""
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _data_format(op: Operation) -> str | None:
    # As TensorFlow: a BiasAdd from an old GraphDef may lack the attr (then NHWC applies).
    try:
        return op.get_attr("data_format")
    except ValueError:
        return None


def _format_attrs(data_format: str | None) -> dict:
    return {} if data_format is None else {"data_format": data_format}


def _is_zeros_tensor(grad: Any) -> bool:
    """Whether ``grad`` is the zeros ``tm.gradients`` made up for an output nobody used.

    TensorFlow tags the zeros its gradients make for unused outputs (``_is_zeros_tensor``)
    and the cross entropies then skip their second-derivative term, so a first-order
    gradient builds no Softmax or batched matmul. Here those zeros are the ``ZerosLike``
    ops that ``tm.gradients`` builds; a zero gradient from elsewhere adds only zeros.
    """
    return isinstance(grad, Output) and grad.op.type == "ZerosLike"


# ----------------------------------------------------------------------------------------
# Softmax, LogSoftmax


@RegisterGradient("Softmax")
def _softmax_grad(op: Operation, grad_softmax: Output) -> Output:
    """(grad - sum(grad * softmax)) * softmax: diag(s) - s s^T applied without the matrix."""
    softmax = op.outputs[0]
    sum_channels = math_ops.reduce_sum(grad_softmax * softmax, -1, keepdims=True)
    return (grad_softmax - sum_channels) * softmax


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: Operation, grad: Output) -> Output:
    """grad - sum(grad) * softmax, with softmax recovered as exp(log_softmax)."""
    softmax = math_ops.exp(op.outputs[0])
    return grad - math_ops.reduce_sum(grad, -1, keepdims=True) * softmax


# ----------------------------------------------------------------------------------------
# BiasAdd, BiasAddV1, BiasAddGrad


@RegisterGradient("BiasAdd")
def _bias_add_grad(op: Operation, received_grad: Output) -> tuple[Output, Output]:
    """The value gets the gradient as is; the bias its sum over all but the channel axis."""
    attrs = _format_attrs(_data_format(op))
    return received_grad, _op("BiasAddGrad", [received_grad], attrs)


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op: Operation, received_grad: Output) -> Output:
    """BiasAddGrad sums over the non-channel axes, so its gradient broadcasts back: the bias
    gradient reshaped to rank of the input (channel axis kept) and tiled over the rest."""
    data_format = _data_format(op)
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if data_format == "NCHW":
        expanded_shape = array_ops.concat(
            [array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0)
        tile_mults = array_ops.concat([shape[:1], np.array([1], np.int32), shape[2:]], 0)
    else:
        expanded_shape = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = array_ops.concat([shape[:-1], np.array([1], np.int32)], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return array_ops.tile(expanded_grad, tile_mults)


@RegisterGradient("BiasAddV1")
def _bias_add_v1_grad(op: Operation, received_grad: Output) -> tuple[Output, Output]:
    """As BiasAdd's, with the bias gradient a Sum over every axis but the last."""
    del op
    # TensorFlow's math_ops.range; tfmini's Range lives in the array family.
    reduction_dims = array_ops.range(array_ops.rank(received_grad) - 1)
    return received_grad, math_ops.reduce_sum(received_grad, reduction_dims)


# ----------------------------------------------------------------------------------------
# Activations. TensorFlow differentiates Relu, Relu6, Elu and Selu through their outputs
# (the same sign tests, and no need to keep the input alive), the others through inputs.


@RegisterGradient("Relu")
def _relu_grad(op: Operation, grad: Output) -> Output:
    """ReluGrad of the output: grad where relu(x) > 0."""
    return _op("ReluGrad", [grad, op.outputs[0]])


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """ReluGrad is linear in its gradients and piecewise constant in its features."""
    x = op.inputs[1]
    return _op("ReluGrad", [grad, x]), array_ops.zeros_like(x)


@RegisterGradient("Relu6")
def _relu6_grad(op: Operation, grad: Output) -> Output:
    """Relu6Grad of the output: grad where 0 < relu6(x) < 6."""
    return _op("Relu6Grad", [grad, op.outputs[0]])


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """Linear in its gradients, piecewise constant in its features."""
    x = op.inputs[1]
    return _op("Relu6Grad", [grad, x]), array_ops.zeros_like(x)


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op: Operation, grad: Output) -> Output:
    """LeakyReluGrad of the input, with the op's alpha."""
    x = op.inputs[0]
    return _op("LeakyReluGrad", [grad, x], {"alpha": op.get_attr("alpha")})


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """Linear in its gradients, piecewise constant in its features."""
    x = op.inputs[1]
    return (_op("LeakyReluGrad", [grad, x], {"alpha": op.get_attr("alpha")}),
            array_ops.zeros_like(x))


@RegisterGradient("Elu")
def _elu_grad(op: Operation, grad: Output) -> Output:
    """EluGrad of the output: grad * (y + 1) where y < 0, else grad."""
    return _op("EluGrad", [grad, op.outputs[0]])


@RegisterGradient("EluGrad")
def _elu_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """EluGrad(g, y) = g * (y + 1) for y < 0, g otherwise: d/dg is EluGrad again, d/dy is g
    on the negative side."""
    elu_x = op.inputs[1]
    return (_op("EluGrad", [grad, elu_x]),
            math_ops.where(elu_x < 0, grad * op.inputs[0], array_ops.zeros_like(elu_x)))


@RegisterGradient("Selu")
def _selu_grad(op: Operation, grad: Output) -> Output:
    """SeluGrad of the output."""
    return _op("SeluGrad", [grad, op.outputs[0]])


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """SeluGrad(g, y) = g * (y + scale * alpha) for y < 0, g * scale otherwise."""
    selu_x = op.inputs[1]
    return (_op("SeluGrad", [grad, selu_x]),
            math_ops.where(selu_x < 0.0, grad * op.inputs[0], array_ops.zeros_like(selu_x)))


@RegisterGradient("Softplus")
def _softplus_grad(op: Operation, grad: Output) -> Output:
    """grad * sigmoid(x): TensorFlow builds a Sigmoid here, not a SoftplusGrad op, so the
    second derivative goes through Sigmoid's gradient."""
    return grad * math_ops.sigmoid(op.inputs[0])


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """SoftplusGrad(dy, x) = dy / (1 + exp(-x)); returns (d/d dy, d/dx) times ``grad``."""
    dy, x = op.inputs
    # TensorFlow builds these under control_dependencies([grad]), which only matters for
    # its TF1 while/cond contexts; tfmini's control flow is functional, so it is left out
    # (the values are the same).
    ddy = _op("SoftplusGrad", [grad, x])
    d2x = grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))
    return ddy, d2x


@RegisterGradient("Softsign")
def _softsign_grad(op: Operation, grad: Output) -> Output:
    """SoftsignGrad of the input: grad / (1 + |x|)^2."""
    return _op("SoftsignGrad", [grad, op.inputs[0]])


@RegisterGradient("SoftsignGrad")
def _softsign_grad_grad(op: Operation, grad: Output) -> tuple[Output, Output]:
    """SoftsignGrad(g, x) = g / (1 + |x|)^2.

    TensorFlow registers no gradient for SoftsignGrad (``tf.gradients`` of a softsign
    gradient raises LookupError); tfmini gives the exact one rather than leave a hole:
    d/dg = 1 / (1 + |x|)^2 (SoftsignGrad again) and d/dx = -2 g sign(x) / (1 + |x|)^3.
    """
    g, x = op.inputs
    ddg = _op("SoftsignGrad", [grad, x])
    denom = 1.0 + math_ops.abs(x)
    dx = -2.0 * grad * g * math_ops.sign(x) / (denom * denom * denom)
    return ddg, dx


# ----------------------------------------------------------------------------------------
# Cross entropies. Their kernels return the gradient w.r.t. the logits as a second output
# (backprop), so the first-order gradient is a broadcast multiply of it.


def _broadcast_mul(vec: Output, mat: Output) -> Output:
    """``vec[:, None] * mat`` for vec ``[D0]`` and mat ``[D0, D1]`` (TF's _BroadcastMul)."""
    return array_ops.expand_dims(vec, -1) * mat


def _xent_logits_grad(op: Operation, grad_loss: Output, grad_grad: Output | None) -> Output:
    """The logits gradient shared by both cross entropies.

    ``grad_grad`` is the gradient reaching the backprop output, i.e. a second derivative
    request; the backprop is softmax - labels, so its derivative w.r.t. the logits is the
    softmax derivative, applied as in _softmax_grad (with a batched dot product).
    """
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if grad_grad is not None and not _is_zeros_tensor(grad_grad):
        softmax = _op("Softmax", [logits])
        dot = math_ops.matmul(array_ops.expand_dims(grad_grad, 1),
                              array_ops.expand_dims(softmax, 2))
        grad += (grad_grad - array_ops.squeeze(dot, axis=1)) * softmax
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_with_logits_grad(
        op: Operation, grad_loss: Output, grad_grad: Output | None) -> tuple[Output, Output]:
    """Logits: grad_loss * backprop (+ the softmax term for second derivatives).
    Labels: grad_loss * -log_softmax(logits), since loss = -sum(labels * log_softmax)."""
    grad = _xent_logits_grad(op, grad_loss, grad_grad)
    logits = op.inputs[0]
    return grad, _broadcast_mul(grad_loss, -_op("LogSoftmax", [logits]))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_with_logits_grad(
        op: Operation, grad_loss: Output, grad_grad: Output | None) -> tuple[Output, None]:
    """As the dense one for the logits; integer labels get no gradient."""
    return _xent_logits_grad(op, grad_loss, grad_grad), None


# ----------------------------------------------------------------------------------------
# L2Loss


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: Operation, grad: Output) -> Output:
    """d(sum(t^2) / 2)/dt = t, times the scalar incoming gradient."""
    return op.inputs[0] * grad


__all__: list[str] = []
