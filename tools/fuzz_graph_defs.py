"""Imports N random mutations of real graph_defs; each must import or fail clearly, naming the
node, within bounded memory (issue 16). Needs no TensorFlow.

    .venv/bin/python tools/fuzz_graph_defs.py            # 10,000 mutations
    .venv/bin/python tools/fuzz_graph_defs.py 500 7      # 500 mutations, seed 7

Prints the outcome counts, the largest mutated def, the peak RSS growth, and every unclear
failure (exit status 1 if there is one).
"""

from __future__ import annotations

import collections
import json
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz_graphs import import_or_fail_clearly, mutate, real_graph_defs  # noqa: E402


def main(n: int = 10_000, seed: int = 0) -> int:
    defs = real_graph_defs()
    rng = random.Random(seed)
    outcomes: collections.Counter = collections.Counter()
    unclear = []
    largest = 0
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    for i in range(n):
        gd = mutate(rng.choice(defs), rng, rng.choice([1, 1, 2, 3]))
        try:
            size = len(json.dumps(gd))
        except (ValueError, RecursionError):
            size = -1  # nested too deep for json itself: the importer still must cope
        largest = max(largest, size)
        try:
            e = import_or_fail_clearly(gd)
            outcomes["imported" if e is None else type(e).__name__] += 1
        except BaseException as e:  # noqa: BLE001  (anything else is the finding)
            outcomes["UNCLEAR " + type(e).__name__] += 1
            unclear.append((i, f"{type(e).__name__}: {str(e)[:300]}"))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024
    print(f"{n} mutations (seed {seed}) in {time.perf_counter() - start:.1f} s")
    for k, v in sorted(outcomes.items()):
        print(f"  {k}: {v}")
    print(f"largest def: {largest} bytes of JSON; peak RSS growth: {grown_mb:.1f} MB")
    for i, text in unclear[:20]:
        print(f"  unclear #{i}: {text}")
    return 1 if unclear or grown_mb >= 50 else 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(main(*args))
