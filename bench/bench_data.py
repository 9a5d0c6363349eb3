"""tf.data pipeline throughput: elements per second through
``from_tensor_slices -> map -> shuffle(1024) -> batch(128) -> get_next`` in a Session, next to
a plain Python/NumPy generator doing the same work in the same process (slice each element,
apply the same arithmetic, keep a 1024-element shuffle ring, stack batches of 128), measured
interleaved. Medians of the repeats are reported.

Each tfmini element costs one call of the traced map function (a small plan run), so the
ratio shows the per-element overhead of running a function graph instead of a Python line.

Run:  python bench/bench_data.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

FEATURES = 16
BUFFER = 1024
BATCH = 128


def _data(n: int):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, FEATURES)).astype(np.float32), np.arange(n, dtype=np.int64)


def tfmini_rate(n: int) -> float:
    """Elements per second through the tm.data pipeline (one epoch, all batches)."""
    x, y = _data(n)
    g = tm.Graph()
    with g.as_default():
        ds = tm.data.Dataset.from_tensor_slices((x, y))
        ds = ds.map(lambda a, b: (a * 2.0 + 1.0, b))
        ds = ds.shuffle(BUFFER, seed=1).batch(BATCH)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
    with tm.Session(graph=g) as sess:
        sess.run(it.initializer)
        get = sess.make_callable(nxt)
        t0 = time.perf_counter()
        count = 0
        while True:
            try:
                count += get()[0].shape[0]
            except tm.errors.OutOfRangeError:
                break
        dt = time.perf_counter() - t0
    assert count == n
    return n / dt


def numpy_rate(n: int) -> float:
    """The same work as a Python generator pipeline over NumPy arrays."""
    x, y = _data(n)
    rng = np.random.default_rng(1)

    def elements():
        for i in range(n):
            yield x[i] * np.float32(2.0) + np.float32(1.0), y[i]

    def shuffled(source):
        ring = []
        for e in source:
            ring.append(e)
            if len(ring) == BUFFER:
                j = int(rng.integers(len(ring)))
                ring[j], ring[-1] = ring[-1], ring[j]
                yield ring.pop()
        while ring:
            j = int(rng.integers(len(ring)))
            ring[j], ring[-1] = ring[-1], ring[j]
            yield ring.pop()

    def batched(source):
        batch = []
        for e in source:
            batch.append(e)
            if len(batch) == BATCH:
                yield np.stack([a for a, _ in batch]), np.stack([b for _, b in batch])
                batch = []
        if batch:
            yield np.stack([a for a, _ in batch]), np.stack([b for _, b in batch])

    t0 = time.perf_counter()
    count = sum(b[0].shape[0] for b in batched(shuffled(elements())))
    dt = time.perf_counter() - t0
    assert count == n
    return n / dt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer elements and repeats")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    n, repeats = (4096, 3) if args.quick else (16384, 5)
    tfmini_rate(512), numpy_rate(512)  # warm up (plans, imports)
    tm_rates, np_rates = [], []
    for _ in range(repeats):
        tm_rates.append(tfmini_rate(n))
        np_rates.append(numpy_rate(n))
    result = {
        "elements": n,
        "repeats": repeats,
        "tfmini_elements_per_s": statistics.median(tm_rates),
        "numpy_elements_per_s": statistics.median(np_rates),
    }
    result["ratio_numpy_over_tfmini"] = (result["numpy_elements_per_s"]
                                         / result["tfmini_elements_per_s"])
    print(f"pipeline from_tensor_slices -> map -> shuffle({BUFFER}) -> batch({BATCH}), "
          f"{n} elements of float32[{FEATURES}] + int64, median of {repeats}:")
    print(f"  tfmini  {result['tfmini_elements_per_s']:>12,.0f} elements/s")
    print(f"  NumPy   {result['numpy_elements_per_s']:>12,.0f} elements/s "
          f"(plain Python generators)")
    print(f"  ratio   {result['ratio_numpy_over_tfmini']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
