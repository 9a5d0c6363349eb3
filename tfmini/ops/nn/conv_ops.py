"""Convolution ops: Conv2D, DepthwiseConv2dNative, Conv3D and their backprops.

Each op reads as in the other families: its registration (TensorFlow's OpDef, from
tensorflow/core/ops/nn_ops.cc, with the shape function of
tensorflow/core/framework/common_shape_fns.cc), then its kernel; the arithmetic is in
``conv_kernels`` and the window geometry in ``window_geometry``. Channels-first data is
moved to channels-last, computed there and moved back (TensorFlow's oneDNN CPU build also
accepts NCHW and gives the transposed NHWC result). The TF1 functions (``tm.nn.conv2d``
and friends) are in ``conv_functions``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import parallel, shape_fns
from tfmini.ops.common.kernel_util import as_int_list, invalid_argument
from tfmini.ops.nn import conv_kernels as ck
from tfmini.ops.nn import window_geometry as wg

__all__: list[str] = []

_CONV2D_TYPES = "half, float, double, int32"
_FLOAT_TYPES = "half, float, double"
_FORMATS_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMATS_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"
_PADDING_EXPLICIT = ["padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []"]
_PADDING = ["padding: {'SAME', 'VALID'}"]

# Shape-function names TensorFlow uses in its messages ("Conv2D requires the stride ...").
_SHAPE_NAME = {"conv": "Conv2D", "depthwise": "DepthwiseConv2D", "conv3d": "Conv3D"}


# ----------------------------------------------------------------------------------------
# Attrs and geometry


def _attrs_geometry(op_type: str, kind: str, attrs: dict, rank: int):
    """Checks the window attrs (build time, ValueError) and returns
    (data_format, spatial strides, spatial dilations, padding, explicit pairs)."""
    fmt = attrs["data_format"]
    strides = list(attrs["strides"])
    dilations = list(attrs.get("dilations") or [1] * rank)
    name = f"{_SHAPE_NAME[kind]} on data format {fmt}"
    wg.check_list_attr(name, "stride", strides, rank)
    wg.check_list_attr(name, "dilation", dilations, rank)
    for s in strides:
        if s <= 0:
            raise ValueError(f"Stride must be > 0, but got {s}")
    for d in dilations:
        if d < 1:
            raise ValueError(f"Dilated rates should be larger than 0, but got {d}")
    pairs = wg.explicit_pairs(op_type, attrs["padding"], attrs.get("explicit_paddings", []),
                              fmt)
    return (fmt, wg.spatial_of(strides, fmt), wg.spatial_of(dilations, fmt), attrs["padding"],
            pairs)


def _check_run_attrs(attrs: dict, rank: int) -> None:
    """TensorFlow's kernel-constructor checks (run time)."""
    fmt = attrs["data_format"]
    wg.check_batch_depth(list(attrs["strides"]), fmt, "strides")
    wg.check_batch_depth(list(attrs.get("dilations") or [1] * rank), fmt, "dilations")


# ----------------------------------------------------------------------------------------
# Shape functions


def _output_channels(kind: str, c_in, f_dims) -> Any:
    """The output depth, with TensorFlow's checks of the input depth against the filter."""
    f_in, f_out = f_dims[-2], f_dims[-1]
    if kind == "depthwise":
        c = shape_fns.merge_dim(c_in, f_in)
        return shape_fns.multiply_dims(c, f_out)
    if c_in is not None and f_in is not None:
        if f_in == 0 or c_in % f_in != 0:
            raise ValueError(f"Depth of input ({c_in}) is not a multiple of input depth of "
                             f"filter ({f_in})")
        groups = c_in // f_in
        if f_out is not None and f_out % groups != 0:
            raise ValueError(f"Depth of output ({f_out}) is not a multiple of the number of "
                             f"groups ({groups})")
    return f_out


def _forward_shape(kind: str, rank: int):
    def shape_fn(ic) -> list[TensorShape]:
        op_type = ic.op_def.name
        fmt, strides, dilations, padding, pairs = _attrs_geometry(op_type, kind, ic.attrs,
                                                                  rank)
        x = shape_fns.with_rank(ic.input_shape(0), rank)
        f = shape_fns.with_rank(ic.input_shape(1), rank)
        n, *spatial, c = wg.shape_to_channels_last(x.dims, fmt)
        f_dims = list(f.dims)
        out_c = _output_channels(kind, c, f_dims)
        ksizes = f_dims[:-2]
        outs = []
        for size, k, s, d, pair in zip(spatial, ksizes, strides, dilations, pairs):
            if k is None:
                outs.append(None)
                continue
            outs.append(wg.window_size(size, k, s, d, padding, pair)[0])
        return [TensorShape(wg.shape_from_channels_last([n, *outs, out_c], fmt))]

    return shape_fn


def _sizes_shape(index: int, rank: int, kind: str):
    """Backprop ops: the output shape is the value of the sizes input ``index``."""

    def shape_fn(ic) -> list[TensorShape]:
        _attrs_geometry(ic.op_def.name, kind, ic.attrs, rank)
        sizes = shape_fns.with_rank(ic.input_shape(index), 1)
        if sizes.dims[0] is not None and sizes.dims[0] != rank:
            raise ValueError(f"Dimension must be {rank} but is {sizes.dims[0]}")
        other = 1 if index == 0 else 0
        shape_fns.with_rank(ic.input_shape(other), rank)
        shape_fns.with_rank(ic.input_shape(2), rank)
        return [shape_fns.shape_from_shape_tensor(ic, index)]

    return shape_fn


# ----------------------------------------------------------------------------------------
# Kernels


def _check_rank(name: str, value: np.ndarray, rank: int) -> None:
    if value.ndim != rank:
        raise invalid_argument(f"{name} must be {rank}-dimensional: {dims_str(value.shape)}")


def _sizes(value: np.ndarray, rank: int, what: str) -> list[int]:
    sizes = as_int_list(value)
    if np.ndim(value) != 1 or len(sizes) != rank:
        raise invalid_argument(f"{what} must be a {rank}-element vector, got "
                               f"{dims_str(np.shape(value))}")
    if any(s < 0 for s in sizes):
        raise invalid_argument(f"{what} must be non-negative, got {sizes}")
    return sizes


class _Geometry:
    """A kernel's view of one op: the channels-last input shape, filter shape and outputs."""

    def __init__(self, op_type: str, kind: str, attrs: dict, rank: int,
                 in_shape: list[int], filter_shape: list[int]):
        _check_run_attrs(attrs, rank)
        try:
            fmt, strides, dilations, padding, pairs = _attrs_geometry(op_type, kind, attrs,
                                                                      rank)
        except ValueError as e:
            raise invalid_argument(str(e)) from None
        self.fmt, self.strides, self.dilations = fmt, strides, dilations
        self.in_shape = wg.shape_to_channels_last(in_shape, fmt)
        self.filter_shape = list(filter_shape)
        c, f_in, f_out = self.in_shape[-1], filter_shape[-2], filter_shape[-1]
        if kind == "depthwise":
            if c != f_in:
                raise invalid_argument(
                    f"input and filter must have the same depth: {c} vs {f_in}")
            self.out_c = c * f_out
        else:
            if f_in == 0 or c % f_in != 0:
                raise invalid_argument(
                    f"input depth must be evenly divisible by filter depth: {c} vs {f_in}")
            if f_out % (c // f_in) != 0:
                raise invalid_argument(
                    f"output depth must be evenly divisible by number of groups: {f_out} vs "
                    f"{c // f_in}")
            self.out_c = f_out
        self.outs, self.pads = wg.run_time_geometry(
            self.in_shape[1:-1], filter_shape[:-2], strides, dilations, padding, pairs)
        self.out_shape = [self.in_shape[0], *self.outs, self.out_c]

    def check_out_backprop(self, op_type: str, dy: np.ndarray) -> np.ndarray:
        """``dy`` channels-last, checked against the output shape the geometry gives."""
        got = wg.shape_to_channels_last(dy.shape, self.fmt)
        if got != self.out_shape:
            raise invalid_argument(
                f"{op_type}: Size of out_backprop doesn't match computed: actual = "
                f"{dims_str(wg.shape_from_channels_last(got, self.fmt))}, computed = "
                f"{dims_str(wg.shape_from_channels_last(self.out_shape, self.fmt))}")
        return wg.to_channels_last(dy, self.fmt)


def _cast_in(*arrays: np.ndarray):
    ct = ck.compute_dtype(arrays[0].dtype)
    return [a.astype(ct, copy=False) for a in arrays]


def _forward_kernel(op_type: str, kind: str, rank: int):
    fn = ck.depthwise_forward if kind == "depthwise" else ck.conv_forward

    def kernel(input, filter, **attrs):
        _check_rank("input", input, rank)
        _check_rank("filter", filter, rank)
        geo = _Geometry(op_type, kind, attrs, rank, list(input.shape), list(filter.shape))
        x, w = _cast_in(wg.to_channels_last(input, geo.fmt), filter)
        y = fn(x, w, geo.strides, geo.dilations, geo.pads, geo.outs)
        return wg.from_channels_last(y.astype(input.dtype, copy=False), geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _input_kernel(op_type: str, kind: str, rank: int):
    fn = ck.depthwise_backprop_input if kind == "depthwise" else ck.conv_backprop_input

    def kernel(input_sizes, filter, out_backprop, **attrs):
        _check_rank("filter", filter, rank)
        _check_rank("out_backprop", out_backprop, rank)
        sizes = _sizes(input_sizes, rank, "input_sizes")
        geo = _Geometry(op_type, kind, attrs, rank, sizes, list(filter.shape))
        dy = geo.check_out_backprop(op_type, out_backprop)
        w, dy = _cast_in(filter, dy)
        dx = fn(geo.in_shape, w, dy, geo.strides, geo.dilations, geo.pads, geo.outs)
        return wg.from_channels_last(dx.astype(filter.dtype, copy=False), geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _filter_kernel(op_type: str, kind: str, rank: int):
    fn = ck.depthwise_backprop_filter if kind == "depthwise" else ck.conv_backprop_filter

    def kernel(input, filter_sizes, out_backprop, **attrs):
        _check_rank("input", input, rank)
        _check_rank("out_backprop", out_backprop, rank)
        sizes = _sizes(filter_sizes, rank, "filter_sizes")
        geo = _Geometry(op_type, kind, attrs, rank, list(input.shape), sizes)
        dy = geo.check_out_backprop(op_type, out_backprop)
        x, dy = _cast_in(wg.to_channels_last(input, geo.fmt), dy)
        dw = fn(x, sizes, dy, geo.strides, geo.dilations, geo.pads, geo.outs)
        return np.ascontiguousarray(dw.astype(input.dtype, copy=False))

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


# ----------------------------------------------------------------------------------------
# Registrations


def _register(op_type: str, kind: str, role: str, types: str, window_attrs: list[str],
              doc: str, sizes_type: str = "int32", extra_attrs: tuple[str, ...] = ()) -> None:
    rank = 5 if kind == "conv3d" else 4
    attrs = [f"T: {{{types}}}", *window_attrs, *extra_attrs]
    if role == "forward":
        inputs = ["input: T", "filter: T"]
        shape_fn, kernel = _forward_shape(kind, rank), _forward_kernel(op_type, kind, rank)
    elif role == "input":
        inputs = [f"input_sizes: {sizes_type}", "filter: T", "out_backprop: T"]
        shape_fn, kernel = _sizes_shape(0, rank, kind), _input_kernel(op_type, kind, rank)
    else:
        inputs = ["input: T", "filter_sizes: int32", "out_backprop: T"]
        shape_fn, kernel = _sizes_shape(1, rank, kind), _filter_kernel(op_type, kind, rank)
    register_op(op_type, inputs=inputs, outputs=["output: T"], attrs=attrs,
                shape_fn=shape_fn, doc=doc)(kernel)


_CONV2D_ATTRS = ["strides: list(int)", "use_cudnn_on_gpu: bool = true", *_PADDING_EXPLICIT,
                 _FORMATS_2D, "dilations: list(int) = [1, 1, 1, 1]"]
_DEPTHWISE_ATTRS = ["strides: list(int)", *_PADDING_EXPLICIT, _FORMATS_2D,
                    "dilations: list(int) = [1, 1, 1, 1]"]
_CONV3D_ATTRS = ["strides: list(int) >= 5", *_PADDING, _FORMATS_3D,
                 "dilations: list(int) = [1, 1, 1, 1, 1]"]

_register("Conv2D", "conv", "forward", _CONV2D_TYPES, _CONV2D_ATTRS,
          "2-D convolution of input [N,H,W,C] with filter [kh,kw,C/groups,O] (no flip).")
_register("Conv2DBackpropInput", "conv", "input", _CONV2D_TYPES, _CONV2D_ATTRS,
          "The gradient of Conv2D in its input, whose shape is input_sizes.")
_register("Conv2DBackpropFilter", "conv", "filter", _FLOAT_TYPES, _CONV2D_ATTRS,
          "The gradient of Conv2D in its filter, whose shape is filter_sizes.")
_register("DepthwiseConv2dNative", "depthwise", "forward", _FLOAT_TYPES, _DEPTHWISE_ATTRS,
          "Depthwise 2-D convolution: output channel c*M + m is channel c convolved with "
          "filter[:, :, c, m].")
_register("DepthwiseConv2dNativeBackpropInput", "depthwise", "input", _FLOAT_TYPES,
          _DEPTHWISE_ATTRS, "The gradient of DepthwiseConv2dNative in its input.")
_register("DepthwiseConv2dNativeBackpropFilter", "depthwise", "filter", _FLOAT_TYPES,
          _DEPTHWISE_ATTRS, "The gradient of DepthwiseConv2dNative in its filter.")
_register("Conv3D", "conv3d", "forward", _FLOAT_TYPES, _CONV3D_ATTRS,
          "3-D convolution of input [N,D,H,W,C] with filter [kd,kh,kw,C/groups,O].")
_register("Conv3DBackpropInputV2", "conv3d", "input", _FLOAT_TYPES, _CONV3D_ATTRS,
          "The gradient of Conv3D in its input, whose shape is input_sizes.",
          sizes_type="Tshape", extra_attrs=("Tshape: {int32, int64} = DT_INT32",))
_register("Conv3DBackpropFilterV2", "conv3d", "filter", _FLOAT_TYPES, _CONV3D_ATTRS,
          "The gradient of Conv3D in its filter, whose shape is filter_sizes.")

# The ungrouped convolutions split their batch over the cores (batch_split.py): a run holding
# one keeps the BLAS pool at one thread, so the split applies on an idle machine too.
parallel.register_splitter("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D",
                           "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")
