"""Bad-input cases of the training ops of training_ops_more.py, shared by the recorder
(tools/record_goldens_optim.py runs them under TensorFlow 2.21) and the tests (which run them
under tfmini and compare the error class and message).

Each case puts exactly one fault into otherwise valid inputs: a slot of another shape, a
non-scalar or out-of-range hyper-parameter, a gradient of the wrong shape, and for the
sparse ops 2-D indices, an index out of range, a scalar variable.
"""

from __future__ import annotations

import numpy as np

F = np.float32

# op (without Resource/Sparse) -> (variables, hyper-parameters in order, gradient name)
SPECS = {
    "RMSProp": (["var", "ms", "mom"], ["lr", "rho", "momentum", "epsilon"]),
    "CenteredRMSProp": (["var", "mg", "ms", "mom"], ["lr", "rho", "momentum", "epsilon"]),
    "Adadelta": (["var", "accum", "accum_update"], ["lr", "rho", "epsilon"]),
    "Ftrl": (["var", "accum", "linear"], ["lr", "l1", "l2", "lr_power"]),
    "FtrlV2": (["var", "accum", "linear"], ["lr", "l1", "l2", "l2_shrinkage", "lr_power"]),
    "ProximalGradientDescent": (["var"], ["alpha", "l1", "l2"]),
    "ProximalAdagrad": (["var", "accum"], ["lr", "l1", "l2"]),
    "AdagradDA": (["var", "gradient_accumulator", "gradient_squared_accumulator"],
                  ["lr", "l1", "l2", "global_step"]),
    "AdaMax": (["var", "m", "v"], ["beta1_power", "lr", "beta1", "beta2", "epsilon"]),
    "PowerSign": (["var", "m"], ["lr", "logbase", "sign_decay", "beta"]),
    "AddSign": (["var", "m"], ["lr", "alpha", "sign_decay", "beta"]),
}
DENSE_ONLY = ("AdaMax", "PowerSign", "AddSign")
GOOD = {"lr": 0.1, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-3, "l1": 0.1, "l2": 0.1,
        "l2_shrinkage": 0.1, "lr_power": -0.5, "alpha": 0.1, "global_step": 3,
        "beta1_power": 0.9, "beta1": 0.9, "beta2": 0.99, "logbase": 1.0, "sign_decay": 0.9,
        "beta": 0.9}


def _faults(op: str, sparse: bool) -> list[tuple[str, str | None]]:
    variables, scalars = SPECS[op]
    faults = [("slot", v) for v in variables[1:]]
    faults += [("nonscalar", s) for s in scalars]
    faults += [("negative", s) for s in scalars if s not in ("global_step",)]
    faults += [("zero", "lr")] if "lr" in scalars else []
    faults += [("positive", "lr_power")] if op.startswith("Ftrl") else []
    faults.append(("grad", None))
    if sparse:
        faults += [("grad_rows", None), ("indices_2d", None), ("index_range", None),
                   ("scalar_var", None)]
    return faults


def build(op: str, sparse: bool, fault: tuple[str, str | None]) -> dict:
    """``{"op", "vars": {name: array}, "inputs": {name: array}}`` for one case (the op type
    is the resource form; the ref form takes the same inputs)."""
    variables, scalars = SPECS[op]
    vals = {v: np.ones((3, 2), F) for v in variables}
    ins = {k: (np.int64(GOOD[k]) if k == "global_step" else F(GOOD[k])) for k in scalars}
    grad = np.ones((2, 2) if sparse else (3, 2), F)
    idx = np.array([0, 2], np.int32)
    kind, arg = fault
    if kind == "slot":
        vals[arg] = np.ones((3, 3), F)
    elif kind == "nonscalar":
        ins[arg] = np.ones([1], ins[arg].dtype)
    elif kind == "negative":
        ins[arg] = ins[arg].dtype.type(-1)
    elif kind == "zero":
        ins[arg] = ins[arg].dtype.type(0)
    elif kind == "positive":
        ins[arg] = ins[arg].dtype.type(1)
    elif kind == "grad":
        grad = np.ones((2, 3) if sparse else (3, 3), F)
    elif kind == "grad_rows":
        grad = np.ones((3, 2), F)
    elif kind == "indices_2d":
        idx = np.array([[0, 2]], np.int32)
    elif kind == "index_range":
        idx = np.array([0, 5], np.int32)
    elif kind == "scalar_var":
        vals = {v: F(1) for v in variables}
        grad = np.ones((2,), F)
    gname = "delta" if op == "ProximalGradientDescent" and not sparse else "grad"
    ins[gname] = grad
    if sparse:
        ins["indices"] = idx
    return {"op": ("ResourceSparseApply" if sparse else "ResourceApply") + op, "vars": vals,
            "inputs": ins}


def cases() -> dict[str, dict]:
    """Every case by name ``<op>/<fault>[/<argument>]``."""
    out = {}
    for op in SPECS:
        for sparse in (False, True):
            if sparse and op in DENSE_ONLY:
                continue
            for fault in _faults(op, sparse):
                name = f"{'Sparse' if sparse else ''}{op}/{fault[0]}" + (
                    f"/{fault[1]}" if fault[1] else "")
                out[name] = build(op, sparse, fault)
    return out
