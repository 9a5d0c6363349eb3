"""Gradients of the pooling ops, as TensorFlow's ``nn_grad.py`` builds them.

MaxPool's gradient is MaxPoolGrad, whose gradient is MaxPoolGradGrad (and back); AvgPool's is
AvgPoolGrad, whose gradient in ``grad`` is AvgPool again. The original input and output of a
max-pool gradient op get zeros: they only choose where the gradient goes.
"""

from __future__ import annotations

from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops

_ATTRS = ("ksize", "strides", "padding", "explicit_paddings", "data_format",
          "include_batch_in_index")


def _attrs(op: Operation) -> dict:
    return {k: v for k, v in op.attrs.items() if k in _ATTRS}


def _op(op_type: str, inputs: list, attrs: dict) -> Output:
    # Only the attrs the target op has (MaxPoolGradGrad has no explicit_paddings).
    names = set(registry.get(op_type).attr_names)
    attrs = {k: v for k, v in attrs.items() if k in names}
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _max_pool(forward: str, grad_op: str, grad_grad_op: str, v2: bool = False) -> None:
    extra = (lambda op: list(op.inputs[1:3])) if v2 else (lambda op: [])
    none = (None, None) if v2 else ()

    @RegisterGradient(forward)
    def _forward_grad(op: Operation, grad: Output):
        """grad_op(x, y, dy): dy added at each window's maximum."""
        return (_op(grad_op, [op.inputs[0], op.outputs[0], grad, *extra(op)], _attrs(op)),
                *none)

    def _chain(op: Operation, grad: Output, target: str):
        orig_in, orig_out = op.inputs[0], op.inputs[1]
        ks = list(op.inputs[3:5]) if v2 else []
        return (array_ops.zeros_like(orig_in), array_ops.zeros_like(orig_out),
                _op(target, [orig_in, orig_out, grad, *ks], _attrs(op)), *none)

    @RegisterGradient(grad_op)
    def _grad_grad(op: Operation, grad: Output):
        """Zeros for the original input and output; grad_grad_op for the gradient."""
        return _chain(op, grad, grad_grad_op)

    @RegisterGradient(grad_grad_op)
    def _grad_grad_grad(op: Operation, grad: Output):
        """Zeros for the original input and output; grad_op for the gradient."""
        return _chain(op, grad, grad_op)


_max_pool("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad")
_max_pool("MaxPoolV2", "MaxPoolGradV2", "MaxPoolGradGradV2", v2=True)
_max_pool("MaxPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad")


def _avg_pool(forward: str, grad_op: str) -> None:
    @RegisterGradient(forward)
    def _forward_grad(op: Operation, grad: Output):
        """grad_op(shape(x), dy)."""
        return _op(grad_op, [array_ops.shape(op.inputs[0]), grad], _attrs(op))

    @RegisterGradient(grad_op)
    def _grad_grad(op: Operation, grad: Output):
        """None for the shape; the forward pool of the gradient for ``grad``."""
        return None, _op(forward, [grad], _attrs(op))


_avg_pool("AvgPool", "AvgPoolGrad")
_avg_pool("AvgPool3D", "AvgPool3DGrad")


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op: Operation, grad: Output, unused_argmax_grad=None):
    """MaxPoolGradWithArgmax(x, dy, argmax)."""
    return _op("MaxPoolGradWithArgmax", [op.inputs[0], grad, op.outputs[1]], _attrs(op))


@RegisterGradient("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax_grad(op: Operation, grad: Output):
    """Zeros for the input, MaxPoolGradGradWithArgmax for the gradient, None for argmax."""
    return (array_ops.zeros_like(op.inputs[0]),
            _op("MaxPoolGradGradWithArgmax", [op.inputs[0], grad, op.inputs[2]], _attrs(op)),
            None)


@RegisterGradient("MaxPoolGradGradWithArgmax")
def _max_pool_grad_grad_with_argmax_grad(op: Operation, grad: Output):
    """Zeros for the input, MaxPoolGradWithArgmax for the gradient, None for argmax."""
    return (array_ops.zeros_like(op.inputs[0]),
            _op("MaxPoolGradWithArgmax", [op.inputs[0], grad, op.inputs[2]], _attrs(op)),
            None)
