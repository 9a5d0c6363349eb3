"""``tm.tpu``: the TPU embedding configuration and a small mid-level API.

The configuration classes mirror TensorFlow's ``TPUEmbeddingConfiguration`` and
``OptimizationParameters`` protos (see ``tfmini/ops/tpu_embedding_config.py``); they live in the
ops layer because the embedding ops parse them from their ``config`` attr.
"""

from __future__ import annotations

from tfmini.ops.tpu_embedding_config import (
    AdadeltaParameters,
    AdagradMomentumParameters,
    AdagradParameters,
    AdamParameters,
    CenteredRmsPropParameters,
    ClippingLimits,
    DynamicLearningRate,
    FeatureDescriptor,
    FtrlParameters,
    GradientAccumulationStatus,
    LearningRate,
    MomentumParameters,
    OptimizationParameters,
    ProximalAdagradParameters,
    RmsPropParameters,
    SpmdSharding,
    StochasticGradientDescentParameters,
    TableDescriptor,
    TPUEmbeddingConfiguration,
    dynamic_learning_rate_tags,
    recv_output_shapes,
    shard_of_ids,
    shard_row_ids,
    shard_row_range,
    shard_size,
    slot_names,
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
    "OptimizationParameters",
    "ProximalAdagradParameters",
    "RmsPropParameters",
    "SpmdSharding",
    "StochasticGradientDescentParameters",
    "TPUEmbeddingConfiguration",
    "TableDescriptor",
    "dynamic_learning_rate_tags",
    "recv_output_shapes",
    "shard_of_ids",
    "shard_row_ids",
    "shard_row_range",
    "shard_size",
    "slot_names",
]
