"""A session run with 100,000 distinct fetch sets stays within its plan-cache bound.

    .venv/bin/python bench/bench_plan_cache.py [runs] [plan_cache_size]

Prints the plans kept, the RSS growth (peak, from getrusage) and run times: the first
run of a signature (plan built) and a repeated one (cache hit), medians. Issue 16 asks for
an RSS growth under 50 MB with the default bound.
"""

from __future__ import annotations

import gc
import resource
import statistics
import sys
import time

import numpy as np

import tfmini as tm


def main(runs: int = 100_000, size: int | None = None) -> None:
    g = tm.Graph()
    with g.as_default():
        xs = [tm.constant(np.float32(i), name=f"c{i}") for i in range(400)]
    with tm.Session(graph=g, plan_cache_size=size) as sess:
        sess.run(xs[:2])  # warm up imports and caches
        gc.collect()
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        miss, hit = [], []
        start = time.perf_counter()
        for i in range(runs):
            # Distinct sets: pairs (a, b) with a < b over 400 tensors give ~80k, then triples.
            a, b = divmod(i, 400)
            fetch = [xs[a % 400], xs[b]] if i < 160_000 else [xs[a % 400], xs[b], xs[0]]
            t = time.perf_counter()
            sess.run(fetch)
            miss.append(time.perf_counter() - t)
            if i % 1000 == 0:
                t = time.perf_counter()
                sess.run(fetch)
                hit.append(time.perf_counter() - t)
        total = time.perf_counter() - start
        gc.collect()
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
        print(f"{runs} distinct fetch sets in {total:.1f} s; bound {sess.plan_cache_size}, "
              f"plans kept {len(sess._plans)}")
        print(f"peak RSS growth: {grown:.1f} MB")
        print(f"median run, new signature (plan built): {statistics.median(miss) * 1e6:.0f} us; "
              f"repeated signature (cache hit): {statistics.median(hit) * 1e6:.0f} us")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
