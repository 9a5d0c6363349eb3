"""Fused batch normalisation: FusedBatchNorm, V2, V3 and their gradient ops.

Each op reads as in the other families: its registration (TensorFlow's OpDef, with the
shape function), then its NumPy kernel; the gradient functions (first and second order)
and ``tf.compat.v1.nn.fused_batch_norm`` follow.

Semantics are those of TensorFlow's CPU kernels (tensorflow/core/kernels/fused_batch_norm_op.cc):
the normalisation uses the biased batch variance, the ``batch_variance`` output is Bessel-corrected,
``exponential_avg_factor`` blends the running statistics, and the reserve spaces hold the batch mean
and the biased variance (training) or the given mean and variance (inference, where TensorFlow
leaves them unspecified).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.nn.fused_batch_norm_kernels import (
    channel_index,
    format_rank,
    fused_batch_norm_backward,
    fused_batch_norm_forward,
)

# TensorFlow's T is {half, bfloat16, float}; tfmini has no bfloat16. U is float32 on CPU.
_T_TYPES = "half, float"
_FORMATS_4D = "{'NHWC', 'NCHW'}"
_FORMATS_5D = "{'NHWC', 'NCHW', 'NDHWC', 'NCDHW'}"
_COMMON_ATTRS = ["epsilon: float = 0.0001"]
_MODE_ATTRS = ["is_training: bool = true"]

# ----------------------------------------------------------------------------------------
# Shape functions (TensorFlow's FusedBatchNormShape / FusedBatchNormGradShape).


def _with_channel(shape: TensorShape, rank: int, index: int, channels: int | None):
    dims = [None] * rank if shape.dims is None else list(shape.dims)
    dims[index] = channels
    return TensorShape(dims)


def _fused_batch_norm_shape(ic) -> list[TensorShape]:
    data_format = ic.attrs["data_format"]
    rank = format_rank(data_format)
    x = shape_fns.with_rank(ic.input_shape(0), rank)
    index = channel_index(data_format, rank)
    channels = x.dims[index]
    # In training with factor 1 the mean and variance inputs are not read, so any shape goes.
    uses_stats = not ic.attrs["is_training"] or ic.attrs["exponential_avg_factor"] != 1.0
    for i in range(1, 5 if uses_stats else 3):
        vec = shape_fns.with_rank(ic.input_shape(i), 1)
        channels = shape_fns.merge_dim(channels, vec.dims[0])
    vector = TensorShape([channels])
    shapes = [_with_channel(x, rank, index, channels)] + [vector] * 4
    if len(ic.op_def.outputs) == 6:
        shapes.append(unknown_shape())  # reserve_space_3: TensorFlow leaves it unknown
    return shapes


def _fused_batch_norm_grad_shape(ic) -> list[TensorShape]:
    data_format = ic.attrs["data_format"]
    rank = format_rank(data_format)
    dy = shape_fns.with_rank(ic.input_shape(0), rank)
    x = shape_fns.with_rank(ic.input_shape(1), rank)
    index = channel_index(data_format, rank)
    channels = shape_fns.merge_dim(dy.dims[index], x.dims[index])
    for i in range(2, 5):  # scale, reserve_space_1, reserve_space_2
        vec = shape_fns.with_rank(ic.input_shape(i), 1)
        channels = shape_fns.merge_dim(channels, vec.dims[0])
    vector = TensorShape([channels])
    return [_with_channel(dy, rank, index, channels), vector, vector,
            as_shape([0]), as_shape([0])]


# ----------------------------------------------------------------------------------------
# Forward ops


def _forward_kernel(with_reserve_space_3: bool):
    def kernel(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
               data_format, is_training):
        outputs = fused_batch_norm_forward(
            x, scale, offset, mean, variance, epsilon=epsilon,
            exponential_avg_factor=exponential_avg_factor, data_format=data_format,
            is_training=is_training,
        )
        if with_reserve_space_3:
            # TensorFlow's CPU kernel has no use for a third reserve space: a float 0.
            outputs.append(np.zeros((), np.float32))
        return outputs

    return kernel


_FORWARD_ATTRS = [*_COMMON_ATTRS, "exponential_avg_factor: float = 1.0"]
_FORWARD_DOC = (
    "Batch normalisation over every axis but the channel axis. Training: y uses the batch "
    "mean and biased variance, batch_variance is Bessel-corrected, both blended with "
    "mean/variance by exponential_avg_factor. Inference: y uses mean and variance."
)

register_op(
    "FusedBatchNorm",
    inputs=["x: T", "scale: T", "offset: T", "mean: T", "variance: T"],
    outputs=["y: T", "batch_mean: T", "batch_variance: T", "reserve_space_1: T",
             "reserve_space_2: T"],
    attrs=["T: {float}", *_FORWARD_ATTRS, f"data_format: {_FORMATS_4D} = 'NHWC'",
           *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC,
)(_forward_kernel(False))

register_op(
    "FusedBatchNormV2",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
             "reserve_space_2: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_FORWARD_ATTRS,
           f"data_format: {_FORMATS_4D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC,
)(_forward_kernel(False))

register_op(
    "FusedBatchNormV3",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
             "reserve_space_2: U", "reserve_space_3: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_FORWARD_ATTRS,
           f"data_format: {_FORMATS_5D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC + " reserve_space_3 is a float 0 on CPU.",
)(_forward_kernel(True))


# ----------------------------------------------------------------------------------------
# Gradient ops


def _grad_kernel(with_reserve_space_3: bool):
    if with_reserve_space_3:
        def kernel(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *,
                   epsilon, data_format, is_training):
            # reserve_space_3 is the forward op's unused dummy: any value is accepted.
            return fused_batch_norm_backward(y_backprop, x, scale, reserve_space_1,
                                          reserve_space_2, epsilon=epsilon,
                                          data_format=data_format, is_training=is_training)
    else:
        def kernel(y_backprop, x, scale, reserve_space_1, reserve_space_2, *, epsilon,
                   data_format, is_training):
            return fused_batch_norm_backward(y_backprop, x, scale, reserve_space_1,
                                          reserve_space_2, epsilon=epsilon,
                                          data_format=data_format, is_training=is_training)
    return kernel


_GRAD_DOC = (
    "Gradients of FusedBatchNorm* for x, scale and offset, from the forward op's saved "
    "batch statistics (training) or its population mean and variance (inference); the last "
    "two outputs are empty placeholders."
)

register_op(
    "FusedBatchNormGrad",
    inputs=["y_backprop: T", "x: T", "scale: T", "reserve_space_1: T", "reserve_space_2: T"],
    outputs=["x_backprop: T", "scale_backprop: T", "offset_backprop: T", "reserve_space_3: T",
             "reserve_space_4: T"],
    attrs=["T: {float}", *_COMMON_ATTRS, f"data_format: {_FORMATS_4D} = 'NHWC'",
           *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(False))

register_op(
    "FusedBatchNormGradV2",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_3: U",
             "reserve_space_4: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_COMMON_ATTRS,
           f"data_format: {_FORMATS_4D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(False))

register_op(
    "FusedBatchNormGradV3",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U", "reserve_space_3: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_4: U",
             "reserve_space_5: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_COMMON_ATTRS,
           f"data_format: {_FORMATS_5D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(True))


# ----------------------------------------------------------------------------------------
# tf.compat.v1.nn.fused_batch_norm


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC",
                     is_training: bool = True, name: str | None = None,
                     exponential_avg_factor: float = 1.0):
    """Batch normalisation with one FusedBatchNormV3 op (``tf.compat.v1.nn.fused_batch_norm``).

    Args:
        x: A 4-D (or, with ``NDHWC``/``NCDHW``, 5-D) half or float32 tensor.
        scale: The per-channel scale (float32, length C).
        offset: The per-channel offset (float32, length C).
        mean: The population mean for inference, or the running mean blended with the batch
            mean when ``exponential_avg_factor`` != 1; may be None in plain training.
        variance: Like ``mean``, for the variance.
        epsilon: Added to the variance; used as given (TensorFlow 2 does not clamp it).
        data_format: ``NHWC``, ``NCHW``, ``NDHWC`` or ``NCDHW``.
        is_training: Use the batch statistics (True) or ``mean``/``variance`` (False).
        name: Name of the op.
        exponential_avg_factor: Weight of the batch statistics in the running ones.

    Returns:
        ``(y, running_mean, running_var)``: the normalised ``x`` and the op's batch_mean and
        batch_variance outputs (Bessel-corrected and blended in training; the inputs in
        inference).

    Raises:
        ValueError: ``mean`` or ``variance`` is None where they are needed, or static shapes
            conflict.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` "
            f"{variance!r}"
        )
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    # Given mean/variance literals are converted by the builder inside the op's name
    # ("bn/mean"), missing ones become empty constants beside it ("Const"), as in TensorFlow.
    if mean is None:
        mean = convert_to_tensor(np.zeros(0, np.float32))
    if variance is None:
        variance = convert_to_tensor(np.zeros(0, np.float32))
    op = build_op(current_scope(), "FusedBatchNormV3", [x, scale, offset, mean, variance], {
        "epsilon": epsilon, "exponential_avg_factor": exponential_avg_factor,
        "data_format": data_format, "is_training": is_training}, name=name)
    return op.outputs[0], op.outputs[1], op.outputs[2]


__all__ = ["fused_batch_norm"]
