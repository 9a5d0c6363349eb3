"""Optimizer update speed (issue 4): steps per second of the raw training ops through a
Session, next to the same update written directly in NumPy (in place, same process).

Cases:

* ``sgd dense``: ResourceApplyGradientDescent on a 1000x1000 float32 variable, gradient fed;
  NumPy: ``w -= lr * g``.
* ``adagrad dense``: ResourceApplyAdagrad on the same; NumPy: ``a += g * g;
  w -= lr * g / sqrt(a)``.
* ``rmsprop dense``: ResourceApplyRMSProp (momentum 0.9) on the same; NumPy: ``ms +=
  (g * g - ms) * (1 - rho); mom[...] = mom * momentum + lr * g / sqrt(ms + eps); w -= mom``.
* ``ftrl dense``: ResourceApplyFtrl (l1 0.001, power -0.5) on the same; NumPy: FTRL's
  accumulator, linear and closed-form weight update written directly (``np.where``).
* ``adagrad sparse``: ResourceSparseApplyAdagrad of 4096 distinct ids (fed, new ones each
  step) into a 100000x64 float32 embedding table; NumPy: ``a[ids] += g * g;
  w[ids] -= lr * g / sqrt(a[ids])``.

The two sides are timed in alternating rounds so that machine load affects both alike; the
figure per side is the median round. The issue's aim: tfmini within 1.3x of NumPy.

Run:  python bench/bench_optimizers.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

R = tm.raw_ops
DENSE = (1000, 1000)
TABLE = (100_000, 64)
IDS = 4096


def _variable(value: np.ndarray, name: str):
    h = R.VarHandleOp(dtype=tm.float32, shape=value.shape, shared_name=name)
    return h, R.AssignVariableOp(resource=h, value=value)


def dense_case(adagrad: bool):
    """(tfmini step, numpy step) for the dense update."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(DENSE).astype(np.float32)
    grads = [rng.standard_normal(DENSE).astype(np.float32) * 1e-3 for _ in range(4)]
    lr = np.float32(0.01)
    g = tm.Graph()
    with g.as_default():
        w, init_w = _variable(w0, "w")
        grad = tm.placeholder(tm.float32, DENSE, name="grad")
        if adagrad:
            a, init_a = _variable(np.full(DENSE, 0.1, np.float32), "a")
            op = R.ResourceApplyAdagrad(var=w, accum=a, lr=lr, grad=grad)
            inits = [init_w, init_a]
        else:
            op = R.ResourceApplyGradientDescent(var=w, alpha=lr, delta=grad)
            inits = [init_w]
    sess = tm.Session(graph=g)
    sess.run(inits)
    counter = [0]

    def tfmini_step():
        counter[0] += 1
        sess.run(op, {grad: grads[counter[0] & 3]})

    nw, na = w0.copy(), np.full(DENSE, 0.1, np.float32)

    def numpy_step():
        counter[0] += 1
        gr = grads[counter[0] & 3]
        if adagrad:
            na[...] += gr * gr
            nw[...] -= lr * gr / np.sqrt(na)
        else:
            nw[...] -= lr * gr

    return tfmini_step, numpy_step, sess


def _hyper_case(kind: str):
    """(tfmini step, numpy step) for the dense RMSProp or FTRL update."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(DENSE).astype(np.float32)
    grads = [rng.standard_normal(DENSE).astype(np.float32) * 1e-3 for _ in range(4)]
    f = np.float32
    lr, rho, momentum, eps = f(0.01), f(0.9), f(0.9), f(1e-6)
    l1, l2 = f(0.001), f(0.0)
    slot0 = (np.ones if kind == "rmsprop" else lambda s, d: np.full(s, 0.1, d))(DENSE,
                                                                                np.float32)
    g = tm.Graph()
    with g.as_default():
        w, init_w = _variable(w0, "w")
        s1, init_1 = _variable(slot0, "s1")
        s2, init_2 = _variable(np.zeros(DENSE, np.float32), "s2")
        grad = tm.placeholder(tm.float32, DENSE, name="grad")
        if kind == "rmsprop":
            op = R.ResourceApplyRMSProp(var=w, ms=s1, mom=s2, lr=lr, rho=rho,
                                        momentum=momentum, epsilon=eps, grad=grad)
        else:
            op = R.ResourceApplyFtrl(var=w, accum=s1, linear=s2, grad=grad, lr=lr, l1=l1,
                                     l2=l2, lr_power=f(-0.5))
    sess = tm.Session(graph=g)
    sess.run([init_w, init_1, init_2])
    counter = [0]

    def tfmini_step():
        counter[0] += 1
        sess.run(op, {grad: grads[counter[0] & 3]})

    nw, n1, n2 = w0.copy(), slot0.copy(), np.zeros(DENSE, np.float32)

    def numpy_step():
        counter[0] += 1
        gr = grads[counter[0] & 3]
        if kind == "rmsprop":
            n1[...] += (gr * gr - n1) * (1 - rho)
            n2[...] = n2 * momentum + lr * gr / np.sqrt(n1 + eps)
            nw[...] -= n2
        else:
            new_a = n1 + gr * gr
            n2[...] += gr - (np.sqrt(new_a) - np.sqrt(n1)) / lr * nw
            quad = np.sqrt(new_a) / lr + 2 * l2
            nw[...] = np.where(np.abs(n2) > l1, (np.sign(n2) * l1 - n2) / quad, 0)
            n1[...] = new_a

    return tfmini_step, numpy_step, sess


def sparse_case():
    """(tfmini step, numpy step) for the sparse Adagrad update."""
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(TABLE).astype(np.float32)
    batches = [(rng.choice(TABLE[0], IDS, replace=False).astype(np.int32),
                rng.standard_normal((IDS, TABLE[1])).astype(np.float32)) for _ in range(8)]
    lr = np.float32(0.05)
    g = tm.Graph()
    with g.as_default():
        w, init_w = _variable(w0, "table")
        a, init_a = _variable(np.full(TABLE, 0.1, np.float32), "accum")
        ids = tm.placeholder(tm.int32, [IDS], name="ids")
        grad = tm.placeholder(tm.float32, [IDS, TABLE[1]], name="grad")
        op = R.ResourceSparseApplyAdagrad(var=w, accum=a, lr=lr, grad=grad, indices=ids)
    sess = tm.Session(graph=g)
    sess.run([init_w, init_a])
    counter = [0]

    def tfmini_step():
        counter[0] += 1
        i, gr = batches[counter[0] & 7]
        sess.run(op, {ids: i, grad: gr})

    nw, na = w0.copy(), np.full(TABLE, 0.1, np.float32)

    def numpy_step():
        counter[0] += 1
        i, gr = batches[counter[0] & 7]
        na[i] += gr * gr  # item assignment: in place, as the dense case's [...]
        nw[i] -= lr * gr / np.sqrt(na[i])

    return tfmini_step, numpy_step, sess


def measure(tfmini_step, numpy_step, rounds: int, steps: int) -> dict:
    """Median steps/s of each side over alternating rounds."""
    for f in (tfmini_step, numpy_step):
        for _ in range(3):
            f()
    rates: dict[str, list[float]] = {"tfmini": [], "numpy": []}
    for _ in range(rounds):
        for name, f in (("tfmini", tfmini_step), ("numpy", numpy_step)):
            start = time.perf_counter()
            for _ in range(steps):
                f()
            rates[name].append(steps / (time.perf_counter() - start))
    t, n = statistics.median(rates["tfmini"]), statistics.median(rates["numpy"])
    return {"tfmini_steps_per_s": t, "numpy_steps_per_s": n, "ratio": n / t}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    rounds, steps = (3, 5) if args.quick else (15, 20)
    results = {}
    for name, make in (("sgd dense 1000x1000", lambda: dense_case(False)),
                       ("adagrad dense 1000x1000", lambda: dense_case(True)),
                       ("rmsprop dense 1000x1000", lambda: _hyper_case("rmsprop")),
                       ("ftrl dense 1000x1000", lambda: _hyper_case("ftrl")),
                       (f"adagrad sparse {IDS} ids into {TABLE[0]}x{TABLE[1]}", sparse_case)):
        tf_step, np_step, sess = make()
        with sess:
            results[name] = measure(tf_step, np_step, rounds, steps)
    print(f"{'update':45s} {'tfmini steps/s':>15s} {'numpy steps/s':>14s} {'ratio':>7s}")
    for name, r in results.items():
        print(f"{name:45s} {r['tfmini_steps_per_s']:15.1f} {r['numpy_steps_per_s']:14.1f} "
              f"{r['ratio']:6.2f}x")
    print("ratio = NumPy steps/s over tfmini steps/s (the issue's aim: <= 1.3x)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
