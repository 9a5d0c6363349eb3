"""Records TensorFlow's gradients of the nn family into tests/goldens/nn_grad.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_nn_grad.py

Everything is built in ``tf.compat.v1`` graph mode and differentiated with ``tf.gradients``,
as tfmini's ``tm.gradients`` is. Keys are ``<case>/<name>``: the inputs (``x``, ``dy``, ...)
and the gradients (``grad_x``, ...). Cases:

* ``first/<op>/<dtype>``: one op's gradient for a given upstream gradient;
* ``gradop/<op>``: the gradient of a ``*Grad`` op itself (TensorFlow's second-order rule);
* ``second/<op>``: ``tf.gradients`` of ``tf.gradients`` through the forward op;
* ``composite/...``: small networks (matmul + bias_add + relu + sparse cross entropy,
  sigmoid/tanh layers).

Inputs are small, drawn from fixed seeds and kept away from the kinks of relu-like functions,
so re-running gives the same file.
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
tf1 = tf.compat.v1

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "nn_grad.npz"
RNG = np.random.default_rng(20240612)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


def away_from_kinks(shape, dt, scale: float = 2.0) -> np.ndarray:
    """Values with |x| in [0.2, scale + 0.2] and none within 0.2 of 6 (relu6's upper kink)."""
    mag = RNG.uniform(0.2, scale + 0.2, size=shape)
    x = np.where(RNG.random(size=shape) < 0.5, -mag, mag)
    x = np.where(np.abs(x - 6) < 0.2, x + 0.5, x)
    return x.astype(dt)


def normal(shape, dt=np.float64) -> np.ndarray:
    return RNG.normal(size=shape).astype(dt)


def distributions(shape, dt=np.float64) -> np.ndarray:
    p = RNG.random(size=shape) + 0.1
    return (p / p.sum(axis=-1, keepdims=True)).astype(dt)


def record(case: str, build, inputs: dict[str, np.ndarray]) -> None:
    """Builds ``build(**constants)`` in a fresh graph; it returns ``{name: tensor}`` to store
    under ``<case>/<name>``, next to the inputs."""
    g = tf.Graph()
    with g.as_default():
        consts = {k: tf.constant(v, name=k) for k, v in inputs.items()}
        fetches = build(**consts)
        with tf1.Session(graph=g) as sess:
            values = sess.run(fetches)
    for k, v in inputs.items():
        put(f"{case}/{k}", v)
    for k, v in values.items():
        put(f"{case}/{k}", v)


def grads(ys, xs: dict, grad_ys=None) -> dict:
    """``{"grad_<name>": d ys / d xs[name]}``."""
    names = list(xs)
    out = tf.gradients(ys, [xs[n] for n in names], grad_ys=grad_ys)
    assert all(o is not None for o in out), names
    return {f"grad_{n}": o for n, o in zip(names, out)}


# ------------------------------------------------------------------------------------------
# First order, op by op.

ACTIVATIONS = {
    "relu": tf.nn.relu,
    "relu6": tf.nn.relu6,
    "elu": tf.nn.elu,
    "selu": tf.nn.selu,
    "softplus": tf.nn.softplus,
    "softsign": tf.nn.softsign,
    "leaky_relu": lambda x: tf.nn.leaky_relu(x, alpha=0.3),
}

for dt in (np.float32, np.float64):
    dn = np.dtype(dt).name
    for name, fn in ACTIVATIONS.items():
        scale = 7.0 if name == "relu6" else 2.0
        record(f"first/{name}/{dn}", lambda x, dy, fn=fn: grads(fn(x), {"x": x}, dy),
               {"x": away_from_kinks((3, 4), dt, scale), "dy": normal((3, 4), dt)})
    for name, fn in (("softmax", tf.nn.softmax), ("log_softmax", tf.nn.log_softmax)):
        record(f"first/{name}/{dn}", lambda x, dy, fn=fn: grads(fn(x), {"x": x}, dy),
               {"x": normal((3, 5), dt), "dy": normal((3, 5), dt)})
    record(f"first/bias_add_nhwc/{dn}",
           lambda value, bias, dy: grads(tf.nn.bias_add(value, bias),
                                         {"value": value, "bias": bias}, dy),
           {"value": normal((2, 3, 4), dt), "bias": normal(4, dt), "dy": normal((2, 3, 4), dt)})
    record(f"first/bias_add_nchw/{dn}",
           lambda value, bias, dy: grads(tf.nn.bias_add(value, bias, data_format="NCHW"),
                                         {"value": value, "bias": bias}, dy),
           {"value": normal((2, 3, 2, 2), dt), "bias": normal(3, dt),
            "dy": normal((2, 3, 2, 2), dt)})
    record(f"first/bias_add_v1/{dn}",
           lambda value, bias, dy: grads(tf.raw_ops.BiasAddV1(value=value, bias=bias),
                                         {"value": value, "bias": bias}, dy),
           {"value": normal((2, 3, 4), dt), "bias": normal(4, dt), "dy": normal((2, 3, 4), dt)})
    record(f"first/xent/{dn}",
           lambda logits, labels, dy: grads(
               tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels)[0],
               {"logits": logits, "labels": labels}, dy),
           {"logits": normal((3, 5), dt), "labels": distributions((3, 5), dt),
            "dy": normal(3, dt)})
    record(f"first/sparse_xent/{dn}",
           lambda logits, labels, dy: grads(
               tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits,
                                                              labels=labels)[0],
               {"logits": logits}, dy),
           {"logits": normal((4, 5), dt), "labels": np.array([0, 4, 2, 2], np.int32),
            "dy": normal(4, dt)})
    record(f"first/l2_loss/{dn}",
           lambda x, dy: grads(tf.nn.l2_loss(x), {"x": x}, dy),
           {"x": normal((3, 4), dt), "dy": np.asarray(RNG.normal(), dt)})

# ------------------------------------------------------------------------------------------
# The gradients of the *Grad ops themselves (what TensorFlow registers as their gradients).

GRAD_OPS = {
    "ReluGrad": ("features", None),
    "Relu6Grad": ("features", None),
    "LeakyReluGrad": ("features", None),
    "SoftplusGrad": ("features", None),
    "EluGrad": ("outputs", tf.nn.elu),
    "SeluGrad": ("outputs", tf.nn.selu),
}
for op_type, (second, forward) in GRAD_OPS.items():
    x = away_from_kinks((3, 4), np.float64, 7.0 if op_type == "Relu6Grad" else 2.0)
    if forward is not None:
        x = forward(x).numpy()  # EluGrad and SeluGrad take the activation's outputs
    attrs = {"alpha": 0.3} if op_type == "LeakyReluGrad" else {}

    def build(gradients, other, dy, op_type=op_type, second=second, attrs=attrs):
        y = getattr(tf.raw_ops, op_type)(gradients=gradients, **{second: other}, **attrs)
        return grads(y, {"gradients": gradients, "other": other}, dy)

    record(f"gradop/{op_type}", build,
           {"gradients": normal((3, 4)), "other": x, "dy": normal((3, 4))})

for fmt, shape in (("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))):
    channels = shape[-1] if fmt == "NHWC" else shape[1]
    record(f"gradop/BiasAddGrad/{fmt}",
           lambda out_backprop, dy, fmt=fmt: grads(
               tf.raw_ops.BiasAddGrad(out_backprop=out_backprop, data_format=fmt),
               {"out_backprop": out_backprop}, dy),
           {"out_backprop": normal(shape), "dy": normal(channels)})

# ------------------------------------------------------------------------------------------
# Second order: tf.gradients of tf.gradients through the forward op, w.r.t. the forward
# input and the first upstream gradient. Softsign has none in TensorFlow (LookupError).

SECOND = {k: v for k, v in ACTIVATIONS.items() if k != "softsign"}
SECOND.update({"softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax})
for name, fn in SECOND.items():
    def build(x, dy, ddx, fn=fn):
        (dx,) = tf.gradients(fn(x), [x], grad_ys=dy)
        return grads(dx, {"x": x, "dy": dy}, ddx)

    shape = (3, 5) if "softmax" in name else (3, 4)
    x = (normal(shape) if "softmax" in name
         else away_from_kinks(shape, np.float64, 7.0 if name == "relu6" else 2.0))
    record(f"second/{name}", build, {"x": x, "dy": normal(shape), "ddx": normal(shape)})


def second_xent(logits, labels, dy, ddx):
    loss = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels)[0]
    (dlogits,) = tf.gradients(loss, [logits], grad_ys=dy)
    # TensorFlow's labels gradient ignores the backprop output's gradient: grad_labels here
    # is zero, not the true -ddx * dy. Recorded as TensorFlow computes it.
    return grads(dlogits, {"logits": logits, "labels": labels, "dy": dy}, ddx)


record("second/xent", second_xent,
       {"logits": normal((3, 5)), "labels": distributions((3, 5)), "dy": normal(3),
        "ddx": normal((3, 5))})


def second_sparse_xent(logits, labels, dy, ddx):
    loss = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)[0]
    (dlogits,) = tf.gradients(loss, [logits], grad_ys=dy)
    return grads(dlogits, {"logits": logits, "dy": dy}, ddx)


record("second/sparse_xent", second_sparse_xent,
       {"logits": normal((4, 5)), "labels": np.array([1, 0, 4, 1], np.int32), "dy": normal(4),
        "ddx": normal((4, 5))})


def second_l2_loss(x, dy, ddx):
    (dx,) = tf.gradients(tf.nn.l2_loss(x), [x], grad_ys=dy)
    return grads(dx, {"x": x, "dy": dy}, ddx)


record("second/l2_loss", second_l2_loss,
       {"x": normal((3, 4)), "dy": np.asarray(RNG.normal()), "ddx": normal((3, 4))})

for fmt, shape in (("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))):
    channels = shape[-1] if fmt == "NHWC" else shape[1]

    def second_bias_add(value, bias, dy, ddb, fmt=fmt):
        (db,) = tf.gradients(tf.nn.bias_add(value, bias, data_format=fmt), [bias], grad_ys=dy)
        return grads(db, {"dy": dy}, ddb)

    record(f"second/bias_add/{fmt}", second_bias_add,
           {"value": normal(shape), "bias": normal(channels), "dy": normal(shape),
            "ddb": normal(channels)})

# ------------------------------------------------------------------------------------------
# Composites.


def dense_relu_sparse_xent(x, w, b, labels):
    logits = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))
    loss = tf.reduce_mean(
        tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    return {"loss": loss, **grads(loss, {"x": x, "w": w, "b": b})}


record("composite/dense_relu_sparse_xent", dense_relu_sparse_xent,
       {"x": normal((4, 3)), "w": normal((3, 5)), "b": normal(5) * 0.1,
        "labels": np.array([0, 3, 4, 1], np.int32)})


def sigmoid_tanh_layers(x, w1, b1, w2, b2, labels):
    h = tf.sigmoid(tf.nn.bias_add(tf.matmul(x, w1), b1))
    o = tf.tanh(tf.nn.bias_add(tf.matmul(h, w2), b2))
    xent = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=o, labels=labels)[0]
    loss = tf.reduce_sum(xent) + tf.nn.l2_loss(o)
    return {"loss": loss, **grads(loss, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2})}


record("composite/sigmoid_tanh_layers", sigmoid_tanh_layers,
       {"x": normal((3, 4)), "w1": normal((4, 6)), "b1": normal(6), "w2": normal((6, 5)),
        "b2": normal(5), "labels": distributions((3, 5))})

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")
