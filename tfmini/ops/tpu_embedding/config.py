"""The TPU embedding configuration: TensorFlow's protos as frozen, validated values.

TensorFlow configures the embedding layer with one serialized ``TPUEmbeddingConfiguration``
proto (``tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto``) whose tables carry
``OptimizationParameters`` (``optimization_parameters.proto``). tfmini keeps the same message
and field names as frozen attrs classes, validated when built, and serialises them to a
versioned JSON text that :meth:`TPUEmbeddingConfiguration.FromString` parses back exactly.
This is pure data plus the arithmetic the ops need (shard row ranges, Recv output shapes,
dynamic learning-rate tags, slot names); it builds no ops, so both the ops layer
(``tfmini/ops/tpu_embedding/``) and ``tm.tpu`` can import it.

Here: ``tpu_embedding_configuration.proto`` (:class:`TPUEmbeddingConfiguration`,
:class:`TableDescriptor`, :class:`FeatureDescriptor`, :class:`SpmdSharding`) and the
helpers that read a configuration. Re-exported from their own modules:

* ``optimization``: ``optimization_parameters.proto``
  (:class:`OptimizationParameters` and the algorithms' messages), slot and op names;
* ``sharding``: the shard arithmetic (``shard_size``, ``shard_of_ids``, ...);
* ``messages``: how messages are declared and encoded (``FORMAT_VERSION``).

Field defaults are the protos' defaults (0, 0.0, False, "", unset). Enum fields hold the
enum's name as a string (``"TRAINING"``) and accept the name in any case or its number;
the class constants (``TPUEmbeddingConfiguration.TRAINING``) are those strings. A message
field that the proto leaves unset is ``None`` here.

Example:
    >>> params = OptimizationParameters(
    ...     learning_rate=LearningRate(constant=0.1), adagrad=AdagradParameters())
    >>> config = TPUEmbeddingConfiguration(
    ...     table_descriptor=[TableDescriptor(name="t", vocabulary_size=10, dimension=4,
    ...                                       num_features=1, optimization_parameters=params)],
    ...     mode="TRAINING", batch_size_per_tensor_core=8, num_hosts=1, num_tensor_cores=1)
    >>> TPUEmbeddingConfiguration.FromString(config.SerializeToString()) == config
    True
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from tfmini.ops.tpu_embedding.messages import (
    FORMAT_VERSION,  # noqa: F401  (re-exported)
    Message,
    bool_field,
    enum_field,
    int_field,
    message_field,
    register_message,
    repeated_int_field,
    repeated_message_field,
    str_field,
)
from tfmini.ops.tpu_embedding.optimization import (
    OPTIMIZER_FIELDS,
    AdadeltaParameters,
    AdagradMomentumParameters,
    AdagradParameters,
    AdamParameters,
    CenteredRmsPropParameters,
    ClippingLimits,
    DynamicLearningRate,
    FtrlParameters,
    GradientAccumulationStatus,
    LearningRate,
    MomentumParameters,
    OptimizationParameters,
    ProximalAdagradParameters,
    RmsPropParameters,
    StochasticGradientDescentParameters,
    load_op_name,
    optimizer_name,
    retrieve_op_name,
    slot_names,
)
from tfmini.ops.tpu_embedding.sharding import (
    shard_of_ids,
    shard_row_ids,
    shard_row_range,
    shard_size,
)

__all__ = [
    "AdadeltaParameters",
    "AdagradMomentumParameters",
    "AdagradParameters",
    "AdamParameters",
    "CenteredRmsPropParameters",
    "ClippingLimits",
    "DynamicLearningRate",
    "FeatureDescriptor",
    "FtrlParameters",
    "GradientAccumulationStatus",
    "LearningRate",
    "MomentumParameters",
    "OPTIMIZER_FIELDS",
    "OptimizationParameters",
    "ProximalAdagradParameters",
    "RmsPropParameters",
    "SpmdSharding",
    "StochasticGradientDescentParameters",
    "TPUEmbeddingConfiguration",
    "TableDescriptor",
    "dynamic_learning_rate_tags",
    "learning_rate_of",
    "load_op_name",
    "optimizer_name",
    "recv_output_shapes",
    "retrieve_op_name",
    "shard_of_ids",
    "shard_row_ids",
    "shard_row_range",
    "shard_size",
    "slot_names",
    "table_features",
]

# --------------------------------------------------------------------------------------------
# tpu_embedding_configuration.proto
# --------------------------------------------------------------------------------------------


@register_message
@attrs.frozen(kw_only=True)
class TableDescriptor(Message):
    """One embedding table.

    Args:
        name: the table's name (unique within a configuration).
        vocabulary_size: number of rows, >= 1.
        dimension: embedding width, >= 1.
        num_features: features looking up this table (per sample), >= 0.
        optimization_parameters: an :class:`OptimizationParameters` or None.
    """

    name: str = str_field()
    vocabulary_size: int = int_field(0)
    dimension: int = int_field(0)
    num_features: int = int_field(0, minimum=0)
    optimization_parameters: OptimizationParameters | None = message_field(
        "OptimizationParameters")

    def __attrs_post_init__(self) -> None:
        if self.vocabulary_size < 1:
            raise ValueError(
                f"TableDescriptor {self.name!r}: vocabulary_size must be >= 1, got "
                f"{self.vocabulary_size}"
            )
        if self.dimension < 1:
            raise ValueError(
                f"TableDescriptor {self.name!r}: dimension must be >= 1, got {self.dimension}"
            )


@register_message
@attrs.frozen(kw_only=True)
class FeatureDescriptor(Message):
    """One feature (input) of the configuration: its table and the shape of its input.

    Args:
        name: the feature's name.
        table_id: index into the configuration's ``table_descriptor``.
        input_shape: the activation's shape without the embedding dimension, e.g.
            ``[batch]`` or ``[batch, max_sequence_length]``; each entry >= 1.
    """

    name: str = str_field()
    table_id: int = int_field(0, minimum=0)
    input_shape: tuple[int, ...] = repeated_int_field()

    def __attrs_post_init__(self) -> None:
        if any(d < 1 for d in self.input_shape):
            raise ValueError(
                f"FeatureDescriptor {self.name!r}: input_shape entries must be >= 1, got "
                f"{list(self.input_shape)}"
            )


@register_message
@attrs.frozen(kw_only=True)
class SpmdSharding(Message):
    """SPMD sharding options (recorded, not simulated)."""

    enabled: bool = bool_field()
    num_cores_per_replica: int = int_field(0, minimum=0)
    use_manual_partitioning: bool = bool_field()
    use_shardy_partitioner: bool = bool_field()


_MODES = ("UNSPECIFIED", "INFERENCE", "TRAINING", "BACKWARD_PASS_ONLY")
_SHARDING = ("DIV_DEFAULT", "MOD")


@register_message
@attrs.frozen(kw_only=True)
class TPUEmbeddingConfiguration(Message):
    """The whole embedding layer: tables, features, mode, batch and topology.

    Args:
        table_descriptor: list of :class:`TableDescriptor`, names unique.
        mode: "UNSPECIFIED", "INFERENCE" (forward only), "TRAINING" or "BACKWARD_PASS_ONLY"
            (or the class constants, or the enum numbers 0..3).
        batch_size_per_tensor_core: samples per core and step, >= 0.
        num_hosts: hosts (0 = unset, read as 1 by the helpers), >= 0.
        num_tensor_cores: simulated cores (0 = unset, read as 1), >= 0.
        sharding_strategy: "DIV_DEFAULT" (contiguous blocks) or "MOD" (id % shards).
        pipeline_execution_with_tensor_core: lookups of step N+1 may not see step N's updates.
        profile_data_directory: recorded only.
        feature_descriptor: list of :class:`FeatureDescriptor`; when given, Recv returns one
            activation per feature instead of one per table.
        spmd_sharding: :class:`SpmdSharding` or None.

    Raises:
        TypeError: a field has the wrong type.
        ValueError: duplicate table names or non-empty feature names, a feature's table_id
            out of range, a table with no features in the per-table (no feature descriptors)
            layout, or dynamic learning-rate tags that are not dense 0..K-1.
    """

    UNSPECIFIED: ClassVar[str] = "UNSPECIFIED"
    INFERENCE: ClassVar[str] = "INFERENCE"
    TRAINING: ClassVar[str] = "TRAINING"
    BACKWARD_PASS_ONLY: ClassVar[str] = "BACKWARD_PASS_ONLY"
    DIV_DEFAULT: ClassVar[str] = "DIV_DEFAULT"
    MOD: ClassVar[str] = "MOD"

    table_descriptor: tuple[TableDescriptor, ...] = repeated_message_field("TableDescriptor")
    mode: str = enum_field(_MODES, "UNSPECIFIED")
    batch_size_per_tensor_core: int = int_field(0, minimum=0)
    num_hosts: int = int_field(0, minimum=0)
    num_tensor_cores: int = int_field(0, minimum=0)
    sharding_strategy: str = enum_field(_SHARDING, "DIV_DEFAULT")
    pipeline_execution_with_tensor_core: bool = bool_field()
    profile_data_directory: str = str_field()
    feature_descriptor: tuple[FeatureDescriptor, ...] = repeated_message_field(
        "FeatureDescriptor")
    spmd_sharding: SpmdSharding | None = message_field("SpmdSharding")

    def __attrs_post_init__(self) -> None:
        seen: dict[str, int] = {}
        for i, table in enumerate(self.table_descriptor):
            if table.name in seen:
                raise ValueError(
                    f"table names must be unique: table_descriptor[{i}] and "
                    f"table_descriptor[{seen[table.name]}] are both named {table.name!r}"
                )
            seen[table.name] = i
        n_tables = len(self.table_descriptor)
        features: dict[str, int] = {}
        for i, feature in enumerate(self.feature_descriptor):
            if not 0 <= feature.table_id < n_tables:
                raise ValueError(
                    f"feature_descriptor[{i}] ({feature.name!r}) has table_id "
                    f"{feature.table_id}, but there are {n_tables} tables "
                    f"(valid ids 0..{n_tables - 1})"
                )
            # Unnamed features are normal (TensorFlow's mid-level API leaves names empty).
            if feature.name and feature.name in features:
                raise ValueError(
                    f"feature names must be unique: feature_descriptor[{i}] and "
                    f"feature_descriptor[{features[feature.name]}] are both named "
                    f"{feature.name!r}"
                )
            features[feature.name] = i
        if not self.feature_descriptor:
            # Per-table layout: Recv's output i has batch * num_features rows; zero is no table.
            for i, table in enumerate(self.table_descriptor):
                if table.num_features < 1:
                    raise ValueError(
                        f"table_descriptor[{i}] ({table.name!r}) has num_features "
                        f"{table.num_features}; without feature descriptors every table needs "
                        "num_features >= 1"
                    )
        tags = sorted({
            t.optimization_parameters.learning_rate.dynamic.tag
            for t in self.table_descriptor
            if t.optimization_parameters is not None
            and t.optimization_parameters.learning_rate.dynamic is not None
        })
        if tags != list(range(len(tags))):
            missing = sorted(set(range(max(tags) + 1)) - set(tags))
            raise ValueError(
                f"dynamic learning-rate tags must be dense from 0: the tables use tags {tags}, "
                f"missing {missing}"
            )

    def table_index(self, name: str) -> int:
        """The position of the table called ``name``.

        Raises:
            ValueError: no such table.
        """
        for i, table in enumerate(self.table_descriptor):
            if table.name == name:
                return i
        raise ValueError(
            f"no table named {name!r}; tables: {[t.name for t in self.table_descriptor]}"
        )

    @property
    def num_shards(self) -> int:
        """Simulated cores holding table shards: ``num_tensor_cores``, 1 when unset."""
        return max(1, self.num_tensor_cores)


# --------------------------------------------------------------------------------------------
# Helpers for the ops: reading a configuration
# --------------------------------------------------------------------------------------------


def learning_rate_of(table: TableDescriptor) -> LearningRate:
    """The table's learning rate (an unset one, reading 0.0, when it has no parameters)."""
    if table.optimization_parameters is None:
        return LearningRate()
    return table.optimization_parameters.learning_rate


def dynamic_learning_rate_tags(config: TPUEmbeddingConfiguration) -> tuple[int, ...]:
    """The distinct dynamic tags in order, ``(0, ..., K-1)``: Send's ``learning_rates`` slots."""
    return tuple(sorted({
        learning_rate_of(t).dynamic.tag
        for t in config.table_descriptor
        if learning_rate_of(t).dynamic is not None
    }))


def table_features(config: TPUEmbeddingConfiguration) -> tuple[tuple[int, ...], ...]:
    """For each table, the indices of the feature descriptors that look it up (in order)."""
    out: list[list[int]] = [[] for _ in config.table_descriptor]
    for i, feature in enumerate(config.feature_descriptor):
        out[feature.table_id].append(i)
    return tuple(tuple(f) for f in out)


def recv_output_shapes(config: TPUEmbeddingConfiguration) -> tuple[tuple[int, ...], ...]:
    """The shapes of RecvTPUEmbeddingActivations' outputs (also Send's gradient inputs).

    Per feature ``input_shape + [dimension]`` when feature descriptors exist; otherwise per
    table ``[batch_size_per_tensor_core * num_features, dimension]``.
    """
    tables = config.table_descriptor
    if config.feature_descriptor:
        return tuple(
            (*f.input_shape, tables[f.table_id].dimension) for f in config.feature_descriptor
        )
    return tuple(
        (config.batch_size_per_tensor_core * t.num_features, t.dimension) for t in tables
    )
