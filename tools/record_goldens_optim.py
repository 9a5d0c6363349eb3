"""Records TensorFlow's errors of the newer training ops, its learning-rate decay series and
its ExponentialMovingAverage into tests/goldens/optim.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_optim.py

(The optimizers' trajectories and the raw ops' values are in train.npz and training_ops.npz,
recorded by record_goldens_train.py and record_goldens_training_ops.py.) Keys:

* ``err/<case>``: JSON ``{"class": ..., "message": ...}`` of running the bad-input case
  ``<case>`` of tests/ops/variables/training_ops_more_cases.py (eager, resource variables),
  or ``{"class": null}`` where TensorFlow accepts the inputs;
* ``decay/<case>/config``: JSON ``{"fn": ..., "kwargs": {...}}`` of one
  ``tf.compat.v1.train.*_decay`` call; ``decay/<case>/values``: its value at each step of
  ``STEPS``; ``decay/<case>/name``: the result tensor's name (graph mode);
* ``ema/<case>/values`` and ``ema/<case>/names``: averages after each update and the names
  (shadows, the update op, MOVING_AVERAGE_VARIABLES, variables_to_restore).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

ROOT = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, ROOT)

import tensorflow as tf  # noqa: E402

from tests.ops.variables import training_ops_more_cases  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
v1 = tf.compat.v1

OUT = Path(ROOT) / "tests" / "goldens" / "optim.npz"
STEPS = np.array([0, 1, 4, 5, 9, 10, 11, 14, 15, 19, 20, 21, 25, 29, 30, 31, 40, 45, 60, 70])

DECAYS = {
    "exponential": ("exponential_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                          "decay_rate": 0.5}),
    "exponential_staircase": ("exponential_decay",
                              {"learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                               "staircase": True}),
    "inverse_time": ("inverse_time_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                            "decay_rate": 0.5}),
    "inverse_time_staircase": ("inverse_time_decay",
                               {"learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                                "staircase": True}),
    "natural_exp": ("natural_exp_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                          "decay_rate": 0.5}),
    "natural_exp_staircase": ("natural_exp_decay",
                              {"learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                               "staircase": True}),
    "piecewise": ("piecewise_constant", {"boundaries": [10, 20], "values": [1.0, 0.5, 0.1]}),
    "piecewise_one": ("piecewise_constant", {"boundaries": [15], "values": [0.3, 0.2]}),
    "polynomial": ("polynomial_decay", {"learning_rate": 0.1, "decay_steps": 10}),
    "polynomial_power": ("polynomial_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                              "end_learning_rate": 0.01, "power": 0.5}),
    "polynomial_cycle": ("polynomial_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                              "end_learning_rate": 0.01, "cycle": True}),
    "cosine": ("cosine_decay", {"learning_rate": 0.1, "decay_steps": 20}),
    "cosine_alpha": ("cosine_decay", {"learning_rate": 0.1, "decay_steps": 20, "alpha": 0.2}),
    "restarts": ("cosine_decay_restarts", {"learning_rate": 0.1, "first_decay_steps": 10}),
    "restarts_mmul": ("cosine_decay_restarts", {"learning_rate": 0.1, "first_decay_steps": 10,
                                                "m_mul": 0.5, "alpha": 0.1}),
    "restarts_flat": ("cosine_decay_restarts", {"learning_rate": 0.1, "first_decay_steps": 10,
                                                "t_mul": 1.0, "m_mul": 0.8}),
    "linear_cosine": ("linear_cosine_decay", {"learning_rate": 0.1, "decay_steps": 30}),
    "linear_cosine_args": ("linear_cosine_decay",
                           {"learning_rate": 0.1, "decay_steps": 30, "num_periods": 2.0,
                            "alpha": 0.1, "beta": 0.01}),
    "named": ("exponential_decay", {"learning_rate": 0.1, "decay_steps": 10,
                                    "decay_rate": 0.5, "name": "my_lr"}),
}

records: dict[str, np.ndarray] = {}


def record_errors() -> None:
    for name, case in training_ops_more_cases.cases().items():
        variables = {k: tf.Variable(v) for k, v in case["vars"].items()}
        try:
            getattr(tf.raw_ops, case["op"])(**{k: v.handle for k, v in variables.items()},
                                            **case["inputs"])
            out = {"class": None}
        except Exception as e:  # noqa: BLE001 (the class is what is recorded)
            message = str(e).split(" [Op:")[0]
            if message.startswith("{{function_node"):
                message = message.split("}} ", 1)[1]
            out = {"class": type(e).__name__, "message": message}
        records[f"err/{name}"] = np.array(json.dumps(out))


def record_decays() -> None:
    for case, (fn, kwargs) in DECAYS.items():
        g = tf.Graph()
        with g.as_default():
            step = v1.placeholder(tf.int64, [], name="step")
            if fn == "piecewise_constant":
                lr = v1.train.piecewise_constant(step, **kwargs)
            else:
                lr = getattr(v1.train, fn)(global_step=step, **kwargs)
            with v1.Session(graph=g) as sess:
                values = [sess.run(lr, {step: s}) for s in STEPS]
        records[f"decay/{case}/config"] = np.array(json.dumps({"fn": fn, "kwargs": kwargs}))
        records[f"decay/{case}/values"] = np.array(values)
        records[f"decay/{case}/name"] = np.array(lr.name)
    records["decay/steps"] = STEPS
    # The noisy schedule: its noise is a random_normal op seeded from the graph seed.
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(3)
        step = v1.placeholder(tf.int64, [], name="step")
        lr = v1.train.noisy_linear_cosine_decay(0.1, step, 30)
        with v1.Session(graph=g) as sess:
            values = [sess.run(lr, {step: s}) for s in STEPS]
    records["noisy/values"] = np.array(values)
    records["noisy/name"] = np.array(lr.name)


def record_ema() -> None:
    # Variables: decay 0.9, with and without num_updates; values assigned between updates.
    for case, num_updates in (("plain", None), ("num_updates", [0, 5, 100, 1000])):
        g = tf.Graph()
        with g.as_default():
            v = v1.Variable(10.0, name="v", use_resource=True)
            w = v1.Variable([1.0, 2.0], name="w", use_resource=True)
            n = v1.placeholder(tf.int64, [], name="n") if num_updates else None
            ema = v1.train.ExponentialMovingAverage(0.9, num_updates=n)
            update = ema.apply([v, w])
            names = {"update": update.name, "shadow_v": ema.average(v).name,
                     "shadow_w": ema.average(w).name, "average_name_v": ema.average_name(v),
                     "moving_average_variables": [x.name for x in
                                                  v1.moving_average_variables()],
                     "variables_to_restore": sorted(
                         (k, x.name) for k, x in ema.variables_to_restore().items()),
                     "trainable": [x.name for x in v1.trainable_variables()]}
            values = []
            with v1.Session(graph=g) as sess:
                sess.run(v1.global_variables_initializer())
                for k, (x, y) in enumerate(((20.0, 3.0), (0.0, -1.0), (5.0, 4.0), (7.0, 7.0))):
                    sess.run([v.assign(x), w.assign([y, 2 * y])])
                    sess.run(update, {n: num_updates[k]} if num_updates else None)
                    a, b = sess.run([ema.average(v), ema.average(w)])
                    values.append(np.concatenate([[a], b]))
        records[f"ema/{case}/values"] = np.stack(values).astype(np.float32)
        records[f"ema/{case}/names"] = np.array(json.dumps(names))
    # Tensors, with and without zero_debias: decay 0.5, inputs fed step by step.
    for case, debias in (("tensor", False), ("tensor_debias", True)):
        g = tf.Graph()
        with g.as_default():
            x = v1.placeholder(tf.float32, [2], name="x")
            t = tf.identity(x, name="t")
            ema = v1.train.ExponentialMovingAverage(0.5, zero_debias=debias)
            update = ema.apply([t])
            names = {"update": update.name, "shadow": ema.average(t).name,
                     "globals": sorted(x.name for x in v1.global_variables())}
            values = []
            with v1.Session(graph=g) as sess:
                sess.run(v1.global_variables_initializer())
                for feed in ([4.0, 1.0], [8.0, -1.0], [2.0, 0.5]):
                    sess.run(update, {x: feed})
                    values.append(sess.run(ema.average(t)))
        records[f"ema/{case}/values"] = np.stack(values)
        records[f"ema/{case}/names"] = np.array(json.dumps(names))


def main() -> None:
    record_errors()
    v1.disable_eager_execution()
    record_decays()
    record_ema()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
