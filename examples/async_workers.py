"""Asynchronous training: worker threads share one Session and drop stale gradients.

Each worker thread runs its own training step on its own mini-batches, all updating the same
variables (as workers update the variables of a parameter server). A worker's gradients are
computed on the model as it was when the worker read the global step; by the time it applies
them, other workers may have moved the model on. ``DropStaleGradientOptimizer`` applies them
only if at most ``staleness`` updates slipped in between, and otherwise counts them as
dropped. Run it with ``python examples/async_workers.py [workers] [steps] [staleness]``.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np

import tfmini as tm


def main(num_workers: int = 4, steps: int = 150, staleness: int = 2, seed: int = 0,
         verbose: bool = True) -> dict:
    """Trains a linear regression with ``num_workers`` threads of ``steps`` steps each.

    Returns:
        ``applied``, ``dropped``, ``attempted``, ``initial_loss``, ``final_loss`` and
        ``seconds``.
    """
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(512, 8)).astype(np.float32)
    true_w = rng.normal(size=(8, 1)).astype(np.float32)
    labels = features @ true_w + 0.01 * rng.normal(size=(512, 1)).astype(np.float32)

    g = tm.Graph()
    with g.as_default():
        global_step = tm.train.get_or_create_global_step()
        w = tm.Variable(np.zeros((8, 1), np.float32), name="w")
        b = tm.Variable(np.zeros(1, np.float32), name="b")
        x = tm.placeholder(tm.float32, shape=(None, 8), name="x")
        y = tm.placeholder(tm.float32, shape=(None, 1), name="y")
        loss = tm.reduce_mean(tm.square(tm.matmul(x, w) + b - y))
        train_ops = []
        for worker in range(num_workers):
            # One optimizer per worker, as one per worker process in TensorFlow; they share
            # the variables, the global step and the stale counter (reuse after the first).
            with tm.variable_scope(tm.get_variable_scope(), reuse=worker > 0):
                opt = tm.contrib.opt.DropStaleGradientOptimizer(
                    tm.train.GradientDescentOptimizer(0.05), staleness)
                train_ops.append(opt.minimize(loss, global_step=global_step))
        (stale_counter,) = [v for v in tm.global_variables() if v.name == "stale_counter:0"]

    def worker_loop(sess: tm.Session, train_op, worker: int) -> None:
        # Each worker trains on its own shard of the data.
        shard = np.arange(worker, len(features), num_workers)
        local = np.random.default_rng(seed + 1 + worker)
        for _ in range(steps):
            batch = local.choice(shard, 32)
            sess.run(train_op, {x: features[batch], y: labels[batch]})

    everything = {x: features, y: labels}
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        initial_loss = float(sess.run(loss, everything))
        start = time.perf_counter()
        threads = [threading.Thread(target=worker_loop, args=(sess, op, i))
                   for i, op in enumerate(train_ops)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - start
        applied, dropped = sess.run([global_step, stale_counter])
        final_loss = float(sess.run(loss, everything))

    result = {
        "applied": int(applied),
        "dropped": int(dropped),
        "attempted": num_workers * steps,
        "initial_loss": initial_loss,
        "final_loss": final_loss,
        "seconds": seconds,
    }
    if verbose:
        print(f"{num_workers} workers x {steps} steps, staleness bound {staleness}, "
              f"{seconds:.2f} s")
        print(f"updates applied: {result['applied']}, dropped as stale: {result['dropped']} "
              f"(of {result['attempted']})")
        print(f"loss: {initial_loss:.4f} -> {final_loss:.6f}")
    return result


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
