"""Gradients of the convolution ops, as TensorFlow's ``nn_grad.py`` builds them.

Conv2D's gradient builds Conv2DBackpropInput and Conv2DBackpropFilter; each backprop's
gradient builds the forward op and the other backprop, so second derivatives work. The
shapes are read with two ``Shape`` ops where TensorFlow uses one ``ShapeN``.
"""

from __future__ import annotations

from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops

_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations",
          "use_cudnn_on_gpu")


def _attrs(op: Operation) -> dict:
    return {k: v for k, v in op.attrs.items() if k in _ATTRS}


def _op(op_type: str, inputs: list, attrs: dict) -> Output:
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _register(forward: str, backprop_input: str, backprop_filter: str) -> None:
    @RegisterGradient(forward)
    def _forward_grad(op: Operation, grad: Output):
        """(BackpropInput(shape(x), w, dy), BackpropFilter(x, shape(w), dy))."""
        attrs = _attrs(op)
        x, w = op.inputs
        return (_op(backprop_input, [array_ops.shape(x), w, grad], attrs),
                _op(backprop_filter, [x, array_ops.shape(w), grad], attrs))

    @RegisterGradient(backprop_input)
    def _input_grad(op: Operation, grad: Output):
        """(None, BackpropFilter(grad, shape(w), dy), Forward(grad, w))."""
        attrs = _attrs(op)
        _, w, dy = op.inputs
        return (None, _op(backprop_filter, [grad, array_ops.shape(w), dy], attrs),
                _op(forward, [grad, w], attrs))

    @RegisterGradient(backprop_filter)
    def _filter_grad(op: Operation, grad: Output):
        """(BackpropInput(shape(x), grad, dy), None, Forward(x, grad))."""
        attrs = _attrs(op)
        x, _, dy = op.inputs
        return (_op(backprop_input, [array_ops.shape(x), grad, dy], attrs), None,
                _op(forward, [x, grad], attrs))


_register("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
_register("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
          "DepthwiseConv2dNativeBackpropFilter")
_register("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
