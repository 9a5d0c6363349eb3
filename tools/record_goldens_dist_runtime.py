"""Records where TensorFlow 2.21 runs ops that have no device in a session on a cluster task,
into tests/goldens/dist_runtime.json.

Two in-process workers and one ps (``tf.distribute.Server``s on free localhost ports); each
worker's session runs the same device-less graph: an enqueue into a FIFOQueue shared by name
(``shared_name="default_task_q"``), worker 0 once and worker 1 twice, then each reads its
queue's size. Recorded: the sizes each session sees and the device its enqueue ran on (from
the run's step stats). TensorFlow 1.15 placed such ops on the cluster's first device
(``/job:ps/replica:0/task:0``); TensorFlow 2.21 places them on the session's own task, so each
worker has a queue of its own. tests/distribute/test_default_task.py replays it.

Run:  /tmp/tfenv/bin/python tools/record_goldens_dist_runtime.py
"""

from __future__ import annotations

import json
import os
import socket
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens",
                      "dist_runtime.json")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_task(tf) -> dict:
    cluster = tf.train.ClusterSpec({"worker": [f"localhost:{_free_port()}" for _ in range(2)],
                                    "ps": [f"localhost:{_free_port()}"]})
    workers = [tf.train.Server(cluster, job_name="worker", task_index=i) for i in range(2)]
    tf.train.Server(cluster, job_name="ps", task_index=0)
    out = {"sizes": [], "enqueue_devices": []}
    for task, times in ((0, 1), (1, 2)):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(10, tf.float32, shapes=(), shared_name="default_task_q")
            enqueue = q.enqueue(1.0)
            size = q.size()
            with tf.Session(workers[task].target) as sess:
                meta = tf.RunMetadata()
                for _ in range(times):
                    sess.run(enqueue, options=tf.RunOptions(trace_level=3),
                             run_metadata=meta)
                out["enqueue_devices"].append(sorted(
                    d.device for d in meta.step_stats.dev_stats
                    if any(n.node_name == enqueue.name for n in d.node_stats)))
                out["sizes"].append(int(sess.run(size)))
    return out


def _placement_builds(tf) -> dict:
    # Each builds a graph on a cluster of one worker and two ps tasks and returns what its
    # run fetches; "read" / "apply" is the op whose placement is recorded.
    def variables():
        with tf.device("/job:ps/task:0"):
            a = tf.Variable(1.0, name="a", use_resource=True)
        with tf.device("/job:ps/task:1"):
            b = tf.Variable(2.0, name="b", use_resource=True)
        return a, b

    def two_resources():
        a, b = variables()
        return tf.raw_ops.ResourceApplyAdagrad(var=a.handle, accum=b.handle, lr=0.1,
                                               grad=1.0, name="apply")

    def two_resources_on_worker():
        a, b = variables()
        with tf.device("/job:worker/task:0"):
            return tf.raw_ops.ResourceApplyAdagrad(var=a.handle, accum=b.handle, lr=0.1,
                                                   grad=1.0, name="apply")

    def read_pinned_elsewhere():
        a, _ = variables()
        with tf.device("/job:ps/task:1"):
            return tf.raw_ops.ReadVariableOp(resource=a.handle, dtype=tf.float32, name="read")

    def read_colocated_elsewhere():
        a, b = variables()
        with tf.colocate_with(b.op):
            return tf.raw_ops.ReadVariableOp(resource=a.handle, dtype=tf.float32, name="read")

    return {f.__name__: f for f in (two_resources, two_resources_on_worker,
                                    read_pinned_elsewhere, read_colocated_elsewhere)}


def placement(tf) -> dict:
    """Per case and ``allow_soft_placement``: the error class and the placer's message (its
    "Cannot ..." line, without the "Detected at node" traces), or the device the op ran on."""
    cluster = tf.train.ClusterSpec({"worker": [f"localhost:{_free_port()}"],
                                    "ps": [f"localhost:{_free_port()}" for _ in range(2)]})
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    for i in range(2):
        tf.train.Server(cluster, job_name="ps", task_index=i)
    out = {}
    for name, build in _placement_builds(tf).items():
        for soft in (False, True):
            with tf.Graph().as_default():
                fetch = build()
                config = tf.ConfigProto(allow_soft_placement=soft)
                try:
                    with tf.Session(worker.target, config=config) as sess:
                        sess.run(tf.global_variables_initializer())
                        meta = tf.RunMetadata()
                        sess.run(fetch, options=tf.RunOptions(trace_level=3),
                                 run_metadata=meta)
                    got = {"ran_on": sorted(
                        d.device for d in meta.step_stats.dev_stats
                        if any(n.node_name in ("read", "apply") for n in d.node_stats))}
                except Exception as e:  # the class and message are what is recorded
                    lines = str(e).strip().splitlines()
                    got = {"error": type(e).__name__,
                           "message": next((x for x in lines if x.startswith("Cannot ")),
                                           lines[-1])}
            out[f"{name}/soft={soft}"] = got
    return out


def main() -> None:
    import tensorflow as tf_root

    warnings.filterwarnings("ignore")
    tf = tf_root.compat.v1
    tf.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    out = {"default_task": default_task(tf), "placement": placement(tf)}
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(GOLDEN)}: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
