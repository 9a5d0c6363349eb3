"""Records tf_keras's Keras-2 Adagrad (OptimizerV2) and learning-rate schedules into
tests/goldens/keras.npz.

Run with the TensorFlow virtual environment (see tools/README.md; it needs ``tf_keras``)::

    /work/tfenv/bin/python tools/record_goldens_keras.py

TF1 graph mode (eager disabled) with ``tf_keras.optimizers.legacy.Adagrad``, the semantics
tfmini's graph-mode ``tm.keras`` follows. The cases live in tests/keras/keras_cases.py and
are replayed by tests/keras/test_goldens.py. Keys:

* ``traj/<case>/<name>``: a watched value after each training step (stacked on axis 0).
* ``sched/<case>``: a schedule's values at steps 0..11.
* ``config/<case>``: JSON of ``get_config()``; ``roundtrip/<case>``: JSON of
  ``from_config(get_config()).get_config()``.
* ``serialized/<case>``: JSON of ``schedules.serialize`` of the case's schedule.
* ``ctor_error/<case>``: ``"<ExceptionClass>: <message>"``.
* ``names``: JSON of variable and op names (tests/keras/keras_cases.py ``names_case``).
"""

from __future__ import annotations

import json
import os
import sys
import types
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
import tf_keras  # noqa: E402

tf.disable_eager_execution()
warnings.simplefilter("ignore")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.keras import keras_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "keras.npz")
K = types.SimpleNamespace(Adagrad=tf_keras.optimizers.legacy.Adagrad,
                          schedules=tf_keras.optimizers.schedules)


def _json(value) -> str:
    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        raise TypeError(repr(o))

    return json.dumps(value, sort_keys=True, default=default)


def main() -> None:
    out: dict[str, np.ndarray] = {}
    for name, case in keras_cases.TRAJECTORY_CASES.items():
        for key, value in keras_cases.run_case(tf, K, case).items():
            out[f"traj/{name}/{key}"] = value
    for name, case in keras_cases.SCHEDULE_VALUE_CASES.items():
        out[f"sched/{name}"] = keras_cases.run_case(tf, K, case)["lr"][0]
    for name, make in keras_cases.CONFIG_CASES.items():
        with tf.Graph().as_default():
            opt = make(K)
            config = opt.get_config()
            out[f"config/{name}"] = np.array(_json(config))
            again = type(opt).from_config(json.loads(_json(config))).get_config()
            out[f"roundtrip/{name}"] = np.array(_json(again))
            lr = opt._hyper["learning_rate"]
            if isinstance(lr, K.schedules.LearningRateSchedule):
                out[f"serialized/{name}"] = np.array(_json(K.schedules.serialize(lr)))
    for name, kwargs in keras_cases.CONSTRUCTOR_ERROR_CASES.items():
        try:
            K.Adagrad(**kwargs)
        except Exception as e:  # noqa: BLE001  (any class is recorded)
            out[f"ctor_error/{name}"] = np.array(f"{type(e).__name__}: {e}")
        else:
            raise AssertionError(f"{name}: no error")
    out["names"] = np.array(_json(keras_cases.names_case(tf, K)))
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
