"""Random sampling speed (issue 10): 10 million float32 normals and 10 million float32
uniforms drawn through a Session (RandomStandardNormal / RandomUniform with explicit seeds,
TensorFlow's bits), next to NumPy's ``default_rng().standard_normal(n, dtype=float32)`` and
``.random(n, dtype=float32)`` in the same process.

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
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    g = tm.Graph()
    with g.as_default():
        normal = tm.raw_ops.RandomStandardNormal(shape=[args.n], dtype=tm.float32, seed=1,
                                                 seed2=2)
        uniform = tm.raw_ops.RandomUniform(shape=[args.n], dtype=tm.float32, seed=3, seed2=4)
    rng = np.random.default_rng(0)
    cases = {
        "normal": (lambda: sess.run(normal),
                   lambda: rng.standard_normal(args.n, dtype=np.float32)),
        "uniform": (lambda: sess.run(uniform), lambda: rng.random(args.n, dtype=np.float32)),
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
            print(f"{name:8s} n={args.n}: tfmini {m_ours:8.1f} ms   numpy {m_np:8.1f} ms   "
                  f"ratio {m_ours / m_np:5.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
