"""tm.tpu configuration classes: validation, exact round trips, garbage, helpers."""

from __future__ import annotations

import json
import math

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfmini as tm
from tfmini.ops.tpu_embedding import config as cfg

T = tm.tpu


def _params(**kw):
    kw.setdefault("learning_rate", T.LearningRate(constant=0.1))
    if not any(k in kw for k in cfg.OPTIMIZER_FIELDS):
        kw["adagrad"] = T.AdagradParameters()
    return T.OptimizationParameters(**kw)


def _table(name="t", vocab=10, dim=4, nf=1, **kw):
    return T.TableDescriptor(name=name, vocabulary_size=vocab, dimension=dim, num_features=nf,
                             optimization_parameters=kw.pop("params", _params()), **kw)


def _config(**kw):
    kw.setdefault("table_descriptor", [_table()])
    kw.setdefault("mode", "TRAINING")
    kw.setdefault("batch_size_per_tensor_core", 4)
    return T.TPUEmbeddingConfiguration(**kw)


# ---- construction and defaults -------------------------------------------------------------


def test_defaults_are_the_protos():
    c = T.TPUEmbeddingConfiguration()
    assert (c.table_descriptor, c.mode, c.batch_size_per_tensor_core, c.num_hosts,
            c.num_tensor_cores, c.sharding_strategy, c.pipeline_execution_with_tensor_core,
            c.profile_data_directory, c.feature_descriptor, c.spmd_sharding) == (
        (), "UNSPECIFIED", 0, 0, 0, "DIV_DEFAULT", False, "", (), None)
    a = T.AdamParameters()
    assert (a.beta1, a.beta2, a.epsilon, a.use_non_lazy_adam, a.use_sum_inside_sqrt) == (
        0.0, 0.0, 0.0, False, False)
    f = T.FtrlParameters()
    assert (f.l1, f.l2, f.lr_power, f.beta, f.multiply_linear_by_lr,
            f.allow_zero_accumulator) == (0.0, 0.0, 0.0, 0.0, False, False)
    p = _params()
    assert p.clipping_limits is None and p.gradient_clipping_limits is None
    assert p.gradient_accumulation_status == "UNSPECIFIED" and p.gradient_accumulation_enabled
    assert p.weight_decay_factor == 0.0 and not p.multiply_weight_decay_factor_by_learning_rate
    assert T.ClippingLimits() == T.ClippingLimits(lower=-math.inf, upper=math.inf)
    assert T.LearningRate().value == 0.0 and not T.LearningRate().is_dynamic


@pytest.mark.parametrize("given_mode, stored", [
    ("training", "TRAINING"), ("INFERENCE", "INFERENCE"), (3, "BACKWARD_PASS_ONLY"),
    (T.TPUEmbeddingConfiguration.UNSPECIFIED, "UNSPECIFIED"),
])
def test_mode_accepts_names_numbers_and_constants(given_mode, stored):
    assert _config(mode=given_mode).mode == stored


def test_sharding_constants():
    assert _config(sharding_strategy=T.TPUEmbeddingConfiguration.MOD).sharding_strategy == "MOD"
    assert _config(sharding_strategy=0).sharding_strategy == "DIV_DEFAULT"


def test_values_are_frozen_and_hashable():
    c = _config()
    with pytest.raises(AttributeError):
        c.mode = "INFERENCE"
    assert hash(c) == hash(_config()) and c == _config()
    assert c != _config(mode="INFERENCE")


def test_lists_become_tuples():
    c = _config(feature_descriptor=[T.FeatureDescriptor(name="f", table_id=0, input_shape=[4])])
    assert isinstance(c.table_descriptor, tuple) and c.feature_descriptor[0].input_shape == (4,)


# ---- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize("make, exc, match", [
    (lambda: _config(mode="TRAIN"), ValueError, r"mode must be one of"),
    (lambda: _config(mode=7), ValueError, r"numbers 0\.\.3"),
    (lambda: _config(mode=1.0), TypeError, r"mode must be a str"),
    (lambda: _config(sharding_strategy="ROUND"), ValueError, r"sharding_strategy"),
    (lambda: _config(batch_size_per_tensor_core=-1), ValueError, r"batch_size_per_tensor_core"),
    (lambda: _config(num_hosts=True), TypeError, r"num_hosts must be an int, got bool"),
    (lambda: _config(num_tensor_cores=2.0), TypeError, r"num_tensor_cores must be an int"),
    (lambda: _config(table_descriptor=[_table(), _table()]), ValueError,
     r"table names must be unique.*'t'"),
    (lambda: _config(table_descriptor="t"), TypeError, r"list of TableDescriptor"),
    (lambda: _config(table_descriptor=[3]), TypeError, r"table_descriptor\[0\] must be a Table"),
    (lambda: _config(feature_descriptor=[T.FeatureDescriptor(table_id=1, input_shape=[2])]),
     ValueError, r"table_id 1, but there are 1 tables"),
    (lambda: _config(feature_descriptor=[T.FeatureDescriptor(name="a", input_shape=[2]),
                                         T.FeatureDescriptor(name="a", input_shape=[2])]),
     ValueError, r"feature names must be unique"),
    (lambda: _config(table_descriptor=[_table(nf=0)]), ValueError, r"num_features >= 1"),
    (lambda: _config(pipeline_execution_with_tensor_core=1), TypeError, r"must be a bool"),
    (lambda: _config(spmd_sharding=T.ClippingLimits()), TypeError, r"SpmdSharding or None"),
    (lambda: T.TableDescriptor(name="x", vocabulary_size=0, dimension=1), ValueError,
     r"vocabulary_size must be >= 1, got 0"),
    (lambda: T.TableDescriptor(name="x", vocabulary_size=3, dimension=0), ValueError,
     r"dimension must be >= 1"),
    (lambda: T.TableDescriptor(name=3, vocabulary_size=3, dimension=1), TypeError,
     r"name must be a str"),
    (lambda: T.TableDescriptor(name="x", vocabulary_size=3, dimension=1,
                               optimization_parameters=T.AdagradParameters()),
     TypeError, r"OptimizationParameters or None"),
    (lambda: T.FeatureDescriptor(input_shape=[4, 0]), ValueError, r"input_shape entries"),
    (lambda: T.FeatureDescriptor(input_shape=[4.0]), TypeError, r"input_shape\[0\] must be"),
    (lambda: T.FeatureDescriptor(table_id=-1), ValueError, r"table_id"),
    (lambda: T.OptimizationParameters(), ValueError, r"exactly one optimizer.*got none"),
    (lambda: T.OptimizationParameters(adagrad=T.AdagradParameters(),
                                      adam=T.AdamParameters()),
     ValueError, r"exactly one optimizer.*got adagrad, adam"),
    (lambda: _params(adam=T.AdamParameters(use_non_lazy_adam=True),
                     gradient_accumulation_status="DISABLED"),
     ValueError, r"use_non_lazy_adam needs gradient accumulation"),
    (lambda: _params(gradient_accumulation_status="ON"), ValueError, r"one of"),
    (lambda: _params(weight_decay_factor=math.nan), ValueError, r"NaN"),
    (lambda: _params(weight_decay_factor=math.inf), ValueError, r"finite"),
    (lambda: _params(weight_decay_factor="0.1"), TypeError, r"must be a float"),
    (lambda: T.LearningRate(constant=0.1, dynamic=T.DynamicLearningRate(tag=0)), ValueError,
     r"oneof"),
    (lambda: T.LearningRate(constant=math.inf), ValueError, r"finite"),
    (lambda: T.LearningRate(constant="fast"), TypeError, r"constant must be a float"),
    (lambda: T.DynamicLearningRate(tag=-1), ValueError, r"tag"),
    (lambda: T.ClippingLimits(lower=1.0, upper=0.0), ValueError, r"lower must be <= upper"),
    (lambda: T.ClippingLimits(lower=math.nan), ValueError, r"NaN"),
    (lambda: T.AdamParameters(beta1=1.0), ValueError, r"beta1 must be >= 0 and < 1"),
    (lambda: T.AdamParameters(beta2=-0.1), ValueError, r"beta2 must be >= 0 and < 1"),
    (lambda: T.AdamParameters(epsilon=-1e-8), ValueError, r"epsilon must be >= 0"),
    (lambda: T.FtrlParameters(l1=-1.0), ValueError, r"l1 must be >= 0"),
    (lambda: T.FtrlParameters(lr_power=0.5), ValueError, r"lr_power must be <= 0"),
    (lambda: T.RmsPropParameters(rho=-0.5), ValueError, r"rho must be >= 0"),
    (lambda: T.MomentumParameters(use_nesterov="yes"), TypeError, r"must be a bool"),
])
def test_invalid_values_are_refused_with_clear_messages(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def _with_tags(*tags):
    tables = []
    for i, tag in enumerate(tags):
        lr = (T.LearningRate(constant=0.1) if tag is None
              else T.LearningRate(dynamic=T.DynamicLearningRate(tag=tag)))
        tables.append(_table(name=f"t{i}", params=_params(learning_rate=lr)))
    return _config(table_descriptor=tables)


def test_dynamic_tags_must_be_dense():
    assert T.dynamic_learning_rate_tags(_with_tags(1, None, 0, 1)) == (0, 1)
    assert T.dynamic_learning_rate_tags(_with_tags(None)) == ()
    with pytest.raises(ValueError, match=r"dense from 0.*tags \[0, 2\], missing \[1\]"):
        _with_tags(0, 2)
    with pytest.raises(ValueError, match=r"missing \[0\]"):
        _with_tags(1)


# ---- serialisation ---------------------------------------------------------------------------


def _rich_config():
    adam = _params(
        learning_rate=T.LearningRate(dynamic=T.DynamicLearningRate(tag=0)),
        adam=T.AdamParameters(beta1=0.9, beta2=0.999, epsilon=1e-7, use_sum_inside_sqrt=True),
        clipping_limits=T.ClippingLimits(lower=-0.1),
        gradient_clipping_limits=T.ClippingLimits(lower=-1 / 3, upper=1 / 3),
        weight_decay_factor=1e-300, multiply_weight_decay_factor_by_learning_rate=True,
        gradient_accumulation_status=T.OptimizationParameters.ENABLED)
    ftrl = _params(ftrl=T.FtrlParameters(l1=0.1, l2=0.2, lr_power=-0.5, beta=0.3,
                                         multiply_linear_by_lr=True))
    return T.TPUEmbeddingConfiguration(
        table_descriptor=[_table("a", 13, 4, 0, params=adam), _table("b", 2**40, 1, 0,
                                                                     params=ftrl)],
        mode=T.TPUEmbeddingConfiguration.BACKWARD_PASS_ONLY, batch_size_per_tensor_core=8,
        num_hosts=2, num_tensor_cores=4, sharding_strategy="MOD",
        pipeline_execution_with_tensor_core=True, profile_data_directory="/tmp/é",
        feature_descriptor=[T.FeatureDescriptor(name="x", table_id=1, input_shape=[8, 3]),
                            T.FeatureDescriptor(table_id=0, input_shape=[8])],
        spmd_sharding=T.SpmdSharding(enabled=True, num_cores_per_replica=2))


def test_round_trip_is_exact_for_bytes_and_str():
    c = _rich_config()
    data = c.SerializeToString()
    assert isinstance(data, bytes)
    back = T.TPUEmbeddingConfiguration.FromString(data)
    assert back == c
    assert T.TPUEmbeddingConfiguration.FromString(data.decode()) == c
    assert back.SerializeToString() == data  # deterministic
    gcl = back.table_descriptor[0].optimization_parameters.gradient_clipping_limits
    assert gcl.lower == -1 / 3 and back.table_descriptor[0].optimization_parameters.\
        clipping_limits.upper == math.inf


def test_the_encoding_is_versioned_json():
    doc = json.loads(_config().SerializeToString())
    assert doc["format"] == "tfmini.tpu.TPUEmbeddingConfiguration" and doc["version"] == 1
    assert doc["message"]["mode"] == "TRAINING"


def test_nested_messages_serialise_on_their_own():
    p = _rich_config().table_descriptor[0].optimization_parameters
    assert T.OptimizationParameters.FromString(p.SerializeToString()) == p


def _doc(top=None, **message_changes):
    doc = json.loads(_config().SerializeToString())
    doc["message"].update(message_changes)
    doc.update(top or {})
    return json.dumps(doc)


@pytest.mark.parametrize("data, match", [
    (b"", r"not JSON"),
    (b"garbage", r"not JSON.*input starts 'garbage'"),
    (b"\xff\xfe", r"not UTF-8"),
    (b"[1, 2]", r"expected an object with keys 'format', 'version' and 'message'"),
    (b'{"format": 1}', r"expected an object with keys"),
    (3.5, r"expects bytes or str, got float"),
    (_doc({"format": "tfmini.tpu.Other"}), r"format is 'tfmini.tpu.Other'"),
    (_doc({"version": 2}), r"unsupported version 2"),
    (_doc(mode="TRAIN"), r"TPUEmbeddingConfiguration.mode: expected one of"),
    (_doc(bogus=1), r"unknown field\(s\) \['bogus'\]"),
    (_doc(num_hosts="2"), r"num_hosts: expected an integer"),
    (_doc(num_hosts=True), r"num_hosts: expected an integer"),
    (_doc(table_descriptor={}), r"table_descriptor: expected a JSON list"),
    (_doc(table_descriptor=[{"name": "t", "vocabulary_size": 0, "dimension": 1,
                             "num_features": 1}]),
     r"table_descriptor\[0\]: invalid TableDescriptor: .*vocabulary_size must be >= 1"),
    (_doc(table_descriptor=[{"name": "t", "vocabulary_size": 3, "dimension": 1,
                             "num_features": 1, "optimization_parameters": {}}]),
     r"optimization_parameters: invalid OptimizationParameters: .*exactly one optimizer"),
    (_doc(feature_descriptor=[{"input_shape": [1.5]}]), r"input_shape: expected a JSON list"),
    (_doc(profile_data_directory=None), r"profile_data_directory: expected a string"),
    (_doc(pipeline_execution_with_tensor_core=0), r"expected true or false"),
    (_doc(spmd_sharding=[]), r"spmd_sharding: expected a JSON object"),
    (_doc().replace('"num_hosts": 0', '"num_hosts": NaN'), r"NaN and Infinity"),
    ("[" * 100000, r"not a serialized TPUEmbeddingConfiguration"),
])
def test_garbage_is_a_clear_value_error(data, match):
    with pytest.raises(ValueError, match=match):
        T.TPUEmbeddingConfiguration.FromString(data)


# ---- property test: random valid configurations round-trip exactly --------------------------

_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
_unit = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
_nonneg = st.floats(min_value=0.0, max_value=1e30)
_bools = st.booleans()


@st.composite
def _optimization_parameters(draw, n_tags):
    kind = draw(st.sampled_from(sorted(cfg.OPTIMIZER_FIELDS)))
    algorithms = {
        "stochastic_gradient_descent": st.just(T.StochasticGradientDescentParameters()),
        "adagrad": st.just(T.AdagradParameters()),
        "adam": st.builds(T.AdamParameters, beta1=_unit, beta2=_unit, epsilon=_nonneg,
                          use_non_lazy_adam=_bools, use_sum_inside_sqrt=_bools),
        "ftrl": st.builds(T.FtrlParameters, l1=_nonneg, l2=_nonneg,
                          lr_power=st.floats(max_value=0.0, min_value=-10.0), beta=_nonneg,
                          multiply_linear_by_lr=_bools, allow_zero_accumulator=_bools),
        "momentum": st.builds(T.MomentumParameters, momentum=_floats, use_nesterov=_bools),
        "rms_prop": st.builds(T.RmsPropParameters, rho=_nonneg, momentum=_nonneg,
                              epsilon=_nonneg),
        "centered_rms_prop": st.builds(T.CenteredRmsPropParameters, rho=_nonneg,
                                       momentum=_nonneg, epsilon=_nonneg),
        "adagrad_momentum": st.builds(T.AdagradMomentumParameters, momentum=_floats,
                                      use_nesterov=_bools, exponent=_floats, beta2=_nonneg,
                                      epsilon=_nonneg),
        "proximal_adagrad": st.builds(T.ProximalAdagradParameters, l1=_nonneg, l2=_nonneg),
        "adadelta": st.builds(T.AdadeltaParameters, rho=_nonneg, epsilon=_nonneg),
    }
    lr = draw(st.one_of(
        st.builds(T.LearningRate, constant=_floats),
        st.builds(T.LearningRate),
        st.builds(T.LearningRate, dynamic=st.builds(
            T.DynamicLearningRate, tag=st.integers(0, n_tags - 1)))) if n_tags else
        st.builds(T.LearningRate, constant=_floats))
    bound = st.floats(allow_nan=False)
    limits = st.one_of(st.none(), st.tuples(bound, bound).map(
        lambda p: T.ClippingLimits(lower=min(p), upper=max(p))))
    accumulation = draw(st.sampled_from(["UNSPECIFIED", "ENABLED", "DISABLED"]))
    algorithm = draw(algorithms[kind])
    if kind == "adam" and accumulation == "DISABLED":
        algorithm = T.AdamParameters(beta1=algorithm.beta1, use_non_lazy_adam=False)
    return T.OptimizationParameters(
        learning_rate=lr, clipping_limits=draw(limits), gradient_clipping_limits=draw(limits),
        weight_decay_factor=draw(_floats),
        multiply_weight_decay_factor_by_learning_rate=draw(_bools),
        gradient_accumulation_status=accumulation, **{kind: algorithm})


@st.composite
def _configurations(draw):
    n_tables = draw(st.integers(0, 4))
    names = draw(st.lists(st.text(max_size=8), min_size=n_tables, max_size=n_tables,
                          unique=True))
    with_features = draw(_bools) and n_tables > 0
    tables = [T.TableDescriptor(
        name=name, vocabulary_size=draw(st.integers(1, 2**62)), dimension=draw(st.integers(1, 512)),
        num_features=draw(st.integers(0 if with_features else 1, 5)),
        optimization_parameters=draw(st.one_of(st.none(), _optimization_parameters(n_tables))),
    ) for name in names]
    features = []
    if with_features:
        features = [T.FeatureDescriptor(name=draw(st.sampled_from(["", f"f{i}"])),
                                        table_id=draw(st.integers(0, n_tables - 1)),
                                        input_shape=draw(st.lists(st.integers(1, 64),
                                                                  max_size=3)))
                    for i in range(draw(st.integers(1, 4)))]
    # Renumber the drawn tags densely in order of first use, so the configuration is valid.
    tags = {}
    fixed = []
    for t in tables:
        p = t.optimization_parameters
        if p is not None and p.learning_rate.dynamic is not None:
            tag = tags.setdefault(p.learning_rate.dynamic.tag, len(tags))
            p = attrs.evolve(p, learning_rate=T.LearningRate(
                dynamic=T.DynamicLearningRate(tag=tag)))
            t = T.TableDescriptor(name=t.name, vocabulary_size=t.vocabulary_size,
                                  dimension=t.dimension, num_features=t.num_features,
                                  optimization_parameters=p)
        fixed.append(t)
    return T.TPUEmbeddingConfiguration(
        table_descriptor=fixed, mode=draw(st.integers(0, 3)),
        batch_size_per_tensor_core=draw(st.integers(0, 2**31 - 1)),
        num_hosts=draw(st.integers(0, 64)), num_tensor_cores=draw(st.integers(0, 64)),
        sharding_strategy=draw(st.sampled_from(["DIV_DEFAULT", "MOD"])),
        pipeline_execution_with_tensor_core=draw(_bools),
        profile_data_directory=draw(st.text(max_size=10)), feature_descriptor=features,
        spmd_sharding=draw(st.one_of(st.none(), st.builds(
            T.SpmdSharding, enabled=_bools, num_cores_per_replica=st.integers(0, 8),
            use_manual_partitioning=_bools, use_shardy_partitioner=_bools))))


@settings(max_examples=150, deadline=None)
@given(_configurations())
def test_random_valid_configurations_round_trip_exactly(c):
    data = c.SerializeToString()
    back = T.TPUEmbeddingConfiguration.FromString(data)
    assert back == c
    assert back.SerializeToString() == data


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=64), st.text(max_size=64)))
def test_random_garbage_raises_only_value_error(data):
    with pytest.raises(ValueError):
        T.TPUEmbeddingConfiguration.FromString(data)


# ---- helpers for the ops ---------------------------------------------------------------------


def test_shard_rows_for_13_ids_on_5_hosts():
    div = [list(T.shard_row_ids(13, 5, s, "DIV_DEFAULT")) for s in range(5)]
    mod = [list(T.shard_row_ids(13, 5, s, "MOD")) for s in range(5)]
    assert div == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10], [11, 12]]
    assert mod == [[0, 5, 10], [1, 6, 11], [2, 7, 12], [3, 8], [4, 9]]
    assert [T.shard_size(13, 5, s) for s in range(5)] == [3, 3, 3, 2, 2]
    assert T.shard_row_range(13, 5, 3) == range(9, 11)


@pytest.mark.parametrize("strategy", ["DIV_DEFAULT", "MOD"])
@pytest.mark.parametrize("vocab", [1, 3, 4, 13, 64])
@pytest.mark.parametrize("shards", [1, 2, 4, 5])
def test_shard_of_ids_inverts_shard_row_ids(strategy, vocab, shards):
    shard, local = T.shard_of_ids(np.arange(vocab), vocab, shards, strategy)
    seen = []
    for s in range(shards):
        rows = T.shard_row_ids(vocab, shards, s, strategy)
        assert len(rows) == T.shard_size(vocab, shards, s)
        assert list(np.flatnonzero(shard == s)) == list(rows)
        assert list(local[rows]) == list(range(len(rows)))
        seen += list(rows)
    assert sorted(seen) == list(range(vocab))


def test_shard_arguments_are_checked():
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, 5\)"):
        T.shard_row_ids(13, 5, 5)
    with pytest.raises(ValueError, match=r"num_shards must be >= 1"):
        T.shard_size(13, 0, 0)
    with pytest.raises(ValueError, match=r"'DIV_DEFAULT' or 'MOD'"):
        T.shard_row_ids(13, 5, 0, "RANDOM")


def test_recv_output_shapes_per_table_and_per_feature():
    tables = [_table("a", 10, 4, 2), _table("b", 5, 3, 1)]
    assert T.recv_output_shapes(_config(table_descriptor=tables)) == ((8, 4), (4, 3))
    per_feature = _config(table_descriptor=tables, feature_descriptor=[
        T.FeatureDescriptor(table_id=1, input_shape=[4]),
        T.FeatureDescriptor(table_id=0, input_shape=[4, 7])])
    assert T.recv_output_shapes(per_feature) == ((4, 3), (4, 7, 4))
    assert cfg.table_features(per_feature) == ((1,), (0,))


@pytest.mark.parametrize("field, op, slots", [
    ("stochastic_gradient_descent", "StochasticGradientDescent", ("parameters",)),
    ("adagrad", "Adagrad", ("parameters", "accumulators")),
    ("adam", "ADAM", ("parameters", "momenta", "velocities")),
    ("ftrl", "FTRL", ("parameters", "accumulators", "linears")),
    ("momentum", "Momentum", ("parameters", "momenta")),
    ("rms_prop", "RMSProp", ("parameters", "ms", "mom")),
    ("centered_rms_prop", "CenteredRMSProp", ("parameters", "ms", "mom", "mg")),
    ("adagrad_momentum", "AdagradMomentum", ("parameters", "accumulators", "momenta")),
    ("proximal_adagrad", "ProximalAdagrad", ("parameters", "accumulators")),
    ("adadelta", "Adadelta", ("parameters", "accumulators", "updates")),
])
def test_slot_names_and_op_names_follow_tf(field, op, slots):
    # Slot order: TF 2.21's op registry (the Load/Retrieve ops' inputs).
    params = _params(**{field: getattr(T, cfg.OPTIMIZER_FIELDS[field][0])()})
    assert params.optimizer == field
    assert T.slot_names(params) == slots == T.slot_names(field)
    assert cfg.load_op_name(params) == f"LoadTPUEmbedding{op}Parameters"
    assert cfg.retrieve_op_name(field) == f"RetrieveTPUEmbedding{op}Parameters"


def test_table_index_and_num_shards():
    c = _config(table_descriptor=[_table("a"), _table("b")], num_tensor_cores=0)
    assert c.table_index("b") == 1 and c.num_shards == 1
    with pytest.raises(ValueError, match=r"no table named 'z'; tables: \['a', 'b'\]"):
        c.table_index("z")
