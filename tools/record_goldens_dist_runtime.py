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


def main() -> None:
    import tensorflow as tf_root

    warnings.filterwarnings("ignore")
    tf = tf_root.compat.v1
    tf.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    out = {"default_task": default_task(tf)}
    with open(GOLDEN, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.normpath(GOLDEN)}: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
