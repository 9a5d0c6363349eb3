"""Convolution and pooling cases, written once for both engines.

Each case is a function ``case(tf, inputs)`` building a graph with ``tf`` (``tfmini`` in
tests/ops/nn/test_conv.py, ``tensorflow.compat.v1`` in tools/record_goldens_conv.py) and
returning ``{name: tensor}`` to fetch. ``inputs`` are NumPy arrays from :func:`make_inputs`
(seeded). Gradients are ``tf.gradients`` with random upstream gradients, so each case also
checks the backprop ops (and, for ``*_second`` cases, the gradients of the gradient ops).
ERROR_CASES build something TensorFlow refuses; the recorder stores the error class and
message. This module imports neither TensorFlow nor tfmini.
"""

from __future__ import annotations

import numpy as np


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(ord(c) * (i + 1) for i, c in enumerate(name)))


def _distinct(rng, shape) -> np.ndarray:
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float32) * 0.25 - n * 0.1).reshape(shape)


def _nchw(x):
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))


# ----------------------------------------------------------------------------------------
# Cases: (name, input shapes builder, case function)

CASES: dict = {}


def case(name, **shapes):
    def deco(fn):
        CASES[name] = (shapes, fn)
        return fn
    return deco


def make_inputs(name: str) -> dict[str, np.ndarray]:
    """The seeded inputs of a case; names starting with ``m`` are distinct (max pooling)."""
    rng = _rng(name)
    shapes, _ = CASES[name]
    out = {}
    for key, shape in sorted(shapes.items()):
        if key.startswith("m"):
            out[key] = _distinct(rng, shape)
        else:
            out[key] = rng.normal(size=shape).astype(np.float32)
    return out


def _grads(tf, y, xs: dict, dy) -> dict:
    names = sorted(xs)
    gs = tf.gradients(y, [xs[k] for k in names], grad_ys=dy)
    return {f"d_{k}": g for k, g in zip(names, gs)}


def _const(tf, inputs):
    return {k: tf.constant(v, name=k) for k, v in inputs.items()}


# Conv2D: layouts x paddings x strides x dilations, forward and both gradients.
_CONV2D = [
    ("valid_s1", "VALID", (1, 1), (1, 1)),
    ("same_s2", "SAME", (2, 2), (1, 1)),
    ("same_d2", "SAME", (1, 1), (2, 2)),
    ("valid_s2_d2", "VALID", (2, 1), (1, 2)),
    ("same_s3_k_big", "SAME", (3, 2), (1, 1)),
]


def _conv2d_case(padding, strides, dilations, fmt):
    def fn(tf, inputs):
        c = _const(tf, inputs)
        x = c["x"] if fmt == "NHWC" else tf.transpose(c["x"], [0, 3, 1, 2])
        sp = [1, *strides, 1] if fmt == "NHWC" else [1, 1, *strides]
        dl = [1, *dilations, 1] if fmt == "NHWC" else [1, 1, *dilations]
        y = tf.raw_ops.Conv2D(input=x, filter=c["w"], strides=sp, padding=padding,
                              dilations=dl, data_format=fmt)
        return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}
    return fn


for _n, _p, _s, _d in _CONV2D:
    for _f in ("NHWC", "NCHW"):
        case(f"conv2d/{_n}/{_f}", x=(2, 7, 6, 3), w=(3, 2, 3, 4))(
            _conv2d_case(_p, _s, _d, _f))


# One input channel (a first layer on grey images): tfmini builds the transposed patch
# matrix for it, and all taps' input gradients in one product.
for _f in ("NHWC", "NCHW"):
    case(f"conv2d/one_channel/{_f}", x=(3, 8, 7, 1), w=(3, 3, 1, 4))(
        _conv2d_case("SAME", (1, 1), (1, 1), _f))


def _upstream(tf, y):
    """A deterministic, non-constant upstream gradient of y's shape."""
    flat = tf.cos(tf.cast(tf.range(tf.size(y)), tf.float32) * 0.37)
    return tf.reshape(flat, tf.shape(y))


@case("conv2d/explicit", x=(1, 5, 6, 2), w=(2, 3, 2, 3))
def _conv2d_explicit(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.Conv2D(input=c["x"], filter=c["w"], strides=[1, 2, 1, 1], padding="EXPLICIT",
                          explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0])
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("conv2d/int_value", x=(1, 4, 4, 1), w=(2, 2, 1, 1))
def _conv2d_vector(tf, inputs):
    x = tf.constant(np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1))
    w = tf.constant(np.array([1, 2, 3, 4], np.float32).reshape(2, 2, 1, 1))
    return {"valid": tf.nn.conv2d(x, w, 1, "VALID"), "same": tf.nn.conv2d(x, w, 1, "SAME")}


@case("conv2d_backprop_input/second", w=(3, 3, 2, 4), dy=(2, 3, 3, 4))
def _conv2d_bi_second(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.Conv2DBackpropInput(input_sizes=[2, 6, 5, 2], filter=c["w"],
                                       out_backprop=c["dy"], strides=[1, 2, 2, 1],
                                       padding="SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("conv2d_backprop_filter/second", x=(2, 6, 5, 2), dy=(2, 3, 3, 4))
def _conv2d_bf_second(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.Conv2DBackpropFilter(input=c["x"], filter_sizes=[3, 3, 2, 4],
                                        out_backprop=c["dy"], strides=[1, 2, 2, 1],
                                        padding="SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


def _depthwise_case(padding, strides, dilations, fmt):
    def fn(tf, inputs):
        c = _const(tf, inputs)
        x = c["x"] if fmt == "NHWC" else tf.transpose(c["x"], [0, 3, 1, 2])
        sp = [1, *strides, 1] if fmt == "NHWC" else [1, 1, *strides]
        dl = [1, *dilations, 1] if fmt == "NHWC" else [1, 1, *dilations]
        y = tf.raw_ops.DepthwiseConv2dNative(input=x, filter=c["w"], strides=sp,
                                             padding=padding, dilations=dl, data_format=fmt)
        return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}
    return fn


for _n, _p, _s, _d in _CONV2D[:4]:
    for _f in ("NHWC", "NCHW"):
        case(f"depthwise/{_n}/{_f}", x=(2, 7, 6, 3), w=(3, 2, 3, 2))(
            _depthwise_case(_p, _s, _d, _f))


@case("depthwise_backprop_input/second", w=(2, 2, 3, 2), dy=(1, 3, 3, 6))
def _dw_bi_second(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.DepthwiseConv2dNativeBackpropInput(
        input_sizes=[1, 5, 5, 3], filter=c["w"], out_backprop=c["dy"], strides=[1, 2, 2, 1],
        padding="SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("depthwise_backprop_filter/second", x=(1, 5, 5, 3), dy=(1, 3, 3, 6))
def _dw_bf_second(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.DepthwiseConv2dNativeBackpropFilter(
        input=c["x"], filter_sizes=[2, 2, 3, 2], out_backprop=c["dy"], strides=[1, 2, 2, 1],
        padding="SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


for _n, _p, _s in (("valid", "VALID", (1, 1, 1)), ("same_s2", "SAME", (2, 1, 2))):
    def _conv3d(tf, inputs, _p=_p, _s=_s):
        c = _const(tf, inputs)
        y = tf.raw_ops.Conv3D(input=c["x"], filter=c["w"], strides=[1, *_s, 1], padding=_p)
        return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}
    case(f"conv3d/{_n}", x=(2, 4, 5, 3, 2), w=(2, 3, 2, 2, 3))(_conv3d)


@case("conv3d_backprop/second", w=(2, 2, 2, 2, 3), dy=(1, 2, 2, 2, 3))
def _conv3d_second(tf, inputs):
    c = _const(tf, inputs)
    bi = tf.raw_ops.Conv3DBackpropInputV2(input_sizes=[1, 3, 4, 3, 2], filter=c["w"],
                                          out_backprop=c["dy"], strides=[1, 2, 2, 2, 1],
                                          padding="SAME")
    return {"bi": bi, **_grads(tf, bi, c, _upstream(tf, bi))}


# Pooling
_POOL = [
    ("valid_2x2_s2", "VALID", (2, 2), (2, 2)),
    ("same_3x3_s2", "SAME", (3, 3), (2, 2)),
    ("same_3x2_s1", "SAME", (3, 2), (1, 1)),
    ("valid_3x3_s2", "VALID", (3, 3), (2, 1)),
]


def _pool_case(op, padding, ksize, strides, fmt):
    def fn(tf, inputs):
        c = _const(tf, inputs)
        x = c["mx"] if fmt == "NHWC" else tf.transpose(c["mx"], [0, 3, 1, 2])
        ks = [1, *ksize, 1] if fmt == "NHWC" else [1, 1, *ksize]
        st = [1, *strides, 1] if fmt == "NHWC" else [1, 1, *strides]
        pool = tf.nn.max_pool if op == "max" else tf.nn.avg_pool
        y = pool(x, ks, st, padding, data_format=fmt)
        dy = _upstream(tf, y)
        (dx,) = tf.gradients(y, [c["mx"]], grad_ys=dy)
        out = {"y": y, "d_mx": dx}
        # MaxPoolGradGrad, the gradient of dx in dy: TensorFlow's CPU kernel refuses NCHW
        # ("Default MaxPoolingGradGradOp only supports NHWC on device type CPU").
        if op == "max" and fmt == "NHWC":
            ddx = _upstream(tf, dx) * 2.0
            out["dd"] = tf.gradients(dx, [dy], grad_ys=ddx)[0]
        return out
    return fn


for _op in ("max", "avg"):
    for _n, _p, _k, _s in _POOL:
        for _f in ("NHWC", "NCHW"):
            case(f"{_op}_pool/{_n}/{_f}", mx=(2, 7, 6, 3))(_pool_case(_op, _p, _k, _s, _f))


# Windows that tile the input exactly (stride = window, no padding): tfmini's strided-slab
# path.
for _op in ("max", "avg"):
    for _f in ("NHWC", "NCHW"):
        case(f"{_op}_pool/tiled_2x2/{_f}", mx=(2, 8, 6, 3))(
            _pool_case(_op, "SAME", (2, 2), (2, 2), _f))


@case("max_pool/vector", mx=(1, 1))
def _max_pool_vector(tf, inputs):
    x = tf.constant(np.array([[1, 3, 3, 0], [3, 2, 1, 3], [0, 0, -1, -1], [0, -2, -1, -1]],
                             np.float32).reshape(1, 4, 4, 1))
    y, arg = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    (dx,) = tf.gradients(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [x])
    return {"y": y, "argmax": arg, "dx": dx}


@case("max_pool_v2", mx=(2, 5, 6, 2))
def _max_pool_v2(tf, inputs):
    c = _const(tf, inputs)
    y = tf.raw_ops.MaxPoolV2(input=c["mx"], ksize=tf.constant([1, 2, 3, 1]),
                             strides=tf.constant([1, 2, 2, 1]), padding="SAME")
    dy = _upstream(tf, y)
    (dx,) = tf.gradients(y, [c["mx"]], grad_ys=dy)
    return {"y": y, "d_mx": dx, "dd": tf.gradients(dx, [dy], grad_ys=_upstream(tf, dx))[0]}


for _b in (False, True):
    def _argmax(tf, inputs, _b=_b):
        c = _const(tf, inputs)
        y, arg = tf.nn.max_pool_with_argmax(c["mx"], [1, 3, 2, 1], [1, 2, 2, 1], "SAME",
                                            include_batch_in_index=_b)
        dy = _upstream(tf, y)
        (dx,) = tf.gradients(y, [c["mx"]], grad_ys=dy)
        # No "dd": TensorFlow registers no gradient for MaxPoolGradWithArgmax.
        return {"y": y, "argmax": arg, "d_mx": dx}
    case(f"max_pool_with_argmax/batch_{_b}", mx=(2, 5, 6, 2))(_argmax)


for _op in ("max", "avg"):
    for _p, _k, _s in (("VALID", (2, 2, 2), (2, 2, 2)), ("SAME", (3, 2, 2), (2, 1, 2))):
        def _pool3d(tf, inputs, _op=_op, _p=_p, _k=_k, _s=_s):
            c = _const(tf, inputs)
            fn = tf.nn.max_pool3d if _op == "max" else tf.nn.avg_pool3d
            y = fn(c["mx"], [1, *_k, 1], [1, *_s, 1], _p)
            dy = _upstream(tf, y)
            (dx,) = tf.gradients(y, [c["mx"]], grad_ys=dy)
            out = {"y": y, "d_mx": dx}
            if _op == "max":
                out["dd"] = tf.gradients(dx, [dy], grad_ys=_upstream(tf, dx))[0]
            return out
        case(f"{_op}_pool3d/{_p}", mx=(2, 4, 5, 3, 2))(_pool3d)


# TF1 functions
@case("fn/conv1d", x=(2, 9, 3), w=(3, 3, 4))
def _conv1d(tf, inputs):
    c = _const(tf, inputs)
    y = tf.nn.conv1d(c["x"], c["w"], stride=2, padding="SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("fn/conv3d", x=(1, 4, 4, 4, 2), w=(2, 2, 2, 2, 3))
def _conv3d_fn(tf, inputs):
    c = _const(tf, inputs)
    return {"y": tf.nn.conv3d(c["x"], c["w"], [1, 1, 2, 1, 1], "SAME")}


@case("fn/depthwise_rate2", x=(2, 8, 7, 3), w=(3, 3, 3, 2))
def _depthwise_fn(tf, inputs):
    c = _const(tf, inputs)
    y = tf.nn.depthwise_conv2d(c["x"], c["w"], [1, 1, 1, 1], "SAME", rate=[2, 2])
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("fn/separable", x=(2, 7, 7, 3), dw=(3, 3, 3, 2), pw=(1, 1, 6, 5))
def _separable(tf, inputs):
    c = _const(tf, inputs)
    y = tf.nn.separable_conv2d(c["x"], c["dw"], c["pw"], [1, 2, 2, 1], "SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("fn/conv2d_transpose", x=(2, 3, 3, 4), w=(3, 3, 2, 4))
def _transpose(tf, inputs):
    c = _const(tf, inputs)
    y = tf.nn.conv2d_transpose(c["x"], c["w"], [2, 6, 5, 2], [1, 2, 2, 1], "SAME")
    return {"y": y, **_grads(tf, y, c, _upstream(tf, y))}


@case("fn/atrous", x=(1, 9, 8, 2), w=(3, 3, 2, 3))
def _atrous(tf, inputs):
    c = _const(tf, inputs)
    return {"same": tf.nn.atrous_conv2d(c["x"], c["w"], 2, "SAME"),
            "valid": tf.nn.atrous_conv2d(c["x"], c["w"], 3, "VALID")}


@case("fn/convolution", x1=(2, 9, 3), w1=(2, 3, 2), x2=(2, 6, 7, 3), w2=(2, 3, 3, 2),
      x3=(1, 4, 5, 4, 2), w3=(2, 2, 2, 2, 2))
def _convolution(tf, inputs):
    c = _const(tf, inputs)
    return {"r1": tf.nn.convolution(c["x1"], c["w1"], "VALID", dilation_rate=[2]),
            "r2": tf.nn.convolution(c["x2"], c["w2"], "SAME", strides=[2, 1]),
            "r3": tf.nn.convolution(c["x3"], c["w3"], "SAME", dilation_rate=[1, 2, 1])}


@case("fn/pool", mx1=(2, 9, 3), mx2=(2, 7, 6, 3), mx3=(1, 4, 5, 4, 2))
def _pool(tf, inputs):
    c = _const(tf, inputs)
    return {"max1": tf.nn.pool(c["mx1"], [3], "MAX", "SAME", strides=[2]),
            "avg2": tf.nn.pool(c["mx2"], [2, 3], "AVG", "VALID", strides=[1, 2]),
            "max3": tf.nn.pool(c["mx3"], [2, 2, 2], "MAX", "SAME", strides=[2, 2, 2])}


@case("fn/aliases", mx=(2, 7, 6, 3), w=(3, 3, 3, 2))
def _aliases(tf, inputs):
    c = _const(tf, inputs)
    y = tf.nn.depthwise_conv2d_native(c["mx"], c["w"], [1, 1, 1, 1], "VALID")
    return {"max2d": tf.nn.max_pool2d(c["mx"], 2, 2, "SAME"),
            "avg2d": tf.nn.avg_pool2d(c["mx"], 3, 1, "VALID"),
            "dwn": y,
            "bi": tf.nn.conv2d_backprop_input([2, 7, 6, 3], tf.transpose(c["w"], [0, 1, 2, 3]),
                                              y[..., :2], [1, 1, 1, 1], "VALID"),
            "bf": tf.nn.conv2d_backprop_filter(c["mx"], [3, 3, 3, 2], y[..., :2],
                                               [1, 1, 1, 1], "VALID")}


# ----------------------------------------------------------------------------------------
# Errors: (name, builder); the builder raises at build time or returns a tensor to run.

def _x4(tf, shape=(1, 5, 5, 3)):
    return tf.constant(np.ones(shape, np.float32))


ERROR_CASES = {
    "conv_depth_mismatch": lambda tf: tf.nn.conv2d(_x4(tf), _x4(tf, (2, 2, 2, 4)), 1, "SAME"),
    "conv_stride_count": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf), filter=_x4(tf, (2, 2, 3, 4)), strides=[1, 1, 1], padding="SAME"),
    "conv_stride_zero": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf), filter=_x4(tf, (2, 2, 3, 4)), strides=[1, 0, 1, 1], padding="SAME"),
    "conv_batch_stride": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf), filter=_x4(tf, (2, 2, 3, 4)), strides=[2, 1, 1, 1], padding="SAME"),
    "conv_depth_dilation": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf), filter=_x4(tf, (2, 2, 3, 4)), strides=[1, 1, 1, 1], padding="SAME",
        dilations=[1, 1, 1, 2]),
    "conv_valid_too_big": lambda tf: tf.nn.conv2d(_x4(tf, (1, 7, 7, 1)),
                                                  _x4(tf, (8, 8, 1, 1)), 1, "VALID"),
    "conv_explicit_with_same": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf), filter=_x4(tf, (2, 2, 3, 4)), strides=[1, 1, 1, 1], padding="SAME",
        explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0]),
    "conv_rank": lambda tf: tf.raw_ops.Conv2D(
        input=_x4(tf, (5, 5, 3)), filter=_x4(tf, (2, 2, 3, 4)), strides=[1, 1, 1, 1],
        padding="SAME"),
    "convolution_stride_and_dilation": lambda tf: tf.nn.convolution(
        _x4(tf), _x4(tf, (2, 2, 3, 4)), "SAME", strides=[2, 2], dilation_rate=[2, 2]),
    "pool_batch_ksize": lambda tf: tf.nn.max_pool(_x4(tf), [2, 2, 2, 1], [1, 1, 1, 1],
                                                  "VALID"),
    "pool_depth_and_spatial": lambda tf: tf.nn.max_pool(_x4(tf), [1, 2, 2, 3], [1, 1, 1, 3],
                                                        "VALID"),
    "pool_ksize_count": lambda tf: tf.raw_ops.MaxPool(input=_x4(tf), ksize=[1, 2, 2],
                                                      strides=[1, 1, 1, 1], padding="VALID"),
    "pool_valid_too_big": lambda tf: tf.nn.avg_pool(_x4(tf), [1, 6, 6, 1], [1, 1, 1, 1],
                                                    "VALID"),
    "backprop_input_mismatch": lambda tf: tf.raw_ops.Conv2DBackpropInput(
        input_sizes=[1, 5, 5, 3], filter=_x4(tf, (2, 2, 3, 4)),
        out_backprop=_x4(tf, (1, 3, 3, 4)), strides=[1, 1, 1, 1], padding="SAME"),
}
