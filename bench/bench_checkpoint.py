"""Checkpoint save/restore throughput against np.save/np.load of the same arrays.

    python bench/bench_checkpoint.py [--mb 1024] [--variables 16] [--repeat 3]

Saves ``--variables`` float32 variables totalling ``--mb`` megabytes with tm.train.Saver
(SaveV2: one data file, CRC-32C over every byte) and restores them (RestoreV2 + Assign,
checking every CRC), then writes/reads the same arrays with np.save/np.load in the same
process, to the same directory. Prints medians in MB/s and the ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import tfmini as tm


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=1024)
    parser.add_argument("--variables", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    per = args.mb * (1 << 20) // args.variables // 4
    total_mb = per * 4 * args.variables / (1 << 20)
    work = tempfile.mkdtemp(prefix="tfmini_bench_ckpt_")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(per, dtype=np.float32) for _ in range(args.variables)]
    g = tm.Graph()
    with g.as_default():
        variables = [tm.Variable(np.zeros(per, np.float32), name=f"v{i}")
                     for i in range(args.variables)]
        saver = tm.train.Saver(variables)
    times = {"save": [], "restore": [], "np.save": [], "np.load": []}
    with tm.Session(graph=g) as sess:
        for v, a in zip(variables, arrays):
            v.load(a, sess)
        for _ in range(args.repeat):
            t = time.perf_counter()
            path = saver.save(sess, os.path.join(work, "model.ckpt"), write_meta_graph=False,
                              write_state=False)
            times["save"].append(time.perf_counter() - t)
            t = time.perf_counter()
            saver.restore(sess, path)
            times["restore"].append(time.perf_counter() - t)
            t = time.perf_counter()
            for i, a in enumerate(arrays):
                np.save(os.path.join(work, f"a{i}.npy"), a)
            times["np.save"].append(time.perf_counter() - t)
            t = time.perf_counter()
            loaded = [np.load(os.path.join(work, f"a{i}.npy")) for i in range(len(arrays))]
            times["np.load"].append(time.perf_counter() - t)
            del loaded
        assert np.array_equal(sess.run(variables[-1]), arrays[-1])
    shutil.rmtree(work)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{total_mb:.0f} MB in {args.variables} float32 variables, median of {args.repeat}:")
    for ours, base in (("save", "np.save"), ("restore", "np.load")):
        print(f"  {ours:8s} {total_mb / med[ours]:8.0f} MB/s   {base:8s} "
              f"{total_mb / med[base]:8.0f} MB/s   ratio {med[ours] / med[base]:.2f}x")


if __name__ == "__main__":
    main()
