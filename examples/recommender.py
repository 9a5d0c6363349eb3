"""A two-table recommender: embeddings on the simulated TPU, a dense tower on the CPU.

User and item embeddings live on ``/device:TPU:0`` (``tm.tpu.TPUEmbedding`` with Adagrad); a
small tower on the CPU scores ``[user, item, user * item]`` with one hidden ReLU layer and a
logistic loss. Each step enqueues a batch of (user, item) ids, receives the activations,
differentiates the loss with ``tm.gradients`` (dense weights updated with ``assign_sub``,
embedding gradients sent back to the device) and reports the loss and lookups per second.

The interactions are synthetic: hidden user and item factors decide which pairs "click", so
the loss can fall well below log(2). Run ``python examples/recommender.py --help``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tfmini as tm


def synthetic_interactions(num_users: int, num_items: int, rank: int, size: int,
                           rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """(user ids, item ids, 0/1 labels) where a click means the hidden factors agree."""
    user_factors = rng.standard_normal((num_users, rank))
    item_factors = rng.standard_normal((num_items, rank))
    users = rng.integers(0, num_users, size)
    items = rng.integers(0, num_items, size)
    score = np.einsum("nr,nr->n", user_factors[users], item_factors[items])
    return users.astype(np.int32), items.astype(np.int32), (score > 0).astype(np.float32)


def build(num_users: int, num_items: int, dim: int, hidden: int, batch: int,
          learning_rate: float, seed: int) -> dict:
    """Builds the graph in the default graph; returns the tensors and ops a step needs."""
    rng = np.random.default_rng(seed)
    user_table = tm.tpu.TableConfig(num_users, dim, name="users")
    item_table = tm.tpu.TableConfig(num_items, dim, name="items")
    embedding = tm.tpu.TPUEmbedding(
        {"user": tm.tpu.FeatureConfig(user_table), "item": tm.tpu.FeatureConfig(item_table)},
        optimizer=tm.tpu.Adagrad(learning_rate, initial_accumulator_value=0.1),
        batch_size=batch)

    user_ids = tm.placeholder(tm.int32, [batch], name="user_ids")
    item_ids = tm.placeholder(tm.int32, [batch], name="item_ids")
    labels = tm.placeholder(tm.float32, [batch], name="labels")
    enqueue = embedding.enqueue({"user": user_ids, "item": item_ids})
    act = embedding.dequeue()

    # The dense tower runs on the CPU; its weights are ordinary variables.
    w1 = tm.Variable(rng.normal(0, (3 * dim) ** -0.5, (3 * dim, hidden)).astype(np.float32),
                     name="w1")
    b1 = tm.Variable(np.zeros(hidden, np.float32), name="b1")
    w2 = tm.Variable(rng.normal(0, hidden ** -0.5, (hidden, 1)).astype(np.float32), name="w2")
    b2 = tm.Variable(np.zeros(1, np.float32), name="b2")
    features = tm.concat([act["user"], act["item"], act["user"] * act["item"]], axis=1)
    h = tm.nn.relu(tm.matmul(features, w1) + b1)
    logits = tm.reshape(tm.matmul(h, w2) + b2, [batch])
    # Logistic loss, written stably: max(x, 0) - x*y + log(1 + exp(-|x|)).
    loss = tm.reduce_mean(tm.maximum(logits, 0.0) - logits * labels
                          + tm.log(1.0 + tm.exp(-tm.abs(logits))))

    dense = [w1, b1, w2, b2]
    grads = tm.gradients(loss, dense + [act["user"], act["item"]])
    # Embedding gradients are scaled up: the mean loss spreads each row's signal thin.
    scale = float(batch)
    updates = [v.assign_sub(learning_rate * g) for v, g in zip(dense, grads[:4])]
    send = embedding.apply_gradients({"user": grads[4] * scale, "item": grads[5] * scale})
    train = tm.group(send, *updates)
    return {"embedding": embedding, "enqueue": enqueue, "loss": loss, "train": train,
            "user_ids": user_ids, "item_ids": item_ids, "labels": labels,
            "init": tm.global_variables_initializer()}


def main(argv: list[str] | None = None) -> dict:
    """Trains and prints progress; returns ``{"losses": [...], "lookups_per_second": x}``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--learning-rate", type=float, default=0.5)
    parser.add_argument("--interactions", type=int, default=200000)
    parser.add_argument("--report-every", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    users, items, clicks = synthetic_interactions(args.users, args.items, 4,
                                                  args.interactions, rng)
    graph = tm.Graph()
    with graph.as_default():
        m = build(args.users, args.items, args.dim, args.hidden, args.batch,
                  args.learning_rate, args.seed)
    losses = []
    with tm.Session(graph=graph) as sess:
        sess.run(m["init"])
        sess.run(m["embedding"].initializer)  # ConfigureTPUEmbedding + Load ops
        start = time.perf_counter()
        window = []
        for step in range(1, args.steps + 1):
            pick = rng.integers(0, len(users), args.batch)
            sess.run(m["enqueue"], {m["user_ids"]: users[pick], m["item_ids"]: items[pick]})
            loss, _ = sess.run([m["loss"], m["train"]], {m["labels"]: clicks[pick]})
            window.append(float(loss))
            if step % args.report_every == 0 or step == args.steps:
                losses.append(float(np.mean(window)))
                window = []
                print(f"step {step:5d}  loss {losses[-1]:.4f}")
        elapsed = time.perf_counter() - start
    lookups = 2 * args.batch * args.steps / elapsed  # two features per sample
    print(f"{lookups:,.0f} lookups/s ({args.steps} steps of {args.batch} users and items "
          f"in {elapsed:.2f} s)")
    return {"losses": losses, "lookups_per_second": lookups}


if __name__ == "__main__":
    main()
