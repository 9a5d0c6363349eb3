"""Porting acceptance: small TF1 graph-mode scripts, as users write them, run under tfmini.

Each script below is written once, as a function taking the module ``tf`` (``tfmini`` here,
``tensorflow.compat.v1`` in ``tools/record_goldens_porting.py``) and, where the two spell a
class differently, the class. It builds a graph with deterministic inputs and initial values,
trains a few steps, and returns its numbers as a dict. The test runs it under tfmini and
compares with the numbers TensorFlow 2.21 gave for the same source, stored in
``tests/goldens/porting.json``.

This module imports neither pytest nor tfmini at the top, so that the recording tool can
load the scripts under TensorFlow's Python.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

GOLDENS = Path(__file__).resolve().parent / "goldens" / "porting.json"


def _plain(value):
    """Numbers and names as JSON-ready lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return arr.tolist()
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64).tolist()
    return arr.astype(np.float64).tolist()


# --------------------------------------------------------------------------------------------
# 1. Softmax regression (the TF1 "MNIST for beginners" shape) on synthetic data.
# --------------------------------------------------------------------------------------------
def softmax_regression(tf):
    rng = np.random.RandomState(0)
    data_x = rng.randn(64, 5).astype(np.float32)
    true_w = rng.randn(5, 3).astype(np.float32)
    data_y = np.argmax(data_x @ true_w, axis=1).astype(np.int64)

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 5], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        w = tf.Variable(tf.zeros([5, 3]), name="weights")
        b = tf.Variable(tf.zeros([3]), name="bias")
        logits = tf.matmul(x, w) + b
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        loss = tf.reduce_mean(xent, name="loss")
        # the tutorial's hand-written cross entropy, with the clip that keeps log finite
        probs = tf.nn.softmax(logits)
        onehot = tf.one_hot(y, 3)
        manual = -tf.reduce_mean(tf.reduce_sum(onehot * tf.log(tf.clip_by_value(probs, 1e-10, 1.0)),
                                               axis=1))
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        correct = tf.equal(tf.argmax(logits, 1), y)
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        pred = tf.argmax(probs, axis=1)
        init = tf.global_variables_initializer()

    out = {"loss": [], "manual": [], "accuracy": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(8):
            l_val, m_val = sess.run([loss, manual], feed_dict={x: data_x, y: data_y})
            acc = sess.run(accuracy, feed_dict={x: data_x, y: data_y})
            sess.run(train_op, feed_dict={x: data_x, y: data_y})
            out["loss"].append(l_val)
            out["manual"].append(m_val)
            out["accuracy"].append(acc)
        out["weights"], out["bias"] = sess.run([w, b])
        out["pred"] = sess.run(pred, feed_dict={x: data_x[:10]})
    out["names"] = [w.name, b.name, loss.name]
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 2. A two-layer MLP: get_variable/variable_scope, bias_add, relu, fused batch norm (training
#    mode), Adam with a global step.
# --------------------------------------------------------------------------------------------
def mlp_batch_norm(tf):
    rng = np.random.RandomState(1)
    data_x = rng.randn(16, 4).astype(np.float32)
    data_y = rng.randn(16, 2).astype(np.float32)
    w1 = (rng.randn(4, 6) * 0.5).astype(np.float32)
    w2 = (rng.randn(6, 2) * 0.5).astype(np.float32)

    def dense(inputs, init, name, activation=None):
        with tf.variable_scope(name):
            w = tf.get_variable("kernel", shape=init.shape, dtype=tf.float32,
                                initializer=tf.constant_initializer(init))
            b = tf.get_variable("bias", shape=[init.shape[1]],
                                initializer=tf.zeros_initializer())
            h = tf.nn.bias_add(tf.matmul(inputs, w), b)
            return activation(h) if activation is not None else h

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, shape=[None, 4], name="x")
        y = tf.placeholder(tf.float32, shape=[None, 2], name="y")
        with tf.variable_scope("model"):
            h = dense(x, w1, "layer1", activation=tf.nn.relu)
            with tf.variable_scope("bn"):
                scale = tf.get_variable("gamma", [6], initializer=tf.ones_initializer())
                offset = tf.get_variable("beta", [6], initializer=tf.zeros_initializer())
            h4 = tf.reshape(h, [-1, 1, 1, 6])
            bn, batch_mean, batch_var = tf.nn.fused_batch_norm(h4, scale, offset,
                                                               epsilon=1e-3, is_training=True)
            h = tf.reshape(bn, [-1, 6])
            pred = dense(h, w2, "layer2")
        loss = tf.reduce_mean(tf.square(pred - y))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(learning_rate=0.05)
        train_op = opt.minimize(loss, global_step=global_step)
        init = tf.global_variables_initializer()

    out = {"loss": [], "step": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(6):
            l_val, _ = sess.run([loss, train_op], feed_dict={x: data_x, y: data_y})
            out["loss"].append(l_val)
            out["step"].append(sess.run(global_step))
        out["final_loss"] = sess.run(loss, feed_dict={x: data_x, y: data_y})
        out["batch_mean"], out["batch_var"] = sess.run([batch_mean, batch_var],
                                                       feed_dict={x: data_x})
        tvars = tf.trainable_variables()
        out["trainable"] = [v.name for v in tvars]
        out["values"] = {v.name: sess.run(v) for v in tvars}
        out["m_layer1_kernel"] = sess.run(opt.get_slot(tvars[0], "m"))
        out["slot_names"] = sorted(opt.get_slot_names())
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 3. An embedding model: tf.gather (IndexedSlices gradients), gradients clipped by value,
#    Adagrad through compute_gradients / apply_gradients.
# --------------------------------------------------------------------------------------------
def embedding_adagrad(tf):
    rng = np.random.RandomState(2)
    table = (rng.randn(10, 4) * 0.3).astype(np.float32)
    proj = (rng.randn(4, 1) * 0.3).astype(np.float32)
    ids_val = np.array([[1, 3, 3], [0, 9, 1], [4, 4, 4], [7, 2, 3]], np.int32)
    target = np.array([[1.0], [-1.0], [0.5], [2.0]], np.float32)

    graph = tf.Graph()
    with graph.as_default():
        ids = tf.placeholder(tf.int32, [None, 3], name="ids")
        t = tf.placeholder(tf.float32, [None, 1], name="target")
        emb = tf.Variable(table, name="embedding")
        w = tf.Variable(proj, name="proj")
        looked_up = tf.gather(emb, ids)                      # [batch, 3, 4]
        pooled = tf.reduce_mean(looked_up, axis=1)
        pred = tf.matmul(pooled, w)
        loss = tf.reduce_sum(tf.square(pred - t))
        opt = tf.train.AdagradOptimizer(learning_rate=0.3, initial_accumulator_value=0.1)
        grads_and_vars = opt.compute_gradients(loss)
        emb_grad = grads_and_vars[0][0]
        clipped = [(tf.clip_by_value(g, -0.05, 0.05), v) for g, v in grads_and_vars]
        train_op = opt.apply_gradients(clipped)
        init = tf.global_variables_initializer()

    out = {"loss": [], "grad_type": type(emb_grad).__name__,
           "clipped_type": type(clipped[0][0]).__name__}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(5):
            l_val, _ = sess.run([loss, train_op], feed_dict={ids: ids_val, t: target})
            out["loss"].append(l_val)
        g_val = sess.run(emb_grad, feed_dict={ids: ids_val, t: target})
        out["grad_indices"] = g_val.indices
        out["grad_values"] = g_val.values
        out["embedding"], out["proj"] = sess.run([emb, w])
        out["accumulator"] = sess.run(opt.get_slot(emb, "accumulator"))
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 4. while_loop and cond with gradients, trained with gradient descent; global-norm clipping.
# --------------------------------------------------------------------------------------------
def control_flow_training(tf):
    graph = tf.Graph()
    with graph.as_default():
        a = tf.Variable(0.7, name="a")
        c = tf.Variable([0.3, -0.2], name="c")
        n = tf.placeholder(tf.int32, [], name="n")

        def body(i, acc):
            return i + 1, acc * a + tf.sin(acc) + c

        _, final = tf.while_loop(lambda i, acc: i < n, body,
                                 [tf.constant(0), tf.constant([1.0, 0.5])])
        total = tf.reduce_sum(final)
        out_val = tf.cond(total > 1.0, lambda: tf.square(total), lambda: -total * 3.0)
        grads = tf.gradients(out_val, [a, c])
        clipped, norm = tf.clip_by_global_norm(grads, 1.5)
        lr = 0.05
        train_op = tf.group(*[tf.assign_sub(v, lr * g) for g, v in zip(clipped, [a, c])])
        init = tf.global_variables_initializer()

    out = {"value": [], "norm": [], "grad_a": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for step in range(5):
            feed = {n: 3 + step % 2}
            v, nrm, ga = sess.run([out_val, norm, grads[0]], feed_dict=feed)
            sess.run(train_op, feed_dict=feed)
            out["value"].append(v)
            out["norm"].append(nrm)
            out["grad_a"].append(ga)
        out["a"], out["c"] = sess.run([a, c])
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 5. A ConditionalAccumulator round: two workers apply, a stale gradient is dropped, the chief
#    takes the average and applies it.
# --------------------------------------------------------------------------------------------
def accumulator_round(tf):
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        acc = tf.ConditionalAccumulator(tf.float32, shape=tf.TensorShape([2, 2]),
                                        shared_name="grad_acc")
        grad = tf.placeholder(tf.float32, [2, 2])
        local_step = tf.placeholder(tf.int64, [])
        apply_op = acc.apply_grad(grad, local_step=local_step)
        num = acc.num_accumulated()
        new_step = tf.placeholder(tf.int64, [])
        set_step = acc.set_global_step(new_step)
        avg = acc.take_grad(2)
        update = tf.assign_sub(w, 0.5 * avg)
        init = tf.global_variables_initializer()

    out = {"num": [], "w": []}
    g1 = np.array([[1.0, 0.0], [2.0, -2.0]], np.float32)
    g2 = np.array([[3.0, 4.0], [0.0, 2.0]], np.float32)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for rnd in range(2):
            sess.run(apply_op, feed_dict={grad: g1 * (rnd + 1), local_step: rnd})
            out["num"].append(sess.run(num))
            sess.run(apply_op, feed_dict={grad: g2, local_step: rnd})
            out["num"].append(sess.run(num))
            # a stale worker (local step behind the accumulator's global step) is dropped
            if rnd == 1:
                sess.run(apply_op, feed_dict={grad: g1 * 100, local_step: 0})
                out["num"].append(sess.run(num))
            out["w"].append(sess.run(update))
            out["num"].append(sess.run(num))
            sess.run(set_step, feed_dict={new_step: rnd + 1})
    out["acc_name"] = acc.name if isinstance(acc.name, str) else acc.name.decode()
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 6. Keras-2 Adagrad in graph mode: apply_gradients with clipnorm and an ExponentialDecay
#    schedule. TF spells the class tf_keras.optimizers.legacy.Adagrad.
# --------------------------------------------------------------------------------------------
def keras_adagrad(tf, adagrad_cls, exponential_decay_cls):
    rng = np.random.RandomState(3)
    data_x = rng.randn(8, 3).astype(np.float32)
    data_y = rng.randn(8, 1).astype(np.float32)

    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(np.full((3, 1), 0.1, np.float32), name="w")
        b = tf.Variable(np.zeros((1,), np.float32), name="b")
        x = tf.constant(data_x)
        y = tf.constant(data_y)
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        grads = tf.gradients(loss, [w, b])
        schedule = exponential_decay_cls(0.5, decay_steps=2, decay_rate=0.5)
        opt = adagrad_cls(learning_rate=schedule, initial_accumulator_value=0.2, clipnorm=1.0)
        train_op = opt.apply_gradients(zip(grads, [w, b]))
        init = tf.global_variables_initializer()

    out = {"loss": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(5):
            out["loss"].append(sess.run(loss))
            sess.run(train_op)
        out["w"], out["b"] = sess.run([w, b])
        out["iterations"] = sess.run(opt.iterations)
        out["accumulator_w"] = sess.run(opt.get_slot(w, "accumulator"))
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 7. A seeded MLP: set_random_seed, weights from tf.random_normal and get_variable's default
#    (Glorot uniform), dropout, plain gradient descent; the losses it prints.
# --------------------------------------------------------------------------------------------
def seeded_mlp(tf):
    rng = np.random.RandomState(3)
    data_x = rng.randn(48, 6).astype(np.float32)
    data_y = (np.sin(data_x[:, :1]) + 0.5 * data_x[:, 1:2]).astype(np.float32)

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(2024)
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w1 = tf.Variable(tf.random_normal([6, 12], stddev=0.5), name="w1")
        b1 = tf.Variable(tf.zeros([12]), name="b1")
        with tf.variable_scope("out"):
            w2 = tf.get_variable("w", [12, 1])
            b2 = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        hidden = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1) + b1), keep_prob=0.8)
        pred = tf.matmul(hidden, w2) + b2
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()

    out = {"loss": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        out["w1"], out["w2"] = sess.run([w1, w2])
        for step in range(10):
            l_val, _ = sess.run([loss, train_op], feed_dict={x: data_x, y: data_y})
            print(f"step {step}: loss {l_val:.6f}")
            out["loss"].append(l_val)
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 8. A small convnet (the TF1 "Deep MNIST" shape): conv 5x5x32 - relu - maxpool - conv 5x5x64 -
#    relu - maxpool - dense 10, softmax cross entropy, plain gradient descent.
# --------------------------------------------------------------------------------------------
def convnet(tf):
    rng = np.random.RandomState(7)
    data_x = rng.rand(32, 28, 28, 1).astype(np.float32)
    data_y = rng.randint(0, 10, size=32).astype(np.int64)

    def weight(shape, seed):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1, seed=seed))

    def bias(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(11)
        x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        w1, b1 = weight([5, 5, 1, 32], 1), bias([32])
        h1 = tf.nn.relu(tf.nn.conv2d(x, w1, strides=[1, 1, 1, 1], padding="SAME") + b1)
        p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        w2, b2 = weight([5, 5, 32, 64], 2), bias([64])
        h2 = tf.nn.relu(tf.nn.conv2d(p1, w2, strides=[1, 1, 1, 1], padding="SAME") + b2)
        p2 = tf.nn.max_pool(h2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        w3, b3 = weight([7 * 7 * 64, 10], 3), bias([10])
        logits = tf.matmul(tf.reshape(p2, [-1, 7 * 7 * 64]), w3) + b3
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()

    out = {"loss": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(5):
            l_val, _ = sess.run([loss, train_op], feed_dict={x: data_x, y: data_y})
            out["loss"].append(l_val)
        out["final_loss"] = sess.run(loss, feed_dict={x: data_x, y: data_y})
        out["b1"] = sess.run(b1)
        out["shapes"] = [list(p1.shape.as_list()), list(p2.shape.as_list())]
    out["names"] = [w1.name, h1.op.inputs[0].op.inputs[0].name, p2.name]
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 9. A tf.data input pipeline feeding a training loop: from_tensor_slices -> map -> shuffle
#    (op seed under a graph seed) -> batch -> one-shot iterator; linear regression with
#    GradientDescent for a few epochs' worth of steps, the batch order included in the output.
# --------------------------------------------------------------------------------------------
def data_pipeline_training(tf):
    rng = np.random.RandomState(7)
    data_x = rng.randn(20, 3).astype(np.float32)
    data_y = (data_x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1234)
        ds = tf.data.Dataset.from_tensor_slices({"x": data_x, "y": data_y,
                                                 "i": np.arange(20, dtype=np.int64)})
        ds = ds.map(lambda e: (e["x"] * 2.0, e["y"], e["i"]))
        ds = ds.shuffle(8, seed=5).repeat(3).batch(6)
        x, y, idx = tf.data.make_one_shot_iterator(ds).get_next()
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        init = tf.global_variables_initializer()

    out = {"loss": [], "order": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        while True:
            try:
                _, l, order = sess.run([train_op, loss, idx])
            except tf.errors.OutOfRangeError:
                break
            out["loss"].append(l)
            out["order"].append(order)
        out["w"], out["b"] = sess.run([w, b])
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 10. A tf.layers convnet: conv2d, batch norm with a training placeholder, max pooling,
#    flatten, dropout, dense; tf.losses and tf.metrics; Adam with UPDATE_OPS as TF1 programs
#    write it.
# --------------------------------------------------------------------------------------------
def layers_convnet(tf):
    rng = np.random.RandomState(3)
    data_x = rng.rand(16, 8, 8, 1).astype(np.float32)
    data_y = rng.randint(0, 4, size=16).astype(np.int64)

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        training = tf.placeholder(tf.bool, [], name="training")
        h = tf.layers.conv2d(x, 8, 3, padding="same", use_bias=False,
                             kernel_initializer=tf.glorot_uniform_initializer(seed=1))
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=training))
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.flatten(h)
        h = tf.layers.dense(h, 16, activation=tf.nn.relu,
                            kernel_initializer=tf.glorot_uniform_initializer(seed=2))
        h = tf.layers.dropout(h, 0.25, training=training, seed=3)
        logits = tf.layers.dense(h, 4, kernel_initializer=tf.glorot_uniform_initializer(seed=4))
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        acc, acc_update = tf.metrics.accuracy(y, tf.argmax(logits, 1))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        names = [v.name for v in tf.global_variables()]

    out = {"loss": [], "accuracy": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        train = {x: data_x, y: data_y, training: True}
        for _ in range(5):
            l_val, _ = sess.run([loss, train_op], feed_dict=train)
            out["loss"].append(l_val)
        evaluate = {x: data_x, y: data_y, training: False}
        for half in (slice(0, 8), slice(8, 16)):
            sess.run(acc_update, {x: data_x[half], y: data_y[half], training: False})
            out["accuracy"].append(sess.run(acc))
        out["eval_loss"] = sess.run(loss, feed_dict=evaluate)
    out["names"] = [n for n in names if "Adam" not in n and "power" not in n]
    out["output_names"] = [loss.name, logits.name, acc.name]
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 11. An MLP trained with RMSProp (momentum) on an exponentially decayed learning rate, with an
#    ExponentialMovingAverage of its weights updated after each step (the TF1 idiom); the
#    losses it prints, the averaged weights, the slot and shadow names.
# --------------------------------------------------------------------------------------------
def rmsprop_ema_mlp(tf):
    rng = np.random.RandomState(5)
    data_x = rng.randn(32, 4).astype(np.float32)
    data_y = (data_x[:, :1] * data_x[:, 1:2] - 0.3 * data_x[:, 2:3]).astype(np.float32)
    w1_init = (rng.randn(4, 8) * 0.4).astype(np.float32)
    w2_init = (rng.randn(8, 1) * 0.4).astype(np.float32)

    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w1 = tf.Variable(w1_init, name="w1")
        b1 = tf.Variable(tf.zeros([8]), name="b1")
        w2 = tf.Variable(w2_init, name="w2")
        b2 = tf.Variable(tf.zeros([1]), name="b2")
        hidden = tf.nn.tanh(tf.matmul(x, w1) + b1)
        loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) + b2 - y), name="loss")
        global_step = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(0.01, global_step, decay_steps=3, decay_rate=0.7,
                                        staircase=True)
        opt = tf.train.RMSPropOptimizer(lr, decay=0.9, momentum=0.5, epsilon=1e-6)
        step_op = opt.minimize(loss, global_step=global_step)
        ema = tf.train.ExponentialMovingAverage(0.8, num_updates=global_step)
        with tf.control_dependencies([step_op]):
            train_op = ema.apply([w1, b1, w2, b2])
        init = tf.global_variables_initializer()

    out = {"loss": [], "lr": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for step in range(8):
            l_val, lr_val, _ = sess.run([loss, lr, train_op], feed_dict={x: data_x, y: data_y})
            print(f"step {step}: loss {l_val:.6f} lr {lr_val:.6f}")
            out["loss"].append(l_val)
            out["lr"].append(lr_val)
        out["final_loss"] = sess.run(loss, feed_dict={x: data_x, y: data_y})
        out["w1_avg"], out["w2_avg"], out["b2_avg"] = sess.run(
            [ema.average(w1), ema.average(w2), ema.average(b2)])
        out["w2"] = sess.run(w2)
        out["global_step"] = sess.run(global_step)
    out["slots"] = [opt.get_slot(w1, n).name for n in opt.get_slot_names()]
    out["names"] = [lr.name, ema.average(w1).name, train_op.name]
    out["restore"] = sorted(ema.variables_to_restore())
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 12. word2vec skip-gram: a vocabulary of 50 words, 16-dimensional embeddings from
#    tf.random_uniform, NCE weights from tf.truncated_normal, tf.nn.nce_loss with 8 sampled
#    classes (the default log-uniform sampler), plain gradient descent; the losses it prints.
# --------------------------------------------------------------------------------------------
def word2vec(tf):
    vocab, dim, batch, num_sampled = 50, 16, 32, 8
    rng = np.random.RandomState(5)
    # Synthetic (center, context) pairs: contexts near their centers, Zipf-like centers.
    centers = np.minimum(rng.zipf(1.3, size=(6, batch)) - 1, vocab - 1).astype(np.int32)
    contexts = ((centers + rng.randint(-2, 3, size=centers.shape)) % vocab).astype(np.int64)

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(77)
        train_inputs = tf.placeholder(tf.int32, shape=[batch], name="inputs")
        train_labels = tf.placeholder(tf.int64, shape=[batch, 1], name="labels")
        embeddings = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0, seed=1),
                                 name="embeddings")
        embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        nce_weights = tf.Variable(
            tf.truncated_normal([vocab, dim], stddev=1.0 / np.sqrt(dim), seed=2),
            name="nce_weights")
        nce_biases = tf.Variable(tf.zeros([vocab]), name="nce_biases")
        loss = tf.reduce_mean(
            tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=train_labels,
                           inputs=embed, num_sampled=num_sampled, num_classes=vocab))
        train_op = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        init = tf.global_variables_initializer()

    out = {"loss": []}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for step in range(5):
            feed = {train_inputs: centers[step], train_labels: contexts[step][:, None]}
            l_val, _ = sess.run([loss, train_op], feed_dict=feed)
            print(f"step {step}: loss {l_val:.6f}")
            out["loss"].append(l_val)
        out["final_loss"] = sess.run(loss, feed_dict={train_inputs: centers[5],
                                                      train_labels: contexts[5][:, None]})
        out["embeddings_row3"] = sess.run(embeddings)[3]
        out["nce_biases"] = sess.run(nce_biases)
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 13. MonitoredTrainingSession with StopAtStepHook and CheckpointSaverHook, a scalar summary and a
#    FileWriter, run twice on one directory (the second run resumes from the checkpoint).
# --------------------------------------------------------------------------------------------
def monitored_training(tf):
    """tf.summary.scalar + FileWriter + MonitoredTrainingSession with StopAtStepHook and
    CheckpointSaverHook, run twice on one directory (the second run restores)."""
    import tempfile

    logdir = tempfile.mkdtemp(prefix="porting_monitored_")
    rng = np.random.RandomState(11)
    data_x = rng.randn(16, 3).astype(np.float32)
    data_y = (data_x @ np.array([[0.5], [-1.0], [2.0]], np.float32)).astype(np.float32)
    out = {"loss": [], "summary_tags": [], "summary_values": []}
    for run, stop in enumerate([{"last_step": 4}, {"num_steps": 3}]):
        graph = tf.Graph()
        with graph.as_default():
            gs = tf.train.get_or_create_global_step()
            w = tf.Variable(tf.zeros([3, 1]), name="w")
            loss = tf.reduce_mean(tf.square(tf.matmul(data_x, w) - data_y))
            tf.summary.scalar("loss", loss)
            merged = tf.summary.merge_all()
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
            writer = tf.summary.FileWriter(logdir + f"/run{run}", graph)
            hooks = [tf.train.StopAtStepHook(**stop),
                     tf.train.CheckpointSaverHook(logdir, save_steps=2)]
            with tf.train.MonitoredTrainingSession(checkpoint_dir=logdir, hooks=hooks,
                                                   save_summaries_steps=None,
                                                   save_checkpoint_secs=None,
                                                   log_step_count_steps=None) as sess:
                while not sess.should_stop():
                    # The global step is not fetched with the train op: which value a read
                    # beside its increment sees is not defined (TF's executor picks an order).
                    _, summ, l = sess.run([train_op, merged, loss])
                    step = len(out["loss"])
                    writer.add_summary(summ, step)
                    parsed = tf.Summary.FromString(summ)
                    out["loss"].append(float(l))
                    out["summary_tags"] += [v.tag for v in parsed.value]
                    out["summary_values"] += [v.simple_value for v in parsed.value]
            writer.close()
    out["latest"] = os.path.basename(tf.train.latest_checkpoint(logdir))
    out["w"] = tf.train.load_variable(logdir, "w")
    out["global_step"] = tf.train.load_variable(logdir, "global_step")
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 14. A TF1 input pipeline: slice_input_producer feeding shuffle_batch through queue runners,
#    a linear model trained until the input runs out (two epochs).
# --------------------------------------------------------------------------------------------
def queue_input_pipeline(tf):
    rng = np.random.RandomState(7)
    data_x = rng.randn(12, 3).astype(np.float32)
    data_y = (data_x @ np.array([1.5, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(42)
        x, y = tf.train.slice_input_producer([data_x, data_y], num_epochs=2, shuffle=False,
                                             capacity=4)
        # capacity = min_after_dequeue + 1: each draw sees the same pool whatever the
        # threads' timing, so the batches are reproducible.
        bx, by = tf.train.shuffle_batch([x, y], batch_size=4, capacity=5, min_after_dequeue=4,
                                        seed=9)
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        pred = tf.reshape(tf.matmul(bx, w), [-1]) + b
        loss = tf.reduce_mean(tf.square(pred - by))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        out = {"loss": [], "labels": []}
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                while not coord.should_stop():
                    step_loss, labels, _ = sess.run([loss, by, train])
                    out["loss"].append(step_loss)
                    out["labels"].append(labels)
            except tf.errors.OutOfRangeError:
                out["stopped"] = "OutOfRangeError"
            finally:
                coord.request_stop()
            coord.join(threads)
            out["w"], out["b"] = sess.run([w, b])
            out["steps"] = len(out["loss"])
    return _plain(out)


# --------------------------------------------------------------------------------------------
# 15. An LSTM sequence classifier: an embedding lookup, dynamic_rnn with sequence_length, the
#    final state's h -> dense -> sparse softmax cross-entropy, Adam; the losses it prints.
# --------------------------------------------------------------------------------------------
def lstm_classifier(tf):
    """Embedding -> dynamic_rnn(BasicLSTMCell) with sequence lengths -> dense -> sparse softmax
    cross-entropy, trained with Adam for a few steps."""
    rng = np.random.RandomState(21)
    vocab, dim, units, classes, steps = 12, 5, 8, 3, 7
    tokens = rng.randint(1, vocab, size=(6, steps)).astype(np.int32)
    lengths = np.array([7, 3, 5, 1, 6, 4], np.int32)
    tokens[np.arange(steps)[None, :] >= lengths[:, None]] = 0  # padding
    labels = np.array([0, 2, 1, 1, 0, 2], np.int32)

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(4)
        ids = tf.placeholder(tf.int32, [None, steps], name="ids")
        lens = tf.placeholder(tf.int32, [None], name="lens")
        y = tf.placeholder(tf.int32, [None], name="y")
        embedding = tf.get_variable("embedding", [vocab, dim],
                                    initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=1))
        inputs = tf.nn.embedding_lookup(embedding, ids)
        cell = tf.nn.rnn_cell.BasicLSTMCell(units)
        with tf.variable_scope("encoder", initializer=tf.glorot_uniform_initializer(seed=2)):
            _, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lens, dtype=tf.float32)
        logits = tf.layers.dense(state.h, classes,
                                 kernel_initializer=tf.glorot_uniform_initializer(seed=3))
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
        init = tf.global_variables_initializer()
        names = [v.name for v in tf.trainable_variables()]

    out = {"loss": [], "variables": names}
    feed = {ids: tokens, lens: lengths, y: labels}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for step in range(6):
            l_val, _ = sess.run([loss, train_op], feed_dict=feed)
            print(f"step {step}: loss {l_val:.6f}")
            out["loss"].append(l_val)
        out["final_loss"] = sess.run(loss, feed_dict=feed)
        out["logits"] = sess.run(logits, feed_dict=feed)
    return _plain(out)


SCRIPTS = {
    "softmax_regression": softmax_regression,
    "mlp_batch_norm": mlp_batch_norm,
    "embedding_adagrad": embedding_adagrad,
    "control_flow_training": control_flow_training,
    "accumulator_round": accumulator_round,
    "keras_adagrad": keras_adagrad,
    "seeded_mlp": seeded_mlp,
    "convnet": convnet,
    "data_pipeline_training": data_pipeline_training,
    "layers_convnet": layers_convnet,
    "rmsprop_ema_mlp": rmsprop_ema_mlp,
    "word2vec": word2vec,
    "monitored_training": monitored_training,
    "queue_input_pipeline": queue_input_pipeline,
    "lstm_classifier": lstm_classifier,
}


def run_script(name: str, tf, keras_optimizers=None):
    """Runs one script with the module ``tf``; ``keras_optimizers`` holds ``Adagrad`` and
    ``schedules.ExponentialDecay`` (tfmini's ``tf.keras.optimizers`` by default)."""
    fn = SCRIPTS[name]
    if name == "keras_adagrad":
        ko = keras_optimizers if keras_optimizers is not None else tf.keras.optimizers
        return fn(tf, ko.Adagrad, ko.schedules.ExponentialDecay)
    return fn(tf)


# --------------------------------------------------------------------------------------------
# The tests (tfmini imported here, not at the top).
# --------------------------------------------------------------------------------------------
def _assert_close(got, want, path=""):
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        assert sorted(got) == sorted(want), (path, sorted(got), sorted(want))
        for k in want:
            _assert_close(got[k], want[k], f"{path}/{k}")
    elif isinstance(want, str):
        assert got == want, (path, got, want)
    elif isinstance(want, list) and want and all(isinstance(v, str) for v in want):
        assert got == want, (path, got, want)
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                                   rtol=2e-5, atol=2e-6, err_msg=path)


def _check(name: str) -> None:
    import tfmini

    want = json.loads(GOLDENS.read_text())[name]
    got = run_script(name, tfmini)
    _assert_close(got, want, name)


def test_softmax_regression():
    _check("softmax_regression")


def test_mlp_batch_norm():
    _check("mlp_batch_norm")


def test_embedding_adagrad():
    _check("embedding_adagrad")


def test_control_flow_training():
    _check("control_flow_training")


def test_accumulator_round():
    _check("accumulator_round")


def test_keras_adagrad():
    _check("keras_adagrad")


def test_seeded_mlp():
    _check("seeded_mlp")
    import tfmini

    want = json.loads(GOLDENS.read_text())["seeded_mlp"]["loss"]
    got = run_script("seeded_mlp", tfmini)["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)


def test_convnet():
    _check("convnet")


def test_data_pipeline_training():
    _check("data_pipeline_training")


def test_layers_convnet():
    _check("layers_convnet")


def test_rmsprop_ema_mlp():
    _check("rmsprop_ema_mlp")
    import tfmini

    # The losses TensorFlow printed, within 1e-5 relative.
    want = json.loads(GOLDENS.read_text())["rmsprop_ema_mlp"]["loss"]
    got = run_script("rmsprop_ema_mlp", tfmini)["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)


def test_word2vec():
    _check("word2vec")
    import tfmini

    want = json.loads(GOLDENS.read_text())["word2vec"]["loss"]
    got = run_script("word2vec", tfmini)["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=0)


def test_monitored_training():
    _check("monitored_training")


def test_queue_input_pipeline():
    _check("queue_input_pipeline")
