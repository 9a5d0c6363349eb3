"""Records TensorFlow's tf.data results into tests/goldens/data.json and writes
tests/goldens/data_tf.tfrecord (TensorFlow's TFRecordWriter on the records of the cases).

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_data.py

The cases live once, in ``tests/ops/data/data_cases.py`` (functions taking the module ``tf``);
this tool runs them with ``tensorflow.compat.v1`` in graph mode and the test runs the same
source under tfmini. Everything is seeded, so re-running gives the same files.
"""

from __future__ import annotations

import importlib.util
import json
import os
import tempfile
import warnings
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_v2_behavior()
tf.autograph.set_verbosity(0)

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "data_cases", ROOT / "tests" / "ops" / "data" / "data_cases.py")
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)

# The TFRecord file first: the reading cases use it.
with tf.io.TFRecordWriter(str(cases.GOLDEN_DIR / cases.TF_RECORD_FILE)) as writer:
    for record in cases.RECORDS:
        writer.write(record)

records = {}
with tempfile.TemporaryDirectory() as tmp:
    for name in cases.ALL_CASES:
        records[name] = cases.run_case(name, tf, tmp)
        print(name, "recorded")

out = cases.GOLDEN_DIR / "data.json"
out.write_text(json.dumps(records, indent=None, sort_keys=True) + "\n")
print("wrote", out, out.stat().st_size, "bytes")
