"""Records TensorFlow's gradients of small composite graphs into tests/goldens/gradients.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_gradients.py

Each case builds a graph with ``tf.compat.v1`` in graph mode and records its inputs under
``<case>/in/<name>`` and what ``tf.compat.v1.gradients`` gives under ``<case>/grad/<name>``.
A gradient that is an IndexedSlices is recorded as ``<case>/grad/<name>/values``,
``.../indices`` and ``.../dense_shape`` plus its densified sum ``.../dense``; a None gradient
as an entry of ``<case>/none``. tests/test_gradients_golden.py builds the same graphs with
tfmini. Inputs come from fixed seeds, so re-running gives the same file.
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
tf1.disable_eager_execution()

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "gradients.npz"
RNG = np.random.default_rng(20240612)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    records[key] = np.asarray(value)


def normal(*shape, dtype=np.float64):
    return RNG.normal(size=shape).astype(dtype)


def record(case: str, inputs: dict, grads: dict, sess, feeds: dict) -> None:
    """Stores the inputs and runs the named gradients (Tensor, IndexedSlices or None)."""
    for name, value in inputs.items():
        put(f"{case}/in/{name}", value)
    nones = [name for name, g in grads.items() if g is None]
    put(f"{case}/none", np.array(nones, dtype=str))
    for name, g in grads.items():
        if g is None:
            continue
        if isinstance(g, tf.IndexedSlices):
            values, indices, dense_shape, dense = sess.run(
                [g.values, g.indices, g.dense_shape, tf.convert_to_tensor(g)], feeds)
            put(f"{case}/grad/{name}/values", values)
            put(f"{case}/grad/{name}/indices", indices)
            put(f"{case}/grad/{name}/dense_shape", dense_shape)
            put(f"{case}/grad/{name}/dense", dense)
        else:
            put(f"{case}/grad/{name}", sess.run(g, feeds))


def mlp(case: str, sparse: bool) -> None:
    """x -> relu(x W1 + b1) -> sigmoid(h W2 + b2) -> logits; mean softmax cross entropy."""
    inputs = {"x": normal(4, 5, dtype=np.float32)}
    for i, (m, n) in enumerate([(5, 6), (6, 4), (4, 3)], 1):
        inputs[f"w{i}"] = (normal(m, n) / np.sqrt(m)).astype(np.float32)
        inputs[f"b{i}"] = (0.1 * normal(n)).astype(np.float32)
    labels = RNG.integers(0, 3, size=4).astype(np.int32)
    inputs["labels"] = labels if sparse else np.eye(3, dtype=np.float32)[labels]
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [None, 5], name="x")
        v = {k: tf1.Variable(inputs[k], name=k, use_resource=True)
             for k in ("w1", "b1", "w2", "b2", "w3", "b3")}
        h1 = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, v["w1"]), v["b1"]))
        h2 = tf.sigmoid(tf.matmul(h1, v["w2"]) + v["b2"])
        logits = tf.nn.bias_add(tf.matmul(h2, v["w3"]), v["b3"])
        if sparse:
            xent = tf1.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.constant(labels), logits=logits)
        else:
            xent = tf1.nn.softmax_cross_entropy_with_logits_v2(
                labels=tf.constant(inputs["labels"]), logits=logits)
        loss = tf.reduce_mean(xent)
        names = list(v) + ["x"]
        grads = tf1.gradients(loss, [v[k] for k in v] + [x])
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            feeds = {x: inputs["x"]}
            put(f"{case}/loss", sess.run(loss, feeds))
            record(case, inputs, dict(zip(names, grads)), sess, feeds)


def embedding() -> None:
    """Two gathers of one embedding variable (sparse gradient) and one of a dense tensor."""
    case = "embedding"
    inputs = {"table": normal(10, 4), "ids1": np.array([[1, 3], [3, 7]], np.int32),
              "ids2": np.array([2, 3, 3], np.int64), "w": normal(2, 4), "dense": normal(5, 4)}
    g = tf.Graph()
    with g.as_default():
        table = tf1.Variable(inputs["table"], name="table", use_resource=True)
        dense = tf1.placeholder(tf.float64, [5, 4], name="dense")
        e1 = tf.reduce_mean(tf.gather(table, inputs["ids1"]), axis=1)  # [2, 4]
        e2 = tf.gather(table, inputs["ids2"])  # [3, 4]
        e3 = tf.gather(dense, [4, 0, 4])
        y = (tf.reduce_sum(tf.tanh(e1) * inputs["w"]) + tf.reduce_sum(tf.square(e2))
             + tf.reduce_sum(e3 * e2))
        single = tf.reduce_sum(tf.gather(table, inputs["ids1"]) * 2.0)
        g_all = tf1.gradients(y, [table, dense])
        g_single = tf1.gradients(single, [table])
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            feeds = {dense: inputs["dense"]}
            record(case, inputs, {"table": g_all[0], "dense": g_all[1]}, sess, feeds)
            record("embedding_single", {}, {"table": g_single[0]}, sess, feeds)


def shapes() -> None:
    """Reshape, transpose, strided slices (with negative strides, new and shrunk axes), slice,
    concat, tile, expand_dims and squeeze in one chain."""
    case = "shapes"
    inputs = {"x": normal(2, 3, 4), "w": normal(3, 4)}
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float64, [2, 3, 4], name="x")
        t = tf.reshape(tf.transpose(x, [2, 0, 1]), [4, 6])  # [4, 6]
        s = t[1:, ::2]  # [3, 3]
        r = t[::-1, tf.newaxis, 5]  # [4, 1]
        c = tf.concat([s, tf.tile(tf.squeeze(r, 1)[:3, None], [1, 1])], axis=1)  # [3, 4]
        z = tf.expand_dims(tf.slice(x, [1, 0, 1], [1, 3, 3]), 0)[0, 0]  # [3, 3]
        y = tf.reduce_sum(c * inputs["w"]) + tf.reduce_sum(z * c[:, 1:])
        grads = tf1.gradients(y, [x])
        with tf1.Session() as sess:
            record(case, inputs, {"x": grads[0]}, sess, {x: inputs["x"]})


def math_chain() -> None:
    """Broadcasting arithmetic, pow, exp/log, keep-dims reductions; several ys, grad_ys,
    stop_gradients, an unconnected x (None and zeros)."""
    inputs = {"x": normal(2, 3), "y": normal(3), "z": normal(2, 1),
              "w": np.abs(normal(1, 3)) + 0.5, "gy1": normal(2, 3), "gy2": normal(1, 3)}
    g = tf.Graph()
    with g.as_default():
        ph = {k: tf1.placeholder(tf.float64, inputs[k].shape, name=k) for k in "xyzw"}
        x, y, z, w = ph["x"], ph["y"], ph["z"], ph["w"]
        unused = tf1.placeholder(tf.float64, [4], name="unused")
        f = x * y + z / w  # [2, 3]
        p = tf.pow(tf.square(f) + 1.0, 0.5 * w)  # [2, 3]
        e = tf.math.log(tf.exp(0.5 * x) + tf.square(z))  # [2, 3]
        s = tf.reduce_sum(f, axis=1, keepdims=True) * tf.reduce_mean(p, axis=0, keepdims=True)
        m = tf.reduce_max(e * y, axis=0, keepdims=True) - tf.reduce_prod(w, keepdims=True)
        y1 = s + e  # [2, 3]
        y2 = m * tf.reduce_sum(p, axis=0, keepdims=True)  # [1, 3]
        xs = [x, y, z, w]
        feeds = {ph[k]: inputs[k] for k in "xyzw"}
        with tf1.Session() as sess:
            def run(case, ys, **kw):
                grads = tf1.gradients(ys, xs + [unused], **kw)
                record(case, {}, dict(zip(["x", "y", "z", "w", "unused"], grads)), sess, feeds)

            for k in "xyzw":
                put(f"math/in/{k}", inputs[k])
            run("math/y1", y1)
            run("math/sum", [y1, y2])
            put("math/in/gy1", inputs["gy1"])
            put("math/in/gy2", inputs["gy2"])
            run("math/grad_ys", [y1, y2], grad_ys=[inputs["gy1"], inputs["gy2"]])
            run("math/stop", [y1, y2], stop_gradients=[f, e])
            run("math/zero", y2, unconnected_gradients="zero")


mlp("mlp_dense", sparse=False)
mlp("mlp_sparse", sparse=True)
embedding()
shapes()
math_chain()

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")
