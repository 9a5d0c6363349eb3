"""Performance harness (issue 17): tfmini against direct NumPy and, optionally, TensorFlow.

Every workload is written once against a TF1-style module (``tm`` or ``tf.compat.v1``), so
both engines build the same graph. Each workload runs in a fresh process:

* the tfmini process also times the *floor*: the same work written directly in NumPy, in
  the same process, in blocks of steps alternating with blocks of tfmini's (load on the
  shared machine affects both alike, and each engine runs its steps back to back, as a
  training loop does and as TensorFlow's process runs them);
* with ``TF_PY`` set to a Python that has TensorFlow (``TF_PY=/tmp/tfenv/bin/python``),
  TensorFlow's side runs in its own fresh process, alternating with tfmini's, round by
  round; the table then shows tfmini/TF ratios.

Figures are medians over rounds (each round's figure is itself a median of many steps); the
spread is the range over rounds.

Run:  python bench/perf_harness.py [--rounds 3] [--only mlp128,fbn] [--json out.json]
      TF_PY=/tmp/tfenv/bin/python python bench/perf_harness.py
      python bench/perf_harness.py --rss 10000     # RSS of the MLP loop over 10,000 steps
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# -- engines ----------------------------------------------------------------------------
def load_engine(name: str):
    """The TF1-style module of an engine: ``tfmini`` or TensorFlow's ``compat.v1``."""
    if name == "tfmini":
        import tfmini as tm

        return tm
    import tensorflow as tf  # only in the TF_PY process

    v1 = tf.compat.v1
    v1.disable_eager_execution()
    return v1


def _median_ms(fn, reps: int, warm: int = 3) -> float:
    for _ in range(warm):
        fn()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e3


# How long the rows that run several threads at once warm up first. OpenBLAS's idle
# helper thread spins for 2^28 TSC cycles (THREAD_TIMEOUT in its driver/others/
# blas_server.c; about 0.1 s here) after its last product before it sleeps, so right after
# a lone run's two-thread products a crowd of one-thread runs shares the two cores with
# that spinning thread (and the new threads fault in their first pages): the 4-thread MLP
# row's 80 steps measured 1.68-1.72 ms a step after the usual 3 warm steps a thread and
# 1.33-1.43 ms after 40 (once 1.75, on a loaded moment; 2026-12-06, Zen 5). The rows
# measure throughput in steady state, so both engines warm up this long.
_THREADED_WARM_S = 0.3


def _warm_for(fn, seconds: float = _THREADED_WARM_S) -> None:
    """Calls ``fn()`` until ``seconds`` have passed (at least 3 times)."""
    end = time.perf_counter() + seconds
    calls = 0
    while calls < 3 or time.perf_counter() < end:
        fn()
        calls += 1


# Steps per block of one callable in _interleaved_ms. Alternating step by step let each
# engine's step evict the other's working set from the caches: tfmini's MLP step (batch
# 128, Adam) measured 2.29 ms between floor steps and 1.81 ms in blocks of 10, its convnet
# step 8.6 and 7.8 ms (2026-11-25 21:07 UTC, load 0.9-1.0), while TensorFlow's process
# runs its steps back to back.
_BLOCK = 10


def _interleaved_ms(fns: list, reps: int, warm: int = 3) -> list[float]:
    """Medians (ms) of several callables' steps, timed in alternating blocks of ``_BLOCK``
    steps each (at least ``reps`` steps of each)."""
    for _ in range(warm):
        for fn in fns:
            fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(-(-reps // _BLOCK)):
        for i, fn in enumerate(fns):
            for _ in range(_BLOCK):
                t0 = time.perf_counter()
                fn()
                samples[i].append(time.perf_counter() - t0)
    return [statistics.median(s) * 1e3 for s in samples]


def _threaded_ms(work, threads: int, per_thread: int) -> float:
    """Runs ``work()`` ``per_thread`` times in each of ``threads`` threads; ms per call in
    total throughput terms (wall time / all calls)."""
    barrier = threading.Barrier(threads + 1)

    def loop():
        barrier.wait()
        for _ in range(per_thread):
            work()

    ts = [threading.Thread(target=loop) for _ in range(threads)]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return (time.perf_counter() - t0) * 1e3 / (threads * per_thread)


# -- the NumPy floors -------------------------------------------------------------------
def _softmax_xent_grad(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    loss = np.mean(np.log(s[:, 0]) - z[np.arange(n), labels])
    d = e / s
    d[np.arange(n), labels] -= 1
    d /= n
    return loss, d


def mlp_grads_numpy(params, x, y):
    """Gradients of the 3-layer ReLU MLP's mean softmax cross-entropy, directly in NumPy."""
    w1, b1, w2, b2, w3, b3 = params
    a1 = x @ w1
    a1 += b1
    h1 = np.maximum(a1, 0, out=a1)
    a2 = h1 @ w2
    a2 += b2
    h2 = np.maximum(a2, 0, out=a2)
    logits = h2 @ w3
    logits += b3
    _, d3 = _softmax_xent_grad(logits, y)
    g3, gb3 = h2.T @ d3, d3.sum(0)
    d2 = d3 @ w3.T
    d2 *= h2 > 0
    g2, gb2 = h1.T @ d2, d2.sum(0)
    d1 = d2 @ w2.T
    d1 *= h1 > 0
    g1, gb1 = x.T @ d1, d1.sum(0)
    return [g1, gb1, g2, gb2, g3, gb3]


class NumpyAdam:
    """Adam as TF1's AdamOptimizer applies it, in place."""

    def __init__(self, params, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        self.p, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def apply(self, grads):
        self.t += 1
        lr = self.lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        for p, m, v, g in zip(self.p, self.m, self.v, grads):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * (g * g)
            p -= lr * m / (np.sqrt(v) + self.eps)


# -- workloads --------------------------------------------------------------------------
MLP_SIZES = (784, 512, 512, 10)


def _mlp_init(seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        out.append((rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32))
        out.append(np.zeros(b, np.float32))
    return out


def _mlp_graph(tf, init, optimizer):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, MLP_SIZES[0]], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        params = [tf.Variable(v, name=f"p{i}") for i, v in enumerate(init)]
        h = x
        for i in range(3):
            h = tf.matmul(h, params[2 * i]) + params[2 * i + 1]
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                             logits=h))
        train = optimizer(tf).minimize(loss) if optimizer else None
        init_op = tf.global_variables_initializer()
    return g, x, y, params, loss, train, init_op


def _mlp_data(batch, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.random((batch, MLP_SIZES[0]), dtype=np.float32),
            rng.integers(0, 10, batch).astype(np.int64))


def wl_mlp(tf, engine, reps, batch):
    init = _mlp_init()
    g, x, y, _, loss, train, init_op = _mlp_graph(
        tf, init, lambda t: t.train.AdamOptimizer(1e-3))
    xs, ys = _mlp_data(batch)
    sess = tf.Session(graph=g)
    sess.run(init_op)

    def step():
        sess.run(train, {x: xs, y: ys})

    fns = [step]
    if engine == "tfmini":
        params = [v.copy() for v in init]
        adam = NumpyAdam(params)
        fns.append(lambda: adam.apply(mlp_grads_numpy(params, xs, ys)))
    res = _interleaved_ms(fns, reps)
    return {f"MLP 784-512-512-10 Adam, batch {batch} (ms/step)": res}


def wl_mlp128(tf, engine, reps):
    return wl_mlp(tf, engine, reps, 128)


def wl_mlp1024(tf, engine, reps):
    return wl_mlp(tf, engine, max(reps // 3, 5), 1024)


def wl_mlp_threads(tf, engine, reps):
    init = _mlp_init()
    g, x, y, _, loss, train, init_op = _mlp_graph(
        tf, init, lambda t: t.train.GradientDescentOptimizer(1e-3))
    xs, ys = _mlp_data(128)
    sess = tf.Session(graph=g)
    sess.run(init_op)

    def step():
        sess.run(train, {x: xs, y: ys})

    per = max(reps, 10)
    out = {}
    params = [v.copy() for v in init]

    def np_step():
        for p, gr in zip(params, mlp_grads_numpy(params, xs, ys)):
            p -= 1e-3 * gr

    for threads in (1, 4):
        _warm_for(lambda n=threads: _threaded_ms(step, n, 3))
        t_eng = _threaded_ms(step, threads, per)
        row = [t_eng]
        if engine == "tfmini":
            _warm_for(lambda n=threads: _threaded_ms(np_step, n, 3))
            row.append(_threaded_ms(np_step, threads, per))
        out[f"MLP SGD batch 128 from {threads} thread(s) (ms/step, throughput)"] = row
    return out


def wl_latency(tf, engine, reps):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4], name="x")
        y = tf.add(x, x)
    sess = tf.Session(graph=g)
    a = np.arange(4, dtype=np.float32)
    fns = [lambda: sess.run(y, {x: a})]
    if engine == "tfmini":
        fns.append(lambda: np.add(a, a))
    res = _interleaved_ms(fns, reps * 50, warm=50)
    return {"2-op run latency (ms)": res}


def wl_logreg(tf, engine, reps):
    rng = np.random.default_rng(0)
    xs = rng.random((32, 784), dtype=np.float32)
    ys = rng.integers(0, 10, 32).astype(np.int64)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int64, [None])
        w = tf.Variable(np.zeros((784, 10), np.float32))
        b = tf.Variable(np.zeros(10, np.float32))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=tf.matmul(x, w) + b))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init_op = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init_op)
    fns = [lambda: sess.run(train, {x: xs, y: ys})]
    if engine == "tfmini":
        w_, b_ = np.zeros((784, 10), np.float32), np.zeros(10, np.float32)

        def np_step():
            _, d = _softmax_xent_grad(xs @ w_ + b_, ys)
            np.subtract(w_, 0.1 * (xs.T @ d), out=w_)
            np.subtract(b_, 0.1 * d.sum(0), out=b_)

        fns.append(np_step)
    res = _interleaved_ms(fns, reps * 20, warm=20)
    return {"logistic regression SGD step, batch 32 (ms)": res}


def wl_accumulator(tf, engine, reps):
    shape = (256, 256)
    g = tf.Graph()
    with g.as_default():
        acc = tf.ConditionalAccumulator(tf.float32, shape=shape, name="acc")
        grad = tf.placeholder(tf.float32, shape, name="grad")
        apply_op = acc.apply_grad(grad, local_step=0)
    sess = tf.Session(graph=g)
    gr = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    per = reps * 30
    row = [_threaded_ms(lambda: sess.run(apply_op, {grad: gr}), 4, per)]
    if engine == "tfmini":
        total = np.zeros(shape, np.float32)
        lock = threading.Lock()

        def work():
            nonlocal total
            with lock:
                total += gr

        row.append(_threaded_ms(work, 4, per))
    return {"accumulator apply, 256x256, 4 threads (ms/apply, throughput)": row}


def _chain(tf, x, n):
    h = x
    for i in range(n):
        h = tf.add(h, x) if i % 2 == 0 else tf.multiply(h, x)
    return h


def wl_build(tf, engine, reps):
    out = {}
    samples_b, samples_g, samples_r = [], [], []
    for _ in range(3):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [4], name="x")
            t0 = time.perf_counter()
            h = _chain(tf, x, 10_000)
            samples_b.append(time.perf_counter() - t0)
        sess = tf.Session(graph=g)
        t0 = time.perf_counter()
        sess.run(h, {x: np.ones(4, np.float32)})
        samples_r.append(time.perf_counter() - t0)
        sess.close()
        g2 = tf.Graph()
        with g2.as_default():
            x = tf.placeholder(tf.float32, [4], name="x")
            h = x
            for i in range(2000):
                h = tf.tanh(h) if i % 2 == 0 else tf.multiply(h, x)
            t0 = time.perf_counter()
            tf.gradients(h, [x])
            samples_g.append(time.perf_counter() - t0)
    out["build 10k ops (ms)"] = [statistics.median(samples_b) * 1e3]
    out["gradients of 2k ops (ms)"] = [statistics.median(samples_g) * 1e3]
    out["first run of 10k ops (ms)"] = [statistics.median(samples_r) * 1e3]
    return out


def wl_sync(tf, engine, reps):
    """One synchronous round: 4 workers compute MLP gradients (batch 32 each) and apply them
    to one accumulator per variable; the chief takes the 4-way averages and applies SGD."""
    workers, lr = 4, 1e-3
    init = _mlp_init()
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, MLP_SIZES[0]], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        step_ph = tf.placeholder(tf.int64, [], name="local_step")
        params = [tf.Variable(v, name=f"p{i}") for i, v in enumerate(init)]
        h = x
        for i in range(3):
            h = tf.matmul(h, params[2 * i]) + params[2 * i + 1]
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                             logits=h))
        grads = tf.gradients(loss, params)
        accs = [tf.ConditionalAccumulator(tf.float32, shape=v.shape, name=f"acc{i}")
                for i, v in enumerate(init)]
        apply = tf.group(*[a.apply_grad(gr, local_step=step_ph) for a, gr in zip(accs, grads)])
        global_step = tf.Variable(np.int64(0), name="global_step")
        updates = [p.assign_sub(lr * a.take_grad(workers)) for p, a in zip(params, accs)]
        with tf.control_dependencies(updates):
            chief = global_step.assign_add(1)
        init_op = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init_op)
    shards = [_mlp_data(32, seed=10 + i) for i in range(workers)]
    start = threading.Barrier(workers + 1)
    current = [0]
    stop = [False]

    def worker(i):
        xs, ys = shards[i]
        while True:
            start.wait()
            if stop[0]:
                return
            sess.run(apply, {x: xs, y: ys, step_ph: current[0]})

    ts = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
    for t in ts:
        t.start()

    def round_():
        start.wait()
        current[0] = int(sess.run(chief))

    _warm_for(round_)
    eng = _median_ms(round_, max(reps, 10), warm=0)
    stop[0] = True
    start.wait()
    row = [eng]
    if engine == "tfmini":
        params_np = [v.copy() for v in init]

        def np_round():
            gs = [mlp_grads_numpy(params_np, *shards[i]) for i in range(workers)]
            for j, p in enumerate(params_np):
                p -= lr * (sum(gg[j] for gg in gs) / workers)

        _warm_for(np_round)
        row.append(_median_ms(np_round, max(reps, 10), warm=0))
    return {"sync-replica round, 4 workers + chief (ms/round)": row}


def _fbn_numpy(x, scale, dy, eps=1e-3):
    c = x.shape[-1]
    x2 = x.reshape(-1, c)
    n = x2.shape[0]
    mean = x2.mean(0)
    xc = x2 - mean
    var = np.einsum("ij,ij->j", xc, xc) / n
    inv = 1.0 / np.sqrt(var + eps)
    y = xc * (inv * scale)
    dy2 = dy.reshape(-1, c)
    db = dy2.sum(0)
    dg = np.einsum("ij,ij->j", dy2, xc) * inv
    dx = (dy2 - db / n - xc * (inv * dg / n)) * (scale * inv)
    return y, dx, dg, db


def wl_fbn(tf, engine, reps):
    shape = (32, 56, 56, 64)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal(shape, dtype=np.float32)
    dys = rng.standard_normal(shape, dtype=np.float32)
    sc = rng.random(64, dtype=np.float32) + 0.5
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape)
        dy = tf.placeholder(tf.float32, shape)
        scale = tf.constant(sc)
        offset = tf.constant(np.zeros(64, np.float32))
        yb, _, _ = tf.nn.fused_batch_norm(x, scale, offset, is_training=True)
        grads = tf.gradients(yb, [x, scale, offset], grad_ys=dy)
    sess = tf.Session(graph=g)
    fns = [lambda: sess.run([yb] + grads, {x: xs, dy: dys})]
    if engine == "tfmini":
        fns.append(lambda: _fbn_numpy(xs, sc, dys))
    res = _interleaved_ms(fns, max(reps, 10))
    return {"FusedBatchNormV3 + GradV3, 32x56x56x64 (ms)": res}


VOCAB, DIM, IDS = 1_000_000, 64, 4096


def _zipf(n, seed=0):
    rng = np.random.default_rng(seed)
    return [np.minimum(rng.zipf(1.2, size=IDS) - 1, VOCAB - 1).astype(np.int32)
            for _ in range(n)]


def _embedding_numpy():
    table = np.zeros((VOCAB, DIM), np.float32)
    acc = np.full((VOCAB, DIM), 0.1, np.float32)

    def step(ids, grads):
        acts = table[ids]
        rows, inverse = np.unique(ids, return_inverse=True)
        gsum = np.zeros((len(rows), DIM), np.float32)
        np.add.at(gsum, inverse, grads)
        a = acc[rows] + gsum * gsum
        acc[rows] = a
        table[rows] -= np.float32(0.01) * gsum / np.sqrt(a)
        return acts

    return step


def wl_embedding(tf, engine, reps):
    batches = _zipf(64)
    grads = np.random.default_rng(1).standard_normal((IDS, DIM), dtype=np.float32)
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable(tf.zeros([VOCAB, DIM]), name="table")
        ids = tf.placeholder(tf.int32, [IDS])
        gfed = tf.placeholder(tf.float32, [IDS, DIM])
        emb = tf.nn.embedding_lookup(var, ids)
        train = tf.train.AdagradOptimizer(0.01).minimize(tf.reduce_sum(emb * gfed))
        init_op = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init_op)
    it = [0]

    def step():
        it[0] += 1
        sess.run([emb, train], {ids: batches[it[0] % 64], gfed: grads})

    fns = [step]
    if engine == "tfmini":
        np_step = _embedding_numpy()
        jt = [0]

        def np_run():
            jt[0] += 1
            np_step(batches[jt[0] % 64], grads)

        fns.append(np_run)
    res = _interleaved_ms(fns, max(reps * 3, 30))
    return {"embedding lookup + sparse Adagrad, 4096 Zipf ids, 1M x 64 (ms)": res}


def wl_tpu_embedding(tf, engine, reps):
    """tfmini: the simulated-TPU Enqueue+Recv+Send step; TF: its variable path (the same
    lookup + sparse Adagrad through a variable), the target's comparison."""
    name = "TPU embedding step vs TF's variable path (ms)"
    if engine != "tfmini":
        return {name: wl_embedding(tf, engine, reps).popitem()[1]}
    sys.path.insert(0, HERE)
    import bench_tpu_embedding as bte

    batches = _zipf(64)
    grads = np.random.default_rng(1).standard_normal((IDS, DIM), dtype=np.float32)
    sess, step = bte.build_session(np.zeros((VOCAB, DIM), np.float32), 1)
    np_step = _embedding_numpy()
    it = [0, 0]

    def run():
        it[0] += 1
        step(batches[it[0] % 64], grads)

    def np_run():
        it[1] += 1
        np_step(batches[it[1] % 64], grads)

    return {name: _interleaved_ms([run, np_run], max(reps * 3, 30))}


def wl_convnet(tf, engine, reps):
    rng = np.random.RandomState(7)
    xs = rng.rand(32, 28, 28, 1).astype(np.float32)
    ys = rng.randint(0, 10, size=32).astype(np.int64)
    init = [(rng.normal(size=s) * 0.1).astype(np.float32)
            for s in ((5, 5, 1, 32), (32,), (5, 5, 32, 64), (64,), (7 * 7 * 64, 10), (10,))]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.int64, [None])
        w1, b1, w2, b2, w3, b3 = (tf.Variable(v) for v in init)
        h1 = tf.nn.relu(tf.nn.conv2d(x, w1, strides=[1, 1, 1, 1], padding="SAME") + b1)
        p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        h2 = tf.nn.relu(tf.nn.conv2d(p1, w2, strides=[1, 1, 1, 1], padding="SAME") + b2)
        p2 = tf.nn.max_pool(h2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        logits = tf.matmul(tf.reshape(p2, [-1, 7 * 7 * 64]), w3) + b3
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init_op = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init_op)
    fns = [lambda: sess.run(train, {x: xs, y: ys})]
    if engine == "tfmini":
        sys.path.insert(0, HERE)
        import bench_conv

        params = [v.copy() for v in init]
        fns.append(lambda: bench_conv.numpy_convnet_step(params, xs, ys))
    res = _interleaved_ms(fns, max(reps, 10))
    return {"small convnet SGD step, batch 32 (ms)": res}


WORKLOADS = {
    "latency": wl_latency, "logreg": wl_logreg, "accumulator": wl_accumulator,
    "build": wl_build, "mlp128": wl_mlp128, "mlp1024": wl_mlp1024,
    "mlp_threads": wl_mlp_threads, "sync": wl_sync, "fbn": wl_fbn,
    "embedding": wl_embedding, "tpu_embedding": wl_tpu_embedding, "convnet": wl_convnet,
}


# -- driver -----------------------------------------------------------------------------
def worker_main(engine: str, workload: str, reps: int) -> None:
    tf = load_engine(engine)
    result = WORKLOADS[workload](tf, engine, reps)
    print("RESULT " + json.dumps(result), flush=True)


def _spawn(python: str, engine: str, workload: str, reps: int) -> dict:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    out = subprocess.run([python, os.path.abspath(__file__), "--worker", engine, workload,
                          "--reps", str(reps)], capture_output=True, text=True, env=env)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{engine} {workload} failed:\n{out.stdout[-2000:]}{out.stderr[-4000:]}")


def rss_main(steps: int) -> None:
    """Resident memory of the MLP (batch 128, Adam) training loop, every steps/10 steps."""
    import tfmini as tm

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    init = _mlp_init()
    g, x, y, _, loss, train, init_op = _mlp_graph(
        tm, init, lambda t: t.train.AdamOptimizer(1e-3))
    xs, ys = _mlp_data(128)
    with tm.Session(graph=g) as sess:
        sess.run(init_op)
        points = []
        for i in range(steps + 1):
            if i % max(steps // 10, 1) == 0:
                points.append((i, round(rss_mb(), 1)))
            sess.run(train, {x: xs, y: ys})
    print("steps, RSS MiB:", points)
    print(f"growth after the first tenth: {points[-1][1] - points[1][1]:+.1f} MiB")


def blas_description(python: str = sys.executable) -> str:
    """The BLAS NumPy loads in a fresh process of ``python``: library, version, kernels."""
    code = ("import numpy, threadpoolctl; print('; '.join('%s %s, %s kernels' % (i['internal_api'],"
            " i['version'], i.get('architecture')) for i in threadpoolctl.threadpool_info()"
            " if i['user_api'] == 'blas'))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or out.stderr.strip()[-200:]


def header() -> str:
    """Machine, load and BLAS kernels: the context every figure needs."""
    lines = [f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores,"
             f" load average {os.getloadavg()[0]:.2f}; NumPy's BLAS: {blas_description()}"]
    forced = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
              if k in os.environ}
    if forced:
        # Some machines pin OpenBLAS to older kernels for old builds' sake; that halves a
        # current NumPy's products on an AVX-512 CPU (docs/performance.md).
        lines.append(f"# note: {forced} set in the environment; NumPy's products run the "
                     "kernels it names (run with `env -u OPENBLAS_CORETYPE -u "
                     "OPENBLAS_L2_SIZE` to let OpenBLAS choose)")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", nargs=2, metavar=("ENGINE", "WORKLOAD"), help=argparse.SUPPRESS)
    p.add_argument("--reps", type=int, default=20, help="steps timed per process")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per engine")
    p.add_argument("--only", help="comma-separated workloads: " + ",".join(WORKLOADS))
    p.add_argument("--json", help="write the medians to this file")
    p.add_argument("--rss", type=int, metavar="STEPS", help="measure RSS of the MLP loop")
    args = p.parse_args(argv)
    if args.worker:
        return worker_main(args.worker[0], args.worker[1], args.reps)
    if args.rss:
        return rss_main(args.rss)
    names = args.only.split(",") if args.only else list(WORKLOADS)
    print(header(), flush=True)
    tf_py = os.environ.get("TF_PY")
    rows: dict[str, dict] = {}
    for r in range(args.rounds):
        for name in names:
            # Alternate which engine goes first, round by round.
            order = ["tfmini", "tf"] if r % 2 == 0 else ["tf", "tfmini"]
            for engine in order:
                if engine == "tf" and not tf_py:
                    continue
                res = _spawn(sys.executable if engine == "tfmini" else tf_py, engine, name,
                             args.reps)
                for metric, vals in res.items():
                    row = rows.setdefault(metric, {"tfmini": [], "numpy": [], "tf": []})
                    if engine == "tfmini":
                        row["tfmini"].append(vals[0])
                        if len(vals) > 1:
                            row["numpy"].append(vals[1])
                    else:
                        row["tf"].append(vals[0])
            print(f"round {r + 1}/{args.rounds}: {name} done", file=sys.stderr, flush=True)

    def fmt(vals):
        if not vals:
            return "-"
        m = statistics.median(vals)
        spread = (max(vals) - min(vals)) / m * 100 if m else 0
        return f"{m:.3f} (±{spread / 2:.0f}%)"

    summary = {}
    print("| workload | NumPy floor | tfmini | TensorFlow 2.21 | tfmini/floor | tfmini/TF |")
    print("|---|---:|---:|---:|---:|---:|")
    for metric, row in rows.items():
        med = {k: statistics.median(v) if v else None for k, v in row.items()}
        r_floor = f"{med['tfmini'] / med['numpy']:.2f}x" if med["numpy"] else "-"
        r_tf = f"{med['tfmini'] / med['tf']:.2f}x" if med["tf"] else "-"
        print(f"| {metric} | {fmt(row['numpy'])} | {fmt(row['tfmini'])} | {fmt(row['tf'])} "
              f"| {r_floor} | {r_tf} |")
        summary[metric] = {**row, "median": med}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
