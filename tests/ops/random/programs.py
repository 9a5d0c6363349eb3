"""TF1 graph programs over random ops, written once for TensorFlow and tfmini.

``tools/record_goldens_random.py`` runs them with ``tensorflow.compat.v1`` (graph mode) and
``tests/ops/random/test_random_goldens.py`` with tfmini; each returns a dict of arrays.
Also the case lists (op, dtypes, shapes, seeds) both sides iterate over.
"""

from __future__ import annotations

import numpy as np

FLOAT_OPS = ("RandomStandardNormal", "RandomUniform", "TruncatedNormal")
FLOATS = ("float16", "float32", "float64")
SHAPES = ((0,), (1,), (3,), (5,), (7, 3), (257,), (2, 0, 3))
SEEDS = ((7, 42), (0, 2147483647), (-3, 2**40 + 5), (123456789012, -1))
INT_CASES = (("int32", -7, 1000), ("int32", -(2**31), 2**31 - 1), ("int64", -7, 1000),
             ("int64", -(2**63), 2**63 - 1), ("int64", 0, 3))
STATELESS_OPS = ("StatelessRandomNormal", "StatelessRandomUniform", "StatelessTruncatedNormal")
STATELESS_SEEDS = ((3, 7), (-1, 2**40), (0, 0))
RUNS = 2


def _logits(rows, dtype="float32"):
    return np.log(np.array(rows, np.float64)).astype(dtype)


# The variable-cost samplers: name -> (raw op, its keyword arguments). Stateful ones are run
# RUNS times in one session; ops whose name starts with "Stateless" once. Multinomial inputs
# stay below TensorFlow's sharding cost (kMinCostPerShard), where its bits do not depend on
# the thread count.
SAMPLER_CASES = {
    "shuffle_range10": ("RandomShuffle", dict(value=np.arange(10), seed=87654321, seed2=5)),
    "shuffle_2d": ("RandomShuffle", dict(value=np.arange(33.0).reshape(11, 3), seed=3, seed2=4)),
    "shuffle_3d_f16": ("RandomShuffle", dict(
        value=np.arange(24, dtype=np.float16).reshape(6, 2, 2), seed=-3, seed2=2**40 + 5)),
    "shuffle_1000": ("RandomShuffle", dict(value=np.arange(1000, dtype=np.int32), seed=7,
                                          seed2=42)),
    "shuffle_one": ("RandomShuffle", dict(value=np.array([5.0]), seed=1, seed2=2)),
    "shuffle_empty_rows": ("RandomShuffle", dict(value=np.zeros((5, 0), np.int64), seed=1,
                                                seed2=2)),
    "multinomial_f32": ("Multinomial", dict(
        logits=_logits([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]), num_samples=7,
        seed=6, seed2=1)),
    "multinomial_inf_f64_i32": ("Multinomial", dict(
        logits=np.array([[-np.inf, 0.0, 1.0], [2.0, -np.inf, -np.inf]]), num_samples=5,
        output_dtype="int32", seed=6, seed2=1)),
    "multinomial_f16_wide": ("Multinomial", dict(
        logits=np.linspace(-3, 3, 20).reshape(2, 10).astype(np.float16), num_samples=20,
        seed=123456789012, seed2=-1)),
    "multinomial_zero_samples": ("Multinomial", dict(
        logits=np.zeros((2, 3), np.float32), num_samples=0, seed=1, seed2=2)),
    "gamma_f32": ("RandomGamma", dict(shape=np.array([5], np.int32),
                                      alpha=np.array([0.3, 1.0, 2.5, 40.0], np.float32),
                                      seed=7, seed2=8)),
    "gamma_f64_2d": ("RandomGamma", dict(shape=np.array([2, 3], np.int64),
                                         alpha=np.array([[0.05], [7.0]]), seed=1, seed2=2)),
    "gamma_f16": ("RandomGamma", dict(shape=np.array([9], np.int32),
                                      alpha=np.array([0.5, 1.0, 3.0], np.float16), seed=5,
                                      seed2=6)),
    # Results below the smallest normal float are zeros: TensorFlow runs kernels with
    # flush-to-zero on.
    "gamma_ftz_f32": ("RandomGamma", dict(shape=np.array([400], np.int32),
                                          alpha=np.array([0.05], np.float32), seed=11, seed2=12)),
    "gamma_ftz_f64": ("RandomGamma", dict(shape=np.array([50], np.int32),
                                          alpha=np.array([0.002]), seed=11, seed2=12)),
    "gamma_empty": ("RandomGamma", dict(shape=np.array([0], np.int32),
                                        alpha=np.array([2.0], np.float32), seed=5, seed2=6)),
    "poisson_f64_i64": ("RandomPoissonV2", dict(
        shape=np.array([6], np.int32), rate=np.array([0.0, 0.5, 3.0, 9.99, 10.0, 55.0, 1e4]),
        seed=7, seed2=8)),
    "poisson_f32_f32": ("RandomPoissonV2", dict(
        shape=np.array([3, 2], np.int32), rate=np.array([1.5, 12.0], np.float32),
        dtype="float32", seed=1, seed2=2)),
    "poisson_f16_f16": ("RandomPoissonV2", dict(
        shape=np.array([5], np.int64), rate=np.array([4.0, 30.0], np.float16),
        dtype="float16", seed=3, seed2=4)),
    "poisson_i32_i32": ("RandomPoissonV2", dict(
        shape=np.array([4], np.int32), rate=np.array([2, 11, 400], np.int32), dtype="int32",
        seed=5, seed2=6)),
    "poisson_i64_f64": ("RandomPoissonV2", dict(
        shape=np.array([3], np.int32), rate=np.array([[7], [70]], np.int64), dtype="float64",
        seed=5, seed2=6)),
    "ptn_scalar_f32": ("ParameterizedTruncatedNormal", dict(
        shape=[7, 5], means=np.float32(0.5), stdevs=np.float32(2.0), minvals=np.float32(-1.0),
        maxvals=np.float32(3.0), seed=3, seed2=4)),
    "ptn_scalar_f64_3rows": ("ParameterizedTruncatedNormal", dict(
        shape=[250], means=0.0, stdevs=1.0, minvals=1.0, maxvals=1.5, seed=5, seed2=6)),
    "ptn_neg_inf": ("ParameterizedTruncatedNormal", dict(
        shape=[3, 4], means=np.float32(0.0), stdevs=np.float32(1.0),
        minvals=np.array([-np.inf], np.float32), maxvals=np.array([-3.0], np.float32), seed=1,
        seed2=2)),
    **{f"ptn_rows_{dt}": ("ParameterizedTruncatedNormal", dict(
        shape=[4, 9], means=np.array([0.0, 1.0, -2.0, 5.0], dt),
        stdevs=np.array([1.0, 0.5, 2.0, 1.0], dt), minvals=np.array([-0.1, 3.0, -10.0, 4.9], dt),
        maxvals=np.array([0.1, np.inf, 10.0, 20.0], dt), seed=3, seed2=4)) for dt in FLOATS},
    # Large enough for TensorFlow to shard rows over several threads; the recorder runs it
    # with one intra-op thread, the order tfmini follows.
    "ptn_rows_1thread": ("ParameterizedTruncatedNormal", dict(
        shape=[12, 150], means=np.zeros(12, np.float32), stdevs=np.ones(12, np.float32),
        minvals=np.float32(-1.0), maxvals=np.linspace(-0.5, 4, 12).astype(np.float32), seed=7,
        seed2=8)),
    "multinomial_1thread": ("Multinomial", dict(
        logits=np.linspace(-2, 2, 300).reshape(6, 50).astype(np.float32), num_samples=200,
        output_dtype="int32", seed=9, seed2=10)),
    "Stateless_gamma_v2_f32": ("StatelessRandomGammaV2", dict(
        shape=[5, 2, 3], seed=np.array([1, 2], np.int64),
        alpha=np.array([[0.3, 1.0, 4.0], [0.05, 2.5, 60.0]], np.float32))),
    "Stateless_gamma_v2_f64_i32_seed": ("StatelessRandomGammaV2", dict(
        shape=np.array([7, 2], np.int64), seed=np.array([-5, 9], np.int32),
        alpha=np.array([0.7, 1.0]))),
    "Stateless_gamma_v2_f16": ("StatelessRandomGammaV2", dict(
        shape=[4, 3], seed=np.array([3, 7], np.int64), alpha=np.array([0.5, 1.0, 3.0],
                                                                      np.float16))),
    "Stateless_gamma_v2_empty": ("StatelessRandomGammaV2", dict(
        shape=[3, 0], seed=np.array([3, 7], np.int64), alpha=np.zeros([0], np.float32))),
    "Stateless_poisson_f64_i32": ("StatelessRandomPoisson", dict(
        shape=[6, 4], seed=np.array([1, 2], np.int64), lam=np.array([0.5, 3.0, 20.0, 500.0]),
        dtype="int32")),
    "Stateless_poisson_f32_f32": ("StatelessRandomPoisson", dict(
        shape=[5], seed=np.array([8, 9], np.int64), lam=np.float32(12.5), dtype="float32")),
    "Stateless_poisson_i64_f16": ("StatelessRandomPoisson", dict(
        shape=[3, 2], seed=np.array([8, 9], np.int64), lam=np.array([4, 40], np.int64),
        dtype="float16")),
    "Stateless_multinomial": ("StatelessMultinomial", dict(
        logits=np.array([[0.0, 1.0, 2.0, 3.0]], np.float32), num_samples=9,
        seed=np.array([3, 7], np.int64))),
    "Stateless_multinomial_i32_seed": ("StatelessMultinomial", dict(
        logits=_logits([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]], "float64"), num_samples=6,
        seed=np.array([-1, 2**30], np.int32), output_dtype="int32")),
}


def shape_key(shape) -> str:
    return "x".join(str(d) for d in shape) or "scalar"


def graph_seeded(tf) -> dict:
    """A graph seed, several seed requests (the per-graph counter), two runs, a new session."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1234)
        for i in range(17):
            tf.constant(float(i))
        a = tf.random_normal([4, 5])                                   # seed2 0
        v = tf.Variable(tf.random_uniform([3, 2], -1.0, 3.0), name="v")  # 1
        w = tf.get_variable("w", [6, 4])                               # 2: glorot uniform
        x = tf.reshape(tf.range(1.0, 201.0), [10, 20])
        d = tf.nn.dropout(x, rate=0.3)                                 # 3
        d9 = tf.nn.dropout(x, keep_prob=0.6, seed=9)                   # op seed 9
        u0 = tf.random_uniform([5], seed=0)                            # (1234, 0)
        t = tf.truncated_normal([3, 7], mean=tf.constant(1.5), stddev=0.5)  # 4
        ui = tf.random_uniform([9], minval=-3, maxval=11, dtype=tf.int32)   # 5
        u64 = tf.random_uniform([4], maxval=10.0, dtype=tf.float64)         # 6
        n16 = tf.random_normal([6], mean=2.0, stddev=3.0, dtype=tf.float16)  # 7
        init = tf.global_variables_initializer()
        fetch = {"a": a, "d": d, "d9": d9, "u0": u0, "t": t, "ui": ui, "u64": u64, "n16": n16}
        with tf.Session() as sess:
            sess.run(init)
            out["v"], out["w"] = sess.run([v, w])
            for r in range(2):
                for k, val in sess.run(fetch).items():
                    out[f"{k}/run{r}"] = val
        with tf.Session() as sess:  # a new session starts every stream again
            sess.run(init)
            out["w/session2"] = sess.run(w)
            out["a/session2"] = sess.run(a)
    return out


def op_seed_only(tf) -> dict:
    """No graph seed: op seeds pair with 87654321; two graphs give the same streams."""
    out = {}
    for gi in range(2):
        g = tf.Graph()
        with g.as_default():
            n = tf.random_normal([7], seed=11)
            tn = tf.truncated_normal([2, 3], seed=11, dtype=tf.float64)
            u = tf.random_uniform([5], minval=2.0, maxval=4.0, seed=12)
            with tf.Session() as sess:
                out[f"n/graph{gi}"], out[f"tn/graph{gi}"], out[f"u/graph{gi}"] = sess.run(
                    [n, tn, u])
    return out


def initializers(tf) -> dict:
    """The TF1 initializer classes under a graph seed (each call is one seed request)."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(99)
        inits = {
            "random_normal": tf.random_normal_initializer(0.5, 2.0),
            "truncated_normal": tf.truncated_normal_initializer(stddev=0.3),
            "random_uniform": tf.random_uniform_initializer(-0.2, 0.7),
            "uniform_unit_scaling": tf.uniform_unit_scaling_initializer(1.5),
            "variance_scaling": tf.variance_scaling_initializer(2.0, "fan_out", "normal"),
            "variance_untruncated": tf.variance_scaling_initializer(
                1.0, "fan_avg", "untruncated_normal"),
            "glorot_uniform": tf.glorot_uniform_initializer(),
            "glorot_normal": tf.glorot_normal_initializer(seed=3),
            "he_like": tf.variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed=4),
        }
        tensors = {k: init([5, 3, 4], dtype=tf.float32) for k, init in inits.items()}
        with tf.Session() as sess:
            out.update(sess.run(tensors))
    return out


def mlp(tf) -> dict:
    """get_variable defaults, truncated normal weights and dropout, trained a few steps."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(42)
        x = tf.random_normal([32, 8], seed=1)
        coef = tf.constant(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(8, 1))
        y = tf.matmul(x, coef)
        w1 = tf.get_variable("w1", [8, 16])
        b1 = tf.get_variable("b1", [16], initializer=tf.zeros_initializer())
        w2 = tf.Variable(tf.truncated_normal([16, 1], stddev=0.1), name="w2")
        h = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1) + b1), rate=0.25)
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            losses = [sess.run([loss, train])[0] for _ in range(8)]
    return {"losses": np.array(losses, np.float32)}


def gamma_grad(tf) -> dict:
    """tf.random_gamma and its gradient for alpha (RandomGammaGrad), float32 and float64, and
    RandomGammaGrad itself over a grid of (alpha, sample)."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        for dt in (tf.float32, tf.float64):
            alpha = tf.constant([[0.3, 1.0, 4.0], [0.05, 2.5, 60.0]], dt)
            beta = tf.constant([2.0, 0.5, 1.0], dt)
            s = tf.random_gamma([5], alpha, beta=beta, dtype=dt, seed=3)
            w = tf.constant(np.linspace(-1.0, 2.0, 30).reshape(5, 2, 3), dt)
            (da,) = tf.gradients(tf.reduce_sum(s * w), [alpha])
            out[f"sample/{dt.name}"], out[f"dalpha/{dt.name}"] = s, da
        alphas = np.repeat([0.01, 0.3, 1.0, 2.5, 40.0, 1000.0], 7)
        samples = np.tile([1e-6, 0.01, 0.5, 1.0, 3.0, 50.0, 1030.0], 6)
        out["grid/float64"] = tf.raw_ops.RandomGammaGrad(alpha=alphas, sample=samples)
        out["grid/float32"] = tf.raw_ops.RandomGammaGrad(alpha=alphas.astype(np.float32),
                                                         sample=samples.astype(np.float32))
        out["edges"] = tf.raw_ops.RandomGammaGrad(
            alpha=np.array([1.0, 0.5, 3.0, 1.0, -1.0, np.nan, 2.0]),
            sample=np.array([0.0, 1e-300, np.inf, -1.0, 1.0, 1.0, np.nan]))
        with tf.Session() as sess:
            return sess.run(out)


PROGRAMS = {"graph_seeded": graph_seeded, "op_seed_only": op_seed_only,
            "initializers": initializers, "mlp": mlp, "gamma_grad": gamma_grad}


# The stateless V2 ops: Philox key and counter given directly (a counter whose low half is
# about to carry, one with a large high half), alg 1 (Philox) and 3 (auto-select = Philox).
V2_KEY_COUNTERS = (
    (np.array([9222191355702222625], np.uint64), np.array([0, 8674681144361816581], np.uint64)),
    (np.array([2**64 - 1], np.uint64), np.array([2**64 - 2, 2**63 + 5], np.uint64)),
)
for _i, (_key, _counter) in enumerate(V2_KEY_COUNTERS):
    for _op in ("StatelessRandomNormalV2", "StatelessRandomUniformV2",
                "StatelessTruncatedNormalV2"):
        for _dt in FLOATS:
            for _shape in ((5,), (3, 7), (0,)):
                SAMPLER_CASES[f"Stateless_{_op}_{_dt}_{shape_key(_shape)}_{_i}"] = (_op, dict(
                    shape=list(_shape), key=_key, counter=_counter, alg=1 + 2 * _i, dtype=_dt))
    for _dt in ("int32", "int64", "uint32", "uint64"):
        SAMPLER_CASES[f"Stateless_full_int_{_dt}_{_i}"] = ("StatelessRandomUniformFullIntV2", dict(
            shape=[9], key=_key, counter=_counter, alg=1, dtype=_dt))
    for _dt, _lo, _hi in INT_CASES:
        SAMPLER_CASES[f"Stateless_int_{_dt}_{_lo}_{_hi}_{_i}"] = ("StatelessRandomUniformIntV2",
                                                               dict(
            shape=[11], key=_key, counter=_counter, alg=1, minval=np.array(_lo, _dt),
            maxval=np.array(_hi, _dt)))
for _seed in STATELESS_SEEDS:
    for _op in ("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg"):
        SAMPLER_CASES[f"Stateless_{_op}_{_seed[0]}_{_seed[1]}"] = (_op, dict(
            seed=np.array(_seed, np.int64)))
SAMPLER_CASES["Stateless_get_alg"] = ("StatelessRandomGetAlg", {})
SAMPLER_CASES["Stateless_gamma_v3"] = ("StatelessRandomGammaV3", dict(
    shape=[4, 2], key=V2_KEY_COUNTERS[1][0], counter=V2_KEY_COUNTERS[1][1], alg=1,
    alpha=np.array([0.4, 5.0], np.float32)))
for _dt in FLOATS:
    SAMPLER_CASES[f"Stateless_ptn_{_dt}"] = ("StatelessParameterizedTruncatedNormal", dict(
        shape=[5, 2, 3], seed=np.array([4, 5], np.int64),
        means=np.array([[0.0], [1.0]], _dt), stddevs=np.array([1.0, 0.5, 2.0], _dt),
        minvals=np.array([[-0.1, 3.0, -10.0], [-1.0, 2.0, 1.5]], _dt),
        maxvals=np.array(np.inf, _dt)))
SAMPLER_CASES["Stateless_ptn_scalars"] = ("StatelessParameterizedTruncatedNormal", dict(
    shape=[250], seed=np.array([4, 5], np.int32), means=np.float32(0.5),
    stddevs=np.float32(2.0), minvals=np.float32(-1.0), maxvals=np.float32(3.0)))
