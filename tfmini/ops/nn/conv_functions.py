"""TF1 convolution and pooling functions: ``tm.nn.conv2d``, ``max_pool``, ``convolution``, ...

They build the ops of ``conv_ops`` and ``pooling_ops`` as ``tf.compat.v1.nn`` does
(tensorflow/python/ops/nn_ops.py and nn_impl.py): ``strides``/``ksize``/``dilations`` given
as an int, 1, N or N+2 values (``_get_sequence``), padding as a string or, for conv2d and
max_pool, a list of (before, after) pairs (``convert_padding``).

Departure: where TensorFlow's ``depthwise_conv2d``/``separable_conv2d`` with ``rate > 1``
go through SpaceToBatchND/BatchToSpaceND, tfmini gives the op its ``dilations`` attr, which
computes the same values with one op.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops.common.build_util import as_operand, build_output, op_scope

__all__ = [
    "atrous_conv2d", "avg_pool", "avg_pool2d", "avg_pool3d", "conv1d", "conv2d",
    "conv2d_backprop_filter", "conv2d_backprop_input", "conv2d_transpose", "conv3d",
    "convolution", "depthwise_conv2d", "depthwise_conv2d_native", "max_pool", "max_pool2d",
    "max_pool3d", "max_pool_with_argmax", "pool", "separable_conv2d",
]


def _get_sequence(value: Any, n: int, channel_index: int, name: str) -> list[int]:
    """TensorFlow's ``_get_sequence``: an int or 1/N/N+2 values as N+2 values."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")
    out = [1] * (n + 2)
    spatial = range(1, n + 1) if channel_index != 1 else range(2, n + 2)
    for i, v in zip(spatial, value):
        out[i] = v
    return out


def _channel_index(data_format: str | None) -> int:
    return 1 if data_format is not None and data_format.startswith("NC") else -1


def _padding_attrs(padding: Any, data_format: str) -> dict:
    """``convert_padding``: a string, or explicit (before, after) pairs for every dim."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"padding must be VALID, SAME or a list of explicit paddings, "
                             f"got {padding!r}")
        return {"padding": padding}
    pairs = [list(p) for p in padding]
    if len(pairs) != len(data_format):
        raise ValueError(f"When padding is a list, it must be of size {len(data_format)}. "
                         f"Received: padding={padding}")
    return {"padding": "EXPLICIT", "explicit_paddings": [int(v) for p in pairs for v in p]}


def _np_list(values: Any) -> str:
    # TensorFlow prints NumPy arrays here: "[2 2]".
    return "[" + " ".join(str(int(v)) for v in values) + "]"


def _pick(primary: Any, alias: Any, names: str) -> Any:
    if primary is not None and alias is not None:
        raise ValueError(f"Cannot specify both {names}")
    return primary if primary is not None else alias


# ----------------------------------------------------------------------------------------
# Convolutions


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = None,
           name: str | None = None, filters: Any = None) -> Output:
    """``tf.compat.v1.nn.conv2d``: a Conv2D op.

    Args:
        input: ``[N, H, W, C]`` (NHWC) or ``[N, C, H, W]`` (NCHW).
        filter: ``[kh, kw, C / groups, O]`` (``filters`` is an alias).
        strides: int or 1, 2 or 4 ints.
        padding: ``"SAME"``, ``"VALID"`` or 4 (before, after) pairs.
        use_cudnn_on_gpu: Kept for the signature; the attr is recorded.
        data_format: ``"NHWC"`` or ``"NCHW"``.
        dilations: int or 1, 2 or 4 ints.
        name: The op's name.

    Returns:
        The convolution, with the shape TensorFlow's shape function gives.

    Raises:
        ValueError: bad strides, dilations, padding, or depths that do not fit.
    """
    filter = _pick(filter, filters, "'filters' and 'filter'")
    ci = _channel_index(data_format)
    attrs = {"strides": _get_sequence(strides, 2, ci, "strides"),
             "dilations": _get_sequence(dilations, 2, ci, "dilations"),
             "use_cudnn_on_gpu": use_cudnn_on_gpu, "data_format": data_format,
             **_padding_attrs(padding, data_format)}
    return build_output("Conv2D", [input, filter], attrs, name=name)


def conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any, strides: Any,
                          padding: Any, use_cudnn_on_gpu: bool = True,
                          data_format: str = "NHWC", dilations: Any = None,
                          name: str | None = None) -> Output:
    """``tf.compat.v1.nn.conv2d_backprop_input``: a Conv2DBackpropInput op."""
    ci = _channel_index(data_format)
    attrs = {"strides": _get_sequence(strides, 2, ci, "strides"),
             "dilations": _get_sequence(dilations, 2, ci, "dilations"),
             "use_cudnn_on_gpu": use_cudnn_on_gpu, "data_format": data_format,
             **_padding_attrs(padding, data_format)}
    return build_output("Conv2DBackpropInput", [as_operand(input_sizes), filter, out_backprop],
                        attrs, name=name)


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,
                           padding: Any, use_cudnn_on_gpu: bool = True,
                           data_format: str = "NHWC", dilations: Any = None,
                           name: str | None = None) -> Output:
    """``tf.compat.v1.nn.conv2d_backprop_filter``: a Conv2DBackpropFilter op."""
    ci = _channel_index(data_format)
    attrs = {"strides": _get_sequence(strides, 2, ci, "strides"),
             "dilations": _get_sequence(dilations, 2, ci, "dilations"),
             "use_cudnn_on_gpu": use_cudnn_on_gpu, "data_format": data_format,
             **_padding_attrs(padding, data_format)}
    return build_output("Conv2DBackpropFilter", [input, as_operand(filter_sizes),
                                                 out_backprop], attrs, name=name)


def conv2d_transpose(value: Any = None, filter: Any = None, output_shape: Any = None,
                     strides: Any = None, padding: str = "SAME", data_format: str = "NHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,
                     dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.conv2d_transpose``: Conv2DBackpropInput(output_shape, filter, value).

    ``filter`` is ``[kh, kw, out_channels, in_channels]``.

    Raises:
        ValueError: ``value``'s channels differ from the filter's ``in_channels``, or
            ``output_shape``'s channels from its ``out_channels``.
    """
    value = _pick(value, input, "'input' and 'value'")
    filter = _pick(filter, filters, "'filters' and 'filter'")
    with op_scope(name, "conv2d_transpose") as (outer, base):
        value, filter = as_operand(value), as_operand(filter)
        ci = _channel_index(data_format)
        axis = 3 if ci == -1 else 1
        v_c = value.shape.dims[axis] if value.shape.dims is not None else None
        f_in = filter.shape.dims[3] if filter.shape.dims is not None else None
        if v_c is not None and f_in is not None and v_c != f_in:
            raise ValueError(f"Input channels does not match filter's input channels, "
                             f"{v_c} != {f_in}")
        sizes = as_operand(output_shape, None)
        attrs = {"strides": _get_sequence(strides, 2, ci, "strides"),
                 "dilations": _get_sequence(dilations, 2, ci, "dilations"),
                 "data_format": data_format, **_padding_attrs(padding, data_format)}
        return build_op(outer, "Conv2DBackpropInput", [sizes, filter, value], attrs,
                        name=base).outputs[0]


def conv1d(value: Any = None, filters: Any = None, stride: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = None, data_format: str | None = None,
           name: str | None = None, input: Any = None, dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.conv1d``: ExpandDims to 2-D, Conv2D, Squeeze.

    ``value`` is ``[N, W, C]`` (``"NWC"``) or ``[N, C, W]`` (``"NCW"``), ``filters``
    ``[k, C, O]``.
    """
    value = _pick(value, input, "'input' and 'value'")
    with op_scope(name, "conv1d") as (outer, base):
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start, ci = "NHWC", -3, -1
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start, ci = "NCHW", -2, 1
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. "
                             f"Received: data_format={data_format}")
        strides = [1] + _get_sequence(stride, 1, ci, "stride")
        dil = [1] + _get_sequence(dilations, 1, ci, "dilations")
        x = array_ops.expand_dims(value, spatial_start)
        f = array_ops.expand_dims(filters, 0)
        attrs = {"strides": strides, "dilations": dil, "data_format": data_format,
                 "use_cudnn_on_gpu": True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
                 **_padding_attrs(padding, data_format)}
        y = build_output("Conv2D", [x, f], attrs)
        return build_op(outer, "Squeeze", [y], {"squeeze_dims": [spatial_start]},
                        name=base).outputs[0]


def conv3d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,
           data_format: str = "NDHWC", dilations: Any = None, name: str | None = None,
           filters: Any = None) -> Output:
    """``tf.compat.v1.nn.conv3d``: a Conv3D op (``strides`` of 5 values)."""
    filter = _pick(filter, filters, "'filters' and 'filter'")
    attrs = {"strides": list(strides), "padding": padding, "data_format": data_format,
             "dilations": list(dilations) if dilations is not None else [1] * 5}
    return build_output("Conv3D", [input, filter], attrs, name=name)


def depthwise_conv2d_native(input: Any, filter: Any, strides: Any, padding: Any,
                            data_format: str = "NHWC", dilations: Any = None,
                            name: str | None = None) -> Output:
    """``tf.compat.v1.nn.depthwise_conv2d_native``: a DepthwiseConv2dNative op."""
    attrs = {"strides": list(strides), "data_format": data_format,
             "dilations": list(dilations) if dilations is not None else [1] * 4,
             **_padding_attrs(padding, data_format)}
    return build_output("DepthwiseConv2dNative", [input, filter], attrs, name=name)


def _rate_dilations(rate: Any, dilations: Any, data_format: str) -> list[int]:
    rate = _pick(rate, dilations, "'rate' and 'dilations'")
    return _get_sequence(rate, 2, _channel_index(data_format), "rate")


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any, rate: Any = None,
                     name: str | None = None, data_format: str | None = None,
                     dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.depthwise_conv2d``: channel c*M + m is channel c convolved with
    ``filter[:, :, c, m]``; ``rate`` dilates the filter."""
    data_format = data_format or "NHWC"
    with op_scope(name, "depthwise") as (outer, base):
        dil = _rate_dilations(rate, dilations, data_format)
        if any(d > 1 for d in dil) and any(s > 1 for s in strides):
            raise ValueError("`strides > 1` not supported in conjunction with "
                             "`dilation_rate > 1`")
        attrs = {"strides": list(strides), "data_format": data_format, "dilations": dil,
                 **_padding_attrs(padding, data_format)}
        return build_op(outer, "DepthwiseConv2dNative", [input, filter], attrs,
                        name=base).outputs[0]


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,
                     padding: Any, rate: Any = None, name: str | None = None,
                     data_format: str | None = None, dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.separable_conv2d``: depthwise, then a 1x1 VALID Conv2D."""
    data_format = data_format or "NHWC"
    with op_scope(name, "separable_conv2d") as (outer, base):
        dil = _rate_dilations(rate, dilations, data_format)
        attrs = {"strides": list(strides), "data_format": data_format, "dilations": dil,
                 **_padding_attrs(padding, data_format)}
        depthwise = build_output("DepthwiseConv2dNative", [input, depthwise_filter], attrs,
                                 name="depthwise")
        return build_op(outer, "Conv2D", [depthwise, pointwise_filter],
                        {"strides": [1, 1, 1, 1], "padding": "VALID",
                         "data_format": data_format}, name=base).outputs[0]


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str,
                  name: str | None = None) -> Output:
    """``tf.compat.v1.nn.atrous_conv2d``: Conv2D with dilations ``[1, rate, rate, 1]``."""
    return convolution(value, filters, padding, dilation_rate=[rate, rate], name=name)


def convolution(input: Any, filter: Any = None, padding: Any = None, strides: Any = None,
                dilation_rate: Any = None, name: str | None = None,
                data_format: str | None = None, filters: Any = None,
                dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.convolution``: conv1d, conv2d or conv3d by the input's rank.

    Raises:
        ValueError: strides > 1 together with dilation_rate > 1, as TensorFlow.
    """
    filter = _pick(filter, filters, "'filters' and 'filter'")
    dilation_rate = _pick(dilation_rate, dilations, "'dilations' and 'dilation_rate'")
    x = as_operand(input)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("convolution needs an input of known rank")
    n = rank - 2
    strides = [1] * n if strides is None else list(strides)
    dilation_rate = [1] * n if dilation_rate is None else list(dilation_rate)
    if any(s > 1 for s in strides) and any(d > 1 for d in dilation_rate):
        raise ValueError("`strides > 1` not supported in conjunction with "
                         "`dilation_rate > 1`. Received: strides="
                         f"{_np_list(strides)} and dilation_rate={_np_list(dilation_rate)}")
    with op_scope(name, "convolution") as (outer, base):
        if n == 1:
            fmt = "NCW" if data_format and data_format.startswith("NC") else "NWC"
            return conv1d(x, filter, strides, padding, data_format=fmt,
                          dilations=dilation_rate, name=base)
        if n == 2:
            fmt = data_format or "NHWC"
            ci = _channel_index(fmt)
            attrs = {"strides": _get_sequence(strides, 2, ci, "strides"),
                     "dilations": _get_sequence(dilation_rate, 2, ci, "dilations"),
                     "data_format": fmt, **_padding_attrs(padding, fmt)}
            return build_op(outer, "Conv2D", [x, filter], attrs, name=base).outputs[0]
        if n == 3:
            fmt = data_format or "NDHWC"
            ci = _channel_index(fmt)
            return build_op(outer, "Conv3D", [x, filter], {
                "strides": _get_sequence(strides, 3, ci, "strides"), "padding": padding,
                "dilations": _get_sequence(dilation_rate, 3, ci, "dilations"),
                "data_format": fmt}, name=base).outputs[0]
    raise ValueError(f"`input` must have rank 3, 4 or 5; got rank {rank}")


# ----------------------------------------------------------------------------------------
# Pooling


def _pool2d(op_type: str, value: Any, ksize: Any, strides: Any, padding: Any,
            data_format: str, name: str | None) -> Output:
    ci = _channel_index(data_format)
    attrs = {"ksize": _get_sequence(ksize, 2, ci, "ksize"),
             "strides": _get_sequence(strides, 2, ci, "strides"),
             "data_format": data_format, **_padding_attrs(padding, data_format)}
    if op_type != "MaxPool" and attrs["padding"] == "EXPLICIT":
        raise ValueError(f"{op_type} does not support explicit padding")
    return build_output(op_type, [value], attrs, name=name)


def max_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Output:
    """``tf.compat.v1.nn.max_pool``: the maximum of each window (a MaxPool op)."""
    value = _pick(value, input, "'input' and 'value'")
    return _pool2d("MaxPool", value, ksize, strides, padding, data_format, name)


def avg_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Output:
    """``tf.compat.v1.nn.avg_pool``: the mean of each window's valid cells (AvgPool)."""
    value = _pick(value, input, "'input' and 'value'")
    return _pool2d("AvgPool", value, ksize, strides, padding, data_format, name)


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
               name: str | None = None) -> Output:
    """``tf.compat.v1.nn.max_pool2d``."""
    return _pool2d("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
               name: str | None = None) -> Output:
    """``tf.compat.v1.nn.avg_pool2d``."""
    return _pool2d("AvgPool", input, ksize, strides, padding, data_format, name)


def _pool3d(op_type: str, input: Any, ksize: Any, strides: Any, padding: str,
            data_format: str, name: str | None) -> Output:
    ci = _channel_index(data_format)
    attrs = {"ksize": _get_sequence(ksize, 3, ci, "ksize"),
             "strides": _get_sequence(strides, 3, ci, "strides"),
             "padding": padding, "data_format": data_format}
    return build_output(op_type, [input], attrs, name=name)


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str,
               data_format: str = "NDHWC", name: str | None = None) -> Output:
    """``tf.compat.v1.nn.max_pool3d``: a MaxPool3D op."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str,
               data_format: str = "NDHWC", name: str | None = None) -> Output:
    """``tf.compat.v1.nn.avg_pool3d``: an AvgPool3D op."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)


def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: str,
                         data_format: str = "NHWC", Targmax: Any = None,
                         name: str | None = None, output_dtype: Any = None,
                         include_batch_in_index: bool = False):
    """``tf.compat.v1.nn.max_pool_with_argmax``: (output, argmax) of a MaxPoolWithArgmax op.

    Raises:
        ValueError: a data_format other than NHWC.
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    targmax = _pick(Targmax, output_dtype, "'Targmax' and 'output_dtype'")
    attrs = {"ksize": _get_sequence(ksize, 2, -1, "ksize"),
             "strides": _get_sequence(strides, 2, -1, "strides"), "padding": padding,
             "include_batch_in_index": include_batch_in_index}
    if targmax is not None:
        attrs["Targmax"] = targmax
    op = build_op(current_scope(), "MaxPoolWithArgmax", [input], attrs, name=name)
    return op.outputs[0], op.outputs[1]


def pool(input: Any, window_shape: Any, pooling_type: str, padding: str,
         dilation_rate: Any = None, strides: Any = None, name: str | None = None,
         data_format: str | None = None, dilations: Any = None) -> Output:
    """``tf.compat.v1.nn.pool``: N-D max or average pooling (N = 1, 2, 3).

    Raises:
        ValueError: an unknown pooling_type, or dilation_rate > 1 (tfmini builds no
            SpaceToBatchND for dilated pooling).
    """
    dilation_rate = _pick(dilation_rate, dilations, "'dilations' and 'dilation_rate'")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    x = as_operand(input)
    n = len(window_shape)
    if dilation_rate is not None and any(d != 1 for d in dilation_rate):
        raise ValueError("tfmini's pool supports dilation_rate 1 only, got "
                         f"{list(dilation_rate)}")
    strides = [1] * n if strides is None else list(strides)
    nc = data_format is not None and data_format.startswith("NC")
    op_type = {"MAX": "MaxPool", "AVG": "AvgPool"}[pooling_type]
    with op_scope(name, f"{pooling_type.lower()}_pool") as (outer, base):
        if n == 1:
            axis = 2 if nc else 1
            fmt = "NCHW" if nc else "NHWC"
            y = _pool2d(op_type, array_ops.expand_dims(x, axis), [1, window_shape[0]],
                        [1, strides[0]], padding, fmt, None)
            return build_op(outer, "Squeeze", [y], {"squeeze_dims": [axis]},
                            name=base).outputs[0]
        if n == 2:
            fmt = "NCHW" if nc else "NHWC"
            ci = _channel_index(fmt)
            return build_op(outer, op_type, [x], {
                "ksize": _get_sequence(window_shape, 2, ci, "ksize"),
                "strides": _get_sequence(strides, 2, ci, "strides"), "padding": padding,
                "data_format": fmt}, name=base).outputs[0]
        if n == 3:
            fmt = "NCDHW" if nc else "NDHWC"
            ci = _channel_index(fmt)
            return build_op(outer, op_type + "3D", [x], {
                "ksize": _get_sequence(window_shape, 3, ci, "ksize"),
                "strides": _get_sequence(strides, 3, ci, "strides"), "padding": padding,
                "data_format": fmt}, name=base).outputs[0]
    raise ValueError(f"window_shape must have 1, 2 or 3 entries, got {n}")
