"""What dynamic_rnn costs on tfmini's TensorArrays and while_loop (issue 12 part C).

A 28-step recurrent loop over a 64x128 state, as dynamic_rnn builds it: inputs unstacked into
a TensorArray, a while_loop with maximum_iterations reading one step, ``h = tanh(x_t + h @ W)``
with sequence masking by ``tm.where``, outputs written into a TensorArray and stacked; the loss
is differentiated with respect to the inputs and W (the gradient replays the loop and walks
it backwards). The NumPy baseline does the same forward and backward maths directly, in the
same process, interleaved with tfmini's runs. Also: map_fn over 256 rows of 128.

Run:  python bench/bench_functional.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

STEPS, BATCH, UNITS = 28, 64, 128


def _data():
    rng = np.random.default_rng(0)
    xs = (rng.normal(size=(STEPS, BATCH, UNITS)) * 0.3).astype(np.float32)
    w = (rng.normal(size=(UNITS, UNITS)) * 0.05).astype(np.float32)
    lengths = rng.integers(STEPS // 2, STEPS + 1, size=BATCH).astype(np.int32)
    return xs, w, lengths


def build_rnn(xs_v, w_v, lengths_v):
    g = tm.Graph()
    with g.as_default():
        xs = tm.placeholder(tm.float32, xs_v.shape, name="xs")
        w = tm.constant(w_v)
        lengths = tm.constant(lengths_v)
        in_ta = tm.TensorArray(tm.float32, size=STEPS).unstack(xs)
        out_ta = tm.TensorArray(tm.float32, size=STEPS)

        def body(t, h, out):
            new_h = tm.tanh(in_ta.read(t) + tm.matmul(h, w))
            keep = tm.tile(tm.reshape(t < lengths, [BATCH, 1]), [1, UNITS])
            new_h = tm.where(keep, new_h, h)
            out_t = tm.where(keep, new_h, tm.zeros_like(new_h))
            return t + 1, new_h, out.write(t, out_t)

        _, h, out = tm.while_loop(lambda t, *_: t < STEPS, body,
                                  (tm.constant(0), tm.zeros([BATCH, UNITS]), out_ta),
                                  maximum_iterations=STEPS)
        loss = tm.reduce_sum(out.stack()) + tm.reduce_sum(h)
        gx, gw = tm.gradients(loss, [xs, w])
    sess = tm.Session(graph=g)
    forward = sess.make_callable(loss, [xs])
    both = sess.make_callable([loss, gx, gw], [xs])
    return sess, forward, both


def numpy_rnn(xs, w, lengths, backward: bool):
    mask = (np.arange(STEPS)[:, None] < lengths[None, :])[..., None]  # [T, B, 1]
    h = np.zeros((BATCH, UNITS), np.float32)
    hs, acts = [h], []
    for t in range(STEPS):
        a = np.tanh(xs[t] + h @ w)
        acts.append(a)
        h = np.where(mask[t], a, h)
        hs.append(h)
    loss = float(np.sum(np.where(mask, np.stack(hs[1:]), 0.0)) + h.sum())
    if not backward:
        return loss
    dh = np.ones_like(h)
    gx = np.zeros_like(xs)
    gw = np.zeros_like(w)
    for t in reversed(range(STEPS)):
        dh = dh + np.where(mask[t], 1.0, 0.0).astype(np.float32)
        da = np.where(mask[t], dh, 0.0) * (1.0 - acts[t] ** 2)
        gx[t] = da
        gw += hs[t].T @ da
        dh = np.where(mask[t], 0.0, dh) + da @ w.T
    return loss, gx, gw


def build_map():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [256, 128])
        y = tm.map_fn(lambda r: tm.reduce_sum(r * r), x)
    sess = tm.Session(graph=g)
    return sess, sess.make_callable(y, [x])


def _time(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    reps = 3 if args.quick else 15
    xs, w, lengths = _data()
    sess, forward, both = build_rnn(xs, w, lengths)
    # tfmini's results agree with the NumPy baseline (so both do the same work).
    loss, gx, gw = both(xs)
    np_loss, np_gx, np_gw = numpy_rnn(xs, w, lengths, backward=True)
    np.testing.assert_allclose(loss, np_loss, rtol=1e-4)
    np.testing.assert_allclose(gx, np_gx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(gw, np_gw, rtol=1e-3, atol=1e-3)
    rows = {}
    for label, tm_fn, np_fn in [
        ("rnn forward", lambda: forward(xs), lambda: numpy_rnn(xs, w, lengths, False)),
        ("rnn forward+gradients", lambda: both(xs), lambda: numpy_rnn(xs, w, lengths, True)),
    ]:
        t_tm, t_np = [], []
        for _ in range(reps):  # interleaved
            t_tm += _time(tm_fn, 1)
            t_np += _time(np_fn, 1)
        rows[label] = (statistics.median(t_tm), statistics.median(t_np))
    msess, mapped = build_map()
    xm = np.random.default_rng(1).normal(size=(256, 128)).astype(np.float32)
    t_tm, t_np = [], []
    for _ in range(reps):
        t_tm += _time(lambda: mapped(xm), 1)
        t_np += _time(lambda: np.array([np.sum(r * r) for r in xm]), 1)
    rows["map_fn 256x128"] = (statistics.median(t_tm), statistics.median(t_np))
    sess.close()
    msess.close()
    print(f"{'case':26s} {'tfmini ms':>10s} {'numpy ms':>10s} {'ratio':>7s}")
    for label, (a, b) in rows.items():
        print(f"{label:26s} {a * 1e3:10.2f} {b * 1e3:10.2f} {a / b:7.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: {"tfmini_s": a, "numpy_s": b, "ratio": a / b}
                       for k, (a, b) in rows.items()}, f, indent=2)


if __name__ == "__main__":
    main()
