"""One process per task (tfmini/distribute/launch.py): TensorFlow's distributed MNIST program
(examples/dist_mnist.py) launched as three command lines, 1 ps + 2 workers, each creating its
own ``tm.train.Server`` from ``--job_name``/``--task_index``, as TensorFlow 1 programs run;
with its default MonitoredTrainingSession and with ``--use_supervisor`` (TensorFlow's own
Supervisor code).

The processes find each other through the ClusterSpec alone: the ps task (the cluster's head
task) starts a Ray instance of its own on 127.0.0.1 at its ps port, the workers join it. That
instance is not the package's shared one (tests/distribute/conftest.py), which this test
leaves alone. Every process the test starts, Ray's own (GCS, raylet, agents, actor workers)
included, is found by the unique ``RAY_TMPDIR`` in its environment and ended by its PID.
Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import tfmini as tm
from tfmini.distribute import launch

pytest.importorskip("ray")

from tests.helpers import wait_for  # noqa: E402

_EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "dist_mnist.py"


# ----------------------------------------------------------------------------------------
# The scheme: where the head is, who starts it


def test_head_task_is_the_first_task_of_the_first_job_by_name():
    spec = tm.train.ClusterSpec({"worker": ["localhost:2223", "localhost:2224"],
                                 "ps": {1: "localhost:2230", 3: "localhost:2231"}})
    assert launch.head_task(spec) == ("ps", 1)
    assert launch.head_address(spec) == ("localhost", 2230)
    spec = tm.train.ClusterSpec({"worker": ["[::1]:2223"], "chief": ["10.0.0.5:2222"]})
    assert launch.head_task(spec) == ("chief", 0)
    assert launch.head_address(spec) == ("10.0.0.5", 2222)
    assert launch.head_address(tm.train.ClusterSpec({"worker": ["[::1]:2223"]})) == ("::1", 2223)


def test_head_address_must_be_host_and_port():
    spec = tm.train.ClusterSpec({"ps": ["localhost"], "worker": ["localhost:2223"]})
    with pytest.raises(ValueError, match=r"/job:ps/task:0 must be host:port.*'localhost'"):
        launch.head_address(spec)


@pytest.mark.parametrize("host, loopback", [
    ("localhost", True), ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True),
    ("10.0.0.5", False), ("example.com", False)])
def test_loopback_hosts(host, loopback):
    assert launch.is_loopback(host) == loopback


def _listening_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def _unused_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_task_waits_for_the_head_bounded(monkeypatch):
    # No process of the head task: the wait ends with a clear error, before Ray is touched.
    monkeypatch.setenv("TFMINI_RAY_WAIT_S", "0.5")
    start = time.monotonic()
    with pytest.raises(tm.errors.UnavailableError,
                       match=r"No Ray head at 127\.0\.0\.1:\d+ after 0\.5 s: the process of "
                             r"/job:ps/task:0 starts it"):
        launch._join_head(None, "127.0.0.1", _unused_port(), ("ps", 0))
    assert time.monotonic() - start < 5


def test_the_head_task_refuses_a_port_in_use():
    with _listening_socket() as s:
        port = s.getsockname()[1]
        with pytest.raises(tm.errors.UnknownError,
                           match=rf"Could not start the Ray head of /job:ps/task:0 at "
                                 rf"127\.0\.0\.1:{port}: the port is in use"):
            launch._start_head(None, "127.0.0.1", port, ("ps", 0))


def test_the_shared_cluster_stays_on_loopback(ray_cluster):
    # Ray resolves _node_ip_address="127.0.0.1" to the machine's network address unless
    # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 was set before it was imported (conftest.py).
    ray = pytest.importorskip("ray")
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}


def test_a_session_waits_for_a_task_to_start(ray_cluster, monkeypatch):
    # One process per task: a task's actor may appear after a session needs it. The lookup
    # waits for it, bounded by TFMINI_TASK_WAIT_S. (A job of its own: actors are named by
    # job and task in the shared Ray instance.)
    import threading

    monkeypatch.setenv("TFMINI_TASK_WAIT_S", "0.5")
    spec = tm.train.ClusterSpec({"late": [f"127.0.0.1:{_unused_port()}"],
                                 "never": [f"127.0.0.1:{_unused_port()}"]})
    cluster = tm.distribute.RayCluster(spec, start=False)
    other = None
    try:
        start = time.monotonic()
        with pytest.raises(tm.errors.UnavailableError,
                           match=r"/job:never/task:0 did not start within 0\.5 s"):
            cluster.actor("never", 0)
        assert time.monotonic() - start < 5
        monkeypatch.setenv("TFMINI_TASK_WAIT_S", "30")
        other = tm.distribute.RayCluster(spec, start=False)  # another process's handle
        starter = threading.Timer(0.3, cluster.start_task, args=("late", 0))
        starter.start()
        ray = pytest.importorskip("ray")
        late = other.actor("late", 0)
        assert ray.get(late.ping.remote()) == ("late", 0)
        starter.join()
        pid = ray.get(late.pid.remote())
    finally:
        cluster.shutdown()
        if other is not None:
            other.shutdown()
    try:  # the actor's process ends, by its PID
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ----------------------------------------------------------------------------------------
# Three processes


def _pids_with(marker: str) -> set[int]:
    # The processes whose environment holds ``marker`` (Ray passes its environment on to
    # every process it starts).
    found = set()
    needle = marker.encode()
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.add(int(entry.name))
        except OSError:  # gone, or not ours
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a killed process whose parent has not reaped it yet is a zombie: it has ended
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except OSError:
        return False


def _wait_for_line(path: pathlib.Path, pattern: str, proc: subprocess.Popen, timeout: float):
    def seen():
        text = path.read_text() if path.exists() else ""
        if proc.poll() is not None and not re.search(pattern, text, re.M):
            raise AssertionError(f"{path.name} ended (rc {proc.returncode}) before "
                                 f"{pattern!r}:\n{text}")
        return re.search(pattern, text, re.M)

    return wait_for(seen, timeout=timeout, interval=0.1,
                    message=lambda: f"{pattern!r} in {path.name}:\n"
                                    f"{path.read_text() if path.exists() else ''}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes in /proc")
@pytest.mark.parametrize("session", ["monitored", "supervisor"])
def test_dist_mnist_as_one_process_per_task(tmp_path, session):
    if not os.access("/proc/self/environ", os.R_OK):
        pytest.skip("cannot read process environments in /proc")
    # A short Ray temp dir (its socket paths must stay under 107 characters), unique: every
    # process of this test's Ray instance carries it in its environment.
    ray_tmp = tempfile.mkdtemp(prefix="tmproc", dir="/tmp")
    marker = f"RAY_TMPDIR={ray_tmp}"
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "RAY_TMPDIR": ray_tmp, "TMPDIR": str(tmp_path),
           "RAY_USAGE_STATS_ENABLED": "0", "PYTHONUNBUFFERED": "1"}
    for name in ("TFMINI_RAY_ADDRESS", "RAY_ADDRESS", "RAY_AUTH_MODE"):
        env.pop(name, None)
    ps_port, w0_port, w1_port = _unused_port(), _unused_port(), _unused_port()
    train_steps = 30
    # --num_init_tokens=0: the first round waits for a gradient of each worker, so the chief
    # cannot finish alone before the second worker's process is up (TF's default, as many
    # initial tokens as replicas to aggregate, lets the chief's two steps fill a round).
    common = [f"--ps_hosts=localhost:{ps_port}",
              f"--worker_hosts=localhost:{w0_port},localhost:{w1_port}",
              "--sync_replicas", "--num_init_tokens=0", f"--train_steps={train_steps}",
              "--batch_size=50",
              "--hidden_units=32", "--learning_rate=0.01", "--run_timeout_ms=30000",
              *(["--use_supervisor"] if session == "supervisor" else [])]
    procs: dict[str, subprocess.Popen] = {}
    logs: dict[str, pathlib.Path] = {}

    def launch_task(name, job, index):
        logs[name] = tmp_path / f"{name}.log"
        with open(logs[name], "w") as out:
            procs[name] = subprocess.Popen(
                [sys.executable, str(_EXAMPLE), f"--job_name={job}", f"--task_index={index}",
                 *common], stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True)

    def left() -> set[int]:
        # This test's processes still running: its three, and every process of its Ray
        # instance (found by the marker, so a PID reused since by another process is not
        # taken for ours).
        return _pids_with(marker) | {p.pid for p in procs.values() if p.poll() is None}

    try:
        launch_task("ps", "ps", 0)
        launch_task("worker0", "worker", 0)
        if session == "monitored":
            # A non-chief worker polls for the chief's initialisation every 30 s
            # (TensorFlow's MonitoredTrainingSession): start it once the chief has
            # initialised the model.
            _wait_for_line(logs["worker0"], r"^Worker 0: Session initialization complete",
                           procs["worker0"], timeout=90)
        # With TensorFlow's Supervisor (recovery_wait_secs=1) all start at once, as
        # TensorFlow's program is started.
        launch_task("worker1", "worker", 1)
        for name in ("worker0", "worker1"):
            try:
                procs[name].wait(timeout=90)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{name} did not end:\n{logs[name].read_text()}")
            assert procs[name].returncode == 0, logs[name].read_text()
        out = {name: logs[name].read_text() for name in logs}
        assert procs["ps"].poll() is None, out["ps"]  # the ps serves until it is ended
        ray_pids = _pids_with(marker) - {procs["ps"].pid}
        # The Ray instance was the ps's own: its GCS listened at the ps task's address, on
        # 127.0.0.1.
        gcs = [_cmdline(p) for p in ray_pids if b"gcs_server" in _cmdline(p)]
        assert len(gcs) == 1 and f"--gcs_server_port={ps_port} ".encode() in gcs[0]
        assert b"--node-ip-address=127.0.0.1 " in gcs[0]
        assert any(b"raylet" in _cmdline(p) for p in ray_pids)
        # The ps ends (SIGTERM, as a cluster manager ends it) and takes its Ray with it.
        os.kill(procs["ps"].pid, signal.SIGTERM)
        procs["ps"].wait(timeout=30)
        wait_for(lambda: not left(), timeout=30, interval=0.2,
                 message=lambda: f"the test's Ray processes to end: {sorted(left())}")
    finally:
        for pid in left():  # whatever is left (a failed run), ended by its PID
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for p in procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(ray_tmp, ignore_errors=True)

    # Both workers trained on the ps's variables from the first round on.
    steps = {n: [int(g) for g in re.findall(r"training step \d+ done \(global step: (\d+)\)",
                                            out[n])] for n in ("worker0", "worker1")}
    for name in ("worker0", "worker1"):
        assert steps[name] and steps[name] == sorted(steps[name]), out[name]
        assert steps[name][0] <= 1 and len(steps[name]) >= train_steps // 2, out[name]
        final = re.search(r"After (\d+) training step\(s\), validation cross entropy = (\S+)",
                          out[name])
        assert final and int(final.group(1)) >= train_steps, out[name]
    first, last = map(float, re.search(r"Worker 0: \d+ steps, cross entropy of the first 3: "
                                       r"(\S+), of the last 3: (\S+)", out["worker0"]).groups())
    assert last < 0.8 * first, out["worker0"]
    # One model, on the ps: both workers read the same validation cross entropy, far under
    # chance (500 held-out images: 500 ln 10).
    # Equal up to float32 rounding: each process's products may split the sums differently
    # (its BLAS thread count follows the load), so the last digit may differ.
    xents = [float(re.search(r"validation cross entropy = (\S+)", out[n]).group(1))
             for n in ("worker0", "worker1")]
    np.testing.assert_allclose(xents[0], xents[1], rtol=1e-5)
    assert max(xents) < 0.1 * 500 * 2.302585


def _cmdline(pid: int) -> bytes:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""
