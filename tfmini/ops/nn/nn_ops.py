"""Neural-network ops: activations, softmax, bias add, cross entropy, L2 loss.

Each op reads the same: its registration (TensorFlow's OpDef, with the shape
function), then its NumPy kernel, greppable by the op's type string. The
TF1-style functions (``tm.nn.relu``, ``tm.nn.softmax``, ...) follow at the end
and build the same subgraphs TensorFlow's ``tf.compat.v1.nn`` builds.

Kernels are numerically stable: softmax and the cross entropies shift by the
row maximum, softplus never exponentiates a large positive number. Half
precision is computed in float32 and rounded once at the end, which is at
least as accurate as TensorFlow's CPU kernels.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import register_fusion, register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import peek_op_name
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.nn import activation_native, xent_native

# TensorFlow's type sets, restricted to the dtypes tfmini has (no bfloat16, complex, quantized
# or wide unsigned types), in TensorFlow's order so error messages list them as TF does.
FLOAT_TYPES = "half, float, double"
REAL_TYPES = "float, double, int32, uint8, int16, int8, int64, half"  # realnumbertypes
NUMBER_TYPES = REAL_TYPES  # numbertype

# SELU's constants, as in TensorFlow's relu_op_functor.h.
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717

# LeakyRelu's and LeakyReluGrad's own attr.
_LEAKY_ATTRS = ("alpha: float = 0.2",)


def _compute_dtype(x: np.ndarray) -> np.dtype:
    # float16 has too few bits for intermediate sums and exponentials; compute in float32.
    return np.dtype(np.float32) if x.dtype == np.float16 else x.dtype


def _round(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` in ``dtype``; values beyond a half's range become inf, as in TensorFlow, quietly."""
    if x.dtype == dtype:
        return x
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _float_attr(value: float, dtype: np.dtype):
    # A TensorFlow float attr is a 32-bit float: its kernels see float32(0.2), even in double.
    return dtype.type(np.float32(value))


def _check_same_shape(op_type: str, node, a: np.ndarray, b: np.ndarray) -> None:
    if a.shape != b.shape:
        name = node.name if node is not None else op_type
        raise invalid_argument(
            f"Inputs to operation {name} of type {op_type} must have the same size and shape.  "
            f"Input 0: {dims_str(a.shape)} != input 1: {dims_str(b.shape)}",
        )


# ----------------------------------------------------------------------------------------
# Activations: one factory for y = f(features) and one for the gradient helpers
# backprops = g(gradients, features-or-outputs), as TensorFlow registers them.


def _type_attr(types: str, default: str | None) -> str:
    return f"T: {{{types}}}" + (f" = {default}" if default else "")


def activation_op(op_type: str, kernel: Callable, types: str = FLOAT_TYPES,
                  attrs: tuple[str, ...] = (), t_default: str | None = None,
                  doc: str = "") -> None:
    """Registers ``activations = kernel(features)``, same shape and dtype.

    ``t_default`` is the default of the type attr T, which only some TF OpDefs have.
    """
    register_op(
        op_type,
        inputs=["features: T"],
        outputs=["activations: T"],
        attrs=[_type_attr(types, t_default), *attrs],
        shape_fn=shape_fns.unchanged,
        doc=doc,
    )(kernel)


def activation_grad_op(op_type: str, fn: Callable, types: str = FLOAT_TYPES,
                       second: str = "features", attrs: tuple[str, ...] = (),
                       t_default: str | None = None, doc: str = "") -> None:
    """Registers ``backprops = fn(gradients, <second>, **attrs)``; both inputs share a shape.

    ``second`` is ``features`` (the activation's input) or ``outputs`` (its output), as in
    TensorFlow's OpDef of each grad op.
    """
    # Explicit keyword parameters (not **kwargs), so the executor passes `node` for the name.
    if attrs == _LEAKY_ATTRS:
        def kernel(gradients, other, *, alpha, node=None):
            _check_same_shape(op_type, node, gradients, other)
            return fn(gradients, other, alpha=alpha)
    elif not attrs:
        def kernel(gradients, other, *, node=None):
            _check_same_shape(op_type, node, gradients, other)
            return fn(gradients, other)
    else:
        raise ValueError(f"{op_type}: no kernel wrapper for attrs {attrs}")

    kernel.__name__ = f"{op_type.lower()}_kernel"
    register_op(
        op_type,
        inputs=["gradients: T", f"{second}: T"],
        outputs=["backprops: T"],
        attrs=[_type_attr(types, t_default), *attrs],
        shape_fn=shape_fns.merge_both_inputs,
        doc=doc,
    )(kernel)


def _zero(x: np.ndarray):
    return x.dtype.type(0)


# Relu


def _relu(features):
    y = activation_native.relu(features)  # one compiled pass where available, same bits
    if y is not None:
        return y
    # np.maximum propagates NaN, as TensorFlow's Relu does.
    return np.maximum(features, _zero(features))


def _masked(gradients, mask):
    """``gradients * mask`` as TensorFlow's relu_op_functor.h computes it (a NaN or inf
    gradient where the mask is 0 stays NaN). The mask is cast first and multiplied in place:
    a tenth of the time of ``np.where`` (which takes a slow path for a bool condition)."""
    out = mask.astype(gradients.dtype)
    if out.shape == gradients.shape:
        out *= gradients
        return out
    return gradients * out


def _relu_grad(gradients, features):
    out = activation_native.relu_grad(gradients, features)  # one compiled pass, same bits
    if out is not None:
        return out
    return _masked(gradients, np.greater(features, _zero(features)))


activation_op("Relu", _relu, REAL_TYPES, doc="max(features, 0).")
activation_grad_op("ReluGrad", _relu_grad, REAL_TYPES,
                   doc="gradients where features > 0, else 0.")


def _bias_add_relu(x, b):
    """Relu of a bias add, run as one step (the fusion below): one compiled pass where
    available, else the add and Relu's kernel in turn; the same bits either way (but a NaN's
    sign where both addends are NaN: activation_native.py)."""
    y = activation_native.bias_add_relu(x, b)
    if y is not None:
        return y
    return _relu(np.add(x, b))


def _fuse_bias_add_relu(relu, add):
    """Relu reading ``AddV2(x, b)`` or an NHWC ``BiasAdd(x, b)`` with ``b`` a vector as long
    as ``x``'s last axis, in float32 or float64: ``_bias_add_relu`` on ``[x, b]``, as
    Grappler's remapper fuses BiasAdd + Relu. Only where the static shapes promise that the
    add cannot fail (its error would otherwise name the Relu)."""
    x, b = add.inputs
    if add.type == "BiasAdd" and add.attrs.get("data_format", "NHWC") != "NHWC":
        return None
    if x.dtype != b.dtype or x.dtype.name not in ("float32", "float64"):
        return None
    xd, bd = x.shape.dims, b.shape.dims
    if (xd is None or bd is None or len(bd) != 1 or len(xd) < 2 or bd[0] is None
            or xd[-1] != bd[0]):
        return None
    if add.type == "BiasAdd":
        return _checked_bias_add_relu, [x, b]
    return _bias_add_relu, [x, b]


def _checked_bias_add_relu(x, b):
    """Relu of an NHWC BiasAdd in one step, with BiasAdd's own checks first: a value whose
    static shape was set wrongly (``set_shape`` on a ``py_func``'s output) fails as BiasAdd
    would, instead of broadcasting."""
    if x.ndim < 2 or b.ndim != 1 or b.shape[0] != x.shape[-1]:
        return _bias_add(x, b, "NHWC")  # raises BiasAdd's error
    return _bias_add_relu(x, b)


register_fusion("Relu", "AddV2", _fuse_bias_add_relu)
register_fusion("Relu", "BiasAdd", _fuse_bias_add_relu)


# Relu6


def _relu6(features):
    return np.minimum(np.maximum(features, _zero(features)), features.dtype.type(6))


def _relu6_grad(gradients, features):
    mask = np.greater(features, _zero(features))
    mask &= features < features.dtype.type(6)
    return _masked(gradients, mask)


activation_op("Relu6", _relu6, REAL_TYPES, doc="min(max(features, 0), 6).")
activation_grad_op("Relu6Grad", _relu6_grad, REAL_TYPES,
                   doc="gradients where 0 < features < 6, else 0.")


# Elu


def _elu(features):
    # expm1 keeps precision near 0 and never overflows for the negative branch it serves.
    neg = np.expm1(np.minimum(features, _zero(features)))
    return np.where(features < 0, neg, features).astype(features.dtype, copy=False)


def _elu_grad(gradients, outputs):
    return np.where(outputs < 0, gradients * (outputs + outputs.dtype.type(1)), gradients)


activation_op("Elu", _elu, doc="features if > 0 else exp(features) - 1.")
activation_grad_op("EluGrad", _elu_grad, second="outputs",
                   doc="gradients * (outputs + 1) where outputs < 0, else gradients.")


# Selu


def _selu(features):
    ct = _compute_dtype(features)
    x = features.astype(ct, copy=False)
    neg = (SELU_SCALE * SELU_ALPHA) * np.expm1(np.minimum(x, ct.type(0)))
    return _round(np.where(x < 0, neg, SELU_SCALE * x), features.dtype)


def _selu_grad(gradients, outputs):
    ct = _compute_dtype(outputs)
    g, y = gradients.astype(ct, copy=False), outputs.astype(ct, copy=False)
    out = np.where(y < 0, g * (y + ct.type(SELU_SCALE * SELU_ALPHA)), g * ct.type(SELU_SCALE))
    return _round(out, outputs.dtype)


activation_op("Selu", _selu, doc="scale * features if > 0 else scale * alpha * (exp(x) - 1).")
activation_grad_op("SeluGrad", _selu_grad, second="outputs",
                   doc="The gradient of Selu given its outputs.")


# Softplus


def _softplus(features):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): the exponent is never positive, so no overflow,
    # and log1p keeps the tiny values for very negative x.
    ct = _compute_dtype(features)
    x = features.astype(ct, copy=False)
    return _round(np.maximum(x, ct.type(0)) + np.log1p(np.exp(-np.abs(x))), features.dtype)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # e^-|x| never overflows; pick the branch that divides by a number >= 1.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus_grad(gradients, features):
    ct = _compute_dtype(features)
    out = gradients.astype(ct, copy=False) * _sigmoid(features.astype(ct, copy=False))
    return _round(out, features.dtype)


activation_op("Softplus", _softplus, doc="log(exp(features) + 1), computed stably.")
activation_grad_op("SoftplusGrad", _softplus_grad,
                   doc="gradients * sigmoid(features).")


# Softsign


def _softsign(features):
    return features / (features.dtype.type(1) + np.abs(features))


def _softsign_grad(gradients, features):
    denom = features.dtype.type(1) + np.abs(features)
    with np.errstate(over="ignore"):  # huge features: the gradient is 0, as in TF
        return gradients / (denom * denom)


activation_op("Softsign", _softsign, doc="features / (abs(features) + 1).")
activation_grad_op("SoftsignGrad", _softsign_grad,
                   doc="gradients / (1 + abs(features)) ** 2.")


# LeakyRelu


def _leaky_relu(features, *, alpha):
    return np.where(features > 0, features, features * _float_attr(alpha, features.dtype))


def _leaky_relu_grad(gradients, features, *, alpha):
    return np.where(features > 0, gradients, gradients * _float_attr(alpha, gradients.dtype))


activation_op("LeakyRelu", _leaky_relu, attrs=_LEAKY_ATTRS, t_default="DT_FLOAT",
              doc="features if > 0 else alpha * features.")
activation_grad_op("LeakyReluGrad", _leaky_relu_grad, attrs=_LEAKY_ATTRS, t_default="DT_FLOAT",
                   doc="gradients if features > 0 else alpha * gradients.")


# ----------------------------------------------------------------------------------------
# Softmax, LogSoftmax (over the last axis)


def _softmax_shape(ic) -> list[TensorShape]:
    return [shape_fns.with_rank_at_least(ic.input_shape(0), 1)]


def _check_logits_rank(logits: np.ndarray) -> None:
    if logits.ndim < 1:
        raise invalid_argument(f"logits must have >= 1 dimension, got {dims_str(logits.shape)}")


def _shifted(logits: np.ndarray) -> np.ndarray:
    """``logits`` minus its row maximum (in the compute dtype), so exp never overflows."""
    x = logits.astype(_compute_dtype(logits), copy=False)
    return x - np.max(x, axis=-1, keepdims=True)


@register_op(
    "Softmax",
    inputs=["logits: T"],
    outputs=["softmax: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"],
    shape_fn=_softmax_shape,
)
def softmax_kernel(logits):
    """exp(logits) / sum(exp(logits)) over the last axis."""
    _check_logits_rank(logits)
    if logits.size == 0:
        return np.empty(logits.shape, logits.dtype)
    e = np.exp(_shifted(logits))
    return _round(e / np.sum(e, axis=-1, keepdims=True), logits.dtype)


@register_op(
    "LogSoftmax",
    inputs=["logits: T"],
    outputs=["logsoftmax: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"],
    shape_fn=_softmax_shape,
)
def log_softmax_kernel(logits):
    """logits - log(sum(exp(logits))) over the last axis."""
    _check_logits_rank(logits)
    if logits.size == 0:
        return np.empty(logits.shape, logits.dtype)
    s = _shifted(logits)
    out = s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))
    return _round(out, logits.dtype)


# ----------------------------------------------------------------------------------------
# BiasAdd, BiasAddV1, BiasAddGrad


def _bias_add_shape(ic) -> list[TensorShape]:
    nchw = ic.attrs.get("data_format", "NHWC") == "NCHW"
    value = shape_fns.with_rank_at_least(ic.input_shape(0), 3 if nchw else 2)
    bias = shape_fns.with_rank(ic.input_shape(1), 1)
    if value.dims is None:
        return [unknown_shape()]
    dims = list(value.dims)
    channel = 1 if nchw else len(dims) - 1
    dims[channel] = shape_fns.merge_dim(dims[channel], bias.dims[0])
    return [TensorShape(dims)]


def _bias_add(value: np.ndarray, bias: np.ndarray, data_format: str) -> np.ndarray:
    if value.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {dims_str(value.shape)}")
    if bias.ndim != 1:
        raise invalid_argument(f"Biases must be 1D: {dims_str(bias.shape)}")
    channel = 1 if data_format == "NCHW" else value.ndim - 1
    if bias.shape[0] != value.shape[channel]:
        raise invalid_argument(
            "Must provide as many biases as the last dimension of the input tensor: "
            f"{dims_str(bias.shape)} vs. {dims_str(value.shape)}",
        )
    # Reshape the bias so NumPy broadcasting lines it up with the channel axis.
    b = bias.reshape((-1,) + (1,) * (value.ndim - 1 - channel))
    return value + b


@register_op(
    "BiasAdd",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{NUMBER_TYPES}}}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"],
    shape_fn=_bias_add_shape,
)
def bias_add_kernel(value, bias, *, data_format):
    """value + bias, with bias along the channel axis (last for NHWC, 1 for NCHW)."""
    return _bias_add(value, bias, data_format)


@register_op(
    "BiasAddV1",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{NUMBER_TYPES}}}"],
    shape_fn=_bias_add_shape,
)
def bias_add_v1_kernel(value, bias):
    """value + bias along the last axis (the deprecated BiasAdd without data_format)."""
    return _bias_add(value, bias, "NHWC")


def _bias_add_grad_shape(ic) -> list[TensorShape]:
    nchw = ic.attrs["data_format"] == "NCHW"
    shape = shape_fns.with_rank_at_least(ic.input_shape(0), 3 if nchw else 2)
    if shape.dims is None:
        return [unknown_shape(1)]
    return [TensorShape([shape.dims[1 if nchw else -1]])]


@register_op(
    "BiasAddGrad",
    inputs=["out_backprop: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{NUMBER_TYPES}}}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"],
    shape_fn=_bias_add_grad_shape,
)
def bias_add_grad_kernel(out_backprop, *, data_format):
    """The sum of out_backprop over every axis but the channel axis."""
    if out_backprop.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {dims_str(out_backprop.shape)}")
    channel = 1 if data_format == "NCHW" else out_backprop.ndim - 1
    axes = tuple(i for i in range(out_backprop.ndim) if i != channel)
    x = out_backprop.astype(_compute_dtype(out_backprop), copy=False)
    return _round(np.sum(x, axis=axes), out_backprop.dtype)


# ----------------------------------------------------------------------------------------
# SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits


def _xent_shape(ic) -> list[TensorShape]:
    features, labels = as_shape(ic.input_shape(0)), as_shape(ic.input_shape(1))
    if features.dims is None or labels.dims is None:
        known = features if features.dims is not None else labels
        if known.dims is not None and len(known.dims) != 2:
            raise ValueError("Shape must be broadcasted with rank 2, but is rank is unknown.")
        out = known if known.dims is not None else unknown_shape(2)
        return [TensorShape([out.dims[0]]), out]
    # TensorFlow merges two rank-2 shapes before it tries broadcasting, which turns a batch
    # unknown on one side and 1 on the other into 1 although the kernel broadcasts it; the
    # broadcast shape is right in every case where the merge is, and also in that one.
    out = shape_fns.broadcast_shapes(features, labels)
    if len(out.dims) != 2:
        raise ValueError(f"Shape must be broadcasted with rank 2, but is rank {len(out.dims)}")
    return [TensorShape([out.dims[0]]), out]


def _xent_from_shifted(shifted: np.ndarray, labels: np.ndarray):
    """Loss and backprop from logits already shifted by their row maximum (2-D, float)."""
    if shifted.shape[1] == 0:
        return np.zeros(shifted.shape[:1], shifted.dtype), np.empty(shifted.shape, shifted.dtype)
    e = np.exp(shifted)
    sum_e = np.sum(e, axis=1, keepdims=True)
    loss = np.sum(labels * (np.log(sum_e) - shifted), axis=1)
    backprop = e / sum_e - labels
    return loss, backprop


@register_op(
    "SoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: T"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"],
    shape_fn=_xent_shape,
)
def softmax_cross_entropy_with_logits_kernel(features, labels):
    """Per-row cross entropy of softmax(features) against the distributions in labels.

    Returns the loss ``[batch]`` and its gradient w.r.t. features ``[batch, classes]``;
    features and labels broadcast to a common rank-2 shape.
    """
    shape = features.shape
    if features.shape != labels.shape:
        try:
            shape = np.broadcast_shapes(features.shape, labels.shape)
        except ValueError:
            raise invalid_argument(
                f"logits and labels must be broadcastable: logits_size={dims_str(features.shape)} "
                f"labels_size={dims_str(labels.shape)}",
            ) from None
    if len(shape) != 2:
        raise invalid_argument(
            "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional",
        )
    ct = _compute_dtype(features)
    x = np.broadcast_to(features.astype(ct, copy=False), shape)
    y = np.broadcast_to(labels.astype(ct, copy=False), shape)
    if x.size:
        x = x - np.max(x, axis=1, keepdims=True)
    loss, backprop = _xent_from_shifted(x, y)
    return _round(loss, features.dtype), _round(backprop, features.dtype)


def _sparse_xent_shape(ic) -> list[TensorShape]:
    features = shape_fns.with_rank(ic.input_shape(0), 2)
    labels = shape_fns.with_rank(ic.input_shape(1), 1)
    batch = shape_fns.merge_dim(features.dims[0], labels.dims[0])
    return [TensorShape([batch]), TensorShape([batch, features.dims[1]])]


@register_op(
    "SparseSoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: Tlabels"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}", "Tlabels: {int32, int64} = DT_INT64"],
    shape_fn=_sparse_xent_shape,
)
def sparse_softmax_cross_entropy_with_logits_kernel(features, labels):
    """Per-row cross entropy of softmax(features) against class indices in labels.

    Returns the loss ``[batch]`` and its gradient w.r.t. features ``[batch, classes]``.
    """
    if features.ndim != 2:
        raise invalid_argument(f"logits must be 2-D, but got shape {dims_str(features.shape)}")
    if labels.ndim != 1:
        raise invalid_argument(f"labels must be 1-D, but got shape {dims_str(labels.shape)}")
    if features.shape[0] != labels.shape[0]:
        raise invalid_argument(
            "logits and labels must have the same first dimension, got logits shape "
            f"{dims_str(features.shape)} and labels shape {dims_str(labels.shape)}",
        )
    classes = features.shape[1]
    if classes == 0:
        raise invalid_argument(
            f"Must have at least one class, but got logits shape {dims_str(features.shape)}",
        )
    fast = xent_native.sparse_xent(features, labels)
    if fast is not None:
        return fast
    if labels.size:
        lo, hi = labels.min(), labels.max()
        if lo < 0 or hi >= classes:
            # TensorFlow reports the smallest label if it is negative, else the largest.
            bad = lo if lo < 0 else hi
            raise invalid_argument(
                f"Received a label value of {bad} which is outside the valid range of "
                f"[0, {classes}).  Label values: {' '.join(str(v) for v in labels.tolist())}",
            )
    ct = _compute_dtype(features)
    shifted = _shifted(features) if features.size else features.astype(ct)
    e = np.exp(shifted)
    sum_e = np.sum(e, axis=1)
    rows = np.arange(features.shape[0])
    loss = np.log(sum_e) - shifted[rows, labels]
    backprop = e / sum_e[:, None]
    backprop[rows, labels] -= 1
    return _round(loss, features.dtype), _round(backprop, features.dtype)


# ----------------------------------------------------------------------------------------
# L2Loss


@register_op(
    "L2Loss",
    inputs=["t: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"],
    shape_fn=shape_fns.scalar,
)
def l2_loss_kernel(t):
    """sum(t ** 2) / 2, a scalar."""
    x = t.astype(_compute_dtype(t), copy=False)
    return t.dtype.type(np.sum(x * x) / 2)


# ----------------------------------------------------------------------------------------
# The TF1-style functions (tf.compat.v1.nn).


def _op(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs, name=name)


@contextlib.contextmanager
def _op_scope(name: str | None, default_name: str) -> Iterator[str]:
    """TensorFlow's ``with ops.name_scope(name, default) as scope: ...; gen_op(..., name=scope)``.

    Helper ops built inside are named ``<scope>/...`` and the main op, built with
    :func:`_build_as` after the block, takes the scope's name itself (``BiasAdd`` with its
    constants ``BiasAdd/input``). The scope name is only reserved when that op is built, so
    it stays free for it. A name ending in ``/`` re-enters that exact scope, as in TF.
    Yields the scope's full name without the trailing slash.
    """
    scope = current_scope()
    if name and name.endswith("/"):
        full = name[:-1]
    else:
        full = peek_op_name(scope, name or default_name)
    with name_scope(full + "/"):
        yield full


def _build_as(full_name: str, op_type: str, inputs: list, attrs: dict | None = None):
    """Builds ``op_type`` named exactly ``full_name`` (a scope name from :func:`_op_scope`)."""
    parent, _, last = full_name.rpartition("/")
    with name_scope(parent + "/" if parent else ""):
        return _op(op_type, inputs, attrs, name=last)


def _tensor(value: Any, name: str, dtype: Any = None) -> Output:
    return convert_to_tensor(value, dtype=dtype, name=name)


def _cast(x: Output, dtype: dtypes.DType, name: str = "Cast") -> Output:
    return _op("Cast", [x], {"DstT": dtype}, name=name).outputs[0]


def _reshape(x: Output, shape: Any, name: str | None = None) -> Output:
    return _op("Reshape", [x, shape], name=name or "Reshape").outputs[0]


def _transpose(x: Output, perm: list[int], name: str | None = None) -> Output:
    return _op("Transpose", [x, np.asarray(perm, np.int32)], name=name or "transpose").outputs[0]


def _dynamic_shape_prefix(x: Output, n: int) -> Output:
    """``shape(x)[:n]`` as a tensor, for shapes only known when the graph runs."""
    shape = _op("Shape", [x], name="Shape").outputs[0]
    return _op("Slice", [shape, np.array([0], np.int32), np.array([n], np.int32)],
               name="Slice").outputs[0]


def _unary_fn(op_type: str, fn_name: str, doc: str):
    def fn(features: Any, name: str | None = None) -> Output:
        return _op(op_type, [features], name=name).outputs[0]

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"{doc} (``tf.nn.{fn_name}``).\n\n"
        "Args:\n    features: A tensor of a type the op allows.\n"
        f"    name: Name of the ``{op_type}`` op.\n\n"
        f"Returns:\n    A tensor of the same shape and dtype as ``features``.\n"
    )
    return fn


relu = _unary_fn("Relu", "relu", "max(features, 0)")
elu = _unary_fn("Elu", "elu", "features if > 0 else exp(features) - 1")
selu = _unary_fn("Selu", "selu", "Scaled exponential linear unit")
softplus = _unary_fn("Softplus", "softplus", "log(exp(features) + 1), computed stably")
softsign = _unary_fn("Softsign", "softsign", "features / (abs(features) + 1)")


def relu6(features: Any, name: str | None = None) -> Output:
    """min(max(features, 0), 6) (``tf.nn.relu6``).

    Args:
        features: A real tensor.
        name: Name of the ``Relu6`` op.

    Returns:
        A tensor of the same shape and dtype as ``features``.
    """
    with _op_scope(name, "Relu6") as scope:
        features = _tensor(features, "features")
    return _build_as(scope, "Relu6", [features]).outputs[0]


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Output:
    """features if > 0 else alpha * features (``tf.nn.leaky_relu``).

    Integer features are cast to float32 first, as TensorFlow does.

    Args:
        features: A tensor.
        alpha: Slope for negative features.
        name: Name of the ``LeakyRelu`` op.

    Returns:
        A float tensor of the shape of ``features``.
    """
    with _op_scope(name, "LeakyRelu") as scope:
        features = _tensor(features, "features")
        if features.dtype.is_integer:
            features = _cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
    return _build_as(scope, "LeakyRelu", [features], {"alpha": alpha}).outputs[0]


def _static_axis(axis: Any) -> int:
    """``axis`` as a Python int; a tensor axis must have a value known at build time."""
    if isinstance(axis, Output):
        value = static_value(axis)
        if value is None:
            raise ValueError(f"tfmini needs the axis known when the graph is built; {axis.name} "
                             "has no constant value")
        axis = value
    return operator.index(np.asarray(axis).item() if isinstance(axis, np.ndarray) else axis)


def _axis_or_dim(axis: Any, dim: Any) -> int:
    """The static axis given as ``axis`` or by its deprecated name ``dim`` (default -1)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    return _static_axis(axis if axis is not None else (dim if dim is not None else -1))


def _softmax_family(op_type: str, logits: Any, axis: Any, name: str | None, dim: Any) -> Output:
    """TensorFlow's ``_wrap_2d_function``: the op works on the last axis, so another axis is
    swapped with the last one before and after."""
    axis = _axis_or_dim(axis, dim)
    logits = convert_to_tensor(logits)
    rank = logits.shape.rank
    if axis == -1 or (rank is not None and axis == rank - 1):
        return _op(op_type, [logits], name=name).outputs[0]
    if rank is None:
        raise ValueError(
            f"tfmini's {op_type.lower()} over axis {axis} needs the rank of logits known when the "
            "graph is built"
        )
    if not -rank <= axis < rank:
        raise invalid_argument(
            f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
            f"dimensions in the input. Received: dim={axis}",
        )
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = _op(op_type, [_transpose(logits, perm)]).outputs[0]
    # The swap is its own inverse; the last transpose carries the user's name, as in TF.
    out = _transpose(out, perm, name=name)
    out.set_shape(logits.shape)
    return out


def softmax(logits: Any, axis: int | None = None, name: str | None = None,
            dim: int | None = None) -> Output:
    """Softmax activations over ``axis`` (``tf.compat.v1.nn.softmax``).

    Args:
        logits: A non-empty half/float/double tensor.
        axis: The axis to normalise over; default the last.
        name: Name of the result op.
        dim: Deprecated alias of ``axis``.

    Returns:
        A tensor of the shape and dtype of ``logits``.

    Raises:
        InvalidArgumentError: ``axis`` is outside ``[-rank, rank)``.
    """
    return _softmax_family("Softmax", logits, axis, name, dim)


def log_softmax(logits: Any, axis: int | None = None, name: str | None = None,
                dim: int | None = None) -> Output:
    """Log-softmax activations over ``axis`` (``tf.compat.v1.nn.log_softmax``).

    Args:
        logits: A non-empty half/float/double tensor.
        axis: The axis to normalise over; default the last.
        name: Name of the result op.
        dim: Deprecated alias of ``axis``.

    Returns:
        A tensor of the shape and dtype of ``logits``.

    Raises:
        InvalidArgumentError: ``axis`` is outside ``[-rank, rank)``.
    """
    return _softmax_family("LogSoftmax", logits, axis, name, dim)


def bias_add(value: Any, bias: Any, data_format: str | None = None,
             name: str | None = None) -> Output:
    """Adds a 1-D ``bias`` along the channel axis of ``value`` (``tf.nn.bias_add``).

    Args:
        value: A tensor of rank >= 2 (>= 3 for channels-first).
        bias: A 1-D tensor, as long as the channel axis.
        data_format: ``None``/``"N...C"`` (channels last) or ``"NC..."`` (channels first).
        name: Name of the ``BiasAdd`` op.

    Returns:
        A tensor of the shape and dtype of ``value``.

    Raises:
        ValueError: an unknown ``data_format``, or shapes that cannot fit.
    """
    with _op_scope(name, "BiasAdd") as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("`data_format` must be of the form `N...C` or `NC...`. "
                                 f"Received: data_format={data_format}")
        value = _tensor(value, "input")
        bias = _tensor(bias, "bias", dtype=value.dtype)
    attrs = {"data_format": data_format} if data_format is not None else {}
    return _build_as(scope, "BiasAdd", [value, bias], attrs).outputs[0]


def bias_add_v1(value: Any, bias: Any, name: str | None = None) -> Output:
    """The deprecated ``BiasAddV1``: ``bias`` along the last axis of ``value``."""
    with _op_scope(name, "BiasAddV1") as scope:
        value = _tensor(value, "input")
        bias = _tensor(bias, "bias", dtype=value.dtype)
    return _build_as(scope, "BiasAddV1", [value, bias]).outputs[0]


def l2_loss(t: Any, name: str | None = None) -> Output:
    """sum(t ** 2) / 2 (``tf.nn.l2_loss``).

    Args:
        t: A half/float/double tensor.
        name: Name of the ``L2Loss`` op.

    Returns:
        A scalar of the dtype of ``t``.
    """
    return _op("L2Loss", [t], name=name).outputs[0]


def _ensure_xent_args(name: str, labels: Any, logits: Any) -> None:
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")


def sparse_softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                             name: str | None = None) -> Output:
    """Cross entropy of ``softmax(logits)`` against class indices
    (``tf.compat.v1.nn.sparse_softmax_cross_entropy_with_logits``).

    Logits of rank other than 2 are flattened to ``[-1, classes]`` and the loss reshaped
    back to the labels' shape; float16 logits are computed in float32, as in TensorFlow.

    Args:
        labels: int32/int64 class indices, shape ``logits.shape[:-1]``.
        logits: Unscaled log probabilities ``[..., classes]``.
        name: Name scope for the ops.

    Returns:
        The loss, shaped like ``labels``, of the dtype of ``logits``.

    Raises:
        ValueError: missing arguments or shapes that cannot fit ("Rank mismatch: ...").
        InvalidArgumentError: at run time, a label outside ``[0, classes)``.
    """
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits"):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        precise = _cast(logits, dtypes.float32) if logits.dtype == dtypes.float16 else logits
        labels_shape, logits_shape = labels.shape, logits.shape
        if logits_shape.rank == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if (logits_shape.rank is not None and labels_shape.rank is not None
                and labels_shape.rank != logits_shape.rank - 1):
            # TF 1.x said "Rank mismatch: ..."; TF 2.x says the rest. Both, so either is found.
            raise ValueError(
                f"Rank mismatch: `labels.shape.rank` must equal `logits.shape.rank - 1`. "
                f"Received: labels.shape={labels_shape} of rank {labels_shape.rank} and "
                f"logits.shape={logits_shape} of rank {logits_shape.rank}"
            )
        outer = logits_shape[:-1] if logits_shape.rank is not None else unknown_shape()
        if (labels_shape.is_fully_defined() and outer.is_fully_defined()
                and labels_shape != outer):
            raise ValueError(
                "`labels.shape` must equal `logits.shape` except for the last dimension. "
                f"Received: labels.shape={labels_shape} and logits.shape={logits_shape}"
            )
        if logits_shape.rank == 2:
            cost = _op("SparseSoftmaxCrossEntropyWithLogits", [precise, labels],
                       name=name).outputs[0]
        else:
            classes = logits_shape[-1] if logits_shape.rank is not None else None
            if classes is None:
                raise ValueError(
                    "tfmini's sparse_softmax_cross_entropy_with_logits needs the last dimension "
                    f"of logits known when the graph is built for logits of rank other than 2; "
                    f"got logits.shape={logits_shape}"
                )
            flat_logits = _reshape(precise, np.array([-1, classes], np.int32))
            flat_labels = _reshape(labels, np.array([-1], np.int32))
            cost = _op("SparseSoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels],
                       name=name).outputs[0]
            if labels_shape.is_fully_defined():
                target = np.array(labels_shape.as_list(), np.int32)
            else:
                target = _op("Shape", [labels], name="Shape").outputs[0]
            cost = _reshape(cost, target)
            cost.set_shape(labels_shape)
        if logits.dtype == dtypes.float16:
            cost = _cast(cost, dtypes.float16)
        return cost


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: int | None = None,
                                         name: str | None = None,
                                         dim: int | None = None) -> Output:
    """Cross entropy of ``softmax(logits)`` against the distributions in ``labels``
    (``tf.compat.v1.nn.softmax_cross_entropy_with_logits_v2``).

    Gradients flow into both ``labels`` and ``logits``. The class axis is moved last and
    the outer axes flattened; float16 logits are computed in float32, as in TensorFlow.

    Args:
        labels: Probability distributions along ``axis``, shaped like ``logits``.
        logits: Unscaled log probabilities.
        axis: The class axis; default the last.
        name: Name of the scope and of the ``SoftmaxCrossEntropyWithLogits`` op.
        dim: Deprecated alias of ``axis``.

    Returns:
        The loss: ``logits``' shape without ``axis``, of the dtype of ``logits``.
    """
    axis = _axis_or_dim(axis, dim)
    with _op_scope(name, "softmax_cross_entropy_with_logits") as scope:
        logits = _tensor(logits, "logits")
        labels = _tensor(labels, "labels")
        to_float32 = logits.dtype == dtypes.float16
        precise = _cast(logits, dtypes.float32) if to_float32 else logits
        if labels.dtype != precise.dtype:
            labels = _cast(labels, precise.dtype)
        shape = logits.shape
        rank = shape.rank
        moved = shape
        if axis != -1:
            if rank is None:
                raise ValueError("tfmini's softmax_cross_entropy_with_logits over an axis other "
                                 "than -1 needs the rank of logits known when the graph is built")
            # Move the class axis to the end (not a swap: TF keeps the other axes in order).
            a = axis % rank
            perm = [i for i in range(rank) if i != a] + [a]
            precise = _transpose(precise, perm)
            labels = _transpose(labels, perm)
            moved = TensorShape([shape.dims[i] for i in perm])
        moved_t = precise
        if moved.rank != 2:
            classes = moved[-1] if moved.rank is not None else None
            if classes is None:
                raise ValueError("tfmini's softmax_cross_entropy_with_logits needs the class "
                                 "dimension of logits known when the graph is built for logits "
                                 f"of rank other than 2; got logits.shape={shape}")
            flat = np.array([-1, classes], np.int32)
            precise = _reshape(precise, flat)
            labels = _reshape(labels, flat)
    cost = _build_as(scope, "SoftmaxCrossEntropyWithLogits", [precise, labels]).outputs[0]
    with name_scope(scope + "/"):
        if moved.rank != 2:
            outer = moved[:-1]
            target = (np.array(outer.as_list(), np.int32) if outer.is_fully_defined()
                      else _dynamic_shape_prefix(moved_t, moved.rank - 1))
            cost = _reshape(cost, target)
            # Reshape to a computed shape loses the static shape; restore it, as TF does.
            cost.set_shape(moved[:-1])
        if to_float32:
            cost = _cast(cost, logits.dtype)
    return cost


def softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None, dim: int = -1,
                                      name: str | None = None,
                                      axis: int | None = None) -> Output:
    """The deprecated TF1 cross entropy: like the ``_v2`` function, but no gradient flows
    into ``labels`` (``tf.compat.v1.nn.softmax_cross_entropy_with_logits``).

    Args:
        labels: Probability distributions along the class axis.
        logits: Unscaled log probabilities.
        dim: The class axis (deprecated spelling of ``axis``).
        name: Name scope for the ops.
        axis: The class axis.

    Returns:
        The loss: ``logits``' shape without the class axis.
    """
    if axis is not None:
        dim = axis
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with _op_scope(name, "softmax_cross_entropy_with_logits_sg") as scope:
        labels = _op("StopGradient", [labels], name="labels_stop_gradient").outputs[0]
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                name=scope + "/")


__all__ = [
    "bias_add",
    "bias_add_v1",
    "elu",
    "l2_loss",
    "leaky_relu",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "softplus",
    "softsign",
    "sparse_softmax_cross_entropy_with_logits",
]
