"""Contract samples for the convolution and pooling ops (tfmini/ops/nn/conv_ops.py,
pooling_ops.py): odd sizes, strides, dilations, both layouts, so the registry-wide checks
(kernel vs shape function, gradients vs finite differences) see the general case."""

import numpy as np

import tfmini as tm


def _x(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


def _distinct(shape, seed=0):
    # Max pooling is differentiable only away from ties: distinct, well separated values.
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.37 - n * 0.1).reshape(shape)


def _f32(v):
    return np.asarray(v, np.float32)


def _i32(v):
    return np.array(v, np.int32)


_C2 = {"strides": [1, 2, 1, 1], "padding": "SAME", "dilations": [1, 1, 2, 1]}
_C2_NCHW = {"strides": [1, 1, 1, 2], "padding": "VALID", "data_format": "NCHW"}
_EXPLICIT = {"strides": [1, 1, 2, 1], "padding": "EXPLICIT",
             "explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]}
_C3 = {"strides": [1, 1, 2, 1, 1], "padding": "SAME"}
_P2 = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"}
_P2_NCHW = {"ksize": [1, 1, 2, 2], "strides": [1, 1, 2, 2], "padding": "VALID",
            "data_format": "NCHW"}
_P3 = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 2, 1, 1], "padding": "SAME"}
_ARG = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"}

# Shapes: x (2,5,4,3) with a (3,2,3,4) filter; SAME stride (2,1) dilation (2,1) -> (2,3,4,4).
SAMPLES = {
    "Conv2D": lambda: ([_x((2, 5, 4, 3)), _x((3, 2, 3, 4), 1)], _C2),
    "Conv2DBackpropInput": lambda: (
        [_i32([2, 5, 4, 3]), _x((3, 2, 3, 4), 1), _x((2, 3, 4, 4), 2)], _C2),
    "Conv2DBackpropFilter": lambda: (
        [_x((2, 4, 5, 6)), _i32([2, 2, 4, 2]), _x((2, 2, 4, 3), 2)], _C2_NCHW),
    "DepthwiseConv2dNative": lambda: ([_x((1, 4, 5, 2)), _x((2, 2, 2, 3), 1)], _EXPLICIT),
    "DepthwiseConv2dNativeBackpropInput": lambda: (
        [_i32([1, 4, 5, 2]), _x((2, 2, 2, 3), 1), _x((1, 6, 3, 6), 2)], _EXPLICIT),
    "DepthwiseConv2dNativeBackpropFilter": lambda: (
        [_x((1, 4, 5, 2)), _i32([2, 2, 2, 3]), _x((1, 6, 3, 6), 2)], _EXPLICIT),
    "Conv3D": lambda: ([_x((1, 3, 4, 3, 2)), _x((2, 2, 1, 2, 3), 1)], _C3),
    "Conv3DBackpropInputV2": lambda: (
        [_i32([1, 3, 4, 3, 2]), _x((2, 2, 1, 2, 3), 1), _x((1, 3, 2, 3, 3), 2)], _C3),
    "Conv3DBackpropFilterV2": lambda: (
        [_x((1, 3, 4, 3, 2)), _i32([2, 2, 1, 2, 3]), _x((1, 3, 2, 3, 3), 2)], _C3),
    "MaxPool": lambda: ([_distinct((2, 5, 4, 2))], _P2),
    "MaxPoolV2": lambda: ([_distinct((1, 2, 4, 5)), _i32([1, 1, 2, 2]), _i32([1, 1, 2, 2])],
                          {"padding": "VALID", "data_format": "NCHW"}),
    "AvgPool": lambda: ([_x((2, 5, 4, 2))], _P2),
    "MaxPoolGrad": lambda: (
        [_distinct((1, 2, 4, 5)), _distinct((1, 2, 2, 2), 1), _x((1, 2, 2, 2), 2)], _P2_NCHW),
    "MaxPoolGradV2": lambda: (
        [_distinct((2, 5, 4, 2)), _x((2, 3, 4, 2), 1), _x((2, 3, 4, 2), 2),
         _i32([1, 3, 2, 1]), _i32([1, 2, 1, 1])], {"padding": "SAME"}),
    "AvgPoolGrad": lambda: ([_i32([2, 5, 4, 2]), _x((2, 3, 4, 2), 2)], _P2),
    "MaxPoolGradGrad": lambda: (
        [_distinct((2, 5, 4, 2)), _x((2, 3, 4, 2), 1), _x((2, 5, 4, 2), 2)], _P2),
    "MaxPoolGradGradV2": lambda: (
        [_distinct((2, 5, 4, 2)), _x((2, 3, 4, 2), 1), _x((2, 5, 4, 2), 2),
         _i32([1, 3, 2, 1]), _i32([1, 2, 1, 1])], {"padding": "SAME"}),
    "MaxPool3D": lambda: ([_distinct((1, 3, 4, 3, 2)).astype(np.float32)], _P3),
    "AvgPool3D": lambda: ([_x((1, 3, 4, 3, 2))], _P3),
    "MaxPool3DGrad": lambda: (
        [_distinct((1, 3, 4, 3, 2)).astype(np.float32), _x((1, 3, 2, 3, 2), 1).astype(
            np.float32), _x((1, 3, 2, 3, 2), 2).astype(np.float32)], _P3),
    "AvgPool3DGrad": lambda: ([_i32([1, 3, 4, 3, 2]), _x((1, 3, 2, 3, 2), 2)], _P3),
    # float32: its gradient is MaxPool3DGrad, which (as in TensorFlow) has no float64.
    "MaxPool3DGradGrad": lambda: (
        [_f32(_distinct((1, 3, 4, 3, 2))), _f32(_x((1, 3, 2, 3, 2), 1)),
         _f32(_x((1, 3, 4, 3, 2), 2))], {**_P3, "T": tm.float32}),
    "MaxPoolWithArgmax": lambda: ([_distinct((2, 5, 4, 2))], _ARG),
    "MaxPoolGradWithArgmax": lambda: (
        [_distinct((2, 5, 4, 2)), _x((2, 3, 4, 2), 2),
         np.arange(24).reshape(2, 3, 4, 1) % 40 * np.ones((1, 1, 1, 2), np.int64)],
        {**_ARG, "include_batch_in_index": False}),
    "MaxPoolGradGradWithArgmax": lambda: (
        [_distinct((2, 5, 4, 2)), _x((2, 5, 4, 2), 2),
         np.arange(24).reshape(2, 3, 4, 1) % 40 * np.ones((1, 1, 1, 2), np.int64)],
        {**_ARG, "include_batch_in_index": False}),
}
