"""Distributed training on a local Ray cluster: per-call costs, step latency, sync rounds/s.

Three parts, every figure a median, the compared variants alternated block by block in this
one process (load on the shared machine hits both alike):

1. **Per-call costs**: a bare actor round trip (``ping``), a 318 KB value pushed to a task
   (arguments over ~100 KB go through Ray's object store), and a one-task step (a session
   whose run is one part on one task).
2. **SGD step latency**, a 64x64 linear model with its variable on 1 ps and its gradient on
   1 worker: the in-process Session, then ``tm.Session(worker.target)`` with its parts
   sequenced (their ``_Recv`` ops wait inline in the compiled plan,
   tfmini/distribute/sequencing.py) against all parts in the dataflow executor (what every
   part holding a ``_Recv`` used before).
3. **Sync rounds/s**: ``SyncReplicasOptimizer`` (GradientDescent, ``replicas_to_aggregate =
   total_num_replicas = W``) training the MLP of TensorFlow's distributed MNIST example
   (784-100-10, ReLU, softmax cross entropy, batch 100 per replica held on the worker as a
   constant: 79,510 parameters, 318 KB) with W = 1, 2, 4 workers and 1 ps, each worker in its
   own graph and ``tm.Session(worker.target)`` (between-graph replication; worker 0 is the
   chief and runs the chief queue runner), against the single-process threaded version of
   the same training (one graph, one in-process Session, the replicas as threads, as
   tools/record_goldens_sync_replicas.py runs them). The replicas step in lockstep (a
   barrier after each step, so every round gets one gradient from each); rounds/s is the
   global step's increase over the block's wall time. Per-step overhead is
   a replica's median step time minus the compute: the median time of one plain SGD step of
   the same model (forward, backward, update, no synchronisation) in an in-process Session.
   The CPU time per round (from /proc) of the busiest ps task's process (its serialised
   work) and of all the run's processes together (ps, workers and this client: the threaded
   version's is this process's alone) is reported too: the inputs of the scaling model in
   docs/distributed.md.

Run:  .venv/bin/python bench/bench_dist.py     (needs the dist extra)
      .venv/bin/python bench/bench_dist.py --model   (prints the model's predictions only)
      BENCH_DIST_WORKERS=1,2 chooses the worker counts, BENCH_DIST_PS the ps tasks of the
      sync runs (default 1; the variables go round-robin over them), BENCH_DIST_STEPS the
      steps per replica per block (default 30), BENCH_DIST_REPEATS the blocks per variant
      (default 3).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time

import numpy as np

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# Closing the chief's session cancels its queue runner's takes; with 2 ps tasks the part
# whose error the client did not wait for is reported by Ray at exit: not a result.
os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")

import tfmini as tm  # noqa: E402
from tfmini.distribute import partition as partition_mod  # noqa: E402
from tfmini.distribute.ray_support import kill_processes  # noqa: E402

WORKER_COUNTS = tuple(int(n) for n in os.environ.get("BENCH_DIST_WORKERS", "1,2,4").split(","))
STEPS = int(os.environ.get("BENCH_DIST_STEPS", "30"))
NUM_PS = int(os.environ.get("BENCH_DIST_PS", "1"))
REPEATS = int(os.environ.get("BENCH_DIST_REPEATS", "3"))
TIMEOUT = tm.RunOptions(timeout_in_ms=60000)
BATCH, IN, HIDDEN, OUT = 100, 784, 100, 10


def med_ms(xs) -> float:
    return statistics.median(xs) * 1e3


def timed(fn, n) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- 1. per-call costs ---------------------------------------------------------------------
def per_call_costs(ray, cluster, spec):
    actor = cluster.actor("ps", 0)
    rt = timed(lambda: ray.get(actor.ping.remote()), 300)
    big = np.zeros(IN * HIDDEN + HIDDEN + HIDDEN * OUT + OUT, np.float32)

    def push():
        ray.get(actor.deliver.remote("bench-push", "k", big))
        ray.get(actor.abort_step.remote("bench-push", "done"))  # drops the value

    pushes = timed(push, 60)
    with tm.Graph().as_default():
        with tm.device("/job:ps/task:0"):
            v = tm.Variable(np.float32(1.0), name="bench_one_task")
            read = v.read_value() if hasattr(v, "read_value") else tm.identity(v)
        with tm.Session(workers_target(spec, "ps")) as sess:
            sess.run(v.initializer)
            one = timed(lambda: sess.run(read), 200)
    print(f"bare actor round trip (ping):          {med_ms(rt):.2f} ms")
    print(f"318 KB pushed to a task (+ an abort):  {med_ms(pushes):.2f} ms")
    print(f"one-task step (one part on the ps):    {med_ms(one):.2f} ms")
    return med_ms(rt)


def workers_target(spec, job, task=0):
    return "grpc://" + spec.task_address(job, task)


# -- 2. SGD step latency -------------------------------------------------------------------
def sgd_graph(spec, n=64):
    with tm.device(tm.train.replica_device_setter(cluster=spec,
                                                  worker_device="/job:worker/task:0")):
        w = tm.Variable(np.zeros((n, n), np.float32), name="sgd_w")
        x = tm.placeholder(tm.float32, [8, n], name="x")
        loss = tm.reduce_mean(tm.square(tm.matmul(x, w) - 1.0))
        train = tm.train.GradientDescentOptimizer(0.01).minimize(loss)
    return x, train


def sgd_latency(spec):
    xv = np.ones((8, 64), np.float32)
    g = tm.Graph()
    with g.as_default():
        x, train = sgd_graph(spec)
        init = tm.global_variables_initializer()
    local = tm.Session(graph=g)
    local.run(init)
    sessions = {}
    for mode in (True, False):  # the partition (and its sequencing) is made at the first run
        partition_mod.SEQUENCE_PARTS = mode
        s = sessions[mode] = tm.Session(workers_target(spec, "worker"), graph=g)
        s.run(init)
        s.run(train, {x: xv})
    partition_mod.SEQUENCE_PARTS = True
    res = {"local": [], True: [], False: []}
    for _ in range(REPEATS * 2):
        res["local"].append(med_ms(timed(lambda: local.run(train, {x: xv}), 100)))
        for mode in (True, False):
            res[mode].append(med_ms(timed(lambda s=sessions[mode]: s.run(train, {x: xv}), 60)))
    for s in [local, *sessions.values()]:
        s.close()
    seq, flow = statistics.median(res[True]), statistics.median(res[False])
    print(f"SGD step 64x64, in-process Session:    {statistics.median(res['local']):.3f} ms")
    print(f"  1 ps + 1 worker, parts sequenced:    {seq:.2f} ms")
    print(f"  1 ps + 1 worker, dataflow parts:     {flow:.2f} ms  "
          f"(sequenced/dataflow {seq / flow:.2f})")


# -- 3. sync rounds/s ----------------------------------------------------------------------
def mlp_values(seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(IN, HIDDEN) * 0.05).astype(np.float32), np.zeros(HIDDEN, np.float32),
            (rng.randn(HIDDEN, OUT) * 0.1).astype(np.float32), np.zeros(OUT, np.float32)]


def batch(i):
    rng = np.random.RandomState(100 + i)
    xs = rng.rand(BATCH, IN).astype(np.float32)
    ys = np.eye(OUT, dtype=np.float32)[rng.randint(0, OUT, BATCH)]
    return xs, ys


def mlp_loss(params, i):
    w1, b1, w2, b2 = params
    xs, ys = batch(i)
    hidden = tm.nn.relu(tm.matmul(tm.constant(xs), w1) + b1)
    logits = tm.matmul(hidden, w2) + b2
    return tm.reduce_mean(tm.nn.softmax_cross_entropy_with_logits_v2(
        labels=tm.constant(ys), logits=logits))


def mlp_params():
    return [tm.Variable(v, name=n) for v, n in zip(mlp_values(), ("w1", "b1", "w2", "b2"))]


def compute_time():
    """One plain SGD step of the MLP in an in-process Session (the compute of a step)."""
    with tm.Graph().as_default():
        loss = mlp_loss(mlp_params(), 0)
        train = tm.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            return med_ms(timed(lambda: sess.run(train), 100))


class SyncRun:
    """W replicas of the MLP under SyncReplicasOptimizer, stepped from threads of this
    process; ``sessions[i]``/``trains[i]`` run replica i, ``gs_read`` reads the global step."""

    def block(self, steps):
        times = [[] for _ in self.trains]
        g0 = self.gs_read()
        cpu0 = [cpu_seconds(p) for p in self.ps_pids]
        all0 = sum(cpu_seconds(p) for p in self.other_pids) + _own_cpu()

        barrier = threading.Barrier(len(self.trains))

        def replica(i):
            # In lockstep, one gradient per replica per round: free-running replicas could
            # hand in two gradients of one round (and a late one is dropped as stale), and
            # the block's last round would then wait for a gradient that never comes.
            sess, train = self.sessions[i], self.trains[i]
            for _ in range(steps):
                t = time.perf_counter()
                sess.run(train, options=TIMEOUT)
                times[i].append(time.perf_counter() - t)
                barrier.wait()

        threads = [threading.Thread(target=replica, args=(i,)) for i in range(len(self.trains))]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        rounds = self.gs_read() - g0
        # The busiest ps task's CPU time (its work is serialised by its GIL).
        cpu = max([cpu_seconds(p) - c for p, c in zip(self.ps_pids, cpu0)], default=0.0)
        cpu_all = sum(cpu_seconds(p) for p in self.other_pids) + _own_cpu() - all0
        return (rounds / wall, med_ms([s for r in times for s in r]), cpu / max(rounds, 1),
                cpu_all / max(rounds, 1))

    def warm_up(self):
        """A first round (its tokens are the initial ones, handed out before its update:
        wait for the update, as the tests do), then two more (plans built, parts sent)."""
        self.block(1)
        deadline = time.monotonic() + 30
        while self.gs_read() < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.block(2)

    def start_chief(self, chief_sess, chief_opt):
        chief_sess.run(chief_opt.chief_init_op)
        chief_sess.run(chief_opt.get_init_tokens_op())
        self.coord = tm.train.Coordinator()
        chief_opt.get_chief_queue_runner().create_threads(chief_sess, coord=self.coord,
                                                          daemon=True, start=True)

    def close(self):
        self.coord.request_stop()
        for s in set(self.sessions):
            s.close()  # cancels the chief queue runner's wait


class ThreadedSync(SyncRun):
    """The replicas as threads on one in-process Session over one graph."""

    def __init__(self, n):
        self.ps_pids = []
        self.other_pids = []
        g = tm.Graph()
        with g.as_default():
            params = mlp_params()
            gs = tm.Variable(np.int64(0), name="gs", trainable=False)
            opts, self.trains = [], []
            for i in range(n):
                opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.01),
                                                     n, n)
                self.trains.append(opt.minimize(mlp_loss(params, i), global_step=gs))
                opts.append(opt)
            init = [tm.global_variables_initializer(), tm.local_variables_initializer()]
        sess = tm.Session(graph=g)
        sess.run(init)
        with g.as_default():
            self.start_chief(sess, opts[0])
            for opt in opts[1:]:
                sess.run(opt.local_step_init_op)
        self.sessions = [sess] * n
        self.gs_read = lambda: int(sess.run(gs))


class ClusterSync(SyncRun):
    """Replica i in its own graph and ``tm.Session(worker i)``; variables on the ps task(s)."""

    def __init__(self, n, spec, ps_pids, tag, worker_pids=()):
        self.ps_pids = ps_pids
        self.other_pids = list(ps_pids) + list(worker_pids[:n])
        built = []
        self.sessions, self.trains = [], []
        for i in range(n):
            g = tm.Graph()
            with g.as_default(), tm.device(tm.train.replica_device_setter(
                    cluster=spec, worker_device=f"/job:worker/task:{i}")), tm.name_scope(tag):
                params = mlp_params()
                gs = tm.Variable(np.int64(0), name="gs", trainable=False)
                opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(0.01),
                                                     n, n)
                train = opt.minimize(mlp_loss(params, i), global_step=gs)
                init = tm.global_variables_initializer()
                local_init = tm.local_variables_initializer()
            built.append((g, gs, opt, init, local_init))
            self.sessions.append(tm.Session(workers_target(spec, "worker", i), graph=g))
            self.trains.append(train)
        g0, gs0, opt0, init0, _ = built[0]
        self.sessions[0].run(init0)
        for s, (_, _, _, _, local_init) in zip(self.sessions, built):
            s.run(local_init)
        with g0.as_default():
            self.start_chief(self.sessions[0], opt0)
        for s, (_, _, opt, _, _) in zip(self.sessions[1:], built[1:]):
            s.run(opt.local_step_init_op)
        self.gs_read = lambda: int(self.sessions[0].run(gs0))


def sync_rounds(spec, ps_pids, worker_pids, compute_ms):
    print(f"\nsync MLP 784-100-10, batch {BATCH}/replica, {len(ps_pids)} ps; compute "
          f"(in-process SGD step): {compute_ms:.2f} ms")
    print("W  version    rounds/s  step ms  overhead ms  ps CPU ms/round  all CPU ms/round")
    rows = []
    for n in WORKER_COUNTS:
        runs = {"threads": ThreadedSync(n), "cluster": ClusterSync(n, spec, ps_pids, f"sync{n}",
                                                            worker_pids)}
        for run in runs.values():
            run.warm_up()
        res = {k: [] for k in runs}
        for _ in range(REPEATS):
            for k, run in runs.items():
                res[k].append(run.block(STEPS))
        for run in runs.values():
            run.close()
        for k in runs:
            rate = statistics.median(r[0] for r in res[k])
            step = statistics.median(r[1] for r in res[k])
            cpu = statistics.median(r[2] for r in res[k]) * 1e3
            cpu_all = statistics.median(r[3] for r in res[k]) * 1e3
            cpu_text = f"{cpu:.2f}" if k == "cluster" else "-"
            print(f"{n}  {k:9s}  {rate:8.1f}  {step:7.2f}  {step - compute_ms:11.2f}  "
                  f"{cpu_text:>15s}  {cpu_all:16.2f}")
            rows.append((n, k, rate, step, cpu, cpu_all))
    return rows


# -- the scaling model of docs/distributed.md ---------------------------------------------
# Per-call costs measured by this script on the project's machine (2026-11-25); see the
# docs for where each comes from and what is assumed.
RT_MS = 0.6             # actor round trip (ping)
PART_MS = 0.3           # a part's call beyond the round trip (one-task step - ping)
SER_MS_PER_MB = 1.25    # per transfer, inline (a 1 KB -> 1 MB push: 0.71 -> 1.98 ms)
STORE_MS = 1.3          # more per transfer over the inline limit (the object store)
INLINE_MB = 1.0         # tfmini.distribute.ray_support.INLINE_BYTES
CHIEF_MS = 1.7          # per round on the global step's ps (the chief's queue runner part)
CALL_MS = 2.3           # per worker per round on each ps shard (its calls, without bytes)
NIC_MB_PER_S = 1250.0   # assumed: 10 Gb/s per machine
COMPUTE_MS_PER_MB = 0.57 / 0.318  # assumed: compute grows with the model (the MLP's ratio)


def _transfer_ms(mb):
    return SER_MS_PER_MB * mb + (STORE_MS if mb > INLINE_MB else 0.0)


def model_round_ms(workers, shards, model_mb, compute_ms=None):
    """Predicted time of one sync round: the critical path (3 round trips, 4 part calls,
    the compute, the variables in and the gradients out) plus the ps shard's serialised
    work (the chief's part, then each worker's calls and bytes), or the shard's network
    time if that is longer."""
    compute = COMPUTE_MS_PER_MB * model_mb if compute_ms is None else compute_ms
    shard = model_mb / shards
    moved = max(2 * _transfer_ms(shard), 2 * model_mb / NIC_MB_PER_S * 1e3)
    latency = 3 * RT_MS + 4 * PART_MS + compute + moved
    serial = CHIEF_MS + workers * (CALL_MS + 2 * _transfer_ms(shard))
    wire = 2 * workers * shard / NIC_MB_PER_S * 1e3
    return max(latency + serial, wire)


def print_model():
    print("predicted sync rounds/s, MLP (0.318 MB, compute 0.57 ms), 1 ps, one machine:",
          ", ".join(f"W={w}: {1e3 / model_round_ms(w, 1, 0.318, 0.57):.0f}"
                    for w in (1, 2, 4)))
    for mb in (0.318, 4.0, 40.0):
        print(f"\nmodel of {mb} MB, one task per machine: rounds/s by workers x ps shards")
        print("W \\ P " + "".join(f"{p:>8d}" for p in (1, 2, 4, 8)))
        for w in (8, 16, 32, 64):
            print(f"{w:6d} " + "".join(f"{1e3 / model_round_ms(w, p, mb):8.1f}"
                                       for p in (1, 2, 4, 8)))


def main():
    import ray

    print(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
          "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    workers, _ = tm.test.create_local_cluster(max(4, *WORKER_COUNTS), NUM_PS)
    cluster = workers[0]._cluster
    spec = cluster.cluster_spec
    pids = [ray.get(cluster.actor(*t).pid.remote()) for t in
            [("ps", i) for i in range(NUM_PS)] + [("worker", i) for i in range(len(workers))]]
    try:
        per_call_costs(ray, cluster, spec)
        sgd_latency(spec)
        sync_rounds(spec, pids[:NUM_PS], pids[NUM_PS:], compute_time())
    finally:
        cluster.shutdown()
        ray.shutdown()
        kill_processes(pids)  # every actor process ends, by its PID
    print("load average at the end {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--model"]:
        print_model()
    else:
        main()
