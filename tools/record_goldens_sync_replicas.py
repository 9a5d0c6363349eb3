"""Records TensorFlow 2.21's SyncReplicasOptimizer runs into tests/goldens/sync_replicas.npz.

The cases are defined here once, against the module under test (``tensorflow.compat.v1``
when recording, ``tfmini`` when tests/train/test_sync_replicas.py replays them). Replicas
are threads sharing one Session and graph, as between-graph replicas share a cluster: each
replica builds its own optimizer (its own ``sync_rep_local_step``) over the same variables,
so the accumulators (``<var>/grad_accum``) and the token queue (``sync_token_q``) are shared
by their shared names; replica 0 is the chief. TensorFlow is imported only by ``main``.

Run:  /tmp/tfenv/bin/python tools/record_goldens_sync_replicas.py
"""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "sync_replicas.npz")


def _wait_for(sess, tensor, value, seconds=10.0):
    # A round whose tokens were handed out before its update (the initial tokens) returns
    # before the chief applies it: wait for the update so the next round reads its result.
    end = time.time() + seconds
    while sess.run(tensor) < value:
        if time.time() > end:
            raise TimeoutError("the chief's update did not come")
        time.sleep(0.01)


def constant_gradients(tf, r, n, schedule, timeout_ms=300, settle=None, between=None):
    """w=[0,0]; replica 0's gradient is [1,1], replica 1's [3,5]; SGD lr 1. Runs the
    replicas' steps one at a time in ``schedule``; returns each step's value (the token, or
    -1 for a step that timed out waiting for one) and the final w and global step.

    ``timeout_ms`` is one deadline for every step, or one per step. ``settle(sess, gs)``
    waits, after the last step, for the chief's last update (default: 0.2 s).
    ``between(sess, counts)``, if given, runs after every step with the accumulators'
    ``num_accumulated`` tensors: a step that completes a round returns (with an initial
    token) before the chief's queue runner has taken it, and the next step's gradient must
    not race into that round (on a quiet machine TensorFlow's chief always won).
    """
    timeouts = [timeout_ms] * len(schedule) if isinstance(timeout_ms, int) else timeout_ms
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable([0.0, 0.0], name="w", use_resource=True)
        gs = tf.train.get_or_create_global_step()
        opts, trains = [], []
        for grad in ([1.0, 1.0], [3.0, 5.0]):
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1.0), r, n)
            trains.append(opt.apply_gradients([(tf.constant(grad), w)], global_step=gs))
            opts.append(opt)
        counts = [acc.num_accumulated() for acc, _ in opts[0]._accumulator_list]
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        with tf.Session() as sess:
            sess.run(init)
            sess.run(opts[0].chief_init_op)
            sess.run(opts[1].local_step_init_op)
            sess.run(opts[0].get_init_tokens_op())
            coord = tf.train.Coordinator()
            opts[0].get_chief_queue_runner().create_threads(
                sess, coord=coord, daemon=True, start=True)
            out = []
            for replica, timeout in zip(schedule, timeouts):
                try:
                    out.append(int(sess.run(trains[replica], options=tf.RunOptions(
                        timeout_in_ms=timeout))))
                except tf.errors.DeadlineExceededError:
                    out.append(-1)
                if between is not None:
                    between(sess, counts)
            if settle is None:
                time.sleep(0.2)  # let a last update finish
            else:
                settle(sess, gs)
            w_val, gs_val = sess.run([w, gs])
            # The queue runner's thread waits in take_grad: closing the session cancels it.
            coord.request_stop()
    return np.array(out, np.int64), np.asarray(w_val), np.int64(gs_val)


def linear_model(tf, rounds=5, replicas=2, r=2, lr=0.1):
    """A linear regression (w [3,1], b [1]) trained by ``replicas`` replicas in threads, one
    round at a time (all replicas step at once, then the next round); each replica has its
    own seeded batch. Returns the losses [rounds, replicas], tokens, and the final w, b."""
    rng = np.random.RandomState(7)
    xs = rng.randn(replicas, 8, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.zeros([3, 1], np.float32), name="w", use_resource=True)
        b = tf.Variable(np.zeros([1], np.float32), name="b", use_resource=True)
        gs = tf.train.get_or_create_global_step()
        opts, trains, losses = [], [], []
        for i in range(replicas):
            loss = tf.reduce_mean(tf.square(tf.matmul(xs[i], w) + b - ys[i]))
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(lr), r,
                                                 replicas)
            trains.append(opt.minimize(loss, global_step=gs))
            losses.append(loss)
            opts.append(opt)
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        with tf.Session() as sess:
            sess.run(init)
            sess.run(opts[0].chief_init_op)
            for opt in opts[1:]:
                sess.run(opt.local_step_init_op)
            sess.run(opts[0].get_init_tokens_op())
            coord = tf.train.Coordinator()
            opts[0].get_chief_queue_runner().create_threads(
                sess, coord=coord, daemon=True, start=True)
            out_loss = np.zeros([rounds, replicas], np.float32)
            out_tok = np.zeros([rounds, replicas], np.int64)

            def step(k, i):
                tok, lv = sess.run([trains[i], losses[i]])
                out_tok[k, i], out_loss[k, i] = tok, lv

            for k in range(rounds):
                ts = [threading.Thread(target=step, args=(k, i)) for i in range(replicas)]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join(30)
                if k == 0:
                    _wait_for(sess, gs, 1)
            w_val, b_val, gs_val = sess.run([w, b, gs])
            # The queue runner's thread waits in take_grad: closing the session cancels it.
            coord.request_stop()
    return out_loss, out_tok, np.asarray(w_val), np.asarray(b_val), np.int64(gs_val)


SCHEDULES = {
    "r2n2": (2, 2, [0, 0, 1, 1, 0, 1]),
    "r1n2": (1, 2, [0, 1, 0, 1]),
}


def record(tf) -> dict[str, np.ndarray]:
    """Every case's arrays, keyed ``<case>/<what>``."""
    out = {}
    for key, (r, n, schedule) in SCHEDULES.items():
        tokens, w, gs = constant_gradients(tf, r, n, schedule)
        out[f"{key}/tokens"], out[f"{key}/w"], out[f"{key}/gs"] = tokens, w, gs
    loss, tok, w, b, gs = linear_model(tf)
    out.update({"linear/loss": loss, "linear/tokens": tok, "linear/w": w, "linear/b": b,
                "linear/gs": gs})
    return out


def main() -> None:
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    out = record(tf)
    for k, v in out.items():
        print(k, v.tolist() if hasattr(v, "tolist") else v, file=sys.stderr)
    np.savez(GOLDEN, **out)


if __name__ == "__main__":
    main()
