"""Cases for candidate samplers, sampled losses and sharded embedding lookups, shared by
tools/record_goldens_sampled.py (under ``tensorflow.compat.v1``) and
tests/ops/nn/test_sampled.py (under ``tfmini``); this module never imports TensorFlow.

A value case builds a graph and returns ``(fetches, feeds, runs)``: named tensors, a feed
dict, and how many times to run them in one Session (samplers advance their streams and, for
the learned unigram sampler, their counts). Gradients are converted to dense tensors so both
sides fetch plain arrays. Error cases return ``(fetch, feeds)`` whose run fails.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

_RNG = np.random.default_rng(20_11_2026)
W20 = _RNG.normal(size=(20, 4)).astype(np.float32)
B20 = (_RNG.normal(size=(20,)) * 0.1).astype(np.float32)
X5 = _RNG.normal(size=(5, 4)).astype(np.float32)
Y5 = np.array([[1], [3], [5], [7], [0]], np.int64)
Y5x2 = np.array([[1, 2], [3, 0], [5, 19], [7, 7], [0, 11]], np.int64)
TABLE10 = _RNG.normal(size=(10, 3)).astype(np.float32)
IDS = np.array([[0, 9, 3], [4, 7, 2], [5, 5, 8]], np.int64)
UNIGRAMS = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0]
VOCAB_LINES = "a,10\nb,5\nc,1\nd,0.5\ne,7\nf,2\n"


def _vocab_file() -> str:
    path = os.path.join(tempfile.gettempdir(), "tfmini_sampled_vocab.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write(VOCAB_LINES)
    return path


def _dense(tf, g):
    return tf.convert_to_tensor(g)


def _sampler_case(tf, op, unique, seed, seed2, range_max=10, num_sampled=6, tc=((0,), (9,)),
                  **extra):
    def thunk():
        true = tf.constant(np.array(tc, np.int64))
        out = getattr(tf.raw_ops, op)(true_classes=true, num_true=len(tc[0]),
                                      num_sampled=num_sampled, unique=unique,
                                      range_max=range_max, seed=seed, seed2=seed2, **extra)
        return ({"sampled": out[0], "true_count": out[1], "sampled_count": out[2]}, {}, 3)
    return thunk


def value_cases(tf) -> dict:
    cases = {}
    for op in ("LogUniformCandidateSampler", "UniformCandidateSampler",
               "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler"):
        for unique in (True, False):
            for seeds in ((1, 2), (7, 42), (0, 2**31 - 1)):
                cases[f"{op}/u{int(unique)}/s{seeds[0]}_{seeds[1]}"] = _sampler_case(
                    tf, op, unique, *seeds)
        cases[f"{op}/big"] = _sampler_case(tf, op, True, 5, 6, range_max=1000,
                                           num_sampled=40, tc=((3, 999), (0, 1), (500, 7)))
    cases["UniformCandidateSampler/pow2"] = _sampler_case(
        tf, "UniformCandidateSampler", True, 3, 4, range_max=16, num_sampled=12)
    cases["UniformCandidateSampler/full"] = _sampler_case(
        tf, "UniformCandidateSampler", True, 3, 4, range_max=7, num_sampled=7, tc=((6,),))
    for unique in (True, False):
        cases[f"FixedUnigram/unigrams/u{int(unique)}"] = _sampler_case(
            tf, "FixedUnigramCandidateSampler", unique, 11, 12, range_max=10,
            unigrams=UNIGRAMS)
        cases[f"FixedUnigram/sharded/u{int(unique)}"] = _sampler_case(
            tf, "FixedUnigramCandidateSampler", unique, 11, 12, range_max=6, num_sampled=4,
            tc=((1,), (5,)), unigrams=UNIGRAMS, distortion=0.75, num_reserved_ids=2,
            num_shards=2, shard=1)

    def vocab():
        true = tf.constant(np.array([[0], [4]], np.int64))
        out = tf.nn.fixed_unigram_candidate_sampler(
            true, 1, 5, True, 6, vocab_file=_vocab_file(), distortion=0.5, seed=9)
        return ({"sampled": out[0], "true_count": out[1], "sampled_count": out[2]}, {}, 2)
    cases["FixedUnigram/vocab_file"] = vocab
    cases["AllCandidateSampler"] = lambda: (
        dict(zip(("sampled", "true_count", "sampled_count"), tf.raw_ops.AllCandidateSampler(
            true_classes=tf.constant(np.array([[1, 2]], np.int64)), num_true=2,
            num_sampled=5, unique=True, seed=1, seed2=1))), {}, 2)

    def functions():
        tf.set_random_seed(1234)
        true = tf.constant(Y5)
        outs = {}
        for fname in ("log_uniform_candidate_sampler", "uniform_candidate_sampler",
                      "learned_unigram_candidate_sampler"):
            r = getattr(tf.nn, fname)(true, 1, 4, True, 20)
            outs[f"{fname}/sampled"] = r[0]
            outs[f"{fname}/true_count"] = r[1]
        r = tf.random.log_uniform_candidate_sampler(true, 1, 4, False, 20, seed=5)
        outs["random_alias/sampled"] = r[0]
        return outs, {}, 2
    cases["functions"] = functions

    def hits():
        r = tf.nn.compute_accidental_hits(
            tf.constant(np.array([[1, 4], [5, 6], [2, 2]], np.int64)),
            tf.constant(np.array([4, 2, 6, 4, 9], np.int64)), 2)
        return {"indices": r[0], "ids": r[1], "weights": r[2]}, {}, 1
    cases["compute_accidental_hits"] = hits

    def losses(kind, labels, num_true, shards=None, strategy="mod", hits_flag=None,
               sampled_values=False, as_variables=False):
        def thunk():
            tf.set_random_seed(3)
            if shards:
                parts = (np.array_split(W20, shards) if strategy == "div"
                         else [W20[i::shards] for i in range(shards)])
                w = [tf.Variable(p) if as_variables else tf.constant(p) for p in parts]
            else:
                w = tf.Variable(W20) if as_variables else tf.constant(W20)
            b = tf.constant(B20)
            x = tf.constant(X5)
            kwargs = {"num_true": num_true, "partition_strategy": strategy}
            if hits_flag is not None:
                kwargs["remove_accidental_hits"] = hits_flag
            if sampled_values:
                kwargs["sampled_values"] = tf.nn.uniform_candidate_sampler(
                    tf.constant(labels), num_true, 6, True, 20, seed=17)
            fn = tf.nn.nce_loss if kind == "nce" else tf.nn.sampled_softmax_loss
            loss = fn(w, b, labels, x, 6, 20, **kwargs)
            ws = w if isinstance(w, list) else [w]
            grads = tf.gradients(tf.reduce_sum(loss * np.arange(1, 6, dtype=np.float32)),
                                 ws + [b, x])
            out = {"loss": loss}
            for i, g in enumerate(grads[:-2]):
                out[f"grad/w{i}"] = _dense(tf, g)
            out["grad/b"] = _dense(tf, grads[-2])
            out["grad/x"] = grads[-1]
            return out, {}, 2
        return thunk

    for kind in ("nce", "softmax"):
        cases[f"{kind}/plain"] = losses(kind, Y5, 1)
        cases[f"{kind}/num_true2"] = losses(kind, Y5x2, 2)
        cases[f"{kind}/hits_flipped"] = losses(kind, Y5, 1, hits_flag=(kind == "nce"))
        cases[f"{kind}/mod3"] = losses(kind, Y5, 1, shards=3, as_variables=True)
        cases[f"{kind}/div3"] = losses(kind, Y5x2, 2, shards=3, strategy="div")
        cases[f"{kind}/sampled_values"] = losses(kind, Y5, 1, sampled_values=True)

    def lookup(strategy, shards, max_norm=None, as_variables=False, ids=IDS):
        def thunk():
            parts = (np.array_split(TABLE10, shards) if strategy == "div"
                     else [TABLE10[i::shards] for i in range(shards)])
            ps = [tf.Variable(p) if as_variables else tf.constant(p) for p in parts]
            out = tf.nn.embedding_lookup(ps if shards > 1 else ps[0], tf.constant(ids),
                                         partition_strategy=strategy, max_norm=max_norm)
            w = np.arange(out.shape.num_elements(), dtype=np.float32).reshape(
                out.shape.as_list())
            grads = tf.gradients(tf.reduce_sum(out * w), ps)
            res = {"out": out}
            for i, g in enumerate(grads):
                res[f"grad/p{i}"] = _dense(tf, g)
            return res, {}, 1
        return thunk

    for strategy in ("mod", "div"):
        for shards in (1, 3, 4):
            cases[f"lookup/{strategy}{shards}"] = lookup(strategy, shards)
        cases[f"lookup/{strategy}4/var"] = lookup(strategy, 4, as_variables=True)
        cases[f"lookup/{strategy}3/max_norm"] = lookup(strategy, 3, max_norm=1.5)
        cases[f"lookup/{strategy}3/flat_ids"] = lookup(strategy, 3, ids=IDS[0])
    cases["lookup/one/max_norm"] = lookup("mod", 1, max_norm=0.8)

    def partition():
        d = tf.constant(TABLE10)
        parts = tf.dynamic_partition(d, tf.constant([0, 2, 1, 0, 2, 2, 1, 0, 0, 1]), 3)
        st = tf.dynamic_stitch([tf.constant([0, 4]), tf.constant([[1, 3], [2, 5]])],
                               [tf.constant(TABLE10[:2]), tf.constant(TABLE10[2:6].reshape(
                                   2, 2, 3))])
        out = {f"part{i}": p for i, p in enumerate(parts)}
        out["stitch"] = st
        out["grad"] = tf.gradients(tf.reduce_sum(parts[0] * 3.0) + tf.reduce_sum(parts[2]),
                                   d)[0]
        return out, {}, 1
    cases["partition_stitch"] = partition

    sp_idx = np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], np.int64)
    sp_ids = np.array([1, 3, 2, 0, 0, 9], np.int64)
    sp_w = np.array([1.0, 2.0, 0.5, 1.0, 1.0, -2.0], np.float32)

    def sparse_lookup(combiner, weighted, shards=1, strategy="mod", rows=6, fed=False):
        def thunk():
            parts = (np.array_split(TABLE10, shards) if strategy == "div"
                     else [TABLE10[i::shards] for i in range(shards)])
            ps = [tf.constant(p) for p in parts]
            feeds = {}
            if fed:
                ids = tf.sparse_placeholder(tf.int64, name="ids")
                feeds[ids] = tf.SparseTensorValue(sp_idx, sp_ids, np.array([rows, 3], np.int64))
            else:
                ids = tf.SparseTensor(sp_idx, sp_ids, [rows, 3])
            w = tf.SparseTensor(sp_idx, sp_w, [rows, 3]) if weighted else None
            out = tf.nn.embedding_lookup_sparse(ps if shards > 1 else ps[0], ids, w,
                                                partition_strategy=strategy,
                                                combiner=combiner)
            res = {"out": out}
            grads = tf.gradients(tf.reduce_sum(out * out), ps)
            for i, g in enumerate(grads):
                res[f"grad/p{i}"] = _dense(tf, g)
            return res, feeds, 1
        return thunk

    for combiner in ("sum", "mean", "sqrtn"):
        cases[f"sparse/{combiner}/weighted"] = sparse_lookup(combiner, True)
        cases[f"sparse/{combiner}/unweighted"] = sparse_lookup(combiner, False)
        cases[f"sparse/{combiner}/mod3"] = sparse_lookup(combiner, True, 3)
        cases[f"sparse/{combiner}/div4_fed"] = sparse_lookup(combiner, False, 4, "div",
                                                             fed=True)

    def safe(combiner, weighted, default_id=None, shards=1, rank3=False):
        def thunk():
            parts = np.array_split(TABLE10, shards)
            ps = [tf.constant(p) for p in parts]
            idx = np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [4, 0], [4, 2]], np.int64)
            vals = np.array([1, -1, 2, 0, 7, 5, 9], np.int64)
            wv = np.array([1.0, 3.0, 0.0, 2.0, 1.0, -1.0, 0.5], np.float32)
            shape = [6, 3]
            if rank3:
                idx = np.concatenate([idx[:, :1] // 3, idx[:, :1] % 3, idx[:, 1:]], axis=1)
                shape = [2, 3, 3]
            ids = tf.SparseTensor(idx, vals, shape)
            w = tf.SparseTensor(idx, wv, shape) if weighted else None
            out = tf.nn.safe_embedding_lookup_sparse(ps if shards > 1 else ps[0], ids, w,
                                                     combiner=combiner, default_id=default_id)
            res = {"out": out}
            for i, g in enumerate(tf.gradients(tf.reduce_sum(out * out), ps)):
                res[f"grad/p{i}"] = _dense(tf, g)
            return res, {}, 1
        return thunk

    for combiner in ("sum", "mean", "sqrtn"):
        cases[f"safe/{combiner}/weighted"] = safe(combiner, True)
        cases[f"safe/{combiner}/unweighted"] = safe(combiner, False)
    cases["safe/mean/default_id"] = safe("mean", True, default_id=4)
    cases["safe/mean/div3"] = safe("mean", True, shards=3)
    cases["safe/sum/rank3"] = safe("sum", False, rank3=True)

    def sparse_ops():
        st = tf.SparseTensor(np.array([[0, 1], [2, 0], [2, 3]], np.int64),
                             np.array([1.5, -2.0, 4.0], np.float32), [4, 4])
        filled, empty = tf.sparse.fill_empty_rows(st, 9.0)
        re = tf.sparse.reshape(st, [2, -1])
        data = tf.constant(TABLE10)
        seg = {
            "sum": tf.sparse.segment_sum(data, [0, 3, 3, 7], [0, 0, 2, 2]),
            "mean": tf.sparse.segment_mean(data, [0, 3, 3, 7], [0, 0, 2, 2]),
            "sqrt_n": tf.sparse.segment_sqrt_n(data, [0, 3, 3, 7], [0, 0, 2, 2]),
        }
        out = {"dense": tf.sparse.to_dense(st), "filled_indices": filled.indices,
               "filled_values": filled.values, "empty": empty,
               "reshaped": re.indices, "reshaped_shape": re.dense_shape,
               "retained": tf.sparse.retain(st, [True, False, True]).values,
               "segment_sum": tf.segment_sum(data[:4], [0, 0, 1, 3])}
        total = 0.0
        for k, v in seg.items():
            out[f"seg/{k}"] = v
            total += tf.reduce_sum(v * v)
        out["grad/seg"] = tf.gradients(total, data)[0]
        vals = tf.constant(np.array([1.5, -2.0, 4.0], np.float32))
        st2 = tf.SparseTensor(st.indices, vals, st.dense_shape)
        f2, _ = tf.sparse.fill_empty_rows(st2, tf.constant(2.0))
        out["grad/fill"] = tf.gradients(tf.reduce_sum(f2.values * f2.values), vals)[0]
        return out, {}, 1
    cases["sparse_ops"] = sparse_ops
    return cases


def run_error_cases(tf) -> dict:
    def sampler(op, tc, num_sampled, unique, range_max):
        def thunk():
            out = getattr(tf.raw_ops, op)(
                true_classes=tf.constant(np.array(tc, np.int64)), num_true=len(tc[0]),
                num_sampled=num_sampled, unique=unique, range_max=range_max, seed=1, seed2=2)
            return out[0], {}
        return thunk

    def fixed_range():
        out = tf.nn.fixed_unigram_candidate_sampler(
            tf.constant(np.array([[1]], np.int64)), 1, 2, False, 7, unigrams=UNIGRAMS, seed=1)
        return out[0], {}

    def lookup_oob():
        out = tf.nn.embedding_lookup(tf.constant(TABLE10), tf.constant([1, 10]))
        return out, {}

    def lookup_oob_sharded():
        out = tf.nn.embedding_lookup([tf.constant(TABLE10[0::2]), tf.constant(TABLE10[1::2])],
                                     tf.constant([1, 12]))
        return out, {}

    def sparse_oob():
        ids = tf.SparseTensor(np.array([[0, 0], [1, 0]], np.int64), np.array([1, 12], np.int64),
                              [2, 1])
        return tf.nn.embedding_lookup_sparse(tf.constant(TABLE10), ids, None), {}

    return {
        "sparse_lookup_out_of_range": sparse_oob,
        "true_out_of_range": sampler("LogUniformCandidateSampler", ((0,), (7,)), 3, True, 7),
        "true_negative": sampler("UniformCandidateSampler", ((-1,),), 3, False, 7),
        "range_too_small": sampler("UniformCandidateSampler", ((0,),), 8, True, 7),
        "fixed_range_mismatch": fixed_range,
        "lookup_out_of_range": lookup_oob,
        "lookup_sharded_out_of_range": lookup_oob_sharded,
    }
