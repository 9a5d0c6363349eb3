"""Keras-2 Adagrad and schedule cases shared by tools/record_goldens_keras.py and
tests/keras/test_goldens.py.

Each case is a function of ``(tf, K)``: ``tf`` is ``tensorflow.compat.v1`` (graph mode) when
recording and ``tfmini`` when testing; ``K`` has ``Adagrad`` (``tf_keras.optimizers.legacy``
or ``tm.keras.optimizers``) and ``schedules``. It builds a graph and returns
``(train_op or None, {name: tensor or variable}, steps)``; :func:`run_case` runs the train op
``steps`` times and records every watched value after each step. This module never imports
TensorFlow.
"""

from __future__ import annotations

import numpy as np

V0, V1 = [1.0, 2.0], [3.0, 4.0]
G0, G1 = [0.1, 0.1], [0.01, 0.01]


def _basic(dtype: str, steps: int = 3, **opt_kwargs):
    """keras adagrad_test testBasic: lr 3.0 on [1, 2] and [3, 4], constant gradients."""

    def case(tf, K):
        v0 = tf.Variable(np.array(V0, dtype), name="var0")
        v1 = tf.Variable(np.array(V1, dtype), name="var1")
        g0, g1 = tf.constant(np.array(G0, dtype)), tf.constant(np.array(G1, dtype))
        opt = K.Adagrad(**({"learning_rate": 3.0} | opt_kwargs))
        train = opt.apply_gradients(zip([g0, g1], [v0, v1]))
        watch = {"var0": v0, "var1": v1, "acc0": opt.get_slot(v0, "accumulator"),
                 "acc1": opt.get_slot(v1, "accumulator"), "iter": opt.iterations}
        return train, watch, steps

    return case


def _schedule_driven(make_schedule, steps: int = 6):
    """Adagrad on a quadratic loss with a learning-rate schedule (evaluated on iterations)."""

    def case(tf, K):
        w = tf.Variable(np.array([1.0, -2.0, 0.5], np.float32), name="w")
        opt = K.Adagrad(learning_rate=make_schedule(K.schedules))
        train = opt.minimize(lambda: tf.reduce_sum(tf.square(w - 0.25)), var_list=[w])
        return train, {"w": w, "acc": opt.get_slot(w, "accumulator")}, steps

    return case


def _quadratic(steps: int = 5, **opt_kwargs):
    """Adagrad on a two-variable loss whose gradients change every step, with options."""

    def case(tf, K):
        a = tf.Variable(np.array([[3.0, -4.0], [0.5, 2.0]], np.float32), name="a")
        b = tf.Variable(np.array([-1.5, 0.2], np.float32), name="b")
        opt = K.Adagrad(**({"learning_rate": 0.2} | opt_kwargs))

        def loss():
            return tf.reduce_sum(tf.square(a - 1.0)) * 2.0 + tf.reduce_sum(b * b * b)

        train = opt.minimize(loss, var_list=[a, b])
        return train, {"a": a, "b": b, "acc_a": opt.get_slot(a, "accumulator")}, steps

    return case


def _sparse_gather(indices, steps: int = 4, dtype: str = "float32", make_lr=None,
                   **opt_kwargs):
    """Gradients through a gather (IndexedSlices): only the looked-up rows change."""

    def case(tf, K):
        emb = tf.Variable(np.arange(12, dtype=dtype).reshape(6, 2) / 4.0 - 1.0, name="emb")
        lr = make_lr(K.schedules) if make_lr is not None else 0.5
        opt = K.Adagrad(**({"learning_rate": lr} | opt_kwargs))

        def loss():
            rows = tf.gather(emb, tf.constant(indices, dtype="int32"))
            return tf.reduce_sum(tf.square(rows) * np.array([1.0, 3.0], dtype))

        train = opt.minimize(loss, var_list=[emb])
        return train, {"emb": emb, "acc": opt.get_slot(emb, "accumulator")}, steps

    return case


def _indexed_slices(values, indices, dense_shape, steps: int = 3, dtype: str = "float32",
                    var=None, **opt_kwargs):
    """apply_gradients with a constant IndexedSlices gradient."""

    def case(tf, K):
        init = np.asarray(var, dtype) if var is not None else (
            np.arange(np.prod(dense_shape), dtype=dtype).reshape(dense_shape) / 2.0)
        v = tf.Variable(init, name="v")
        grad = tf.IndexedSlices(tf.constant(np.asarray(values, dtype)),
                                tf.constant(indices), tf.constant(dense_shape))
        opt = K.Adagrad(**({"learning_rate": 3.0} | opt_kwargs))
        train = opt.apply_gradients([(grad, v)])
        return train, {"v": v, "acc": opt.get_slot(v, "accumulator")}, steps

    return case


def _clip_dense(steps: int = 3, **opt_kwargs):
    """Constant gradients of different magnitudes so that every clipping option bites."""

    def case(tf, K):
        v0 = tf.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="v0")
        v1 = tf.Variable(np.array([[0.5], [-0.5]], np.float32), name="v1")
        g0 = tf.constant(np.array([3.0, -0.2, 4.0], np.float32))
        g1 = tf.constant(np.array([[0.3], [-0.4]], np.float32))
        opt = K.Adagrad(**({"learning_rate": 0.1} | opt_kwargs))
        train = opt.apply_gradients([(g0, v0), (g1, v1)])
        return train, {"v0": v0, "v1": v1, "acc0": opt.get_slot(v0, "accumulator"),
                       "acc1": opt.get_slot(v1, "accumulator")}, steps

    return case


def _schedule_values(make_schedule, int_step: bool = False):
    """The schedule's values at steps 0..11 (float32 steps, as the optimizer passes them,
    or int64)."""

    def case(tf, K):
        sched = make_schedule(K.schedules)
        if int_step:
            steps = [tf.constant(s, dtype="int64") for s in range(12)]
        else:
            steps = [tf.constant(float(s), dtype="float32") for s in range(12)]
        return None, {"lr": tf.stack([sched(s) for s in steps])}, 1

    return case


def _exp(s):
    return s.ExponentialDecay(0.5, decay_steps=3, decay_rate=0.6)


def _exp_stair(s):
    return s.ExponentialDecay(0.5, decay_steps=3, decay_rate=0.6, staircase=True)


def _inv(s):
    return s.InverseTimeDecay(0.5, decay_steps=2, decay_rate=0.7)


def _inv_stair(s):
    return s.InverseTimeDecay(0.5, decay_steps=2, decay_rate=0.7, staircase=True)


def _piecewise(s):
    return s.PiecewiseConstantDecay([2, 5], [0.6, 0.3, 0.1])


def _decay_equivalent(s):
    """keras testBasicWithLearningRateInverseTimeDecay: the same numbers as decay=0.5."""
    return s.InverseTimeDecay(3.0, decay_steps=1.0, decay_rate=0.5)


def _inverse_time_basic(tf, K):
    v0 = tf.Variable(np.array(V0, np.float32), name="var0")
    v1 = tf.Variable(np.array(V1, np.float32), name="var1")
    opt = K.Adagrad(_decay_equivalent(K.schedules))
    train = opt.apply_gradients(zip([tf.constant(G0), tf.constant(G1)], [v0, v1]))
    return train, {"var0": v0, "var1": v1}, 3


def _sparse_stability(tf, K):
    """keras testSparseStability: float16, tiny gradients; the accumulator stays 0.1."""
    shape = [1, 6]
    v = tf.Variable(np.array([[0.00872496, -0.106952, 0.110467, 0.226505, -0.0147257,
                               -0.0105945]], np.float16), name="v")
    g = np.array([[-5.91278e-05, 5.31673e-05, -2.5779e-06, 4.29153e-05, -8.4877e-05,
                   -9.48906e-05]], np.float16)
    grad = tf.IndexedSlices(tf.constant(g), tf.constant([0]), tf.constant(shape))
    opt = K.Adagrad(1.0)
    train = opt.apply_gradients([(grad, v)])
    return train, {"v": v, "acc": opt.get_slot(v, "accumulator")}, 20


def _zero_accumulator(tf, K):
    """initial_accumulator_value 0 with a zero gradient: epsilon keeps it finite."""
    v = tf.Variable(np.array([1.0, -1.0], np.float32), name="v")
    opt = K.Adagrad(0.5, initial_accumulator_value=0.0)
    train = opt.apply_gradients([(tf.constant([0.0, 2.0]), v)])
    return train, {"v": v, "acc": opt.get_slot(v, "accumulator")}, 3


def _sharing(tf, K):
    """keras testSharing: two apply ops of one optimizer share the accumulators."""
    v0 = tf.Variable(np.array(V0, np.float32), name="var0")
    v1 = tf.Variable(np.array(V1, np.float32), name="var1")
    opt = K.Adagrad(3.0)
    first = opt.apply_gradients(zip([tf.constant(G0), tf.constant(G1)], [v0, v1]))
    second = opt.apply_gradients(zip([tf.constant(G0), tf.constant(G1)], [v0, v1]))
    train = tf.group(first, second)
    # tf.group runs both updates in one step, in no fixed order: each step is two updates.
    return train, {"var0": v0, "var1": v1, "iter": opt.iterations}, 2


def _tensor_lr(tf, K):
    v0 = tf.Variable(np.array(V0, np.float32), name="var0")
    opt = K.Adagrad(tf.constant(3.0))
    train = opt.apply_gradients([(tf.constant(G0), v0)])
    return train, {"var0": v0}, 3


def _callable_lr(tf, K):
    v0 = tf.Variable(np.array(V0, np.float32), name="var0")
    opt = K.Adagrad(lambda: 3.0)
    train = opt.apply_gradients([(tf.constant(G0), v0)])
    return train, {"var0": v0}, 3


TRAJECTORY_CASES = {
    "basic_float16": _basic("float16"),
    "basic_float32": _basic("float32"),
    "basic_float64": _basic("float64"),
    "decay": _basic("float32", decay=0.5),
    "large_epsilon": _basic("float32", epsilon=1.0),
    "epsilon_none": _basic("float32", epsilon=None),
    "lr_alias": _basic("float32", lr=1.0),
    "lr_alias_wins": _basic("float32", learning_rate=0.1, lr=1.0),
    "initial_accumulator": _basic("float64", initial_accumulator_value=0.7),
    "inverse_time_equivalent": _inverse_time_basic,
    "tensor_lr": _tensor_lr,
    "callable_lr": _callable_lr,
    "sharing": _sharing,
    "zero_accumulator": _zero_accumulator,
    "quadratic": _quadratic(),
    "quadratic_decay": _quadratic(decay=0.3),
    "quadratic_clipvalue": _quadratic(clipvalue=0.5),
    "quadratic_clipnorm": _quadratic(clipnorm=1.5),
    "quadratic_global_clipnorm": _quadratic(global_clipnorm=2.0),
    "quadratic_clipvalue_clipnorm": _quadratic(clipvalue=1.0, clipnorm=1.2),
    "quadratic_clipvalue_global": _quadratic(clipvalue=1.0, global_clipnorm=1.5),
    "clip_dense_clipvalue": _clip_dense(clipvalue=0.25),
    "clip_dense_clipnorm": _clip_dense(clipnorm=1.0),
    "clip_dense_global_clipnorm": _clip_dense(global_clipnorm=2.0),
    "clip_dense_all_small": _clip_dense(clipvalue=0.1, global_clipnorm=0.05),
    "clip_dense_decay_clipnorm": _clip_dense(clipnorm=0.5, decay=0.2),
    "sched_exponential": _schedule_driven(_exp),
    "sched_exponential_staircase": _schedule_driven(_exp_stair),
    "sched_inverse_time": _schedule_driven(_inv),
    "sched_inverse_time_staircase": _schedule_driven(_inv_stair),
    "sched_piecewise": _schedule_driven(_piecewise),
    "sched_exponential_decay": _schedule_driven(
        lambda s: s.ExponentialDecay(0.4, 2, 0.5)),
    "sparse_gather": _sparse_gather([0, 2]),
    "sparse_gather_repeated": _sparse_gather([4, 1, 4, 4]),
    "sparse_gather_float64_decay": _sparse_gather([5, 0, 5], dtype="float64", decay=0.25),
    "sparse_gather_clipvalue": _sparse_gather([1, 3, 1], clipvalue=0.6),
    "sparse_gather_clipnorm": _sparse_gather([1, 3, 1], clipnorm=0.8),
    "sparse_gather_global_clipnorm": _sparse_gather([1, 3, 1], global_clipnorm=1.1),
    "sparse_gather_schedule": _sparse_gather(
        [2, 2, 0], steps=5,
        make_lr=lambda s: s.PiecewiseConstantDecay([1, 3], [0.5, 0.2, 0.9])),
    "sparse_basic": _indexed_slices([[0.1], [0.01]], [0, 2], [3, 1], var=[[1.0], [0.0], [2.0]]),
    "sparse_single_dim": _indexed_slices([0.1], [1], [3], var=[1.0, 2.0, 3.0]),
    "sparse_repeated": _indexed_slices([[0.1], [0.1]], [1, 1], [2, 1], var=[[1.0], [2.0]]),
    "sparse_aggregated": _indexed_slices([[0.2]], [1], [2, 1], var=[[1.0], [2.0]]),
    "sparse_int64_indices": _indexed_slices(
        [[0.5, -0.5], [1.0, 2.0], [0.25, 0.0]], np.array([3, 0, 3], np.int64), [4, 2]),
    "sparse_stability_half": _sparse_stability,
}


SCHEDULE_VALUE_CASES = {
    "exponential": _schedule_values(_exp),
    "exponential_staircase": _schedule_values(_exp_stair),
    "exponential_int_step": _schedule_values(_exp_stair, int_step=True),
    "inverse_time": _schedule_values(_inv),
    "inverse_time_staircase": _schedule_values(_inv_stair),
    "inverse_time_int_step": _schedule_values(_inv, int_step=True),
    "piecewise": _schedule_values(_piecewise),
    "piecewise_int_step": _schedule_values(_piecewise, int_step=True),
    "piecewise_float_boundaries": _schedule_values(
        lambda s: s.PiecewiseConstantDecay([1.5, 2.0, 7.25], [1.0, 0.5, 0.25, 0.125])),
}

# Optimizers whose get_config (before any variable exists) is recorded; each also
# round-trips through from_config.
CONFIG_CASES = {
    "default": lambda K: K.Adagrad(),
    "full": lambda K: K.Adagrad(0.3, initial_accumulator_value=0.2, epsilon=1e-5,
                                name="MyAda", clipvalue=2, decay=0.5),
    "clipnorm": lambda K: K.Adagrad(clipnorm=1.0),
    "global_clipnorm": lambda K: K.Adagrad(global_clipnorm=3.0, clipvalue=0.5),
    "epsilon_none": lambda K: K.Adagrad(epsilon=None),
    "epsilon_zero": lambda K: K.Adagrad(epsilon=0),
    "lr_alias": lambda K: K.Adagrad(lr=0.3),
    "lr_alias_wins": lambda K: K.Adagrad(learning_rate=0.1, lr=1.0),
    "schedule_exponential": lambda K: K.Adagrad(_exp_stair(K.schedules), clipnorm=1.0),
    "schedule_inverse_time": lambda K: K.Adagrad(_inv(K.schedules)),
    "schedule_piecewise": lambda K: K.Adagrad(_piecewise(K.schedules)),
}

# Constructor arguments TF-Keras rejects: recorded as "<ExceptionClass>: <message>".
CONSTRUCTOR_ERROR_CASES = {
    "unknown_kwarg": {"foo": 1},
    "negative_clipnorm": {"clipnorm": -1},
    "negative_clipvalue": {"clipvalue": -0.5},
    "negative_global_clipnorm": {"global_clipnorm": -2.0},
    "negative_decay": {"decay": -0.1},
    "negative_lr": {"lr": -1},
    "clipnorm_and_global": {"clipnorm": 1.0, "global_clipnorm": 1.0},
    "negative_initial_accumulator": {"initial_accumulator_value": -0.1},
}


def run_case(tf, K, case) -> dict:
    """Builds ``case`` in a new graph and returns ``{name: values stacked over steps}``."""
    graph = tf.Graph()
    with graph.as_default():
        train, watch, steps = case(tf, K)
        names = sorted(watch)
        out: dict = {n: [] for n in names}
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                if train is not None:
                    sess.run(train)
                for n, value in zip(names, sess.run([watch[n] for n in names])):
                    out[n].append(np.asarray(value))
    return {n: np.stack(v) for n, v in out.items()}


def names_case(tf, K) -> dict:
    """Variable names: the optimizer's weights and every global variable, after minimize
    and a second apply_gradients (whose name scope is made unique)."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.name_scope("outer"):
            w = tf.Variable(np.ones(2, np.float32), name="w")
        v = tf.Variable(np.ones(3, np.float32))
        opt = K.Adagrad(0.1)
        train = opt.minimize(lambda: tf.reduce_sum(w * w) + tf.reduce_sum(v), var_list=[w, v])
        again = opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
        return {
            "weights": [x.name for x in opt.weights],
            "globals": [x.name for x in tf.global_variables()],
            "train_op": train.name,
            "again_op": again.name,
            "slot_names": list(opt.get_slot_names()),
        }
