"""Records TensorFlow's FusedBatchNorm results into tests/goldens/fused_batch_norm.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_fused_batch_norm.py

TensorFlow's plain (Eigen) CPU kernels are used (``TF_ENABLE_ONEDNN_OPTS=0``): their error
messages are the ones tfmini reproduces, and they agree with the oneDNN kernels on every
specified output.

Keys (``<case>`` names the op, shape, data format, dtype, mode and factor):

* ``fwd/<base>/{x,dy,vectors}`` (base = shape/format/dtype): the inputs, with vectors the
  stacked scale, offset, mean, variance; ``fwd/<base>/<mode>/y`` and ``.../stats`` (stacked
  batch_mean, batch_variance, reserve_space_1, reserve_space_2; the reserve spaces NaN where
  TensorFlow's CPU kernel leaves them unwritten) from ``tf.raw_ops.FusedBatchNormV3``,
  mode ``train``, ``ema`` (exponential_avg_factor 0.5) or ``infer``;
* ``grad/<base>/<mode>/x_backprop`` and ``.../vectors`` (scale_backprop, offset_backprop):
  ``tf.raw_ops.FusedBatchNormGradV3`` fed as TensorFlow's gradient function feeds it;
* ``autodiff/<base>/<mode>/d_x`` and ``.../vectors`` (d_scale, d_offset): ``tf.GradientTape``
  gradients of y weighted by dy (mean and variance get none, asserted while recording);
* ``gradgrad/<case>/<name>``: second-order gradients of FusedBatchNormGradV3 for y_backprop,
  x and scale, given the incoming gradients ggx, ggs, ggo;
* ``v1v2/<case>/<name>``: the older op versions;
* ``fn/<case>/<name>``: ``tf.compat.v1.nn.fused_batch_norm``;
* ``error/<case>/message``: the InvalidArgumentError message of a kernel check (eager),
  ``shape_error/<case>/message``: the ValueError of the graph-mode shape function.

Inputs are small and drawn from fixed seeds, so re-running gives the same file.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import tensorflow as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "fused_batch_norm.npz"
RNG = np.random.default_rng(20240917)
EPS = 0.001

# TensorFlow's test shapes (nn_fused_batchnorm_test.py), the big ones shrunk: the shape is
# the tensor's own shape in its data format.
SHAPES_4D = [(1, 1, 6, 1), (1, 1, 6, 2), (1, 2, 1, 6), (2, 3, 4, 5), (0, 3, 4, 2), (1, 1, 1, 1)]
SHAPES_5D = [(1, 2, 6, 1, 3)]
FORMATS_4D = ("NHWC", "NCHW")
FORMATS_5D = ("NDHWC", "NCDHW")
DTYPES = (np.float16, np.float32)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


def shape_key(shape) -> str:
    return "x".join(str(d) for d in shape)


def channels_of(shape, data_format: str) -> int:
    return shape[1] if data_format[1] == "C" else shape[-1]


def inputs_for(shape, data_format: str, dtype):
    c = channels_of(shape, data_format)
    x = (RNG.normal(size=shape) * 2 + 0.5).astype(dtype)
    scale = RNG.normal(size=c).astype(np.float32)
    offset = RNG.normal(size=c).astype(np.float32)
    mean = RNG.normal(size=c).astype(np.float32)
    variance = RNG.uniform(0.5, 2.0, size=c).astype(np.float32)
    return x, scale, offset, mean, variance


def t(v):
    return tf.constant(v)


def all_cases():
    for shape in SHAPES_4D:
        for fmt in FORMATS_4D:
            yield shape, fmt
    for shape in SHAPES_5D:
        for fmt in FORMATS_5D:
            yield shape, fmt


# ------------------------------------------------------------------------------------------
# Forward, gradient op, autodiff.

MODES = (("train", True, 1.0), ("ema", True, 0.5), ("infer", False, 1.0))
NAN = np.float32(np.nan)

for shape, fmt in all_cases():
    for dtype in DTYPES:
        base = f"{shape_key(shape)}/{fmt}/{np.dtype(dtype).name}"
        x, scale, offset, mean, variance = inputs_for(shape, fmt, dtype)
        dy = RNG.normal(size=shape).astype(dtype)
        put(f"fwd/{base}/x", x)
        put(f"fwd/{base}/dy", dy)
        put(f"fwd/{base}/vectors", np.stack([scale, offset, mean, variance]))
        for mode, training, factor in MODES:
            out = tf.raw_ops.FusedBatchNormV3(
                x=t(x), scale=t(scale), offset=t(offset), mean=t(mean), variance=t(variance),
                epsilon=EPS, exponential_avg_factor=factor, data_format=fmt,
                is_training=training)
            rs = [out.reserve_space_1.numpy(), out.reserve_space_2.numpy()]
            if not training or not x.size:  # TensorFlow's CPU kernel leaves them unwritten
                rs = [np.full_like(v, NAN) for v in rs]
            put(f"fwd/{base}/{mode}/y", out.y.numpy())
            put(f"fwd/{base}/{mode}/stats",
                np.stack([out.batch_mean.numpy(), out.batch_variance.numpy(), *rs]))
            if base == "2x3x4x5/NHWC/float32":
                put(f"fwd/{mode}/reserve_space_3", out.reserve_space_3.numpy())
            if factor != 1.0:
                continue

            # The grad op, fed as TensorFlow's gradient function feeds it. TensorFlow's CPU
            # grad kernel refuses channels-first inference ("only support NHWC"); its
            # gradient function transposes instead (checked under autodiff/).
            rs1 = out.reserve_space_1 if training else t(mean)
            rs2 = out.reserve_space_2 if training else t(variance)
            if training or fmt[1] != "C":
                g = tf.raw_ops.FusedBatchNormGradV3(
                    y_backprop=t(dy), x=t(x), scale=t(scale), reserve_space_1=rs1,
                    reserve_space_2=rs2, reserve_space_3=out.reserve_space_3, epsilon=EPS,
                    data_format=fmt, is_training=training)
                put(f"grad/{base}/{mode}/x_backprop", g.x_backprop.numpy())
                put(f"grad/{base}/{mode}/vectors",
                    np.stack([g.scale_backprop.numpy(), g.offset_backprop.numpy()]))
                if base == "2x3x4x5/NHWC/float32":
                    put(f"grad/{mode}/reserve_space_4", g.reserve_space_4.numpy())
                    put(f"grad/{mode}/reserve_space_5", g.reserve_space_5.numpy())

            # Autodiff of the forward op: the gradient of sum(y * dy).
            xs = [tf.Variable(v) for v in (x, scale, offset, mean, variance)]
            with tf.GradientTape() as tape:
                o = tf.raw_ops.FusedBatchNormV3(
                    x=xs[0], scale=xs[1], offset=xs[2], mean=xs[3], variance=xs[4],
                    epsilon=EPS, data_format=fmt, is_training=training)
            grads = tape.gradient(o.y, xs, output_gradients=t(dy))
            assert grads[3] is None and grads[4] is None  # none for mean and variance
            put(f"autodiff/{base}/{mode}/d_x", grads[0].numpy())
            put(f"autodiff/{base}/{mode}/vectors",
                np.stack([grads[1].numpy(), grads[2].numpy()]))


# ------------------------------------------------------------------------------------------
# Second-order gradients (TensorFlow's BatchNormGradGradConfig shapes).

for shape, fmt, dtype in [((2, 3, 4, 5), "NHWC", np.float32), ((2, 3, 4, 5), "NCHW", np.float32),
                          ((2, 3, 2, 2), "NHWC", np.float16),
                          ((2, 3, 2, 2, 2), "NDHWC", np.float32),
                          ((2, 3, 2, 2, 2), "NCDHW", np.float32)]:
    for training in (True, False):
        if not training and fmt[1] == "C":
            continue  # TensorFlow's CPU grad kernel refuses channels-first inference
        dname = np.dtype(dtype).name
        case = f"gradgrad/{shape_key(shape)}/{fmt}/{dname}/{'train' if training else 'infer'}"
        c = channels_of(shape, fmt)
        x, scale, offset, mean, variance = inputs_for(shape, fmt, dtype)
        dy = RNG.normal(size=shape).astype(dtype)
        ggx = RNG.normal(size=shape).astype(dtype)
        ggs = RNG.normal(size=c).astype(np.float32)
        ggo = RNG.normal(size=c).astype(np.float32)
        if training:
            fwd = tf.raw_ops.FusedBatchNormV3(
                x=t(x), scale=t(scale), offset=t(offset), mean=t(mean), variance=t(variance),
                epsilon=EPS, data_format=fmt, is_training=True)
            rs1, rs2 = fwd.reserve_space_1.numpy(), fwd.reserve_space_2.numpy()
        else:
            rs1, rs2 = mean, variance
        vs = [tf.Variable(v) for v in (dy, x, scale)]
        with tf.GradientTape() as tape:
            g = tf.raw_ops.FusedBatchNormGradV3(
                y_backprop=vs[0], x=vs[1], scale=vs[2], reserve_space_1=t(rs1),
                reserve_space_2=t(rs2), reserve_space_3=t(np.float32(0)), epsilon=EPS,
                data_format=fmt, is_training=training)
        gg = tape.gradient([g.x_backprop, g.scale_backprop, g.offset_backprop], vs,
                           output_gradients=[t(ggx), t(ggs), t(ggo)])
        for k, v in (("y_backprop", dy), ("x", x), ("scale", scale), ("reserve_space_1", rs1),
                     ("reserve_space_2", rs2), ("ggx", ggx), ("ggs", ggs), ("ggo", ggo)):
            put(f"{case}/{k}", v)
        for k, v in zip(("d_y_backprop", "d_x", "d_scale"), gg):
            put(f"{case}/{k}", v.numpy())


# ------------------------------------------------------------------------------------------
# FusedBatchNorm (V1) and FusedBatchNormV2, forward and grad.

for op, gop, dtype, fmt in (("FusedBatchNorm", "FusedBatchNormGrad", np.float32, "NHWC"),
                            ("FusedBatchNorm", "FusedBatchNormGrad", np.float32, "NCHW"),
                            ("FusedBatchNormV2", "FusedBatchNormGradV2", np.float16, "NHWC"),
                            ("FusedBatchNormV2", "FusedBatchNormGradV2", np.float32, "NCHW")):
    for training in (True, False):
        shape = (2, 3, 4, 5)
        case = f"v1v2/{op}/{fmt}/{np.dtype(dtype).name}/{'train' if training else 'infer'}"
        x, scale, offset, mean, variance = inputs_for(shape, fmt, dtype)
        dy = RNG.normal(size=shape).astype(dtype)
        out = getattr(tf.raw_ops, op)(
            x=t(x), scale=t(scale), offset=t(offset), mean=t(mean), variance=t(variance),
            epsilon=EPS, data_format=fmt, is_training=training)
        rs1 = out.reserve_space_1 if training else t(mean)
        rs2 = out.reserve_space_2 if training else t(variance)
        gfmt = fmt if training else "NHWC"
        gx, gdy = (x, dy) if training or fmt == "NHWC" else (
            np.transpose(x, (0, 2, 3, 1)), np.transpose(dy, (0, 2, 3, 1)))
        g = getattr(tf.raw_ops, gop)(
            y_backprop=t(gdy), x=t(gx), scale=t(scale), reserve_space_1=rs1,
            reserve_space_2=rs2, epsilon=EPS, data_format=gfmt, is_training=training)
        for k, v in (("x", x), ("scale", scale), ("offset", offset), ("mean", mean),
                     ("variance", variance), ("y", out.y), ("batch_mean", out.batch_mean),
                     ("batch_variance", out.batch_variance), ("y_backprop", gdy),
                     ("grad_x", gx), ("grad_format", np.array(gfmt)),
                     ("reserve_space_1", rs1), ("reserve_space_2", rs2),
                     ("x_backprop", g.x_backprop), ("scale_backprop", g.scale_backprop),
                     ("offset_backprop", g.offset_backprop),
                     ("reserve_space_3", g.reserve_space_3),
                     ("reserve_space_4", g.reserve_space_4)):
            put(f"{case}/{k}", np.asarray(v))


# ------------------------------------------------------------------------------------------
# tf.compat.v1.nn.fused_batch_norm (graph mode), including an epsilon TF 1.x would have raised.

def record_fn(case: str, x, scale, offset, mean=None, variance=None, **kwargs) -> None:
    g = tf.Graph()
    with g.as_default():
        outs = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, variance, **kwargs)
        names = [op.name for op in g.get_operations()]
        # Grappler rewrites this small graph into ops that lack outputs 1 and 2 ("Node 'bn'
        # (type: 'Const') does not have output 1"); the plain kernels are wanted.
        config = tf.compat.v1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf.compat.v1.Session(graph=g, config=config) as sess:
            values = sess.run(outs)
    for k, v in (("x", x), ("scale", scale), ("offset", offset)):
        put(f"fn/{case}/{k}", v)
    if mean is not None:
        put(f"fn/{case}/mean", mean)
        put(f"fn/{case}/variance", variance)
    for k, v in zip(("y", "running_mean", "running_var"), values):
        put(f"fn/{case}/{k}", v)
    put(f"fn/{case}/op_names", np.array(names))
    put(f"fn/{case}/epsilon", np.float64(outs[0].op.get_attr("epsilon")))


x, scale, offset, mean, variance = inputs_for((2, 3, 4, 2), "NHWC", np.float32)
record_fn("train", x, scale, offset)
record_fn("infer", x, scale, offset, mean, variance, is_training=False, name="bn")
record_fn("ema", x, scale, offset, mean, variance, exponential_avg_factor=0.25)
tiny = (1.0 + RNG.normal(size=(2, 3, 4, 2)) * 1e-4).astype(np.float32)
record_fn("tiny_epsilon", tiny, scale, offset, epsilon=1e-9)
xc = RNG.normal(size=(2, 2, 3, 4)).astype(np.float32)
record_fn("nchw", xc, scale, offset, data_format="NCHW")


# ------------------------------------------------------------------------------------------
# Errors: kernel checks (eager) and shape-function checks (graph mode).

def record_error(case: str, op: str, **inputs) -> None:
    try:
        getattr(tf.raw_ops, op)(**{k: t(v) if isinstance(v, np.ndarray) else v
                                   for k, v in inputs.items()})
    except tf.errors.InvalidArgumentError as e:
        message = e.message.split("[Op:")[0].strip()
        if message.startswith("{{function_node"):
            message = message.split("}} ", 1)[1]
        put(f"error/{case}/message", message)
        return
    raise AssertionError(f"{case}: TensorFlow raised no error")


def record_shape_error(case: str, op: str, shapes: dict, **attrs) -> None:
    g = tf.Graph()
    with g.as_default():
        try:
            getattr(tf.raw_ops, op)(**{k: tf.compat.v1.placeholder(tf.float32, s)
                                       for k, s in shapes.items()}, **attrs)
        except ValueError as e:
            put(f"shape_error/{case}/message", str(e).split(" for '")[0])
            return
    raise AssertionError(f"{case}: TensorFlow raised no error")


f32 = np.float32
X = RNG.normal(size=(2, 2, 1, 2)).astype(f32)
V2, V3, E = np.ones(2, f32), np.ones(3, f32), np.zeros(0, f32)
FWD = dict(x=X, scale=V2, offset=V2, mean=E, variance=E)
record_error("rank3", "FusedBatchNormV3", **{**FWD, "x": X[0]})
record_error("rank6", "FusedBatchNormV3", **{**FWD, "x": X[None, None]}, data_format="NDHWC")
record_error("scale_rank", "FusedBatchNormV3", **{**FWD, "scale": V2[None]})
record_error("offset_rank", "FusedBatchNormV3", **{**FWD, "offset": V2[None]})
record_error("mean_rank", "FusedBatchNormV3", **{**FWD, "mean": V2[None]})
record_error("variance_rank", "FusedBatchNormV3", **{**FWD, "variance": V2[None]})
record_error("scale_size", "FusedBatchNormV3", **{**FWD, "scale": V3})
record_error("offset_size", "FusedBatchNormV3", **{**FWD, "offset": V3})
record_error("infer_mean_size", "FusedBatchNormV3", **{**FWD, "variance": V2}, is_training=False)
record_error("infer_variance_size", "FusedBatchNormV3", **{**FWD, "mean": V2},
             is_training=False)
record_error("ema_mean_size", "FusedBatchNormV3", **{**FWD, "variance": V2},
             exponential_avg_factor=0.5)
record_error("ema_variance_size", "FusedBatchNormV3", **{**FWD, "mean": V2},
             exponential_avg_factor=0.5)
record_error("v1_scale_size", "FusedBatchNorm", **{**FWD, "scale": V3})
record_error("v2_infer_mean_size", "FusedBatchNormV2", **{**FWD, "variance": V2},
             is_training=False)
GRAD = dict(y_backprop=X, x=X, scale=V2, reserve_space_1=V2, reserve_space_2=V2,
            reserve_space_3=E)
record_error("grad_shape", "FusedBatchNormGradV3", **{**GRAD, "y_backprop": X[:1]})
record_error("grad_rank3", "FusedBatchNormGradV3", **{**GRAD, "y_backprop": X[0], "x": X[0]})
record_error("grad_scale_rank", "FusedBatchNormGradV3", **{**GRAD, "scale": V2[None]})
record_error("grad_mean_rank", "FusedBatchNormGradV3", **{**GRAD, "reserve_space_1": V2[None]})
record_error("grad_variance_rank", "FusedBatchNormGradV3",
             **{**GRAD, "reserve_space_2": V2[None]})
record_error("grad_scale_size", "FusedBatchNormGradV3", **{**GRAD, "scale": V3})
record_error("grad_rs1_size", "FusedBatchNormGradV3", **{**GRAD, "reserve_space_1": E})
record_error("grad_rs2_size", "FusedBatchNormGradV3", **{**GRAD, "reserve_space_2": E})
GRAD2 = {k: v for k, v in GRAD.items() if k != "reserve_space_3"}
record_error("grad_v1_rs1_size", "FusedBatchNormGrad", **{**GRAD2, "reserve_space_1": E})
record_error("grad_v2_shape", "FusedBatchNormGradV2", **{**GRAD2, "y_backprop": X[:1]})

S4 = dict(x=[2, 3, 4, 2], scale=[2], offset=[2], mean=[0], variance=[0])
record_shape_error("rank3", "FusedBatchNormV3", {**S4, "x": [2, 3, 4]})
record_shape_error("rank5_nhwc", "FusedBatchNormV3", {**S4, "x": [2, 3, 4, 5, 2]})
record_shape_error("rank4_ndhwc", "FusedBatchNormV3", S4, data_format="NDHWC")
record_shape_error("scale_size", "FusedBatchNormV3", {**S4, "scale": [3]})
record_shape_error("scale_rank", "FusedBatchNormV3", {**S4, "scale": [1, 2]})
record_shape_error("infer_mean_size", "FusedBatchNormV3", {**S4, "variance": [2]},
                   is_training=False)
record_shape_error("ema_mean_size", "FusedBatchNormV3", {**S4, "variance": [2]},
                   exponential_avg_factor=0.5)
GS = dict(y_backprop=[2, 3, 4, 2], x=[2, 3, 4, 2], scale=[2], reserve_space_1=[2],
          reserve_space_2=[2], reserve_space_3=[])
record_shape_error("grad_rs1_size", "FusedBatchNormGradV3", {**GS, "reserve_space_1": [0]})
record_shape_error("grad_channels", "FusedBatchNormGradV3", {**GS, "y_backprop": [2, 3, 4, 3]})
record_shape_error("grad_rank3", "FusedBatchNormGradV3", {**GS, "x": [3, 4, 2]})

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")
