"""TF1 optimizer trajectories against TensorFlow 2.21 (tests/goldens/train.npz, recorded by
tools/record_goldens_train.py with tf.compat.v1 graph mode and resource variables).

Every optimizer (SGD, Momentum, Nesterov, Adagrad, Adam, RMSProp plain and centered, Adadelta,
Ftrl with l1/l2/power/shrinkage/beta, proximal GD and Adagrad, AdagradDA, with non-default
hyper-parameters),
float32 and float64, a dense model and a sparse one (a gather with repeated ids, so the sparse
path and its summing of duplicate rows are exercised), five steps: each variable and each slot
after each step within 1e-5 relative, the global step, and the names of ``opt.variables()``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm

with np.load(Path(__file__).parents[1] / "goldens" / "train.npz") as _data:
    GOLDENS = {k: _data[k] for k in _data.files}
CASES = sorted(k[: -len("/config")] for k in GOLDENS if k.endswith("/config"))
IDS = np.array([0, 2, 2, 5, 0, 2], np.int32)  # as the recorder's
RTOL = 1e-5


def _close(got, want, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (
        f"{what}: {got.dtype}{got.shape}, TensorFlow {want.dtype}{want.shape}")
    # Relative to the array's scale, so entries near zero do not demand exact agreement.
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-30)
    error = float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0)) / scale
    assert error <= RTOL, f"{what}: relative error {error:.3g}\ngot {got!r}\nTensorFlow {want!r}"


def _loss(model: str, variables: dict, data: dict):
    if model == "dense":
        pred = tm.matmul(tm.constant(data["x"]), variables["w"]) + variables["b"]
        return tm.reduce_sum(tm.square(pred - tm.constant(data["y"])) * tm.constant(data["s"]))
    rows = tm.gather(variables["emb"], tm.constant(IDS))
    return tm.reduce_sum(tm.square(rows - tm.constant(data["t"])) * tm.constant(data["s"]))


def test_the_goldens_cover_every_optimizer_dense_and_sparse():
    configs = [json.loads(str(GOLDENS[f"{c}/config"])) for c in CASES]
    seen = {(c["optimizer"], c["model"], c["dtype"]) for c in configs}
    for opt in ("GradientDescentOptimizer", "MomentumOptimizer", "AdagradOptimizer",
                "AdamOptimizer", "RMSPropOptimizer", "AdadeltaOptimizer", "FtrlOptimizer",
                "ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer",
                "AdagradDAOptimizer"):
        for model in ("dense", "sparse"):
            for dtype in ("float32", "float64"):
                if opt.startswith("Proximal") and dtype == "float64":
                    continue  # TensorFlow cannot build them (test below)
                assert (opt, model, dtype) in seen


@pytest.mark.parametrize("name", ["ProximalGradientDescentOptimizer",
                                  "ProximalAdagradOptimizer"])
def test_proximal_optimizers_do_not_cast_their_hyper_parameters(name):
    # TF1 passes the float32 learning rate uncast: a float64 variable fails to build, as in
    # TensorFlow 2.21 ("Input 'grad' of 'ResourceApplyProximalAdagrad' Op has type float64
    # that does not match type float32 of argument 'lr'.").
    with tm.Graph().as_default():
        v = tm.Variable(np.ones(2), name="v")
        with pytest.raises(TypeError, match="float64"):
            getattr(tm.train, name)(0.1).minimize(tm.reduce_sum(v * v))


@pytest.mark.parametrize("use_resource", [True, False], ids=["resource", "ref"])
@pytest.mark.parametrize("case", CASES)
def test_trajectory_matches_tensorflow(case, use_resource):
    # Reference variables (use_resource=False) go through the Apply*/Scatter* ref ops and
    # must give the same numbers.
    config = json.loads(str(GOLDENS[f"{case}/config"]))
    init = {k.rsplit("/", 1)[1]: GOLDENS[k] for k in GOLDENS if k.startswith(f"{case}/init/")}
    data = {k.rsplit("/", 1)[1]: GOLDENS[k] for k in GOLDENS if k.startswith(f"{case}/data/")}
    g = tm.Graph()
    with g.as_default():
        variables = {k: tm.Variable(v, name=k, use_resource=use_resource)
                     for k, v in init.items()}
        gs = tm.train.get_or_create_global_step()
        loss = _loss(config["model"], variables, data)
        # "global_step": true in a config stands for the model's global step (AdagradDA).
        opt = getattr(tm.train, config["optimizer"])(
            **{k: (gs if k == "global_step" else v) for k, v in config["kwargs"].items()})
        train = opt.minimize(loss, global_step=gs, gate_gradients=config["gate"])
        assert [v.name for v in opt.variables()] == GOLDENS[f"{case}/variables"].tolist()
        watched = dict(variables)
        for name in opt.get_slot_names():
            for k, v in variables.items():
                watched[f"slot/{name}/{k}"] = opt.get_slot(v, name)
        assert {f"{case}/traj/{k}" for k in watched} == {
            k for k in GOLDENS if k.startswith(f"{case}/traj/")}
        with tm.Session(graph=g) as sess:
            sess.run(tm.global_variables_initializer())
            for step in range(config["steps"]):
                sess.run(train)
                for k, value in sess.run(watched).items():
                    _close(value, GOLDENS[f"{case}/traj/{k}"][step], f"{case} step {step + 1} {k}")
            assert sess.run(gs) == GOLDENS[f"{case}/global_step"]
