"""An LSTM training step through tm.nn.dynamic_rnn against the same recurrence in NumPy.

The model: inputs [64, 28, 28] (batch, time, depth), a BasicLSTMCell of 128 units run by
``dynamic_rnn`` with per-example sequence lengths, a loss on the outputs and the final state,
and one GradientDescent update of the kernel and bias (forward + backward + update in one
``Session.run``). The NumPy baseline does the same maths directly in the same process: the
forward recurrence with masking, backpropagation through time, and the update. Runs are
interleaved so both see the same machine load; medians are reported.

Run:  python bench/bench_rnn.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import tfmini as tm

BATCH, STEPS, DEPTH, UNITS = 64, 28, 28, 128
LR = 1e-5  # the loss is a sum over ~230k outputs: small steps keep the weights stable


def _data():
    rng = np.random.default_rng(0)
    xs = (rng.normal(size=(BATCH, STEPS, DEPTH)) * 0.5).astype(np.float32)
    lengths = rng.integers(STEPS // 2, STEPS + 1, size=BATCH).astype(np.int32)
    kernel = (rng.normal(size=(DEPTH + UNITS, 4 * UNITS)) * 0.05).astype(np.float32)
    return xs, lengths, kernel


def build_tfmini(xs_v, lengths_v, kernel_v):
    g = tm.Graph()
    with g.as_default():
        xs = tm.placeholder(tm.float32, xs_v.shape, name="xs")
        lengths = tm.placeholder(tm.int32, [BATCH], name="lengths")
        cell = tm.nn.rnn_cell.BasicLSTMCell(UNITS)
        with tm.variable_scope("rnn", initializer=tm.constant_initializer(kernel_v)):
            outputs, state = tm.nn.dynamic_rnn(cell, xs, sequence_length=lengths,
                                               dtype=tm.float32)
        loss = tm.reduce_sum(outputs) + tm.reduce_sum(state.c)
        train = tm.train.GradientDescentOptimizer(LR).minimize(loss)
        init = tm.global_variables_initializer()
    sess = tm.Session(graph=g)
    sess.run(init)
    step = sess.make_callable([loss, train], [xs, lengths])
    return sess, step


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class NumpyLSTM:
    """The same BasicLSTMCell recurrence (gates i, j, f, o; forget bias 1) with masking, its
    backpropagation through time and the SGD update, written directly in NumPy."""

    def __init__(self, kernel):
        self.kernel = kernel.copy()
        self.bias = np.zeros(4 * UNITS, np.float32)

    def step(self, xs, lengths):
        k, b, n = self.kernel, self.bias, UNITS
        xt = xs.transpose(1, 0, 2)
        c = np.zeros((BATCH, n), np.float32)
        h = np.zeros((BATCH, n), np.float32)
        cache = []
        loss = np.float32(0)
        for t in range(STEPS):
            live = (t < lengths)[:, None]
            z = np.concatenate([xt[t], h], 1) @ k + b
            i, j, f, o = np.split(z, 4, axis=1)
            si, tj, sf, so = _sigmoid(i), np.tanh(j), _sigmoid(f + 1.0), _sigmoid(o)
            nc = c * sf + si * tj
            tc = np.tanh(nc)
            nh = tc * so
            cache.append((np.concatenate([xt[t], h], 1), c, si, tj, sf, so, tc, live))
            loss += np.where(live, nh, 0).sum()
            c = np.where(live, nc, c)
            h = np.where(live, nh, h)
        loss += c.sum()
        dk = np.zeros_like(k)
        db = np.zeros_like(b)
        dc = np.ones((BATCH, n), np.float32)
        dh = np.zeros((BATCH, n), np.float32)
        for t in reversed(range(STEPS)):
            xh, c_prev, si, tj, sf, so, tc, live = cache[t]
            dnh = np.where(live, dh + 1.0, 0)  # the output's and the carried h's gradient
            dnc = np.where(live, dc, 0) + dnh * so * (1 - tc * tc)
            dz = np.concatenate([
                dnc * tj * si * (1 - si),
                dnc * si * (1 - tj * tj),
                dnc * c_prev * sf * (1 - sf),
                dnh * tc * so * (1 - so)], 1)
            dk += xh.T @ dz
            db += dz.sum(0)
            dxh = dz @ k.T
            dh = np.where(live, dxh[:, DEPTH:], dh)
            dc = np.where(live, dnc * sf, dc)
        self.kernel -= LR * dk
        self.bias -= LR * db
        return loss


def _median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    repeats = 3 if args.quick else 15
    xs, lengths, kernel = _data()
    sess, tm_step = build_tfmini(xs, lengths, kernel)
    ref = NumpyLSTM(kernel)
    # Same numbers first (one step each from the same weights).
    got = tm_step(xs, lengths)[0]
    want = ref.step(xs, lengths)
    assert np.isclose(got, want, rtol=1e-4), (got, want)
    tm_times, np_times = [], []
    for _ in range(repeats):
        tm_times.append(_median_ms(lambda: tm_step(xs, lengths), 1))
        np_times.append(_median_ms(lambda: ref.step(xs, lengths), 1))
    result = {
        "lstm_train_step_tfmini_ms": statistics.median(tm_times),
        "lstm_train_step_numpy_ms": statistics.median(np_times),
    }
    result["ratio"] = result["lstm_train_step_tfmini_ms"] / result["lstm_train_step_numpy_ms"]
    print(f"LSTM train step (batch {BATCH}, {STEPS} steps, {UNITS} units): "
          f"tfmini {result['lstm_train_step_tfmini_ms']:.2f} ms, "
          f"NumPy {result['lstm_train_step_numpy_ms']:.2f} ms, "
          f"ratio {result['ratio']:.2f}x (medians of {repeats})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    sess.close()


if __name__ == "__main__":
    main()
