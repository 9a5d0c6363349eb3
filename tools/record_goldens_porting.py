"""Records TensorFlow's results for the porting scripts into tests/goldens/porting.json.

Run with a Python that has TensorFlow and tf_keras (tfmini itself never imports them)::

    /work/tfenv/bin/python tools/record_goldens_porting.py

The scripts live once, in ``tests/test_porting.py`` (functions taking the module ``tf``);
this tool loads that file and runs each script with ``tensorflow.compat.v1`` after
``tf.disable_v2_behavior()``, the way a TF1 user runs it, and Keras-2 Adagrad as
``tf_keras.optimizers.legacy.Adagrad`` (with resource variables on, which it needs).
The test runs the same sources under tfmini and compares. Everything is seeded, so
re-running gives the same file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import types
import warnings
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # the plain kernels: sums in a fixed order
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers run on tf_keras

import tensorflow.compat.v1 as tf  # noqa: E402
import tf_keras  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_v2_behavior()

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("porting_scripts", ROOT / "tests" / "test_porting.py")
scripts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scripts)

keras_optimizers = types.SimpleNamespace(Adagrad=tf_keras.optimizers.legacy.Adagrad,
                                         schedules=tf_keras.optimizers.schedules)

# With script names as arguments only those are (re)recorded; the others keep their numbers.
only = sys.argv[1:]
records = json.loads(scripts.GOLDENS.read_text()) if only else {}
for name in only or scripts.SCRIPTS:
    # Keras-2 optimizers need resource variables (their slots cannot be ref variables);
    # a TF1 user running one turns them on, as tfmini's variables always are.
    if name == "keras_adagrad":
        tf.enable_resource_variables()
    records[name] = scripts.run_script(name, tf, keras_optimizers)
    tf.disable_resource_variables()
    print(name, "recorded")

scripts.GOLDENS.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
print("wrote", scripts.GOLDENS)
