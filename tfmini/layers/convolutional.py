"""Convolution layers: ``Conv1D``/``Conv2D``/``Conv3D``, ``Conv2DTranspose``,
``SeparableConv2D`` and their functions (tf_keras ``legacy_tf_layers/convolutional.py``,
``layers/convolutional/``). Kernels are ``kernel_size + (in, filters)``; ops are TensorFlow's
(``conv2d/Conv2D``, ``conv2d/BiasAdd``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.shapes import TensorShape
from tfmini.layers.base import InputSpec, Layer
from tfmini.layers.utils import normalize_data_format, normalize_padding, normalize_tuple
from tfmini.ops import array, nn

__all__ = [
    "Conv1D", "Conv2D", "Conv2DTranspose", "Conv3D", "SeparableConv2D", "conv1d", "conv2d",
    "conv2d_transpose", "conv3d", "separable_conv2d",
]

_TF_FORMATS = {
    ("channels_last", 1): "NWC", ("channels_first", 1): "NCW",
    ("channels_last", 2): "NHWC", ("channels_first", 2): "NCHW",
    ("channels_last", 3): "NDHWC", ("channels_first", 3): "NCDHW",
}


def conv_output_length(length: int | None, kernel: int, padding: str, stride: int,
                       dilation: int = 1) -> int | None:
    """The output length of a convolution along one axis (Keras's conv_utils)."""
    if length is None:
        return None
    k = (kernel - 1) * dilation + 1
    out = length - k + 1 if padding == "valid" else length
    return (out + stride - 1) // stride


def deconv_output_length(length: int | None, kernel: int, padding: str, stride: int) -> Any:
    """The output length of a transposed convolution along one axis."""
    if length is None:
        return None
    if padding == "valid":
        return length * stride + max(kernel - stride, 0)
    return length * stride


class _Conv(Layer):
    """The N-D convolution layer (``rank`` spatial axes)."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, activation: Callable | None = None,
                 use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = None, kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=rank + 2)

    @property
    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def _input_channels(self, input_shape: TensorShape) -> int:
        channels = input_shape.as_list()[self._channel_axis]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}, where axis "
                             f"{self._channel_axis} (0-based) is the channel dimension, which "
                             "found to be `None`.")
        return channels

    def _kernel_shape(self, channels: int) -> list:
        return list(self.kernel_size) + [channels, self.filters]

    def build(self, input_shape: TensorShape) -> None:
        """Creates ``kernel`` (and ``bias``) for the input's channels."""
        from tfmini.ops.variables import zeros_initializer

        channels = self._input_channels(input_shape)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.kernel = self.add_weight(
            "kernel", shape=self._kernel_shape(channels), initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.filters],
                initializer=self.bias_initializer or zeros_initializer(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def _convolve(self, inputs: Any) -> Any:
        return nn.convolution(
            inputs, self.kernel, padding=self.padding.upper(), strides=list(self.strides),
            dilations=list(self.dilation_rate),
            data_format=_TF_FORMATS[(self.data_format, self.rank)],
            name=type(self).__name__.replace("Transpose", ""))

    def call(self, inputs: Any) -> Any:
        """``activation(conv(inputs, kernel) + bias)``."""
        outputs = self._convolve(inputs)
        if self.use_bias:
            fmt = "NCHW" if self.data_format == "channels_first" else "NHWC"
            outputs = nn.bias_add(outputs, self.bias, data_format=fmt)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


class Conv1D(_Conv):
    """1-D convolution over ``[batch, width, channels]`` (see :class:`Conv2D` for args)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, **kwargs: Any):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)


class Conv2D(_Conv):
    """2-D convolution: ``kernel`` ``[kh, kw, in, filters]``, Conv2D then BiasAdd.

    Args:
        filters: Output channels.
        kernel_size: An int or a tuple per spatial axis.
        strides, dilation_rate: An int or a tuple per spatial axis.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (NHWC, default) or ``"channels_first"``.
        **kwargs: ``activation``, ``use_bias``, initializers, regularizers, constraints,
            ``trainable``, ``name`` as for :class:`Dense`.
    """

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), **kwargs: Any):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``[batch, depth, height, width, channels]``."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1, 1), **kwargs: Any):
        super().__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution: ``kernel`` ``[kh, kw, filters, in]``
    (Conv2DBackpropInput then BiasAdd)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last", **kwargs: Any):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, 1, **kwargs)
        self.input_spec = InputSpec(ndim=4)

    def _kernel_shape(self, channels: int) -> list:
        return list(self.kernel_size) + [self.filters, channels]

    def build(self, input_shape: TensorShape) -> None:
        """Creates ``kernel`` ``[kh, kw, filters, in]`` and ``bias``."""
        if len(input_shape.as_list()) != 4:
            raise ValueError(f"Inputs should have rank 4. Received input_shape={input_shape}.")
        super().build(input_shape)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis: self.kernel.shape[-1]})

    def _convolve(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        dynamic = array.shape(inputs)
        if self.data_format == "channels_first":
            h_axis, w_axis = 2, 3
        else:
            h_axis, w_axis = 1, 2
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        height, width = dims[h_axis], dims[w_axis]
        out_h = deconv_output_length(height, kh, self.padding, sh)
        out_w = deconv_output_length(width, kw, self.padding, sw)
        batch = dims[0] if dims[0] is not None else dynamic[0]
        if out_h is None or out_w is None:
            raise ValueError("Conv2DTranspose in tfmini needs known spatial input sizes; got "
                             f"{inputs.shape}")
        if self.data_format == "channels_first":
            out_shape = [batch, self.filters, out_h, out_w]
            strides = [1, 1, sh, sw]
        else:
            out_shape = [batch, out_h, out_w, self.filters]
            strides = [1, sh, sw, 1]
        out_shape = array.stack(out_shape) if not isinstance(batch, int) else out_shape
        outputs = nn.conv2d_transpose(
            inputs, self.kernel, out_shape, strides, padding=self.padding.upper(),
            data_format=_TF_FORMATS[(self.data_format, 2)])
        return outputs


class SeparableConv2D(_Conv):
    """Depthwise then pointwise 2-D convolution: ``depthwise_kernel``
    ``[kh, kw, in, depth_multiplier]``, ``pointwise_kernel`` ``[1, 1, in * dm, filters]``."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 depthwise_regularizer: Callable | None = None,
                 pointwise_regularizer: Callable | None = None,
                 depthwise_constraint: Callable | None = None,
                 pointwise_constraint: Callable | None = None, **kwargs: Any):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape: TensorShape) -> None:
        """Creates ``depthwise_kernel``, ``pointwise_kernel`` and ``bias``."""
        from tfmini.ops.variables import zeros_initializer

        channels = self._input_channels(input_shape)
        self.input_spec = InputSpec(ndim=4, axes={self._channel_axis: channels})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=list(self.kernel_size) + [channels, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", shape=[1, 1, channels * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.filters],
                initializer=self.bias_initializer or zeros_initializer(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def _convolve(self, inputs: Any) -> Any:
        if self.data_format == "channels_first":
            strides = (1, 1) + self.strides
        else:
            strides = (1,) + self.strides + (1,)
        return nn.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel, strides=list(strides),
            padding=self.padding.upper(), rate=list(self.dilation_rate),
            data_format=_TF_FORMATS[(self.data_format, 2)])


def _functional(cls):
    def apply(inputs: Any, filters: int, kernel_size: Any, *args: Any, name: str | None = None,
              reuse: Any = None, **kwargs: Any) -> Any:
        layer = cls(filters, kernel_size, *args, name=name, _scope=name, _reuse=reuse, **kwargs)
        return layer(inputs)

    return apply


conv1d = _functional(Conv1D)
conv1d.__doc__ = "``tf.compat.v1.layers.conv1d``: a :class:`Conv1D` applied to ``inputs``."
conv2d = _functional(Conv2D)
conv2d.__doc__ = """``tf.compat.v1.layers.conv2d``: a :class:`Conv2D` applied to ``inputs``.

Args:
    inputs: ``[batch, height, width, channels]`` (or channels first).
    filters, kernel_size: As for :class:`Conv2D`; further arguments (strides, padding,
        data_format, dilation_rate, activation, use_bias, initializers, regularizers,
        constraints, trainable) by position or keyword in TensorFlow's order.
    name: The variable scope (default ``conv2d``, made unique).
    reuse: Reuse the variables of a layer of the same name.
"""
conv3d = _functional(Conv3D)
conv3d.__doc__ = "``tf.compat.v1.layers.conv3d``: a :class:`Conv3D` applied to ``inputs``."
conv2d_transpose = _functional(Conv2DTranspose)
conv2d_transpose.__doc__ = ("``tf.compat.v1.layers.conv2d_transpose``: a "
                            ":class:`Conv2DTranspose` applied to ``inputs``.")
separable_conv2d = _functional(SeparableConv2D)
separable_conv2d.__doc__ = ("``tf.compat.v1.layers.separable_conv2d``: a "
                            ":class:`SeparableConv2D` applied to ``inputs``.")
