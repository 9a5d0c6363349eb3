"""Candidate sampling and sampled losses in a Session against the same work done directly in
NumPy in this process.

* LogUniformCandidateSampler (unique, 64 of 50 000, batch 128): the op against the same draws
  written with NumPy (Philox blocks from tfmini's generator, the inverse-CDF step and the
  rejection of repeats in a Python set).
* nce_loss forward + backward (batch 128, dim 128, 50 000 classes, 64 sampled), with the
  samples fixed (``sampled_values`` from a constant), against NumPy computing the same loss and
  the gradients of the inputs, the gathered weight rows and biases.
* embedding_lookup over 4 "mod" shards (ids 128x20 of 50 000 rows, dim 64) against NumPy's
  ``np.take`` on the shards.

Prints medians (milliseconds) and the ratios. On a shared machine run it with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``) for stable numbers.

    .venv/bin/python bench/bench_sampled.py
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

import tfmini as tm
from tfmini.ops.random import philox


def _median(fn, repeat: int = 21) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def numpy_log_uniform(key, base, num_sampled, range_max, true_classes):
    """The unique log-uniform draws from a Philox stream at ``base`` and the expected counts
    of the draws and the true classes (the kernel's maths, NumPy's float32 log1p/expm1)."""
    log_range = math.log1p(range_max)
    picked, seen, start, tries = [], set(), 0, 0
    while len(picked) < num_sampled:
        w = philox.blocks(key, base + start, 64).reshape(-1)
        start += 64
        u = philox.uniform_float64(w[0::2], w[1::2])
        v = (np.exp(u * log_range).astype(np.int64) - 1) % range_max
        for x in v.tolist():
            tries += 1
            if x not in seen:
                seen.add(x)
                picked.append(x)
                if len(picked) == num_sampled:
                    break
    picked = np.array(picked)

    def expected(values):
        v = values.astype(np.float64)
        p = (np.log((v + 2.0) / (v + 1.0)) / log_range).astype(np.float32)
        return -np.expm1(np.float32(tries) * np.log1p(-p))
    return picked, expected(np.asarray(true_classes).reshape(-1)), expected(picked)


def bench_sampler() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 50_000, size=(128, 1))
    g = tm.Graph()
    with g.as_default():
        out = tm.raw_ops.LogUniformCandidateSampler(
            true_classes=tm.constant(labels), num_true=1, num_sampled=64, unique=True,
            range_max=50_000, seed=1, seed2=2)
        with tm.Session() as sess:
            t_tm = _median(lambda: sess.run(out))
    key, _ = philox.key_counter_from_seeds(1, 2)
    t_np = _median(lambda: numpy_log_uniform(key, 2 << 64, 64, 50_000, labels))
    print(f"LogUniformCandidateSampler unique 64/50000, batch 128: tfmini {t_tm * 1e3:.2f} ms, "
          f"numpy {t_np * 1e3:.2f} ms, ratio {t_tm / t_np:.2f}")


def numpy_nce(x, w, b, labels, sampled, true_exp, sampled_exp):
    tw, sw = w[labels], w[sampled]
    true_logits = np.sum(x * tw, axis=1) + b[labels] - np.log(true_exp)
    sampled_logits = x @ sw.T + b[sampled] - np.log(sampled_exp)
    logits = np.concatenate([true_logits[:, None], sampled_logits], axis=1)
    z = np.zeros_like(logits)
    z[:, 0] = 1
    loss = (np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))).sum(1)
    d = 1 / (1 + np.exp(-logits)) - z
    dx = d[:, :1] * tw + d[:, 1:] @ sw
    dtw = d[:, :1] * x
    dsw = d[:, 1:].T @ x
    db_true, db_sampled = d[:, 0], d[:, 1:].sum(0)
    return loss, dx, dtw, dsw, db_true, db_sampled


def bench_nce() -> None:
    rng = np.random.default_rng(1)
    n, dim, classes, ns = 128, 128, 50_000, 64
    x = rng.normal(size=(n, dim)).astype(np.float32)
    w = (rng.normal(size=(classes, dim)) * 0.1).astype(np.float32)
    b = np.zeros(classes, np.float32)
    labels = rng.integers(0, classes, size=n)
    sampled = rng.choice(classes, ns, replace=False)
    true_exp = rng.uniform(0.01, 1, size=(n, 1)).astype(np.float32)
    sampled_exp = rng.uniform(0.01, 1, size=ns).astype(np.float32)
    g = tm.Graph()
    with g.as_default():
        wv, bv = tm.Variable(w), tm.Variable(b)
        xc = tm.constant(x)
        loss = tm.nn.nce_loss(wv, bv, labels[:, None], xc, ns, classes,
                              sampled_values=(tm.constant(sampled), tm.constant(true_exp),
                                              tm.constant(sampled_exp)))
        grads = tm.gradients(tm.reduce_sum(loss), [xc, wv, bv])
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            got = sess.run(loss)
            want = numpy_nce(x, w, b, labels, sampled, true_exp[:, 0], sampled_exp)[0]
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
            t_tm = _median(lambda: sess.run([loss, *grads]))
    t_np = _median(lambda: numpy_nce(x, w, b, labels, sampled, true_exp[:, 0], sampled_exp))
    print(f"nce_loss fwd+bwd batch 128, dim 128, 64 sampled of 50000: tfmini {t_tm * 1e3:.2f} "
          f"ms, numpy {t_np * 1e3:.2f} ms, ratio {t_tm / t_np:.2f}")


def bench_lookup() -> None:
    rng = np.random.default_rng(2)
    table = rng.normal(size=(50_000, 64)).astype(np.float32)
    shards = [table[i::4] for i in range(4)]
    ids = rng.integers(0, 50_000, size=(128, 20))
    g = tm.Graph()
    with g.as_default():
        # Ids are fed (constant ids would let the whole lookup fold at build time).
        ids_p = tm.placeholder(tm.int64, ids.shape)
        out = tm.nn.embedding_lookup([tm.constant(s) for s in shards], ids_p)
        with tm.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {ids_p: ids}), table[ids])
            t_tm = _median(lambda: sess.run(out, {ids_p: ids}))

    def direct():
        flat = ids.reshape(-1)
        res = np.empty((flat.size, 64), np.float32)
        part = flat % 4
        for p in range(4):
            sel = part == p
            res[sel] = np.take(shards[p], flat[sel] // 4, axis=0)
        return res.reshape(128, 20, 64)
    t_np = _median(direct)
    print(f"embedding_lookup 4 mod shards, ids 128x20, dim 64: tfmini {t_tm * 1e3:.2f} ms, "
          f"numpy {t_np * 1e3:.2f} ms, ratio {t_tm / t_np:.2f}")


if __name__ == "__main__":
    bench_sampler()
    bench_nce()
    bench_lookup()
