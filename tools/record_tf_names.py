"""Records TensorFlow 2.21's ``tf.compat.v1`` public names into tests/goldens/tf_names.json.

Run with the TensorFlow virtual environment (see tools/README.md)::

    /tmp/tfenv/bin/python tools/record_tf_names.py

The file maps a module path relative to ``tf.compat.v1`` (``""`` for the top level,
``"math"``, ``"keras.optimizers"``, ...) to the sorted public names TensorFlow lists there.
tests/test_api_coverage.py counts how many of them resolve on tfmini, per module and overall.
The modules are those a TF1 graph-mode program reaches for.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# tf.compat.v1.keras is tf_keras (Keras 2), as a TF1 program sees it.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                   "goldens", "tf_names.json")

MODULES = [
    "", "math", "linalg", "sparse", "nn", "train", "layers", "losses", "metrics", "random",
    "initializers", "image", "strings", "io", "data", "summary", "app", "flags", "logging",
    "compat", "errors", "bitwise", "keras.optimizers", "keras.initializers",
]


def _names(path: str) -> list[str]:
    module = tf.compat.v1
    for part in filter(None, path.split(".")):
        module = getattr(module, part)
    return sorted(n for n in dir(module) if not n.startswith("_"))


def main() -> None:
    record = {"tensorflow": tf.__version__, "modules": {m: _names(m) for m in MODULES}}
    with open(OUT, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
        f.write("\n")
    total = sum(len(v) for v in record["modules"].values())
    print(f"wrote {OUT}: {len(MODULES)} modules, {total} names")


if __name__ == "__main__":
    main()
