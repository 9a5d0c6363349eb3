"""Contract samples for the ops of TPU embedding tables sharded over ps tasks
(tfmini/ops/tpu_embedding/ps_shards.py).

One Session has one TPU device, so each sample sets up either a host (the configuration
with ``num_hosts`` 2, MOD) or one shard (that configuration's shard 1), not both.
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops
T = tm.tpu


def config():
    opt = T.OptimizationParameters(learning_rate=T.LearningRate(constant=0.1),
                                   adagrad=T.AdagradParameters())
    return T.TPUEmbeddingConfiguration(
        table_descriptor=[
            T.TableDescriptor(name="a", vocabulary_size=6, dimension=3, num_features=1,
                              optimization_parameters=opt),
            T.TableDescriptor(name="b", vocabulary_size=5, dimension=2, num_features=1,
                              optimization_parameters=opt),
        ],
        mode="TRAINING", batch_size_per_tensor_core=2, num_hosts=2, num_tensor_cores=1,
        sharding_strategy="MOD")


HOST_CONFIG = config().SerializeToString()
SHARD_CONFIG = T.shard_config(config(), 1).SerializeToString()


def _host_setup(dequeue=False):
    ops = [R._ConfigureTPUEmbeddingHost(config=HOST_CONFIG),
           R.EnqueueTPUEmbeddingIntegerBatch(
               batch=[np.array([1, 4], np.int32), np.array([0, 3], np.int32)],
               mode_override="unspecified")]
    if dequeue:
        ops.append(R._TPUEmbeddingDequeueShardIds(NR=4, config=HOST_CONFIG)[0].op)
    return ops


def _combine():
    # Ids [1, 4] of table a and [0, 3] of b: one row of each table on each shard.
    rows = [np.ones((1, 3), np.float32), np.ones((1, 2), np.float32),
            np.full((1, 3), 2.0, np.float32), np.full((1, 2), 2.0, np.float32)]
    return [rows], {"num_outputs": 2, "config": HOST_CONFIG}, _host_setup(dequeue=True)


def _send():
    grads = [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]
    return [grads], {"NR": 4, "config": HOST_CONFIG}, _host_setup(dequeue=True)


def _shard_setup():
    return [R.ConfigureTPUEmbedding(config=SHARD_CONFIG)]


def _gather():
    return [[np.array([0, 2], np.int64), np.array([1], np.int64)]], {"config": SHARD_CONFIG}, \
        _shard_setup()


def _apply():
    rows = [np.array([0, 2], np.int64), np.array([1], np.int64)]
    grads = [np.ones((2, 3), np.float32), np.ones((1, 2), np.float32)]
    return [rows, grads, []], {"config": SHARD_CONFIG}, _shard_setup()


SAMPLES = {
    "_ConfigureTPUEmbeddingHost": lambda: ([], {"config": HOST_CONFIG}),
    "_TPUEmbeddingDequeueShardIds": lambda: ([], {"NR": 4, "config": HOST_CONFIG}, _host_setup()),
    "_TPUEmbeddingCombineShardRows": _combine,
    "_TPUEmbeddingSendShardGradients": _send,
    "_TPUEmbeddingShardGather": _gather,
    "_TPUEmbeddingShardApplyGradients": _apply,
}
