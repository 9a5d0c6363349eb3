"""Records TensorFlow 2.21's RNN cells and drivers (tf.compat.v1.nn.rnn_cell on tf_keras 2.21,
tf.compat.v1.nn.dynamic_rnn & co.) into tests/goldens/rnn.npz (values) and
tests/goldens/rnn.json (tensor and variable names, collections, cell weights, errors).

The cases live in tests/rnn/rnn_cases.py, shared with tests/rnn/test_rnn_goldens.py. Run with
a Python that has TensorFlow and tf_keras::

    /tmp/tfenv/bin/python tools/record_goldens_rnn.py
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # the plain kernels: sums in a fixed order

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.get_logger().setLevel("ERROR")
warnings.filterwarnings("ignore")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.rnn import rnn_cases  # noqa: E402

OUT_NPZ = os.path.join(ROOT, "tests", "goldens", "rnn.npz")
OUT_JSON = os.path.join(ROOT, "tests", "goldens", "rnn.json")


def record_case(name: str, fn) -> tuple[dict, dict]:
    arrays: dict[str, np.ndarray] = {}
    g = tf.Graph()
    with g.as_default():
        spec = fn(tf)
        meta = {
            "names": {k: v.name for k, v in spec["names"].items()},
            "collections": {key: [getattr(v, "name", str(v)) for v in tf.get_collection(key)]
                            for key in spec["collections"]},
        }
        if "weights" in spec:
            meta["weights"] = spec["weights"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for label, fetches, feeds in spec["runs"]:
                for key, v in sess.run(fetches, feeds).items():
                    if v is not None:
                        arrays[f"{name}/{label}/{key}"] = np.asarray(v)
    return arrays, meta


def record_errors() -> dict:
    out = {}
    for name, fn in rnn_cases.ERROR_CASES.items():
        g = tf.Graph()
        with g.as_default():
            try:
                fn(tf)
            except Exception as e:  # noqa: BLE001  (recording whatever TensorFlow raises)
                lines = str(e).split("\n")
                # A run-time failure's gist is the kernel's line, after TF's traceback header.
                gist = next((x for x in lines if x.startswith("assertion failed")), lines[0])
                out[name] = [type(e).__name__, gist]
            else:
                out[name] = None
    return out


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    meta: dict = {"cases": {}}
    for name, fn in rnn_cases.CASES.items():
        a, m = record_case(name, fn)
        arrays.update(a)
        meta["cases"][name] = m
    meta["errors"] = record_errors()
    np.savez_compressed(OUT_NPZ, **arrays)
    with open(OUT_JSON, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(arrays)} arrays to {OUT_NPZ}, {len(meta['errors'])} errors")


if __name__ == "__main__":
    main()
