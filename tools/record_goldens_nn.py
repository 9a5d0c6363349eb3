"""Records TensorFlow's results for the nn op family into tests/goldens/nn.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_nn.py

Keys are ``<case>/<argument>``: the inputs under their OpDef names, the outputs under
theirs (``relu/float32/features``, ``relu/float32/activations``). Cases that go through a
``tf.compat.v1.nn`` function instead of a raw op are under ``fn/...``; run-time error
messages of TensorFlow's kernels are under ``error/<case>/message`` (with their inputs).
Inputs are small and drawn from fixed seeds, so re-running gives the same file.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "nn.npz"
FLOATS = (np.float16, np.float32, np.float64)
RNG = np.random.default_rng(20240611)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


def dname(dt) -> str:
    return np.dtype(dt).name


def extremes(dt) -> np.ndarray:
    """Ordinary values plus the far ends of the dtype's range and values around 0."""
    big = {np.float16: 6.0e4, np.float32: 3.0e38, np.float64: 1.0e300}[dt]
    ordinary = RNG.normal(0.0, 3.0, size=10)
    special = [-big, -1e4 if dt is not np.float16 else -6e3, -100.0, -20.0, -6.0, -1e-3, 0.0,
               1e-3, 5.99, 6.0, 6.01, 20.0, 100.0, 1e4 if dt is not np.float16 else 6e3, big]
    return np.concatenate([ordinary, special]).astype(dt)


def raw(op_type: str, **kwargs):
    # Inputs become tensors of their own dtype first: tf.raw_ops would convert a NumPy array
    # to the default of its type attr (LeakyRelu's T, SparseSoftmax...'s Tlabels) instead.
    inputs = {k: tf.constant(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return getattr(tf.raw_ops, op_type)(**inputs)


def record_raw(case: str, op_type: str, inputs: dict, attrs: dict | None = None,
               outputs: tuple[str, ...] = ()) -> None:
    """Runs ``tf.raw_ops.<op_type>`` and stores its inputs and named outputs."""
    attrs = attrs or {}
    result = raw(op_type, **inputs, **attrs)
    for k, v in inputs.items():
        put(f"{case}/{k}", v)
    if len(outputs) == 1:
        put(f"{case}/{outputs[0]}", result.numpy())
    else:
        for name, value in zip(outputs, result):
            put(f"{case}/{name}", value.numpy())


def record_error(case: str, fn, **inputs) -> None:
    """Stores the message of the InvalidArgumentError TensorFlow raises for ``inputs``."""
    try:
        fn(**{k: tf.constant(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    except tf.errors.InvalidArgumentError as e:
        # Eager messages start with "{{function_node ...}} "; keep the kernel's own words.
        message = e.message.split("[Op:")[0].strip()
        if message.startswith("{{function_node"):
            message = message.split("}} ", 1)[1]
        put(f"error/{case}/message", message)
        for k, v in inputs.items():
            put(f"error/{case}/{k}", v)
        return
    raise AssertionError(f"{case}: TensorFlow raised no error")


# ------------------------------------------------------------------------------------------
# Activations and their gradient helpers.

ACTIVATIONS = ["Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "LeakyRelu"]
for op in ACTIVATIONS:
    for dt in FLOATS:
        x = extremes(dt)
        record_raw(f"{op}/{dname(dt)}", op, {"features": x}, outputs=("activations",))
record_raw("LeakyRelu/alpha0.01", "LeakyRelu", {"features": extremes(np.float32)},
           {"alpha": 0.01}, outputs=("activations",))
for op in ("Relu", "Relu6"):
    for dt in (np.int8, np.int32, np.int64, np.uint8):
        lo = 0 if dt is np.uint8 else -20
        x = np.concatenate([np.arange(lo, 21), [np.iinfo(dt).min, np.iinfo(dt).max]]).astype(dt)
        record_raw(f"{op}/{dname(dt)}", op, {"features": x}, outputs=("activations",))

for dt in FLOATS:
    x = extremes(dt)
    g = RNG.normal(size=x.shape).astype(dt)
    for op in ("ReluGrad", "Relu6Grad", "SoftplusGrad", "SoftsignGrad", "LeakyReluGrad"):
        record_raw(f"{op}/{dname(dt)}", op, {"gradients": g, "features": x},
                   outputs=("backprops",))
    for op, fwd in (("EluGrad", "Elu"), ("SeluGrad", "Selu")):
        y = raw(fwd, features=x).numpy()
        record_raw(f"{op}/{dname(dt)}", op, {"gradients": g, "outputs": y},
                   outputs=("backprops",))
record_raw("LeakyReluGrad/alpha0.3", "LeakyReluGrad",
           {"gradients": RNG.normal(size=6).astype(np.float32),
            "features": np.array([-2, -0.5, 0, 0.5, 2, 3], np.float32)},
           {"alpha": 0.3}, outputs=("backprops",))
record_raw("ReluGrad/int32", "ReluGrad",
           {"gradients": np.arange(-3, 3, dtype=np.int32),
            "features": np.array([-2, -1, 0, 1, 2, 3], np.int32)}, outputs=("backprops",))

# ------------------------------------------------------------------------------------------
# Softmax, LogSoftmax.

for dt in FLOATS:
    big = 6.0e4 if dt is np.float16 else 1.0e4
    logits = np.concatenate([
        RNG.normal(0, 3, size=(4, 5)),
        [[big, big, big, big, big],
         [-big, 0, big, 1, 2],
         [big, -big, -big, -big, -big],
         [-big, -big, -big, -big, -big],
         [1000, 0, -1000, 500, -500]],
    ]).astype(dt)
    for op, out in (("Softmax", "softmax"), ("LogSoftmax", "logsoftmax")):
        record_raw(f"{op}/{dname(dt)}", op, {"logits": logits}, outputs=(out,))
x3 = RNG.normal(0, 2, size=(2, 3, 4)).astype(np.float32)
record_raw("Softmax/rank3", "Softmax", {"logits": x3}, outputs=("softmax",))
record_raw("Softmax/rank1", "Softmax", {"logits": x3[0, 0]}, outputs=("softmax",))
record_raw("LogSoftmax/rank3", "LogSoftmax", {"logits": x3}, outputs=("logsoftmax",))
for axis in (0, 1, -2):
    put(f"fn/softmax/axis{axis}/logits", x3)
    put(f"fn/softmax/axis{axis}/output", tf.compat.v1.nn.softmax(x3, axis=axis).numpy())
    put(f"fn/log_softmax/axis{axis}/output",
        tf.compat.v1.nn.log_softmax(x3, axis=axis).numpy())

# ------------------------------------------------------------------------------------------
# BiasAdd, BiasAddV1, BiasAddGrad.

BIAS_CASES = [("NHWC", (3, 4)), ("NHWC", (2, 3, 2, 4)), ("NCHW", (2, 4, 3)),
              ("NCHW", (2, 4, 2, 3)), ("NCHW", (2, 4, 1, 2, 3))]
for fmt, shape in BIAS_CASES:
    channels = shape[-1] if fmt == "NHWC" else shape[1]
    for dt in (*FLOATS, np.int32):
        value = (RNG.normal(0, 5, size=shape)).astype(dt)
        bias = (RNG.normal(0, 5, size=channels)).astype(dt)
        case = f"BiasAdd/{fmt}/rank{len(shape)}/{dname(dt)}"
        record_raw(case, "BiasAdd", {"value": value, "bias": bias}, {"data_format": fmt},
                   outputs=("output",))
    grad = RNG.normal(size=shape).astype(np.float32)
    record_raw(f"BiasAddGrad/{fmt}/rank{len(shape)}", "BiasAddGrad", {"out_backprop": grad},
               {"data_format": fmt}, outputs=("output",))
record_raw("BiasAddV1/float32", "BiasAddV1",
           {"value": RNG.normal(size=(2, 3, 4)).astype(np.float32),
            "bias": RNG.normal(size=4).astype(np.float32)}, outputs=("output",))
record_raw("BiasAddGrad/float16", "BiasAddGrad",
           {"out_backprop": RNG.normal(size=(5, 3)).astype(np.float16)}, outputs=("output",))

# ------------------------------------------------------------------------------------------
# Cross entropies (raw ops).


def distributions(shape, dt):
    p = RNG.random(size=shape)
    return (p / p.sum(axis=-1, keepdims=True)).astype(dt)


for dt in FLOATS:
    big = 6.0e4 if dt is np.float16 else 1.0e4
    features = np.concatenate([
        RNG.normal(0, 3, size=(3, 4)),
        [[big, 0, -big, 1], [-big, -big, -big, -big], [1000, -1000, 0, 999]],
    ]).astype(dt)
    labels = distributions(features.shape, dt)
    labels[3] = np.array([0, 0, 1, 0], dt)  # all mass on the class with the smallest logit
    record_raw(f"SoftmaxCrossEntropyWithLogits/{dname(dt)}", "SoftmaxCrossEntropyWithLogits",
               {"features": features, "labels": labels}, outputs=("loss", "backprop"))
    for tl in (np.int32, np.int64):
        sparse = np.array([0, 3, 1, 2, 0, 1], tl)
        record_raw(f"SparseSoftmaxCrossEntropyWithLogits/{dname(dt)}/{dname(tl)}",
                   "SparseSoftmaxCrossEntropyWithLogits",
                   {"features": features, "labels": sparse}, outputs=("loss", "backprop"))
f = RNG.normal(size=(3, 4)).astype(np.float32)
record_raw("SoftmaxCrossEntropyWithLogits/broadcast_row", "SoftmaxCrossEntropyWithLogits",
           {"features": f, "labels": distributions((1, 4), np.float32)},
           outputs=("loss", "backprop"))
record_raw("SoftmaxCrossEntropyWithLogits/broadcast_vector", "SoftmaxCrossEntropyWithLogits",
           {"features": f, "labels": distributions((4,), np.float32)},
           outputs=("loss", "backprop"))
record_raw("SoftmaxCrossEntropyWithLogits/broadcast_features", "SoftmaxCrossEntropyWithLogits",
           {"features": f[:1], "labels": distributions((3, 4), np.float32)},
           outputs=("loss", "backprop"))

# ------------------------------------------------------------------------------------------
# L2Loss.

for dt in FLOATS:
    record_raw(f"L2Loss/{dname(dt)}", "L2Loss", {"t": RNG.normal(0, 2, size=(3, 4)).astype(dt)},
               outputs=("output",))

# ------------------------------------------------------------------------------------------
# tf.compat.v1.nn functions that build more than one op.

v1 = tf.compat.v1.nn
logits3 = RNG.normal(0, 3, size=(2, 3, 5)).astype(np.float32)
labels3 = RNG.integers(0, 5, size=(2, 3)).astype(np.int32)
put("fn/sparse_xent/rank3/logits", logits3)
put("fn/sparse_xent/rank3/labels", labels3)
put("fn/sparse_xent/rank3/loss",
    v1.sparse_softmax_cross_entropy_with_logits(labels=labels3, logits=logits3).numpy())
logits_h = RNG.normal(0, 3, size=(4, 5)).astype(np.float16)
labels_h = RNG.integers(0, 5, size=4).astype(np.int64)
put("fn/sparse_xent/float16/logits", logits_h)
put("fn/sparse_xent/float16/labels", labels_h)
put("fn/sparse_xent/float16/loss",
    v1.sparse_softmax_cross_entropy_with_logits(labels=labels_h, logits=logits_h).numpy())

dist3 = distributions((2, 5, 3), np.float32)
put("fn/xent_v2/axis1/logits", logits3)
put("fn/xent_v2/axis1/labels", np.moveaxis(dist3, -1, 1))
put("fn/xent_v2/axis1/loss", v1.softmax_cross_entropy_with_logits_v2(
    labels=np.moveaxis(dist3, -1, 1), logits=logits3, axis=1).numpy())
dist_last = distributions((2, 3, 5), np.float32)
put("fn/xent_v2/rank3/labels", dist_last)
put("fn/xent_v2/rank3/loss", v1.softmax_cross_entropy_with_logits_v2(
    labels=dist_last, logits=logits3).numpy())
put("fn/xent_v2/float16/logits", logits_h)
put("fn/xent_v2/float16/labels", distributions((4, 5), np.float16))
put("fn/xent_v2/float16/loss", v1.softmax_cross_entropy_with_logits_v2(
    labels=records["fn/xent_v2/float16/labels"], logits=logits_h).numpy())
put("fn/xent_v1/loss", v1.softmax_cross_entropy_with_logits(
    labels=dist_last, logits=logits3).numpy())
put("fn/leaky_relu/int32/features", np.arange(-3, 4, dtype=np.int32))
put("fn/leaky_relu/int32/output", v1.leaky_relu(np.arange(-3, 4, dtype=np.int32)).numpy())

# ------------------------------------------------------------------------------------------
# Run-time errors of the kernels (the messages that tfmini's must contain).

record_error("sparse_label_too_large", tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits,
             features=np.zeros((2, 3), np.float32), labels=np.array([0, 5], np.int32))
record_error("sparse_label_negative", tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits,
             features=np.zeros((4, 3), np.float32), labels=np.array([3, -2, 7, 1], np.int64))
record_error("sparse_no_classes", tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits,
             features=np.zeros((2, 0), np.float32), labels=np.array([0, 0], np.int64))
record_error("xent_not_broadcastable", tf.raw_ops.SoftmaxCrossEntropyWithLogits,
             features=np.zeros((2, 3), np.float32), labels=np.zeros((2, 4), np.float32))
record_error("xent_rank3", tf.raw_ops.SoftmaxCrossEntropyWithLogits,
             features=np.zeros((2, 3, 1), np.float32), labels=np.zeros((2, 3, 1), np.float32))
record_error("bias_mismatch", tf.raw_ops.BiasAdd,
             value=np.zeros((2, 3), np.float32), bias=np.zeros(4, np.float32))
record_error("bias_mismatch_nchw", tf.raw_ops.BiasAdd,
             value=np.zeros((2, 3, 4), np.float32), bias=np.zeros(4, np.float32),
             data_format="NCHW")
record_error("bias_value_rank1", tf.raw_ops.BiasAdd,
             value=np.zeros(3, np.float32), bias=np.zeros(3, np.float32))
record_error("bias_not_vector", tf.raw_ops.BiasAdd,
             value=np.zeros((2, 3), np.float32), bias=np.zeros((1, 3), np.float32))
record_error("bias_grad_rank1", tf.raw_ops.BiasAddGrad, out_backprop=np.zeros(3, np.float32))
record_error("log_softmax_scalar", tf.raw_ops.LogSoftmax, logits=np.float32(1.0))

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes) with TF {tf.__version__}")
