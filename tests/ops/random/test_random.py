"""The random family: streams and sessions, seeds, the Python API, bad input, statistics, and
the glibc port (tfmini/ops/random/)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.random import distributions, libm, philox


def _run(build, n=1, feed=None):
    g = tm.Graph()
    with g.as_default():
        t = build()
    with tm.Session(graph=g) as sess:
        return [sess.run(t, feed) for _ in range(n)]


# -- generator -------------------------------------------------------------------------------


def test_philox_known_answers():
    assert philox.blocks((0, 0), 0, 1)[0].tolist() == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                       0x9B00DBD8]
    ones = philox.counter_of((0xFFFFFFFF,) * 4)
    assert philox.blocks((0xFFFFFFFF, 0xFFFFFFFF), ones, 1)[0].tolist() == [
        0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    key, counter = philox.key_counter_from_seeds(7, 42)
    assert philox.blocks(key, counter, 1)[0].tolist() == [0x26E1506B, 0x522D1A45, 0x2C008730,
                                                          0x05B6C59D]


def test_philox_counter_carries_into_the_high_half():
    base = (1 << 64) - 2
    got = philox.blocks((5, 6), base, 4)
    for i in range(4):
        np.testing.assert_array_equal(got[i], philox.blocks((5, 6), base + i, 1)[0])


def test_chunked_fill_equals_unchunked(monkeypatch):
    key, counter = philox.key_counter_from_seeds(3, 4)
    whole = distributions.normal(np.float32, key, counter, 5001)
    monkeypatch.setattr(distributions, "CHUNK_BLOCKS", 7)
    np.testing.assert_array_equal(distributions.normal(np.float32, key, counter, 5001), whole)


# -- glibc port ------------------------------------------------------------------------------

_needs_libm = pytest.mark.skipif(not libm.c_libm_available(), reason="no C math library")


def _box_muller_inputs(n, seed):
    words = np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    u = np.maximum(philox.uniform_float32(words), np.float32(1e-7))
    v = (2 * math.pi * u.astype(np.float64)).astype(np.float32)
    return u, v


@_needs_libm
def test_logf_port_equals_the_c_library():
    u, _ = _box_muller_inputs(200_000, 1)
    extra = np.array([1.0, 1e-7, 0.5, 2.0, 3.0e38, 1.2e-38, 0.99999994], np.float32)
    x = np.concatenate([u, extra])
    np.testing.assert_array_equal(libm.logf(x).view(np.uint32),
                                  libm.c_call("logf", x).view(np.uint32))


@_needs_libm
def test_fast_expf_equals_the_c_library():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-110, 90, 300_000), rng.standard_normal(300_000),
                        [0.0, -0.0, 88.72284, 88.7229, -87.33655, -103.97, -104.0, np.inf,
                         -np.inf, np.nan]]).astype(np.float32)
    with np.errstate(over="ignore"):
        want = libm.c_expf(x)
    np.testing.assert_array_equal(libm.expf(x).view(np.uint32), want.view(np.uint32))


@_needs_libm
def test_sincosf_port_equals_the_c_library():
    _, v = _box_muller_inputs(200_000, 2)
    extra = np.array([0.0, 1e-5, 2.0**-12, 0.7853982, 1.5707964, 3.1415927, 6.2831850, 119.0],
                     np.float32)
    x = np.concatenate([v, extra])
    s, c = libm.sincosf(x)
    np.testing.assert_array_equal(s.view(np.uint32), libm.c_call("sinf", x).view(np.uint32))
    np.testing.assert_array_equal(c.view(np.uint32), libm.c_call("cosf", x).view(np.uint32))


@_needs_libm
def test_the_port_differs_from_correctly_rounded_results():
    # Why the port exists: rounding the double result differs from glibc's logf at times.
    u, _ = _box_muller_inputs(100_000, 3)
    rounded = np.log(u.astype(np.float64)).astype(np.float32)
    assert np.sum(rounded != libm.c_call("logf", u)) > 100


# -- streams and sessions ------------------------------------------------------------------


def test_runs_advance_and_a_new_session_restarts():
    g = tm.Graph()
    with g.as_default():
        x = tm.raw_ops.RandomStandardNormal(shape=[5], dtype=tm.float32, seed=7, seed2=42)
    with tm.Session(graph=g) as sess:
        first, second = sess.run(x), sess.run(x)
    with tm.Session(graph=g) as sess:
        again = sess.run(x)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(second[:4], np.array(
        [-1.2684573, 0.6156434, 1.1196663, 0.34456915], np.float32))


def test_a_failed_run_gives_its_numbers_back():
    g = tm.Graph()
    with g.as_default():
        x = tm.raw_ops.RandomUniform(shape=[4], dtype=tm.float32, seed=1, seed2=2)
        p = tm.placeholder(tm.float32, [None])
        bad = tm.raw_ops.RandomUniformInt(shape=tm.cast(p, tm.int32)[:1], minval=3, maxval=3)
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run([x, bad], {p: [2.0]})
        after_failure = sess.run(x)
    with tm.Session(graph=g) as sess:
        fresh = sess.run(x)
    np.testing.assert_array_equal(after_failure, fresh)


def test_unseeded_ops_differ_between_sessions():
    g = tm.Graph()
    with g.as_default():
        x = tm.random_uniform([8])
    assert x.op.inputs[0].op.graph is g and x.op.get_attr("seed") == 0
    with tm.Session(graph=g) as s1, tm.Session(graph=g) as s2:
        assert not np.array_equal(s1.run(x), s2.run(x))


# -- seeds -----------------------------------------------------------------------------------


def test_get_seed_rules():
    with tm.Graph().as_default():
        assert tm.get_seed(None) == (None, None)
        assert tm.get_seed(5) == (87654321, 5)
        assert tm.random.get_seed(2**31 + 3) == (87654321, 4)
        tm.set_random_seed(0)
        assert tm.get_seed(None) == (0, 2**31 - 1)  # (0, 0) is avoided
        assert tm.get_seed(None) == (0, 1)
        tm.constant(1.0)  # other ops do not count
        assert tm.get_seed(None) == (0, 2)
        assert tm.get_seed(9) == (0, 9)
        assert tm.get_seed(None) == (0, 3)
        assert tm.get_default_graph().seed == 0
    with tm.Graph().as_default():  # the counter is per graph
        tm.random.set_random_seed(-5)
        assert tm.get_seed(None) == ((-5) % (2**31 - 1), 0)


def test_same_seeds_in_two_graphs_give_the_same_stream():
    def build():
        tm.set_random_seed(77)
        return [tm.random_normal([3]), tm.random_uniform([2], 1.0, 2.0), tm.truncated_normal([4])]

    a = _run(build)[0]
    b = _run(build)[0]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


# -- Python API ------------------------------------------------------------------------------


def test_random_normal_builds_tensorflows_ops():
    g = tm.Graph()
    with g.as_default():
        tm.random_normal([2, 3], seed=1)
        tm.random_uniform([2])
        tm.random_uniform([2], maxval=5)
    assert [(op.name, op.type) for op in g.get_operations()] == [
        ("random_normal/shape", "Const"), ("random_normal/mean", "Const"),
        ("random_normal/stddev", "Const"),
        ("random_normal/RandomStandardNormal", "RandomStandardNormal"),
        ("random_normal/mul", "Mul"), ("random_normal", "AddV2"),
        ("random_uniform/shape", "Const"),
        ("random_uniform/RandomUniform", "RandomUniform"),
        ("random_uniform_1/shape", "Const"), ("random_uniform_1/min", "Const"),
        ("random_uniform_1/max", "Const"), ("random_uniform_1/RandomUniform", "RandomUniform"),
        ("random_uniform_1/Mul", "Mul")]


def test_tensor_arguments():
    def build():
        shape = tm.placeholder(tm.int32, [2])
        mean = tm.constant(10.0)
        hi = tm.constant(7)
        return shape, [tm.random.normal(shape, mean=mean, stddev=tm.constant(0.1), seed=1),
                       tm.random.uniform(shape, minval=tm.constant(3), maxval=hi,
                                         dtype=tm.int32, seed=2)]

    g = tm.Graph()
    with g.as_default():
        shape, outs = build()
    with tm.Session(graph=g) as sess:
        n, u = sess.run(outs, {shape: [3, 4]})
    assert n.shape == (3, 4) and abs(n.mean() - 10.0) < 0.2
    assert u.dtype == np.int32 and u.min() >= 3 and u.max() < 7


def test_namespace_aliases():
    for name in ("normal", "uniform", "truncated_normal", "shuffle", "categorical", "gamma",
                 "poisson", "set_random_seed", "get_seed", "stateless_normal",
                 "stateless_uniform", "stateless_truncated_normal", "stateless_categorical",
                 "multinomial"):
        assert callable(getattr(tm.random, name)), name
    for name in ("random_normal", "truncated_normal", "random_uniform", "random_shuffle",
                 "multinomial", "random_gamma", "random_poisson", "random_crop",
                 "set_random_seed", "get_seed"):
        assert callable(getattr(tm, name)), name


def test_shuffle_crop_categorical_gamma_poisson():
    def build():
        return [tm.random_shuffle(tm.range(10), seed=1),
                tm.random_crop(tm.reshape(tm.range(48), [6, 8]), [2, 3], seed=2),
                tm.random.categorical(tm.log([[0.1, 0.9], [1.0, 0.0]]), 50, seed=3),
                tm.random_gamma([1000], [0.5, 4.0], beta=[1.0, 2.0], seed=4),
                tm.random_poisson([2.0, 10.0], [2000], seed=5),
                tm.random.stateless_categorical(tm.log([[0.5, 0.5]]), 8, seed=[1, 2])]

    shuffled, crop, cat, gam, poi, scat = _run(build)[0]
    assert sorted(shuffled.tolist()) == list(range(10))
    assert crop.shape == (2, 3) and np.all(np.diff(crop, axis=1) == 1)
    assert cat.shape == (2, 50) and cat.dtype == np.int64 and np.all(cat[1] == 0)
    assert gam.shape == (1000, 2)
    np.testing.assert_allclose(gam.mean(axis=0), [0.5, 2.0], rtol=0.15)
    assert poi.shape == (2000, 2)
    np.testing.assert_allclose(poi.mean(axis=0), [2.0, 10.0], rtol=0.08)
    assert scat.shape == (1, 8)


def test_stateless_same_seed_same_numbers():
    a, b = _run(lambda: [tm.random.stateless_normal([5], seed=[4, 2]),
                         tm.random.stateless_normal([5], seed=[4, 2])], 2)
    np.testing.assert_array_equal(a[0], a[1])
    np.testing.assert_array_equal(a[0], b[0])


# -- initializers and dropout --------------------------------------------------------------


def test_initializer_configs_round_trip():
    for init in (tm.random_normal_initializer(1.0, 2.0, seed=3),
                 tm.truncated_normal_initializer(stddev=0.5),
                 tm.random_uniform_initializer(-1.0, 1.0), tm.glorot_uniform_initializer(),
                 tm.variance_scaling_initializer(2.0, "fan_out", "uniform"),
                 tm.uniform_unit_scaling_initializer(1.2), tm.orthogonal_initializer(2.0),
                 tm.identity_initializer(3.0), tm.zeros_initializer()):
        clone = type(init).from_config(init.get_config())
        assert clone.get_config() == init.get_config()


def test_orthogonal_and_identity():
    q, eye = _run(lambda: [tm.orthogonal_initializer(gain=2.0, seed=1)([3, 5]),
                           tm.identity_initializer(2.0)([2, 3])])[0]
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(3), atol=1e-5)
    np.testing.assert_array_equal(eye, 2.0 * np.eye(2, 3))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        with tm.Graph().as_default():
            tm.orthogonal_initializer()([3])


def test_get_variable_default_is_glorot_uniform():
    g = tm.Graph()
    with g.as_default():
        w = tm.get_variable("w", [40, 60])
        init = tm.global_variables_initializer()
    assert "w/Initializer/random_uniform/RandomUniform" in [op.name for op in g.get_operations()]
    with tm.Session(graph=g) as sess:
        sess.run(init)
        value = sess.run(w)
    limit = math.sqrt(6 / 100)
    assert value.min() >= -limit and value.max() < limit and abs(value.mean()) < 0.02


def test_dropout_arguments():
    with tm.Graph().as_default():
        x = tm.ones([4])
        with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'"):
            tm.nn.dropout(x, keep_prob=0.5, rate=0.5)
        with pytest.raises(ValueError, match="must be provided"):
            tm.nn.dropout(x)
        with pytest.raises(ValueError, match=r"range \[0, 1\)"):
            tm.nn.dropout(x, rate=1.0)
        with pytest.raises(ValueError, match=r"range \[0, 1\)"):
            tm.nn.dropout(x, rate=-0.1)
        with pytest.raises(ValueError, match="floating point"):
            tm.nn.dropout(tm.ones([3], tm.int32), rate=0.5)
        assert tm.nn.dropout(x, rate=0.0) is not None


def test_dropout_gradient_is_the_mask_times_the_scale():
    g = tm.Graph()
    with g.as_default():
        x = tm.ones([1000])
        rate = tm.placeholder(tm.float32, [])
        y = tm.nn.dropout(x, rate=rate, seed=1)
        (dx,) = tm.gradients(tm.reduce_sum(y), [x])
    with tm.Session(graph=g) as sess:
        y_val, dx_val = sess.run([y, dx], {rate: 0.4})
    np.testing.assert_allclose(dx_val, y_val, rtol=1e-6)
    np.testing.assert_allclose(np.unique(y_val), [0.0, 1 / 0.6], rtol=1e-6)
    assert 0.3 < np.mean(y_val == 0) < 0.5


def test_no_gradient_through_samplers():
    with tm.Graph().as_default():
        mean = tm.constant(1.0)
        y = tm.random_normal([3], mean=mean, seed=1)
        (dmean,) = tm.gradients(tm.reduce_sum(y), [mean])
        assert dmean is not None  # through AddV2, not through the sampler
        s = tm.raw_ops.RandomShuffle(value=mean * tm.ones([3]), seed=1)
        assert tm.gradients(tm.reduce_sum(s), [mean]) == [None]


# -- statistics ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tm.float16, tm.float32, tm.float64])
def test_statistics(dtype):
    n = 200_000
    normal, uniform, trunc, ints = _run(lambda: [
        tm.random_normal([n], dtype=dtype, seed=1), tm.random_uniform([n], dtype=dtype, seed=2),
        tm.truncated_normal([n], dtype=dtype, seed=3),
        tm.random_uniform([n], -3, 4, dtype=tm.int64, seed=4)])[0]
    normal, uniform, trunc = (v.astype(np.float64) for v in (normal, uniform, trunc))
    assert abs(normal.mean()) < 0.01 and abs(normal.var() - 1) < 0.02
    assert uniform.min() >= 0 and uniform.max() < 1
    assert abs(uniform.mean() - 0.5) < 0.005 and abs(uniform.var() - 1 / 12) < 0.002
    # The magnitude test is on float32 values; half rounding may then reach 2 exactly.
    assert np.abs(trunc).max() <= 2 if dtype == tm.float16 else np.abs(trunc).max() < 2
    assert abs(trunc.mean()) < 0.01
    assert abs(trunc.std() - 0.87962566103423978) < 0.01
    assert set(np.unique(ints)) == set(range(-3, 4))
    assert abs(np.mean(ints) - 0.0) < 0.03


def test_parameterized_truncated_normal_bounds():
    out = _run(lambda: tm.raw_ops.ParameterizedTruncatedNormal(
        shape=[2, 20000], means=[0.0, 5.0], stdevs=[1.0, 2.0], minvals=[-0.5, 4.0],
        maxvals=[1.0, 9.0], seed=1))[0]
    assert out[0].min() >= -0.5 and out[0].max() <= 1.0
    assert out[1].min() >= 4.0 and out[1].max() <= 9.0
    assert abs(out[0].mean() - 0.2066) < 0.02  # the truncated normal's mean on [-0.5, 1]


# -- bad input -------------------------------------------------------------------------------


def _run_error(build, feed=None):
    g = tm.Graph()
    with g.as_default():
        t, feed = build()
    with tm.Session(graph=g) as sess:
        sess.run(t, feed)


def test_bad_input_errors_name_the_op():
    def uniform_int_equal_bounds():
        return tm.random_uniform([3], 5, 5, dtype=tm.int32, name="ri"), None

    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"RandomUniformInt 'ri'.*Need minval < maxval, got 5 >= 5"):
        _run_error(uniform_int_equal_bounds)

    def negative_fed_shape():
        p = tm.placeholder(tm.int32, [2])
        return tm.raw_ops.RandomStandardNormal(shape=p, dtype=tm.float32, name="rn"), {p: [2, -3]}

    with pytest.raises(tm.errors.InvalidArgumentError, match=r"RandomStandardNormal 'rn'.*-3"):
        _run_error(negative_fed_shape)

    def huge():
        p = tm.placeholder(tm.int64, [3])
        return tm.raw_ops.RandomUniform(shape=p, dtype=tm.float32, name="big"), {
            p: [1 << 20, 1 << 20, 1 << 20]}

    with pytest.raises(tm.errors.ResourceExhaustedError, match=r"RandomUniform 'big'.*OOM"):
        _run_error(huge)

    def too_many():
        p = tm.placeholder(tm.int64, [4])
        return tm.raw_ops.TruncatedNormal(shape=p, dtype=tm.float32, name="tn"), {
            p: [1 << 40, 1 << 40, 1 << 40, 1 << 40]}

    with pytest.raises(tm.errors.InvalidArgumentError, match=r"TruncatedNormal 'tn'"):
        _run_error(too_many)

    def stateless_bad_seed():
        p = tm.placeholder(tm.int64, [None])
        return tm.raw_ops.StatelessRandomNormal(shape=[2], seed=p, name="sn"), {p: [1, 2, 3]}

    with pytest.raises(tm.errors.InvalidArgumentError, match=r"seed must have shape \[2\]"):
        _run_error(stateless_bad_seed)


def test_bad_build_arguments():
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="Must specify maxval"):
            tm.random_uniform([2], dtype=tm.int32)
        with pytest.raises(ValueError, match="Invalid dtype"):
            tm.random_uniform([2], dtype=tm.bool_)
        with pytest.raises(TypeError):
            tm.random_normal([2.5, 3])
        with pytest.raises(TypeError):
            tm.raw_ops.RandomStandardNormal(shape=[2], dtype=tm.int32)
        with pytest.raises(ValueError):
            tm.random_normal([2, -3])
        with pytest.raises(ValueError, match="rank 0"):
            tm.raw_ops.RandomUniformInt(shape=[2], minval=[1, 2], maxval=5)


def test_zero_sized_outputs_skip_the_bounds_check():
    out = _run(lambda: tm.random_uniform([0, 3], 5, 5, dtype=tm.int64))[0]
    assert out.shape == (0, 3) and out.dtype == np.int64


def test_initializer_namespaces():
    with tm.Graph().as_default():
        assert isinstance(tm.initializers.glorot_uniform(), tm.glorot_uniform_initializer)
        k = tm.keras.initializers.get("he_normal")
        assert k.scale == 2.0 and k.mode == "fan_in"
        rn = tm.keras.initializers.get({"class_name": "RandomNormal", "config": {"seed": 3}})
        assert rn.stddev == 0.05 and rn.seed == 3
        again = tm.keras.initializers.deserialize(tm.keras.initializers.serialize(rn))
        assert again.get_config() == rn.get_config()
        assert tm.keras.initializers.RandomUniform().minval == -0.05
        assert tm.keras.initializers.get(None) is None


def test_double_sin_cos_and_log_equal_the_c_library():
    words = np.random.default_rng(5).integers(0, 2**32, (20_000, 4), dtype=np.uint64)
    words = words.astype(np.uint32)
    v = 2 * math.pi * philox.uniform_float64(words[:, 0], words[:, 1])
    u = np.maximum(philox.uniform_float64(words[:, 2], words[:, 3]), 1e-7)
    s, c = libm.sincos(v)
    np.testing.assert_array_equal(s, [math.sin(t) for t in v])
    np.testing.assert_array_equal(c, [math.cos(t) for t in v])
    np.testing.assert_array_equal(libm.log(u), [math.log(t) for t in u])


# -- the stateless V2 ops and the variable-cost samplers: errors and state ------------------


@pytest.mark.parametrize("key, counter, alg, message", [
    ([1, 2], [0, 0], 1, r"key must have shape \[1\], not \[2\]\. \(Note that batched keys"),
    ([1], [0], 1, r"counter must be a vector with length at least 2; got shape: \[1\]"),
    ([1], [0, 0], 2, r"Unsupported algorithm id: 2"),
    ([1], [0, 0], 0, r"Unsupported algorithm id: 0"),
])
def test_stateless_v2_bad_inputs(key, counter, alg, message):
    def build():
        k = tm.placeholder(tm.uint64, [None])
        c = tm.placeholder(tm.uint64, [None])
        a = tm.placeholder(tm.int32, [])
        out = tm.raw_ops.StatelessRandomNormalV2(shape=[3], key=k, counter=c, alg=a, name="v2")
        return out, {k: np.array(key, np.uint64), c: np.array(counter, np.uint64), a: alg}

    with pytest.raises(tm.errors.InvalidArgumentError, match=r"StatelessRandomNormalV2 'v2'.*"
                       + message):
        _run_error(build)


def test_stateless_v2_equals_v1_through_get_key_counter():
    seed = np.array([-5, 2**35], np.int64)

    def build():
        key, counter = tm.raw_ops.StatelessRandomGetKeyCounter(seed=seed)
        return [tm.raw_ops.StatelessTruncatedNormalV2(shape=[4, 5], key=key, counter=counter,
                                                      alg=3, dtype=tm.float64),
                tm.raw_ops.StatelessTruncatedNormal(shape=[4, 5], seed=seed, dtype=tm.float64)]

    v2, v1 = _run(build)[0]
    np.testing.assert_array_equal(v2, v1)


@pytest.mark.parametrize("build, message", [
    (lambda: tm.raw_ops.Multinomial(logits=np.zeros((2, 0), np.float32), num_samples=0),
     r"num_classes should be positive, got 0"),
    (lambda: tm.raw_ops.Multinomial(logits=tm.placeholder_with_default(
        np.zeros((2, 3), np.float32), [2, 3]), num_samples=tm.placeholder_with_default(-1, [])),
     r"num_samples should be non-negative, got -1"),
    (lambda: tm.raw_ops.StatelessMultinomial(logits=np.zeros((1, 3), np.float32), num_samples=2,
                                             seed=tm.placeholder_with_default(
                                                 np.array([1, 2, 3], np.int64), [None])),
     r"seed must have shape \[2\], not \[3\]"),
    (lambda: tm.raw_ops.RandomGamma(shape=[2], alpha=np.zeros([0], np.float32)),
     r"Input alpha should have non-zero element count, got: 0"),
    (lambda: tm.raw_ops.ParameterizedTruncatedNormal(
        shape=[2, 3], means=np.zeros(2, np.float32), stdevs=np.float32(1),
        minvals=np.float32(1), maxvals=np.float32(1)), r"Invalid parameters"),
    (lambda: tm.raw_ops.StatelessRandomGammaV2(
        shape=tm.placeholder_with_default(np.array([3], np.int32), [None]),
        seed=np.array([1, 2], np.int64), alpha=np.array([0.5, 2.0], np.float32)),
     r"Shape passed in must end with broadcasted shape\."),
    (lambda: tm.raw_ops.StatelessParameterizedTruncatedNormal(
        shape=[4, 3], seed=np.array([1, 2], np.int64),
        means=tm.placeholder_with_default(np.zeros(2, np.float32), [None]),
        stddevs=tm.placeholder_with_default(np.ones(3, np.float32), [None]),
        minvals=np.float32(-1), maxvals=np.float32(1)),
     r"means, stddevs, minvals, maxvals must have compatible batch dimensions: \[2\] vs\. "
     r"\[3\] vs\. \[\] vs\. \[\]"),
    (lambda: tm.raw_ops.StatelessRandomPoisson(
        shape=tm.placeholder_with_default(np.array([3, 4], np.int32), [None]),
        seed=np.array([1, 2], np.int64), lam=np.array([0.5, 2.0]), dtype=tm.int32),
     r"Shape passed in must end with broadcasted shape\."),
    (lambda: tm.raw_ops.ParameterizedTruncatedNormal(
        shape=[2, 3], means=np.zeros(3, np.float32), stdevs=np.float32(1),
        minvals=np.float32(0), maxvals=np.float32(1)),
     r"Input means should have length 1 or shape\[0\], got shape: \[3\]"),
])
def test_sampler_bad_inputs(build, message):
    with pytest.raises(tm.errors.InvalidArgumentError, match=message):
        _run_error(lambda: (build(), None))


@pytest.mark.parametrize("make", [
    lambda: tm.raw_ops.RandomShuffle(value=np.arange(10), seed=3, seed2=1),
    lambda: tm.raw_ops.Multinomial(logits=np.zeros((2, 4), np.float32), num_samples=5, seed=3),
    lambda: tm.raw_ops.RandomGamma(shape=[3], alpha=np.array([0.5, 2.0], np.float32), seed=3),
    lambda: tm.raw_ops.RandomPoissonV2(shape=[3], rate=np.array([2.0, 30.0]), seed=3),
])
def test_a_failed_run_gives_the_samplers_numbers_back(make):
    g = tm.Graph()
    with g.as_default():
        sample = make()
        bad = tm.raw_ops.Reshape(tensor=tm.placeholder(tm.float32, [None]), shape=[2])
        out = tm.stack([tm.cast(tm.reduce_sum(tm.cast(sample, tm.float32)), tm.float32),
                        tm.reduce_sum(bad)])
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(out, {bad.op.inputs[0]: np.zeros(3, np.float32)})
        first = sess.run(sample)
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(sample), first)


def test_poisson_rates_that_never_finish_in_tensorflow_give_nan():
    out = _run(lambda: tm.raw_ops.RandomPoissonV2(
        shape=[2], rate=np.array([np.nan, np.inf, 3.0]), dtype=tm.float64, seed=1))[0]
    assert np.isnan(out[:, :2]).all() and np.isfinite(out[:, 2]).all()


@pytest.mark.parametrize("base", [0, 5, (1 << 32) - 3, (7 << 96) | (3 << 64) | (0xFFFFFFFF << 32),
                                  (1 << 128) - 2, 123456789 << 40])
def test_words_of_a_run_equal_the_blocks_one_by_one(base):
    # The fast path (constant first rounds) against the general one, across word carries.
    from tfmini.ops.random import philox

    key = (0x9E3779B9, 12345)
    for count in (1, 5, 100):
        run = philox.words_run(key, base, count)
        one_by_one = philox.words_at(key, base, np.arange(count, dtype=np.uint64))
        for a, b in zip(run, one_by_one):
            np.testing.assert_array_equal(a, b)
        low = philox.words_run(key, base, count, low_words_only=True)
        for a, b in zip(low, one_by_one):
            np.testing.assert_array_equal(a & np.uint64(0xFFFFFFFF), b)
