"""Records the io family's goldens with TensorFlow 2.21 (run under /tmp/tfenv).

Writes under tests/goldens/io/:

* ``tf_ckpt/model.ckpt-1.{index,data-00000-of-00001}`` + ``checkpoint``: a checkpoint written by
  ``tf.compat.v1.train.Saver`` after one Adam step on a reference variable ``w`` and a resource
  variable ``b`` (slots ``w/Adam``, ``w/Adam_1``, ``beta1_power``...), and
  ``tf_ckpt_values.npz`` holding every saved value as TensorFlow reads it;
* ``frozen_mlp.pb`` (binary) and ``frozen_mix.pbtxt`` (text): frozen TF1 inference graphs made
  by ``convert_variables_to_constants``, with ``frozen_io.npz`` (inputs and TensorFlow's outputs);
* ``frozen_cnn.pb`` (binary): a frozen TF1 CNN (Conv2D SAME + BiasAdd + Relu + MaxPool, Conv2D
  VALID stride 1 + Relu + MaxPool, Reshape, MatMul + BiasAdd, Softmax) with
  ``frozen_cnn_io.npz`` (a batch of NHWC inputs, TensorFlow's logits and probabilities);
* ``tfmini_verdict.json``: TensorFlow's verdict on ``tfmini_ckpt/model.ckpt`` (written by
  tfmini from the fixed values of ``tests/ops/io/fixture.py``, before this script runs: see
  tools/README.md): ``tf.train.list_variables``, ``load_variable`` compared with the same
  formulas, a ``Saver.restore`` into TensorFlow variables, and inspect_checkpoint's listing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "io")


def record_tf_checkpoint() -> None:
    d = os.path.join(OUT, "tf_ckpt")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    g = tf1.Graph()
    with g.as_default():
        w = tf1.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 4, name="w",
                         use_resource=False)
        b = tf1.get_variable("b", initializer=np.array([0.5, -1.0, 2.0], np.float32),
                             use_resource=True)
        step = tf1.train.get_or_create_global_step()
        loss = tf1.reduce_sum(tf1.square(tf1.matmul(w, tf1.reshape(b, [3, 1]))))
        train = tf1.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train)
            saver.save(sess, os.path.join(d, "model.ckpt"), global_step=1,
                       write_meta_graph=False)
    # Relative paths in the state file, so the folder can live anywhere.
    with open(os.path.join(d, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-1"\n'
                'all_model_checkpoint_paths: "model.ckpt-1"\n')
    reader = tf.train.load_checkpoint(os.path.join(d, "model.ckpt-1"))
    values = {name: reader.get_tensor(name)
              for name in reader.get_variable_to_shape_map()}
    np.savez(os.path.join(OUT, "tf_ckpt_values.npz"), **values)


def _freeze(build, outputs, feeds):
    g = tf1.Graph()
    with g.as_default():
        x, out = build()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            frozen = tf1.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), outputs)
            result = sess.run(out, {x: feeds})
    return frozen, result


def record_frozen() -> None:
    rng = np.random.default_rng(7)

    def mlp():
        x = tf1.placeholder(tf.float32, [None, 6], name="input")
        w1 = tf1.Variable(rng.normal(size=(6, 5)).astype(np.float32), name="w1")
        b1 = tf1.Variable(rng.normal(size=5).astype(np.float32), name="b1")
        w2 = tf1.Variable(rng.normal(size=(5, 3)).astype(np.float32), name="w2")
        h = tf1.nn.relu(tf1.matmul(x, w1) + b1)
        return x, tf1.nn.softmax(tf1.matmul(h, w2), name="output")

    def mix():
        x = tf1.placeholder(tf.float32, [None, 4], name="input")
        w = tf1.Variable(rng.normal(size=(4, 6)).astype(np.float32), name="w")
        b = tf1.Variable(rng.normal(size=6).astype(np.float32), name="b")
        h = tf1.tanh(tf1.nn.bias_add(tf1.matmul(x, w), b))
        r = tf1.reshape(h, [-1, 3, 2])
        s = tf1.reduce_mean(r, axis=2)
        c = tf1.concat([s, tf1.sigmoid(s)], axis=1)
        return x, tf1.identity(c * 2.0 - 1.0, name="output")

    x_mlp = rng.normal(size=(4, 6)).astype(np.float32)
    x_mix = rng.normal(size=(3, 4)).astype(np.float32)
    g_mlp, y_mlp = _freeze(mlp, ["output"], x_mlp)
    g_mix, y_mix = _freeze(mix, ["output"], x_mix)
    tf.io.write_graph(g_mlp, OUT, "frozen_mlp.pb", as_text=False)
    tf.io.write_graph(g_mix, OUT, "frozen_mix.pbtxt", as_text=True)
    np.savez(os.path.join(OUT, "frozen_io.npz"), mlp_x=x_mlp, mlp_y=y_mlp, mix_x=x_mix,
             mix_y=y_mix)


def record_frozen_cnn() -> None:
    rng = np.random.default_rng(11)  # its own stream: the other recordings stay as they are

    def weight(*shape):
        return (rng.normal(size=shape) / np.sqrt(np.prod(shape[:-1]))).astype(np.float32)

    def cnn():
        x = tf1.placeholder(tf.float32, [None, 12, 12, 3], name="input")
        with tf1.name_scope("conv1"):
            h = tf1.nn.conv2d(x, tf1.Variable(weight(3, 3, 3, 8), name="w"), [1, 1, 1, 1],
                              "SAME")
            h = tf1.nn.relu(tf1.nn.bias_add(h, tf1.Variable(weight(8), name="b")))
            h = tf1.nn.max_pool2d(h, 2, 2, "VALID")  # 6x6x8
        with tf1.name_scope("conv2"):
            h = tf1.nn.conv2d(h, tf1.Variable(weight(3, 3, 8, 16), name="w"), [1, 1, 1, 1],
                              "VALID")  # 4x4x16
            h = tf1.nn.relu(tf1.nn.bias_add(h, tf1.Variable(weight(16), name="b")))
            h = tf1.nn.max_pool2d(h, 3, 2, "SAME")  # 2x2x16
        with tf1.name_scope("dense"):
            flat = tf1.reshape(h, [-1, 2 * 2 * 16])
            logits = tf1.nn.bias_add(
                tf1.matmul(flat, tf1.Variable(weight(64, 5), name="w")),
                tf1.Variable(weight(5), name="b"), name="logits")
        return x, [logits, tf1.nn.softmax(logits, name="output")]

    x = rng.normal(size=(3, 12, 12, 3)).astype(np.float32)
    graph, (logits, probs) = _freeze(cnn, ["dense/logits", "output"], x)
    tf.io.write_graph(graph, OUT, "frozen_cnn.pb", as_text=False)
    np.savez(os.path.join(OUT, "frozen_cnn_io.npz"), x=x, logits=logits, output=probs,
             op_types=np.array(sorted({n.op for n in graph.node})))


def record_verdict() -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from tests.ops.io.fixture import VALUES  # plain NumPy: no tfmini import

    prefix = os.path.join(OUT, "tfmini_ckpt", "model.ckpt")
    verdict: dict = {"listed": [[n, s] for n, s in tf.train.list_variables(prefix)]}
    equal = {}
    for name, value in VALUES.items():
        got = tf.train.load_variable(prefix, name)
        equal[name] = bool(got.dtype == value.dtype and np.array_equal(got, value))
    verdict["load_variable_equal"] = equal
    g = tf1.Graph()
    with g.as_default():
        made = {name: tf1.Variable(np.zeros_like(v), name=name, use_resource=bool(i % 2))
                for i, (name, v) in enumerate(VALUES.items())}
        saver = tf1.train.Saver(list(made.values()))
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            restored = sess.run({n: v for n, v in made.items()})
    verdict["saver_restore_equal"] = {n: bool(np.array_equal(restored[n], VALUES[n]))
                                      for n in VALUES}
    from tensorflow.python.tools import inspect_checkpoint

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        inspect_checkpoint.print_tensors_in_checkpoint_file(prefix, "", False)
    verdict["inspect_checkpoint"] = buf.getvalue().splitlines()
    with open(os.path.join(OUT, "tfmini_verdict.json"), "w") as f:
        json.dump(verdict, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    record_tf_checkpoint()
    record_frozen()
    record_frozen_cnn()
    record_verdict()
