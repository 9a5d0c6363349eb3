"""TF1 programs over tf.layers / tf.losses / tf.metrics, written once against the
``tf.compat.v1`` API: tools/record_goldens_layers.py runs them under TensorFlow 2.21 (tf_keras),
tests/layers/test_layers_goldens.py under tfmini.

A case is ``fn(tf) -> dict`` with ``runs``: a list of ``(label, fetches, feeds)`` run in order
in one session after the global and local variables are initialised; ``names``: tensors whose
names are compared; ``collections``: collection keys whose member names are compared.
"""

from __future__ import annotations

import numpy as np

RNG = np.random.RandomState(7)
X43 = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 10], [0, 1, -1]], np.float32)
IMG = RNG.uniform(-1, 1, size=(2, 6, 6, 3)).astype(np.float32)
SEQ = RNG.uniform(-1, 1, size=(2, 7, 3)).astype(np.float32)
VOL = RNG.uniform(-1, 1, size=(1, 4, 4, 4, 2)).astype(np.float32)
LABELS = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
PREDS = np.array([[0.8, 0.3], [0.2, -0.5], [1.5, 0.4]], np.float32)
PROBS = np.array([[0.8, 0.3], [0.2, 0.6], [0.9, 0.4]], np.float32)
ONEHOT = np.array([[1, 0], [0, 1], [0, 1]], np.float32)
WEIGHTS = {"scalar": 2.0, "col": np.array([[1], [0], [2]], np.float32),
           "full": np.array([[1, 0.5], [0, 0], [2, 1]], np.float32)}
REDUCTIONS = ["NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS"]


def _glorot(tf, seed):
    return tf.glorot_uniform_initializer(seed=seed)


def _vars(tf, key):
    return {v.name: v for v in tf.get_collection(key)}


def dense_names(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    a = tf.layers.dense(x, 2, activation=tf.nn.relu, kernel_initializer=_glorot(tf, 1))
    b = tf.layers.dense(x, 5, kernel_initializer=_glorot(tf, 2),
                        kernel_regularizer=lambda w: 0.1 * tf.reduce_sum(tf.square(w)),
                        bias_regularizer=lambda w: tf.reduce_sum(tf.abs(w)))
    c = tf.layers.dense(x, 2, name="foo", use_bias=False, kernel_initializer=_glorot(tf, 3))
    with tf.variable_scope("s"):
        d = tf.layers.dense(x, 2, kernel_initializer=_glorot(tf, 4))
    with tf.variable_scope("s", reuse=True):
        e = tf.layers.dense(x, 2, name="dense")
    x3 = tf.placeholder(tf.float32, [2, 4, 3], name="x3")
    f = tf.layers.dense(x3, 2, kernel_initializer=_glorot(tf, 5))
    layer = tf.layers.Dense(3, kernel_initializer=_glorot(tf, 6), name="cls")
    g1 = layer(x)
    g2 = layer(x * 2.0)
    outs = {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "g1": g1, "g2": g2}
    x3v = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10
    return {"runs": [("out", outs, {x: X43, x3: x3v}),
                     ("reg", {"reg": tf.losses.get_regularization_loss()}, {})],
            "names": {**outs, "kernel": layer.kernel, "bias": layer.bias},
            "collections": ["variables", "trainable_variables", "regularization_losses",
                            "update_ops"],
            "layer_weights": {"cls": [w.name for w in layer.weights]}}


def conv_layers(tf):
    img = tf.placeholder(tf.float32, [2, 6, 6, 3], name="img")
    seq = tf.placeholder(tf.float32, [2, 7, 3], name="seq")
    vol = tf.placeholder(tf.float32, [1, 4, 4, 4, 2], name="vol")
    c2 = tf.layers.conv2d(img, 4, 3, padding="same", activation=tf.nn.relu,
                          kernel_initializer=_glorot(tf, 11),
                          bias_initializer=tf.constant_initializer(0.1))
    c2s = tf.layers.conv2d(img, 2, (2, 3), strides=(2, 1), kernel_initializer=_glorot(tf, 12))
    mp = tf.layers.max_pooling2d(c2, 2, 2)
    ap = tf.layers.average_pooling2d(c2, 3, 1, padding="same")
    fl = tf.layers.flatten(mp)
    c1 = tf.layers.conv1d(seq, 3, 2, dilation_rate=2, kernel_initializer=_glorot(tf, 13))
    p1 = tf.layers.max_pooling1d(seq, 2, 2)
    a1 = tf.layers.average_pooling1d(seq, 3, 2, padding="same")
    c3 = tf.layers.conv3d(vol, 2, 2, kernel_initializer=_glorot(tf, 14))
    p3 = tf.layers.max_pooling3d(vol, 2, 2)
    a3 = tf.layers.average_pooling3d(vol, 2, 1)
    ct = tf.layers.conv2d_transpose(img, 2, 3, strides=2, kernel_initializer=_glorot(tf, 15))
    cts = tf.layers.conv2d_transpose(img, 2, 2, strides=2, padding="same",
                                     kernel_initializer=_glorot(tf, 16))
    sc = tf.layers.separable_conv2d(img, 4, 3, depth_multiplier=2,
                                    depthwise_initializer=_glorot(tf, 17),
                                    pointwise_initializer=_glorot(tf, 18))
    outs = {"c2": c2, "c2s": c2s, "mp": mp, "ap": ap, "fl": fl, "c1": c1, "p1": p1, "a1": a1,
            "c3": c3, "p3": p3, "a3": a3, "ct": ct, "cts": cts, "sc": sc}
    return {"runs": [("out", outs, {img: IMG, seq: SEQ, vol: VOL})], "names": outs,
            "collections": ["variables", "trainable_variables"]}


def _bn_run(tf, x_value, training, **kwargs):
    x = tf.placeholder(tf.float32, x_value.shape, name="x")
    y = tf.layers.batch_normalization(x, training=training, **kwargs)
    bn_vars = _vars(tf, "variables")
    prefix = y.name.split("/")[0]
    mm = bn_vars[f"{prefix}/moving_mean:0"]
    mv = bn_vars[f"{prefix}/moving_variance:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    runs = [("first", {"y": y}, {x: x_value})]
    if updates:
        runs.append(("update", {"u": tf.group(*updates)}, {x: x_value}))
    runs.append(("after", {"y": y, "mm": mm, "mv": mv}, {x: x_value * 0.5 + 1}))
    return x, y, runs


def bn_plain_training(tf):
    _, y, runs = _bn_run(tf, X43, True, momentum=0.9)
    return {"runs": runs, "names": {"y": y},
            "collections": ["variables", "trainable_variables", "update_ops"]}


def bn_fused_training(tf):
    _, y, runs = _bn_run(tf, IMG, True, momentum=0.8, epsilon=0.01)
    return {"runs": runs, "names": {"y": y},
            "collections": ["variables", "trainable_variables", "update_ops"]}


def bn_inference(tf):
    _, y, runs = _bn_run(tf, IMG, False, moving_mean_initializer=tf.constant_initializer(0.2),
                         moving_variance_initializer=tf.constant_initializer(2.0))
    return {"runs": runs, "names": {"y": y}, "collections": ["variables", "update_ops"]}


def bn_axis1_and_rank3(tf):
    x = tf.placeholder(tf.float32, [2, 3, 6, 6], name="x")
    s = tf.placeholder(tf.float32, [2, 7, 3], name="s")
    y1 = tf.layers.batch_normalization(x, axis=1, training=True)
    y2 = tf.layers.batch_normalization(s, training=True, center=False)
    y3 = tf.layers.batch_normalization(x, axis=2, training=True, scale=False)
    feeds = {x: IMG.transpose(0, 3, 1, 2), s: SEQ}
    outs = {"y1": y1, "y2": y2, "y3": y3}
    upd = tf.group(*tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    stats = {k.replace(":0", "").replace("/", "."): v for k, v in _vars(tf, "variables").items()
             if "moving" in k}
    return {"runs": [("out", outs, feeds), ("u", {"u": upd}, feeds), ("stats", stats, {})],
            "names": outs, "collections": ["variables", "update_ops"]}


def bn_training_tensor(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    img = tf.placeholder(tf.float32, [2, 6, 6, 3], name="img")
    t = tf.placeholder(tf.bool, [], name="training")
    y = tf.layers.batch_normalization(x, training=t, momentum=0.5)
    z = tf.layers.batch_normalization(img, training=t, momentum=0.5)
    upd = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    stats = {k.replace(":0", "").replace("/", "."): v for k, v in _vars(tf, "variables").items()
             if "moving" in k}
    feeds = {x: X43, img: IMG}
    with tf.control_dependencies(upd):
        yy = tf.identity(y)
        zz = tf.identity(z)
    return {"runs": [("train", {"y": yy, "z": zz}, {**feeds, t: True}),
                     ("stats1", stats, {}),
                     ("infer", {"y": yy, "z": zz}, {**feeds, t: False}),
                     ("stats2", stats, {})],
            "names": {}, "collections": ["variables"]}


def dropout_cases(tf):
    x = tf.placeholder(tf.float32, [4, 5], name="x")
    t = tf.placeholder(tf.bool, [], name="training")
    d_off = tf.layers.dropout(x, 0.5)
    d_on = tf.layers.dropout(x, 0.5, training=True, seed=3)
    d_t = tf.layers.dropout(x, 0.3, training=t, seed=4)
    ones = np.ones((4, 5), np.float32)
    return {"runs": [("off", {"d": d_off, "on": d_on}, {x: ones}),
                     ("t_true", {"d": d_t}, {x: ones, t: True}),
                     ("t_false", {"d": d_t}, {x: ones, t: False})],
            "names": {"off": d_off, "on": d_on}, "collections": []}


def _train(tf, loss, steps, feeds, extra):
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
    runs = []
    for i in range(steps):
        runs.append((f"step{i}", {"loss": loss, "train": train}, feeds))
    final = {k.replace(":0", "").replace("/", "."): v
             for k, v in _vars(tf, "variables").items() if "Adam" not in k and "power" not in k}
    runs.append(("final", {**final, "loss": loss, **extra}, feeds))
    return runs


def mlp_training(tf):
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.placeholder(tf.int32, [4], name="y")
    # dense (no bias: batch norm cancels it) -> batch norm -> relu -> dense.
    h = tf.layers.dense(x, 8, use_bias=False, kernel_initializer=_glorot(tf, 21),
                        kernel_regularizer=lambda w: 0.01 * tf.reduce_sum(tf.square(w)))
    h = tf.nn.relu(tf.layers.batch_normalization(h, training=True))
    logits = tf.layers.dense(h, 3, kernel_initializer=_glorot(tf, 22))
    tf.losses.sparse_softmax_cross_entropy(y, logits)
    loss = tf.losses.get_total_loss()
    feeds = {x: X43 / 10, y: np.array([0, 1, 2, 1], np.int32)}
    return {"runs": _train(tf, loss, 4, feeds, {"logits": logits}), "names": {"loss": loss},
            "collections": ["variables", "trainable_variables", "update_ops", "losses",
                            "regularization_losses"]}


def cnn_training(tf):
    img = tf.placeholder(tf.float32, [2, 6, 6, 3], name="img")
    y = tf.placeholder(tf.int32, [2], name="y")
    training = tf.placeholder_with_default(True, [], name="training")
    # No conv bias before batch norm: its gradient is zero up to rounding, which Adam
    # would amplify into noise.
    c = tf.layers.conv2d(img, 4, 3, padding="same", use_bias=False,
                         kernel_initializer=_glorot(tf, 31))
    c = tf.layers.batch_normalization(c, training=training)
    c = tf.nn.relu(c)
    p = tf.layers.max_pooling2d(c, 2, 2)
    f = tf.layers.flatten(p)
    logits = tf.layers.dense(f, 3, kernel_initializer=_glorot(tf, 32))
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    feeds = {img: IMG, y: np.array([2, 0], np.int32)}
    return {"runs": _train(tf, loss, 4, feeds, {}), "names": {"loss": loss, "logits": logits},
            "collections": ["variables", "trainable_variables", "update_ops", "losses"]}


def e2e_vector(tf):
    x = tf.constant(X43)
    t = tf.constant(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], np.float32))
    k = np.array([[0.1, -0.2], [0.3, 0.1], [-0.1, 0.2]], np.float32)
    h = tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(k))
    out = tf.layers.batch_normalization(h, training=True)
    loss = tf.losses.mean_squared_error(t, out)
    return {"runs": _train(tf, loss, 3, {}, {}), "names": {"loss": loss, "out": out},
            "collections": ["update_ops"]}


def loss_functions(tf):
    L = tf.constant(LABELS)
    P = tf.constant(PREDS)
    Pr = tf.constant(PROBS)
    out = {}
    for wname, w in WEIGHTS.items():
        for red in REDUCTIONS:
            r = getattr(tf.losses.Reduction, red)
            key = f"{wname}.{red}"
            out[f"mse.{key}"] = tf.losses.mean_squared_error(L, P, w, reduction=r)
            out[f"abs.{key}"] = tf.losses.absolute_difference(L, P, w, reduction=r)
            out[f"huber.{key}"] = tf.losses.huber_loss(L, P, w, delta=0.5, reduction=r)
            out[f"hinge.{key}"] = tf.losses.hinge_loss(L, P, w, reduction=r)
            out[f"log.{key}"] = tf.losses.log_loss(L, Pr, w, reduction=r)
            out[f"sig.{key}"] = tf.losses.sigmoid_cross_entropy(L, P, w, label_smoothing=0.2,
                                                                reduction=r)
            out[f"cos.{key}"] = tf.losses.cosine_distance(
                tf.nn.l2_normalize(L, 1), tf.nn.l2_normalize(P, 1), axis=1,
                weights=w if wname != "full" else w[:, :1], reduction=r)
    for red in REDUCTIONS:
        r = getattr(tf.losses.Reduction, red)
        wv = np.array([1.0, 0.0, 2.0], np.float32)
        out[f"softmax.{red}"] = tf.losses.softmax_cross_entropy(ONEHOT, P, wv, 0.1,
                                                                reduction=r)
        out[f"sparse.{red}"] = tf.losses.sparse_softmax_cross_entropy(
            np.array([0, 1, 1]), P, wv, reduction=r)
        out[f"cwl.{red}"] = tf.losses.compute_weighted_loss(
            np.array([[1, 2], [3, 4]], np.float32), np.array([[2], [0.5]], np.float32),
            reduction=r)
    out["softmax_plain"] = tf.losses.softmax_cross_entropy(ONEHOT, P)
    out["sparse_col"] = tf.losses.sparse_softmax_cross_entropy(np.array([[0], [1], [1]]), P)
    out["pairwise"] = tf.losses.mean_pairwise_squared_error(
        np.array([[1, 2, 4], [0, 0, 1]], np.float32), np.array([[0, 0, 0], [1, 1, 1]], np.float32))
    out["pairwise_w"] = tf.losses.mean_pairwise_squared_error(
        np.array([[1, 2, 4], [0, 0, 1]], np.float32), np.array([[0, 0, 0], [1, 1, 1]], np.float32),
        weights=np.array([[2.0], [0.0]], np.float32))
    out["zero_w"] = tf.losses.mean_squared_error(L, P, 0.0)
    out["no_collection"] = tf.losses.mean_squared_error(L, P, loss_collection=None)
    scalar = {k: v for k, v in out.items() if not k.endswith("NONE")}
    total = tf.losses.get_total_loss(add_regularization_losses=False) if False else None
    del total
    return {"runs": [("out", out, {}), ("n", {"n": tf.add_n(
                [v for v in scalar.values()])}, {})],
            "names": out, "collections": ["losses"]}


def total_loss(tf):
    x = tf.constant(X43)
    h = tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(0.1),
                        kernel_regularizer=lambda w: tf.reduce_sum(tf.abs(w)))
    tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(0.2),
                    kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.square(w)))
    tf.losses.mean_squared_error(tf.zeros_like(h), h)
    tf.losses.absolute_difference(tf.zeros_like(h), h)
    total = tf.losses.get_total_loss()
    reg = tf.losses.get_regularization_loss()
    no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="no_reg")
    outs = {"total": total, "reg": reg, "no_reg": no_reg}
    return {"runs": [("out", outs, {})], "names": outs,
            "collections": ["losses", "regularization_losses"]}


def metrics_sequence(tf):
    lab = tf.placeholder(tf.int64, [None], name="labels")
    pred = tf.placeholder(tf.int64, [None], name="pred")
    score = tf.placeholder(tf.float32, [None], name="score")
    w = tf.placeholder(tf.float32, [None], name="w")
    m = {
        "accuracy": tf.metrics.accuracy(lab, pred),
        "accuracy_w": tf.metrics.accuracy(lab, pred, weights=w),
        "mean": tf.metrics.mean(score),
        "mean_w": tf.metrics.mean(score, weights=w),
        "precision": tf.metrics.precision(lab, pred),
        "recall": tf.metrics.recall(lab, pred, weights=w),
        "mse": tf.metrics.mean_squared_error(tf.cast(lab, tf.float32), score),
        "mae": tf.metrics.mean_absolute_error(tf.cast(lab, tf.float32), score, weights=w),
        "rmse": tf.metrics.root_mean_squared_error(tf.cast(lab, tf.float32), score),
        "auc": tf.metrics.auc(lab, score),
        "auc_pr": tf.metrics.auc(lab, score, curve="PR"),
        "auc_min": tf.metrics.auc(lab, score, num_thresholds=11, summation_method="minoring"),
        "auc_maj": tf.metrics.auc(lab, score, num_thresholds=11, summation_method="majoring"),
        "auc_ci": tf.metrics.auc(lab, score, curve="PR", summation_method="careful_interpolation"),
        "auc_w": tf.metrics.auc(lab, score, weights=w, thresholds=[0.25, 0.5, 0.75]),
        "tp": tf.metrics.true_positives(lab, pred),
        "fp": tf.metrics.false_positives(lab, pred),
        "tn": tf.metrics.true_negatives(lab, pred),
        "fn": tf.metrics.false_negatives(lab, pred, weights=w),
        "tp_t": tf.metrics.true_positives_at_thresholds(lab, score, [0.3, 0.5, 0.7]),
        "fn_t": tf.metrics.false_negatives_at_thresholds(lab, score, [0.3, 0.5, 0.7]),
        "fp_t": tf.metrics.false_positives_at_thresholds(lab, score, [0.3, 0.5, 0.7]),
        "tn_t": tf.metrics.true_negatives_at_thresholds(lab, score, [0.3, 0.5, 0.7]),
        "prec_t": tf.metrics.precision_at_thresholds(lab, score, [0.3, 0.5, 0.7]),
        "rec_t": tf.metrics.recall_at_thresholds(lab, score, [0.3, 0.5, 0.7], weights=w),
        "iou": tf.metrics.mean_iou(lab, pred, 3),
        "iou_w": tf.metrics.mean_iou(lab, pred, 3, weights=w),
        "mean_tensor": tf.metrics.mean_tensor(tf.reshape(score, [2, 2])),
    }
    values = {k: v[0] for k, v in m.items()}
    updates = {k: v[1] for k, v in m.items()}
    batches = [
        ([1, 0, 1, 1], [1, 1, 1, 0], [0.9, 0.6, 0.4, 0.2], [1, 1, 0.5, 2]),
        ([0, 0, 1, 0], [0, 1, 1, 0], [0.1, 0.7, 0.8, 0.3], [0, 1, 1, 1]),
        ([1, 1, 0, 0], [0, 1, 0, 0], [0.55, 0.45, 0.05, 0.95], [2, 1, 1, 0]),
    ]
    runs = [("v0", values, {})]
    for i, (lv, pv, sv, wv) in enumerate(batches):
        feeds = {lab: np.array(lv), pred: np.array(pv), score: np.array(sv, np.float32),
                 w: np.array(wv, np.float32)}
        runs.append((f"u{i}", updates, feeds))
        runs.append((f"v{i + 1}", values, {}))
    return {"runs": runs, "names": {**{f"{k}.value": v for k, v in values.items()},
                                    **{f"{k}.update": v for k, v in updates.items()}},
            "collections": ["local_variables", "metric_variables", "variables"]}


CASES = {f.__name__: f for f in (
    dense_names, conv_layers, bn_plain_training, bn_fused_training, bn_inference,
    bn_axis1_and_rank3, bn_training_tensor, dropout_cases, mlp_training, cnn_training,
    e2e_vector, loss_functions, total_loss, metrics_sequence)}


def _err_rank(tf):
    tf.layers.dense(tf.placeholder(tf.float32, [3]), 2)


def _err_reuse_size(tf):
    layer = tf.layers.Dense(2)
    layer(tf.placeholder(tf.float32, [4, 3]))
    layer(tf.placeholder(tf.float32, [4, 5]))


def _err_reuse_scope_size(tf):
    tf.layers.dense(tf.placeholder(tf.float32, [4, 3]), 2, name="d")
    tf.layers.dense(tf.placeholder(tf.float32, [4, 5]), 2, name="d", reuse=True)


def _err_collision(tf):
    x = tf.placeholder(tf.float32, [4, 3])
    tf.layers.dense(x, 2, name="dense")
    tf.layers.dense(x, 2, name="dense")


def _err_reuse_missing(tf):
    tf.layers.dense(tf.placeholder(tf.float32, [4, 3]), 2, name="nothere", reuse=True)


def _err_training_dtype(tf):
    x = tf.placeholder(tf.float32, [4, 3])
    tf.layers.batch_normalization(x, training=tf.placeholder(tf.float32, []))


def _err_dropout_training_dtype(tf):
    x = tf.placeholder(tf.float32, [4, 3])
    tf.layers.dropout(x, training=tf.placeholder(tf.int32, []))


def _err_conv_rank(tf):
    tf.layers.conv2d(tf.placeholder(tf.float32, [4, 6, 3]), 2, 3)


def _err_loss_shapes(tf):
    tf.losses.mean_squared_error(tf.zeros([3, 2]), tf.zeros([3, 3]))


def _err_softmax_shapes(tf):
    tf.losses.softmax_cross_entropy(tf.zeros([3, 2]), tf.zeros([3, 4]))


def _err_sigmoid_shapes(tf):
    tf.losses.sigmoid_cross_entropy(tf.zeros([3, 2]), tf.zeros([2, 2]))


def _err_loss_weights(tf):
    tf.losses.mean_squared_error(tf.zeros([3, 2]), tf.zeros([3, 2]), weights=tf.ones([2]))


def _err_reduction(tf):
    tf.losses.mean_squared_error(tf.zeros([3, 2]), tf.zeros([3, 2]), reduction="bogus")


def _err_cosine_axis(tf):
    tf.losses.cosine_distance(tf.zeros([3, 2]), tf.zeros([3, 2]))


def _err_labels_none(tf):
    tf.losses.absolute_difference(None, tf.zeros([3, 2]))


def _err_accuracy_shapes(tf):
    tf.metrics.accuracy(tf.zeros([3], tf.int64), tf.zeros([4], tf.int64))


def _err_auc_curve(tf):
    tf.metrics.auc(tf.zeros([3], tf.int64), tf.zeros([3]), curve="XY")


ERROR_CASES = {f.__name__[5:]: f for f in (
    _err_rank, _err_reuse_size, _err_reuse_scope_size, _err_collision, _err_reuse_missing,
    _err_training_dtype, _err_dropout_training_dtype, _err_conv_rank, _err_loss_shapes,
    _err_softmax_shapes, _err_sigmoid_shapes, _err_loss_weights, _err_reduction,
    _err_cosine_axis, _err_labels_none, _err_accuracy_shapes, _err_auc_curve)}
