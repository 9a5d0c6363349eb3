"""Gradients of the FusedBatchNorm ops, first and second order (TensorFlow's nn_grad)."""

from __future__ import annotations

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops.nn.fused_batch_norm_kernels import channel_index, format_rank

# ----------------------------------------------------------------------------------------
# Gradients of the forward ops (TensorFlow's nn_grad._BaseFusedBatchNormGrad).

_GRAD_OP = {"FusedBatchNorm": "FusedBatchNormGrad", "FusedBatchNormV2": "FusedBatchNormGradV2",
            "FusedBatchNormV3": "FusedBatchNormGradV3"}
_TO_CHANNELS_LAST = {"NCHW": [0, 2, 3, 1], "NCDHW": [0, 2, 3, 4, 1]}
_TO_CHANNELS_FIRST = {"NCHW": [0, 3, 1, 2], "NCDHW": [0, 4, 1, 2, 3]}


def _op(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs, name=name)


def _transpose(x: Output, perm: list[int]) -> Output:
    return _op("Transpose", [x, np.asarray(perm, np.int32)], name="transpose").outputs[0]


def _fused_batch_norm_backprop(op, *grads):
    """dx, dscale, doffset from the forward op; none for mean and variance.

    Only the gradient of ``y`` is used, as in TensorFlow. Training feeds the grad op the
    reserve spaces; inference feeds it the mean/variance inputs, in NHWC/NDHWC (channels-first
    tensors are transposed there and back, as TensorFlow does).
    """
    x, scale = op.inputs[0], op.inputs[1]
    grad_y = grads[0]
    data_format = op.attrs["data_format"]
    is_training = op.attrs["is_training"]
    attrs = {"epsilon": op.attrs["epsilon"], "data_format": data_format,
             "is_training": is_training}
    v3 = op.type == "FusedBatchNormV3"
    if is_training:
        inputs = [grad_y, x, scale, op.outputs[3], op.outputs[4]]
    else:
        if data_format in _TO_CHANNELS_LAST:
            x = _transpose(x, _TO_CHANNELS_LAST[data_format])
            grad_y = _transpose(grad_y, _TO_CHANNELS_LAST[data_format])
        attrs["data_format"] = "NDHWC" if data_format in ("NDHWC", "NCDHW") else "NHWC"
        inputs = [grad_y, x, scale, op.inputs[3], op.inputs[4]]
    if v3:
        inputs.append(op.outputs[5])
    dx, dscale, doffset = _op(_GRAD_OP[op.type], inputs, attrs).outputs[:3]
    if not is_training and data_format in _TO_CHANNELS_FIRST:
        dx = _transpose(dx, _TO_CHANNELS_FIRST[data_format])
    return [dx, dscale, doffset, None, None]


for _forward in _GRAD_OP:
    RegisterGradient(_forward)(_fused_batch_norm_backprop)


# ----------------------------------------------------------------------------------------
# Second-order gradients: the gradients of TensorFlow's _BatchNormGrad (the grad op's maths
# written with ordinary ops) in closed form, built from ordinary ops.


def _bn_grad_grad(op, *grads):
    """Gradients of FusedBatchNormGrad* for y_backprop, x and scale.

    With n values per channel, xhat = (x - mean) r, r = 1/sqrt(var + epsilon) (mean and
    var recomputed from x in training, as TensorFlow's _BatchNormGrad does), gx, gs, go the
    incoming gradients of x_backprop, scale_backprop, offset_backprop, P(w) = w - mean(w)
    - xhat mean(w xhat), g = y_backprop, s = scale:

    * training: d/dg = s r P(gx) + gs xhat + go; d/ds = sum(gx r P(g));
      d/dx = gs r P(g) - s r^2 [(mean(gx (g - mean(g))) - m B) xhat + B P(g) + m P(gx)],
      where m = mean(g xhat) and B = mean(gx xhat);
    * inference (population mean/var): d/dg = gx s r + gs (x - mean) r + go;
      d/dx = gs g r; d/ds = sum(gx g r).

    Reserve-space inputs get no gradient, as in TensorFlow.
    """
    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    ggx, ggs, ggo = grads[0], grads[1], grads[2]
    data_format = op.attrs["data_format"]
    epsilon = op.attrs["epsilon"]
    rank = format_rank(data_format)
    channels_first = data_format[1] == "C"
    axes = np.array([i for i in range(rank) if i != channel_index(data_format, rank)],
                    np.int32)
    x_dtype = x.dtype
    half = x_dtype != dtypes.float32

    def f32(t: Output) -> Output:
        return _op("Cast", [t], {"DstT": dtypes.float32}).outputs[0] if half else t

    def channel(v: Output) -> Output:
        # Per-channel vectors broadcast against channels-last tensors as they are.
        if not channels_first:
            return v
        shape = np.array([1, -1] + [1] * (rank - 2), np.int32)
        return _op("Reshape", [v, shape]).outputs[0]

    def mean(t: Output) -> Output:
        return _op("Mean", [t, axes], {"keep_dims": True}).outputs[0]

    def total(t: Output) -> Output:
        return _op("Sum", [t, axes], {"keep_dims": False}).outputs[0]

    g, xs, gx = f32(grad_y), f32(x), f32(ggx)
    s, gs, go = channel(scale), channel(ggs), channel(ggo)
    if op.attrs["is_training"]:
        xc = xs - mean(xs)
        r = _op("Rsqrt", [mean(_op("Square", [xc]).outputs[0]) + epsilon]).outputs[0]
        xhat = xc * r

        def project(w: Output) -> Output:
            return w - mean(w) - xhat * mean(w * xhat)

        m = mean(g * xhat)
        b = mean(gx * xhat)
        a = mean(gx * (g - mean(g)))
        pg = project(g)
        d_grad_y = s * r * project(gx) + gs * xhat + go
        d_scale = total(gx * r * pg)
        d_x = gs * r * pg - s * r * r * ((a - m * b) * xhat + b * pg + m * project(gx))
    else:
        r = _op("Rsqrt", [channel(pop_var) + epsilon]).outputs[0]
        d_grad_y = gx * s * r + gs * (xs - channel(pop_mean)) * r + go
        d_x = gs * g * r
        d_scale = total(gx * g * r)
    if half:
        d_grad_y = _op("Cast", [d_grad_y], {"DstT": x_dtype}).outputs[0]
        d_x = _op("Cast", [d_x], {"DstT": x_dtype}).outputs[0]
    return [d_grad_y, d_x, d_scale] + [None] * (len(op.inputs) - 3)


for _grad in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    RegisterGradient(_grad)(_bn_grad_grad)



__all__: list[str] = []
