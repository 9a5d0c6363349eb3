"""The simulated TPU embedding on a local Ray cluster: its tables sharded over ps tasks.

One training step of ``tm.tpu.TPUEmbedding`` (one table of VOCAB x DIM, Adagrad, a ragged
feature of BATCH samples with IDS ids each, loss = sum of squared activations): an
``enqueue`` run then a ``[activations, train]`` run. Variants, alternated block by block in
this one process (load on the shared machine hits them alike), every figure a median:

* ``in-process``: the unsharded device in an in-process Session (the baseline);
* ``cluster, on the worker``: the unsharded device on the worker task
  (``tm.Session(worker.target)``, no ``cluster=``): the worker holds the whole table;
* ``cluster, 1 ps`` and ``cluster, 2 ps``: ``TPUEmbedding(..., cluster=)`` with the table
  sharded (MOD) over 1 or 2 ps tasks: each ps task gets one call per step carrying its
  lookup and its update (counted: the tasks' ``calls()``).

Run:  .venv/bin/python bench/bench_tpu_shards.py     (needs the dist extra)
      BENCH_TPU_VOCAB, BENCH_TPU_STEPS (per block, default 30), BENCH_TPU_REPEATS (3).
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import tfmini as tm  # noqa: E402
from tfmini.distribute.ray_support import kill_processes  # noqa: E402

VOCAB = int(os.environ.get("BENCH_TPU_VOCAB", "100000"))
DIM, BATCH, IDS = 16, 512, 4
STEPS = int(os.environ.get("BENCH_TPU_STEPS", "30"))
REPEATS = int(os.environ.get("BENCH_TPU_REPEATS", "3"))
OPTS = tm.RunOptions(timeout_in_ms=60000)


class Variant:
    """One graph and session of the training step, stepped in blocks."""

    def __init__(self, name, target, cluster):
        self.name, self.times = name, []
        self.graph = tm.Graph()
        with self.graph.as_default():
            rng = np.random.default_rng(0)
            init = rng.normal(size=(VOCAB, DIM)).astype(np.float32)
            table = tm.tpu.TableConfig(VOCAB, DIM, name="items",
                                       initializer=lambda shape, dtype=None: init)
            emb = tm.tpu.TPUEmbedding({"f": tm.tpu.FeatureConfig(table)},
                                      tm.tpu.Adagrad(0.05), batch_size=BATCH, cluster=cluster)
            self.splits = tm.placeholder(tm.int64, [BATCH + 1])
            self.ids = tm.placeholder(tm.int64, [None])
            self.enqueue = emb.enqueue({"f": tm.tpu.RaggedInput(self.splits, self.ids)})
            act = emb.dequeue()["f"]
            loss = tm.reduce_sum(tm.square(act))
            self.train = emb.apply_gradients({"f": tm.gradients(loss, act)[0]})
            self.act = act
            self.sess = tm.Session(target)
            self.sess.run(emb.initializer, options=OPTS)
        self.rng = np.random.default_rng(1)

    def step(self):
        ids = self.rng.integers(0, VOCAB, size=BATCH * IDS)
        splits = np.arange(0, BATCH * IDS + 1, IDS)
        feed = {self.splits: splits, self.ids: ids}
        self.sess.run(self.enqueue, feed, options=OPTS)
        self.sess.run([self.act, self.train], options=OPTS)

    def block(self, steps):
        for _ in range(steps):
            t = time.perf_counter()
            self.step()
            self.times.append(time.perf_counter() - t)


def main():
    import ray

    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"table {VOCAB} x {DIM} (Adagrad), {BATCH} samples x {IDS} ids per step")
    # A task holds one TPU embedding state: each variant gets tasks of its own.
    workers, ps = tm.test.create_local_cluster(3, 3)
    cluster = workers[0]._cluster
    tasks = [("worker", i) for i in range(3)] + [("ps", i) for i in range(3)]
    pids = [ray.get(cluster.actor(*t).pid.remote()) for t in tasks]
    addr = [s.target[len("grpc://"):] for s in ps]
    try:
        one_ps = tm.train.ClusterSpec({"ps": {0: addr[0]}})
        two_ps = tm.train.ClusterSpec({"ps": {1: addr[1], 2: addr[2]}})
        variants = [Variant("in-process", "", None),
                    Variant("cluster, on the worker", workers[0].target, None),
                    Variant("cluster, 1 ps", workers[1].target, one_ps),
                    Variant("cluster, 2 ps", workers[2].target, two_ps)]
        for v in variants:
            v.block(3)  # warm up: plans, parts sent to the tasks
            v.times.clear()
        calls = {}
        for _ in range(REPEATS):
            for v in variants:
                before = [ray.get(cluster.actor(*t).calls.remote()) for t in tasks]
                v.block(STEPS)
                after = [ray.get(cluster.actor(*t).calls.remote()) for t in tasks]
                calls[v.name] = [(a - b) / STEPS for a, b in zip(after, before)]
        base = statistics.median(variants[0].times)
        print(f"{'variant':<24} {'step ms':>8} {'x in-process':>13}  run_part calls per step "
              "(worker 0-2, ps 0-2)")
        for v in variants:
            med = statistics.median(v.times)
            print(f"{v.name:<24} {med * 1e3:8.2f} {med / base:13.1f}  "
                  + ", ".join(f"{c:g}" for c in calls[v.name]))
        for v in variants:
            v.sess.close()
    finally:
        cluster.shutdown()
        ray.shutdown()
        kill_processes(pids)  # every actor process ends, by its PID
    print("load average at the end {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
