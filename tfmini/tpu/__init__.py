"""``tm.tpu``: the TPU embedding configuration and a small mid-level API.

The configuration classes mirror TensorFlow's ``TPUEmbeddingConfiguration`` and
``OptimizationParameters`` protos (see ``tfmini/ops/tpu_embedding/config.py``); they live in the
ops layer because the embedding ops parse them from their ``config`` attr.
"""

from __future__ import annotations

from tfmini.ops import tpu_embedding as _tpu_embedding
from tfmini.ops.tpu_embedding import *  # noqa: F403
from tfmini.tpu import mid_level as _mid_level
from tfmini.tpu.mid_level import *  # noqa: F403

# The configuration messages and the mid-level API, from their modules' own lists.
__all__ = sorted({*_tpu_embedding.__all__, *_mid_level.__all__})
