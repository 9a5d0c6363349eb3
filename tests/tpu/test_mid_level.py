"""tm.tpu mid-level API: TF's configurations and errors (goldens), and training end to end.

The end-to-end tests use the setup of TensorFlow's ``tpu_embedding_base_test.py``
(tensorflow/python/tpu/tests/tpu_embedding_base_test.py): tables "video" (8x4, sum; features
watched, favorited) and "user" (16x2, mean; feature friends) initialised to 0..31 row-major, and
check activations, table gradients and the optimizer updates of that test's reference, computed here
in NumPy.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import attrs
import numpy as np
import pytest

import tfmini as tm

T = tm.tpu
# Written by tools/record_goldens_tpu_config.py from TensorFlow 2.21's mid-level objects.
GOLDEN = json.loads((Path(__file__).parents[1] / "goldens" / "tpu_config.json").read_text())

# ---- the configuration TensorFlow's mid-level API produces -------------------------------


def _proto_dict(msg):
    """``json_format.MessageToDict`` of the equivalent proto (defaults left out)."""
    out = {}
    for field in attrs.fields(type(msg)):
        value = getattr(msg, field.name)
        kind = field.metadata["kind"]
        if kind == "msg":
            if value is not None:
                out[field.name] = _proto_dict(value)
        elif kind == "repeated_msg":
            if value:
                out[field.name] = [_proto_dict(v) for v in value]
        elif kind == "repeated_int":
            if value:
                out[field.name] = list(value)
        elif kind == "enum":
            if value != field.metadata["names"][0]:
                out[field.name] = value
        elif kind == "opt_float":
            if value is not None:
                out[field.name] = value
        elif field.name in ("lower", "upper"):  # FloatValue wrappers: unset means infinite
            if math.isfinite(value):
                out[field.name] = value
        elif field.name == "vocabulary_size":  # int64 prints as a string
            if value:
                out[field.name] = str(value)
        elif value:
            out[field.name] = value
    return out


def _same(ours, theirs, path="config"):
    """Equal, with floats compared as the float32 values the proto stores."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), (path, ours, theirs)
        for k in theirs:
            _same(ours[k], theirs[k], f"{path}.{k}")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), (path, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(theirs, float) and not isinstance(theirs, bool):
        assert np.float32(ours) == np.float32(theirs), (path, ours, theirs)
    else:
        assert ours == theirs and type(ours) is type(theirs), (path, ours, theirs)


def _mid_level_from_spec(spec):
    callables = {}

    def kwargs(kw):
        out = {}
        for k, v in kw.items():
            if isinstance(v, str) and v.startswith("dyn:"):
                v = callables.setdefault(v, lambda: 0.1)
            if k == "clipvalue" and isinstance(v, list):
                v = tuple(v)
            out[k] = v
        return out

    def optimizer(s):
        return None if s is None else getattr(T, s[0])(**kwargs(s[1]))

    tables = []
    for t in spec["tables"]:
        t = dict(t)
        opt = optimizer(t.pop("optimizer", None))
        tables.append(T.TableConfig(**t, optimizer=opt))

    def feature(f):
        f = dict(f)
        return T.FeatureConfig(table=tables[f.pop("table")], **f)

    features = spec["features"]
    fc = ({k: feature(v) for k, v in features.items()} if isinstance(features, dict)
          else [feature(v) for v in features])
    return T.TPUEmbedding(fc, optimizer(spec["optimizer"]), batch_size=spec["batch_size"],
                          num_hosts=spec["num_hosts"])


@pytest.mark.parametrize("case", sorted(GOLDEN["cases"]))
def test_configuration_matches_tensorflows_mid_level(case, graph):
    golden = GOLDEN["cases"][case]
    emb = _mid_level_from_spec(golden["spec"])
    _same(_proto_dict(emb.config), golden["config"])
    # ...and what the ops receive parses back to the same configuration.
    assert T.TPUEmbeddingConfiguration.FromString(emb.config_string) == emb.config


def test_golden_comparison_can_fail(graph):
    golden = GOLDEN["cases"]["sgd_single_feature"]
    spec = dict(golden["spec"], optimizer=["SGD", {"learning_rate": 0.2}])
    with pytest.raises(AssertionError):
        _same(_proto_dict(_mid_level_from_spec(spec).config), golden["config"])


def _error_call(spec):
    cls, kw = spec
    kw = dict(kw)
    if kw.get("table") == "TABLE":
        kw["table"] = T.TableConfig(vocabulary_size=2, dim=2)
    if isinstance(kw.get("clipvalue"), list):
        kw["clipvalue"] = tuple(kw["clipvalue"])
    getattr(T, cls)(**kw)


@pytest.mark.parametrize("case", sorted(GOLDEN["errors"]))
def test_constructor_errors_are_tensorflows(case):
    golden = GOLDEN["errors"][case]
    expected = golden["message"].replace("tf.tpu.experimental.embedding.", "tm.tpu.")
    with pytest.raises(ValueError) as info:
        _error_call(golden["spec"])
    assert str(info.value) == expected


def test_duplicate_table_names_error_is_tensorflows(graph):
    t1 = T.TableConfig(vocabulary_size=2, dim=2, name="same")
    t2 = T.TableConfig(vocabulary_size=2, dim=2, name="same")
    with pytest.raises(ValueError) as info:
        T.TPUEmbedding([T.FeatureConfig(t1), T.FeatureConfig(t2)], T.SGD(), batch_size=2)
    assert str(info.value) == GOLDEN["duplicate_table_names"]


@pytest.mark.parametrize("make, match", [
    # TensorFlow's message prints beta_1's value here (a typo); tfmini prints beta_2's.
    (lambda: T.Adam(beta_2=1.5), r"^Argument `beta_2` must be >= 0 and < 1. Received: 1.5.$"),
    (lambda: T.Adam(lazy_adam=False, use_gradient_accumulation=False),
     r"When disabling lazy Adam"),
    (lambda: T.SGD(learning_rate=math.nan), r"`learning_rate` must be finite"),
    (lambda: T.FTRL(learning_rate_power=0.5), r"lr_power must be <= 0"),
    (lambda: T.FTRL(l1_regularization_strength=-1.0), r"l1 must be >= 0"),
    (lambda: T.TableConfig(3, 2, combiner=None), r"should either be a str or a CustomCombiner"),
    (lambda: T.TableConfig(3, 2, dtype="int32"), r"`dtype` must be float32"),
    (lambda: T.TableConfig(True, 2), r"`vocabulary_size` must be an int"),
])
def test_other_constructor_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_learning_rate_type_is_checked():
    with pytest.raises(TypeError, match=r"`learning_rate` must be a float or a callable"):
        T.Adagrad(learning_rate="0.1")


def test_optimizer_defaults_are_tensorflows():
    assert T.SGD().learning_rate == 0.01
    assert (T.Adagrad().learning_rate, T.Adagrad().initial_accumulator_value) == (0.001, 0.1)
    a = T.Adam()
    assert (a.learning_rate, a.beta_1, a.beta_2, a.epsilon, a.lazy_adam, a.sum_inside_sqrt) == (
        0.001, 0.9, 0.999, 1e-07, True, True)
    f = T.FTRL()
    assert (f.learning_rate, f.learning_rate_power, f.initial_accumulator_value) == (
        0.001, -0.5, 0.1)
    assert T.SGD(clipvalue=2.0).clip_gradient_min == -2.0
    assert (T.SGD(clipvalue=(None, 1.0)).clip_gradient_min,
            T.SGD(clipvalue=(None, 1.0)).clip_gradient_max) == (None, 1.0)
    t = T.TableConfig(5, 4)
    assert t.combiner == "mean" and (t.initializer.mean, t.initializer.stddev) == (0.0, 0.5)
    assert T.FeatureConfig(t).max_sequence_length == 0


@pytest.mark.parametrize("make, match", [
    (lambda t: T.TPUEmbedding({"a": T.FeatureConfig(t)}, None, batch_size=2),
     r"<class 'NoneType'> is an unsupported optimizer class"),
    (lambda t: T.TPUEmbedding({"a": T.FeatureConfig(t)}, "sgd", batch_size=2),
     r"<class 'str'> is an unsupported optimizer class"),
    (lambda t: T.TPUEmbedding({"a": T.FeatureConfig(t)}, T.SGD()),
     r"Feature a has no output_shape: pass batch_size"),
    (lambda t: T.TPUEmbedding({"a": T.FeatureConfig(t)}, T.SGD(), batch_size=0),
     r"batch_size must be an int >= 1"),
    (lambda t: T.TPUEmbedding({"a": t}, T.SGD(), batch_size=2),
     r"feature_config at a is a TableConfig, expected a tm.tpu.FeatureConfig"),
    (lambda t: T.TPUEmbedding({"a": T.FeatureConfig(t, output_shape=[None])}, T.SGD()),
     r"Input Feature a has output shape set as \(None,\) which is not fully defined"),
])
def test_tpu_embedding_construction_errors(make, match, graph):
    with pytest.raises(ValueError, match=match):
        make(T.TableConfig(4, 2))


def test_tables_are_ordered_and_named_as_tensorflow(graph):
    a, b = T.TableConfig(4, 2), T.TableConfig(6, 3, name="named")
    emb = T.TPUEmbedding({"z": T.FeatureConfig(a), "y": T.FeatureConfig(b),
                          "x": T.FeatureConfig(b)}, T.SGD(), batch_size=2)
    # Features flatten in sorted key order (x, y, z): b is met first.
    assert emb.table_names == ["named", "table_1"]
    assert [f.table_id for f in emb.config.feature_descriptor] == [0, 0, 1]
    assert set(emb.embedding_tables) == {a, b}
    assert set(emb.variables["named"]) == {"parameters"}


# ---- end to end on the simulated device --------------------------------------------------

VIDEO = np.arange(32, dtype=np.float32).reshape(8, 4)
USER = np.arange(32, dtype=np.float32).reshape(16, 2)
WATCHED = [[0], [0, 1], [0, 1], [1]]
FAVORITED = [[0, 1], [1], [0], [0, 1]]
FRIENDS = [[3], [0, 1, 2], [3], [0, 1, 2]]
BATCH = 4


def _sparse(rows):
    idx = np.array([[b, j] for b, r in enumerate(rows) for j in range(len(r))], np.int64)
    return T.SparseInput(idx, np.array([v for r in rows for v in r], np.int64))


def _setup(optimizer, *, user_optimizer=None, num_hosts=1, num_tensor_cores=1,
           sharding="DIV_DEFAULT"):
    video = T.TableConfig(8, 4, initializer=lambda shape, dtype=None: VIDEO, combiner="sum",
                          name="video")
    user = T.TableConfig(16, 2, initializer=lambda shape, dtype=None: USER, combiner="mean",
                         name="user", optimizer=user_optimizer)
    fc = {"watched": T.FeatureConfig(video), "favorited": T.FeatureConfig(video),
          "friends": T.FeatureConfig(user)}
    emb = T.TPUEmbedding(fc, optimizer, batch_size=BATCH, num_hosts=num_hosts,
                         num_tensor_cores=num_tensor_cores, sharding_strategy=sharding)
    enqueue = emb.enqueue({"watched": _sparse(WATCHED), "favorited": _sparse(FAVORITED),
                           "friends": _sparse(FRIENDS)})
    act = emb.dequeue()
    # TF's test loss: sum over features of the batch mean of sum(a^2).
    loss = tm.add_n([tm.reduce_mean(tm.reduce_sum(tm.square(a), axis=1)) for a in act.values()])
    grads = dict(zip(act, tm.gradients(loss, list(act.values()))))
    return emb, enqueue, act, emb.apply_gradients(grads)


def _combine(table, rows, combiner):
    out = []
    for r in rows:
        s = table[r].sum(axis=0)
        out.append(s / len(r) if combiner == "mean" else s)
    return np.array(out, np.float32)


def _reference_gradients(video, user):
    """Table gradients (tpu_embedding_base_test.py's reference) with dL/da = 2a / batch."""
    g_video, g_user = np.zeros_like(video), np.zeros_like(user)
    for rows in (WATCHED, FAVORITED):
        a = _combine(video, rows, "sum")
        for b, r in enumerate(rows):
            for i in r:
                g_video[i] += 2 * a[b] / BATCH
    a = _combine(user, FRIENDS, "mean")
    for b, r in enumerate(FRIENDS):
        for i in r:
            g_user[i] += 2 * a[b] / BATCH / len(r)
    return g_video, g_user


def _touched(n, rows_lists):
    mask = np.zeros(n, bool)
    for rows in rows_lists:
        for r in rows:
            mask[r] = True
    return mask


def _train_once(emb, enqueue, train, feed=None):
    with tm.Session() as sess:
        sess.run(emb.initializer)
        sess.run(enqueue)
        sess.run(train, feed_dict=feed, options=tm.RunOptions(timeout_in_ms=10000))
        sess.run(emb.retrieve())
        return sess.run(emb.variables)


def test_activations_are_tensorflows_test_values(graph):
    emb, enqueue, act, _ = _setup(T.SGD(0.1))
    with tm.Session() as sess:
        sess.run(emb.initializer)
        sess.run(enqueue)
        got = sess.run(act, options=tm.RunOptions(timeout_in_ms=10000))
    # First-core values asserted by TF's tpu_embedding_base_test
    # (tensorflow/python/tpu/tests/tpu_embedding_base_test.py).
    np.testing.assert_array_equal(got["watched"][:2], [[0, 1, 2, 3], [4, 6, 8, 10]])
    np.testing.assert_array_equal(got["favorited"][:2], [[4, 6, 8, 10], [4, 5, 6, 7]])
    np.testing.assert_array_equal(got["friends"][:2], [[6, 7], [2, 3]])


def test_sgd_update(graph):
    emb, enqueue, _, train = _setup(T.SGD(0.1))
    v = _train_once(emb, enqueue, train)
    gv, gu = _reference_gradients(VIDEO, USER)
    np.testing.assert_allclose(v["video"]["parameters"], VIDEO - 0.1 * gv, rtol=1e-6)
    np.testing.assert_allclose(v["user"]["parameters"], USER - 0.1 * gu, rtol=1e-6)
    # Rows no sample looked up are unchanged (and the test would see a wrong update).
    untouched = ~_touched(16, [FRIENDS])
    np.testing.assert_array_equal(v["user"]["parameters"][untouched], USER[untouched])
    assert np.any(gu[~untouched] != 0)


def test_adagrad_update(graph):
    emb, enqueue, _, train = _setup(T.Adagrad(0.1, initial_accumulator_value=0.2))
    v = _train_once(emb, enqueue, train)
    gv, _ = _reference_gradients(VIDEO, USER)
    acc = 0.2 + gv**2
    np.testing.assert_allclose(v["video"]["accumulators"], acc, rtol=1e-6)
    np.testing.assert_allclose(v["video"]["parameters"], VIDEO - 0.1 * gv / np.sqrt(acc),
                               rtol=1e-5)


@pytest.mark.parametrize("sum_inside_sqrt", [True, False])
def test_adam_update_without_bias_correction(sum_inside_sqrt, graph):
    opt = T.Adam(0.1, beta_1=0.8, beta_2=0.9, epsilon=0.5, sum_inside_sqrt=sum_inside_sqrt)
    emb, enqueue, _, train = _setup(opt)
    v = _train_once(emb, enqueue, train)
    _, gu = _reference_gradients(VIDEO, USER)
    m, vel = 0.2 * gu, 0.1 * gu**2
    denom = np.sqrt(vel + 0.25) if sum_inside_sqrt else np.sqrt(vel) + 0.5
    expect = USER - 0.1 * m / denom
    touched = _touched(16, [FRIENDS])
    expect[~touched] = USER[~touched]  # lazy Adam
    np.testing.assert_allclose(v["user"]["momenta"][touched], m[touched], rtol=1e-5)
    np.testing.assert_allclose(v["user"]["velocities"][touched], vel[touched], rtol=1e-5)
    np.testing.assert_allclose(v["user"]["parameters"], expect, rtol=1e-5)


def test_ftrl_update(graph):
    emb, enqueue, _, train = _setup(T.FTRL(0.1, initial_accumulator_value=0.5))
    v = _train_once(emb, enqueue, train)
    gv, _ = _reference_gradients(VIDEO, USER)
    lr, p = 0.1, -0.5
    acc0, lin0 = np.full_like(VIDEO, 0.5), np.zeros_like(VIDEO)
    acc = acc0 + gv**2
    sigma = (acc ** (-p) - acc0 ** (-p)) / lr
    lin = lin0 + gv - sigma * VIDEO
    expect = -lin / (acc ** (-p) / lr)
    touched = _touched(8, [WATCHED, FAVORITED])
    expect[~touched] = VIDEO[~touched]
    np.testing.assert_allclose(v["video"]["accumulators"][touched], acc[touched], rtol=1e-5)
    np.testing.assert_allclose(v["video"]["linears"][touched], lin[touched], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(v["video"]["parameters"], expect, rtol=1e-4, atol=1e-5)


def test_dynamic_learning_rates_are_fed_per_tag(graph):
    lr_video = tm.placeholder(tm.float32, [], name="lr_video")
    lr_user = tm.placeholder(tm.float32, [], name="lr_user")
    emb, enqueue, _, train = _setup(T.SGD(lambda: lr_video),
                                    user_optimizer=T.SGD(lambda: lr_user))
    tags = [t.optimization_parameters.learning_rate.dynamic.tag
            for t in emb.config.table_descriptor]
    assert tags == [0, 1]
    v = _train_once(emb, enqueue, train, feed={lr_video: 0.5, lr_user: 0.25})
    gv, gu = _reference_gradients(VIDEO, USER)
    np.testing.assert_allclose(v["video"]["parameters"], VIDEO - 0.5 * gv, rtol=1e-6)
    np.testing.assert_allclose(v["user"]["parameters"], USER - 0.25 * gu, rtol=1e-6)


def test_gradient_and_weight_clipping(graph):
    opt = T.SGD(1.0, clipvalue=0.5, clip_weight_min=-1.0, clip_weight_max=20.0)
    emb, enqueue, _, train = _setup(opt)
    v = _train_once(emb, enqueue, train)
    gv, _ = _reference_gradients(VIDEO, USER)
    expect = np.clip(VIDEO - np.clip(gv, -0.5, 0.5), -1.0, 20.0)
    touched = _touched(8, [WATCHED, FAVORITED])
    expect[~touched] = VIDEO[~touched]  # only updated rows are clipped
    np.testing.assert_allclose(v["video"]["parameters"], expect, rtol=1e-6)


@pytest.mark.parametrize("hosts, cores, sharding", [(2, 1, "DIV_DEFAULT"), (3, 2, "MOD"),
                                                    (4, 4, "DIV_DEFAULT")])
def test_sharding_gives_the_same_training(hosts, cores, sharding, graph):
    def run(**kw):
        g = tm.Graph()
        with g.as_default():
            emb, enqueue, _, train = _setup(T.Adagrad(0.1), **kw)
            return _train_once(emb, enqueue, train)

    one = run()
    many = run(num_hosts=hosts, num_tensor_cores=cores, sharding=sharding)
    for table in ("video", "user"):
        for slot in ("parameters", "accumulators"):
            np.testing.assert_allclose(many[table][slot], one[table][slot], rtol=1e-6)


def test_inference_mode_never_updates(graph):
    video = T.TableConfig(8, 4, initializer=lambda shape, dtype=None: VIDEO, name="video")
    emb = T.TPUEmbedding({"w": T.FeatureConfig(video)}, T.SGD(1.0), batch_size=4)
    ids = tm.placeholder(tm.int32, [4])
    enqueue = emb.enqueue({"w": ids}, training=False)
    act = emb.dequeue()["w"]
    train = emb.apply_gradients({"w": tm.ones_like(act)})
    with tm.Session() as sess:
        sess.run(emb.initializer)
        sess.run(enqueue, {ids: [0, 1, 2, 3]})
        got = sess.run([act, train], options=tm.RunOptions(timeout_in_ms=10000))[0]
        sess.run(emb.retrieve())
        np.testing.assert_array_equal(got, VIDEO[:4])
        np.testing.assert_array_equal(sess.run(emb.variables["video"]["parameters"]), VIDEO)


def test_retrieve_then_load_round_trips(graph):
    video = T.TableConfig(8, 4, initializer=lambda shape, dtype=None: VIDEO, name="video")
    emb = T.TPUEmbedding({"w": T.FeatureConfig(video)}, T.Adagrad(0.1), batch_size=4,
                         num_hosts=3)
    ids = tm.placeholder(tm.int32, [4])
    enqueue = emb.enqueue({"w": ids})
    act = emb.dequeue()["w"]
    table = emb.variables["video"]
    new_values = np.arange(32, 64, dtype=np.float32).reshape(8, 4)
    restore = table["parameters"].assign(new_values)
    with tm.Session() as sess:
        sess.run(emb.initializer)
        sess.run(restore)  # a checkpoint restore of the host copy...
        sess.run(emb.load())  # ...pushed to the device
        sess.run(enqueue, {ids: [7, 0, 3, 3]})
        got = sess.run(act, options=tm.RunOptions(timeout_in_ms=10000))
        np.testing.assert_array_equal(got, new_values[[7, 0, 3, 3]])
        sess.run(table["parameters"].assign(np.zeros((8, 4), np.float32)))
        sess.run(emb.retrieve())  # the device's values come back to the host
        np.testing.assert_array_equal(sess.run(table["parameters"]), new_values)
        np.testing.assert_allclose(sess.run(table["accumulators"]), 0.1)


def test_dense_ragged_and_weighted_inputs(graph):
    video = T.TableConfig(8, 4, initializer=lambda shape, dtype=None: VIDEO, combiner="sum",
                          name="video")
    fc = [T.FeatureConfig(video), T.FeatureConfig(video), T.FeatureConfig(video)]
    emb = T.TPUEmbedding(fc, T.SGD(0.1), batch_size=2)
    enqueue = emb.enqueue(
        [np.array([[3], [5]], np.int32),
         T.RaggedInput(np.array([0, 2, 3]), np.array([1, 2, 7]),
                       np.array([0.5, 2.0, 1.0], np.float32)),
         (np.array([[0, 0], [1, 0], [1, 1]]), np.array([4, 4, 6]))])
    act = emb.dequeue()
    with tm.Session() as sess:
        sess.run(emb.initializer)
        sess.run(enqueue)
        dense, ragged, sparse = sess.run(act, options=tm.RunOptions(timeout_in_ms=10000))
    np.testing.assert_array_equal(dense, VIDEO[[3, 5]])
    np.testing.assert_allclose(ragged, [0.5 * VIDEO[1] + 2 * VIDEO[2], VIDEO[7]])
    np.testing.assert_array_equal(sparse, [VIDEO[4], VIDEO[4] + VIDEO[6]])


def test_enqueue_and_apply_gradients_errors(graph, caplog):
    table = T.TableConfig(8, 4, name="video")
    emb = T.TPUEmbedding({"a": T.FeatureConfig(table), "b": T.FeatureConfig(table)},
                         T.SGD(0.1), batch_size=4)
    ids = np.zeros(4, np.int32)
    with pytest.raises(ValueError, match=r"Weight specified for dense input a"):
        emb.enqueue({"a": ids, "b": ids}, weights={"a": np.ones(4, np.float32), "b": None})
    with pytest.raises(ValueError, match=r"structure of the feature config: at the top level "
                                         r"expected a dict with keys \['a', 'b'\]"):
        emb.enqueue({"a": ids})
    with pytest.raises(ValueError, match=r"Inconsistent shape founded for input feature b, "
                                         r"Output shape is set to be \[4\], But got incoming "
                                         r"output shape \[3\]"):
        emb.enqueue({"a": ids, "b": ids[:3]})
    with pytest.raises(ValueError, match=r"Input a is of unknown type <class 'str'>"):
        emb.enqueue({"a": "ids", "b": ids})
    with pytest.raises(ValueError, match=r"\(indices, values\[, weights\]\)"):
        emb.enqueue({"a": (ids,), "b": ids})
    with pytest.raises(ValueError, match=r"Found gradient of shape \(4, 3\) at path a. "
                                         r"Expected shape \(4, 4\)."):
        emb.apply_gradients({"a": np.zeros((4, 3), np.float32), "b": None})
    with pytest.raises(ValueError, match=r"found non-tensor type: <class 'list'> at path b"):
        emb.apply_gradients({"a": None, "b": [[0.0] * 4] * 4})
    if hasattr(tm.raw_ops, "SendTPUEmbeddingGradients"):
        with caplog.at_level(logging.WARNING, logger="tfmini.tpu"):
            emb.apply_gradients({"a": None, "b": np.zeros((4, 4), np.float32)})
        assert "No gradient passed for feature a, sending zero gradient" in caplog.text
