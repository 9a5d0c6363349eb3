"""The simulated TPU embedding's tables sharded over the ps tasks of the package cluster.

``tm.tpu.TPUEmbedding(..., cluster=spec)`` puts row ``id`` of every table on ps task
``id % 2`` (local row ``id // 2``); a training step then makes one call to each ps task,
carrying that shard's lookup and its update. Activations, tables and optimizer slots are
the unsharded single-process device's, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.distribute.cluster_util import sub_cluster

ray = pytest.importorskip("ray")

T = tm.tpu
BATCH, STEPS = 6, 3
RNG = np.random.default_rng(7)
# Vocabularies that two shards split unevenly (13 -> 7 + 6 rows, 5 -> 3 + 2).
VIDEO = RNG.normal(size=(13, 4)).astype(np.float32)
USER = RNG.normal(size=(9, 3)).astype(np.float32)
COUNTRY = RNG.normal(size=(5, 2)).astype(np.float32)


def _batches():
    rng = np.random.default_rng(11)
    out = []
    for _ in range(STEPS):
        watched = [rng.integers(0, 13, size=rng.integers(1, 4)) for _ in range(BATCH)]
        friends = [rng.integers(0, 9, size=rng.integers(1, 3)) for _ in range(BATCH)]
        out.append({
            "watched": watched,
            "favorited": rng.integers(0, 13, size=BATCH),
            "friends": friends,
            "friend_weights": [rng.uniform(0.5, 2.0, size=len(f)) for f in friends],
            "country": rng.integers(0, 5, size=BATCH),
            "lr": 0.1 + 0.05 * len(out),
        })
    return out


def _ragged(rows):
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return splits, np.concatenate(rows).astype(np.int64)


def _model(cluster, non_lazy_adam=False, sharding=None):
    """The embedding, its feeds, activations and train op (cluster None: one process)."""
    lr = tm.placeholder(tm.float32, [], name="country_lr")
    video = T.TableConfig(13, 4, initializer=lambda shape, dtype=None: VIDEO, name="video",
                          optimizer=T.Adagrad(0.2))
    user = T.TableConfig(9, 3, initializer=lambda shape, dtype=None: USER, name="user",
                         combiner="mean")
    country = T.TableConfig(5, 2, initializer=lambda shape, dtype=None: COUNTRY,
                            name="country", optimizer=T.SGD(lambda: lr))
    features = {"watched": T.FeatureConfig(video), "favorited": T.FeatureConfig(video),
                "friends": T.FeatureConfig(user), "country": T.FeatureConfig(country)}
    emb = T.TPUEmbedding(features, T.Adam(0.05, lazy_adam=not non_lazy_adam),
                         batch_size=BATCH, cluster=cluster, sharding_strategy=sharding)
    ph = {
        "w_splits": tm.placeholder(tm.int64, [BATCH + 1]),
        "w_ids": tm.placeholder(tm.int64, [None]),
        "fav": tm.placeholder(tm.int64, [BATCH]),
        "f_splits": tm.placeholder(tm.int64, [BATCH + 1]),
        "f_ids": tm.placeholder(tm.int64, [None]),
        "f_w": tm.placeholder(tm.float32, [None]),
        "country": tm.placeholder(tm.int64, [BATCH]),
    }
    enqueue = emb.enqueue({
        "watched": T.RaggedInput(ph["w_splits"], ph["w_ids"]),
        "favorited": ph["fav"],
        "friends": T.RaggedInput(ph["f_splits"], ph["f_ids"], ph["f_w"]),
        "country": ph["country"],
    })
    act = emb.dequeue()
    loss = tm.add_n([tm.reduce_sum(tm.square(a)) * (k + 1.0)
                     for k, a in enumerate(act.values())])
    grads = dict(zip(act, tm.gradients(loss, list(act.values()))))
    return emb, ph, lr, enqueue, act, emb.apply_gradients(grads)


def _feed(ph, lr, b):
    w_splits, w_ids = _ragged(b["watched"])
    f_splits, f_ids = _ragged(b["friends"])
    return {ph["w_splits"]: w_splits, ph["w_ids"]: w_ids, ph["fav"]: b["favorited"],
            ph["f_splits"]: f_splits, ph["f_ids"]: f_ids,
            ph["f_w"]: np.concatenate(b["friend_weights"]).astype(np.float32),
            ph["country"]: b["country"], lr: b["lr"]}


def _train(target, cluster, calls=None, non_lazy_adam=False, sharding=None, setter=False):
    """Activations per step, then the tables and slots (retrieved), and the ps calls."""
    g = tm.Graph()
    with g.as_default():
        if setter:  # built as a TF1 program builds its model: under replica_device_setter
            with tm.device(tm.train.replica_device_setter(cluster=cluster)):
                emb, ph, lr, enqueue, act, train = _model(cluster, non_lazy_adam, sharding)
            assert train.device == "/job:worker"  # the group; its parts are on the ps tasks
            assert [v.device for v in emb.variables["user"]["momenta"]] == [
                f"/job:ps/replica:0/task:{k}/device:CPU:0" for k in range(2)]
        else:
            emb, ph, lr, enqueue, act, train = _model(cluster, non_lazy_adam, sharding)
        opts = tm.RunOptions(timeout_in_ms=20000)
        acts, per_step = [], []
        with tm.Session(target) as sess:
            sess.run(emb.initializer, options=opts)
            for b in _batches():
                feed = _feed(ph, lr, b)
                sess.run(enqueue, feed, options=opts)
                before = calls() if calls else None
                got, _ = sess.run([act, train], feed, options=opts)
                if calls:
                    after = calls()
                    per_step.append({t: after[t] - before[t] for t in after})
                acts.append(got)
            sess.run(emb.retrieve(), options=opts)
            return acts, _whole(emb, sess.run(emb.variables)), per_step


def _whole(emb, variables):
    """The tables and slots as whole arrays (sharded: from each shard's variable)."""
    config = emb.config
    out = {}
    for t, (name, slots) in enumerate(variables.items()):
        out[name] = {}
        for slot, value in slots.items():
            if not isinstance(value, list):
                out[name][slot] = value
                continue
            vocab = config.table_descriptor[t].vocabulary_size
            whole = np.zeros((vocab, value[0].shape[1]), np.float32)
            for k, part in enumerate(value):
                whole[T.shard_row_ids(vocab, len(value), k, config.sharding_strategy)] = part
            out[name][slot] = whole
    return out


@pytest.fixture(scope="module")
def cluster(ray_cluster):
    workers, ps = ray_cluster
    c = workers[0]._cluster
    spec = sub_cluster(workers[:1], ps)

    def calls():
        return {t: ray.get(c.actor(*t).calls.remote()) for t in (("ps", 0), ("ps", 1))}

    return workers[0].target, spec, calls


@pytest.mark.parametrize("non_lazy_adam, sharding, setter", [
    (False, None, False), (True, None, False), (False, "DIV_DEFAULT", False),
    (False, None, True)])
def test_sharded_training_equals_the_single_process_device(cluster, non_lazy_adam, sharding,
                                                           setter):
    target, spec, calls = cluster
    want_acts, want_vars, _ = _train("", None, non_lazy_adam=non_lazy_adam)
    acts, got_vars, per_step = _train(target, spec, calls, non_lazy_adam, sharding, setter)
    for step, (want, got) in enumerate(zip(want_acts, acts)):
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name}@{step}")
    for table, slots in want_vars.items():
        assert set(got_vars[table]) == set(slots)
        for slot, value in slots.items():
            np.testing.assert_array_equal(got_vars[table][slot], value,
                                          err_msg=f"{table}/{slot}")
    # Training changed every table: the comparison is not of untouched initial values.
    assert not np.array_equal(want_vars["video"]["parameters"], VIDEO)
    assert not np.array_equal(want_vars["user"]["momenta"], 0 * USER)
    # One call per ps task per training step: its lookup and its update, all tables.
    assert per_step == [{("ps", 0): 1, ("ps", 1): 1}] * STEPS


def test_the_unsharded_device_runs_on_a_cluster_task(cluster):
    # Without cluster=, the whole embedding runs on the session's task (its own TPU device).
    target, _, calls = cluster
    want_acts, want_vars, _ = _train("", None)
    acts, got_vars, per_step = _train(target, None, calls)
    for want, got in zip(want_acts, acts):
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
    for table, slots in want_vars.items():
        for slot, value in slots.items():
            np.testing.assert_array_equal(got_vars[table][slot], value)
    assert per_step == [{("ps", 0): 0, ("ps", 1): 0}] * STEPS


def test_inference_batches_leave_the_shards_unchanged(cluster):
    target, spec, _ = cluster
    g = tm.Graph()
    with g.as_default():
        emb, ph, lr, _, act, train = _model(spec)
        b = _batches()[0]
        enqueue = emb.enqueue({
            "watched": T.RaggedInput(ph["w_splits"], ph["w_ids"]),
            "favorited": ph["fav"],
            "friends": T.RaggedInput(ph["f_splits"], ph["f_ids"], ph["f_w"]),
            "country": ph["country"],
        }, training=False)
        with tm.Session(target) as sess:
            sess.run(emb.initializer)
            sess.run(enqueue, _feed(ph, lr, b))
            got = sess.run([act, train], _feed(ph, lr, b))[0]
            sess.run(emb.retrieve())
            tables = _whole(emb, sess.run(emb.variables))
    np.testing.assert_array_equal(got["favorited"], VIDEO[b["favorited"]])
    np.testing.assert_array_equal(tables["video"]["parameters"], VIDEO)
    np.testing.assert_array_equal(tables["user"]["momenta"], np.zeros_like(USER))


def test_two_workers_train_the_same_shards(ray_cluster, cluster):
    # Data parallelism: worker 0 initialises the shards, worker 1 configures only its host;
    # their steps, one after the other, train the tables as the single-process device
    # trains the same batches in that order.
    workers, _ = ray_cluster
    _, spec, calls = cluster
    batches = _batches()
    want_acts, want_vars, _ = _train("", None)
    built, sessions, setup = [], [], []
    opts = tm.RunOptions(timeout_in_ms=20000)
    try:
        for k in range(2):
            g = tm.Graph()
            with g.as_default():
                with tm.device(f"/job:worker/task:{k}"):
                    built.append(_model(spec))
                    emb = built[k][0]
                    setup.append(emb.initializer if k == 0 else emb.configure_host())
                    retrieve = emb.retrieve()
                sessions.append(tm.Session(workers[k].target))
        for sess, op in zip(sessions, setup):
            sess.run(op, options=opts)
        for step, b in enumerate(batches):
            _, ph, lr, enqueue, act, train = built[step % 2]
            sess = sessions[step % 2]
            sess.run(enqueue, _feed(ph, lr, b), options=opts)
            before = calls()
            got, _ = sess.run([act, train], _feed(ph, lr, b), options=opts)
            assert calls() == {t: n + 1 for t, n in before.items()}
            for name in got:
                np.testing.assert_array_equal(got[name], want_acts[step][name])
        sessions[1].run(retrieve, options=opts)
        got_vars = _whole(built[1][0], sessions[1].run(built[1][0].variables))
    finally:
        for sess in sessions:
            sess.close()
    for table, slots in want_vars.items():
        for slot, value in slots.items():
            np.testing.assert_array_equal(got_vars[table][slot], value, err_msg=table + slot)
    with pytest.raises(ValueError, match="needs tables sharded"):
        _train_graph_configure_host_unsharded()


def _train_graph_configure_host_unsharded():
    with tm.Graph().as_default():
        _model(None)[0].configure_host()


def test_each_ps_task_holds_its_mod_shard(cluster):
    target, spec, _ = cluster
    g = tm.Graph()
    with g.as_default():
        emb, *_ = _model(spec)
        assert emb.config.num_hosts == 2 and emb.config.sharding_strategy == "MOD"
        # Retrieve each shard from its own task: rows id % 2 == k, in local order id // 2.
        with tm.Session(target) as sess:
            sess.run(emb.initializer)
            for k in range(2):
                text = emb._shard_configs[k]
                with tm.device(f"/job:ps/task:{k}/device:TPU:0"):
                    rows = tm.raw_ops.RetrieveTPUEmbeddingAdagradParameters(
                        table_name="video", num_shards=1, shard_id=0, config=text)
                params, _ = sess.run(rows)
                np.testing.assert_array_equal(params, VIDEO[k::2])


def test_sharded_graph_places_one_lookup_and_one_update_per_ps(cluster):
    _, spec, _ = cluster
    g = tm.Graph()
    with g.as_default():
        emb, *_ = _model(spec)
    # The host copies too are one variable per shard on its ps task: no task holds a table.
    for name, slots in emb.variables.items():
        for parts in slots.values():
            assert [v.device for v in parts] == [
                f"/job:ps/replica:0/task:{k}/device:CPU:0" for k in range(2)]
            assert parts[0].name.startswith(f"tpu_embedding/{name}/")
            assert parts[1].name.endswith("part_1:0")
    assert [v.shape.as_list() for v in emb.variables["video"]["parameters"]] == [[7, 4], [6, 4]]
    by_task: dict = {}
    for op in g.get_operations():
        by_task.setdefault(op.type, []).append(op.device)
    for op_type in ("_TPUEmbeddingShardGather", "_TPUEmbeddingShardApplyGradients"):
        assert sorted(by_task[op_type]) == [
            "/job:ps/replica:0/task:0/device:TPU:0", "/job:ps/replica:0/task:1/device:TPU:0"]
    assert "RecvTPUEmbeddingActivations" not in by_task


def test_the_host_refuses_unsharded_recv(cluster):
    target, spec, _ = cluster
    g = tm.Graph()
    with g.as_default():
        emb, ph, lr, enqueue, *_ = _model(spec)
        recv = tm.raw_ops.RecvTPUEmbeddingActivations(num_outputs=4, config=emb.config_string)
        with tm.Session(target) as sess:
            sess.run(emb.initializer)
            sess.run(enqueue, _feed(ph, lr, _batches()[0]))
            with pytest.raises(tm.errors.FailedPreconditionError, match="sharded over ps"):
                sess.run(recv)
