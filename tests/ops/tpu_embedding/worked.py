"""The worked setup of tensorflow/python/tpu/tests/tpu_embedding_base_test.py and an independent
NumPy reference for it.

Two tables initialised to 0..31 row-major: "video" (8 x 4, combiner sum) looked up by the
features "watched" and "favorited", and "user" (16 x 2, combiner mean) looked up by "friends".
The reference below uses plain Python loops over samples and ids, so it shares no code with
the device's vectorised kernels.
"""

from __future__ import annotations

import numpy as np

import tfmini as tm

T = tm.tpu
R = tm.raw_ops

VIDEO = np.arange(32, dtype=np.float32).reshape(8, 4)
USER = np.arange(32, dtype=np.float32).reshape(16, 2)
TABLES = {"video": VIDEO, "user": USER}
COMBINERS = {"video": "sum", "user": "mean"}
# feature -> (table, ids per sample of the 4-sample global batch)
FEATURES = {
    "watched": ("video", [[0], [0, 1], [0, 1], [1]]),
    "favorited": ("video", [[0, 1], [1], [0], [0, 1]]),
    "friends": ("user", [[3], [0, 1, 2], [3], [0, 1, 2]]),
}
# Without feature descriptors Recv gives one output per table, rows b * nf + f.
TABLE_FEATURES = {"video": ["watched", "favorited"], "user": ["friends"]}


def opt_params(lr=0.1, **kwargs) -> T.OptimizationParameters:
    """OptimizationParameters with a constant rate unless ``lr`` is a LearningRate."""
    rate = lr if isinstance(lr, T.LearningRate) else T.LearningRate(constant=lr)
    return T.OptimizationParameters(learning_rate=rate, **kwargs)


def config(video_opt, user_opt=None, batch=4, cores=1, strategy="DIV_DEFAULT",
           mode="TRAINING", features=False) -> T.TPUEmbeddingConfiguration:
    """The worked configuration; ``features=True`` adds the three feature descriptors."""
    fds = []
    if features:
        fds = [T.FeatureDescriptor(name=f, table_id=0 if t == "video" else 1, input_shape=[batch])
               for f, (t, _) in FEATURES.items()]
    return T.TPUEmbeddingConfiguration(
        table_descriptor=[
            T.TableDescriptor(name="video", vocabulary_size=8, dimension=4, num_features=2,
                              optimization_parameters=video_opt),
            T.TableDescriptor(name="user", vocabulary_size=16, dimension=2, num_features=1,
                              optimization_parameters=user_opt or video_opt),
        ],
        mode=mode, batch_size_per_tensor_core=batch, num_hosts=1, num_tensor_cores=cores,
        sharding_strategy=strategy, feature_descriptor=fds,
    )


def sparse_batch_inputs(batch=4):
    """EnqueueTPUEmbeddingSparseBatch inputs: per table, rows b * nf + f, ids and weights."""
    sample_indices, ids = [], []
    for feats in TABLE_FEATURES.values():
        rows, vals = [], []
        for f, name in enumerate(feats):
            for b, sample in enumerate(FEATURES[name][1][:batch]):
                rows += [b * len(feats) + f] * len(sample)
                vals += sample
        sample_indices.append(np.array(rows, np.int32))
        ids.append(np.array(vals, np.int32))
    weights = [np.ones(len(i), np.float32) for i in ids]
    return sample_indices, ids, weights


def load_ops(cfg, slots_by_table):
    """Load ops for both tables (one shard), ``slots_by_table[name]`` = the slot arrays."""
    s = cfg.SerializeToString()
    ops = []
    for t in cfg.table_descriptor:
        load = getattr(R, tm.ops.tpu_embedding.config.load_op_name(t.optimization_parameters))
        names = T.slot_names(t.optimization_parameters)
        values = dict(zip(names, [TABLES[t.name], *slots_by_table[t.name]]))
        ops.append(load(**values, table_name=t.name, num_shards=1, shard_id=0, config=s))
    return ops


def retrieve(sess, cfg, name, num_shards=1, shard_id=0):
    t = cfg.table_descriptor[cfg.table_index(name)]
    op = getattr(R, tm.ops.tpu_embedding.config.retrieve_op_name(t.optimization_parameters))
    with sess.graph.as_default():
        out = op(table_name=name, num_shards=num_shards, shard_id=shard_id,
                 config=cfg.SerializeToString())
    # SGD's Retrieve has one output (an Output, not a namedtuple): always give a tuple.
    return tuple(sess.run(out if isinstance(out, tuple) else (out,)))


# ------------------------------------------------------------------------------------------
# The independent reference (float64, loops).


def ref_activations(tables, batch=4):
    """feature -> (batch, dim) activations by the combiner formulas of 2.5."""
    out = {}
    for name, (table, samples) in FEATURES.items():
        e = tables[table].astype(np.float64)
        rows = []
        for sample in samples[:batch]:
            total = np.zeros(e.shape[1])
            for i in sample:
                total += e[i]
            if COMBINERS[table] == "mean" and sample:
                total /= len(sample)
            rows.append(total)
        out[name] = np.array(rows)
    return out


def ref_table_gradients(tables, batch=4):
    """table -> {row: gradient} for loss = sum over features of mean_b sum(a**2)."""
    acts = ref_activations(tables, batch)
    grads = {t: {} for t in tables}
    for name, (table, samples) in FEATURES.items():
        for b, sample in enumerate(samples[:batch]):
            dl_da = 2.0 * acts[name][b] / batch
            denom = len(sample) if COMBINERS[table] == "mean" else 1.0
            for i in sample:
                grads[table][i] = grads[table].get(i, 0.0) + dl_da / denom
    return grads


def enqueue_ops(cfg, kind="sparse", batch=4):
    """The worked batch through one of the enqueue ops (``kind``: sparse, sparse_tensor,
    ragged, arbitrary, arbitrary_sparse); the per-feature kinds need ``features=True`` for
    arbitrary*."""
    combiners = [COMBINERS[t.name] for t in cfg.table_descriptor]
    if kind == "sparse":
        si, ids, w = sparse_batch_inputs(batch)
        return R.EnqueueTPUEmbeddingSparseBatch(
            sample_indices=si, embedding_indices=ids, aggregation_weights=w,
            mode_override="unspecified", combiners=combiners)
    firsts, ids, weights, table_ids = [], [], [], []
    for table, samples in FEATURES.values():
        samples = samples[:batch]
        flat = [i for s in samples for i in s]
        ids.append(np.array(flat, np.int64))
        weights.append(np.zeros(0, np.float32))  # empty: all weights 1
        table_ids.append(0 if table == "video" else 1)
        if kind in ("sparse_tensor", "arbitrary_sparse"):
            idx = np.array([[b, k] for b, s in enumerate(samples) for k in range(len(s))],
                           np.int64)
            firsts.append(idx[:, 0] if kind == "sparse_tensor" else idx)
        else:  # ragged row splits
            firsts.append(np.cumsum([0] + [len(s) for s in samples]).astype(np.int64))
    if kind in ("sparse_tensor", "ragged"):
        op = (R.EnqueueTPUEmbeddingSparseTensorBatch if kind == "sparse_tensor"
              else R.EnqueueTPUEmbeddingRaggedTensorBatch)
        key = "sample_indices" if kind == "sparse_tensor" else "sample_splits"
        return op(**{key: firsts}, embedding_indices=ids, aggregation_weights=weights,
                  mode_override="unspecified", combiners=combiners, table_ids=table_ids)
    return R.EnqueueTPUEmbeddingArbitraryTensorBatch(
        sample_indices_or_row_splits=firsts, embedding_indices=ids,
        aggregation_weights=weights, mode_override="unspecified", combiners=combiners)


class Step:
    """A session holding the configured, loaded device and a one-run training step.

    ``run()`` runs Enqueue, Recv and Send in one Session.run (Recv waits for the Enqueue of
    the same run) with loss = sum over outputs of sum(a**2) / batch, differentiated by
    ``tm.gradients``; it returns the activations.
    """

    def __init__(self, cfg, slots_by_table, kind="sparse", learning_rates=(), batch=4,
                 mode_override=None):
        self.cfg = cfg
        s = cfg.SerializeToString()
        self.graph = g = tm.Graph()
        with g.as_default():
            conf = R.ConfigureTPUEmbedding(config=s)
            loads = load_ops(cfg, slots_by_table)
            self.enqueue = enqueue_ops(cfg, kind, batch)
            n = len(cfg.feature_descriptor) or len(cfg.table_descriptor)
            self.acts = R.RecvTPUEmbeddingActivations(num_outputs=n, config=s)
            loss = tm.add_n([tm.reduce_sum(tm.square(a)) for a in self.acts]) / float(batch)
            grads = tm.gradients(loss, list(self.acts))
            self.lr = [tm.placeholder(tm.float32, shape=(), name=f"lr{k}")
                       for k in range(len(learning_rates))]
            self.send = R.SendTPUEmbeddingGradients(inputs=grads, learning_rates=self.lr,
                                                    config=s)
        self.learning_rates = list(learning_rates)
        self.sess = tm.Session(graph=g)
        self.sess.run(conf)
        self.sess.run(loads)

    def run(self, learning_rates=None):
        rates = self.learning_rates if learning_rates is None else learning_rates
        acts, _, _ = self.sess.run([list(self.acts), self.send, self.enqueue],
                                   feed_dict=dict(zip(self.lr, rates)))
        return acts

    def table(self, name, num_shards=1, shard_id=0):
        return retrieve(self.sess, self.cfg, name, num_shards, shard_id)

    def close(self):
        self.sess.close()
