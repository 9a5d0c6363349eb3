"""Records TensorFlow's TF1 optimizer trajectories into tests/goldens/train.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /work/tfenv/bin/python tools/record_goldens_train.py

Every case builds, in ``tf.compat.v1`` graph mode with resource variables, a small model,
minimizes its loss with one ``tf.compat.v1.train`` optimizer for ``STEPS`` steps (with a
global step) and records the variables and every slot after each step:

* dense: ``w`` (3x2) and ``b`` (2), loss ``sum((x @ w + b - y)**2 * s)``;
* sparse: an embedding table ``emb`` (6x3) read with ``tf.gather`` at ids with repeats (so
  the gradient is an IndexedSlices whose duplicate rows the optimizer must sum), loss
  ``sum((gather(emb, ids) - t)**2 * s)``.

Keys, for case ``<c>`` (optimizer, options, dtype, model):

* ``<c>/config``: JSON text ``{"optimizer": class name, "kwargs": {...}, "model": "dense" |
  "sparse", "dtype": ..., "steps": n, "gate": gate_gradients}``;
* ``<c>/init/<var>`` and ``<c>/data/<name>``: the initial values and the model's constants;
* ``<c>/traj/<var>`` and ``<c>/traj/slot/<slot>/<var>``: the values after each step, stacked
  (row k-1 after step k);
* ``<c>/global_step``: the global step at the end;
* ``<c>/variables``: the names of ``opt.variables()``, one string array.

Inputs are drawn from fixed seeds, so re-running gives the same file.
"""

from __future__ import annotations

import json
import os
import warnings
import zlib
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # the plain kernels: sums in a fixed order

import tensorflow.compat.v1 as tf  # noqa: E402

warnings.filterwarnings("ignore")
tf.get_logger().setLevel("ERROR")
tf.disable_eager_execution()
tf.enable_resource_variables()

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "train.npz"
STEPS = 5
IDS = np.array([0, 2, 2, 5, 0, 2], np.int32)

OPTIMIZERS = {
    "sgd": ("GradientDescentOptimizer", {"learning_rate": 0.1}),
    "momentum": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9}),
    "nesterov": ("MomentumOptimizer",
                 {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True}),
    "adagrad": ("AdagradOptimizer", {"learning_rate": 0.2, "initial_accumulator_value": 0.1}),
    "adagrad_acc2": ("AdagradOptimizer",
                     {"learning_rate": 0.5, "initial_accumulator_value": 2.0}),
    "adam": ("AdamOptimizer", {"learning_rate": 0.05}),
    "adam_eps": ("AdamOptimizer",
                 {"learning_rate": 0.1, "beta1": 0.8, "beta2": 0.95, "epsilon": 0.01}),
    "rmsprop": ("RMSPropOptimizer", {"learning_rate": 0.05}),
    "rmsprop_centered": ("RMSPropOptimizer",
                         {"learning_rate": 0.05, "decay": 0.8, "momentum": 0.5,
                          "epsilon": 1e-3, "centered": True}),
    "adadelta": ("AdadeltaOptimizer", {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-3}),
    "ftrl": ("FtrlOptimizer", {"learning_rate": 0.1}),
    "ftrl_l1l2": ("FtrlOptimizer", {"learning_rate": 0.1, "l1_regularization_strength": 0.05,
                                    "l2_regularization_strength": 0.2,
                                    "learning_rate_power": -0.25}),
    "ftrl_shrinkage": ("FtrlOptimizer",
                       {"learning_rate": 0.1, "l1_regularization_strength": 0.01,
                        "l2_regularization_strength": 0.2,
                        "l2_shrinkage_regularization_strength": 0.3, "beta": 0.4,
                        "initial_accumulator_value": 0.5}),
    "proximal_gd": ("ProximalGradientDescentOptimizer",
                    {"learning_rate": 0.05, "l1_regularization_strength": 0.1,
                     "l2_regularization_strength": 0.2}),
    "proximal_adagrad": ("ProximalAdagradOptimizer",
                         {"learning_rate": 0.2, "l1_regularization_strength": 0.05,
                          "l2_regularization_strength": 0.2}),
    # "global_step": true stands for the model's global step (the optimizer needs it).
    "adagrad_da": ("AdagradDAOptimizer", {"learning_rate": 0.2, "global_step": True}),
    "adagrad_da_l1l2": ("AdagradDAOptimizer",
                        {"learning_rate": 0.2, "global_step": True,
                         "l1_regularization_strength": 0.05,
                         "l2_regularization_strength": 0.1,
                         "initial_gradient_squared_accumulator_value": 0.5}),
}

records: dict[str, np.ndarray] = {}


def model_data(model: str, dtype: np.dtype, rng: np.random.Generator) -> tuple[dict, dict]:
    """Initial variable values and the model's constants."""
    if model == "dense":
        init = {"w": rng.normal(size=(3, 2)), "b": rng.normal(size=(2,))}
        data = {"x": rng.normal(size=(4, 3)), "y": rng.normal(size=(4, 2)),
                "s": rng.uniform(0.5, 1.5, size=(4, 2))}
    else:
        init = {"emb": rng.normal(size=(6, 3))}
        data = {"t": rng.normal(size=(len(IDS), 3)), "s": rng.uniform(0.5, 1.5, (len(IDS), 3))}
    cast = {k: v.astype(dtype) for k, v in init.items()}
    return cast, {k: v.astype(dtype) for k, v in data.items()}


def build_loss(model: str, variables: dict, data: dict):
    if model == "dense":
        pred = tf.matmul(tf.constant(data["x"]), variables["w"]) + variables["b"]
        return tf.reduce_sum(tf.square(pred - tf.constant(data["y"])) * tf.constant(data["s"]))
    rows = tf.gather(variables["emb"], tf.constant(IDS))
    return tf.reduce_sum(tf.square(rows - tf.constant(data["t"])) * tf.constant(data["s"]))


def record(case: str, opt_key: str, dtype: np.dtype, model: str, gate: int = 1) -> None:
    cls_name, kwargs = OPTIMIZERS[opt_key]
    rng = np.random.default_rng(zlib.crc32(f"{opt_key}/{np.dtype(dtype).name}/{model}".encode()))
    init, data = model_data(model, dtype, rng)
    config = {"optimizer": cls_name, "kwargs": kwargs, "model": model,
              "dtype": np.dtype(dtype).name, "steps": STEPS, "gate": gate}
    records[f"{case}/config"] = np.array(json.dumps(config, sort_keys=True))
    for k, v in init.items():
        records[f"{case}/init/{k}"] = v
    for k, v in data.items():
        records[f"{case}/data/{k}"] = v
    g = tf.Graph()
    with g.as_default():
        variables = {k: tf.Variable(v, name=k) for k, v in init.items()}
        gs = tf.train.get_or_create_global_step()
        loss = build_loss(model, variables, data)
        opt = getattr(tf.train, cls_name)(
            **{k: (gs if k == "global_step" else v) for k, v in kwargs.items()})
        train = opt.minimize(loss, global_step=gs, gate_gradients=gate)
        slots = {name: {k: opt.get_slot(v, name) for k, v in variables.items()}
                 for name in opt.get_slot_names()}
        records[f"{case}/variables"] = np.array([v.name for v in opt.variables()])
        watched = {k: v for k, v in variables.items()}
        watched.update({f"slot/{name}/{k}": s for name, per_var in slots.items()
                        for k, s in per_var.items()})
        traj: dict[str, list] = {k: [] for k in watched}
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
                for k, value in sess.run(watched).items():
                    traj[k].append(value)
            records[f"{case}/global_step"] = np.array(sess.run(gs))
        for k, values in traj.items():
            records[f"{case}/traj/{k}"] = np.stack(values)


def main() -> None:
    for opt_key in OPTIMIZERS:
        for dtype in (np.float32, np.float64):
            for model in ("dense", "sparse"):
                # TF1's proximal optimizers do not cast their hyper-parameters:
                # float64 variables fail to build (tested without goldens).
                if opt_key.startswith("proximal") and dtype == np.float64:
                    continue
                record(f"{opt_key}/{np.dtype(dtype).name}/{model}", opt_key, dtype, model)
    # The gates change when gradients are used, never their values.
    for gate in (0, 2):
        record(f"adam_gate{gate}/float32/dense", "adam", np.float32, "dense", gate)
        record(f"adagrad_gate{gate}/float32/sparse", "adagrad", np.float32, "sparse", gate)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **records)
    print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
