"""Sequenced parts (tfmini/distribute/sequencing.py): which parts of a partitioned step run
in order with their _Recv ops waiting inline, in what order, and that such a part runs in the
compiled plan. Everything here runs in this process (no Ray): the parts are joined by a
direct delivery between two task servers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm
from tfmini.distribute import partition as partition_mod
from tfmini.distribute.partition import feed_name, partition
from tfmini.distribute.task_server import TaskServer

SPEC = tm.train.ClusterSpec({"worker": ["w:1"], "ps": ["p:1"]})
WORKER, PS = ("worker", 0), ("ps", 0)


def _sgd():
    with tm.device(tm.train.replica_device_setter(cluster=SPEC,
                                                  worker_device="/job:worker/task:0")):
        w = tm.Variable(np.zeros((3, 2), np.float32), name="w")
        b = tm.Variable(np.zeros((2,), np.float32), name="b")
        x = tm.placeholder(tm.float32, [4, 3], name="x")
        loss = tm.reduce_mean(tm.square(tm.matmul(x, w) + b - 1.0))
        train = tm.train.GradientDescentOptimizer(0.5).minimize(loss)
    return (w, b), x, loss, train


def _parts(outputs, feeds, targets):
    return {p.task: p for p in partition(outputs, feeds, targets, SPEC, WORKER)}


def _ops(part):
    return [n["op"] for n in part.graph_def["node"]]


def _position(part, pred):
    return [i for i, n in enumerate(part.graph_def["node"]) if pred(n)]


def test_sgd_parts_run_in_order_sends_before_the_waits_they_feed():
    with tm.Graph().as_default():
        _, x, loss, train = _sgd()
        parts = _parts([loss], (x,), [train])
    ps, worker = parts[PS], parts[WORKER]
    assert ps.sequential and worker.sequential
    # The ps sends the variable's value before it waits for the gradient; the worker waits
    # for the value before it sends the gradient computed from it.
    assert max(_position(ps, lambda n: n["op"] == "_Send")) < min(
        _position(ps, lambda n: n["op"] == "_Recv"))
    assert max(_position(worker, lambda n: n["op"] == "_Recv")) < min(
        _position(worker, lambda n: n["op"] == "_Send"))


def test_a_constant_from_another_task_is_copied_not_sent():
    # The learning rate is a Const built on the worker and read by the ps's update.
    with tm.Graph().as_default():
        _, x, loss, train = _sgd()
        parts = _parts([loss], (x,), [train])
    ps, worker = parts[PS], parts[WORKER]
    # Only the two gradients go to the ps.
    assert _ops(ps).count("_Recv") == 2 and _ops(worker).count("_Send") == 2
    copies = [n for n in ps.graph_def["node"] if n["name"].startswith("tm_const/")]
    assert [n["op"] for n in copies] == ["Const"]
    assert copies[0]["name"] == "tm_const/GradientDescent/learning_rate"


def _queue_graph():
    # The worker doubles its feed; the ps enqueues the result (and may dequeue it).
    with tm.device("/job:ps/task:0"):
        q = tm.FIFOQueue(4, tm.float32, shapes=[[2]])
    with tm.device("/job:worker/task:0"):
        x = tm.placeholder(tm.float32, [2])
        doubled = x * 2.0
    with tm.device("/job:ps/task:0"):
        enq = q.enqueue(doubled)
        deq = q.dequeue()
    return x, enq, deq


def test_one_other_blocking_op_waits_inline_after_the_ops_it_does_not_feed():
    with tm.Graph().as_default():
        x, enq, _ = _queue_graph()
        parts = _parts([], (x,), [enq])
    ps = parts[PS]
    assert ps.sequential and ps.inline_waits == ("QueueEnqueueV2", "_Recv")
    order = _ops(ps)
    assert order.index("_Recv") < order.index("QueueEnqueueV2")
    # The worker part holds no wait at all (compiled, its sends held to its end).
    assert _ops(parts[WORKER]).count("_Recv") == 0 and parts[WORKER].sequential
    assert parts[WORKER].inline_waits == ()


def test_several_other_blocking_ops_keep_the_dataflow_executor():
    # A step that enqueues and dequeues on the ps: run in order, the dequeue could come first
    # and wait for ever on an empty queue; the dataflow executor runs both at once.
    with tm.Graph().as_default():
        x, enq, deq = _queue_graph()
        parts = _parts([deq], (x,), [enq])
    assert not parts[PS].sequential and parts[WORKER].sequential


def test_a_sequenced_part_with_an_enqueue_runs_its_steps():
    with tm.Graph().as_default():
        x, enq, deq = _queue_graph()
        put = _parts([], (x,), [enq])
        take = _parts([deq], (), [])
    servers, _ = _servers()
    for i, v in enumerate(([1.0, 2.0], [3.0, 5.0])):
        _run_step(servers, put, {x: np.array(v, np.float32)}, f"put{i}")
    got = [_run_step(servers, take, {}, f"take{i}")[PS][0] for i in range(2)]
    np.testing.assert_array_equal(got, [[2.0, 4.0], [6.0, 10.0]])


def test_sync_replicas_worker_part_waits_for_its_token_after_sending_its_gradients():
    # Both parts are sequenced: the ps dequeues the token inline once the gradients are in
    # its accumulators; the worker's token _Recv comes after the gradient sends.
    with tm.Graph().as_default():
        with tm.device(tm.train.replica_device_setter(cluster=SPEC,
                                                      worker_device="/job:worker/task:0")):
            w = tm.Variable(np.zeros([3, 1], np.float32), name="w")
            gs = tm.Variable(np.int64(0), name="gs", trainable=False)
            loss = tm.reduce_mean(tm.square(tm.matmul(np.ones([2, 3], np.float32), w)))
            opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.1), 1, 1)
            train = opt.minimize(loss, global_step=gs)
        parts = _parts([], (), [train.op])
    ps, worker = parts[PS], parts[WORKER]
    assert ps.sequential and worker.sequential
    order = _ops(ps)
    assert order.index("QueueDequeueV2") > max(
        i for i, op in enumerate(order) if op == "ResourceAccumulatorApplyGradient")
    recvs = _position(worker, lambda n: n["op"] == "_Recv")
    sends = _position(worker, lambda n: n["op"] == "_Send")
    assert len(recvs) == 2 and min(sends) < max(recvs)  # the token comes last
    assert max(sends) < max(recvs)


def test_switched_off_no_part_is_sequenced(monkeypatch):
    monkeypatch.setattr(partition_mod, "SEQUENCE_PARTS", False)
    with tm.Graph().as_default():
        _, x, loss, train = _sgd()
        parts = _parts([loss], (x,), [train])
    assert not any(p.sequential for p in parts.values())


class _Direct:
    """A peer's ``deliver_all`` called in this process (what Ray does between actors)."""

    def __init__(self, server):
        self.server = server
        self.calls = 0

    def remote(self, step_id, items):
        self.calls += 1
        self.server.deliver_all(step_id, items)


def _servers():
    servers = {WORKER: TaskServer(*WORKER), PS: TaskServer(*PS)}
    peers = {}
    for s in servers.values():
        for task, other in servers.items():
            peers[(s.job, s.task), task] = s.rendezvous._peers[task] = _Direct(other)
    return servers, peers


def _run_step(servers, parts, feeds, step_id):
    out, failures = {}, []

    def run(part):
        try:
            out[part.task] = servers[part.task].run_part(
                "client", part.key, part.graph_def,
                {feed_name(t) + ":0": feeds[t] for t in part.feeds},
                [t.name for t in part.fetches], part.targets, 10000, step_id,
                part.inline_waits if part.sequential else None)
        except Exception as e:  # pragma: no cover - reported below
            failures.append(e)

    threads = [threading.Thread(target=run, args=(p,)) for p in parts.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not failures, failures
    return out


@pytest.mark.parametrize("sequenced", [True, False])
def test_sequenced_parts_train_as_the_local_session(monkeypatch, sequenced):
    monkeypatch.setattr(partition_mod, "SEQUENCE_PARTS", sequenced)
    rng = np.random.RandomState(3)
    batches = [rng.randn(4, 3).astype(np.float32) for _ in range(4)]
    with tm.Graph().as_default():
        variables, x, loss, train = _sgd()
        init = tm.variables_initializer(list(variables))
        with tm.Session() as sess:
            sess.run(init)
            want = [sess.run([loss, train], {x: xv})[0] for xv in batches]
            want_vars = sess.run(list(variables))
        init_parts = _parts([], (), [init])
        parts = _parts([loss], (x,), [train])
        read = _parts([v.read_value() for v in variables], (), [])
    servers, peers = _servers()
    _run_step(servers, init_parts, {}, "init")
    before = {k: p.calls for k, p in peers.items()}
    got = [_run_step(servers, parts, {x: xv}, f"s{i}")[WORKER][0]
           for i, xv in enumerate(batches)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    after = {k: p.calls for k, p in peers.items()}
    out = _run_step(servers, read, {}, "read")
    (holder,) = [t for t, p in read.items() if p.fetches]
    for v, want_v in zip(out[holder], want_vars, strict=True):
        np.testing.assert_allclose(v, want_v, rtol=1e-6)
    # A sequenced part runs its compiled plan (no blocking step left), and its two values
    # for the other task go in one call per step (the dataflow part: one call per value).
    train_plans = [plan for (_, key), (_, sess, _) in servers[PS]._parts.items()
                   if key == parts[PS].key for plan, _ in sess._pinned.values()]
    assert [p.has_blocking for p in train_plans] == [not sequenced]
    per_step = 1 if sequenced else 2
    assert after[PS, WORKER] - before[PS, WORKER] == per_step * len(batches)
    assert after[WORKER, PS] - before[WORKER, PS] == per_step * len(batches)
    assert all(s.pending_values() == 0 for s in servers.values())
