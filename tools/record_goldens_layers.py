"""Records TensorFlow 2.21's tf.layers / tf.losses / tf.metrics results (tf_keras legacy layers)
into tests/goldens/layers.npz (values) and tests/goldens/layers.json (tensor and variable
names, collections, error classes and messages).

The cases live in tests/layers/layers_cases.py, shared with tests/layers/test_layers_goldens.py.
Run with a Python that has TensorFlow and tf_keras::

    /tmp/tfenv/bin/python tools/record_goldens_layers.py
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.layers import layers_cases  # noqa: E402

OUT_NPZ = os.path.join(ROOT, "tests", "goldens", "layers.npz")
OUT_JSON = os.path.join(ROOT, "tests", "goldens", "layers.json")


def _name(t) -> str:
    return t.name


def record_case(name: str, fn) -> tuple[dict, dict]:
    arrays: dict[str, np.ndarray] = {}
    meta: dict = {}
    g = tf.Graph()
    with g.as_default():
        spec = fn(tf)
        meta["names"] = {k: _name(v) for k, v in spec["names"].items()}
        meta["collections"] = {
            key: [getattr(v, "name", str(v)) for v in tf.get_collection(key)]
            for key in spec["collections"]}
        if "layer_weights" in spec:
            meta["layer_weights"] = spec["layer_weights"]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            for label, fetches, feeds in spec["runs"]:
                values = sess.run(fetches, feeds)
                for key, v in values.items():
                    if v is None:
                        continue
                    arrays[f"{name}/{label}/{key}"] = np.asarray(v)
    return arrays, meta


def record_errors() -> dict:
    out = {}
    for name, fn in layers_cases.ERROR_CASES.items():
        g = tf.Graph()
        with g.as_default():
            try:
                fn(tf)
            except Exception as e:  # noqa: BLE001  (recording whatever TensorFlow raises)
                out[name] = [type(e).__name__, str(e).split("\n")[0]]
            else:
                out[name] = None
    return out


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    meta: dict = {"cases": {}}
    for name, fn in layers_cases.CASES.items():
        a, m = record_case(name, fn)
        arrays.update(a)
        meta["cases"][name] = m
    meta["errors"] = record_errors()
    np.savez_compressed(OUT_NPZ, **arrays)
    with open(OUT_JSON, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"wrote {len(arrays)} arrays to {OUT_NPZ}, {len(meta['errors'])} errors")


if __name__ == "__main__":
    main()
