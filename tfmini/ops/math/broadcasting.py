"""Un-broadcasting gradients: the ``BroadcastGradientArgs`` op and the helpers built on it.

Broadcasting binary ops un-broadcast their gradients as TensorFlow does
(``tensorflow/python/ops/math_grad.py``): the reduction axes are inferred from the static
shapes when they decide the question (``SmartBroadcastGradientArgs``), otherwise the
``BroadcastGradientArgs`` op computes them at run time. :func:`unbroadcast` is the same step
for one tensor, used by other gradient modules (``BroadcastTo``). TensorFlow registers the op
in ``tensorflow/core/ops/array_ops.cc``; it lives here, beside the only code that builds it.
The family's front exports these helpers by name; they are not part of ``tm.*``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.math.reduction import reduce_sum

# ----------------------------------------------------------------------------------------
# BroadcastGradientArgs


def broadcast_gradient_args(s0: Any, s1: Any) -> tuple[list[int], list[int]]:
    """The reduction indices of TensorFlow's ``BroadcastGradientArgs`` for two static shapes.

    TensorFlow's BCast: identical shapes need no reduction; otherwise each shape, padded
    with leading 1s to the larger rank, is reduced over every axis where it has a 1 (even
    where the other shape has a 1 too).

    Args:
        s0: The first shape (a sequence of ints).
        s1: The second shape.

    Returns:
        ``(r0, r1)``: ascending axes of the broadcast shape to sum over for each input.

    Raises:
        ValueError: the shapes do not broadcast ("Incompatible shapes: [2,3] vs. [3,2]").
    """
    s0 = [int(d) for d in s0]
    s1 = [int(d) for d in s1]
    if s0 == s1:
        return [], []
    n = max(len(s0), len(s1))
    p0 = [1] * (n - len(s0)) + s0
    p1 = [1] * (n - len(s1)) + s1
    for a, b in zip(p0, p1):
        if a != b and a != 1 and b != 1:
            raise ValueError(
                f"Incompatible shapes: [{','.join(map(str, s0))}] vs. [{','.join(map(str, s1))}]"
            )
    return [i for i, d in enumerate(p0) if d == 1], [i for i, d in enumerate(p1) if d == 1]


def _broadcast_gradient_args_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(0), 1)
    shape_fns.with_rank(ic.input_shape(1), 1)
    # As TensorFlow: the number of reduction axes is known only at run time.
    return [TensorShape([None]), TensorShape([None])]


@register_op(
    "BroadcastGradientArgs",
    inputs=["s0: T", "s1: T"],
    outputs=["r0: T", "r1: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape_fn=_broadcast_gradient_args_shape,
)
def broadcast_gradient_args_kernel(s0, s1):
    """Axes to sum the gradient of a broadcasting binary op over, for each of its inputs."""
    for i, s in enumerate((s0, s1)):
        if np.ndim(s) != 1:
            raise invalid_argument(
                f"In[{i}] must be a vector.[{','.join(map(str, np.shape(s)))}]"
            )
    try:
        r0, r1 = broadcast_gradient_args(s0.tolist(), s1.tolist())
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    return np.array(r0, dtype=s0.dtype), np.array(r1, dtype=s0.dtype)


# Integer shape arithmetic (TensorFlow marks it NotDifferentiable in array_grad.py).
no_gradient("BroadcastGradientArgs")


# ----------------------------------------------------------------------------------------
# Un-broadcasting helpers (TensorFlow's SmartBroadcastGradientArgs / _ReduceGradientArgs)


def _shape_of(x: Output) -> Output:
    # array.shape gives a Const for a fully defined static shape, as TensorFlow's does.
    return array_ops.shape(x)


def _infer_reduction_axes(x_shape: TensorShape, y_shape: TensorShape):
    """The axes each of x and y was broadcast over, when the static shapes decide it.

    TensorFlow's ``_InferGradientReductionAxes``: None, None when a rank is unknown or an
    unknown dimension meets one that is not 1 (broadcasting then depends on the data).
    """
    x_rank, y_rank = x_shape.rank, y_shape.rank
    if x_rank is None or y_rank is None:
        return None, None
    b_rank = max(x_rank, y_rank)
    x_dims, y_dims = list(x_shape.dims), list(y_shape.dims)
    x_axes: list[int] = []
    y_axes: list[int] = []
    for axis in range(b_rank):
        x_dim = 1 if axis < b_rank - x_rank else x_dims[axis - (b_rank - x_rank)]
        y_dim = 1 if axis < b_rank - y_rank else y_dims[axis - (b_rank - y_rank)]
        if x_dim == 1 and y_dim != 1:
            x_axes.append(axis)  # safe even if y_dim is unknown: summing a 1 is a no-op
        elif y_dim == 1 and x_dim != 1:
            y_axes.append(axis)
        elif x_dim is None or y_dim is None:
            return None, None
    return x_axes, y_axes


def _smart_broadcast_gradient_args(x: Output, y: Output):
    """Per input: (its shape tensor, the axes to reduce, whether to reduce at all)."""
    x_axes, y_axes = _infer_reduction_axes(x.shape, y.shape)
    if x_axes is None or y_axes is None:
        x_shape, y_shape = _shape_of(x), _shape_of(y)
        r = build_op(current_scope(), "BroadcastGradientArgs", [x_shape, y_shape]).outputs
        return (x_shape, r[0], True), (y_shape, r[1], True)
    x_must = bool(x_axes) or x.shape.rank < y.shape.rank
    y_must = bool(y_axes) or y.shape.rank < x.shape.rank
    # The shapes are built only for an input that is reduced: an unused Shape op would
    # only clutter the graph (TensorFlow builds both and leaves one dangling).
    return (lambda: _shape_of(x), x_axes, x_must), (lambda: _shape_of(y), y_axes, y_must)


def _reduce_gradient_arg(grad: Any, shape_axes_must_reduce) -> Any:
    shape, axes, must_reduce = shape_axes_must_reduce
    if grad is None or not must_reduce:
        return grad
    if isinstance(axes, list):
        axes = np.array(axes, dtype=np.int32)
    # keepdims=True, as TensorFlow: the Reshape right after restores the target's rank.
    grad = reduce_sum(grad, axes, keepdims=True)
    return array_ops.reshape(grad, shape() if callable(shape) else shape)


def reduce_gradient_args(x: Output, y: Output, gx: Any, gy: Any) -> tuple[Any, Any]:
    """Un-broadcasts the gradients of both inputs of a broadcasting binary op."""
    if gx is not None or gy is not None:
        bx, by = _smart_broadcast_gradient_args(x, y)
        gx = _reduce_gradient_arg(gx, bx)
        gy = _reduce_gradient_arg(gy, by)
    return gx, gy


def unbroadcast(grad: Any, target: Any) -> Any:
    """Sums ``grad`` over the dimensions broadcast to reach it, then reshapes to ``target``.

    ``grad`` has the broadcast shape of an op's output; ``target`` is the op input it flowed
    from. When the static shapes decide which axes were broadcast the reduction axes are
    constants (and no op is added when there is nothing to reduce); otherwise they come from
    a ``BroadcastGradientArgs`` op at run time, as in TensorFlow.

    Example::

        # y = x + b with x: [4, 3] and b: [3]; dy has shape [4, 3]
        db = unbroadcast(dy, b)  # reduce_sum(dy, [0], keepdims=True), reshaped to [3]

    Args:
        grad: The gradient (an Output), or None.
        target: The tensor whose shape the result takes.

    Returns:
        The un-broadcast gradient (``grad`` itself when nothing was broadcast), or None.
    """
    if grad is None:
        return None
    grad = array_ops.convert_to_tensor(grad)
    target = array_ops.convert_to_tensor(target)
    bt, _ = _smart_broadcast_gradient_args(target, grad)
    return _reduce_gradient_arg(grad, bt)



__all__: list[str] = []  # internal to tfmini: imported by name, never star-exported
