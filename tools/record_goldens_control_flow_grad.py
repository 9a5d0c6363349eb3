"""Records TensorFlow's gradients through cond and while_loop into
tests/goldens/control_flow_grad.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_control_flow_grad.py

The graphs are built with ``tf.compat.v1`` in graph mode (control flow v2: If/While ops) and
differentiated with ``tf.gradients``; tests/test_control_flow_grad.py builds the same graphs
with tfmini. Keys are ``<case>/<name>``: the fed inputs, the output gradient ``dy`` and the
gradients (``d_<input>``; ``<case>/<variant>/d_<input>`` where one graph runs several times).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_eager_execution()

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "control_flow_grad.npz"
RNG = np.random.default_rng(20240613)

records: dict[str, np.ndarray] = {}


def put(key: str, value) -> None:
    assert key not in records, key
    assert value is not None, f"{key}: TensorFlow gave no gradient"
    records[key] = np.asarray(value)


def rand(*shape) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape)


def cond_capture() -> None:
    """A cond whose branches capture a placeholder, a constant and (true branch only) a
    variable; the predicate is fed True and then False in one Session."""
    x_value, c_value, w_value, dy_value = rand(3), rand(3), rand(3), rand(3)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.placeholder(tf.float64, [3], name="x")
        c = tf.constant(c_value)
        w = tf.Variable(w_value, use_resource=True)
        y = tf.cond(p, lambda: tf.sin(x) * c * w, lambda: tf.square(x) * c)
        grads = tf.gradients(y, [x, c, w], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for name, taken in [("true", True), ("false", False)]:
                values = sess.run(grads, {p: taken, x: x_value})
                for key, v in zip(["x", "c", "w"], values):
                    put(f"cond_capture/{name}/d_{key}", v)
    put("cond_capture/x", x_value)
    put("cond_capture/c", c_value)
    put("cond_capture/w", w_value)
    put("cond_capture/dy", dy_value)


def nested_cond() -> None:
    """A cond in a cond's true branch; the inner one captures a tensor from outside both."""
    x_value, k_value, dy_value = rand(4), rand(4), rand(4)
    with tf.Graph().as_default():
        p1 = tf.placeholder(tf.bool, [], name="p1")
        p2 = tf.placeholder(tf.bool, [], name="p2")
        x = tf.placeholder(tf.float64, [4], name="x")
        k = tf.placeholder(tf.float64, [4], name="k")
        y = tf.cond(
            p1,
            lambda: tf.cond(p2, lambda: x * k, lambda: tf.sin(x) * x),
            lambda: tf.square(x) + k,
        )
        grads = tf.gradients(y, [x, k], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            for b1 in (True, False):
                for b2 in (True, False):
                    values = sess.run(grads, {p1: b1, p2: b2, x: x_value, k: k_value})
                    for key, v in zip(["x", "k"], values):
                        put(f"nested_cond/{int(b1)}{int(b2)}/d_{key}", v)
    put("nested_cond/x", x_value)
    put("nested_cond/k", k_value)
    put("nested_cond/dy", dy_value)


def pow_loop() -> None:
    """x**5 by five multiplications; x is captured by the body."""
    x_value, dy_value = rand(3), rand(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3], name="x")
        _, y = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x),
                             [tf.constant(0), tf.ones([3], tf.float64)])
        (dx,) = tf.gradients(y, [x], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            put("pow_loop/d_x", sess.run(dx, {x: x_value}))
    put("pow_loop/x", x_value)
    put("pow_loop/dy", dy_value)


def rnn() -> None:
    """h <- tanh(h @ W + seq[i] @ U + b) for the six steps of seq; W, U, b, seq captured
    (seq[i] is a gather: its gradient is sparse inside the body)."""
    h_value, w_value, u_value, b_value = rand(2, 4), rand(4, 4), rand(3, 4), rand(4)
    seq_value, dy_value = rand(6, 2, 3), rand(2, 4)
    names = ["h0", "w", "u", "b", "seq"]
    with tf.Graph().as_default():
        h0 = tf.placeholder(tf.float64, [2, 4], name="h0")
        w = tf.placeholder(tf.float64, [4, 4], name="w")
        u = tf.placeholder(tf.float64, [3, 4], name="u")
        b = tf.placeholder(tf.float64, [4], name="b")
        seq = tf.placeholder(tf.float64, [6, 2, 3], name="seq")

        def body(i, h):
            x = tf.gather(seq, i)
            return i + 1, tf.tanh(tf.matmul(h, w) + tf.matmul(x, u) + b)

        _, h = tf.while_loop(lambda i, h: i < 6, body, [tf.constant(0), h0])
        inputs = [h0, w, u, b, seq]
        grads = tf.gradients(h, inputs, grad_ys=tf.constant(dy_value))
        grads = [tf.convert_to_tensor(g) for g in grads]
        fed = [h_value, w_value, u_value, b_value, seq_value]
        with tf.Session() as sess:
            values = sess.run(grads, dict(zip(inputs, fed)))
    for key, v, x in zip(names, values, fed):
        put(f"rnn/d_{key}", v)
        put(f"rnn/{key}", x)
    put("rnn/dy", dy_value)


def max_iterations() -> None:
    """a <- a * x + sin(a) under a cond that stays true; maximum_iterations=4 stops it."""
    x_value, a_value, dy_value = rand(3) * 0.5, rand(3) * 0.5, rand(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3], name="x")
        a0 = tf.placeholder(tf.float64, [3], name="a0")
        y = tf.while_loop(lambda a: tf.reduce_sum(a) < 1e6, lambda a: a * x + tf.sin(a), [a0],
                          maximum_iterations=4)
        grads = tf.gradients(y, [x, a0], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            values = sess.run(grads, {x: x_value, a0: a_value})
    for key, v in zip(["x", "a0"], values):
        put(f"max_iterations/d_{key}", v)
    put("max_iterations/x", x_value)
    put("max_iterations/a0", a_value)
    put("max_iterations/dy", dy_value)


def data_dependent() -> None:
    """a <- a * 1.5 + c while sum(a) < 10: the trip count depends on the fed a0 (3 for the
    first value, 0 for the second)."""
    c_value, dy_value = np.array([0.5, 0.25, 0.125]), rand(3)
    a_values = {"some": np.array([1.0, 0.5, 0.25]), "none": np.array([5.0, 4.0, 3.0])}
    with tf.Graph().as_default():
        a0 = tf.placeholder(tf.float64, [3], name="a0")
        c = tf.placeholder(tf.float64, [3], name="c")
        y = tf.while_loop(lambda a: tf.reduce_sum(a) < 10.0, lambda a: a * 1.5 + c, [a0])
        grads = tf.gradients(y, [a0, c], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            for name, a_value in a_values.items():
                values = sess.run(grads + [y], {a0: a_value, c: c_value})
                for key, v in zip(["a0", "c", "y"], values):
                    put(f"data_dependent/{name}/{'' if key == 'y' else 'd_'}{key}", v)
                put(f"data_dependent/{name}/a0", a_value)
    put("data_dependent/c", c_value)
    put("data_dependent/dy", dy_value)


def cond_in_while() -> None:
    """A cond on the loop counter inside the body: a * x for two steps, then sin(a) + x."""
    x_value, a_value, dy_value = rand(3), rand(3), rand(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3], name="x")
        a0 = tf.placeholder(tf.float64, [3], name="a0")

        def body(i, a):
            return i + 1, tf.cond(i < 2, lambda: a * x, lambda: tf.sin(a) + x)

        _, y = tf.while_loop(lambda i, a: i < 5, body, [tf.constant(0), a0])
        grads = tf.gradients(y, [x, a0], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            values = sess.run(grads, {x: x_value, a0: a_value})
    for key, v in zip(["x", "a0"], values):
        put(f"cond_in_while/d_{key}", v)
    put("cond_in_while/x", x_value)
    put("cond_in_while/a0", a_value)
    put("cond_in_while/dy", dy_value)


def variable_in_while() -> None:
    """h <- tanh(h @ W) three times, W a resource variable read inside the body."""
    h_value, w_value, dy_value = rand(2, 4), rand(4, 4), rand(2, 4)
    with tf.Graph().as_default():
        h0 = tf.placeholder(tf.float64, [2, 4], name="h0")
        w = tf.Variable(w_value, use_resource=True)
        _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))),
                             [tf.constant(0), h0])
        grads = tf.gradients(h, [h0, w], grad_ys=tf.constant(dy_value))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(grads, {h0: h_value})
    for key, v in zip(["h0", "w"], values):
        put(f"variable_in_while/d_{key}", v)
    put("variable_in_while/h0", h_value)
    put("variable_in_while/w", w_value)
    put("variable_in_while/dy", dy_value)


def main() -> None:
    for case in (cond_capture, nested_cond, pow_loop, rnn, max_iterations, data_dependent,
                 cond_in_while, variable_in_while):
        case()
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
