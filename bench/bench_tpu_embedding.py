"""TPU embedding lookup + Adagrad update speed on the simulated device (issue 6).

One training step for a batch of 4,096 Zipf-distributed ids (numpy's zipf, a = 1.2, clipped
to the vocabulary: a few ids repeat hundreds of times, most once) on a 1,000,000 x 64 float32
table with Adagrad, through a Session: EnqueueTPUEmbeddingIntegerBatch (the ids, fed),
RecvTPUEmbeddingActivations (the gather) and SendTPUEmbeddingGradients (a fed float32
gradient; the device sums it per row and applies Adagrad once per touched row), all in one
``Session.run`` (Send ordered after Recv; Recv, a blocking op, runs in the calling thread
once the Enqueue is done, as it is then the only step ready). Next to it, in the same
process with the measurements interleaved: the same gather + scatter-add Adagrad written
directly in NumPy (``np.unique`` + ``np.add.at`` + fancy-index row updates).

TensorFlow 2.21's variable path on this machine (ResourceGather + ResourceSparseApplyAdagrad,
``bench/perf_harness.py``'s embedding workload) took 1.2-1.8 ms per step on 2026-11-25 at
load averages of 2-7 (about 5 ms was recorded earlier); the target is to be at most as
slow.

Run:  python bench/bench_tpu_embedding.py [--quick] [--cores N] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

VOCAB, DIM, BATCH, LR = 1_000_000, 64, 4096, 0.01
TF_MS = 1.2  # TensorFlow 2.21's variable path, this machine, 2026-11-25 (perf_harness.py)


def zipf_batches(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.minimum(rng.zipf(1.2, size=BATCH) - 1, VOCAB - 1).astype(np.int32)
            for _ in range(n)]


def build_session(table: np.ndarray, cores: int):
    """A configured, loaded session and a callable running one step (ids, grads) -> acts."""
    T = tm.tpu
    config = T.TPUEmbeddingConfiguration(
        table_descriptor=[T.TableDescriptor(
            name="items", vocabulary_size=VOCAB, dimension=DIM, num_features=1,
            optimization_parameters=T.OptimizationParameters(
                learning_rate=T.LearningRate(constant=LR), adagrad=T.AdagradParameters()))],
        mode="TRAINING", batch_size_per_tensor_core=BATCH, num_hosts=1, num_tensor_cores=cores)
    s = config.SerializeToString()
    g = tm.Graph()
    with g.as_default():
        configure = tm.raw_ops.ConfigureTPUEmbedding(config=s)
        load = tm.raw_ops.LoadTPUEmbeddingAdagradParameters(
            parameters=tm.placeholder(tm.float32, (VOCAB, DIM), name="table"),
            accumulators=tm.fill([VOCAB, DIM], 0.1), table_name="items", num_shards=1,
            shard_id=0, config=s)
        ids = tm.placeholder(tm.int32, (BATCH,), name="ids")
        grads = tm.placeholder(tm.float32, (BATCH, DIM), name="grads")
        enqueue = tm.raw_ops.EnqueueTPUEmbeddingIntegerBatch(batch=[ids], mode_override="train")
        (acts,) = tm.raw_ops.RecvTPUEmbeddingActivations(num_outputs=1, config=s)
        # Send after Recv, as in a model whose gradients come from the activations (the fed
        # gradients here have no data dependency on them, and Send needs Recv's batch).
        with tm.control_dependencies([acts]):
            send = tm.raw_ops.SendTPUEmbeddingGradients(inputs=[grads], learning_rates=[],
                                                        config=s)
    sess = tm.Session(graph=g)
    sess.run(configure)
    sess.run(load, {"table:0": table})
    step = sess.make_callable([acts, send, enqueue], feed_list=[ids, grads])
    return sess, lambda i, gr: step(i, gr)[0]


def numpy_step(table: np.ndarray, acc: np.ndarray, ids: np.ndarray,
               grads: np.ndarray) -> np.ndarray:
    """The same step in plain NumPy: gather, sum gradients per row, Adagrad on those rows."""
    acts = table[ids]
    rows, inverse = np.unique(ids, return_inverse=True)
    g = np.zeros((len(rows), DIM), np.float32)
    np.add.at(g, inverse, grads)
    a = acc[rows] + g * g
    acc[rows] = a
    table[rows] -= np.float32(LR) * g / np.sqrt(a)
    return acts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps")
    parser.add_argument("--cores", type=int, default=1, help="simulated tensor cores")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    steps = 20 if args.quick else 100

    rng = np.random.default_rng(1)
    table = rng.standard_normal((VOCAB, DIM), dtype=np.float32)
    sess, tm_step = build_session(table, args.cores)
    np_table, np_acc = table.copy(), np.full((VOCAB, DIM), 0.1, np.float32)
    batches = zipf_batches(steps + 5)
    grads = rng.standard_normal((BATCH, DIM), dtype=np.float32)

    # Both start from the same table and see the same batches: their activations must agree.
    for ids in batches[:5]:
        a = tm_step(ids, grads)
        b = numpy_step(np_table, np_acc, ids, grads)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    tm_ms, np_ms = [], []
    for ids in batches[5:]:
        t0 = time.perf_counter()
        tm_step(ids, grads)
        t1 = time.perf_counter()
        numpy_step(np_table, np_acc, ids, grads)
        t2 = time.perf_counter()
        tm_ms.append((t1 - t0) * 1e3)
        np_ms.append((t2 - t1) * 1e3)
    sess.close()
    unique = statistics.median(len(np.unique(b)) for b in batches)
    result = {
        "table": [VOCAB, DIM], "batch": BATCH, "cores": args.cores,
        "median_unique_ids": unique,
        "tfmini_ms_per_step": round(statistics.median(tm_ms), 3),
        "numpy_ms_per_step": round(statistics.median(np_ms), 3),
        "tensorflow_ms_per_step": TF_MS,
    }
    result["tfmini_over_numpy"] = round(result["tfmini_ms_per_step"]
                                        / result["numpy_ms_per_step"], 2)
    result["tfmini_over_tensorflow"] = round(result["tfmini_ms_per_step"] / TF_MS, 2)
    print(f"lookup + Adagrad, {BATCH} Zipf ids ({unique:.0f} distinct) on {VOCAB}x{DIM} "
          f"float32, {args.cores} simulated core(s)")
    print(f"  tfmini Session (Enqueue+Recv+Send): {result['tfmini_ms_per_step']:.2f} ms/step")
    print(f"  plain NumPy gather+scatter-add:     {result['numpy_ms_per_step']:.2f} ms/step")
    print(f"  ratio tfmini/NumPy {result['tfmini_over_numpy']:.2f}, "
          f"tfmini/TensorFlow(~{TF_MS:.0f} ms) {result['tfmini_over_tensorflow']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
