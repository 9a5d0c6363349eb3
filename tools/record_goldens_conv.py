"""Records TensorFlow's convolution and pooling results into tests/goldens/conv.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_conv.py

The cases live once, in ``tests/ops/nn/conv_cases.py`` (functions taking the module ``tf``);
this tool runs each with ``tensorflow.compat.v1`` in graph mode and stores ``<case>/<name>``
for every fetched tensor. TensorFlow's default CPU build (oneDNN on) runs the NCHW cases
natively. Error cases store ``<case>/class`` (the exception class name) and
``<case>/message`` (its first line, without TensorFlow's node description).
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_v2_behavior()

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "goldens" / "conv.npz"
spec = importlib.util.spec_from_file_location("conv_cases",
                                              ROOT / "tests" / "ops" / "nn" / "conv_cases.py")
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)

records: dict[str, np.ndarray] = {}


def _first_line(message: str) -> str:
    lines = message.split("\n")
    # A session error's text is "Graph execution error: ... Node: 'x'\n<the kernel's message>".
    for i, line in enumerate(lines):
        if line.startswith("Node: ") and i + 1 < len(lines):
            return lines[i + 1].split(" for '{{node")[0]
    return lines[0].split(" for '{{node")[0].split(" [Op:")[0]


for name, (_, fn) in cases.CASES.items():
    inputs = cases.make_inputs(name)
    g = tf.Graph()
    with g.as_default():
        fetches = fn(tf, inputs)
        with tf.Session(graph=g) as sess:
            try:
                values = sess.run(fetches)
            except tf.errors.AbortedError as e:
                # oneDNN cannot run some gradient graphs (no primitive descriptor): the test
                # reports the case as not recorded rather than passing it silently.
                print("NOT RECORDED", name, _first_line(e.message)[:100])
                records[f"{name}/not_recorded"] = np.array(_first_line(e.message))
                continue
    for k, v in values.items():
        records[f"{name}/{k}"] = np.asarray(v)


for name, build in cases.ERROR_CASES.items():
    g = tf.Graph()
    try:
        with g.as_default():
            t = build(tf)
            with tf.Session(graph=g) as sess:
                sess.run(t)
        raise SystemExit(f"{name}: TensorFlow raised nothing")
    except (ValueError, TypeError, tf.errors.OpError) as e:
        records[f"error/{name}/class"] = np.array(type(e).__name__)
        msg = e.message if isinstance(e, tf.errors.OpError) else str(e)
        records[f"error/{name}/message"] = np.array(_first_line(msg))
        print(name, type(e).__name__, _first_line(msg)[:150])

np.savez_compressed(OUT, **records)
print("wrote", OUT, len(records), "arrays,", OUT.stat().st_size, "bytes")
