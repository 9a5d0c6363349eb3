"""Synchronous data-parallel training through conditional accumulators (SyncReplicasOptimizer).

A chief and N worker threads share one Session and train one linear model in lock-step:

* each worker, at global step s, computes the gradients of the loss on its own data shard
  with ``tm.gradients`` and applies them to one accumulator per variable with
  ``local_step=s`` (and a 1.0 to a SUM accumulator that counts the contributors);
* the chief's single run takes the averages as soon as ``N - 1`` gradients are in (the
  takes block; the executor runs them side by side), applies them with ``assign_sub``,
  and advances the global step; each take also moves its accumulator's step on;
* a worker starts its next step only once the step has moved on (the chief hands out the
  step like SyncReplicasOptimizer's tokens), so nobody contributes twice to one round.

Worker 0 is deliberately slow every few steps: it applies a gradient computed at a step the
chief has already finished, and the accumulators drop it as stale. The count accumulator
shows how many gradients each round averaged, so the drops are counted, not guessed.

Run:  python examples/sync_replicas.py [--workers 4] [--steps 40]
"""

from __future__ import annotations

import argparse
import threading

import numpy as np

import tfmini as tm


def build(features: int, workers: int, learning_rate: float):
    """The graph: variables, the per-worker gradient and apply ops, the chief's update."""
    g = tm.Graph()
    with g.as_default():
        w = tm.Variable(np.zeros(features), name="w")
        b = tm.Variable(0.0, dtype=tm.float64, name="b")
        global_step = tm.Variable(0, dtype=tm.int64, name="global_step", trainable=False)
        x = tm.placeholder(tm.float64, [None, features], name="x")
        y = tm.placeholder(tm.float64, [None], name="y")
        loss = tm.reduce_mean(tm.square(tm.reduce_sum(x * w, axis=1) + b - y), name="loss")
        grads = tm.gradients(loss, [w, b])

        accs = [tm.ConditionalAccumulator(tm.float64, shape=v.shape, name=f"{n}_grad_acc")
                for v, n in ((w, "w"), (b, "b"))]
        count = tm.ConditionalAccumulator(tm.float64, shape=[], name="contributors",
                                          reduction_type="SUM")
        # A worker feeds back the gradients it computed and the step it computed them at.
        fed = [tm.placeholder(tm.float64, v.shape, name=f"{n}_grad") for v, n in
               ((w, "w"), (b, "b"))]
        local_step = tm.placeholder(tm.int64, [], name="local_step")
        apply = tm.group(*[a.apply_grad(gv, local_step=local_step) for a, gv in zip(accs, fed)],
                         count.apply_grad(1.0, local_step=local_step))

        # The chief: take the averages of `workers - 1` gradients, update, advance the step.
        required = max(workers - 1, 1)
        averages = [a.take_grad(required) for a in accs]
        contributors = count.take_grad(required)
        updates = [v.assign_sub(learning_rate * avg) for v, avg in zip((w, b), averages)]
        with tm.control_dependencies(updates):
            advance = global_step.assign_add(1)
    return {
        "graph": g, "x": x, "y": y, "loss": loss, "grads": grads, "step": global_step,
        "fed": fed, "local_step": local_step, "apply": apply,
        "chief": {"step": advance, "contributors": contributors},
    }


def main(workers: int = 4, steps: int = 40, features: int = 5, samples: int = 64,
         slow_every: int = 3, learning_rate: float = 0.1, seed: int = 0,
         verbose: bool = True) -> dict:
    """Trains, printing progress; returns the losses and the gradient counts.

    Args:
        workers: Number of worker threads (at least 2: the chief waits for ``workers - 1``).
        steps: Number of synchronous updates the chief makes.
        features: Size of the model's weight vector.
        samples: Data rows per worker.
        slow_every: Worker 0 falls behind on every ``slow_every``-th step (0: never).
        learning_rate: Step size of the chief's update.
        seed: Seed of the synthetic data.
        verbose: Print progress.

    Returns:
        ``{"losses", "applied", "accepted", "dropped", "late", "per_round"}``: the full-data
        loss before and after each update, how many gradients workers applied, how many the
        accumulators averaged and dropped as stale, how many worker 0 applied late on
        purpose, and the contributors per round (from the count accumulator).
    """
    if workers < 2:
        raise ValueError("sync_replicas needs at least 2 workers")
    rng = np.random.default_rng(seed)
    true_w = rng.normal(size=features)
    shards = []
    for _ in range(workers):
        xs = rng.normal(size=(samples, features))
        shards.append((xs, xs @ true_w + 0.5 + 0.01 * rng.normal(size=samples)))
    all_x = np.concatenate([s[0] for s in shards])
    all_y = np.concatenate([s[1] for s in shards])

    m = build(features, workers, learning_rate)
    token = threading.Condition()
    current = [0]  # the step the chief has handed out (its token)
    applied = [0] * workers
    late = [0]  # gradients worker 0 applied after the chief had finished their step
    errors: list[BaseException] = []

    def wait_past(step: int) -> int:
        with token:
            while current[0] <= step:
                token.wait()
            return current[0]

    with tm.Session(graph=m["graph"]) as sess:
        sess.run(tm.global_variables_initializer())
        compute = sess.make_callable([m["step"], *m["grads"]], [m["x"], m["y"]])
        apply = sess.make_callable(m["apply"], [*m["fed"], m["local_step"]])

        def worker(i: int) -> None:
            try:
                xs, ys = shards[i]
                step = 0
                while step < steps:
                    local, gw, gb = compute(xs, ys)
                    if i == 0 and slow_every and local % slow_every == slow_every - 1:
                        wait_past(local)  # fell behind: the chief moved on without us
                        late[0] += 1
                    apply(gw, gb, local)
                    applied[i] += 1
                    step = wait_past(local)
            except BaseException as e:  # reported by the main thread
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(i,), daemon=True)
                   for i in range(workers)]
        for t in threads:
            t.start()
        losses = [float(sess.run(m["loss"], {m["x"]: all_x, m["y"]: all_y}))]
        per_round = []
        for _ in range(steps):
            out = sess.run(m["chief"], options=tm.RunOptions(timeout_in_ms=10_000))
            per_round.append(int(out["contributors"]))
            losses.append(float(sess.run(m["loss"], {m["x"]: all_x, m["y"]: all_y})))
            with token:
                current[0] = int(out["step"])
                token.notify_all()
            if verbose and (current[0] % 5 == 0 or current[0] == 1):
                print(f"step {current[0]:3d}  loss {losses[-1]:.6f}  "
                      f"averaged {per_round[-1]} of {workers} gradients")
        for t in threads:
            t.join(10)
    if errors:
        raise errors[0]
    total_applied = sum(applied)
    accepted = sum(per_round)
    # Every gradient was computed at a step the chief took: averaged in it, or dropped as
    # stale (applied after that take). The deliberately late ones are always dropped; a
    # worker that is merely last to arrive may be dropped too.
    result = {
        "losses": losses,
        "applied": total_applied,
        "accepted": accepted,
        "dropped": total_applied - accepted,
        "late": late[0],
        "per_round": per_round,
    }
    if verbose:
        print(f"{total_applied} gradients applied, {accepted} averaged, "
              f"{result['dropped']} dropped as stale ({late[0]} from worker 0 falling behind); "
              f"loss {losses[0]:.3f} -> {losses[-1]:.6f}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--slow-every", type=int, default=3)
    args = parser.parse_args()
    main(workers=args.workers, steps=args.steps, slow_every=args.slow_every)
