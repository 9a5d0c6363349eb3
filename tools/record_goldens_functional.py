"""Records TensorFlow's results for TensorArrays, map_fn/scan/foldl/foldr, case/switch_case,
py_func and custom_gradient into tests/goldens/functional.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_functional.py

The cases live in ``tests/ops/data_flow/functional_cases.py`` and run here under
``tf.compat.v1`` with ``disable_v2_behavior()`` (so TensorFlow builds TensorArrayV3 ops, the
ops tfmini implements). Keys: ``value/<case>/<key>`` (fetched values), ``error/<case>/class``
and ``error/<case>/message`` (the kernel's message, run-specific numbers normalised),
``build_error/<case>/...`` (TensorFlow's build-time ValueError/TypeError), ``name/<key>``
(names of the tensors the functions build).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.compat.v1.disable_v2_behavior()

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.ops.data_flow import functional_cases as cases  # noqa: E402

OUT = ROOT / "tests" / "goldens" / "functional.npz"
v1 = tf.compat.v1
records: dict[str, np.ndarray] = {}


class _TF:
    """``tf.compat.v1`` with the two names the cases use from TF2's top level."""

    def __getattr__(self, name):
        if name == "RegisterGradient":
            return tf.RegisterGradient
        return getattr(v1, name)


T = _TF()


def _kernel_message(e: Exception) -> str:
    text = getattr(e, "message", str(e))
    lines = text.split("\n")
    start = next((i + 1 for i, line in enumerate(lines) if line.startswith("Node: ")), 0)
    body = "\n".join(lines[start:])
    return cases.error_message(body.split("\n\t [[")[0].strip())


def main() -> None:
    for name, build in cases.VALUE_CASES.items():
        g = tf.Graph()
        with g.as_default():
            fetches = build(T)
            init = fetches.pop("__init__", None)
            with v1.Session() as sess:
                if init is not None:
                    sess.run(init)
                values = sess.run(fetches)
        for key, value in values.items():
            value = np.asarray(value)
            if value.dtype == object:  # strings: stored as text (npz without pickles)
                value = np.array([v.decode() for v in value.ravel()]).reshape(value.shape)
            records[f"value/{name}/{key}"] = value
    for name, build in cases.ERROR_CASES.items():
        g = tf.Graph()
        with g.as_default():
            fetch = build(T)
            try:
                with v1.Session() as sess:
                    sess.run(fetch)
            except tf.errors.OpError as e:
                records[f"error/{name}/class"] = np.asarray(type(e).__name__)
                first = _kernel_message(e)
                if name.startswith("py_func") or name.startswith("py_function"):
                    first = first.split("\n")[0]  # the exception line; tracebacks differ
                records[f"error/{name}/message"] = np.asarray(first)
            else:
                raise AssertionError(f"{name} did not fail under TensorFlow")
    for name, build in cases.BUILD_ERROR_CASES.items():
        with tf.Graph().as_default():
            try:
                build(T)
            except (TypeError, ValueError) as e:
                records[f"build_error/{name}/class"] = np.asarray(type(e).__name__)
                records[f"build_error/{name}/message"] = np.asarray(str(e).split("\n")[0])
            else:
                raise AssertionError(f"{name} did not fail under TensorFlow")
    with tf.Graph().as_default():
        for key, name in cases.tensor_names(T).items():
            records[f"name/{key}"] = np.asarray(name)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
