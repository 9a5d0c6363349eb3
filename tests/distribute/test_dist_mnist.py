"""TensorFlow's distributed MNIST program (examples/dist_mnist.py) on the package's local Ray
cluster (127.0.0.1 only): 1 ps + 2 workers, sync replicas on, between-graph replication.

Run twice: with ``MonitoredTrainingSession`` (the example's default) and with
``--use_supervisor``, TensorFlow's own ``Supervisor`` code path.
The ps and worker tasks are the shared cluster's actor processes (ended by PID in
tests/distribute/conftest.py); the two worker programs run as two client threads here, each
with ``--existing_servers`` pointing at its task, as TensorFlow's program does. The test
destroys the program's variables on those tasks afterwards: its int32 ``global_step`` must
not meet the int64 one other modules create on the same ps task.
Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import importlib.util
import pathlib
import threading
import types

import numpy as np
import pytest

import tfmini as tm
from tests.distribute.cluster_util import destroy_resources, sub_cluster
from tfmini.train import monitored_session

ray = pytest.importorskip("ray")

_EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "dist_mnist.py"


@pytest.fixture(scope="module")
def example():
    # The program defines its flags on tm.flags.FLAGS at import: load it once, and take
    # them out again afterwards so other tests see the flags they had.
    before = set(tm.flags.FLAGS)
    spec = importlib.util.spec_from_file_location("dist_mnist_example", _EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    for name in set(tm.flags.FLAGS) - before:
        del tm.flags.FLAGS._flags[name]


def _flags(example, argv):
    # One worker's flags, parsed by the program's own FLAGS, then frozen: the two worker
    # threads must not share one mutable FLAGS object.
    flags = example.FLAGS
    flags.unparse_flags()
    flags(["dist_mnist.py", *argv])
    values = types.SimpleNamespace(**flags.flag_values_dict())
    flags.unparse_flags()
    return values


class _QuickPollSessionManager(monitored_session.SessionManager):
    # A non-chief worker polls for the chief's initialisation every recovery_wait_secs
    # (30 s in TensorFlow's and tfmini's MonitoredTrainingSession): poll every 0.2 s so the
    # second worker joins the training within the test's time.
    def __init__(self, *args, recovery_wait_secs=30, **kwargs):
        super().__init__(*args, recovery_wait_secs=0.2, **kwargs)


def _train_two_workers(ray_cluster, example, extra_flags):
    workers, ps = ray_cluster
    spec = sub_cluster(workers[:2], ps[:1])
    hosts = spec.as_dict()
    train_steps = 20
    common = ["--existing_servers", "--sync_replicas", f"--train_steps={train_steps}",
              "--batch_size=50", "--hidden_units=32", "--learning_rate=0.01",
              f"--ps_hosts={','.join(hosts['ps'])}",
              f"--worker_hosts={','.join(hosts['worker'])}", "--run_timeout_ms=20000",
              *extra_flags]
    flag_sets = [_flags(example, [*common, "--job_name=worker", f"--task_index={t}"])
                 for t in range(2)]
    assert [f.task_index for f in flag_sets] == [0, 1]
    records, errors, graphs = [None, None], [], [tm.Graph(), tm.Graph()]

    def worker(task):
        try:
            with graphs[task].as_default():
                records[task] = example.train(flag_sets[task])
        except Exception as e:  # noqa: BLE001  (reported by the assertion below)
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        tm.summary.FileWriterCache.clear()  # the chief's summary hooks' writer thread
        for task in range(2):
            destroy_resources(graphs[task], workers[task].target)
    assert not any(t.is_alive() for t in threads), "a worker program did not end"
    assert not errors, errors
    _check_training(example, records, train_steps)


def _check_training(example, records, train_steps):
    for rec in records:
        steps = rec["global_steps"]
        # The global step advances (one update per round of 2 aggregated gradients) and
        # never goes back; the run ends once it reaches --train_steps.
        assert steps == sorted(steps) and steps[-1] > steps[0]
        assert rec["final_global_step"] >= train_steps
        assert np.isfinite(rec["losses"]).all()
    # Both workers trained: each took steps while the global step moved on.
    assert len(records[1]["losses"]) >= 2
    chief = records[0]
    # Training lowers the loss: the last steps' cross entropy is well under the first's.
    first, last = np.mean(chief["losses"][:3]), np.mean(chief["losses"][-3:])
    assert last < 0.8 * first, chief["losses"]
    # The trained model separates the held-out images far better than chance, whose summed
    # cross entropy is n * ln(10).
    chance = example.SyntheticMnist().validation_images.shape[0] * np.log(10.0)
    # One model, on the ps: both workers read the same parameters. Not bit for bit: each
    # worker's task computes the products in its own process, whose BLAS pool may run 1 or
    # 2 threads at that moment, and OpenBLAS rounds the two differently (a 1000x784 by
    # 784x32 product differs in the 7th digit; one run here: 0.05389116 against
    # 0.05389104). Two separate models would differ far more.
    assert records[1]["validation_xent"] == pytest.approx(chief["validation_xent"], rel=1e-5)
    assert chief["validation_xent"] < 0.1 * chance


def test_dist_mnist_trains_with_sync_replicas(ray_cluster, example, monkeypatch):
    monkeypatch.setattr(monitored_session, "SessionManager", _QuickPollSessionManager)
    _train_two_workers(ray_cluster, example, [])


def test_dist_mnist_trains_with_supervisor_as_tensorflows_program(ray_cluster, example):
    # TensorFlow's own session code: Supervisor(ready_for_local_init_op=...,
    # recovery_wait_secs=1), the chief's sync init op and chief queue runner, a step loop
    # that ends at --train_steps. The non-chief waits for the chief in its Supervisor,
    # polling every second; no initial tokens make the first round wait for it (else the
    # chief may finish all 20 steps alone before the non-chief's first poll, which leaves
    # the non-chief waiting for a round that no chief queue runner will apply, in
    # TensorFlow's program as here).
    _train_two_workers(ray_cluster, example, ["--use_supervisor", "--num_init_tokens=0"])
