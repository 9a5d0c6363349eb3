"""Records TensorFlow's results for the nn helpers into tests/goldens/nn_kit.npz.

The cases live in tests/ops/nn/nn_kit_cases.py, written once against the TF1 API; this script
runs them under ``tensorflow.compat.v1`` (graph mode) and tests/ops/nn/test_nn_kit.py replays
them on tfmini. Run with a Python that has TensorFlow::

    /tmp/tfenv/bin/python tools/record_goldens_nn_kit.py

Keys: ``value/<case>/<fetch>`` (outputs and ``grad/<input>`` gradients), ``name/<case>/<fetch>``
(the tensor's name in TensorFlow's graph), ``build_error/<case>`` and ``run_error/<case>``
(the exception class and the part of the message that names the problem).
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

from tests.ops.nn import nn_kit_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "nn_kit.npz")


def _gist(message: str) -> str:
    """The line of a TensorFlow error message that names the problem, without node context."""
    for line in message.split("\n"):
        s = line.strip()
        if (not s or line.startswith("  ") or s.startswith((
                "Graph execution error", "Detected at node", "File ", "[[", "Node:"))):
            continue
        return s.split(" for '{{node")[0].strip()
    return message.strip()


def record() -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name, thunk in nn_kit_cases.value_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetches, feeds = thunk()
            with tf.Session() as sess:
                values = sess.run(fetches, feeds)
        for key, v in values.items():
            out[f"value/{name}/{key}"] = np.asarray(v)
            out[f"name/{name}/{key}"] = np.array(fetches[key].name)
    for name, thunk in nn_kit_cases.build_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            try:
                thunk()
            except (ValueError, TypeError) as e:
                out[f"build_error/{name}"] = np.array(f"{type(e).__name__}: {_gist(str(e))}")
            else:
                problems.append(f"build_error case {name} built without error")
    for name, thunk in nn_kit_cases.run_error_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            fetch, feeds = thunk()
            with tf.Session() as sess:
                try:
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
