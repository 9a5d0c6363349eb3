"""Faults: a worker task killed mid-round, a ps task killed and restored from its checkpoint,
bounded waits and no double count (docs/distributed.md, "Faults").

The tests that kill tasks start clusters of their own on the package's Ray instance (their
own namespace, so killing them leaves the shared cluster of tests/distribute/conftest.py
alone) and end every actor process they started, first and restarted ones, by its PID.
Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid

import numpy as np
import pytest

import tfmini as tm
from tfmini.distribute.ray_support import kill_processes
from tfmini.distribute.server import _free_port
from tfmini.distribute.task_server import _PartRunOptions
from tfmini.train.basic_session_run_hooks import CheckpointRecovery

ray = pytest.importorskip("ray")

LR = 0.1


class _OwnCluster:
    """A RayCluster of its own (own namespace and ports) whose processes end by PID."""

    def __init__(self, workers: int, ps: int, **policy):
        spec = tm.train.ClusterSpec({
            "worker": [f"127.0.0.1:{_free_port()}" for _ in range(workers)],
            "ps": [f"127.0.0.1:{_free_port()}" for _ in range(ps)],
        })
        self.cluster = tm.distribute.RayCluster(
            spec, namespace=f"tfmini-faults-{uuid.uuid4().hex[:8]}", **policy)
        self.spec = spec
        self.pids: set[int] = set()
        for job in spec.jobs:
            for task in spec.task_indices(job):
                self.pid(job, task)

    def target(self, job: str, task: int) -> str:
        return "grpc://" + self.spec.task_address(job, task)

    def pid(self, job: str, task: int) -> int:
        """The task's current process id (recorded, to be ended at the end)."""
        pid = ray.get(self.cluster.actor(job, task).pid.remote(), timeout=30)
        self.pids.add(pid)
        return pid

    def kill(self, job: str, task: int) -> None:
        os.kill(self.pid(job, task), 9)

    def wait_restarted(self, job: str, task: int, old_pid: int) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.pid(job, task) != old_pid:
                    return
            except ray.exceptions.RayError:
                time.sleep(0.1)
        raise AssertionError(f"/job:{job}/task:{task} was not restarted")

    def end(self) -> None:
        self.cluster.shutdown()
        kill_processes(self.pids)


@pytest.fixture
def own_cluster(ray_cluster):
    # ray_cluster: the package's Ray instance is up (the own cluster joins it).
    made: list[_OwnCluster] = []

    def make(workers, ps, **policy):
        made.append(_OwnCluster(workers, ps, **policy))
        return made[-1]

    yield make
    for c in made:
        c.end()


def test_restart_policy_is_checked():
    spec = {"worker": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}
    with pytest.raises(ValueError, match=r"max_restarts must be ints >= -1.*'ps': -2"):
        tm.distribute.RayCluster(spec, max_restarts={"ps": -2})
    with pytest.raises(ValueError, match="max_task_retries must be ints"):
        tm.distribute.RayCluster(spec, max_task_retries="1")


# ----------------------------------------------------------------------------------------
# Idempotent applies


def test_repeated_delivery_of_a_step_is_counted_once():
    # What a part run sees on its task: the step id as the idempotency key. Ray's retries
    # deliver a call at least once: the same step applied twice counts once; another step
    # counts; a run without a key (a local Session) counts every time, as TensorFlow.
    with tm.Graph().as_default():
        acc = tm.ConditionalAccumulator(tm.float32, shape=[2], shared_name="dedup")
        grad = tm.placeholder(tm.float32, [2])
        step = tm.placeholder(tm.int64, [])
        apply = acc.apply_grad(grad, local_step=step)
        count = acc.num_accumulated()
        take = acc.take_grad(2)
        with tm.Session() as sess:
            feed = {grad: [1.0, 2.0], step: 0}
            sess.run(apply, feed, options=_PartRunOptions(idempotency_key="client:7"))
            sess.run(apply, feed, options=_PartRunOptions(idempotency_key="client:7"))
            assert sess.run(count) == 1
            # The same step at another local step is another gradient.
            sess.run(apply, {grad: [3.0, 4.0], step: 1},
                     options=_PartRunOptions(idempotency_key="client:7"))
            assert sess.run(count) == 2
            np.testing.assert_allclose(sess.run(take), [2.0, 3.0])
            # The take forgot the keys: the next round counts the same step id again.
            sess.run(apply, {grad: [1.0, 1.0], step: 1},
                     options=_PartRunOptions(idempotency_key="client:8"))
            sess.run(apply, {grad: [1.0, 1.0], step: 1})
            sess.run(apply, {grad: [1.0, 1.0], step: 1})
            assert sess.run(count) == 3


def test_a_failed_step_forgets_its_key():
    # A run that fails after its apply is rolled back, key included: the retried step counts.
    with tm.Graph().as_default():
        acc = tm.ConditionalAccumulator(tm.float32, shape=[], shared_name="dedup_rollback")
        grad = tm.placeholder(tm.float32, [])
        with tm.control_dependencies([acc.apply_grad(grad, local_step=0)]):
            fail = tm.debugging.assert_positive(grad)
        count = acc.num_accumulated()
        with tm.Session() as sess:
            opts = _PartRunOptions(idempotency_key="client:1")
            with pytest.raises(tm.errors.InvalidArgumentError):
                sess.run(fail, {grad: -1.0}, options=opts)
            assert sess.run(count) == 0
            sess.run(fail, {grad: 1.0}, options=opts)
            sess.run(fail, {grad: 1.0}, options=opts)
            assert sess.run(count) == 1


class _DeliveredTwice:
    """An actor handle whose ``run_part`` calls are delivered twice, as an at-least-once
    retry does when an answer is lost: the same call (same step id) runs again."""

    def __init__(self, handle):
        self._handle = handle
        self.run_part = self

    def remote(self, *args, **kwargs):
        ray.get(self._handle.run_part.remote(*args, **kwargs), timeout=30)
        return self._handle.run_part.remote(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._handle, name)


def test_a_step_delivered_twice_to_its_task_applies_once(ray_cluster, monkeypatch):
    workers, _ = ray_cluster
    g = tm.Graph()
    with g.as_default(), tm.device("/job:ps/task:0"):
        acc = tm.ConditionalAccumulator(tm.float32, shape=[2],
                                        shared_name=f"twice_{uuid.uuid4().hex[:6]}")
        grad = tm.placeholder(tm.float32, [2])
        apply = acc.apply_grad(grad, local_step=0)
        count = acc.num_accumulated()
        take = acc.take_grad(1)
    with tm.Session(workers[0].target, graph=g) as sess:
        cluster = sess._cluster
        actor = cluster.actor
        with monkeypatch.context() as m:
            m.setattr(cluster, "actor", lambda job, task: _DeliveredTwice(actor(job, task)))
            sess.run(apply, {grad: [1.0, 2.0]})
            sess.run(apply, {grad: [3.0, 4.0]})  # another step: counted
        assert sess.run(count) == 2
        np.testing.assert_allclose(sess.run(take), [2.0, 3.0])


# ----------------------------------------------------------------------------------------
# Deadlines


def test_chief_take_deadline_names_op_task_and_count(ray_cluster):
    # One of two replicas' gradients is in: the chief's take ends at its deadline with
    # DeadlineExceededError naming the take op, the ps task and 1 of 2 gradients. The
    # session stays usable and the accumulator keeps the gradient it got.
    workers, ps = ray_cluster
    name = f"deadline_{uuid.uuid4().hex[:6]}"
    g = tm.Graph()
    with g.as_default(), tm.device("/job:ps/task:0"):
        acc = tm.ConditionalAccumulator(tm.float32, shape=[2], shared_name=name)
        grad = tm.placeholder(tm.float32, [2])
        apply = acc.apply_grad(grad, local_step=0)
        take = acc.take_grad(2, name="chief_take")
    config = tm.ConfigProto(operation_timeout_in_ms=300)
    with tm.Session(workers[0].target, graph=g, config=config) as sess:
        sess.run(apply, {grad: [1.0, 2.0]})
        for options in (tm.RunOptions(timeout_in_ms=300), None):  # per run, or the config's
            start = time.monotonic()
            with pytest.raises(tm.errors.DeadlineExceededError) as info:
                sess.run(take, options=options)
            assert time.monotonic() - start < 5
            assert type(info.value) is tm.errors.DeadlineExceededError  # not Ray's wrapper
            message = str(info.value)
            assert "'chief_take'" in message and "(on task /job:ps/task:0)" in message
            assert "has 1 of 2 gradients" in message and "ray::" not in message
        sess.run(apply, {grad: [3.0, 4.0]})
        np.testing.assert_allclose(sess.run(take), [2.0, 3.0])


# ----------------------------------------------------------------------------------------
# A worker killed mid-round


def _data():
    rng = np.random.RandomState(11)
    xs = rng.randn(2, 6, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return xs, ys


def _replica(spec, task, xs, ys, replicas=(2, 2)):
    setter = tm.train.replica_device_setter(cluster=spec, worker_device=f"/job:worker/task:{task}")
    with tm.device(setter):
        w = tm.Variable(np.zeros([3, 1], np.float32), name="w")
        b = tm.Variable(np.zeros([1], np.float32), name="b")
        gs = tm.train.get_or_create_global_step()
        loss = tm.reduce_mean(tm.square(tm.matmul(xs[task], w) + b - ys[task]))
        opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(LR), *replicas)
        train = opt.minimize(loss, global_step=gs)
    acc, _ = opt._accumulator_list[0]
    return {"w": w, "b": b, "gs": gs, "train": train, "opt": opt,
            "init": tm.global_variables_initializer(),
            "local_init": tm.local_variables_initializer(),
            "count": acc.num_accumulated(),
            "update": opt.get_chief_queue_runner().enqueue_ops[0]}


def _reference(xs, ys, rounds):
    # Synchronous SGD without faults: each round averages both replicas' gradients once.
    w, b = np.zeros([3, 1], np.float32), np.zeros([1], np.float32)
    for _ in range(rounds):
        gw, gb = [], []
        for x, y in zip(xs, ys):
            r = x @ w + b - y
            gw.append(2 * x.T @ r / len(x))
            gb.append(2 * r.mean(keepdims=True).reshape(1))
        w = w - LR * np.mean(gw, axis=0)
        b = b - LR * np.mean(gb, axis=0)
    return w, b


def _wait_for(fn, what, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not fn():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("monitored", [False, True])
def test_worker_killed_mid_round_is_restarted_and_counted_once(own_cluster, caplog, monitored):
    # 1 ps + 2 workers, SyncReplicas (2 of 2). In round 1, worker 1's task is killed by PID
    # while its gradient is in the accumulator and its step waits for the round's token. The
    # step is aborted on the ps, whose part rolls back (the gradient leaves the accumulator);
    # Ray restarts the task (max_restarts); the replica makes a new session, initialises its
    # local step again and retries. Every round averages exactly two gradients: the
    # variables equal fault-free synchronous SGD.
    # * plain sessions, no call retries: the killed step raises UnavailableError naming the
    #   task; the old session then gets AbortedError (the task restarted) and the replica
    #   makes a new one by hand.
    # * a worker MonitoredTrainingSession with max_task_retries: Ray delivers the killed call
    #   again to the restarted task, which refuses it (AbortedError: another incarnation,
    #   not a run on a state it does not have); the session recovers by itself.
    c = own_cluster(2, 1, max_restarts={"worker": 1},
                    max_task_retries={"worker": int(monitored)})
    xs, ys = _data()
    graphs = [tm.Graph(), tm.Graph()]
    built = []
    for task, g in enumerate(graphs):
        with g.as_default():
            built.append(_replica(c.spec, task, xs, ys))
    opts = tm.RunOptions(timeout_in_ms=20000)
    sessions = [tm.Session(c.target("worker", t), graph=graphs[t]) for t in range(2)]
    chief = tm.Session(c.target("worker", 0), graph=graphs[0])
    errors: list = []
    mts = None

    def start_replica(task):
        sessions[task].run(built[task]["local_init"])
        sessions[task].run(built[task]["opt"].local_step_init_op)

    def train(task):
        try:
            (mts if task == 1 and mts is not None else sessions[task]).run(
                built[task]["train"], options=opts)
        except Exception as e:  # noqa: BLE001  (asserted below)
            errors.append((task, e))

    def in_thread(fn, *args):
        t = threading.Thread(target=fn, args=args)
        t.start()
        return t

    try:
        sessions[0].run(built[0]["init"])
        sessions[0].run(built[0]["opt"].chief_init_op)
        start_replica(0)
        if monitored:
            with graphs[1].as_default():
                hook = built[1]["opt"].make_session_run_hook(is_chief=False)
                mts = tm.train.MonitoredTrainingSession(
                    master=c.target("worker", 1), is_chief=False, hooks=[hook],
                    stop_grace_period_secs=0.5, max_wait_secs=30)
        else:
            start_replica(1)
        rounds = 3
        for k in range(rounds):
            update = in_thread(chief.run, built[0]["update"], None, opts)
            if k == 1:
                old_pid = c.pid("worker", 1)
                old_sess = mts._tf_sess if monitored else None

                def retried(old_sess=old_sess):
                    return mts._tf_sess is not old_sess and chief.run(built[0]["count"]) == 1

                with caplog.at_level(logging.INFO, logger="tfmini"):
                    t1 = in_thread(train, 1)
                    _wait_for(lambda: chief.run(built[0]["count"]) == 1, "worker 1's gradient")
                    time.sleep(0.2)  # its step now waits in the ps's token dequeue
                    c.kill("worker", 1)
                    c.wait_restarted("worker", 1, old_pid)
                    if monitored:
                        # Recovered: a new session whose retried step applied its gradient
                        # once (the killed step's was rolled back before the error came).
                        _wait_for(retried, "the retried step")
                        time.sleep(0.2)
                        assert chief.run(built[0]["count"]) == 1
                        threads = [t1]
                    else:
                        t1.join(30)
                        assert len(errors) == 1 and errors[0][0] == 1
                        err = errors.pop()[1]
                        assert type(err) is tm.errors.UnavailableError
                        assert "Task /job:worker/task:1 is unavailable" in str(err)
                        assert "Traceback" not in str(err)
                        # The aborted step rolled back on the ps: its gradient is not counted.
                        assert chief.run(built[0]["count"]) == 0
                        # The old session's task restarted (AbortedError, as TensorFlow): the
                        # replica makes a new session and initialises its local step again.
                        with pytest.raises(tm.errors.AbortedError,
                                           match="/job:worker/task:1 restarted"):
                            start_replica(1)
                        sessions[1].close()
                        sessions[1] = tm.Session(c.target("worker", 1), graph=graphs[1])
                        start_replica(1)
                        threads = [in_thread(train, 1)]
                if monitored:
                    assert any("/job:worker/task:1 restarted since this session" in r.message
                               for r in caplog.records), "no recovery from AbortedError logged"
                threads.append(in_thread(train, 0))
            else:
                threads = [in_thread(train, t) for t in (1, 0)]
            for t in threads + [update]:
                t.join(30)
            assert not errors, errors
            assert chief.run(built[0]["gs"]) == k + 1
        want_w, want_b = _reference(xs, ys, rounds)
        got_w, got_b = chief.run([built[0]["w"], built[0]["b"]])
        np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_b, want_b, rtol=1e-5, atol=1e-6)
    finally:
        if mts is not None:
            mts.close()
        for s in sessions + [chief]:
            s.close()


def test_worker_killed_mid_round_is_dropped(own_cluster):
    # 1 ps + 3 workers, SyncReplicas aggregating 2 of 3 (a backup worker), no restarts.
    # Worker 2's task is killed mid-round: its gradient leaves the accumulator with its
    # aborted step and the task stays down (UnavailableError); the round completes with the
    # two survivors' gradients exactly.
    c = own_cluster(3, 1)  # max_restarts 0: a dead task is dropped
    rng = np.random.RandomState(5)
    xs = rng.randn(3, 4, 3).astype(np.float32)
    ys = rng.randn(3, 4, 1).astype(np.float32)
    graphs = [tm.Graph() for _ in range(3)]
    built = []
    for task, g in enumerate(graphs):
        with g.as_default():
            built.append(_replica(c.spec, task, xs, ys, replicas=(2, 3)))
    opts = tm.RunOptions(timeout_in_ms=20000)
    sessions = [tm.Session(c.target("worker", t), graph=graphs[t]) for t in range(3)]
    chief = tm.Session(c.target("worker", 0), graph=graphs[0])
    got: dict = {}
    threads = []

    def train(task):
        got[task] = _error_of(sessions[task].run, built[task]["train"], options=opts)

    try:
        sessions[0].run(built[0]["init"])
        sessions[0].run(built[0]["opt"].chief_init_op)
        for task in range(3):
            sessions[task].run(built[task]["local_init"])
            sessions[task].run(built[task]["opt"].local_step_init_op)
        update = threading.Thread(target=chief.run, args=(built[0]["update"], None, opts))
        update.start()
        threads.append(threading.Thread(target=train, args=(2,)))
        threads[-1].start()
        _wait_for(lambda: chief.run(built[0]["count"]) == 1, "worker 2's gradient")
        time.sleep(0.2)
        c.kill("worker", 2)
        threads[-1].join(30)
        assert isinstance(got[2], tm.errors.UnavailableError)
        assert "/job:worker/task:2" in str(got[2])
        assert chief.run(built[0]["count"]) == 0
        for task in (0, 1):
            threads.append(threading.Thread(target=train, args=(task,)))
            threads[-1].start()
        for t in threads + [update]:
            t.join(30)
        assert got[0] is None and got[1] is None
        assert chief.run(built[0]["gs"]) == 1
        want_w, want_b = _reference(xs[:2], ys[:2], 1)
        got_w, got_b = chief.run([built[0]["w"], built[0]["b"]])
        np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_b, want_b, rtol=1e-5, atol=1e-6)
        # Dropped: the task is not restarted.
        with pytest.raises(tm.errors.UnavailableError, match="/job:worker/task:2"):
            tm.Session(c.target("worker", 2), graph=graphs[2]).run(
                built[2]["local_init"], options=opts)
    finally:
        for s in sessions + [chief]:
            s.close()


# ----------------------------------------------------------------------------------------
# A ps killed and restored


def test_ps_killed_and_restored_from_the_last_checkpoint(own_cluster, tmp_path):
    # 1 ps + 1 worker; the chief's MonitoredTrainingSession checkpoints every 3 steps. The
    # ps task is killed by PID after step 5: a run in flight on it ends with UnavailableError
    # naming it; the chief's session recovers (Ray restarted the task empty), restores the
    # checkpoint of step 3 and reports the 2 updates lost; training goes on from there.
    c = own_cluster(1, 1, max_restarts={"ps": 1})
    ckpt = str(tmp_path / "ckpt")
    with tm.Graph().as_default():
        with tm.device(tm.train.replica_device_setter(cluster=c.spec)):
            w = tm.Variable(np.ones([2], np.float32), name="w")
            gs = tm.train.get_or_create_global_step()
            loss = tm.reduce_sum(tm.square(w))
            train = tm.train.GradientDescentOptimizer(LR).minimize(loss, global_step=gs)
        with tm.device("/job:ps/task:0"):  # the device setter leaves queues on the worker
            queue = tm.FIFOQueue(1, tm.float32, shapes=[], shared_name="never_filled")
            blocked = queue.dequeue()
        saver_hook = tm.train.CheckpointSaverHook(ckpt, save_steps=3)
        with tm.train.MonitoredTrainingSession(
                master=c.target("worker", 0), is_chief=True, checkpoint_dir=ckpt,
                chief_only_hooks=[saver_hook], save_checkpoint_secs=None,
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None, stop_grace_period_secs=0.5) as mts:
            for _ in range(5):
                mts.run(train)
            assert mts.run(gs) == 5
            path = tm.train.latest_checkpoint(ckpt)
            assert path.endswith("model.ckpt-3")
            saved_w = tm.train.load_checkpoint(path).get_tensor("w")
            np.testing.assert_allclose(saved_w, np.float32(1 - 2 * LR) ** 3, rtol=1e-6)

            # A plain session's run waiting on the ps when it dies: a clear error, at once.
            got: list = []
            ps_actor = c.cluster.actor("ps", 0)
            calls = ray.get(ps_actor.calls.remote())
            with tm.Session(c.target("worker", 0)) as plain:
                waiter = threading.Thread(target=lambda: got.append(_error_of(
                    plain.run, blocked, options=tm.RunOptions(timeout_in_ms=20000))))
                waiter.start()
                _wait_for(lambda: ray.get(ps_actor.calls.remote()) > calls, "the dequeue")
                time.sleep(0.1)
                old_pid = c.pid("ps", 0)
                start = time.monotonic()
                c.kill("ps", 0)
                waiter.join(20)
                assert time.monotonic() - start < 10
            assert isinstance(got[0], tm.errors.UnavailableError), got
            assert "/job:ps/task:0" in str(got[0]) and "Traceback" not in str(got[0])

            # The chief's session recovers: the variables are the checkpoint's.
            np.testing.assert_allclose(mts.run(w), saved_w, rtol=1e-6)
            assert c.pid("ps", 0) != old_pid
            assert saver_hook.recoveries == [CheckpointRecovery(5, 3, 2)]
            assert mts.run(gs) == 3
            for _ in range(2):
                mts.run(train)
            assert mts.run(gs) == 5
            np.testing.assert_allclose(mts.run(w), np.float32(1 - 2 * LR) ** 5, rtol=1e-5)
    tm.summary.FileWriterCache.clear()


def _error_of(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (returned to the caller's assertions)
        return e
    return None
