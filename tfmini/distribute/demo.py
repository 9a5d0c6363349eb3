"""``tfmini dist-demo``: between-graph training of a linear model on a local Ray cluster.

Every task (``--workers`` workers, ``--ps`` ps tasks) is a Ray actor process on 127.0.0.1;
each worker has its own graph and Session on its task's target, as TF 1 programs do.

* ``sync``: ``SyncReplicasOptimizer`` aggregating every worker's gradient per step, the chief
  and the workers made ready by ``MonitoredTrainingSession`` (the chief initialises, the
  others wait for it); the workers step in lockstep.
* ``async``: ``DropStaleGradientOptimizer``: each worker steps on its own; a gradient more
  than ``--staleness`` global steps old when it is applied is dropped.

It prints the loss curve (the workers' mean loss per step), the gradients accepted and
dropped, and steps per second; then ends the cluster, the Ray instance it started and every
actor process (by PID).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import numpy as np

# Each run's deadline: a step that hangs fails instead of blocking the demo.
STEP_TIMEOUT_MS = 30000
FEATURES = 4


def _data(workers: int, batch: int = 32) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(workers, batch, FEATURES)).astype(np.float32)
    true_w = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    ys = (xs @ true_w + 0.3 + 0.01 * rng.normal(size=(workers, batch, 1))).astype(np.float32)
    return xs, ys


def _linear(tm: Any, x: np.ndarray, y: np.ndarray) -> tuple[Any, Any, Any]:
    w = tm.Variable(np.zeros([FEATURES, 1], np.float32), name="w")
    b = tm.Variable(np.zeros([1], np.float32), name="b")
    loss = tm.reduce_mean(tm.square(tm.matmul(x, w) + b - y), name="loss")
    return w, b, loss


def _sync(tm: Any, workers: list, spec: Any, steps: int, lr: float) -> dict:
    n = len(workers)
    xs, ys = _data(n)
    built, sessions = [], []
    try:
        for task in range(n):
            with tm.Graph().as_default():
                setter = tm.train.replica_device_setter(
                    cluster=spec, worker_device=f"/job:worker/task:{task}")
                with tm.device(setter):
                    _, _, loss = _linear(tm, xs[task], ys[task])
                    gs = tm.train.get_or_create_global_step()
                    opt = tm.train.SyncReplicasOptimizer(
                        tm.train.GradientDescentOptimizer(lr), n, n)
                    train = opt.minimize(loss, global_step=gs)
                hook = opt.make_session_run_hook(is_chief=task == 0)
                built.append((loss, gs, train))
                # The chief (task 0) first: it initialises what the others wait for.
                sessions.append(tm.train.MonitoredTrainingSession(
                    master=workers[task].target, is_chief=task == 0, hooks=[hook],
                    stop_grace_period_secs=1.0, max_wait_secs=60))
        losses = np.zeros([steps, n], np.float32)
        errs: list = []

        def step(k: int, task: int) -> None:
            try:
                loss, _, train = built[task]
                losses[k, task] = sessions[task].run(
                    [loss, train], options=tm.RunOptions(timeout_in_ms=STEP_TIMEOUT_MS))[0]
            except Exception as e:  # noqa: BLE001  (re-raised below)
                errs.append(e)

        start = time.monotonic()
        for k in range(steps):
            threads = [threading.Thread(target=step, args=(k, t)) for t in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errs:
                raise errs[0]
            if k == 0:
                # The first round's workers took the initial tokens: its update follows.
                deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
                while sessions[0].run(built[0][1]) < 1 and time.monotonic() < deadline:
                    time.sleep(0.01)
        elapsed = time.monotonic() - start
        applied = int(sessions[0].run(built[0][1]))
    finally:
        for s in sessions:
            s.close()
        tm.summary.FileWriterCache.clear()
    # Each applied step aggregated one gradient per worker; the last round's gradients are
    # still in the accumulators (applied by the chief's next take, which close cancels).
    return {"loss": losses.mean(axis=1), "attempted": steps * n, "accepted": applied * n,
            "dropped": 0, "pending": steps * n - applied * n, "applied_steps": applied,
            "elapsed": elapsed}


def _async(tm: Any, workers: list, spec: Any, steps: int, lr: float, staleness: int) -> dict:
    n = len(workers)
    xs, ys = _data(n)
    built, sessions = [], []
    try:
        for task in range(n):
            g = tm.Graph()
            with g.as_default():
                # The model, the global step and the optimizer's check-and-apply on ps 0: an
                # accepted update runs there as one function, atomically.
                with tm.device("/job:ps/task:0"):
                    w, b, loss = _linear(tm, xs[task], ys[task])
                    gs = tm.train.get_or_create_global_step()
                setter = tm.train.replica_device_setter(
                    cluster=spec, worker_device=f"/job:worker/task:{task}")
                with tm.device(setter):
                    loss = tm.identity(loss)
                    opt = tm.contrib.opt.DropStaleGradientOptimizer(
                        tm.train.GradientDescentOptimizer(lr), staleness=staleness)
                    train = opt.minimize(loss, global_step=gs)
                counter, = [v for v in tm.global_variables() if v.op.name == "stale_counter"]
                init = tm.global_variables_initializer() if task == 0 else None
            sessions.append(tm.Session(workers[task].target, graph=g))
            built.append((loss, gs, counter, train))
            if init is not None:
                sessions[0].run(init)
        losses = np.zeros([steps, n], np.float32)
        errs: list = []

        def work(task: int) -> None:
            loss, _, _, train = built[task]
            try:
                for k in range(steps):
                    losses[k, task] = sessions[task].run(
                        [loss, train], options=tm.RunOptions(timeout_in_ms=STEP_TIMEOUT_MS))[0]
            except Exception as e:  # noqa: BLE001  (re-raised below)
                errs.append(e)

        start = time.monotonic()
        threads = [threading.Thread(target=work, args=(t,)) for t in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        if errs:
            raise errs[0]
        applied = int(sessions[0].run(built[0][1]))
        dropped = int(sessions[0].run(built[0][2]))
    finally:
        for s in sessions:
            s.close()
    return {"loss": losses.mean(axis=1), "attempted": steps * n, "accepted": applied,
            "dropped": dropped, "pending": 0, "applied_steps": applied, "elapsed": elapsed}


def dist_demo(workers: int = 4, ps: int = 2, mode: str = "sync", staleness: int = 2,
              steps: int = 40, lr: float = 0.05, out: Any = sys.stdout) -> dict:
    """Trains on a local Ray cluster and prints the run (see the module docstring).

    Returns:
        ``loss`` (mean loss per step), ``attempted``, ``accepted``, ``dropped`` and
        ``pending`` gradients, ``applied_steps`` and ``elapsed`` seconds.

    Raises:
        ValueError: a count below 1 or an unknown mode.
        ImportError: Ray is not installed.
    """
    if workers < 1 or ps < 1 or steps < 1:
        raise ValueError(f"dist-demo needs --workers, --ps and --steps of at least 1, got "
                         f"{workers}, {ps} and {steps}")
    if mode not in ("sync", "async"):
        raise ValueError(f"dist-demo --mode must be sync or async, got {mode!r}")
    import tfmini as tm
    from tfmini.distribute.ray_support import import_ray, keep_on_loopback, kill_processes

    keep_on_loopback()

    ray = import_ray()
    started = not ray.is_initialized()
    if started:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        # Kept on the loopback interface; a short temp path (Ray's socket paths are limited).
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1",
                 log_to_driver=False, configure_logging=False,
                 _temp_dir=f"/tmp/tmdemo{os.getpid()}")
    pids: list[int] = []
    cluster = None
    try:
        ws, pss = tm.test.create_local_cluster(workers, ps)
        cluster = ws[0]._cluster
        pids = [ray.get(cluster.actor(s._job, s._task).pid.remote()) for s in ws + pss]
        print(f"tfmini dist-demo: {workers} workers + {ps} ps on 127.0.0.1 (Ray actor "
              f"processes {pids}), mode {mode}" + (f", staleness {staleness}"
                                                   if mode == "async" else ""), file=out)
        spec = cluster.cluster_spec
        if mode == "sync":
            result = _sync(tm, ws, spec, steps, lr)
        else:
            result = _async(tm, ws, spec, steps, lr, staleness)
    finally:
        if cluster is not None:
            cluster.shutdown()
        if started:
            ray.shutdown()
        kill_processes(pids)  # every actor process ends, by its PID
    every = max(1, steps // 10)
    print("step  mean loss", file=out)
    for k in list(range(0, steps, every)) + ([steps - 1] if (steps - 1) % every else []):
        print(f"{k + 1:4d}  {result['loss'][k]:.6f}", file=out)
    print(f"gradients: {result['attempted']} computed, {result['accepted']} accepted, "
          f"{result['dropped']} dropped" + (f", {result['pending']} aggregated but not yet "
                                            "applied" if result["pending"] else ""), file=out)
    rate = steps * workers / result["elapsed"] if result["elapsed"] > 0 else float("inf")
    print(f"global steps applied: {result['applied_steps']}; {rate:.1f} worker steps/s "
          f"({result['elapsed']:.2f} s)", file=out)
    return result
