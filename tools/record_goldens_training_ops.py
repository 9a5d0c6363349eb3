"""Records TensorFlow's results for the training ops into tests/goldens/training_ops.npz.

Run with a Python that has TensorFlow (tfmini's tests never import it)::

    /work/tfenv/bin/python tools/record_goldens_training_ops.py

Each case runs one ``tf.raw_ops.ResourceApply*`` / ``ResourceSparseApply*`` op for three
steps on resource variables (TF 2.21, eager) and stores, per case:

* ``<case>/meta``: JSON with the op type, attrs, the variable input names, the dtype;
* ``<case>/init/<var>``: the variables' initial values;
* ``<case>/in/<input>``: the other inputs, stacked over the steps (row k: step k);
* ``<case>/out/<var>``: the variables after each step, stacked likewise.

The tests replay every case through both the resource op and the ref op (``Apply*``).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "training_ops.npz")
STEPS = 3


def _cases():
    rng = np.random.default_rng(1234)

    def r(*shape, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, shape)

    cases = []

    def add(name, op, vars_, steps, attrs=None, dtype="float32"):
        cases.append(dict(name=name, op=op, vars=vars_, steps=steps, attrs=attrs or {},
                          dtype=dtype))

    for dtype in ("float32", "float64"):
        shape = (4, 3)
        add(f"gd_{dtype}", "ResourceApplyGradientDescent", {"var": r(*shape)},
            [{"alpha": 0.1 * (k + 1), "delta": r(*shape)} for k in range(STEPS)], dtype=dtype)
        for nesterov in (False, True):
            add(f"momentum_nesterov{int(nesterov)}_{dtype}", "ResourceApplyMomentum",
                {"var": r(*shape), "accum": r(*shape, lo=0, hi=0.5)},
                [{"lr": 0.05, "grad": r(*shape), "momentum": 0.9} for _ in range(STEPS)],
                {"use_nesterov": nesterov}, dtype)
        for update_slots in (True, False):
            add(f"adagrad_slots{int(update_slots)}_{dtype}", "ResourceApplyAdagrad",
                {"var": r(*shape), "accum": r(*shape, lo=0.1, hi=1.0)},
                [{"lr": 0.3, "grad": r(*shape)} for _ in range(STEPS)],
                {"update_slots": update_slots}, dtype)
            add(f"adagradv2_slots{int(update_slots)}_{dtype}", "ResourceApplyAdagradV2",
                {"var": r(*shape), "accum": r(*shape, lo=0.1, hi=1.0)},
                [{"lr": 0.3, "epsilon": 1e-3, "grad": r(*shape)} for _ in range(STEPS)],
                {"update_slots": update_slots}, dtype)
        for nesterov in (False, True):
            b1, b2 = 0.9, 0.999
            add(f"adam_nesterov{int(nesterov)}_{dtype}", "ResourceApplyAdam",
                {"var": r(*shape), "m": r(*shape, lo=0, hi=0.1), "v": r(*shape, lo=0, hi=0.1)},
                [{"beta1_power": b1 ** (k + 1), "beta2_power": b2 ** (k + 1), "lr": 0.01,
                  "beta1": b1, "beta2": b2, "epsilon": 1e-7, "grad": r(*shape)}
                 for k in range(STEPS)],
                {"use_nesterov": nesterov}, dtype)
        # Sparse: 2-D and 1-D variables, repeated indices (applied in turn), int64 indices.
        for itype, dup in (("int32", False), ("int32", True), ("int64", True)):
            idx = [[4, 0, 2], [1, 1, 3], [2, 2, 2]] if dup else [[4, 0, 2], [1, 3, 5], [0, 5, 2]]
            tag = f"dup{int(dup)}_{itype}_{dtype}"
            for update_slots in (True, False):
                add(f"sparse_adagrad_slots{int(update_slots)}_{tag}",
                    "ResourceSparseApplyAdagrad",
                    {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1.0)},
                    [{"lr": 0.5, "grad": r(3, 2), "indices": np.array(i, itype)}
                     for i in idx], {"update_slots": update_slots}, dtype)
            add(f"sparse_adagradv2_{tag}", "ResourceSparseApplyAdagradV2",
                {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1.0)},
                [{"lr": 0.5, "epsilon": 0.01, "grad": r(3, 2), "indices": np.array(i, itype)}
                 for i in idx], dtype=dtype)
            for nesterov in (False, True):
                add(f"sparse_momentum_nesterov{int(nesterov)}_{tag}",
                    "ResourceSparseApplyMomentum",
                    {"var": r(6, 2), "accum": r(6, 2, lo=0, hi=0.5)},
                    [{"lr": 0.2, "grad": r(3, 2), "indices": np.array(i, itype),
                      "momentum": 0.8} for i in idx], {"use_nesterov": nesterov}, dtype)
        add(f"sparse_adagrad_1d_{dtype}", "ResourceSparseApplyAdagrad",
            {"var": r(5), "accum": r(5, lo=0.1, hi=1.0)},
            [{"lr": 0.5, "grad": r(4), "indices": np.array([3, 3, 0, 4], np.int32)}
             for _ in range(STEPS)], dtype=dtype)
        add(f"sparse_momentum_3d_{dtype}", "ResourceSparseApplyMomentum",
            {"var": r(4, 2, 2), "accum": r(4, 2, 2, lo=0, hi=0.5)},
            [{"lr": 0.2, "grad": r(2, 2, 2), "indices": np.array([3, 1], np.int32),
              "momentum": 0.5} for _ in range(STEPS)], dtype=dtype)
    # Half precision: one dense and one sparse case (compared with a looser tolerance).
    add("adagrad_slots1_float16", "ResourceApplyAdagrad",
        {"var": r(4, 3), "accum": r(4, 3, lo=0.1, hi=1.0)},
        [{"lr": 0.3, "grad": r(4, 3)} for _ in range(STEPS)], dtype="float16")
    add("sparse_adagrad_float16", "ResourceSparseApplyAdagrad",
        {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1.0)},
        [{"lr": 0.5, "grad": r(3, 2), "indices": np.array([1, 1, 4], np.int32)}
         for _ in range(STEPS)], dtype="float16")
    # TF's documented duplicate-index example: [2,2], g=1, lr=1, accum 0.1.
    add("sparse_adagrad_doc_example", "ResourceSparseApplyAdagrad",
        {"var": np.zeros((3, 1)), "accum": np.full((3, 1), 0.1)},
        [{"lr": 1.0, "grad": np.ones((2, 1)), "indices": np.array([2, 2], np.int32)}])
    _more_cases(add, r)
    return cases


def _more_cases(add, r):
    """RMSProp, Adadelta, FTRL, the proximal ops, AdagradDA, AdaMax, PowerSign, AddSign
    (tfmini/ops/variables/training_ops_more.py); drawn after the cases above, so those keep
    their numbers."""
    shape = (4, 3)
    for dtype in ("float32", "float64"):
        def steps(**fixed):
            return [{**fixed, "grad": r(*shape)} for _ in range(STEPS)]

        def sparse_steps(idx, itype="int32", **fixed):
            return [{**fixed, "grad": r(3, 2), "indices": np.array(i, itype)} for i in idx]

        rms = {"lr": 0.05, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-3}
        add(f"rmsprop_{dtype}", "ResourceApplyRMSProp",
            {"var": r(*shape), "ms": r(*shape, lo=0.1, hi=1), "mom": r(*shape, lo=0, hi=0.2)},
            steps(**rms), dtype=dtype)
        add(f"centered_rmsprop_{dtype}", "ResourceApplyCenteredRMSProp",
            {"var": r(*shape), "mg": r(*shape, lo=-0.3, hi=0.3), "ms": r(*shape, lo=0.5, hi=1),
             "mom": r(*shape, lo=0, hi=0.2)}, steps(**rms), dtype=dtype)
        add(f"adadelta_{dtype}", "ResourceApplyAdadelta",
            {"var": r(*shape), "accum": r(*shape, lo=0, hi=1),
             "accum_update": r(*shape, lo=0, hi=1)},
            steps(lr=1.0, rho=0.95, epsilon=1e-6), dtype=dtype)
        for power, by_lr in ((-0.5, False), (-0.25, False), (-0.5, True)):
            ftrl = {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": power}
            tag = f"p{int(-power * 100)}_lr{int(by_lr)}_{dtype}"
            add(f"ftrl_{tag}", "ResourceApplyFtrl",
                {"var": r(*shape), "accum": r(*shape, lo=0.1, hi=1), "linear": r(*shape)},
                steps(**ftrl), {"multiply_linear_by_lr": by_lr}, dtype)
            add(f"ftrlv2_{tag}", "ResourceApplyFtrlV2",
                {"var": r(*shape), "accum": r(*shape, lo=0.1, hi=1), "linear": r(*shape)},
                steps(**ftrl, l2_shrinkage=0.3), {"multiply_linear_by_lr": by_lr}, dtype)
        for l1 in (0.0, 0.3):
            add(f"proximal_gd_l1{int(l1 * 10)}_{dtype}", "ResourceApplyProximalGradientDescent",
                {"var": r(*shape)},
                [{"alpha": 0.2, "l1": l1, "l2": 0.1, "delta": r(*shape)} for _ in range(STEPS)],
                dtype=dtype)
            add(f"proximal_adagrad_l1{int(l1 * 10)}_{dtype}", "ResourceApplyProximalAdagrad",
                {"var": r(*shape), "accum": r(*shape, lo=0.1, hi=1)},
                steps(lr=0.2, l1=l1, l2=0.1), dtype=dtype)
            add(f"adagrad_da_l1{int(l1 * 10)}_{dtype}", "ResourceApplyAdagradDA",
                {"var": r(*shape), "gradient_accumulator": r(*shape),
                 "gradient_squared_accumulator": r(*shape, lo=0.1, hi=1)},
                [{"grad": r(*shape), "lr": 0.1, "l1": l1, "l2": 0.05,
                  "global_step": np.int64(k + 2)} for k in range(STEPS)], dtype=dtype)
        add(f"adamax_{dtype}", "ResourceApplyAdaMax",
            {"var": r(*shape), "m": r(*shape, lo=0, hi=0.1), "v": r(*shape, lo=0, hi=0.1)},
            [{"beta1_power": 0.9 ** (k + 1), "lr": 0.01, "beta1": 0.9, "beta2": 0.999,
              "epsilon": 1e-7, "grad": r(*shape)} for k in range(STEPS)], dtype=dtype)
        add(f"powersign_{dtype}", "ResourceApplyPowerSign",
            {"var": r(*shape), "m": r(*shape)},
            steps(lr=0.1, logbase=np.log(2.0), sign_decay=0.9, beta=0.9), dtype=dtype)
        add(f"addsign_{dtype}", "ResourceApplyAddSign", {"var": r(*shape), "m": r(*shape)},
            steps(lr=0.1, alpha=1.0, sign_decay=0.9, beta=0.9), dtype=dtype)
        # Sparse: repeated indices (applied in turn) with int32, distinct ones with int64
        # (float64 only once: the file stays small).
        for itype, idx in (("int32", [[3, 0, 3], [1, 1, 1], [5, 2, 0]]),
                           ("int64", [[4, 0, 2], [1, 3, 5], [0, 5, 2]])):
            if dtype == "float64" and itype == "int32":
                continue
            tag = f"{itype}_{dtype}"
            add(f"sparse_rmsprop_{tag}", "ResourceSparseApplyRMSProp",
                {"var": r(6, 2), "ms": r(6, 2, lo=0.1, hi=1), "mom": r(6, 2, lo=0, hi=0.2)},
                sparse_steps(idx, itype, **rms), dtype=dtype)
            add(f"sparse_centered_rmsprop_{tag}", "ResourceSparseApplyCenteredRMSProp",
                {"var": r(6, 2), "mg": r(6, 2, lo=-0.3, hi=0.3), "ms": r(6, 2, lo=0.5, hi=1),
                 "mom": r(6, 2, lo=0, hi=0.2)}, sparse_steps(idx, itype, **rms), dtype=dtype)
            add(f"sparse_adadelta_{tag}", "ResourceSparseApplyAdadelta",
                {"var": r(6, 2), "accum": r(6, 2, lo=0, hi=1),
                 "accum_update": r(6, 2, lo=0, hi=1)},
                sparse_steps(idx, itype, lr=1.0, rho=0.95, epsilon=1e-6), dtype=dtype)
            for power in (-0.5, -0.25):
                ftrl = {"lr": 0.1, "l1": 0.05, "l2": 0.02, "lr_power": power}
                add(f"sparse_ftrl_p{int(-power * 100)}_{tag}", "ResourceSparseApplyFtrl",
                    {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1), "linear": r(6, 2)},
                    sparse_steps(idx, itype, **ftrl), dtype=dtype)
                add(f"sparse_ftrlv2_p{int(-power * 100)}_{tag}", "ResourceSparseApplyFtrlV2",
                    {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1), "linear": r(6, 2)},
                    sparse_steps(idx, itype, **ftrl, l2_shrinkage=0.3), dtype=dtype)
            add(f"sparse_ftrl_bylr_{tag}", "ResourceSparseApplyFtrl",
                {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1), "linear": r(6, 2)},
                sparse_steps(idx, itype, lr=0.1, l1=0.05, l2=0.02, lr_power=-0.5),
                {"multiply_linear_by_lr": True}, dtype)
            for l1 in (0.0, 0.3):
                add(f"sparse_proximal_gd_l1{int(l1 * 10)}_{tag}",
                    "ResourceSparseApplyProximalGradientDescent", {"var": r(6, 2)},
                    sparse_steps(idx, itype, alpha=0.2, l1=l1, l2=0.1), dtype=dtype)
                add(f"sparse_proximal_adagrad_l1{int(l1 * 10)}_{tag}",
                    "ResourceSparseApplyProximalAdagrad",
                    {"var": r(6, 2), "accum": r(6, 2, lo=0.1, hi=1)},
                    sparse_steps(idx, itype, lr=0.2, l1=l1, l2=0.1), dtype=dtype)
                add(f"sparse_adagrad_da_l1{int(l1 * 10)}_{tag}", "ResourceSparseApplyAdagradDA",
                    {"var": r(6, 2), "gradient_accumulator": r(6, 2),
                     "gradient_squared_accumulator": r(6, 2, lo=0.1, hi=1)},
                    [{"grad": r(3, 2), "indices": np.array(i, itype), "lr": 0.1, "l1": l1,
                      "l2": 0.05, "global_step": np.int64(k + 2)} for k, i in enumerate(idx)],
                    dtype=dtype)


def main() -> None:
    out: dict[str, np.ndarray] = {}
    for case in _cases():
        dt = case["dtype"]
        name = case["name"]
        variables = {k: tf.Variable(np.asarray(v, dt)) for k, v in case["vars"].items()}
        meta = {"op": case["op"], "attrs": case["attrs"], "vars": list(case["vars"]),
                "dtype": dt, "steps": len(case["steps"])}
        out[f"{name}/meta"] = np.array(json.dumps(meta))
        for k, v in case["vars"].items():
            out[f"{name}/init/{k}"] = np.asarray(v, dt)
        ins: dict[str, list] = {}
        outs: dict[str, list] = {}
        for inputs in case["steps"]:
            cast = {k: (np.asarray(v) if np.asarray(v).dtype.kind == "i" else np.asarray(v, dt))
                    for k, v in inputs.items()}
            for k, v in cast.items():
                ins.setdefault(k, []).append(v)
            getattr(tf.raw_ops, case["op"])(
                **{k: variables[k].handle for k in case["vars"]}, **cast, **case["attrs"])
            for k, var in variables.items():
                outs.setdefault(k, []).append(var.numpy())
        for k, v in ins.items():
            out[f"{name}/in/{k}"] = np.stack(v)
        for k, v in outs.items():
            out[f"{name}/out/{k}"] = np.stack(v)
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {os.path.normpath(OUT)} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
