"""Distributed session overhead: one SGD step of a small model, local vs on a Ray cluster.

Reports medians (ms per step) for the in-process Session and for tm.Session(worker.target)
with 1 ps task and 1, 2 or 4 workers stepping in turn from threads of this process (each
worker's session calls its own actor), and a bare Ray actor round trip for the per-call cost.
Run:  .venv/bin/python bench/bench_dist.py   (needs the dist extra; BENCH_DIST_WORKERS=1,2
chooses the worker counts)
"""

from __future__ import annotations

import os
import statistics
import threading
import time

import numpy as np

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import tfmini as tm  # noqa: E402

STEPS = 40
WORKER_COUNTS = tuple(int(n) for n in os.environ.get("BENCH_DIST_WORKERS", "1,2,4").split(","))


def build(spec, task, n=64):
    with tm.device(tm.train.replica_device_setter(cluster=spec,
                                                  worker_device=f"/job:worker/task:{task}")):
        w = tm.Variable(np.zeros((n, n), np.float32), name="w")
        x = tm.placeholder(tm.float32, [8, n], name="x")
        loss = tm.reduce_mean(tm.square(tm.matmul(x, w) - 1.0))
        gs = tm.train.get_or_create_global_step()
        train = tm.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    return x, train


def step_times(target, spec, task, n_steps=STEPS):
    with tm.Graph().as_default():
        x, train = build(spec, task)
        with tm.Session(target) as sess:
            sess.run(tm.global_variables_initializer())
            xv = np.ones((8, 64), np.float32)
            sess.run(train, {x: xv})
            times = []
            for _ in range(n_steps):
                t = time.perf_counter()
                sess.run(train, {x: xv})
                times.append(time.perf_counter() - t)
            return times


def main():
    import ray

    workers, ps = tm.test.create_local_cluster(4, 1)
    spec = workers[0]._cluster.cluster_spec
    local = statistics.median(step_times("", spec, 0)) * 1e3
    print(f"in-process Session: {local:.2f} ms/step")
    actor = workers[0]._cluster.actor("worker", 0)
    rt = []
    for _ in range(200):
        t = time.perf_counter()
        ray.get(actor.ping.remote())
        rt.append(time.perf_counter() - t)
    print(f"bare actor round trip: {statistics.median(rt) * 1e3:.2f} ms")
    for n in WORKER_COUNTS:
        results = [None] * n

        def run(i, out):
            out[i] = step_times(workers[i].target, spec, i)

        threads = [threading.Thread(target=run, args=(i, results)) for i in range(n)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        med = statistics.median([s for r in results for s in r]) * 1e3
        print(f"{n} worker(s): {med:.2f} ms/step per worker (median), "
              f"{n * STEPS / wall:.1f} steps/s in total")
    workers[0]._cluster.shutdown()


if __name__ == "__main__":
    main()
