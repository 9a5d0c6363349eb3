"""Fused batch norm speed and memory (issue: fused batch norm).

One training step of batch norm, FusedBatchNormV3 then FusedBatchNormGradV3 fed from its
reserve spaces, on a 32x56x56x64 float32 NHWC input, run through a Session, against the
memory floor: five plain NumPy copies of x, timed in the same process with the
measurements interleaved, so machine load affects both sides alike. The step reads x twice
and dy twice and writes y and dx, about the traffic of five copies.

Two floors are reported. ``floor``: five copies that exist together (``[x.copy() for _ in
range(5)]``), each in fresh memory the kernel must map, as the op's new outputs are; this is
the floor the issue names, against which TensorFlow's own kernels run at 0.5x-1x. ``warm
floor``: five copies each freed before the next, so the allocator hands back memory already
mapped; a stricter bound that only the copying itself sets.

Peak memory is the largest amount NumPy holds during one run beyond what was held before it
(tracemalloc), in copies of x; the inputs x and dy are held before.

Run:  python bench/bench_fused_batch_norm.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc

import numpy as np

import tfmini as tm
from tfmini.ops.nn import fused_batch_norm_ops as fbn

SHAPE = (32, 56, 56, 64)
COPIES = 5


def build(shape, data_format: str, training: bool):
    """A Session callable running the forward and gradient ops; returns (run, feeds)."""
    c = shape[1] if data_format[1] == "C" else shape[-1]
    rng = np.random.default_rng(0)
    x = rng.normal(1.0, 2.0, size=shape).astype(np.float32)
    dy = rng.normal(size=shape).astype(np.float32)
    scale = rng.normal(size=c).astype(np.float32)
    offset = rng.normal(size=c).astype(np.float32)
    mean = rng.normal(size=c).astype(np.float32)
    variance = rng.uniform(0.5, 2.0, size=c).astype(np.float32)
    g = tm.Graph()
    with g.as_default():
        px = tm.placeholder(tm.float32, shape, name="x")
        pdy = tm.placeholder(tm.float32, shape, name="dy")
        scope = tm.Scope(g)
        fwd = tm.ops.FusedBatchNormV3.create(scope, px, scale, offset, mean, variance,
                                             epsilon=1e-3, data_format=data_format,
                                             is_training=training)
        rs1 = fwd.reserve_space_1() if training else tm.constant(mean)
        rs2 = fwd.reserve_space_2() if training else tm.constant(variance)
        grad = tm.ops.FusedBatchNormGradV3.create(scope, pdy, px, scale, rs1, rs2,
                                                  fwd.reserve_space_3(), epsilon=1e-3,
                                                  data_format=data_format,
                                                  is_training=training)
        fetches = [fwd.y(), fwd.batch_mean(), fwd.batch_variance(), grad.x_backprop(),
                   grad.scale_backprop(), grad.offset_backprop()]
    sess = tm.Session(graph=g)
    return sess.make_callable(fetches, feed_list=[px, pdy]), x, dy


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def compare(shape, data_format: str, training: bool, repeats: int) -> dict:
    run, x, dy = build(shape, data_format, training)

    def floor():
        copies = [x.copy() for _ in range(COPIES)]
        del copies

    def warm_floor():
        for _ in range(COPIES):
            x.copy()

    for _ in range(3):  # warm-up: plan built, allocator and caches settled
        run(x, dy)
        floor()
        warm_floor()
    op_t, floor_t, warm_t = [], [], []
    for _ in range(repeats):  # interleaved, so load drifts hit all sides
        op_t.append(timed(lambda: run(x, dy)))
        floor_t.append(timed(floor))
        warm_t.append(timed(warm_floor))
    op_s, floor_s = statistics.median(op_t), statistics.median(floor_t)
    warm_s = statistics.median(warm_t)

    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    outputs = run(x, dy)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del outputs
    return {
        "shape": list(shape), "data_format": data_format, "is_training": training,
        "workers": fbn._MAX_WORKERS, "op_ms": op_s * 1e3, "floor_ms": floor_s * 1e3,
        "ratio_to_floor": op_s / floor_s, "warm_floor_ms": warm_s * 1e3,
        "ratio_to_warm_floor": op_s / warm_s,
        "peak_copies_of_x": peak / x.nbytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    repeats = 5 if args.quick else 25
    results = []
    threads = fbn._MAX_WORKERS
    for workers in sorted({threads, 1}, reverse=True):
        fbn._MAX_WORKERS = workers
        try:
            results.append(compare(SHAPE, "NHWC", True, repeats))
        finally:
            fbn._MAX_WORKERS = threads
    nchw = (SHAPE[0], SHAPE[3], SHAPE[1], SHAPE[2])
    results.append(compare(nchw, "NCHW", True, repeats))
    results.append(compare(SHAPE, "NHWC", False, repeats))
    print(f"{'case':<30} {'workers':>7} {'op ms':>7} {'floor ms':>8} {'ratio':>6} "
          f"{'warm floor ms':>13} {'ratio':>6} {'peak (x)':>8}")
    for r in results:
        case = (f"{'x'.join(map(str, r['shape']))} {r['data_format']} "
                f"{'train' if r['is_training'] else 'infer'}")
        print(f"{case:<30} {r['workers']:>7} {r['op_ms']:>7.2f} {r['floor_ms']:>8.2f} "
              f"{r['ratio_to_floor']:>6.2f} {r['warm_floor_ms']:>13.2f} "
              f"{r['ratio_to_warm_floor']:>6.2f} {r['peak_copies_of_x']:>8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
