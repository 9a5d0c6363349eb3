"""TensorFlow r1.15's DropStaleGradientOptimizer tests that run on a cluster
(tensorflow/contrib/opt/python/training/drop_stale_gradient_optimizer_test.py: ``_get_workers``
and the six tests through it), on the package's local Ray cluster (127.0.0.1 only).

As in TensorFlow's test, each worker builds its own graph (global step, ``v0`` = 0, ``v1`` = 1,
loss ``0 - v0 - v1`` so every gradient is -1, SGD with rate 1, two FIFOQueues shared by name
that order the workers) and runs it with its own ``Session(worker.target)``. The chief
computes its gradients after every other worker has and applies first; then the others apply
one by one, with staleness 1, 2, ... The assertions (global step, variables, stale counter)
are TensorFlow's.

One change: the graphs are built under ``tm.device("/job:ps/task:0")``. TensorFlow 1.15's
placer put ops without a device on the cluster's first device, ``/job:ps/replica:0/task:0``
(its graph_execution_state.cc gives the placer no default local device), and that is how
the workers' separate graphs share one set of variables and queues. TensorFlow 2.21, like
tfmini, places them on the session's own task (tests/distribute/test_default_task.py): there
each worker would get queues of its own and the chief's dequeue would wait forever. The
explicit device restores TF 1.15's placement.

TensorFlow starts a new cluster per test; here the tests share the package's cluster
(tests/distribute/conftest.py) and destroy their resources on the ps task afterwards, so
each test starts from nothing, as in TensorFlow. Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import threading

import pytest

import tfmini as tm
from tests.distribute.cluster_util import destroy_resources

pytest.importorskip("ray")

DropStale = tm.contrib.opt.DropStaleGradientOptimizer
RUN_OPTIONS = tm.RunOptions(timeout_in_ms=20_000)


def _build_worker(worker_id: int, num_workers: int, staleness: int):
    # One worker's graph, as _get_workers builds it (see the module doc for the device).
    with tm.device("/job:ps/task:0"):
        global_step = tm.train.create_global_step()
        tm.Variable(0.0, name="v0")
        tm.Variable(1.0, name="v1")
        compute_gradients_queue = tm.FIFOQueue(
            -1, global_step.dtype.base_dtype, shapes=(),
            name="compute_gradients_queue", shared_name="compute_gradients_queue")
        apply_gradients_queue = tm.FIFOQueue(
            -1, global_step.dtype.base_dtype, shapes=(),
            name="apply_gradients_queue", shared_name="apply_gradients_queue")
        var_0, var_1 = _variable("v0"), _variable("v1")

        # Gradients for loss on var_0 and var_1 will be 1.0 (-1.0 exactly: SGD adds 1).
        loss = 0 - var_0 - var_1
        sgd_opt = tm.train.GradientDescentOptimizer(1.0)
        stale_check_opt = DropStale(sgd_opt, staleness)

        # Compute gradients: the chief after all the others.
        if worker_id == 0:
            with tm.control_dependencies(
                    [compute_gradients_queue.dequeue_many(num_workers - 1)]):
                grad_and_vars = stale_check_opt.compute_gradients(loss)
        else:
            grad_and_vars = stale_check_opt.compute_gradients(loss)
            with tm.control_dependencies([t[0] for t in grad_and_vars]):
                worker_enqueue_op = compute_gradients_queue.enqueue(global_step)

        # Apply gradients: the chief first, then the others one at a time.
        if worker_id == 0:
            with tm.control_dependencies(
                    [stale_check_opt.apply_gradients(grad_and_vars, global_step)]):
                train_op = apply_gradients_queue.enqueue(global_step)
        else:
            with tm.control_dependencies([worker_enqueue_op]):
                with tm.control_dependencies([apply_gradients_queue.dequeue()]):
                    with tm.control_dependencies(
                            [stale_check_opt.apply_gradients(grad_and_vars, global_step)]):
                        train_op = apply_gradients_queue.enqueue(global_step)
    return train_op


def _variable(name: str):
    (var,) = [v for v in tm.global_variables() if v.op.name == name]
    return var


@pytest.fixture
def get_workers(ray_cluster):
    """``_get_workers(num_workers, staleness)``: the workers' sessions, graphs and train ops
    on the first ``num_workers`` worker tasks and ps task 0 of the shared cluster."""
    workers, _ = ray_cluster
    made = []

    def _get_workers(num_workers: int, staleness: int):
        sessions, graphs, train_ops = [], [], []
        for worker_id in range(num_workers):
            graph = tm.Graph()
            with graph.as_default():
                train_ops.append(_build_worker(worker_id, num_workers, staleness))
                sess = tm.Session(workers[worker_id].target)
            made.append((graph, workers[worker_id].target, sess))
            sessions.append(sess)
            graphs.append(graph)
        return sessions, graphs, train_ops

    yield _get_workers
    for _, _, sess in made:
        sess.close()
    if made:
        destroy_resources(made[0][0], made[0][1])


def _state(sessions, graphs):
    # The values TensorFlow's test reads: global step, v0, v1 and stale_counter.
    with graphs[0].as_default():
        tensors = [tm.train.get_global_step(graphs[0]), _variable("v0"), _variable("v1"),
                   _variable("stale_counter")]
    return [v.item() for v in sessions[0].run(tensors)]


def _initialise(sessions, graphs):
    with graphs[0].as_default():
        sessions[0].run(tm.global_variables_initializer())
    # Verify the initialized value.
    assert _state(sessions, graphs) == [0, 0.0, 1.0, 0.0]


def _run_all(sessions, train_ops):
    # TensorFlow's checkedThreads: every worker's single step at once; each must succeed.
    failures: list[BaseException] = []

    def run(i):
        try:
            sessions[i].run(train_ops[i], options=RUN_OPTIONS)
        except BaseException as e:  # noqa: BLE001  (reported by the assertion below)
            failures.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a worker's step did not end"
    assert failures == []


def test_1_worker(get_workers):
    sessions, graphs, train_ops = get_workers(1, 0)
    _initialise(sessions, graphs)
    sessions[0].run(train_ops[0], options=RUN_OPTIONS)
    # Verify the updated value after 1 step.
    assert _state(sessions, graphs) == [1, 0.0 + 1.0, 1.0 + 1.0, 0.0]


def test_1_worker_negative_staleness(get_workers):
    sessions, graphs, train_ops = get_workers(1, -1)
    _initialise(sessions, graphs)
    sessions[0].run(train_ops[0], options=RUN_OPTIONS)
    # Verify no updates because max staleness is negative.
    assert _state(sessions, graphs) == [0, 0.0, 1.0, 1.0]


def test_2_workers_staleness_0(get_workers):
    sessions, graphs, train_ops = get_workers(2, 0)
    _initialise(sessions, graphs)
    _run_all(sessions, train_ops)
    # With 2 workers and max staleness set to 0, only the chief worker updates v0 and v1.
    assert _state(sessions, graphs) == [1, 0.0 + 1.0, 1.0 + 1.0, 1.0]


def test_2_workers_staleness_1(get_workers):
    sessions, graphs, train_ops = get_workers(2, 1)
    _initialise(sessions, graphs)
    _run_all(sessions, train_ops)
    # With 2 workers and max staleness set to 1, both workers update v0 and v1.
    assert _state(sessions, graphs) == [2, 0.0 + 2.0, 1.0 + 2.0, 0.0]


def test_3_workers_staleness_0(get_workers):
    sessions, graphs, train_ops = get_workers(3, 0)
    _initialise(sessions, graphs)
    _run_all(sessions, train_ops)
    # With 3 workers and max staleness set to 0, only the chief worker updates v0 and v1.
    assert _state(sessions, graphs) == [1, 0.0 + 1.0, 1.0 + 1.0, 2.0]


def test_3_workers_staleness_1(get_workers):
    sessions, graphs, train_ops = get_workers(3, 1)
    _initialise(sessions, graphs)
    _run_all(sessions, train_ops)
    # With 3 workers and max staleness set to 1, the chief and one of the two other workers
    # update v0 and v1.
    assert _state(sessions, graphs) == [2, 0.0 + 2.0, 1.0 + 2.0, 1.0]
