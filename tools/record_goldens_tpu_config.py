"""Records TensorFlow's mid-level TPU embedding configurations and errors.

Writes ``tests/goldens/tpu_config.json``: for each case, the ``TPUEmbeddingConfiguration``
TensorFlow 2.21's ``tf.tpu.experimental.embedding`` objects produce (as
``json_format.MessageToDict`` prints it), and the ``ValueError`` messages of its constructors.
A TPU is not needed: the table descriptors come from ``TableConfig._set_table_descriptor``
(which also serialises the optimizer) and the rest repeats the short loop of
``TPUEmbedding._create_config_proto``, which only runs under a TPUStrategy.

Run with the TensorFlow virtual environment::

    /work/tfenv/bin/python tools/record_goldens_tpu_config.py
"""

from __future__ import annotations

import json
from pathlib import Path

import tensorflow as tf
from google.protobuf import json_format
from tensorflow.core.protobuf.tpu import tpu_embedding_configuration_pb2 as config_pb2

emb = tf.tpu.experimental.embedding
OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "tpu_config.json"

# A case: tables (kwargs + optimizer spec), features (table index + kwargs) in a dict or a
# list, the global optimizer, batch size and host count. Optimizer spec: [class, kwargs];
# a learning rate "dyn:<key>" is a callable, the same callable for the same key.
CASES = {
    "sgd_single_feature": {
        "tables": [{"vocabulary_size": 10, "dim": 3}],
        "features": [{"table": 0}],
        "optimizer": ["SGD", {"learning_rate": 0.1}],
        "batch_size": 4, "num_hosts": 1,
    },
    "tf_test_setup_adagrad": {
        "tables": [
            {"vocabulary_size": 8, "dim": 4, "combiner": "sum", "name": "video"},
            {"vocabulary_size": 16, "dim": 2, "combiner": "mean", "name": "user"},
        ],
        "features": {"watched": {"table": 0}, "favorited": {"table": 0},
                     "friends": {"table": 1, "name": "friends"}},
        "optimizer": ["Adagrad", {"learning_rate": 0.1}],
        "batch_size": 2, "num_hosts": 1,
    },
    "adam_clipping_decay": {
        "tables": [{"vocabulary_size": 20, "dim": 5, "name": "t"}],
        "features": [{"table": 0}],
        "optimizer": ["Adam", {"learning_rate": 0.05, "beta_1": 0.8, "beta_2": 0.95,
                               "epsilon": 1e-5, "lazy_adam": False, "sum_inside_sqrt": False,
                               "clip_weight_min": -1.5, "clip_weight_max": 2.5,
                               "clipvalue": 0.75, "weight_decay_factor": 0.01,
                               "multiply_weight_decay_factor_by_learning_rate": True}],
        "batch_size": 3, "num_hosts": 1,
    },
    "ftrl_one_sided_clips": {
        "tables": [{"vocabulary_size": 7, "dim": 2, "name": "f"}],
        "features": [{"table": 0, "name": "feat"}],
        "optimizer": ["FTRL", {"learning_rate": 0.2, "learning_rate_power": -0.75,
                               "l1_regularization_strength": 0.01,
                               "l2_regularization_strength": 0.02, "beta": 0.5,
                               "initial_accumulator_value": 0.3,
                               "multiply_linear_by_learning_rate": True,
                               "allow_zero_accumulator": True,
                               "clipvalue": [None, 2.0], "clip_weight_max": 3.0}],
        "batch_size": 2, "num_hosts": 1,
    },
    "dynamic_learning_rates": {
        "tables": [
            {"vocabulary_size": 5, "dim": 2, "name": "a",
             "optimizer": ["SGD", {"learning_rate": "dyn:f"}]},
            {"vocabulary_size": 6, "dim": 2, "name": "b",
             "optimizer": ["Adagrad", {"learning_rate": "dyn:g"}]},
            {"vocabulary_size": 7, "dim": 2, "name": "c",
             "optimizer": ["Adam", {"learning_rate": "dyn:f"}]},
            {"vocabulary_size": 8, "dim": 2, "name": "d"},
        ],
        "features": [{"table": 0}, {"table": 1}, {"table": 2}, {"table": 3}],
        "optimizer": ["SGD", {"learning_rate": 0.3}],
        "batch_size": 2, "num_hosts": 1,
    },
    "hosts_padding_and_sequences": {
        "tables": [{"vocabulary_size": 3, "dim": 2, "name": "small"},
                   {"vocabulary_size": 50, "dim": 4, "name": "big"}],
        "features": [{"table": 0}, {"table": 1, "max_sequence_length": 5},
                     {"table": 1, "output_shape": [2, 3]}],
        "optimizer": ["SGD", {"learning_rate": 0.01, "use_gradient_accumulation": False}],
        "batch_size": 2, "num_hosts": 4,
    },
    "defaults_everywhere": {
        "tables": [{"vocabulary_size": 4, "dim": 1, "optimizer": ["FTRL", {}]},
                   {"vocabulary_size": 4, "dim": 1, "optimizer": ["Adam", {}]},
                   {"vocabulary_size": 4, "dim": 1, "optimizer": ["Adagrad", {}]}],
        "features": [{"table": 0}, {"table": 1}, {"table": 2}],
        "optimizer": ["SGD", {}],
        "batch_size": 1, "num_hosts": 1,
    },
}

# Constructor errors: [class, kwargs]; "table" kwargs of FeatureConfig name a table literal.
ERRORS = {
    "table_vocab_zero": ["TableConfig", {"vocabulary_size": 0, "dim": 2}],
    "table_vocab_float": ["TableConfig", {"vocabulary_size": 2.0, "dim": 2}],
    "table_dim_zero": ["TableConfig", {"vocabulary_size": 3, "dim": 0}],
    "table_combiner": ["TableConfig", {"vocabulary_size": 3, "dim": 2, "combiner": "max"}],
    "table_initializer": ["TableConfig", {"vocabulary_size": 3, "dim": 2, "initializer": 3}],
    "feature_table": ["FeatureConfig", {"table": "not a table"}],
    "feature_max_seq": ["FeatureConfig", {"table": "TABLE", "max_sequence_length": -1}],
    "feature_validate": ["FeatureConfig", {"table": "TABLE",
                                           "validate_weights_and_indices": "yes"}],
    "adagrad_accumulator": ["Adagrad", {"initial_accumulator_value": 0.0}],
    "ftrl_accumulator": ["FTRL", {"initial_accumulator_value": -1.0}],
    "adam_beta_1": ["Adam", {"beta_1": 1.0}],
    "adam_epsilon": ["Adam", {"epsilon": 0.0}],
    "sgd_clip_without_accumulation": ["SGD", {"use_gradient_accumulation": False,
                                              "clipvalue": 1.0}],
    "adagrad_clip_without_accumulation": ["Adagrad", {"use_gradient_accumulation": False,
                                                      "clipvalue": [-1.0, 1.0]}],
}


def _kwargs(kwargs, callables):
    out = {}
    for key, value in kwargs.items():
        if isinstance(value, str) and value.startswith("dyn:"):
            value = callables.setdefault(value, (lambda v=value: 0.1))
        if key == "clipvalue" and isinstance(value, list):
            value = tuple(value)  # TensorFlow tells a (min, max) pair by its tuple type
        out[key] = value
    return out


def _optimizer(spec, callables):
    if spec is None:
        return None
    cls, kwargs = spec
    opt = getattr(emb, cls)(**_kwargs(kwargs, callables))
    # TF 2.21 writes this bool into an enum field, which the upb protobuf refuses ("Expected
    # an int, got a boolean"): its mid-level API cannot serialise any optimizer as shipped.
    # 0 is the value False stands for (UNSPECIFIED), so the recorded config is unchanged.
    opt.low_dimensional_packing_status = 0
    return opt


def _config(case):
    callables = {}
    tables = []
    for spec in case["tables"]:
        spec = dict(spec)
        opt = _optimizer(spec.pop("optimizer", None), callables)
        tables.append(emb.TableConfig(**spec, optimizer=opt))

    def feature(spec):
        spec = dict(spec)
        return emb.FeatureConfig(table=tables[spec.pop("table")], **spec)

    features = case["features"]
    if isinstance(features, dict):
        feature_config = {k: feature(v) for k, v in features.items()}
    else:
        feature_config = [feature(v) for v in features]
    # The constructor (CPU, no strategy) orders tables, names them and sets their optimizer.
    mid = emb.TPUEmbedding(feature_config, _optimizer(case["optimizer"], callables))
    dynamic = []
    for table in mid._table_config:
        if callable(table.optimizer.learning_rate) and table.optimizer.learning_rate not in dynamic:
            dynamic.append(table.optimizer.learning_rate)
    index = {f: i for i, f in enumerate(dynamic)}
    proto = config_pb2.TPUEmbeddingConfiguration()
    for table in mid._table_config:
        table._set_table_descriptor(proto.table_descriptor.add(), case["num_hosts"], index)
    table_id = {t: i for i, t in enumerate(mid._table_config)}
    shapes = mid._get_output_shapes_from_batch_size(case["batch_size"])
    for f, default_shape in zip(tf.nest.flatten(feature_config), shapes):
        desc = proto.feature_descriptor.add()
        if f.name:
            desc.name = f.name
        desc.table_id = table_id[f.table]
        shape = f.output_shape if f.output_shape else default_shape
        desc.input_shape.extend(shape.as_list())
    proto.mode = config_pb2.TPUEmbeddingConfiguration.TRAINING
    proto.batch_size_per_tensor_core = case["batch_size"]
    proto.num_hosts = case["num_hosts"]
    proto.num_tensor_cores = 1
    proto.sharding_strategy = config_pb2.TPUEmbeddingConfiguration.DIV_DEFAULT
    proto.pipeline_execution_with_tensor_core = False
    return json_format.MessageToDict(proto, preserving_proto_field_name=True)


def _error(spec):
    cls, kwargs = spec
    kwargs = dict(kwargs)
    if kwargs.get("table") == "TABLE":
        kwargs["table"] = emb.TableConfig(vocabulary_size=2, dim=2)
    if isinstance(kwargs.get("clipvalue"), list):
        kwargs["clipvalue"] = tuple(kwargs["clipvalue"])
    try:
        getattr(emb, cls)(**kwargs)
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{cls}({kwargs}) did not raise")


def _duplicate_names():
    t1 = emb.TableConfig(vocabulary_size=2, dim=2, name="same")
    t2 = emb.TableConfig(vocabulary_size=2, dim=2, name="same")
    try:
        emb.TPUEmbedding([emb.FeatureConfig(t1), emb.FeatureConfig(t2)], emb.SGD())
    except ValueError as e:
        return str(e)
    raise AssertionError("duplicate names did not raise")


def main():
    goldens = {
        "tensorflow": tf.__version__,
        "cases": {name: {"spec": case, "config": _config(case)} for name, case in CASES.items()},
        "errors": {name: {"spec": spec, "message": _error(spec)} for name, spec in ERRORS.items()},
        "duplicate_table_names": _duplicate_names(),
    }
    OUT.write_text(json.dumps(goldens, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
