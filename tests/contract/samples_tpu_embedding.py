"""Contract samples for the simulated TPU embedding ops (tfmini/ops/tpu_embedding/).

Every sample uses one small configuration (two tables, per-table Recv outputs; a second with
feature descriptors for the arbitrary-tensor enqueue). Setup ops configure the device and,
where the op needs one, enqueue a batch (and receive it, for Send). The ops are placed on
/device:TPU:0 by the builder, as their only kernels are there.
"""

import numpy as np

import tfmini as tm
from tfmini.ops import tpu_embedding
from tfmini.ops.tpu_embedding import config as tpu_embedding_config

R = tm.raw_ops
T = tm.tpu

_BATCH = 2


def _config(optimizer="adagrad", features=False):
    params = {
        "stochastic_gradient_descent": T.StochasticGradientDescentParameters(),
        "adagrad": T.AdagradParameters(),
        "adam": T.AdamParameters(beta1=0.9, beta2=0.99, epsilon=1e-3),
        "ftrl": T.FtrlParameters(lr_power=-0.5),
        "momentum": T.MomentumParameters(momentum=0.9),
        "rms_prop": T.RmsPropParameters(rho=0.9, momentum=0.1, epsilon=1e-3),
        "adagrad_momentum": T.AdagradMomentumParameters(momentum=0.5, exponent=2.0, beta2=1.0,
                                                        epsilon=1e-3),
    }[optimizer]
    opt = T.OptimizationParameters(learning_rate=T.LearningRate(constant=0.1),
                                   **{optimizer: params})
    fds = [T.FeatureDescriptor(name="f0", table_id=0, input_shape=[_BATCH]),
           T.FeatureDescriptor(name="f1", table_id=1, input_shape=[_BATCH])] if features else []
    return T.TPUEmbeddingConfiguration(
        table_descriptor=[
            T.TableDescriptor(name="a", vocabulary_size=6, dimension=3, num_features=1,
                              optimization_parameters=opt),
            T.TableDescriptor(name="b", vocabulary_size=5, dimension=2, num_features=1,
                              optimization_parameters=opt),
        ],
        mode="TRAINING", batch_size_per_tensor_core=_BATCH, num_hosts=1, num_tensor_cores=2,
        feature_descriptor=fds,
    ).SerializeToString()


_CONFIG = _config()


def _configure(config=_CONFIG):
    return R.ConfigureTPUEmbedding(config=config)


def _integer_batch():
    return R.EnqueueTPUEmbeddingIntegerBatch(
        batch=[np.array([1, 4], np.int32), np.array([0, 3], np.int32)],
        mode_override="unspecified")


def _sparse_lists():
    return ([np.array([0, 0, 1], np.int32), np.array([1], np.int32)],
            [np.array([1, 2, 5], np.int32), np.array([4], np.int32)],
            [np.array([1.0, 2.0, 0.5], np.float32), np.array([3.0], np.float32)])


def _enqueue_sample(op_type):
    def sample():
        si, ei, aw = _sparse_lists()
        attrs = {"combiners": ["sum", "mean"]}
        config = _CONFIG
        if op_type == "EnqueueTPUEmbeddingIntegerBatch":
            return [[np.array([1, 4], np.int32), np.array([0, 3], np.int32)],
                    "training"], {}, [_configure()]
        if op_type == "EnqueueTPUEmbeddingRaggedTensorBatch":
            si = [np.array([0, 2, 3], np.int32), np.array([0, 0, 1], np.int32)]
        if op_type in ("EnqueueTPUEmbeddingSparseTensorBatch",
                       "EnqueueTPUEmbeddingRaggedTensorBatch"):
            attrs["table_ids"] = [0, 1]
        if op_type == "EnqueueTPUEmbeddingArbitraryTensorBatch":
            config = _config(features=True)
            si = [np.array([[0, 0], [0, 1], [1, 0]], np.int32), np.array([[1, 0]], np.int32)]
        return [si, ei, aw, "train"], attrs, [_configure(config)]

    return sample


def _recv():
    return [], {"num_outputs": 2, "config": _CONFIG}, [_configure(), _integer_batch()]


def _send():
    recv = R.RecvTPUEmbeddingActivations(num_outputs=2, config=_CONFIG)
    grads = [np.ones((_BATCH, 3), np.float32), np.full((_BATCH, 2), 0.5, np.float32)]
    return [grads, []], {"config": _CONFIG}, [_configure(), _integer_batch(), recv[0].op]


def _load(alg):
    def sample():
        config = _config(alg)
        rows = tpu_embedding_config.shard_size(6, 2, 1)
        values = [np.full((rows, 3), 0.5, np.float32)
                  for _ in tpu_embedding_config.slot_names(alg)]
        return values, {"table_name": "a", "num_shards": 2, "shard_id": 1,
                        "config": config}, [_configure(config)]

    return sample


def _retrieve(alg):
    def sample():
        config = _config(alg)
        return [], {"table_id": 1, "num_shards": 1, "shard_id": 0}, [_configure(config)]

    return sample


SAMPLES = {
    "ConfigureTPUEmbedding": lambda: ([], {"config": _CONFIG}),
    "RecvTPUEmbeddingActivations": _recv,
    "SendTPUEmbeddingGradients": _send,
    **{op: _enqueue_sample(op) for op in (
        "EnqueueTPUEmbeddingIntegerBatch", "EnqueueTPUEmbeddingSparseBatch",
        "EnqueueTPUEmbeddingSparseTensorBatch", "EnqueueTPUEmbeddingRaggedTensorBatch",
        "EnqueueTPUEmbeddingArbitraryTensorBatch")},
    **{tpu_embedding_config.load_op_name(alg): _load(alg)
       for alg in tpu_embedding.SUPPORTED_OPTIMIZERS},
    **{tpu_embedding_config.retrieve_op_name(alg): _retrieve(alg)
       for alg in tpu_embedding.SUPPORTED_OPTIMIZERS},
}
