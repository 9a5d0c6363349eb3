"""Records TensorFlow's candidate samplers, sampled losses and sharded embedding lookups into
tests/goldens/sampled.npz.

The cases live in tests/ops/nn/sampled_cases.py; this script runs them under
``tensorflow.compat.v1`` (graph mode) and tests/ops/nn/test_sampled.py replays them on tfmini::

    /tmp/tfenv/bin/python tools/record_goldens_sampled.py

Keys: ``value/<case>/<run>/<fetch>`` (each run of the fetches in one Session),
``name/<case>/<fetch>`` (the tensor's name in TensorFlow's graph, gradients excepted) and
``run_error/<case>`` (the exception class and the line of the message naming the problem).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.ops.nn import sampled_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "sampled.npz")


def _gist(message: str) -> str:
    """The line of a TensorFlow error message that names the problem, without node context."""
    for line in message.split("\n"):
        s = line.strip()
        if (not s or line.startswith("  ") or s.startswith((
                "Graph execution error", "Detected at node", "File ", "[[", "Node:"))):
            continue
        return s.split(" for '{{node")[0].split("\t [[")[0].strip()
    return message.strip()


def record() -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name, thunk in sampled_cases.value_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetches, feeds, runs = thunk()
            for key, t in fetches.items():
                if not key.startswith("grad/"):
                    out[f"name/{name}/{key}"] = np.array(t.name)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for r in range(runs):
                    for key, v in sess.run(fetches, feeds).items():
                        out[f"value/{name}/{r}/{key}"] = np.asarray(v)
    for name, thunk in sampled_cases.run_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetch, feeds = thunk()
            with tf.Session() as sess:
                try:
                    sess.run(tf.global_variables_initializer())
                    sess.run(fetch, feeds)
                except tf.errors.OpError as e:
                    out[f"run_error/{name}"] = np.array(
                        f"{type(e).__name__}: {_gist(e.message)}")
                else:
                    problems.append(f"run_error case {name} ran without error")
    if problems:
        raise AssertionError("\n".join(problems))
    return out


if __name__ == "__main__":
    records = record()
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")
