"""Gradients of the math family (tfmini/ops/math/), as TensorFlow's ``math_grad.py``.

Each function is registered with ``@RegisterGradient("<op type>")`` and called by
``tm.gradients`` as ``fn(op, *output_grads)`` inside the ``gradients/<op name>_grad/`` name
scope; it returns one gradient (or None) per op input.

Broadcasting binary ops un-broadcast their gradients with :mod:`broadcasting`.

Where TensorFlow uses fused helper kernels that tfmini has no op for (``SqrtGrad``,
``TanhGrad``, ``Reciprocal``, ``Cumprod``, ``DynamicStitch``), the same arithmetic is built
from primitive ops, in the kernels' order of operations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op, static_value
from tfmini.core.graph import Output
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.math.broadcasting import broadcast_gradient_args, reduce_gradient_args

# ----------------------------------------------------------------------------------------
# Small builders


def _build(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs, name=name).outputs[0]


def _int32(values) -> np.ndarray:
    # Explicit int32: an empty Python list would otherwise convert as float32.
    return np.array(values, dtype=np.int32)


def _const_like(value: float, t: Output) -> np.ndarray:
    """A scalar of ``t``'s dtype (becomes a Const where it is used)."""
    return np.array(value, dtype=t.dtype.np_dtype)


def _fully_defined_equal(*tensors: Output) -> bool:
    # TensorFlow's _ShapesFullySpecifiedAndEqual: no broadcasting can have happened.
    first = tensors[0].shape
    return first.is_fully_defined() and all(
        t.shape.is_fully_defined() and tuple(t.shape.dims) == tuple(first.dims)
        for t in tensors[1:]
    )


def _reduced_shape(x: Output, axes: Output) -> Any:
    """``x``'s shape with the reduced ``axes`` set to 1 (TensorFlow's ``reduced_shape``).

    A constant when x's shape and the axes are known at build time, as in TensorFlow.
    Otherwise TensorFlow stitches ones into the shape with ``DynamicStitch``; tfmini has no
    such op, so the same vector is built as ``where(axis is reduced, 1, shape(x))``, the
    per-axis "is reduced" flags counted with ``UnsortedSegmentSum``.
    """
    axes_value = static_value(axes)
    if axes_value is not None:
        axes_value = np.asarray(axes_value, dtype=np.int64).reshape(-1)
        if x.shape.is_fully_defined():
            shape = _int32(x.shape.dims)
            shape[axes_value] = 1
            return shape
    input_shape = array_ops.shape(x)
    if axes_value is not None and x.shape.rank is not None:
        reduced = np.zeros(x.shape.rank, dtype=bool)
        reduced[axes_value] = True
        return math_ops.where_v2(reduced, np.int32(1), input_shape)
    rank = array_ops.size(input_shape)
    flat = array_ops.reshape(math_ops.cast(axes, rank.dtype), _int32([-1]))
    flat = math_ops.floormod(flat + rank, rank)
    counts = array_ops.unsorted_segment_sum(array_ops.ones_like(flat), flat, rank)
    return math_ops.where_v2(math_ops.greater(counts, np.int32(0)), np.int32(1), input_shape)


def _differentiable(op) -> bool:
    dt = op.outputs[0].dtype
    return dt.is_floating or dt.is_complex


_conj = math_ops.conj  # TensorFlow's conventions: complex gradients are conjugated; no-op on reals


def _register(op_type: str):
    """``RegisterGradient`` whose function only runs for floating or complex outputs.

    TensorFlow never reaches an op with integer outputs (its traversal stops at tensors that
    cannot carry a gradient); tfmini's ``gradients`` may call the function and drops the
    integer results. Answering None right away keeps such calls from building ops that are
    thrown away or, like ``Log`` of an int32 in Pow's gradient, refused.
    """

    def decorator(fn):
        def grad_fn(op, *grads):
            if not _differentiable(op):
                return [None] * len(op.inputs)
            return fn(op, *grads)

        grad_fn.__name__ = grad_fn.__qualname__ = fn.__name__
        grad_fn.__doc__ = fn.__doc__
        RegisterGradient(op_type)(grad_fn)
        return fn

    return decorator


# ----------------------------------------------------------------------------------------
# Not differentiable

# TensorFlow's NotDifferentiable list for the math family (Range, also in TensorFlow's
# math_grad.py, belongs to the array family here).
for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                 "LogicalAnd", "LogicalOr", "LogicalNot"):
    no_gradient(_op_type)
del _op_type


# TensorFlow registers these as gradients that return None rather than marking them
# NotDifferentiable; the effect in tm.gradients is the same (no gradient flows).
@RegisterGradient("ArgMax")
def _arg_max_grad(op, grad):
    del op, grad
    return [None, None]


@RegisterGradient("ArgMin")
def _arg_min_grad(op, grad):
    del op, grad
    return [None, None]


@RegisterGradient("FloorDiv")
def _floor_div_grad(op, grad):
    del op, grad
    return [None, None]


# ----------------------------------------------------------------------------------------
# Reductions


@_register("Sum")
def _sum_grad(op, grad):
    """Broadcasts the gradient back over the reduced axes (Reshape + Tile when static)."""
    x, axes_t = op.inputs
    if x.shape.rank is not None:
        axes = static_value(axes_t)
        if axes is not None:
            rank = x.shape.rank
            if np.array_equal(axes, np.arange(rank)):  # all axes, in order: a scalar
                grad = array_ops.reshape(grad, _int32([1] * rank))
                if x.shape.is_fully_defined():
                    input_shape = _int32(x.shape.dims)
                else:
                    input_shape = array_ops.shape(x)
                return [array_ops.tile(grad, input_shape), None]
            if x.shape.is_fully_defined():
                kept = _reduced_shape(x, axes_t)
                dims = _int32(x.shape.dims)
                tile_scaling = dims // np.maximum(kept, 1)  # TF's _SafeShapeDiv
                grad = array_ops.reshape(grad, kept)
                return [array_ops.tile(grad, tile_scaling), None]
    input_shape = array_ops.shape(x)
    if not op.attrs["keep_dims"]:
        grad = array_ops.reshape(grad, _reduced_shape(x, axes_t))
    return [array_ops.broadcast_to(grad, input_shape), None]


@_register("Mean")
def _mean_grad(op, grad):
    """The Sum gradient divided by the number of elements averaged."""
    sum_grad = _sum_grad(op, grad)[0]
    x, axes = op.inputs
    in_shape, out_shape = x.shape, op.outputs[0].shape
    if in_shape.is_fully_defined() and out_shape.is_fully_defined():
        input_size = int(np.prod(in_shape.dims, dtype=np.int64))
        output_size = int(np.prod(out_shape.dims, dtype=np.int64))
        factor = _const_like(input_size // max(output_size, 1), sum_grad)
    else:
        input_shape = array_ops.shape(x)
        input_rank = array_ops.size(input_shape)
        axes = math_ops.cast(axes, input_rank.dtype)
        axes = math_ops.floormod(axes + input_rank, input_rank)
        factor = math_ops.cast(
            math_ops.reduce_prod(array_ops.gather(input_shape, axes)), sum_grad.dtype)
    return math_ops.truediv(sum_grad, factor), None


def _min_or_max_grad(op, grad):
    """The gradient goes to the elements equal to the result, split evenly among ties."""
    x, axes = op.inputs
    y = op.outputs[0]
    if not op.attrs["keep_dims"]:
        kept = _reduced_shape(x, axes)
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    else:
        kept = array_ops.shape(y)
    indicators = math_ops.cast(math_ops.equal(y, x), grad.dtype)
    num_selected = array_ops.reshape(math_ops.reduce_sum(indicators, axes), kept)
    return [math_ops.divide(indicators, num_selected) * grad, None]


@_register("Max")
def _max_grad(op, grad):
    """Gradient of Max: see :func:`_min_or_max_grad`."""
    return _min_or_max_grad(op, grad)


@_register("Min")
def _min_grad(op, grad):
    """Gradient of Min: see :func:`_min_or_max_grad`."""
    return _min_or_max_grad(op, grad)


@_register("Prod")
def _prod_grad(op, grad):
    """The gradient times the product of the other elements of each reduced group.

    TensorFlow multiplies an exclusive cumprod from each side (tfmini has no Cumprod op).
    Here the product of the others is ``prod / x`` where x is not 0; where x is 0 it is the
    product of the group's non-zero elements if x is the group's only zero, else 0 (the
    three cases of TensorFlow's SegmentProd gradient). The values agree with TensorFlow's
    up to rounding, except where ``prod`` itself over- or underflows.
    """
    x, axes = op.inputs
    y = op.outputs[0]
    input_shape = array_ops.shape(x)
    if not op.attrs["keep_dims"]:
        kept = _reduced_shape(x, axes)
        grad = array_ops.reshape(grad, kept)
        y = array_ops.reshape(y, kept)
    grad = array_ops.broadcast_to(grad, input_shape)
    zero = _const_like(0, x)
    is_zero = math_ops.equal(x, zero)
    num_zeros = math_ops.reduce_sum(math_ops.cast(is_zero, "int32"), axes, keepdims=True)
    non_zero_x = math_ops.where_v2(is_zero, array_ops.ones_like(x), x)
    non_zero_prod = math_ops.reduce_prod(non_zero_x, axes, keepdims=True)
    at_zero = math_ops.where_v2(math_ops.greater(num_zeros, np.int32(1)), zero, non_zero_prod)
    others = math_ops.where_v2(is_zero, at_zero, math_ops.realdiv(y, non_zero_x))
    return grad * _conj(others), None


# ----------------------------------------------------------------------------------------
# Unary


@_register("Abs")
def _abs_grad(op, grad):
    """grad * sign(x)."""
    return grad * math_ops.sign(op.inputs[0])


@_register("Neg")
def _neg_grad(op, grad):
    """-grad."""
    return -grad


@_register("Sign")
def _sign_grad(op, grad):
    """Zeros (not None, as TensorFlow)."""
    del grad
    return array_ops.zeros_like(op.inputs[0])


@_register("Square")
def _square_grad(op, grad):
    """grad * (2 x)."""
    x = _conj(op.inputs[0])
    return math_ops.multiply(grad, math_ops.multiply(x, _const_like(2.0, x)))


def _zero_where_no_grad(grad, value):
    # TensorFlow's SqrtGrad/RsqrtGrad kernels answer 0 wherever the incoming gradient is 0,
    # so that a masked-out inf (sqrt at 0) does not turn into 0 * inf = NaN.
    return math_ops.where_v2(math_ops.equal(grad, _const_like(0, grad)),
                             array_ops.zeros_like(grad), value)


@_register("Sqrt")
def _sqrt_grad(op, grad):
    """TensorFlow's SqrtGrad(y, dy): 0.5 * dy / conj(y) (0 where dy is 0)."""
    y = _conj(op.outputs[0])
    value = math_ops.realdiv(math_ops.multiply(_const_like(0.5, y), grad), y)
    return _zero_where_no_grad(grad, value)


@_register("Rsqrt")
def _rsqrt_grad(op, grad):
    """TensorFlow's RsqrtGrad(y, dy): -0.5 * dy * conj(y)^3 (0 where dy is 0)."""
    y = _conj(op.outputs[0])
    value = math_ops.multiply(
        math_ops.multiply(_const_like(-0.5, y), math_ops.multiply(grad, y)),
        math_ops.multiply(y, y))
    return _zero_where_no_grad(grad, value)


@_register("Exp")
def _exp_grad(op, grad):
    """grad * conj(exp(x)), reusing the op's output."""
    return grad * _conj(op.outputs[0])


def _reciprocal(x):
    # TensorFlow's Reciprocal op, which tfmini lacks: 1 / x rounds the same way.
    return math_ops.realdiv(_const_like(1, x), x)


@_register("Log")
def _log_grad(op, grad):
    """grad * (1 / conj(x))."""
    return grad * _reciprocal(_conj(op.inputs[0]))


@_register("Log1p")
def _log1p_grad(op, grad):
    """grad * (1 / (1 + conj(x)))."""
    x = _conj(op.inputs[0])
    return grad * _reciprocal(_const_like(1, x) + x)


@_register("Sin")
def _sin_grad(op, grad):
    """grad * cos(conj(x))."""
    return grad * math_ops.cos(_conj(op.inputs[0]))


@_register("Cos")
def _cos_grad(op, grad):
    """-grad * sin(conj(x))."""
    return -grad * math_ops.sin(_conj(op.inputs[0]))


@_register("Tanh")
def _tanh_grad(op, grad):
    """TensorFlow's TanhGrad(conj(y), dy): dy * (1 - y * y)."""
    y = _conj(op.outputs[0])
    return math_ops.multiply(grad, math_ops.subtract(_const_like(1, y), math_ops.multiply(y, y)))


@_register("Sigmoid")
def _sigmoid_grad(op, grad):
    """TensorFlow's SigmoidGrad(conj(y), dy): dy * y * (1 - y)."""
    y = _conj(op.outputs[0])
    return math_ops.multiply(math_ops.multiply(grad, y),
                             math_ops.subtract(_const_like(1, y), y))


# ----------------------------------------------------------------------------------------
# Binary (broadcasting)


@_register("AddN")
def _add_n_grad(op, grad):
    """The gradient, unchanged, for every input (AddN does not broadcast)."""
    return [grad] * len(op.inputs)


def _add_grad(op, grad):
    """grad for both inputs, each un-broadcast."""
    x, y = op.inputs
    if isinstance(grad, Output) and _fully_defined_equal(x, y, grad):
        return grad, grad
    return reduce_gradient_args(x, y, grad, grad)


_register("Add")(_add_grad)
_register("AddV2")(_add_grad)


@_register("Sub")
def _sub_grad(op, grad):
    """grad and -grad, each un-broadcast."""
    x, y = op.inputs
    if isinstance(grad, Output) and _fully_defined_equal(x, y, grad):
        return grad, -grad
    return reduce_gradient_args(x, y, grad, -grad)


@_register("Mul")
def _mul_grad(op, grad):
    """grad * conj(y) and conj(x) * grad, each un-broadcast."""
    x, y = op.inputs
    if (isinstance(grad, Output) and _fully_defined_equal(x, y, grad)
            and grad.dtype.name in ("int32", "float32")):
        return _build("Mul", [grad, y]), _build("Mul", [grad, x])
    gx = _build("Mul", [grad, _conj(y)])
    gy = _build("Mul", [_conj(x), grad])
    return reduce_gradient_args(x, y, gx, gy)


@_register("Div")
def _div_grad(op, grad):
    """grad / conj(y) and grad * (-conj(x) / conj(y) / conj(y)), each un-broadcast."""
    x, y = op.inputs
    cx, cy = _conj(x), _conj(y)
    gx = math_ops.divide(grad, cy)
    gy = grad * math_ops.divide(math_ops.divide(-cx, cy), cy)
    return reduce_gradient_args(x, y, gx, gy)


@_register("RealDiv")
def _real_div_grad(op, grad):
    """grad / conj(y) and grad * (-conj(x) / conj(y) / conj(y)), each un-broadcast."""
    x, y = op.inputs
    cx, cy = _conj(x), _conj(y)
    gx = math_ops.realdiv(grad, cy)
    gy = grad * math_ops.realdiv(math_ops.realdiv(-cx, cy), cy)
    return reduce_gradient_args(x, y, gx, gy)


@_register("FloorMod")
def _floor_mod_grad(op, grad):
    """grad and -grad * floor(x / y), each un-broadcast."""
    x, y = op.inputs
    floor_xy = math_ops.floor_div(x, y)
    gx = grad
    gy = grad * math_ops.negative(floor_xy)
    return reduce_gradient_args(x, y, gx, gy)


@_register("Pow")
def _pow_grad(op, grad):
    """grad * y * x^(y-1) and grad * z * log(x), the latter 0 where x <= 0.

    The mask avoids a false singularity at x = 0 (0 * log 0 = NaN); for x < 0 there is no
    real log, and TensorFlow gives 0 there too.
    """
    x, y = op.inputs
    cx, cy = _conj(x), _conj(y)
    gx = grad * cy * math_ops.pow(cx, cy - _const_like(1, y))
    if x.dtype.is_complex:  # a negative real part is fine for the complex log
        mask = math_ops.not_equal(cx, _const_like(0, x))
    else:
        mask = math_ops.greater(cx, _const_like(0, x))
    safe_x = math_ops.where(mask, cx, array_ops.ones_like(x))
    log_x = math_ops.where(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    gy = grad * _conj(op.outputs[0]) * log_x
    return reduce_gradient_args(x, y, gx, gy)


def _maximum_minimum_grad(op, grad, selector):
    # Ties go to x: x >= y for Maximum, x <= y for Minimum.
    x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    xmask = selector(x, y)
    gx = math_ops.where_v2(xmask, grad, zeros)
    gy = math_ops.where_v2(xmask, zeros, grad)
    return reduce_gradient_args(x, y, gx, gy)


@_register("Maximum")
def _maximum_grad(op, grad):
    """grad where x >= y to x, elsewhere to y (ties to x)."""
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@_register("Minimum")
def _minimum_grad(op, grad):
    """grad where x <= y to x, elsewhere to y (ties to x)."""
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


# ----------------------------------------------------------------------------------------
# Select, SelectV2, Cast


@_register("Select")
def _select_grad(op, grad):
    """grad where the condition holds to t, elsewhere to e; none to the condition."""
    c, x = op.inputs[0], op.inputs[1]
    zeros = array_ops.zeros_like(x)
    return None, math_ops.where(c, grad, zeros), math_ops.where(c, zeros, grad)


@_register("SelectV2")
def _select_v2_grad(op, grad):
    """As Select, then each gradient is un-broadcast to its input's shape."""
    c, x, y = op.inputs
    z = op.outputs[0]
    zeros = array_ops.zeros(_int32([]), dtype=grad.dtype)
    gx = math_ops.where_v2(c, grad, zeros)
    gy = math_ops.where_v2(c, zeros, grad)
    gx, _ = reduce_gradient_args(x, z, gx, None)
    gy, _ = reduce_gradient_args(y, z, gy, None)
    return None, gx, gy


@RegisterGradient("Cast")
def _cast_grad(op, grad):
    """The gradient cast back to the source type, between floating and complex types only."""
    src_type = op.inputs[0].dtype
    dst_type = grad.dtype
    if not ((src_type.is_floating or src_type.is_complex)
            and (dst_type.is_floating or dst_type.is_complex)):
        return None
    if isinstance(grad, IndexedSlices):
        # TensorFlow's cast keeps a sparse gradient sparse: only the values change type.
        return IndexedSlices(math_ops.cast(grad.values, src_type), grad.indices,
                             grad.dense_shape)
    return math_ops.cast(grad, src_type)


# ----------------------------------------------------------------------------------------
# Complex parts


@_register("Complex")
def _complex_grad(op, grad):
    """real(grad) and imag(grad), each un-broadcast."""
    x, y = op.inputs
    return reduce_gradient_args(x, y, math_ops.real(grad), math_ops.imag(grad))


@RegisterGradient("Real")
def _real_grad(op, grad):
    """complex(grad, 0)."""
    del op
    return math_ops.complex(grad, _const_like(0, grad))


@RegisterGradient("Imag")
def _imag_grad(op, grad):
    """complex(0, grad)."""
    del op
    return math_ops.complex(_const_like(0, grad), grad)


@RegisterGradient("Angle")
def _angle_grad(op, grad):
    """-complex(grad, 0) / complex(imag(x), real(x))."""
    x = op.inputs[0]
    z = _reciprocal(math_ops.complex(math_ops.imag(x), math_ops.real(x)))
    return -math_ops.complex(grad, _const_like(0, grad)) * z


@RegisterGradient("Conj")
def _conj_grad(op, grad):
    """conj(grad)."""
    del op
    return math_ops.conj(grad)


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """div_no_nan(complex(grad, 0) * x, complex(|x|, 0))."""
    y = op.outputs[0]
    return math_ops.div_no_nan(
        math_ops.complex(grad, array_ops.zeros_like(grad)) * op.inputs[0],
        math_ops.complex(y, array_ops.zeros_like(y)))


# ----------------------------------------------------------------------------------------
# MatMul, BatchMatMulV2


def _mat_mul(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False):
    return _build("MatMul", [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b,
                                     "grad_a": grad_a, "grad_b": grad_b})


@_register("MatMul")
def _mat_mul_grad(op, grad):
    """The products of grad with the other operand, for each transpose combination."""
    t_a, t_b = op.attrs["transpose_a"], op.attrs["transpose_b"]
    a, b = _conj(op.inputs[0]), _conj(op.inputs[1])
    if not t_a and not t_b:
        grad_a = _mat_mul(grad, b, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(a, grad, transpose_a=True, grad_b=True)
    elif not t_a and t_b:
        grad_a = _mat_mul(grad, b, grad_a=True)
        grad_b = _mat_mul(grad, a, transpose_a=True, grad_b=True)
    elif t_a and not t_b:
        grad_a = _mat_mul(b, grad, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(a, grad, grad_b=True)
    else:
        grad_a = _mat_mul(b, grad, transpose_a=True, transpose_b=True, grad_a=True)
        grad_b = _mat_mul(grad, a, transpose_a=True, transpose_b=True, grad_b=True)
    return grad_a, grad_b


def _matmul(a, b, adjoint_a=False, adjoint_b=False, grad_a=False, grad_b=False):
    # TensorFlow's math_ops.matmul with its grad_a/grad_b hints: MatMul for two matrices,
    # BatchMatMulV2 (named MatMul) when a rank is higher or unknown.
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None or ra > 2 or rb > 2:
        return _build("BatchMatMulV2", [a, b], {"adj_x": adjoint_a, "adj_y": adjoint_b,
                                                "grad_x": grad_a, "grad_y": grad_b},
                      name="MatMul")
    return _mat_mul(a, b, adjoint_a, adjoint_b, grad_a, grad_b)


@_register("BatchMatMulV2")
def _batch_mat_mul_v2_grad(op, grad):
    """As MatMul per batch, then summed over the batch dimensions each input broadcast."""
    x, y = op.inputs
    adj_x, adj_y = op.attrs["adj_x"], op.attrs["adj_y"]
    if not adj_x:
        if not adj_y:
            grad_x = _matmul(grad, y, adjoint_b=True, grad_a=True)
            grad_y = _matmul(x, grad, adjoint_a=True, grad_b=True)
        else:
            grad_x = _matmul(grad, y, grad_a=True)
            grad_y = _matmul(grad, x, adjoint_a=True, grad_b=True)
    elif not adj_y:
        grad_x = _matmul(y, grad, adjoint_b=True, grad_a=True)
        grad_y = _matmul(x, grad, grad_b=True)
    else:
        grad_x = _matmul(y, grad, adjoint_a=True, adjoint_b=True, grad_a=True)
        grad_y = _matmul(grad, x, adjoint_a=True, adjoint_b=True, grad_b=True)

    sx, sy = x.shape, y.shape
    may_have_batch = sx.rank is None or sx.rank > 2 or sy.rank is None or sy.rank > 2
    if not may_have_batch:
        return grad_x, grad_y
    bx = sx[:-2] if sx.rank is not None else None
    by = sy[:-2] if sy.rank is not None else None
    if (bx is not None and by is not None and bx.is_fully_defined()
            and by.is_fully_defined() and tuple(bx.dims) == tuple(by.dims)):
        return grad_x, grad_y
    if sx.is_fully_defined() and sy.is_fully_defined():
        # Static shapes: the same BCast reduction indices, as constants.
        rx, ry = broadcast_gradient_args(bx.dims, by.dims)
        return _sum_to(grad_x, rx, sx.dims), _sum_to(grad_y, ry, sy.dims)
    shape_x, shape_y = array_ops.shape(x), array_ops.shape(y)
    rx, ry = build_op(current_scope(), "BroadcastGradientArgs",
                      [shape_x[:-2], shape_y[:-2]]).outputs
    grad_x = array_ops.reshape(math_ops.reduce_sum(grad_x, rx), shape_x)
    grad_y = array_ops.reshape(math_ops.reduce_sum(grad_y, ry), shape_y)
    return grad_x, grad_y


def _sum_to(grad, axes: list[int], dims) -> Output:
    if not axes and grad.shape.is_fully_defined() and tuple(grad.shape.dims) == tuple(dims):
        return grad
    return array_ops.reshape(math_ops.reduce_sum(grad, _int32(axes)), _int32(list(dims)))


__all__: list[str] = []
