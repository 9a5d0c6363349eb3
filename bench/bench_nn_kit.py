"""Speed of the nn helpers through a Session against NumPy doing the same work directly.

Cases: ``moments`` over the batch and spatial axes of a 32x28x28x64 float32 tensor, ``lrn``
(depth_radius 5) on the same tensor, ``top_k`` (k=10) of 1024 rows of 1000 scores, and
``batch_normalization`` with per-channel statistics. The NumPy side is a plain vectorised
version of the same formula, timed in the same process with the measurements interleaved so
machine load affects both alike. Reports the median of each and the ratio tfmini / NumPy.

Run:  python bench/bench_nn_kit.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tfmini as tm

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 28, 28, 64)).astype(np.float32)
SCORES = RNG.normal(size=(1024, 1000)).astype(np.float32)
MEAN = RNG.normal(size=64).astype(np.float32)
VAR = RNG.uniform(0.5, 2, size=64).astype(np.float32)


def _np_moments():
    m = X.mean(axis=(0, 1, 2), keepdims=True)
    return m.squeeze(), ((X - m) ** 2).mean(axis=(0, 1, 2))


def _np_lrn():
    sq = X.astype(np.float64) ** 2
    cs = np.concatenate([np.zeros(X.shape[:-1] + (1,)), np.cumsum(sq, axis=-1)], axis=-1)
    c = np.arange(64)
    s = cs[..., np.minimum(c + 6, 64)] - cs[..., np.maximum(c - 5, 0)]
    return (X / np.sqrt(1.0 + s)).astype(np.float32)


def _np_top_k():
    idx = np.argpartition(-SCORES, 10, axis=1)[:, :10]
    vals = np.take_along_axis(SCORES, idx, 1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(vals, order, 1), np.take_along_axis(idx, order, 1)


def _np_bn():
    inv = 1 / np.sqrt(VAR + 1e-3)
    return X * inv + (-MEAN * inv)


def _cases():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, X.shape)
        s = tm.placeholder(tm.float32, SCORES.shape)
        fetches = {
            "moments": (list(tm.nn.moments(x, [0, 1, 2])), {x: X}, _np_moments),
            "lrn": (tm.nn.lrn(x), {x: X}, _np_lrn),
            "top_k": (list(tm.nn.top_k(s, 10)), {s: SCORES}, _np_top_k),
            "batch_normalization": (tm.nn.batch_normalization(x, MEAN, VAR, None, None, 1e-3),
                                    {x: X}, _np_bn),
        }
    return g, fetches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    g, cases = _cases()
    with tm.Session(graph=g) as sess:
        for name, (fetch, feeds, np_fn) in cases.items():
            sess.run(fetch, feeds)  # plan and warm up
            np_fn()
            ours, theirs = [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                sess.run(fetch, feeds)
                t1 = time.perf_counter()
                np_fn()
                t2 = time.perf_counter()
                ours.append(t1 - t0)
                theirs.append(t2 - t1)
            a, b = statistics.median(ours), statistics.median(theirs)
            print(f"{name:20s} tfmini {a * 1e3:8.2f} ms   numpy {b * 1e3:8.2f} ms   "
                  f"ratio {a / b:5.2f}")


if __name__ == "__main__":
    main()
