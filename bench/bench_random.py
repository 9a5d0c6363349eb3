"""Random sampling speed (issue 10): 10 million float32 normals and 10 million float32
uniforms drawn through a Session (RandomStandardNormal / RandomUniform with explicit seeds,
TensorFlow's bits), next to NumPy's ``default_rng().standard_normal(n, dtype=float32)`` and
``.random(n, dtype=float32)`` in the same process; then the variable-cost samplers
(``--sampler-n`` outputs each: RandomGamma, RandomPoissonV2, RandomShuffle, Multinomial,
ParameterizedTruncatedNormal) next to NumPy's nearest equivalents (``standard_gamma``,
``poisson``, ``permutation``, ``choice``; the truncated normal against normals filtered to the
same bounds).

The two sides are timed in alternating rounds so that machine load affects both alike; the
figure per side is the median round. The issue's aim: tfmini within 3x of NumPy.

Run:  python bench/bench_random.py [--n N] [--rounds R] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sampler-n", type=int, default=200_000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    g = tm.Graph()
    with g.as_default():
        normal = tm.raw_ops.RandomStandardNormal(shape=[args.n], dtype=tm.float32, seed=1,
                                                 seed2=2)
        uniform = tm.raw_ops.RandomUniform(shape=[args.n], dtype=tm.float32, seed=3, seed2=4)
        m = args.sampler_n
        gamma = tm.raw_ops.RandomGamma(shape=[m // 2], alpha=np.array([0.5, 3.0], np.float32),
                                       seed=5, seed2=6)
        poisson = tm.raw_ops.RandomPoissonV2(shape=[m // 2], rate=np.array([3.0, 30.0]),
                                             seed=7, seed2=8)
        shuffle = tm.raw_ops.RandomShuffle(value=np.arange(m), seed=9, seed2=10)
        multinomial = tm.raw_ops.Multinomial(logits=np.zeros((100, 10), np.float32),
                                             num_samples=m // 100, seed=11, seed2=12)
        ptn = tm.raw_ops.ParameterizedTruncatedNormal(
            shape=[m], means=np.float32(0), stdevs=np.float32(1), minvals=np.float32(-1),
            maxvals=np.float32(1), seed=13, seed2=14)
    rng = np.random.default_rng(0)
    m = args.sampler_n

    def np_truncated():
        z = rng.standard_normal(2 * m, dtype=np.float32)
        return z[np.abs(z) <= 1][:m]

    cases = {
        "normal": (lambda: sess.run(normal),
                   lambda: rng.standard_normal(args.n, dtype=np.float32)),
        "uniform": (lambda: sess.run(uniform), lambda: rng.random(args.n, dtype=np.float32)),
        "gamma": (lambda: sess.run(gamma),
                  lambda: rng.standard_gamma(np.repeat([0.5, 3.0], m // 2)).astype(np.float32)),
        "poisson": (lambda: sess.run(poisson), lambda: rng.poisson(np.repeat([3.0, 30.0], m // 2))),
        "shuffle": (lambda: sess.run(shuffle), lambda: rng.permutation(m)),
        "multinomial": (lambda: sess.run(multinomial),
                        lambda: rng.choice(10, size=(100, m // 100))),
        "ptn": (lambda: sess.run(ptn), np_truncated),
    }
    results = {}
    with tm.Session(graph=g) as sess:
        for name, (ours, theirs) in cases.items():
            ours()
            theirs()  # warm up
            t_ours, t_np = [], []
            for _ in range(args.rounds):
                t_ours.append(_time(ours))
                t_np.append(_time(theirs))
            m_ours, m_np = statistics.median(t_ours), statistics.median(t_np)
            results[name] = {"tfmini_ms": m_ours, "numpy_ms": m_np, "ratio": m_ours / m_np}
            size = args.n if name in ("normal", "uniform") else m
            print(f"{name:11s} n={size}: tfmini {m_ours:8.1f} ms   numpy {m_np:8.1f} ms   "
                  f"ratio {m_ours / m_np:5.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
