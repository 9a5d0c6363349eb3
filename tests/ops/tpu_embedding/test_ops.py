"""Signatures, placement, shape functions and validation errors of the TPU embedding ops
(TensorFlow 2.21's op registry; the build-time messages are TensorFlow 2.21's)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.ops.tpu_embedding import worked as W
from tfmini.core import registry

T, R = W.T, W.R
ADAGRAD = W.opt_params(adagrad=T.AdagradParameters())
CFG = W.config(ADAGRAD, batch=2)
S = CFG.SerializeToString()


def _session_with(*build, configure=True):
    g = tm.Graph()
    with g.as_default():
        setup = R.ConfigureTPUEmbedding(config=S) if configure else None
        built = [b() for b in build]
    sess = tm.Session(graph=g)
    if setup is not None:
        sess.run(setup)
    return sess, built


_IDS = (np.array([0, 1, 2, 3], np.int32), np.array([1, 5], np.int32))


def _enqueue(ids=_IDS, mode="train"):
    return R.EnqueueTPUEmbeddingIntegerBatch(batch=list(ids), mode_override=mode)


# ------------------------------------------------------------------------------------------
# Signatures and placement.


def test_signatures_follow_tensorflow():
    sparse = registry.get("EnqueueTPUEmbeddingSparseBatch")
    assert [a.name for a in sparse.inputs] == [
        "sample_indices", "embedding_indices", "aggregation_weights", "mode_override"]
    attrs = {a.name: a.default for a in sparse.attrs if a.has_default}
    assert list(attrs["combiners"]) == [] and attrs["device_ordinal"] == -1
    tensor = registry.get("EnqueueTPUEmbeddingSparseTensorBatch")
    assert not tensor.attr("table_ids").has_default  # required, as in TF
    assert [a.name for a in registry.get("LoadTPUEmbeddingFTRLParameters").inputs] == [
        "parameters", "accumulators", "linears"]
    assert [a.name for a in registry.get("RetrieveTPUEmbeddingRMSPropParameters").outputs] == [
        "parameters", "ms", "mom"]
    assert [a.name for a in registry.get("LoadTPUEmbeddingADAMParameters").inputs] == [
        "parameters", "momenta", "velocities"]
    recv = registry.get("RecvTPUEmbeddingActivations")
    assert recv.is_blocking and recv.is_stateful and recv.no_gradient
    for op in ("ConfigureTPUEmbedding", "SendTPUEmbeddingGradients",
               "LoadTPUEmbeddingAdagradParameters", "RetrieveTPUEmbeddingAdagradParameters"):
        op_def = registry.get(op)
        assert op_def.is_stateful and op_def.no_gradient and op_def.only_devices == ("TPU",)


def test_ops_are_placed_on_the_tpu_and_refused_on_the_cpu():
    g = tm.Graph()
    with g.as_default():
        auto = R.ConfigureTPUEmbedding(config=S)
        with tm.device("/device:CPU:0"):
            on_cpu = R.ConfigureTPUEmbedding(config=S, name="on_cpu")
    assert auto.device == "/device:TPU:0"
    with tm.Session(graph=g) as sess:
        sess.run(auto)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"No OpKernel was registered to support Op "
                                 r"'ConfigureTPUEmbedding' used by node on_cpu on device CPU "
                                 r"\(registered devices: TPU\)"):
            sess.run(on_cpu)


# ------------------------------------------------------------------------------------------
# Shape functions (build time).


def test_recv_shapes_come_from_the_configuration():
    with tm.Graph().as_default():
        video, user = R.RecvTPUEmbeddingActivations(num_outputs=2, config=S)
        assert video.shape.as_list() == [4, 4] and user.shape.as_list() == [2, 2]
        fd = W.config(ADAGRAD, batch=3, features=True).SerializeToString()
        outs = R.RecvTPUEmbeddingActivations(num_outputs=3, config=fd)
        assert [o.shape.as_list() for o in outs] == [[3, 4], [3, 4], [3, 2]]


def test_recv_with_the_wrong_number_of_outputs_is_a_build_error():
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="num outputs != size of output shapes"):
            R.RecvTPUEmbeddingActivations(num_outputs=3, config=S)
        with pytest.raises(ValueError, match="Malformed tpu_embedding_config"):
            R.RecvTPUEmbeddingActivations(num_outputs=1, config="garbage")


def test_send_needs_scalar_learning_rates():
    with tm.Graph().as_default():
        grads = [np.zeros((4, 4), np.float32), np.zeros((2, 2), np.float32)]
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            R.SendTPUEmbeddingGradients(inputs=grads, learning_rates=[[0.1]], config=S)
        op = R.SendTPUEmbeddingGradients(inputs=grads, learning_rates=[0.1], config=S)
        assert op.get_attr("N") == 2 and op.get_attr("NN") == 1


def test_load_shape_function_checks_rank_and_slot_agreement():
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but "
                                             r"are 4 and 3. Shapes are \[4,4\] and \[4,3\]"):
            R.LoadTPUEmbeddingAdagradParameters(
                parameters=np.zeros((4, 4), np.float32), accumulators=np.zeros((4, 3), np.float32),
                table_name="video", num_shards=2, shard_id=0, config=S)
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            R.LoadTPUEmbeddingAdagradParameters(
                parameters=np.zeros(4, np.float32), accumulators=np.zeros(4, np.float32),
                table_name="video", num_shards=2, shard_id=0, config=S)
        for kwargs in ({}, {"table_id": 1, "table_name": "user"}):
            with pytest.raises(ValueError, match="exactly one of table_id or table_name must "
                                                 "be non-default"):
                R.RetrieveTPUEmbeddingAdagradParameters(num_shards=1, shard_id=0, **kwargs)
        params, acc = R.RetrieveTPUEmbeddingAdagradParameters(table_id=0, num_shards=1,
                                                              shard_id=0)
        assert params.shape.as_list() == [None, None] and acc.shape.as_list() == [None, None]


# ------------------------------------------------------------------------------------------
# Run-time validation.


def test_recv_before_configure_and_send_without_recv():
    sess, (recv,) = _session_with(lambda: R.RecvTPUEmbeddingActivations(num_outputs=2, config=S),
                                  configure=False)
    with pytest.raises(tm.errors.FailedPreconditionError,
                       match="RecvTPUEmbeddingActivations before ConfigureTPUEmbedding"):
        sess.run(recv)
    sess.close()
    grads = [np.zeros((4, 4), np.float32), np.zeros((2, 2), np.float32)]
    sess, (send,) = _session_with(
        lambda: R.SendTPUEmbeddingGradients(inputs=grads, learning_rates=[], config=S))
    with pytest.raises(tm.errors.FailedPreconditionError,
                       match="SendTPUEmbeddingGradients without RecvTPUEmbeddingActivations"):
        sess.run(send)
    sess.close()


def test_enqueue_before_configure():
    sess, (enq,) = _session_with(_enqueue, configure=False)
    with pytest.raises(tm.errors.FailedPreconditionError, match="not configured"):
        sess.run(enq)
    sess.close()


def test_ids_outside_the_vocabulary_name_the_id_and_the_table():
    sess, (enq,) = _session_with(
        lambda: _enqueue((np.array([0, 1, 8, 3], np.int32), np.array([1, 5], np.int32))))
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"batch\[0\]\[2\] = 8 is not in \[0, 8\) for table 'video'"):
        sess.run(enq)
    sess.close()
    si, ids, w = W.sparse_batch_inputs(2)
    ids[1] = np.array([3, 0, 1, -2], np.int32)
    sess, (enq,) = _session_with(lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=si, embedding_indices=ids, aggregation_weights=w,
        mode_override="unspecified"))
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"embedding_indices\[1\]\[3\] = -2 is not in \[0, 16\) for table "
                             r"'user'"):
        sess.run(enq)
    sess.close()


@pytest.mark.parametrize("build,message", [
    (lambda: _enqueue(mode="serving"), "Unsupported mode_override 'serving'"),
    (lambda: _enqueue(ids=(np.array([0, 1], np.int32), np.array([1, 5], np.int32))),
     "batch.0. has 2 ids; output 0 has 4 rows"),
    (lambda: _enqueue(ids=(np.array([0, 1, 2, 3], np.int32),)),
     "got 1 inputs per list but the configuration has 2 tables"),
    (lambda: R.EnqueueTPUEmbeddingIntegerBatch(
        batch=[np.array([0, 1, 2, 3], np.int32), np.array([1, 5], np.int32)],
        mode_override="train", device_ordinal=3), "device_ordinal must be -1 or 0"),
    (lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=W.sparse_batch_inputs(2)[0], embedding_indices=W.sparse_batch_inputs(2)[1],
        aggregation_weights=W.sparse_batch_inputs(2)[2], mode_override="train",
        combiners=["sum", "max"]), r"combiners\[1\] = 'max' is not supported"),
    (lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=W.sparse_batch_inputs(2)[0], embedding_indices=W.sparse_batch_inputs(2)[1],
        aggregation_weights=W.sparse_batch_inputs(2)[2], mode_override="train",
        combiners=["sum"]), "combiners has 1 entries but the configuration has 2 tables"),
    (lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[np.array([0, 4], np.int32), np.array([0], np.int32)],
        embedding_indices=[np.array([0, 1], np.int32), np.array([0], np.int32)],
        aggregation_weights=[np.ones(2, np.float32), np.ones(1, np.float32)],
        mode_override="train"), r"sample_indices\[0\]\[1\] = 4 is not in \[0, 4\)"),
    (lambda: R.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[np.array([0, 1], np.int32), np.array([0, 0], np.int32)],
        embedding_indices=[np.array([0, 1], np.int32), np.array([0, 1], np.int32)],
        aggregation_weights=[np.ones(2, np.float32), np.array([1.0, -1.0], np.float32)],
        mode_override="train", combiners=["sum", "mean"]),
     "sample 0 of table 'user' has sum of the weights 0, which is invalid for the 'mean'"),
    (lambda: R.EnqueueTPUEmbeddingSparseTensorBatch(
        sample_indices=[np.array([0], np.int32)] * 3,
        embedding_indices=[np.array([0], np.int32)] * 3,
        aggregation_weights=[np.ones(1, np.float32)] * 3, mode_override="train",
        table_ids=[0, 1, 1]),
     "the inputs fill 1 feature slots of table 'video', whose num_features is 2"),
    (lambda: R.EnqueueTPUEmbeddingArbitraryTensorBatch(
        sample_indices_or_row_splits=[np.zeros(0, np.int32)] * 2,
        embedding_indices=[np.zeros(4, np.int32), np.zeros(2, np.int32)],
        aggregation_weights=[np.zeros(0, np.float32)] * 2, mode_override="train"),
     "needs feature descriptors"),
])
def test_enqueue_validation(build, message):
    sess, (enq,) = _session_with(build)
    with pytest.raises(tm.errors.InvalidArgumentError, match=message):
        sess.run(enq)
    # Nothing was enqueued: a Recv would still wait.
    with sess.graph.as_default():
        recv = R.RecvTPUEmbeddingActivations(num_outputs=2, config=S)
    with pytest.raises(tm.errors.DeadlineExceededError):
        sess.run(recv, options=tm.RunOptions(timeout_in_ms=30))
    sess.close()


def _received_session(learning_rates_cfg=CFG):
    s = learning_rates_cfg.SerializeToString()
    g = tm.Graph()
    with g.as_default():
        setup = [R.ConfigureTPUEmbedding(config=s), _enqueue()]
        recv = R.RecvTPUEmbeddingActivations(num_outputs=2, config=s)
    sess = tm.Session(graph=g)
    for op in setup:
        sess.run(op)
    sess.run(recv)
    return sess, s


@pytest.mark.parametrize("grads,rates,message", [
    ([np.zeros((4, 4))], [], "got 1 gradients; Recv gave 2 activations"),
    ([np.zeros((4, 4)), np.zeros((2, 3))], [],
     r"gradient 1 has shape \[2, 3\]; activation 1 has shape \[2, 2\]"),
    ([np.zeros((4, 4)), np.zeros((2, 2))], [0.1],
     "got 1 learning rates; the configuration has 0 dynamic learning-rate tags"),
])
def test_send_validation(grads, rates, message):
    sess, s = _received_session()
    with sess.graph.as_default():
        send = R.SendTPUEmbeddingGradients(
            inputs=[np.asarray(x, np.float32) for x in grads], learning_rates=rates, config=s)
    with pytest.raises(tm.errors.InvalidArgumentError, match=message):
        sess.run(send)
    sess.close()


def test_send_checks_learning_rates_fed_with_unknown_shape():
    dyn = W.opt_params(T.LearningRate(dynamic=T.DynamicLearningRate(tag=0)),
                       adagrad=T.AdagradParameters())
    sess, s = _received_session(W.config(dyn, batch=2))
    with sess.graph.as_default():
        lr = tm.placeholder(tm.float32)  # unknown rank: the shape function cannot check it
        send = R.SendTPUEmbeddingGradients(
            inputs=[np.zeros((4, 4), np.float32), np.zeros((2, 2), np.float32)],
            learning_rates=[lr], config=s)
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"learning_rates\[0\] must be a scalar, got shape \[1\]"):
        sess.run(send, {lr: [0.1]})
    sess.run(send, {lr: 0.1})
    sess.close()


def test_load_checks_the_shard_shape_and_the_optimizer_when_it_runs():
    def load(rows, **kwargs):
        return lambda: R.LoadTPUEmbeddingAdagradParameters(
            parameters=np.zeros((rows, 4), np.float32),
            accumulators=np.zeros((rows, 4), np.float32), **kwargs)

    sess, (ok, whole, wrong_shard) = _session_with(
        load(4, table_name="video", num_shards=2, shard_id=1),
        load(8, table_name="video", num_shards=2, shard_id=0),
        load(4, table_name="video", num_shards=2, shard_id=2))
    sess.run(ok)
    # TensorFlow's shape function accepts this (it never compares with the shard shape).
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"parameters for shard 0 of 2 of table 'video' must have shape "
                             r"\[4, 4\]"):
        sess.run(whole)
    with pytest.raises(tm.errors.InvalidArgumentError, match=r"shard_id 2 is not in \[0, "):
        sess.run(wrong_shard)
    with sess.graph.as_default():
        adam = R.LoadTPUEmbeddingADAMParameters(
            parameters=np.zeros((8, 4), np.float32), momenta=np.zeros((8, 4), np.float32),
            velocities=np.zeros((8, 4), np.float32), table_id=0, num_shards=1, shard_id=0)
        missing = R.RetrieveTPUEmbeddingAdagradParameters(table_name="nope", num_shards=1,
                                                          shard_id=0)
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="table 'video' is configured with optimizer 'adagrad'; use "
                             "LoadTPUEmbeddingAdagradParameters"):
        sess.run(adam)
    with pytest.raises(tm.errors.InvalidArgumentError, match="no table named 'nope'"):
        sess.run(missing)
    sess.close()


def test_configure_refuses_bad_configurations():
    g = tm.Graph()
    with g.as_default():
        garbage = R.ConfigureTPUEmbedding(config="not a configuration")
        unspecified = R.ConfigureTPUEmbedding(
            config=W.config(ADAGRAD, mode="UNSPECIFIED").SerializeToString())
        adadelta = R.ConfigureTPUEmbedding(config=W.config(
            W.opt_params(adadelta=T.AdadeltaParameters(rho=0.9))).SerializeToString())
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="Malformed tpu_embedding"):
            sess.run(garbage)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="mode is INVALID. Must be INFERENCE, TRAINING, or "
                                 "BACKWARD_PASS_ONLY"):
            sess.run(unspecified)
        with pytest.raises(tm.errors.UnimplementedError, match="'adadelta' is not simulated"):
            sess.run(adadelta)


def test_recv_and_send_must_match_the_configured_device():
    other = W.config(ADAGRAD, batch=3).SerializeToString()
    sess, (recv,) = _session_with(
        lambda: R.RecvTPUEmbeddingActivations(num_outputs=2, config=other))
    with pytest.raises(tm.errors.InvalidArgumentError, match="different "
                                                             "TPUEmbeddingConfiguration"):
        sess.run(recv)
    sess.close()


@pytest.mark.parametrize("mode", ["training", "train", "backward_pass_only", "unspecified"])
def test_every_training_mode_spelling_updates(mode):
    sess, s = _received_session()  # received a 'train' batch; now one in `mode`
    with sess.graph.as_default():
        enq = _enqueue(mode=mode)
        recv = R.RecvTPUEmbeddingActivations(num_outputs=2, config=s)
        send = R.SendTPUEmbeddingGradients(
            inputs=[np.ones((4, 4), np.float32), np.ones((2, 2), np.float32)], config=s,
            learning_rates=[])
        before = R.RetrieveTPUEmbeddingAdagradParameters(table_id=1, num_shards=1, shard_id=0)
    sess.run(send)  # consumes the first batch's activations
    user0 = sess.run(before)[0]
    sess.run([enq, recv, send])
    user1 = sess.run(before)[0]
    assert not np.array_equal(user0[[1, 5]], user1[[1, 5]])
    np.testing.assert_array_equal(np.delete(user0, [1, 5], 0), np.delete(user1, [1, 5], 0))
    sess.close()
