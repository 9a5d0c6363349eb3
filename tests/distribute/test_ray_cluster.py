"""Distributed sessions on a local Ray cluster (127.0.0.1 only): 2 workers and 1 ps of the
package's shared cluster.

Skipped without Ray (the ``dist`` extra); CI installs it (.ci/run).
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tests.distribute.cluster_util import destroy_token_queue, sub_cluster

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster(ray_cluster):
    # 2 workers and 1 ps of the package's shared cluster (tests/distribute/conftest.py).
    workers, ps = ray_cluster
    return workers[:2], ps[:1]


def _model(spec, worker_task):
    setter = tm.train.replica_device_setter(cluster=spec,
                                            worker_device=f"/job:worker/task:{worker_task}")
    with tm.device(setter):
        w = tm.Variable([0.0, 0.0], name="w")
        gs = tm.train.get_or_create_global_step()
        x = tm.placeholder(tm.float32, [2], name="x")
        loss = tm.reduce_sum(tm.square(w - x))
        train = tm.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)
    return w, gs, x, loss, train


def _losses(target, steps):
    with tm.Graph().as_default():
        w, gs, x, loss, train = _model(tm.train.ClusterSpec({"ps": ["a:1"], "worker":
                                                             ["b:1", "c:1"]}), 0)
        with tm.Session(target) as sess:
            sess.run(tm.global_variables_initializer())
            out = [sess.run([loss, train], {x: xv})[0] for xv in steps]
            return out, sess.run(w), sess.run(gs)


def test_tasks_are_separate_processes_on_loopback(cluster):
    workers, ps = cluster
    assert workers[0].target.startswith("grpc://127.0.0.1:")
    c = workers[0]._cluster
    pids = {ray.get(c.actor(j, t).pid.remote()) for j, t in
            (("worker", 0), ("worker", 1), ("ps", 0))}
    assert len(pids) == 3 and os.getpid() not in pids


def test_training_matches_the_single_process_session(cluster):
    workers, ps = cluster
    steps = [np.array([1.0, 2.0], np.float32), np.array([3.0, -1.0], np.float32)] * 3
    spec = sub_cluster(workers, ps)
    with tm.Graph().as_default():
        w, gs, x, loss, train = _model(spec, 0)
        with tm.Session() as local:
            local.run(tm.global_variables_initializer())
            want = [local.run([loss, train], {x: xv})[0] for xv in steps]
            want_w = local.run(w)
        with tm.Session(workers[0].target) as sess:
            sess.run(tm.global_variables_initializer())
            got = [sess.run([loss, train], {x: xv})[0] for xv in steps]
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(sess.run(w), want_w)
            assert sess.run(gs) == len(steps)
        # The variables live on the ps task: a session on another worker sees them.
        with tm.Session(workers[1].target) as other:
            np.testing.assert_array_equal(other.run(w), want_w)


def test_blocking_take_has_a_deadline_across_processes(cluster):
    workers, ps = cluster
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:0"):
            acc = tm.ConditionalAccumulator(tm.float32, shape=[2], shared_name="acc_deadline")
        take = acc.take_grad(1)
        with tm.Session(workers[0].target) as sess:
            start = time.monotonic()
            with pytest.raises(tm.errors.DeadlineExceededError):
                sess.run(take, options=tm.RunOptions(timeout_in_ms=300))
            assert time.monotonic() - start < 5
            # A failed run loses nothing: the session still works.
            sess.run(acc.apply_grad([1.0, 3.0], local_step=0))
            np.testing.assert_array_equal(sess.run(take), [1.0, 3.0])


def test_close_cancels_a_remote_wait(cluster):
    workers, ps = cluster
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:0"):
            acc = tm.ConditionalAccumulator(tm.float32, shape=[1], shared_name="acc_close")
        take = acc.take_grad(1)
        sess = tm.Session(workers[1].target)
        caught = []

        def blocked():
            try:
                sess.run(take)
            except tm.errors.OpError as e:
                caught.append(e)

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(1.0)
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert caught and isinstance(caught[0], tm.errors.CancelledError)


def test_kernel_errors_keep_their_class(cluster):
    workers, ps = cluster
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:0"):
            v = tm.Variable([1.0], name="uninit")
        with tm.Session(workers[0].target) as sess:
            with pytest.raises(tm.errors.FailedPreconditionError):
                sess.run(v.value())


def test_unknown_task_is_refused(cluster):
    workers, ps = cluster
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:7"):
            c = tm.constant(1.0)
        with tm.Session(workers[0].target) as sess:
            with pytest.raises(tm.errors.InvalidArgumentError, match="no task /job:ps/task:7"):
                sess.run(c)


def test_unknown_target_says_what_to_do():
    with pytest.raises(tm.errors.UnimplementedError, match="dist extra"):
        tm.Session("grpc://127.0.0.1:1")


def _calls(cluster_obj, tasks):
    return {t: ray.get(cluster_obj.actor(*t).calls.remote()) for t in tasks}


def test_a_step_is_one_call_per_task(cluster):
    workers, ps = cluster
    c = workers[0]._cluster
    tasks = [("worker", 0), ("worker", 1), ("ps", 0)]
    with tm.Graph().as_default():
        w, gs, x, loss, train = _model(sub_cluster(workers, ps), 0)
        with tm.Session(workers[0].target) as sess:
            sess.run(tm.global_variables_initializer())
            before = _calls(c, tasks)
            for _ in range(3):
                sess.run([loss, train], {x: np.array([1.0, 2.0], np.float32)})
            after = _calls(c, tasks)
    # The variable lives on ps 0, the gradient is computed on worker 0: one call each.
    assert after[("ps", 0)] - before[("ps", 0)] == 3
    assert after[("worker", 0)] - before[("worker", 0)] == 3
    assert after[("worker", 1)] == before[("worker", 1)]
    assert all(ray.get(c.actor(*t).pending_values.remote()) == 0 for t in tasks)


def test_parts_of_one_step_run_at_once(cluster):
    # The ps part dequeues a value the same step's worker part computes and the ps part
    # enqueues: run one after another, the dequeue would wait for ever.
    workers, ps = cluster
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:0"):
            q = tm.FIFOQueue(4, tm.float32, shapes=[[2]], shared_name="q_at_once")
        with tm.device("/job:worker/task:0"):
            x = tm.placeholder(tm.float32, [2])
            doubled = x * 2.0
        with tm.device("/job:ps/task:0"):
            enq = q.enqueue(doubled)
            deq = q.dequeue()
        with tm.Session(workers[0].target) as sess:
            got, _ = sess.run([deq, enq], {x: [1.0, 4.0]},
                              options=tm.RunOptions(timeout_in_ms=10000))
            np.testing.assert_array_equal(got, [2.0, 8.0])


def test_a_failed_part_ends_the_whole_step(cluster):
    workers, ps = cluster
    c = workers[0]._cluster
    with tm.Graph().as_default():
        with tm.device("/job:worker/task:1"):
            x = tm.placeholder(tm.float32, [None])
            bad = tm.reshape(x, [3])
        with tm.device("/job:ps/task:0"):
            y = tm.identity(bad) + 1.0
        with tm.Session(workers[1].target) as sess:
            start = time.monotonic()
            # No deadline: the ps part's _Recv ends because the step is aborted.
            with pytest.raises(tm.errors.InvalidArgumentError, match="Reshape"):
                sess.run(y, {x: [1.0, 2.0]})
            assert time.monotonic() - start < 10
            np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [2.0, 3.0, 4.0])
    assert ray.get(c.actor("ps", 0).pending_values.remote()) == 0


def _sync_replica(spec, task, xs, ys, r):
    # Worker ``task``'s own graph (between-graph replication), under the device setter.
    setter = tm.train.replica_device_setter(cluster=spec, worker_device=f"/job:worker/task:{task}")
    with tm.device(setter), tm.name_scope("sync3"):
        w = tm.Variable(np.zeros([3, 1], np.float32), name="w")
        b = tm.Variable(np.zeros([1], np.float32), name="b")
        # A global step of its own: the module's other tests already made "global_step".
        gs = tm.Variable(np.int64(0), name="gs", trainable=False)
        loss = tm.reduce_mean(tm.square(tm.matmul(xs[task], w) + b - ys[task]))
        opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.1), r,
                                             len(xs))
        train = opt.minimize(loss, global_step=gs)
    return w, b, gs, loss, opt, train


def test_sync_replicas_across_processes_match_tf_and_threads(cluster, golden):
    # The linear model of tools/record_goldens_sync_replicas.py (replicas as threads in one
    # Session there), here with 1 ps + 2 worker processes: the same losses, round by round.
    workers, ps = cluster
    spec = sub_cluster(workers, ps)
    want = golden("sync_replicas")
    rng = np.random.RandomState(7)
    xs = rng.randn(2, 8, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    graphs, built, sessions = [], [], []
    for task in range(2):
        g = tm.Graph()
        with g.as_default():
            built.append(_sync_replica(spec, task, xs, ys, 2))
            init = tm.variables_initializer([*tm.global_variables()])
            local_init = tm.local_variables_initializer()
        graphs.append((g, init, local_init))
        sessions.append(tm.Session(workers[task].target, graph=g))
    w, b, gs, _, chief_opt, _ = built[0]
    assert w.device == "/job:ps/task:0" and gs.device == "/job:ps/task:0"
    coord = tm.train.Coordinator()
    try:
        sessions[0].run(graphs[0][1])  # the chief initialises the shared variables
        for task in range(2):
            sessions[task].run(graphs[task][2])
        with graphs[0][0].as_default():
            sessions[0].run(chief_opt.chief_init_op)
            sessions[0].run(chief_opt.get_init_tokens_op())
            chief_opt.get_chief_queue_runner().create_threads(sessions[0], coord=coord,
                                                               daemon=True, start=True)
        sessions[1].run(built[1][4].local_step_init_op)
        rounds = want["linear/loss"].shape[0]
        losses = np.zeros([rounds, 2], np.float32)
        tokens = np.zeros([rounds, 2], np.int64)

        def step(k, task):
            *_, loss, _, train = built[task]
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
        # Read through worker 1's graph: the variables live on the ps task.
        w1, b1, gs1 = built[1][:3]
        np.testing.assert_allclose(sessions[1].run(w1), want["linear/w"], rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(sessions[1].run(b1), want["linear/b"], rtol=1e-5,
                                   atol=1e-6)
        assert sessions[1].run(gs1) == want["linear/gs"]
    finally:
        coord.request_stop()
        for s in sessions:
            s.close()  # cancels the chief's take waiting on the ps
        # The queue runner's stop closed the token queue on the ps: destroy it once its
        # threads ended, so a later module's optimizer makes a fresh one.
        coord.join(stop_grace_period_secs=10, ignore_live_threads=True)
        destroy_token_queue(workers[0].target)
