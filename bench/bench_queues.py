"""Queue throughput: enqueue_many / dequeue_many of a FIFOQueue against a plain
producer-consumer doing the same work in the same process.

One producer thread enqueues batches of BATCH int64 rows (each row 16 values) into a
``tm.FIFOQueue`` of capacity 4 * BATCH through one Session (``sess.make_callable`` with the
batch fed); one consumer thread dequeues BATCH rows at a time until TOTAL rows have passed.
The baseline moves the same batches through a ``collections.deque`` guarded by a
``threading.Condition`` with the same capacity, splitting each batch into rows and stacking
rows into batches as the queue does (the least a row-granular bounded queue costs).
Rounds alternate between the two; medians are reported, in elements (rows) per second.

Run:  python bench/bench_queues.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import threading
import time

import numpy as np

import tfmini as tm

BATCH = 256
ROW = 16
CAPACITY = 4 * BATCH


def _tfmini_round(total: int) -> float:
    graph = tm.Graph()
    with graph.as_default():
        q = tm.FIFOQueue(CAPACITY, tm.int64, shapes=[[ROW]])
        x = tm.placeholder(tm.int64, [BATCH, ROW])
        enq = q.enqueue_many((x,))
        deq = q.dequeue_many(BATCH)
    batch = np.arange(BATCH * ROW, dtype=np.int64).reshape(BATCH, ROW)
    n = total // BATCH
    with tm.Session(graph=graph) as sess:
        enqueue = sess.make_callable(enq, feed_list=[x])
        dequeue = sess.make_callable(deq)

        def produce():
            for _ in range(n):
                enqueue(batch)

        start = time.perf_counter()
        t = threading.Thread(target=produce)
        t.start()
        for _ in range(n):
            dequeue()
        t.join()
        return n * BATCH / (time.perf_counter() - start)


def _numpy_round(total: int) -> float:
    items: collections.deque = collections.deque()
    cond = threading.Condition()
    batch = np.arange(BATCH * ROW, dtype=np.int64).reshape(BATCH, ROW)
    n = total // BATCH

    def produce():
        for _ in range(n):
            rows = list(np.array(batch, copy=True))
            pos = 0
            while pos < len(rows):
                with cond:
                    while len(items) >= CAPACITY:
                        cond.wait()
                    room = CAPACITY - len(items)
                    items.extend(rows[pos:pos + room])
                    pos += room
                    cond.notify_all()

    start = time.perf_counter()
    t = threading.Thread(target=produce)
    t.start()
    for _ in range(n):
        taken = []
        while len(taken) < BATCH:
            with cond:
                while not items:
                    cond.wait()
                while items and len(taken) < BATCH:
                    taken.append(items.popleft())
                cond.notify_all()
        np.stack(taken)
    t.join()
    return n * BATCH / (time.perf_counter() - start)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)
    rounds, total = (3, 20_000) if args.quick else (7, 100_000)
    ours, base = [], []
    for _ in range(rounds):
        ours.append(_tfmini_round(total))
        base.append(_numpy_round(total))
    result = {
        "tfmini_elements_per_s": statistics.median(ours),
        "numpy_deque_elements_per_s": statistics.median(base),
        "fraction_of_numpy": statistics.median(ours) / statistics.median(base),
        "rounds": rounds,
        "elements_per_round": total,
    }
    print(f"FIFOQueue enqueue_many/dequeue_many of {BATCH} rows x {ROW} int64, capacity "
          f"{CAPACITY}, one producer and one consumer thread")
    print(f"  tfmini queue:      {result['tfmini_elements_per_s']:12,.0f} elements/s "
          f"(median of {rounds})")
    print(f"  deque + Condition: {result['numpy_deque_elements_per_s']:12,.0f} elements/s")
    print(f"  tfmini / baseline: {result['fraction_of_numpy']:12.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
