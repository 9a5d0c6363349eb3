"""Interpreter overhead benchmarks (issue: foundation).

1. A 1000-op elementwise chain run through a Session, against the same NumPy calls made
   directly in a Python loop, in the same process: the ratio is the interpreter's cost.
2. The latency of a 2-op run: feed one 4-element float32 array, fetch one output.

Run:  python bench/bench_interpreter.py [--quick] [--json results.json]
Timings are medians over many repetitions after warm-up; ratios compare runs made in
the same process, so machine load affects both sides alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

CHAIN_LENGTH = 1000


def _median_seconds(fn, repeats: int, inner: int = 1) -> float:
    for _ in range(max(3, repeats // 10)):  # warm-up: plans compiled, caches hot
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def chain_benchmark(size: int, repeats: int) -> dict:
    """Alternating x+a, x*b over ``size`` float32 elements, 1000 ops in all."""
    rng = np.random.default_rng(0)
    a = rng.random(size, dtype=np.float32)
    b = (1.0 + rng.random(size, dtype=np.float32) * 1e-3).astype(np.float32)

    g = tm.Graph()
    with g.as_default():
        pa = tm.placeholder(tm.float32, shape=(size,), name="a")
        pb = tm.placeholder(tm.float32, shape=(size,), name="b")
        h = pa
        for i in range(CHAIN_LENGTH):
            h = tm.raw_ops.AddV2(x=h, y=pa) if i % 2 == 0 else tm.raw_ops.Mul(x=h, y=pb)
    sess = tm.Session(graph=g)
    run = sess.make_callable(h, feed_list=[pa, pb])

    def direct():
        x = a
        for i in range(CHAIN_LENGTH):
            x = np.add(x, a) if i % 2 == 0 else np.multiply(x, b)
        return x

    # The tightest form of "the same NumPy calls": straight-line code, no loop at all.
    lines = ["def unrolled(a, b, add, mul):", "    x = a"]
    lines += [f"    x = {'add(x, a)' if i % 2 == 0 else 'mul(x, b)'}" for i in range(CHAIN_LENGTH)]
    lines.append("    return x")
    namespace: dict = {}
    exec("\n".join(lines), namespace)

    def unrolled():
        return namespace["unrolled"](a, b, np.add, np.multiply)

    np.testing.assert_allclose(run(a, b), direct(), rtol=1e-5)
    np.testing.assert_allclose(unrolled(), direct(), rtol=1e-6)
    t_numpy = _median_seconds(direct, repeats)
    t_unrolled = _median_seconds(unrolled, repeats)
    t_session_run = _median_seconds(lambda: sess.run(h, {pa: a, pb: b}), repeats)
    t_callable = _median_seconds(lambda: run(a, b), repeats)
    sess.close()
    return {
        "size": size,
        "numpy_loop_ms": t_numpy * 1e3,
        "numpy_unrolled_ms": t_unrolled * 1e3,
        "session_run_ms": t_session_run * 1e3,
        "callable_ms": t_callable * 1e3,
        "ratio_vs_loop": t_session_run / t_numpy,
        "ratio_vs_unrolled": t_session_run / t_unrolled,
        "overhead_per_op_us": (t_session_run - t_unrolled) / CHAIN_LENGTH * 1e6,
    }


def two_op_latency(repeats: int) -> dict:
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(4,), name="x")
        y = tm.raw_ops.Mul(x=tm.raw_ops.AddV2(x=x, y=x), y=x)
    value = np.arange(4, dtype=np.float32)
    with tm.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: value}), (value + value) * value)
        samples = []
        for _ in range(1000):
            sess.run(y, {x: value})
        for _ in range(repeats):
            t0 = time.perf_counter()
            sess.run(y, {x: value})
            samples.append(time.perf_counter() - t0)
        numpy_samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            np.multiply(np.add(value, value), value)
            numpy_samples.append(time.perf_counter() - t0)
    return {
        "median_us": statistics.median(samples) * 1e6,
        "p90_us": sorted(samples)[int(0.9 * len(samples))] * 1e6,
        "numpy_median_us": statistics.median(numpy_samples) * 1e6,
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)
    repeats = 20 if args.quick else 100
    results = {"chain": [], "two_op": None}
    print(f"1000-op elementwise chain (AddV2/Mul), float32; median of {repeats} runs")
    print(f"{'elements':>9} {'numpy loop':>10} {'unrolled':>9} {'Session.run':>11} "
          f"{'vs loop':>7} {'vs unrolled':>11} {'us/op':>6}")
    for size in (16, 1000, 100_000):
        r = chain_benchmark(size, repeats if size < 100_000 else max(10, repeats // 5))
        results["chain"].append(r)
        print(f"{r['size']:>9} {r['numpy_loop_ms']:>8.3f}ms {r['numpy_unrolled_ms']:>7.3f}ms "
              f"{r['session_run_ms']:>9.3f}ms {r['ratio_vs_loop']:>6.2f}x "
              f"{r['ratio_vs_unrolled']:>10.2f}x {r['overhead_per_op_us']:>6.2f}")
    lat = two_op_latency(2000 if args.quick else 20000)
    results["two_op"] = lat
    print(f"2-op run (feed 4 floats, fetch 1): median {lat['median_us']:.1f} us, "
          f"p90 {lat['p90_us']:.1f} us (the same NumPy calls: {lat['numpy_median_us']:.1f} us)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return results


if __name__ == "__main__":
    main()
