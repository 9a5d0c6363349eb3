"""The ops of TPU embedding tables sharded over ps tasks (ps_shards.py), in one process.

A local Session has one TPU device, so a test plays either the host or one shard; the
sharded training itself runs on the package's Ray cluster
(tests/distribute/test_tpu_embedding_shards.py).
"""

import numpy as np
import pytest

import tfmini as tm
from tests.contract.samples_tpu_embedding_shards import HOST_CONFIG, SHARD_CONFIG, config

R = tm.raw_ops
T = tm.tpu
OPTS = tm.RunOptions(timeout_in_ms=5000)


def test_shard_config_keeps_each_shards_rows():
    cfg = config()
    shards = [T.shard_config(cfg, s) for s in range(2)]
    # 6 rows on 2 hosts: 3 + 3; 5 rows: 3 + 2 (as shard_size); one host, one core each.
    assert [[t.vocabulary_size for t in c.table_descriptor] for c in shards] == [[3, 3], [3, 2]]
    assert all(c.num_hosts == 1 and c.num_tensor_cores == 1 for c in shards)
    assert shards[1].table_descriptor[0].optimization_parameters == (
        cfg.table_descriptor[0].optimization_parameters)
    with pytest.raises(ValueError, match="shard_id"):
        T.shard_config(cfg, 2)


def _host(g):
    with g.as_default():
        configure = R._ConfigureTPUEmbeddingHost(config=HOST_CONFIG)
        enqueue = R.EnqueueTPUEmbeddingIntegerBatch(
            batch=[np.array([1, 4], np.int32), np.array([0, 3], np.int32)],
            mode_override="unspecified")
    return configure, enqueue


def test_the_host_names_each_shards_rows(graph):
    configure, enqueue = _host(graph)
    ids = R._TPUEmbeddingDequeueShardIds(NR=4, config=HOST_CONFIG)
    with tm.Session() as sess:
        sess.run([configure])
        sess.run(enqueue)
        got = sess.run(ids, options=OPTS)
    # Table a ids [1, 4], table b ids [0, 3]; MOD over 2: (shard, table) -> id // 2.
    assert [list(x) for x in got] == [[2], [0], [0], [1]]


def test_host_ops_check_their_counts_and_the_device(graph):
    configure, enqueue = _host(graph)
    bad_nr = R._TPUEmbeddingDequeueShardIds(NR=3, config=HOST_CONFIG)
    plain = R.ConfigureTPUEmbedding(config=HOST_CONFIG)
    ids = R._TPUEmbeddingDequeueShardIds(NR=4, config=HOST_CONFIG)
    with tm.Session() as sess:
        sess.run(configure)
        sess.run(enqueue)
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"NR = 3.*2 shards x 2 tables"):
            sess.run(bad_nr, options=OPTS)
        retrieve = R.RetrieveTPUEmbeddingAdagradParameters(
            table_name="a", num_shards=1, shard_id=0, config=HOST_CONFIG)
        with pytest.raises(tm.errors.FailedPreconditionError, match="sharded over ps tasks"):
            sess.run(retrieve)
        sess.run(plain)
        with pytest.raises(tm.errors.FailedPreconditionError, match="need a host configured"):
            sess.run(ids, options=OPTS)


def test_a_failed_dequeue_puts_the_batch_back(graph):
    configure, enqueue = _host(graph)
    ids = R._TPUEmbeddingDequeueShardIds(NR=4, config=HOST_CONFIG)
    with tm.control_dependencies([ids[0].op]):
        fail = tm.debugging.check_numerics(tm.constant(np.nan), "boom")
    with tm.Session() as sess:
        sess.run(configure)
        sess.run(enqueue)
        with pytest.raises(tm.errors.InvalidArgumentError, match="boom"):
            sess.run(fail, options=OPTS)
        assert [list(x) for x in sess.run(ids, options=OPTS)] == [[2], [0], [0], [1]]


def _shard(g):
    with g.as_default():
        return R.ConfigureTPUEmbedding(config=SHARD_CONFIG)


def _retrieve():
    return R.RetrieveTPUEmbeddingAdagradParameters(table_name="a", num_shards=1, shard_id=0,
                                                   config=SHARD_CONFIG)


def test_shard_gather_refuses_rows_outside_its_shard(graph):
    configure = _shard(graph)
    gather = R._TPUEmbeddingShardGather(rows=[np.array([0, 3], np.int64),
                                              np.array([1], np.int64)], config=SHARD_CONFIG)
    with tm.Session() as sess:
        sess.run(configure)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"_TPUEmbeddingShardGather: local row 3 of table 'a' is not "
                                 r"in \[0, 3\)"):
            sess.run(gather)


def test_shard_apply_updates_its_rows_and_a_failed_run_undoes_it(graph):
    configure = _shard(graph)
    rows = [np.array([0, 2], np.int64), np.zeros((0,), np.int64)]
    grads = [np.full((2, 3), 2.0, np.float32), np.zeros((0, 2), np.float32)]
    apply = R._TPUEmbeddingShardApplyGradients(rows=rows, gradients=grads, learning_rates=[],
                                               config=SHARD_CONFIG)
    bad = R._TPUEmbeddingShardApplyGradients(
        rows=rows, gradients=[np.ones((1, 3), np.float32), grads[1]], learning_rates=[],
        config=SHARD_CONFIG)
    with tm.control_dependencies([apply]):
        fail = tm.debugging.check_numerics(tm.constant(np.nan), "boom")
    params, accum = _retrieve()
    with tm.Session() as sess:
        sess.run(configure)
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"gradients\[0\] has shape"):
            sess.run(bad)
        with pytest.raises(tm.errors.InvalidArgumentError, match="boom"):
            sess.run(fail)
        np.testing.assert_array_equal(sess.run(accum), np.full((3, 3), 0.1, np.float32))
        sess.run(apply)
        p, a = sess.run([params, accum])
    # Adagrad from zero rows, accumulators 0.1: a = 0.1 + g^2, p = -lr * g / sqrt(a).
    want_a = np.float32(0.1) + np.float32(4.0)
    np.testing.assert_array_equal(a[[0, 2]], np.full((2, 3), want_a, np.float32))
    np.testing.assert_array_equal(a[1], np.full(3, 0.1, np.float32))
    np.testing.assert_allclose(p[[0, 2]], -0.1 * 2.0 / np.sqrt(want_a) * np.ones((2, 3)),
                               rtol=1e-6)
    np.testing.assert_array_equal(p[1], np.zeros(3, np.float32))


def test_mid_level_cluster_errors(graph):
    table = T.TableConfig(10, 2, name="t")
    features = {"f": T.FeatureConfig(table)}
    with pytest.raises(ValueError, match="no job 'ps'"):
        T.TPUEmbedding(features, T.SGD(0.1), batch_size=2, cluster={"worker": ["a:1"]})
    with pytest.raises(ValueError, match="num_hosts=3 does not match the 2 tasks"):
        T.TPUEmbedding(features, T.SGD(0.1), batch_size=2, num_hosts=3,
                       cluster={"ps": ["a:1", "a:2"]})
    emb = T.TPUEmbedding(features, T.SGD(0.1), batch_size=2,
                         cluster=tm.train.ClusterSpec({"ps": ["a:1", "a:2", "a:3"]}))
    assert (emb.config.num_hosts, emb.config.sharding_strategy) == (3, "MOD")
