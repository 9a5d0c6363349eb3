"""The simulated TPU-embedding device: TensorFlow's embedding ops with NumPy kernels.

Recommendation models keep their embedding tables on the TPU. Per step the host enqueues ids
(``EnqueueTPUEmbedding*Batch``), the model receives the combined activations
(``RecvTPUEmbeddingActivations``) and hands back their gradients
(``SendTPUEmbeddingGradients``), which the device applies to the touched rows with the
optimizer named in the configuration. ``LoadTPUEmbedding<Alg>Parameters`` and
``RetrieveTPUEmbedding<Alg>Parameters`` move tables and optimizer slots in and out by shard.

Every op here has a kernel only on ``/device:TPU:0`` (``only_devices=("TPU",)``): the builder
places them there when the scope names no device, and a plan that puts one on the CPU fails
with "No OpKernel was registered to support Op ... on device CPU (registered devices: TPU)".

The family is split by job, one module each:

* ``state``: the device state (:class:`EmbeddingDevice`) and
  ``ConfigureTPUEmbedding``, which sets it up;
* ``enqueue``: the ``EnqueueTPUEmbedding*Batch`` ops;
* ``recv_send``: ``RecvTPUEmbeddingActivations`` and
  ``SendTPUEmbeddingGradients``;
* ``updates``: the optimizer maths Send applies to the touched rows;
* ``load_retrieve``: the ``Load``/``Retrieve`` ops;
* ``ps_shards``: the tables sharded over ps tasks (``num_hosts``, MOD or DIV), one batched
  lookup and one batched update per shard per step (docs/distributed.md).

Importing this module registers them all.

The device state (:class:`EmbeddingDevice`) lives in the TPU device's resource manager:

* the parsed configuration and, per table, its parameters and optimizer slots **sharded
  across ``num_tensor_cores`` simulated cores** (DIV_DEFAULT: contiguous row blocks; MOD:
  ``id % cores``), each shard a separate array, as each core holds its own memory. Lookups
  and updates locate every id's (core, local row) with one vectorised call and loop over the
  cores, never over ids, so results are identical for any core count;
* a FIFO of enqueued batches (Recv waits, as a blocking op, until one is there), and the
  batch the last Recv consumed (what Send's gradients refer to).

Maths (TensorFlow's CPU reference in tpu_embedding_for_serving.py and the optimizer reference of
tensorflow/python/tpu/tests/tpu_embedding_base_test.py): activation of a sample = sum of ``w_i *
E[id_i]`` divided by 1 (sum), ``sum(w)`` (mean) or ``sqrt(sum(w**2))`` (sqrtn); empty samples give
zero rows. On Send, every occurrence contributes ``(w_i / D) * dL/da``; contributions to one row
(across samples and across features sharing the table) are summed first, then the optimizer runs
once per touched row: gradient clipping, the update, decoupled weight decay, weight clipping.
Untouched rows keep their values and slots (except non-lazy Adam, which updates every row).

Failure atomicity: each state change registers a ``ctx.on_failure`` undo. Send remembers only
the touched rows' old values (parameters and slots), so a run that fails after Send puts the
table back at a cost proportional to the batch, not the table.
"""

from __future__ import annotations

from tfmini.ops.tpu_embedding import config as _config

# Importing the parts registers the family's ops.
from tfmini.ops.tpu_embedding import enqueue as _enqueue  # noqa: F401
from tfmini.ops.tpu_embedding import load_retrieve as _load_retrieve  # noqa: F401
from tfmini.ops.tpu_embedding import ps_shards as _ps_shards
from tfmini.ops.tpu_embedding import recv_send as _recv_send  # noqa: F401
from tfmini.ops.tpu_embedding.config import *  # noqa: F403  (the configuration messages)
from tfmini.ops.tpu_embedding.ps_shards import shard_config  # noqa: F401
from tfmini.ops.tpu_embedding.state import EmbeddingDevice  # noqa: F401  (the device state)
from tfmini.ops.tpu_embedding.updates import SUPPORTED_OPTIMIZERS  # noqa: F401

# The public names are the configuration messages and shard_config (tm.tpu re-exports them);
# the device state and the optimizer table are for tfmini's own code, imported by name.
__all__ = sorted([*_config.__all__, *_ps_shards.__all__])
