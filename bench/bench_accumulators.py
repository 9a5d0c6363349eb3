"""Accumulator apply throughput (issue: conditional accumulators and blocking execution).

Four threads apply 256x256 float32 gradients into one ``tm.ConditionalAccumulator`` through
one Session (``sess.make_callable`` with the gradient fed), and the applies per second are
reported next to a NumPy baseline measured in the same process, interleaved: the same four
threads doing ``acc += g`` on one array under one lock, the least an exact shared sum costs.
TensorFlow 2.21 does about 1,700-2,700 applies per second here.

Each apply validates the gradient, adds it into a new array under the accumulator's lock
(the old one stays for the undo of a failed run) and counts it.

Run:  python bench/bench_accumulators.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time

import numpy as np

import tfmini as tm

SHAPE = (256, 256)
THREADS = 4


def _threaded(work, per_thread: int) -> float:
    """Runs ``work(i)`` ``per_thread`` times in each of THREADS threads; returns ops/s."""
    start = threading.Barrier(THREADS + 1)

    def loop():
        start.wait()
        for i in range(per_thread):
            work(i)

    threads = [threading.Thread(target=loop) for _ in range(THREADS)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return THREADS * per_thread / (time.perf_counter() - t0)


def tfmini_rate(per_thread: int) -> float:
    """Applies per second into one accumulator from THREADS threads."""
    g = tm.Graph()
    with g.as_default():
        acc = tm.ConditionalAccumulator(tm.float32, shape=SHAPE, name="acc")
        grad = tm.placeholder(tm.float32, SHAPE, name="grad")
        apply_op = acc.apply_grad(grad, local_step=0)
        size = acc.num_accumulated()
    gradient = np.random.default_rng(0).normal(size=SHAPE).astype(np.float32)
    with tm.Session(graph=g) as sess:
        apply = sess.make_callable(apply_op, [grad])
        apply(gradient)  # warm: the plan is built
        rate = _threaded(lambda i: apply(gradient), per_thread)
        assert sess.run(size) == THREADS * per_thread + 1  # nothing lost
    return rate


def numpy_rate(per_thread: int) -> float:
    """The baseline: THREADS threads doing ``acc += g`` on one array under one lock."""
    gradient = np.random.default_rng(0).normal(size=SHAPE).astype(np.float32)
    total = np.zeros(SHAPE, np.float32)
    lock = threading.Lock()

    def work(i):
        nonlocal total
        with lock:
            total += gradient

    return _threaded(work, per_thread)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)
    rounds, per_thread = (3, 250) if args.quick else (7, 1000)
    ours, base = [], []
    for _ in range(rounds):  # interleaved, so machine load hits both alike
        ours.append(tfmini_rate(per_thread))
        base.append(numpy_rate(per_thread))
    result = {
        "shape": list(SHAPE),
        "threads": THREADS,
        "tfmini_applies_per_s": statistics.median(ours),
        "numpy_iadd_per_s": statistics.median(base),
        "tensorflow_2_21_applies_per_s": "about 1700-2700 (issue)",
    }
    result["fraction_of_numpy"] = result["tfmini_applies_per_s"] / result["numpy_iadd_per_s"]
    print(f"{THREADS} threads, {SHAPE[0]}x{SHAPE[1]} float32 gradients into one accumulator")
    print(f"  tfmini apply:   {result['tfmini_applies_per_s']:10,.0f} /s  (median of {rounds})")
    print(f"  numpy += lock:  {result['numpy_iadd_per_s']:10,.0f} /s")
    print(f"  tfmini / numpy: {result['fraction_of_numpy']:10.2f}")
    print("  TensorFlow 2.21: about 1,700-2,700 /s on this machine (issue 5)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
