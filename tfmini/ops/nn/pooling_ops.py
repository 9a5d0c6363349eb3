"""Pooling ops: MaxPool, MaxPoolV2, AvgPool, MaxPool3D, AvgPool3D, MaxPoolWithArgmax and their
gradient ops (MaxPoolGrad, AvgPoolGrad, MaxPoolGradGrad, ... which are forward ops of their
own with gradients of their own).

Each op reads as in the other families: its registration (TensorFlow's OpDef from
tensorflow/core/ops/nn_ops.cc, shape functions as common_shape_fns.cc's pooling ones), then
its kernel; the arithmetic is in ``pooling_kernels``. Channels-first data is computed
channels-last and moved back, as the convolution ops do. At the end, the fusion of a
ReluGrad with the MaxPoolGrad it reads (run as one step at plan time).
"""

from __future__ import annotations

import numpy as np

from tfmini import errors
from tfmini.core import registry
from tfmini.core.registry import register_fusion, register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import as_int_list, invalid_argument
from tfmini.ops.nn import pooling_kernels as pk
from tfmini.ops.nn import pooling_native
from tfmini.ops.nn import window_geometry as wg

__all__: list[str] = []

# TensorFlow's realnumbertypes and MaxPool's list, restricted to the dtypes tfmini has.
_REAL = "float, double, int32, uint8, int16, int8, int64, half"
_MAXPOOL_TYPES = "half, float, double, int32, int64, uint8, int16, int8"
_FLOAT = "half, float, double"
_FMT_MAXPOOL = "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"
_FMT_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FMT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"
_PAD = "padding: {'SAME', 'VALID'}"
_PAD_EXPLICIT = ["padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []"]


def _rank(ic_or_attrs_fmt: str) -> int:
    return 5 if ic_or_attrs_fmt in ("NDHWC", "NCDHW") else 4


def _fmt(attrs: dict) -> str:
    return attrs.get("data_format", "NHWC")


# ----------------------------------------------------------------------------------------
# Geometry


def _check_attrs(op_type: str, ksize, strides, attrs: dict, rank: int) -> None:
    """The shape functions' checks (ValueError at build time)."""
    wg.check_list_attr(op_type, "ksize", ksize, rank)
    wg.check_list_attr(op_type, "stride", strides, rank)
    for s in strides:
        if s <= 0:
            raise ValueError(f"Stride must be > 0, but got {s}")
    for k in ksize:
        if k <= 0:
            raise ValueError(f"Sliding window ksize for dimension must be > 0, but got {k}")


def _depth_pooling(ksize, fmt: str) -> bool:
    return ksize[wg.channel_axis(fmt)] != 1


def _pool_output(op_type: str, dims: list, ksize, strides, attrs: dict) -> list:
    """The output shape (channels-last order, entries may be None)."""
    fmt = _fmt(attrs)
    n, *spatial, c = wg.shape_to_channels_last(dims, fmt)
    if _depth_pooling(ksize, fmt):
        kc = ksize[wg.channel_axis(fmt)]
        return [n, *spatial, None if c is None else c // kc]
    pairs = wg.explicit_pairs(op_type, attrs["padding"], attrs.get("explicit_paddings", []),
                              fmt)
    outs, _ = wg.output_geometry(spatial, wg.spatial_of(ksize, fmt),
                                 wg.spatial_of(strides, fmt), [1] * len(spatial),
                                 attrs["padding"], pairs)
    return [n, *outs, c]


def _window_attrs(ic, from_inputs: tuple[int, int] | None):
    if from_inputs is None:
        return list(ic.attrs["ksize"]), list(ic.attrs["strides"])
    ksize, strides = (ic.input_value(i) for i in from_inputs)
    if ksize is None or strides is None:
        return None, None
    return as_int_list(ksize), as_int_list(strides)


def _pooled_shape(from_inputs: tuple[int, int] | None = None, n_outputs: int = 1):
    """Forward pools: the pooled shape (unknown spatial dims when V2's ksize is unknown)."""

    def shape_fn(ic) -> list[TensorShape]:
        fmt = _fmt(ic.attrs)
        rank = _rank(fmt)
        x = shape_fns.with_rank(ic.input_shape(0), rank)
        ksize, strides = _window_attrs(ic, from_inputs)
        if ksize is None:
            return [unknown_shape(rank)] * n_outputs
        _check_attrs(ic.op_def.name, ksize, strides, ic.attrs, rank)
        out = _pool_output(ic.op_def.name, list(x.dims), ksize, strides, ic.attrs)
        return [TensorShape(wg.shape_from_channels_last(out, fmt))] * n_outputs

    return shape_fn


def _input_shaped(index: int, rank_of_fmt: bool = True, from_inputs=None):
    """Gradient ops whose output has the shape of input ``index``."""

    def shape_fn(ic) -> list[TensorShape]:
        fmt = _fmt(ic.attrs)
        rank = _rank(fmt)
        ksize, strides = _window_attrs(ic, from_inputs)
        if ksize is not None:
            _check_attrs(ic.op_def.name, ksize, strides, ic.attrs, rank)
        return [shape_fns.with_rank(ic.input_shape(index), rank)]

    return shape_fn


def _avg_grad_shape(ic) -> list[TensorShape]:
    fmt = _fmt(ic.attrs)
    rank = _rank(fmt)
    _check_attrs(ic.op_def.name, list(ic.attrs["ksize"]), list(ic.attrs["strides"]),
                 ic.attrs, rank)
    shape_fns.with_rank(ic.input_shape(1), rank)
    return [shape_fns.with_rank(shape_fns.shape_from_shape_tensor(ic, 0), rank)]


class _Geometry:
    """A pooling kernel's channels-last geometry, with TensorFlow's run-time checks."""

    def __init__(self, op_type: str, attrs: dict, ksize, strides, in_shape, avg: bool):
        fmt = _fmt(attrs)
        rank = _rank(fmt)
        if fmt == "NCHW_VECT_C":
            raise errors.UnimplementedError(None, None,
                                            f"{op_type}: NCHW_VECT_C is not supported")
        if len(in_shape) != rank:
            raise invalid_argument(f"input must be {rank}-dimensional, got "
                                   f"{dims_str(in_shape)}")
        try:
            _check_attrs(op_type, ksize, strides, attrs, rank)
        except ValueError as e:
            raise invalid_argument(str(e)) from None
        if ksize[0] != 1 or strides[0] != 1:
            raise errors.UnimplementedError(
                None, None, "Pooling is not yet supported on the batch dimension.")
        self.fmt = fmt
        self.in_shape = wg.shape_to_channels_last(in_shape, fmt)
        self.depth = _depth_pooling(ksize, fmt)
        if self.depth or strides[wg.channel_axis(fmt)] != 1:
            self._check_depth(op_type, ksize, strides, avg)
        self.ksizes = wg.spatial_of(ksize, fmt)
        self.strides = wg.spatial_of(strides, fmt)
        try:
            pairs = wg.explicit_pairs(op_type, attrs["padding"],
                                      attrs.get("explicit_paddings", []), fmt)
        except ValueError as e:
            raise invalid_argument(str(e)) from None
        if self.depth:
            self.depth_k = ksize[wg.channel_axis(fmt)]
            self.out_shape = [*self.in_shape[:-1], self.in_shape[-1] // self.depth_k]
            return
        self.outs, self.pads = wg.run_time_geometry(
            self.in_shape[1:-1], self.ksizes, self.strides, [1] * len(self.ksizes),
            attrs["padding"], pairs)
        self.out_shape = [self.in_shape[0], *self.outs, self.in_shape[-1]]

    def _check_depth(self, op_type: str, ksize, strides, avg: bool) -> None:
        fmt = self.fmt
        if avg or op_type != "MaxPool" and op_type != "MaxPoolV2":
            raise errors.UnimplementedError(
                None, None, "Non-spatial pooling is not yet supported.")
        spatial = wg.spatial_of(ksize, fmt) + wg.spatial_of(strides, fmt)
        if any(v != 1 for v in spatial):
            raise errors.UnimplementedError(
                None, None, "MaxPooling supports exactly one of pooling across depth or "
                "pooling across width/height.")
        k, s, c = ksize[wg.channel_axis(fmt)], strides[wg.channel_axis(fmt)], self.in_shape[-1]
        if k != s:
            raise errors.UnimplementedError(
                None, None, "Depthwise max pooling requires the depth window to equal the "
                "depth stride.")
        if c % k != 0:
            raise errors.UnimplementedError(
                None, None, "Depthwise max pooling requires the depth window to evenly "
                "divide the input depth.")

    def check_shape(self, name: str, value: np.ndarray, want: list[int]) -> np.ndarray:
        got = wg.shape_to_channels_last(value.shape, self.fmt)
        if got != list(want):
            raise invalid_argument(
                f"Expected {name} shape to be "
                f"{dims_str(wg.shape_from_channels_last(want, self.fmt))}, but got "
                f"{dims_str(value.shape)}")
        return wg.to_channels_last(value, self.fmt)


def _max_forward(geo: _Geometry, x: np.ndarray):
    if geo.depth:
        n, *spatial, c = geo.in_shape
        y = x.reshape(n, *spatial, c // geo.depth_k, geo.depth_k).max(-1)
        return y, None
    y = pk.tiled_max(x, geo.ksizes, geo.strides, geo.pads, geo.outs)
    if y is not None:
        return y, None
    return pk.max_argmax(x, geo.ksizes, geo.strides, geo.pads, geo.outs)


# ----------------------------------------------------------------------------------------
# Kernels


def _ksize_strides(attrs: dict, ksize=None, strides=None):
    if ksize is None:
        return list(attrs["ksize"]), list(attrs["strides"])
    return as_int_list(ksize), as_int_list(strides)


def _max_pool_kernel(op_type: str):
    def kernel(input, ksize=None, strides=None, **attrs):
        ks, ss = _ksize_strides(attrs, ksize, strides)
        geo = _Geometry(op_type, attrs, ks, ss, list(input.shape), avg=False)
        y, _ = _max_forward(geo, wg.to_channels_last(input, geo.fmt))
        return wg.from_channels_last(np.ascontiguousarray(y), geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _avg_pool_kernel(op_type: str):
    def kernel(value, **attrs):
        geo = _Geometry(op_type, attrs, list(attrs["ksize"]), list(attrs["strides"]),
                        list(value.shape), avg=True)
        x = wg.to_channels_last(value, geo.fmt)
        y = pk.avg_pool(x, geo.ksizes, geo.strides, geo.pads, geo.outs)
        return wg.from_channels_last(y, geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _max_grad_geometry(op_type, attrs, orig_input, orig_output, ksize, strides):
    ks, ss = _ksize_strides(attrs, ksize, strides)
    geo = _Geometry(op_type, attrs, ks, ss, list(orig_input.shape), avg=False)
    if geo.depth:
        raise errors.UnimplementedError(
            None, None, "MaxPoolingGrad is not yet supported on the depth dimension.")
    geo.check_shape("orig_output", orig_output, geo.out_shape)
    x = wg.to_channels_last(orig_input, geo.fmt)
    return geo, x


def _max_pool_grad_kernel(op_type: str):
    def kernel(orig_input, orig_output, grad, ksize=None, strides=None, **attrs):
        geo, x = _max_grad_geometry(op_type, attrs, orig_input, orig_output, ksize, strides)
        dy = geo.check_shape("grad", grad, geo.out_shape)
        dx = pk.tiled_max_grad(x, dy, geo.ksizes, geo.strides, geo.pads, geo.outs)
        if dx is None:
            _, arg = pk.max_argmax(x, geo.ksizes, geo.strides, geo.pads, geo.outs,
                                   first_nan_sticks=True)
            dx = pk.max_pool_grad(geo.in_shape, arg, dy, geo.ksizes, geo.strides, geo.pads)
        return wg.from_channels_last(dx.astype(grad.dtype, copy=False), geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _max_pool_grad_grad_kernel(op_type: str):
    def kernel(orig_input, orig_output, grad, ksize=None, strides=None, **attrs):
        geo, x = _max_grad_geometry(op_type, attrs, orig_input, orig_output, ksize, strides)
        g = geo.check_shape("grad", grad, geo.in_shape)
        _, arg = pk.max_argmax(x, geo.ksizes, geo.strides, geo.pads, geo.outs)
        out = pk.max_pool_grad_grad(geo.in_shape, arg, g, geo.ksizes, geo.strides, geo.pads)
        return wg.from_channels_last(out, geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _avg_pool_grad_kernel(op_type: str):
    def kernel(orig_input_shape, grad, **attrs):
        shape = as_int_list(orig_input_shape)
        geo = _Geometry(op_type, attrs, list(attrs["ksize"]), list(attrs["strides"]), shape,
                        avg=True)
        dy = geo.check_shape("grad", grad, geo.out_shape)
        dx = pk.avg_pool_grad(geo.in_shape, dy, geo.ksizes, geo.strides, geo.pads, geo.outs)
        return wg.from_channels_last(dx, geo.fmt)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    return kernel


def _with_argmax_geometry(op_type, attrs, input):
    geo = _Geometry(op_type, {**attrs, "data_format": "NHWC"}, list(attrs["ksize"]),
                    list(attrs["strides"]), list(input.shape), avg=False)
    if geo.depth:
        raise errors.UnimplementedError(
            None, None, f"{op_type} does not support pooling across depth.")
    return geo


def max_pool_with_argmax_kernel(input, *, Targmax, include_batch_in_index, **attrs):
    geo = _with_argmax_geometry("MaxPoolWithArgmax", attrs, input)
    y, arg = pk.max_argmax(input, geo.ksizes, geo.strides, geo.pads, geo.outs)
    idx = pk.flat_index(arg, geo.in_shape, geo.ksizes, geo.strides, geo.pads,
                        include_batch_in_index)
    return y, idx.astype(Targmax.np_dtype)


def _argmax_flat(geo: _Geometry, argmax: np.ndarray, include_batch: bool) -> np.ndarray:
    """The argmax indices as flat indices into the whole input."""
    n, *_, = geo.in_shape
    per_batch = int(np.prod(geo.in_shape[1:]))
    idx = argmax.astype(np.int64)
    if not include_batch:
        idx = idx + (np.arange(n) * per_batch).reshape([n] + [1] * (idx.ndim - 1))
    bad = (idx < 0) | (idx >= n * per_batch)
    if bad.any():
        raise invalid_argument(f"Invalid argmax value {int(argmax.ravel()[np.argmax(bad)])}: "
                               f"must be in [0, {n * per_batch})")
    return idx


def max_pool_grad_with_argmax_kernel(input, grad, argmax, *, include_batch_in_index, **attrs):
    geo = _with_argmax_geometry("MaxPoolGradWithArgmax", attrs, input)
    geo.check_shape("grad", grad, geo.out_shape)
    geo.check_shape("argmax", argmax, geo.out_shape)
    idx = _argmax_flat(geo, argmax, include_batch_in_index)
    if grad.dtype.kind == "f":
        out = np.bincount(idx.ravel(), grad.ravel().astype(np.float64), input.size)
    else:
        out = np.zeros(input.size, np.int64)
        np.add.at(out, idx.ravel(), grad.ravel())
    return out.astype(grad.dtype).reshape(input.shape)


def max_pool_grad_grad_with_argmax_kernel(input, grad, argmax, *, include_batch_in_index,
                                          **attrs):
    geo = _with_argmax_geometry("MaxPoolGradGradWithArgmax", attrs, input)
    geo.check_shape("grad", grad, geo.in_shape)
    geo.check_shape("argmax", argmax, geo.out_shape)
    idx = _argmax_flat(geo, argmax, include_batch_in_index)
    return grad.reshape(-1)[idx]


# ----------------------------------------------------------------------------------------
# Registrations

_WINDOW = ["ksize: list(int) >= 4", "strides: list(int) >= 4"]
_WINDOW_3D = ["ksize: list(int) >= 5", "strides: list(int) >= 5"]

register_op(
    "MaxPool", inputs=["input: T"], outputs=["output: T"],
    attrs=[f"T: {{{_MAXPOOL_TYPES}}} = DT_FLOAT", *_WINDOW, *_PAD_EXPLICIT, _FMT_MAXPOOL],
    shape_fn=_pooled_shape(), doc="The maximum over each window (padding never wins).",
)(_max_pool_kernel("MaxPool"))

register_op(
    "MaxPoolV2", inputs=["input: T", "ksize: int32", "strides: int32"], outputs=["output: T"],
    attrs=[f"T: {{{_MAXPOOL_TYPES}}} = DT_FLOAT", _PAD, _FMT_MAXPOOL],
    shape_fn=_pooled_shape((1, 2)), doc="MaxPool with ksize and strides as tensors.",
)(_max_pool_kernel("MaxPoolV2"))

register_op(
    "AvgPool", inputs=["value: T"], outputs=["output: T"],
    attrs=[*_WINDOW, _PAD, _FMT_2D, f"T: {{{_FLOAT}}}"],
    shape_fn=_pooled_shape(), doc="The mean over each window's valid (unpadded) cells.",
)(_avg_pool_kernel("AvgPool"))

register_op(
    "MaxPoolGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"],
    attrs=[*_WINDOW, *_PAD_EXPLICIT, _FMT_2D, f"T: {{{_REAL}}} = DT_FLOAT"],
    shape_fn=_input_shaped(0), doc="grad added at each window's first maximal input cell.",
)(_max_pool_grad_kernel("MaxPoolGrad"))

register_op(
    "MaxPoolGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"],
    outputs=["output: T"], attrs=[_PAD, _FMT_2D, f"T: {{{_REAL}}} = DT_FLOAT"],
    shape_fn=_input_shaped(0, from_inputs=(3, 4)), doc="MaxPoolGrad with tensor ksize/strides.",
)(_max_pool_grad_kernel("MaxPoolGradV2"))

register_op(
    "AvgPoolGrad", inputs=["orig_input_shape: int32", "grad: T"], outputs=["output: T"],
    attrs=[*_WINDOW, _PAD, _FMT_2D, f"T: {{{_FLOAT}}}"],
    shape_fn=_avg_grad_shape, doc="grad / count spread evenly over each window's cells.",
)(_avg_pool_grad_kernel("AvgPoolGrad"))

register_op(
    "MaxPoolGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"], attrs=[*_WINDOW, _PAD, _FMT_2D, f"T: {{{_REAL}}}"],
    shape_fn=_input_shaped(1), doc="grad (input-shaped) read at each window's argmax.",
)(_max_pool_grad_grad_kernel("MaxPoolGradGrad"))

register_op(
    "MaxPoolGradGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"],
    outputs=["output: T"], attrs=[_PAD, _FMT_2D, f"T: {{{_REAL}}}"],
    shape_fn=_input_shaped(1, from_inputs=(3, 4)),
    doc="MaxPoolGradGrad with tensor ksize/strides.",
)(_max_pool_grad_grad_kernel("MaxPoolGradGradV2"))

register_op(
    "MaxPool3D", inputs=["input: T"], outputs=["output: T"],
    attrs=[*_WINDOW_3D, _PAD, _FMT_3D, "T: {half, float}"],
    shape_fn=_pooled_shape(), doc="3-D max pooling.",
)(_max_pool_kernel("MaxPool3D"))

register_op(
    "AvgPool3D", inputs=["input: T"], outputs=["output: T"],
    attrs=[*_WINDOW_3D, _PAD, _FMT_3D, f"T: {{{_FLOAT}}}"],
    shape_fn=_pooled_shape(), doc="3-D average pooling over the valid cells.",
)(_avg_pool_kernel("AvgPool3D"))

register_op(
    "MaxPool3DGrad", inputs=["orig_input: TInput", "orig_output: TInput", "grad: T"],
    outputs=["output: T"],
    attrs=[*_WINDOW_3D, _PAD, _FMT_3D, "T: {half, float} = DT_FLOAT",
           "TInput: {half, float} = DT_FLOAT"],
    shape_fn=_input_shaped(0), doc="The gradient of MaxPool3D.",
)(_max_pool_grad_kernel("MaxPool3DGrad"))

register_op(
    "AvgPool3DGrad", inputs=["orig_input_shape: int32", "grad: T"], outputs=["output: T"],
    attrs=[*_WINDOW_3D, _PAD, _FMT_3D, f"T: {{{_FLOAT}}}"],
    shape_fn=_avg_grad_shape, doc="The gradient of AvgPool3D.",
)(_avg_pool_grad_kernel("AvgPool3DGrad"))

register_op(
    "MaxPool3DGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"], attrs=[*_WINDOW_3D, _PAD, _FMT_3D, f"T: {{{_REAL}}}"],
    shape_fn=_input_shaped(1), doc="The gradient of MaxPool3DGrad.",
)(_max_pool_grad_grad_kernel("MaxPool3DGradGrad"))

register_op(
    "MaxPoolWithArgmax", inputs=["input: T"], outputs=["output: T", "argmax: Targmax"],
    attrs=[*_WINDOW, "Targmax: {int32, int64} = DT_INT64", _PAD,
           "include_batch_in_index: bool = false", f"T: {{{_REAL}}}"],
    shape_fn=_pooled_shape(n_outputs=2),
    doc="MaxPool (NHWC) with the flat index ((b*H + y)*W + x)*C + c of each maximum.",
)(max_pool_with_argmax_kernel)

register_op(
    "MaxPoolGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
    outputs=["output: T"],
    attrs=[*_WINDOW, _PAD, "include_batch_in_index: bool = false", "Targmax: {int32, int64}",
           f"T: {{{_REAL}}}"],
    shape_fn=_input_shaped(0), doc="grad added at the input cells argmax names.",
)(max_pool_grad_with_argmax_kernel)

register_op(
    "MaxPoolGradGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
    outputs=["output: T"],
    attrs=[*_WINDOW, _PAD, "include_batch_in_index: bool = false", "Targmax: {int32, int64}",
           f"T: {{{_REAL}}}"],
    shape_fn=_pooled_shape(), doc="The input-shaped grad read at argmax.",
)(max_pool_grad_grad_with_argmax_kernel)


# ----------------------------------------------------------------------------------------
# Fusion: ReluGrad of MaxPoolGrad (runtime/graph_rewrite.py's remapping pass)


def _named(e: errors.OpError, node) -> errors.OpError:
    """``e`` as the executor would report it for ``node`` (the op whose check failed)."""
    return type(e)(None, node, f"{node.type} '{node.name}': {e.message} (defined at "
                               f"{node.defined_at})")


def _fuse_max_pool_grad_relu_grad(relu_grad, pool_grad):
    """ReluGrad whose features are the MaxPoolGrad's ``orig_input`` (a conv-relu-pool
    layer's gradient: both read the Relu's output), float32/float64: one step computing
    ``dx * (x > 0)`` in the compiled MaxPoolGrad loop while each window is in cache, the
    same bits as the two kernels in turn (which it runs where the loop does not apply).
    MaxPoolGrad's checks keep its name in their errors."""
    x = pool_grad.inputs[0]
    if relu_grad.inputs[1] != x or x.dtype.name not in ("float32", "float64"):
        return None
    attrs = dict(pool_grad.attrs)
    grad_kernel = _max_pool_grad_kernel("MaxPoolGrad")
    relu_grad_kernel = registry.get("ReluGrad").kernel_for("CPU").fn

    def max_pool_grad_relu_grad(orig_input, orig_output, grad):
        try:
            geo, xl = _max_grad_geometry("MaxPoolGrad", attrs, orig_input, orig_output, None,
                                         None)
            dy = geo.check_shape("grad", grad, geo.out_shape)
        except errors.OpError as e:
            raise _named(e, pool_grad) from e
        if geo.fmt == "NHWC" and dy.dtype == xl.dtype:
            dx = pooling_native.max_pool_grad(xl, dy, geo.ksizes, geo.strides, geo.pads,
                                              geo.outs, relu=True)
            if dx is not None:
                return dx
        dx = grad_kernel(orig_input, orig_output, grad, **attrs)
        return relu_grad_kernel(dx, orig_input)

    return max_pool_grad_relu_grad, list(pool_grad.inputs)


register_fusion("ReluGrad", "MaxPoolGrad", _fuse_max_pool_grad_relu_grad)
