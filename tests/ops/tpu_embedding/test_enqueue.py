"""The enqueue ops' input forms and the combiner maths (TensorFlow's CPU reference,
tpu_embedding_for_serving.py) on one small table, against a reference that loops over (sample, id,
weight) entries."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.ops.tpu_embedding import worked as W

T, R = W.T, W.R
E0 = (np.arange(21, dtype=np.float32).reshape(7, 3) - 10.0) / 4.0


def _config(batch, num_features=1, fds=()):
    sgd = W.opt_params(1.0, stochastic_gradient_descent=T.StochasticGradientDescentParameters())
    return T.TPUEmbeddingConfiguration(
        table_descriptor=[T.TableDescriptor(name="t", vocabulary_size=7, dimension=3,
                                            num_features=num_features,
                                            optimization_parameters=sgd)],
        mode="TRAINING", batch_size_per_tensor_core=batch, num_tensor_cores=2,
        feature_descriptor=[T.FeatureDescriptor(name=f"f{i}", table_id=0, input_shape=s)
                            for i, s in enumerate(fds)])


def _run(cfg, build_enqueue, grad_seed=0):
    """Runs enqueue + recv + send(G) with SGD lr = 1; returns (activations, G, table delta)."""
    s = cfg.SerializeToString()
    shapes = T.recv_output_shapes(cfg)
    rng = np.random.default_rng(grad_seed)
    grads = [rng.standard_normal(sh).astype(np.float32) for sh in shapes]
    g = tm.Graph()
    with g.as_default():
        setup = [R.ConfigureTPUEmbedding(config=s),
                 R.LoadTPUEmbeddingStochasticGradientDescentParameters(
                     parameters=E0, table_id=0, num_shards=1, shard_id=0)]
        enq = build_enqueue()
        acts = R.RecvTPUEmbeddingActivations(num_outputs=len(shapes), config=s)
        send = R.SendTPUEmbeddingGradients(inputs=grads, learning_rates=[], config=s)
        table = R.RetrieveTPUEmbeddingStochasticGradientDescentParameters(
            table_id=0, num_shards=1, shard_id=0)
    with tm.Session(graph=g) as sess:
        for op in setup:
            sess.run(op)
        out, _, _ = sess.run([list(acts), send, enq])
        after = sess.run(table)
    return out, grads, after - E0


def _reference(entries, n_rows, combiner, grad):
    """entries: (row, id, weight) triples; returns (activations, table gradient)."""
    entries = list(entries)
    act = np.zeros((n_rows, 3))
    wsum, w2sum = np.zeros(n_rows), np.zeros(n_rows)
    for r, i, w in entries:
        act[r] += w * E0[i]
        wsum[r] += w
        w2sum[r] += w * w
    denom = {"sum": np.ones(n_rows), "mean": wsum, "sqrtn": np.sqrt(w2sum)}[combiner]
    denom = np.where(denom == 0, 1.0, denom)
    act /= denom[:, None]
    table_grad = np.zeros((7, 3))
    for r, i, w in entries:
        table_grad[i] += w / denom[r] * grad.reshape(n_rows, 3)[r]
    return act, table_grad


# Sample 1 is empty; sample 2 repeats id 4; weights are not all 1.
ROWS = np.array([0, 0, 2, 2, 3], np.int64)
IDS = np.array([1, 5, 4, 4, 6], np.int64)
WEIGHTS = np.array([0.5, 2.0, 1.0, 1.5, 3.0], np.float64)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_sparse_batch_weighted_combiners_and_their_gradients(combiner):
    cfg = _config(batch=4)
    (act,), (grad,), delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[ROWS], embedding_indices=[IDS], aggregation_weights=[WEIGHTS],
        mode_override="unspecified", combiners=[combiner]))
    want_act, table_grad = _reference(zip(ROWS, IDS, WEIGHTS), 4, combiner, grad)
    np.testing.assert_allclose(act, want_act, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(act[1], 0.0)  # the empty sample
    np.testing.assert_allclose(delta, -table_grad, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(delta[[0, 2, 3]], 0.0)  # rows nobody looked up


def test_duplicates_in_a_sample_are_not_merged_in_the_forward_pass():
    cfg = _config(batch=1)
    (act,), (grad,), delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[np.array([0, 0])], embedding_indices=[np.array([1, 1])],
        aggregation_weights=[np.zeros(0, np.float32)], mode_override="unspecified"))
    np.testing.assert_allclose(act[0], 2 * E0[1])
    np.testing.assert_allclose(delta[1], -2 * grad[0], rtol=1e-6)


def test_unsorted_sample_indices_and_int64_inputs():
    order = np.array([4, 2, 0, 3, 1])
    cfg = _config(batch=4)
    (act,), (grad,), delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[ROWS[order]], embedding_indices=[IDS[order]],
        aggregation_weights=[WEIGHTS[order]], mode_override="unspecified",
        combiners=["mean"]))
    want_act, table_grad = _reference(zip(ROWS, IDS, WEIGHTS), 4, "mean", grad)
    np.testing.assert_allclose(act, want_act, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(delta, -table_grad, rtol=1e-5, atol=1e-6)


def test_sparse_tensor_and_ragged_batches_fill_feature_slots_of_a_table():
    # Two features on one table (num_features 2): rows b * 2 + f.
    cfg = _config(batch=3, num_features=2)
    f0 = ([0, 0, 2], [1, 2, 3])        # sample indices, ids
    f1 = ([1, 2, 2], [6, 0, 6])
    entries = [(b * 2, i, 1.0) for b, i in zip(*f0)] + [(b * 2 + 1, i, 1.0)
                                                         for b, i in zip(*f1)]
    (act_sp,), (grad,), delta_sp = _run(cfg, lambda: R.EnqueueTPUEmbeddingSparseTensorBatch(
        sample_indices=[np.array(f0[0]), np.array(f1[0])],
        embedding_indices=[np.array(f0[1]), np.array(f1[1])],
        aggregation_weights=[np.zeros(0, np.float32)] * 2, mode_override="unspecified",
        combiners=["mean"], table_ids=[0, 0]))
    want_act, table_grad = _reference(entries, 6, "mean", grad)
    np.testing.assert_allclose(act_sp, want_act, rtol=1e-6)
    np.testing.assert_allclose(delta_sp, -table_grad, rtol=1e-5, atol=1e-6)
    (act_rg,), _, delta_rg = _run(cfg, lambda: R.EnqueueTPUEmbeddingRaggedTensorBatch(
        sample_splits=[np.array([0, 2, 2, 3]), np.array([0, 0, 1, 3])],
        embedding_indices=[np.array(f0[1]), np.array(f1[1])],
        aggregation_weights=[np.zeros(0, np.float32)] * 2, mode_override="unspecified",
        combiners=["mean"], table_ids=[0, 0]))
    np.testing.assert_array_equal(act_rg, act_sp)
    np.testing.assert_array_equal(delta_rg, delta_sp)


def test_sequence_feature_takes_one_slot_per_position_and_is_truncated():
    cfg = _config(batch=2, num_features=3)  # one sequence feature of length 3
    (act,), (grad,), delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingSparseTensorBatch(
        sample_indices=[np.array([0, 0, 1, 1, 1, 1])],
        embedding_indices=[np.array([1, 2, 3, 4, 5, 6])],
        aggregation_weights=[np.zeros(0, np.float32)], mode_override="unspecified",
        table_ids=[0], max_sequence_lengths=[3]))
    want = np.zeros((6, 3))
    want[[0, 1, 3, 4, 5]] = E0[[1, 2, 3, 4, 5]]  # id 6 is past position 3: dropped
    np.testing.assert_array_equal(act, want)
    np.testing.assert_array_equal(delta[6], 0.0)
    np.testing.assert_allclose(delta[5], -grad[5], rtol=1e-6)


def test_arbitrary_tensor_batch_dense_sparse_and_ragged_features():
    cfg = _config(batch=2, fds=[[2], [2], [2, 3], [2, 2]])
    dense = np.array([3, 1])
    sparse_idx = np.array([[0, 0], [0, 1], [1, 0]])
    sparse_ids = np.array([2, 4, 6])
    seq_splits = np.array([0, 2, 6])  # ragged sequence [2, 3]: row 1 truncated at 3
    seq_ids = np.array([1, 2, 3, 4, 5, 6])
    seq3_idx = np.array([[0, 0, 0], [1, 1, 0], [1, 2, 0]])  # rank-3 sparse, position 2 cut
    seq3_ids = np.array([5, 0, 1])
    acts, grads, delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingArbitraryTensorBatch(
        sample_indices_or_row_splits=[np.zeros(0, np.int64), sparse_idx, seq_splits, seq3_idx],
        embedding_indices=[dense, sparse_ids, seq_ids, seq3_ids],
        aggregation_weights=[np.zeros(0, np.float32)] * 4, mode_override="train",
        combiners=["sqrtn"]))
    assert [a.shape for a in acts] == [(2, 3), (2, 3), (2, 3, 3), (2, 2, 3)]
    np.testing.assert_array_equal(acts[0], E0[dense])
    np.testing.assert_allclose(acts[1], [(E0[2] + E0[4]) / np.sqrt(2), E0[6]], rtol=1e-6)
    want_seq = np.zeros((2, 3, 3))
    want_seq[0, :2] = E0[[1, 2]]
    want_seq[1, :] = E0[[3, 4, 5]]
    np.testing.assert_array_equal(acts[2], want_seq)
    want_seq3 = np.zeros((2, 2, 3))
    want_seq3[0, 0], want_seq3[1, 1] = E0[5], E0[0]
    np.testing.assert_array_equal(acts[3], want_seq3)
    # Row 6 is only in the truncated ragged position and in the sparse feature.
    np.testing.assert_allclose(delta[6], -grads[1][1], rtol=1e-5, atol=1e-6)


def test_integer_batch_with_feature_descriptors_is_per_feature():
    cfg = _config(batch=2, fds=[[2], [2]])
    acts, grads, delta = _run(cfg, lambda: R.EnqueueTPUEmbeddingIntegerBatch(
        batch=[np.array([0, 6], np.int32), np.array([6, 6], np.int32)],
        mode_override="unspecified"))
    np.testing.assert_array_equal(acts[0], E0[[0, 6]])
    np.testing.assert_array_equal(acts[1], E0[[6, 6]])
    # Row 6: one occurrence in feature 0 and two in feature 1, summed before the update.
    np.testing.assert_allclose(delta[6], -(grads[0][1] + grads[1][0] + grads[1][1]),
                               rtol=1e-6)
