"""Speed of tm.layers models through a Session against NumPy doing the same work directly.

Cases: the forward pass of a 256x512 -> dense(512, relu) -> batch_normalization(training) ->
dense(10) MLP, and one Adam training step of it with the UPDATE_OPS (forward, backward and
updates; NumPy does the same forward, the hand-written backward and Adam). Measurements are
interleaved so machine load affects both alike; the medians and the ratio tfmini / NumPy are
reported.

Run:  python bench/bench_layers.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import tfmini as tm

RNG = np.random.default_rng(0)
X = RNG.normal(size=(256, 512)).astype(np.float32)
Y = RNG.integers(0, 10, size=256)
W1 = (RNG.normal(size=(512, 512)) * 0.05).astype(np.float32)
W2 = (RNG.normal(size=(512, 10)) * 0.05).astype(np.float32)


def _np_forward(w1, w2, gamma, beta):
    h = np.maximum(X @ w1, 0)
    mu = h.mean(0)
    var = h.var(0)
    inv = 1 / np.sqrt(var + 1e-3)
    n = (h - mu) * inv
    return h, mu, var, inv, n, (gamma * n + beta) @ w2


def _np_train_step(state):
    w1, w2, gamma, beta, m, v, t = state
    h, mu, var, inv, n, logits = _np_forward(w1, w2, gamma, beta)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(256), Y] -= 1
    dlogits = p / 256
    bn = gamma * n + beta
    g_w2 = bn.T @ dlogits
    dbn = dlogits @ w2.T
    g_gamma, g_beta = (dbn * n).sum(0), dbn.sum(0)
    dn = dbn * gamma
    dh = inv * (dn - dn.mean(0) - n * (dn * n).mean(0))
    g_w1 = X.T @ (dh * (h > 0))
    t += 1
    params = [w1, w2, gamma, beta]
    for i, g in enumerate([g_w1, g_w2, g_gamma, g_beta]):
        m[i] = 0.9 * m[i] + 0.1 * g
        v[i] = 0.999 * v[i] + 0.001 * g * g
        lr = 0.001 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        params[i] -= lr * m[i] / (np.sqrt(v[i]) + 1e-8)
    return (*params, m, v, t)


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [256, 512])
        y = tm.placeholder(tm.int64, [256])
        h = tm.layers.dense(x, 512, activation=tm.nn.relu, use_bias=False,
                            kernel_initializer=tm.constant_initializer(W1))
        h = tm.layers.batch_normalization(h, training=True)
        logits = tm.layers.dense(h, 10, use_bias=False,
                                 kernel_initializer=tm.constant_initializer(W2))
        loss = tm.losses.sparse_softmax_cross_entropy(y, logits)
        with tm.control_dependencies(tm.get_collection(tm.GraphKeys.UPDATE_OPS)):
            train = tm.train.AdamOptimizer(0.001).minimize(loss)
        sess = tm.Session()
        sess.run(tm.global_variables_initializer())
    feeds = {x: X, y: Y}
    ones, zeros = np.ones(512, np.float32), np.zeros(512, np.float32)
    state = [W1.copy(), W2.copy(), ones, zeros.copy(),
             [np.zeros_like(a) for a in (W1, W2, ones, zeros)],
             [np.zeros_like(a) for a in (W1, W2, ones, zeros)], 0]

    def np_step():
        state[:] = _np_train_step(tuple(state))

    cases = {
        "forward": (lambda: sess.run(logits, feeds), lambda: _np_forward(W1, W2, ones, zeros)),
        "train step": (lambda: sess.run(train, feeds), np_step),
    }
    for name, (tm_fn, np_fn) in cases.items():
        tm_fn(), np_fn()
        tm_times, np_times = [], []
        for _ in range(args.repeat):
            tm_times.append(_median(tm_fn, 1))
            np_times.append(_median(np_fn, 1))
        a, b = statistics.median(tm_times), statistics.median(np_times)
        print(f"{name:12s} tfmini {a * 1e3:8.2f} ms   numpy {b * 1e3:8.2f} ms   ratio {a / b:5.2f}")


if __name__ == "__main__":
    main()
