"""Checkpoint save/restore throughput against np.save/np.load of the same arrays.

    python bench/bench_checkpoint.py [--mb 1024] [--variables 16] [--repeat 3]
                                     [--dir DIR] [--same-prefix]

Saves ``--variables`` float32 variables totalling ``--mb`` megabytes with tm.train.Saver
(SaveV2: one data file, CRC-32C over every byte) and restores them (RestoreV2 + Assign,
checking every CRC), then writes/reads the same arrays with np.save/np.load in the same
process, to the same directory. Prints medians in MB/s and the ratio, wall clock and the
process's CPU time (the CPU time is steadier on a shared machine: it leaves out waiting for
the disk and for other processes).

Each save goes to a new prefix (``model.ckpt-<step>``, ``max_to_keep=1`` deleting the one
before), as in training. ``--same-prefix`` saves over the same prefix every time instead: the
new data file is then renamed over the old one, and on ext4 (``auto_da_alloc``, the default)
that rename starts writing the new file to disk at once, so that a crash never leaves an
empty file under the old name; TensorFlow's BundleWriter renames the same way and pays the
same. np.save overwrites in place and pays nothing of the kind.

A second baseline, ``np.save new``, writes the arrays to new files each time and then
deletes the previous set: the file life cycle of a checkpoint (new files, old ones deleted),
which overwriting in place avoids. On a virtual machine that hands freed memory back to its
host the difference is large: memory freed by the deletion must be faulted back in when the
next new file is written, while in-place overwriting reuses the pages its truncation just
freed.
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
    parser.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    parser.add_argument("--same-prefix", action="store_true",
                        help="save over one prefix every time (rename over the old file)")
    args = parser.parse_args()
    per = args.mb * (1 << 20) // args.variables // 4
    total_mb = per * 4 * args.variables / (1 << 20)
    work = tempfile.mkdtemp(prefix="tfmini_bench_ckpt_", dir=args.dir)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(per, dtype=np.float32) for _ in range(args.variables)]
    g = tm.Graph()
    with g.as_default():
        variables = [tm.Variable(np.zeros(per, np.float32), name=f"v{i}")
                     for i in range(args.variables)]
        saver = tm.train.Saver(variables, max_to_keep=1)
    times: dict[str, list[float]] = {"save": [], "restore": [], "np.save": [], "np.load": [],
                                     "np.save new": []}
    cpu: dict[str, list[float]] = {k: [] for k in times}

    def timed(key, fn):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        times[key].append(time.perf_counter() - t)
        cpu[key].append(time.process_time() - c)
        return result

    def np_save():
        for i, a in enumerate(arrays):
            np.save(os.path.join(work, f"a{i}.npy"), a)

    def np_save_new(step):
        for i, a in enumerate(arrays):
            np.save(os.path.join(work, f"n{step}_{i}.npy"), a)
        for i in range(len(arrays)):
            old = os.path.join(work, f"n{step - 1}_{i}.npy")
            if os.path.exists(old):
                os.remove(old)

    with tm.Session(graph=g) as sess:
        for v, a in zip(variables, arrays):
            v.load(a, sess)
        for step in range(args.repeat):
            path = timed("save", lambda step=step: saver.save(
                sess, os.path.join(work, "model.ckpt"),
                global_step=None if args.same_prefix else step, write_meta_graph=False,
                write_state=not args.same_prefix))
            timed("restore", lambda path=path: saver.restore(sess, path))
            timed("np.save", np_save)
            timed("np.save new", lambda step=step: np_save_new(step))
            loaded = timed("np.load", lambda: [np.load(os.path.join(work, f"a{i}.npy"))
                                               for i in range(len(arrays))])
            del loaded
        assert np.array_equal(sess.run(variables[-1]), arrays[-1])
    shutil.rmtree(work)
    where = "the same prefix" if args.same_prefix else "a new prefix per save"
    print(f"{total_mb:.0f} MB in {args.variables} float32 variables, {where}, "
          f"median of {args.repeat}:")
    for label, table in (("wall", times), ("cpu ", cpu)):
        med = {k: statistics.median(v) for k, v in table.items()}
        for ours, base in (("save", "np.save"), ("save", "np.save new"),
                           ("restore", "np.load")):
            print(f"  {label} {ours:8s} {total_mb / med[ours]:8.0f} MB/s   {base:11s} "
                  f"{total_mb / med[base]:8.0f} MB/s   ratio {med[ours] / med[base]:.2f}x")


if __name__ == "__main__":
    main()
