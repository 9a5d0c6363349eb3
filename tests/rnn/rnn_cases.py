"""TF1 RNN programs written once against the ``tf.compat.v1`` API: tools/record_goldens_rnn.py
runs them under TensorFlow 2.21 (tf_keras legacy cells), tests/rnn/test_rnn_goldens.py under
tfmini.

A case is ``fn(tf) -> dict`` with ``runs``: ``(label, fetches, feeds)`` run in order in one
session after the variables are initialised (fetches: a flat dict of tensors/ops);
``names``: tensors or variables whose names are compared; ``collections``: collection keys
whose member names are compared. ``ERROR_CASES`` build (and run) something TensorFlow refuses.
"""

from __future__ import annotations

import numpy as np

RNG = np.random.RandomState(13)
X = RNG.uniform(-1, 1, size=(3, 5, 4)).astype(np.float32)  # [batch, time, depth]
X2 = RNG.uniform(-1, 1, size=(2, 3)).astype(np.float32)
LENGTHS = np.array([5, 2, 3], np.int32)
TARGET = RNG.uniform(-1, 1, size=(3, 5, 3)).astype(np.float32)
LABELS = np.array([1, 0, 2], np.int32)
X43 = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 10], [0, 1, -1]], np.float32)


def _glorot(tf, seed):
    return tf.glorot_uniform_initializer(seed=seed)


def _leaves(prefix, value):
    """A flat ``{name: tensor}`` of a tensor or a nested tuple of them (LSTM states)."""
    if isinstance(value, (list, tuple)):
        fields = getattr(value, "_fields", None) or [str(i) for i in range(len(value))]
        out = {}
        for name, v in zip(fields, value):
            out.update(_leaves(f"{prefix}.{name}", v))
        return out
    return {prefix: value}


def _var_fetches(tf, skip=("Adam", "power", "RMSProp", "Momentum")):
    return {v.name.replace(":0", "").replace("/", "."): v for v in tf.global_variables()
            if not any(s in v.name for s in skip)}


def _grads(tf, loss, xs, prefix="grad"):
    return {f"{prefix}.{x.name.replace(':0', '').replace('/', '.')}": g
            for x, g in zip(xs, tf.gradients(loss, xs)) if g is not None}


def _train(tf, loss, optimizer, steps, feeds, extra=None):
    train = optimizer.minimize(loss)
    runs = [(f"step{i}", {"loss": loss, "train": train}, feeds) for i in range(steps)]
    runs.append(("final", {**_var_fetches(tf), "loss": loss, **(extra or {})}, feeds))
    return runs


# ------------------------------------------------------------------------------------------
# Cells, one step


def basic_lstm_vector(tf):
    x = tf.constant([[1.0, 2.0]])
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        out, state = cell(x, cell.zero_state(1, tf.float32))
    fetches = {"out": out, **_leaves("state", state), **_var_fetches(tf)}
    return {"runs": [("step", fetches, {})], "names": {"out": out, **_leaves("state", state)},
            "collections": ["variables", "trainable_variables"],
            "weights": [w.name for w in cell.weights]}


def cells_one_step(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    cells = {
        "rnn": tf.nn.rnn_cell.BasicRNNCell(4),
        "gru": tf.nn.rnn_cell.GRUCell(4, kernel_initializer=_glorot(tf, 3)),
        "lstm_concat": tf.nn.rnn_cell.BasicLSTMCell(3, forget_bias=0.5, state_is_tuple=False),
        "lstm_full": tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=0.3, num_proj=2,
                                             proj_clip=0.2, initializer=_glorot(tf, 4),
                                             forget_bias=0.7),
        "lstm_proj_concat": tf.nn.rnn_cell.LSTMCell(3, num_proj=2, state_is_tuple=False,
                                                    initializer=_glorot(tf, 5)),
        "gru_act": tf.nn.rnn_cell.GRUCell(2, activation=tf.nn.relu,
                                          bias_initializer=tf.constant_initializer(0.3)),
    }
    fetches, names = {}, {}
    for i, (key, cell) in enumerate(cells.items()):
        with tf.variable_scope(key, initializer=_glorot(tf, 10 + i)):
            state = tf.nn.rnn_cell.LSTMStateTuple(*[
                tf.constant(np.full(s, 0.25, np.float32))
                for s in [(2, cell.state_size[0]), (2, cell.state_size[1])]]) \
                if isinstance(cell.state_size, tuple) else \
                tf.constant(np.linspace(-0.5, 0.5, 2 * cell.state_size, dtype=np.float32)
                            .reshape(2, cell.state_size))
            out, new_state = cell(x, state)
            out2, state2 = cell(x * 2.0, new_state)  # reused weights, second step
        leaves = {f"{key}.out": out, f"{key}.out2": out2, **_leaves(f"{key}.state", state2)}
        fetches.update(leaves)
        names.update(leaves)
        fetches.update(_grads(tf, tf.reduce_sum(out2 * out2), [x] + cell.trainable_weights,
                              prefix=f"{key}.grad"))
    fetches.update(_var_fetches(tf))
    return {"runs": [("step", fetches, {x: X2})], "names": names,
            "collections": ["variables", "trainable_variables"]}


# ------------------------------------------------------------------------------------------
# Drivers


def dynamic_lstm_lengths(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    with tf.variable_scope("scope", initializer=_glorot(tf, 21)):
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.reduce_sum(outputs * TARGET) + tf.reduce_sum(state.c)
    fetches = {"outputs": outputs, **_leaves("state", state), "loss": loss,
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X})],
            "names": {"outputs": outputs, **_var_fetches(tf)},
            "collections": ["variables", "trainable_variables"]}


def dynamic_gru_adam(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.GRUCell(3, kernel_initializer=_glorot(tf, 31))
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs - TARGET)) + 0.1 * tf.reduce_sum(state)
    return {"runs": _train(tf, loss, tf.train.AdamOptimizer(0.05), 4, {x: X},
                           {"outputs": outputs, "state": state}),
            "names": {"outputs": outputs}, "collections": ["variables", "trainable_variables"]}


def dynamic_multi_lstm_sgd(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    tf.set_random_seed(3)
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True),
                                        tf.nn.rnn_cell.BasicLSTMCell(3)])
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    logits = outputs[:, -1, :]
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS,
                                                                         logits=logits))
    return {"runs": _train(tf, loss, tf.train.GradientDescentOptimizer(0.5), 3, {x: X},
                           {"outputs": outputs, **_leaves("state", state)}),
            "names": {"outputs": outputs},
            "collections": ["variables", "trainable_variables"],
            "weights": [w.name for w in cell.weights]}


def dynamic_time_major_initial_state(tf):
    x = tf.placeholder(tf.float32, [5, 3, 4], name="x")
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    init = tf.constant(np.full((3, 2), 0.3, np.float32))
    with tf.variable_scope("tm", initializer=_glorot(tf, 41)):
        outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=init, time_major=True,
                                           parallel_iterations=4, swap_memory=True)
    loss = tf.reduce_sum(tf.sin(outputs))
    fetches = {"outputs": outputs, "state": state,
               **_grads(tf, loss, [x, init] + tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X.transpose(1, 0, 2)})],
            "names": {"outputs": outputs}, "collections": ["trainable_variables"]}


def static_lstm_sgd(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    inputs = tf.unstack(x, axis=1)
    cell = tf.nn.rnn_cell.LSTMCell(3, initializer=_glorot(tf, 51), num_proj=2)
    outputs, state = tf.nn.static_rnn(cell, inputs, sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.add_n([tf.reduce_sum(o * o) for o in outputs]) + tf.reduce_sum(state.h)
    return {"runs": _train(tf, loss, tf.train.GradientDescentOptimizer(0.1), 3, {x: X},
                           {**{f"out{i}": o for i, o in enumerate(outputs)},
                            **_leaves("state", state)}),
            "names": {"out0": outputs[0]}, "collections": ["variables", "trainable_variables"]}


def static_gru_no_lengths(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.GRUCell(3)
    with tf.variable_scope("s", initializer=_glorot(tf, 61)):
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
    loss = tf.reduce_sum(outputs[-1]) + tf.reduce_sum(outputs[1] * outputs[2])
    fetches = {"state": state, **{f"out{i}": o for i, o in enumerate(outputs)},
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X})], "names": {"state": state},
            "collections": ["variables"]}


def bidirectional_dynamic(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    with tf.variable_scope("b", initializer=_glorot(tf, 71)):
        (fw, bw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2), x,
            sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.reduce_sum(fw * TARGET) + tf.reduce_sum(tf.square(bw))
    fetches = {"fw": fw, "bw": bw, **_leaves("sfw", sfw), "sbw": sbw,
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    # bw is the backward outputs reversed back: a ReverseSequence op's name.
    return {"runs": [("run", fetches, {x: X})], "names": {"bw": bw},
            "collections": ["variables", "trainable_variables"]}


def bidirectional_dynamic_time_major(tf):
    x = tf.placeholder(tf.float32, [5, 3, 4], name="x")
    with tf.variable_scope("b", initializer=_glorot(tf, 72)):
        (fw, bw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicRNNCell(2), x,
            dtype=tf.float32, time_major=True, scope="birnn")
    loss = tf.reduce_sum(fw * bw)
    fetches = {"fw": fw, "bw": bw, "sfw": sfw, "sbw": sbw,
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    # Without lengths the reversal is a ReverseV2 op.
    return {"runs": [("run", fetches, {x: X.transpose(1, 0, 2)})], "names": {"bw": bw},
            "collections": ["variables"]}


def bidirectional_static(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    with tf.variable_scope("sb", initializer=_glorot(tf, 81)):
        outputs, sfw, sbw = tf.nn.static_bidirectional_rnn(
            tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(3), tf.unstack(x, axis=1),
            sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.add_n([tf.reduce_sum(tf.square(o)) for o in outputs])
    fetches = {**{f"out{i}": o for i, o in enumerate(outputs)}, "sfw": sfw, "sbw": sbw,
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X})], "names": {},
            "collections": ["variables", "trainable_variables"]}


def dropout_static(tf):
    tf.set_random_seed(5)
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.BasicLSTMCell(3), input_keep_prob=0.7, output_keep_prob=0.8,
        state_keep_prob=0.6, seed=9)
    with tf.variable_scope("d", initializer=_glorot(tf, 91)):
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
    fetches = {**{f"out{i}": o for i, o in enumerate(outputs)}, **_leaves("state", state)}
    return {"runs": [("run1", fetches, {x: X}), ("run2", fetches, {x: X})],
            "names": {}, "collections": ["variables"],
            "weights": [w.name for w in cell.weights]}


def dropout_dynamic(tf):
    tf.set_random_seed(6)
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3), output_keep_prob=0.5,
                                         seed=4)
    with tf.variable_scope("d", initializer=_glorot(tf, 92)):
        # One iteration at a time: TensorFlow's executor would otherwise draw the masks of
        # parallel iterations in whatever order it schedules them.
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, parallel_iterations=1)
    return {"runs": [("run1", {"outputs": outputs, "state": state}, {x: X}),
                     ("run2", {"outputs": outputs, "state": state}, {x: X})],
            "names": {}, "collections": ["variables"]}


def dropout_variational(tf):
    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.BasicLSTMCell(3), input_keep_prob=0.8, output_keep_prob=0.7,
        state_keep_prob=0.6, variational_recurrent=True, input_size=4, dtype=tf.float32,
        seed=11)
    with tf.variable_scope("v", initializer=_glorot(tf, 93)):
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, parallel_iterations=1)
    fetches = {"outputs": outputs, **_leaves("state", state)}
    return {"runs": [("run1", fetches, {x: X}), ("run2", fetches, {x: X})],
            "names": {}, "collections": ["variables"]}


def residual_device_multi(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.MultiRNNCell([
        tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(4), "/cpu:0"),
        tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(4)),
        tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(4),
                                       residual_fn=lambda i, o: i - 0.5 * o),
    ])
    with tf.variable_scope("r", initializer=_glorot(tf, 94)):
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    loss = tf.reduce_sum(tf.square(outputs))
    fetches = {"outputs": outputs, **_leaves("state", state),
               **_grads(tf, loss, [x] + tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X})], "names": {},
            "collections": ["variables", "trainable_variables"],
            "weights": [w.name for w in cell.weights]}


def multi_concat_state(tf):
    x = tf.placeholder(tf.float32, [3, 5, 4], name="x")
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.GRUCell(2)], state_is_tuple=False)
    with tf.variable_scope("m", initializer=_glorot(tf, 95)):
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
    return {"runs": [("run", {"last": outputs[-1], "state": state}, {x: X})], "names": {},
            "collections": ["variables"]}


def raw_rnn_emit(tf):
    x = tf.placeholder(tf.float32, [5, 3, 4], name="x")  # time-major
    lengths = tf.constant(LENGTHS)
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=5).unstack(x)

    def loop_fn(time, cell_output, cell_state, loop_state):
        emit = cell_output
        state = cell.zero_state(3, tf.float32) if cell_output is None else cell_state
        finished = time >= lengths
        all_done = tf.reduce_min(tf.cast(finished, tf.int32)) > 0
        nxt = tf.cond(all_done, lambda: tf.zeros([3, 4], tf.float32),
                      lambda: inputs_ta.read(tf.minimum(time, 4)))
        return finished, nxt, state, emit, None

    with tf.variable_scope("raw", initializer=_glorot(tf, 96)):
        emit_ta, final_state, _ = tf.nn.raw_rnn(cell, loop_fn)
    outputs = emit_ta.stack()
    loss = tf.reduce_sum(outputs) + tf.reduce_sum(final_state.h)
    fetches = {"outputs": outputs, **_leaves("state", final_state),
               **_grads(tf, loss, tf.trainable_variables())}
    return {"runs": [("run", fetches, {x: X.transpose(1, 0, 2)})], "names": {},
            "collections": ["variables"]}


def e2e_rmsprop(tf):
    # The dense -> batch norm -> RMSProp vector, update ops as control dependencies.
    x = tf.constant(X43)
    t = tf.constant(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], np.float32))
    k = np.array([[0.1, -0.2], [0.3, 0.1], [-0.1, 0.2]], np.float32)
    h = tf.layers.dense(x, 2, kernel_initializer=tf.constant_initializer(k))
    out = tf.layers.batch_normalization(h, training=True)
    loss = tf.losses.mean_squared_error(t, out)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    runs = [(f"step{i}", {"loss": loss, "train": train}, {}) for i in range(3)]
    slots = {v.name.replace(":0", "").replace("/", "."): v for v in tf.global_variables()
             if "RMSProp" in v.name}
    runs.append(("final", {**_var_fetches(tf), **slots, "loss": loss}, {}))
    return {"runs": runs, "names": {"loss": loss, **slots},
            "collections": ["variables", "trainable_variables", "update_ops"]}


CASES = {f.__name__: f for f in (
    basic_lstm_vector, cells_one_step, dynamic_lstm_lengths, dynamic_gru_adam,
    dynamic_multi_lstm_sgd, dynamic_time_major_initial_state, static_lstm_sgd,
    static_gru_no_lengths, bidirectional_dynamic, bidirectional_dynamic_time_major,
    bidirectional_static, dropout_static, dropout_dynamic, dropout_variational,
    residual_device_multi, multi_concat_state, raw_rnn_emit, e2e_rmsprop)}


# ------------------------------------------------------------------------------------------
# Errors: built (and, for run-time checks, run) under each framework.


def _err_dynamic_rank2(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), tf.placeholder(tf.float32, [3, 4]),
                      dtype=tf.float32)


def _err_dynamic_unknown_depth(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [3, 5, None]),
                      dtype=tf.float32)


def _err_dynamic_no_dtype(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [3, 5, 4]))


def _err_cell_rank3(tf):
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    cell(tf.placeholder(tf.float32, [3, 5, 4]), tf.zeros([3, 3]))


def _err_state_size(tf):
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 5, 4]),
                      initial_state=tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([2, 3]),
                                                                  tf.zeros([2, 5])))


def _err_state_structure(tf):
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 5, 4]), initial_state=tf.zeros([2, 6]))


def _err_reuse_input_size(tf):
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 5, 4]), dtype=tf.float32)
    tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 5, 6]), dtype=tf.float32)


def _err_variable_exists(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [2, 5, 4]),
                      dtype=tf.float32)
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3, name="gru_cell"),
                      tf.placeholder(tf.float32, [2, 5, 4]), dtype=tf.float32)


def _err_seq_len_matrix(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [2, 5, 4]),
                      sequence_length=[[5, 5]], dtype=tf.float32)


def _err_seq_len_time_major_mixup(tf):
    # Batch-major data declared time-major: the loop's batch is 5, sequence_length has 3.
    x = tf.placeholder(tf.float32, [3, 5, 4])
    lengths = tf.placeholder(tf.int32, [None])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, sequence_length=lengths,
                               dtype=tf.float32, time_major=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(out, {x: X, lengths: LENGTHS})


def _err_static_not_list(tf):
    tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [2, 4]),
                     dtype=tf.float32)


def _err_static_empty(tf):
    tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), [], dtype=tf.float32)


def _err_not_a_cell(tf):
    tf.nn.dynamic_rnn(lambda x, s: (x, s), tf.placeholder(tf.float32, [2, 5, 4]),
                      dtype=tf.float32)


def _err_multi_empty(tf):
    tf.nn.rnn_cell.MultiRNNCell([])


def _err_keep_prob(tf):
    tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3), input_keep_prob=1.5)


def _err_variational_no_dtype(tf):
    tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3), variational_recurrent=True)


def _err_int_inputs(tf):
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.int32, [2, 5, 4]),
                      dtype=tf.int32)


ERROR_CASES = {f.__name__[5:]: f for f in (
    _err_dynamic_rank2, _err_dynamic_unknown_depth, _err_dynamic_no_dtype, _err_cell_rank3,
    _err_state_size, _err_state_structure, _err_reuse_input_size, _err_variable_exists,
    _err_seq_len_matrix, _err_seq_len_time_major_mixup, _err_static_not_list,
    _err_static_empty, _err_not_a_cell, _err_multi_empty, _err_keep_prob,
    _err_variational_no_dtype, _err_int_inputs)}
