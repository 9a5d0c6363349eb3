"""Records what TensorFlow 2.21's ``tf.compat.v1.train.Supervisor`` does, into
tests/goldens/supervisor.json.

Observed, in one process (master ""): the collections a Supervisor reads and fills with its
default ops (``INIT_OP``, ``LOCAL_INIT_OP``, ``READY_OP``, ``READY_FOR_LOCAL_INIT_OP``,
``SAVERS``, ``SUMMARY_OP``) and the op types of those defaults; the checkpoint files a
``managed_session`` leaves (with the checkpoint thread off, and on); the global step a second
chief restores; what a non-chief's ``prepare_or_wait_for_session`` raises when nothing
initialises the model within ``max_wait_secs``; that ``local_init_op`` waits on
``ready_for_local_init_op``; and what ``stop()`` re-raises from a thread it joins.
tests/train/test_supervisor.py replays them.

Run:  /tmp/tfenv/bin/python tools/record_goldens_supervisor.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "supervisor.json")

_KEYS = ("INIT_OP", "LOCAL_INIT_OP", "READY_OP", "READY_FOR_LOCAL_INIT_OP", "SAVERS",
         "SUMMARY_OP")


def _model(tf):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(5.0, name="w")
    loss = tf.square(w, name="loss")
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, train


def _kind(x) -> str | None:
    # An op by its type, a tensor by its op's type and "tensor", anything else by its class.
    if x is None:
        return None
    if hasattr(x, "node_def"):
        return x.type
    if hasattr(x, "op") and hasattr(x, "dtype"):
        return f"tensor of {x.op.type}"
    return type(x).__name__


def _collections(tf, graph) -> dict:
    return {key: [_kind(i) for i in graph.get_collection(getattr(tf.GraphKeys, key))]
            for key in _KEYS}


def defaults(tf) -> dict:
    with tf.Graph().as_default() as g:
        _model(tf)
        before = _collections(tf, g)
        sv = tf.train.Supervisor(logdir=tempfile.mkdtemp())
        after = _collections(tf, g)
        return {"before": before, "after": after,
                "init_op": _kind(sv.init_op), "ready_op": _kind(sv.ready_op),
                "ready_for_local_init_op": _kind(sv.ready_for_local_init_op),
                "summary_op": _kind(sv.summary_op), "saver": _kind(sv.saver),
                "global_step": sv.global_step.op.name, "is_chief": sv.is_chief,
                "save_path": os.path.basename(sv.save_path),
                "finalized": g.finalized}


def _files(d) -> list:
    return sorted(f for f in os.listdir(d) if not f.startswith("events."))


def checkpoints(tf) -> dict:
    out = {}
    # "off": no checkpoint thread, two steps; "on": the thread (its first save is at its
    # start, racing the loop, so no steps are taken there). No save when the session ends.
    for name, secs, steps in (("off", 0, 2), ("on", 600, 0)):
        d = tempfile.mkdtemp()
        with tf.Graph().as_default():
            gs, w, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_model_secs=secs, save_summaries_secs=0)
            with sv.managed_session() as sess:
                for _ in range(steps):
                    sess.run(train)
                time.sleep(0.3)
        out[name] = _files(d)
        with tf.Graph().as_default():
            gs, w, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_model_secs=0, save_summaries_secs=0)
            with sv.managed_session() as sess:
                out[name + "_restored_step"] = int(sess.run(gs))
                out[name + "_restored_w"] = float(sess.run(w))
    return out


def non_chief_wait(tf) -> dict:
    with tf.Graph().as_default():
        _model(tf)
        sv = tf.train.Supervisor(is_chief=False, logdir=tempfile.mkdtemp(),
                                 recovery_wait_secs=0.2)
        t0 = time.time()
        try:
            sv.prepare_or_wait_for_session(max_wait_secs=0.5)
            err = "no error"
        except Exception as e:  # the class and message are what is recorded
            err = f"{type(e).__name__}: {e}"
        return {"error": err, "waited_at_least": round(time.time() - t0, 1) >= 0.2}


def local_init_order(tf) -> dict:
    # The local init op reads a global variable: it may run only once the model is ready
    # for it (ready_for_local_init_op); the chief's init_op makes it so.
    with tf.Graph().as_default():
        g = tf.Variable(3.0, name="g")
        loc = tf.Variable(0.0, name="loc", trainable=False,
                          collections=[tf.GraphKeys.LOCAL_VARIABLES])
        local_init = loc.assign(g * 2.0)
        ready_for_local = tf.report_uninitialized_variables(tf.global_variables())
        sv = tf.train.Supervisor(logdir=None, local_init_op=local_init,
                                 ready_for_local_init_op=ready_for_local,
                                 ready_op=tf.report_uninitialized_variables())
        with sv.managed_session() as sess:
            return {"loc": float(sess.run(loc))}


def stop_reraises(tf) -> dict:
    with tf.Graph().as_default():
        _model(tf)
        sv = tf.train.Supervisor(logdir=None)
        try:
            with sv.managed_session():
                sv.loop(0.01, lambda: (_ for _ in ()).throw(ValueError("from a thread")))
                while not sv.should_stop():
                    time.sleep(0.01)
            err = "no error"
        except Exception as e:
            err = f"{type(e).__name__}: {e}"
        return {"error": err}


def main() -> None:
    import tensorflow as tf_root

    warnings.filterwarnings("ignore")
    tf = tf_root.compat.v1
    tf.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    out = {"defaults": defaults(tf), "checkpoints": checkpoints(tf),
           "non_chief_wait": non_chief_wait(tf), "local_init_order": local_init_order(tf),
           "stop_reraises": stop_reraises(tf)}
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(GOLDEN)}: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
