"""Training across processes on the package's local Ray cluster (127.0.0.1 only) of 3 worker
and 2 ps tasks: MonitoredTrainingSession with a chief and a worker, and
asynchronous training that drops stale gradients.

Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tests.distribute.cluster_util import destroy_token_queue, sub_cluster
from tfmini.train.monitored_session import report_uninitialized_variables

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster(ray_cluster):
    # The package's shared cluster (tests/distribute/conftest.py): 3 workers and 2 ps.
    return ray_cluster


def _sub_spec(cluster, num_workers, num_ps):
    # The first tasks of the cluster: the device setter places on these only.
    workers, ps = cluster
    return sub_cluster(workers[:num_workers], ps[:num_ps])


def _linear_data():
    # The linear model of tools/record_goldens_sync_replicas.py.
    rng = np.random.RandomState(7)
    xs = rng.randn(2, 8, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return xs, ys


def _mts_replica(spec, task, xs, ys):
    setter = tm.train.replica_device_setter(cluster=spec, worker_device=f"/job:worker/task:{task}")
    with tm.device(setter):
        w = tm.Variable(np.zeros([3, 1], np.float32), name="w")
        b = tm.Variable(np.zeros([1], np.float32), name="b")
        gs = tm.train.get_or_create_global_step()
        loss = tm.reduce_mean(tm.square(tm.matmul(xs[task], w) + b - ys[task]))
        opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.1), 2, 2)
        train = opt.minimize(loss, global_step=gs)
    return w, b, gs, loss, opt, train


def test_monitored_training_sessions_chief_and_worker(cluster, golden, tmp_path):
    # 1 ps + 2 workers: the chief's MonitoredTrainingSession initialises the model on the ps
    # task and checkpoints it; the worker's waits for it, then both train in lockstep with
    # the SyncReplicas hook, round by round as TF 2.21 (the threaded golden run).
    workers, _ = cluster
    spec = _sub_spec(cluster, 2, 1)
    want = golden("sync_replicas")
    xs, ys = _linear_data()
    ckpt = str(tmp_path / "ckpt")
    graphs = [tm.Graph(), tm.Graph()]
    built, sessions = [], []
    try:
        for task, g in enumerate(graphs):
            with g.as_default():
                built.append(_mts_replica(spec, task, xs, ys))
                hook = built[task][4].make_session_run_hook(is_chief=task == 0)
                sessions.append(tm.train.MonitoredTrainingSession(
                    master=workers[task].target, is_chief=task == 0,
                    checkpoint_dir=ckpt if task == 0 else None, hooks=[hook],
                    stop_grace_period_secs=0.5, max_wait_secs=30))
        w, b, gs = built[0][:3]
        assert w.device == "/job:ps/task:0" and gs.device == "/job:ps/task:0"
        # The chief saved the initialised model (step 0) from the ps task's process.
        assert tm.train.latest_checkpoint(ckpt).endswith("model.ckpt-0")
        rounds = want["linear/loss"].shape[0]
        losses = np.zeros([rounds, 2], np.float32)
        tokens = np.zeros([rounds, 2], np.int64)

        def step(k, task):
            loss, _, train = built[task][3:]
            tokens[k, task], losses[k, task] = sessions[task].run(
                [train, loss], options=tm.RunOptions(timeout_in_ms=20000))

        for k in range(rounds):
            threads = [threading.Thread(target=step, args=(k, t)) for t in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            if k == 0:  # the first round's tokens come before its update: wait for it
                deadline = time.monotonic() + 10
                while sessions[0].run(gs) < 1 and time.monotonic() < deadline:
                    time.sleep(0.01)
        np.testing.assert_allclose(losses, want["linear/loss"], rtol=1e-5)
        np.testing.assert_array_equal(tokens, want["linear/tokens"])
        w1, b1, gs1 = built[1][:3]
        np.testing.assert_allclose(sessions[1].run(w1), want["linear/w"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sessions[1].run(b1), want["linear/b"], rtol=1e-5, atol=1e-6)
        assert sessions[1].run(gs1) == want["linear/gs"]
    finally:
        for s in sessions:
            s.close()  # the chief's close cancels its queue runner's take on the ps
        tm.summary.FileWriterCache.clear()  # the chief's summary hooks' writer thread
        destroy_token_queue(workers[0].target)  # closed by the chief's queue runner
    # Closing the chief saved the last step's checkpoint, with the trained values.
    path = tm.train.latest_checkpoint(ckpt)
    assert path.endswith(f"model.ckpt-{int(want['linear/gs'])}")
    reader = tm.train.load_checkpoint(path)
    np.testing.assert_allclose(reader.get_tensor("w"), want["linear/w"], rtol=1e-5, atol=1e-6)


def _waiting_model(spec, name):
    with tm.device(tm.train.replica_device_setter(cluster=spec)), tm.name_scope(name):
        v = tm.Variable([1.0, 2.0], name="v")
    return v


def test_worker_waits_for_the_chief_with_a_bounded_poll(cluster):
    workers, _ = cluster
    spec = _sub_spec(cluster, 2, 1)
    chief_g, worker_g = tm.Graph(), tm.Graph()
    with chief_g.as_default():
        v0 = _waiting_model(spec, "waited")
        init = tm.global_variables_initializer()
    with worker_g.as_default():
        v1 = _waiting_model(spec, "waited")
        ready = report_uninitialized_variables()
        manager = tm.train.SessionManager(ready_op=ready, graph=worker_g,
                                          recovery_wait_secs=0.2)
    got = []
    waiter = threading.Thread(target=lambda: got.append(
        manager.wait_for_session(workers[1].target, max_wait_secs=20)))
    start = time.monotonic()
    waiter.start()
    time.sleep(1.0)
    assert not got  # nothing initialised the ps task's variable yet: still polling
    with tm.Session(workers[0].target, graph=chief_g) as chief:
        chief.run(init)
        chief.run(v0.assign([5.0, 6.0]))
    waiter.join(10)
    assert got and time.monotonic() - start < 10
    with got[0] as sess:
        np.testing.assert_array_equal(sess.run(v1), [5.0, 6.0])


def test_worker_wait_has_a_deadline(cluster):
    workers, _ = cluster
    spec = _sub_spec(cluster, 2, 1)
    with tm.Graph().as_default() as g:
        _waiting_model(spec, "never_initialised")
        ready = report_uninitialized_variables()
        manager = tm.train.SessionManager(ready_op=ready, graph=g, recovery_wait_secs=0.2)
        start = time.monotonic()
        with pytest.raises(tm.errors.DeadlineExceededError, match="was not ready after"):
            manager.wait_for_session(workers[1].target, max_wait_secs=1.0)
        assert time.monotonic() - start < 5


def _async_worker(spec, task, staleness):
    # Worker ``task``'s own graph. The model and the global step live on ps 1 with the
    # optimizer's mutex and check-and-apply (an accepted update is one function run there);
    # the device setter puts the stale counter on ps 0.
    with tm.name_scope("async"):
        with tm.device("/job:ps/task:1"):
            w = tm.Variable(np.zeros([3], np.float32), name="w")
            b = tm.Variable(np.float32(0.0), name="b")
            gs = tm.Variable(np.int64(0), name="gs", trainable=False)
        tm.add_to_collection(tm.GraphKeys.GLOBAL_STEP, gs)
        setter = tm.train.replica_device_setter(cluster=spec,
                                                worker_device=f"/job:worker/task:{task}")
        with tm.device(setter):
            # Gradient of w: one-hot of the worker; of b: 1. So w counts each worker's
            # applied updates and b all of them.
            onehot = np.eye(3, dtype=np.float32)[task]
            loss = tm.reduce_sum(w * onehot) + b
            opt = tm.contrib.opt.DropStaleGradientOptimizer(
                tm.train.GradientDescentOptimizer(1.0), staleness=staleness)
            train = opt.minimize(loss, global_step=gs)
        counter, = [v for v in tm.global_variables() if v.op.name == "stale_counter"]
    return w, b, gs, counter, train


def test_async_drop_stale_gradients_across_processes(cluster):
    # 3 worker processes train asynchronously against 2 ps processes; a gradient more than
    # 2 steps stale is dropped. Every attempt is either applied (global step) or dropped
    # (stale counter), and the variables hold exactly the applied updates.
    workers, ps = cluster
    spec = _sub_spec(cluster, 3, 2)
    steps = 8
    built, sessions = [], []
    for task in range(3):
        g = tm.Graph()
        with g.as_default():
            built.append(_async_worker(spec, task, 2))
            init = tm.global_variables_initializer() if task == 0 else None
        sessions.append(tm.Session(workers[task].target, graph=g))
        if init is not None:
            sessions[0].run(init)
    w, b, gs, counter, _ = built[0]
    assert gs.device == "/job:ps/task:1" and counter.device == "/job:ps/task:0"
    errs = []

    def work(task):
        try:
            for _ in range(steps):
                sessions[task].run(built[task][4], options=tm.RunOptions(timeout_in_ms=20000))
        except Exception as e:  # noqa: BLE001  (reported by the assertion below)
            errs.append(e)

    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errs
        applied = int(sessions[1].run(built[1][2]))
        dropped = float(sessions[2].run(built[2][3]))
        assert applied + dropped == 3 * steps
        got_w, got_b = sessions[0].run([w, b])
        # Gradient descent with rate 1: each applied update subtracts its gradient once.
        per_worker = -got_w
        np.testing.assert_array_equal(per_worker, np.round(per_worker))
        assert per_worker.sum() == applied and np.all(per_worker <= steps)
        assert got_b == -applied
    finally:
        for s in sessions:
            s.close()
