"""Array, math and linear-algebra breadth (issue 12 part A): time per run of a few new ops
on realistic sizes, against NumPy doing the same work directly in the same process.

Each case builds one graph with a float32 placeholder, runs it through
``sess.make_callable`` (plan built once), and reports the median time per run over several
repeats, next to the median of the NumPy expression the kernel amounts to, and their ratio.
Ops whose kernels are NumPy's own call (einsum, cumsum, inverse) show the per-run overhead
of the Session; composites (boolean_mask; sort = Neg + TopKV2 + Neg, as TensorFlow builds
it) show what the extra ops cost.

Run:  python bench/bench_core12.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

RNG = np.random.default_rng(12)


def _cases(n: int):
    x = RNG.normal(size=(n, n)).astype(np.float32)
    spd = (x @ x.T + n * np.eye(n)).astype(np.float32)
    mask = x > 0
    v = RNG.normal(size=(n * 4,)).astype(np.float32)
    ids = np.sort(RNG.integers(0, n, size=n * 4))
    seq = np.sort(v)
    return [
        ("pad REFLECT", x, lambda t: tm.pad(t, [[3, 3], [3, 3]], "REFLECT"),
         lambda a: np.pad(a, 3, mode="reflect")),
        ("boolean_mask", x, lambda t: tm.boolean_mask(t, mask), lambda a: a[mask]),
        ("cumsum exclusive", x, lambda t: tm.cumsum(t, 1, exclusive=True),
         lambda a: np.cumsum(a, 1) - a),
        ("segment_sum", v, lambda t: tm.math.segment_sum(t, ids),
         lambda a: np.bincount(ids, weights=a, minlength=n).astype(np.float32)),
        ("searchsorted", v, lambda t: tm.searchsorted(seq, t),
         lambda a: np.searchsorted(seq, a).astype(np.int32)),
        ("einsum ij,jk->ik", x, lambda t: tm.einsum("ij,jk->ik", t, t),
         lambda a: np.einsum("ij,jk->ik", a, a)),
        ("linalg.inv", spd, tm.linalg.inv, np.linalg.inv),
        ("linalg.cholesky", spd, tm.linalg.cholesky, np.linalg.cholesky),
        ("sort (TopKV2)", v, tm.sort, lambda a: np.sort(a, kind="stable")),
    ]


def _median_time(fn, repeats: int, number: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def run(n: int, repeats: int, number: int) -> list[dict]:
    results = []
    for name, value, build, reference in _cases(n):
        g = tm.Graph()
        with g.as_default():
            ph = tm.placeholder(tm.float32, value.shape)
            out = build(ph)
        with tm.Session(graph=g) as sess:
            call = sess.make_callable(out, [ph])
            np.testing.assert_allclose(call(value), reference(value), rtol=2e-4, atol=2e-4)
            ours = _median_time(lambda c=call, v=value: c(v), repeats, number)
        theirs = _median_time(lambda r=reference, v=value: r(v), repeats, number)
        results.append({"case": name, "tfmini_ms": ours * 1e3, "numpy_ms": theirs * 1e3,
                        "ratio": ours / theirs})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    n, repeats, number = (64, 3, 5) if args.quick else (256, 7, 20)
    results = run(n, repeats, number)
    print(f"{'case':<22}{'tfmini ms':>11}{'numpy ms':>11}{'ratio':>8}   (n={n}, medians)")
    for r in results:
        print(f"{r['case']:<22}{r['tfmini_ms']:>11.3f}{r['numpy_ms']:>11.3f}{r['ratio']:>8.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": n, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
