"""Conv2D forward + backward in a Session against the same work written directly in NumPy.

Case: input 32x28x28x32, filter 3x3x32x32, SAME, stride 1 (float32). tfmini runs Conv2D,
Conv2DBackpropInput and Conv2DBackpropFilter in one Session.run; NumPy does im2col with a
strided view, one matmul for the output, one for the filter gradient, and one plus col2im for
the input gradient. Then the small convnet of tests/test_porting.py (batch 32 of 28x28x1:
conv 5x5x32 - relu - maxpool 2x2 - conv 5x5x64 - relu - maxpool 2x2 - dense 10, softmax cross
entropy, one SGD update) as one training step in a Session beside the same step written
directly in NumPy (im2col + BLAS, forward and backward, in this process); steps/s and the
ratio. Prints medians.

    .venv/bin/python bench/bench_conv.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from numpy.lib.stride_tricks import as_strided

import tfmini as tm


def _median(fn, repeat: int = 15) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def numpy_conv_step(x, w, dy):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    s = xp.strides
    view = as_strided(xp, (n, h, wd, kh, kw, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    col = view.reshape(n * h * wd, kh * kw * c)
    y = col @ w.reshape(-1, o)
    dy2 = dy.reshape(-1, o)
    dw = col.T @ dy2
    dcol = (dy2 @ w.reshape(-1, o).T).reshape(n, h, wd, kh, kw, c)
    dxp = np.zeros_like(xp)
    for a in range(kh):
        for b in range(kw):
            dxp[:, a:a + h, b:b + wd] += dcol[:, :, :, a, b]
    return y.reshape(n, h, wd, o), dw.reshape(w.shape), dxp[:, 1:-1, 1:-1]


def _im2col(x, k):
    """SAME, stride 1, odd k: the [n*h*w, k*k*c] patch matrix (a strided view, then a copy)."""
    n, h, wd, c = x.shape
    p = k // 2
    xp = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    s = xp.strides
    view = as_strided(xp, (n, h, wd, k, k, c), (s[0], s[1], s[2], s[1], s[2], s[3]))
    return view.reshape(n * h * wd, k * k * c)


def _col2im(dcol, shape, k):
    n, h, wd, c = shape
    p = k // 2
    dcol = dcol.reshape(n, h, wd, k, k, c)
    dxp = np.zeros((n, h + 2 * p, wd + 2 * p, c), dcol.dtype)
    for a in range(k):
        for b in range(k):
            dxp[:, a:a + h, b:b + wd] += dcol[:, :, :, a, b]
    return dxp[:, p:p + h, p:p + wd]


def _pool(x):
    n, h, wd, c = x.shape
    v = x.reshape(n, h // 2, 2, wd // 2, 2, c)
    out = v.max(axis=(2, 4))
    return out, v == out[:, :, None, :, None, :]


def _unpool(dy, mask):
    # Every tied maximum would get the gradient here; random inputs have no ties.
    n, h2, _, w2, _, c = mask.shape
    return (mask * dy[:, :, None, :, None, :]).reshape(n, h2 * 2, w2 * 2, c)


def numpy_convnet_step(params, x, y, lr=0.01):
    """One SGD step of the porting convnet in NumPy; updates ``params`` in place, returns
    the loss before the update."""
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    c1 = _im2col(x, 5)
    h1 = np.maximum((c1 @ w1.reshape(-1, 32)).reshape(n, 28, 28, 32) + b1, 0)
    p1, m1 = _pool(h1)
    c2 = _im2col(p1, 5)
    h2 = np.maximum((c2 @ w2.reshape(-1, 64)).reshape(n, 14, 14, 64) + b2, 0)
    p2, m2 = _pool(h2)
    flat = p2.reshape(n, -1)
    logits = flat @ w3 + b3
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(e.sum(axis=1)) - z[np.arange(n), y]))
    dlogits = prob
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    dw3 = flat.T @ dlogits
    db3 = dlogits.sum(axis=0)
    dh2 = _unpool((dlogits @ w3.T).reshape(p2.shape), m2) * (h2 > 0)
    dh2f = dh2.reshape(-1, 64)
    dw2 = (c2.T @ dh2f).reshape(w2.shape)
    db2 = dh2f.sum(axis=0)
    dh1 = _unpool(_col2im(dh2f @ w2.reshape(-1, 64).T, p1.shape, 5), m1) * (h1 > 0)
    dh1f = dh1.reshape(-1, 32)
    dw1 = (c1.T @ dh1f).reshape(w1.shape)
    db1 = dh1f.sum(axis=0)
    for p, d in zip(params, (dw1, db1, dw2, db2, dw3, db3)):
        p -= lr * d
    return loss


def bench_convnet() -> None:
    rng = np.random.RandomState(7)
    x = rng.rand(32, 28, 28, 1).astype(np.float32)
    y = rng.randint(0, 10, size=32).astype(np.int64)
    init = [(rng.normal(size=s) * 0.1).astype(np.float32)
            for s in ((5, 5, 1, 32), (32,), (5, 5, 32, 64), (64,), (7 * 7 * 64, 10), (10,))]
    g = tm.Graph()
    with g.as_default():
        xp = tm.placeholder(tm.float32, [None, 28, 28, 1])
        yp = tm.placeholder(tm.int64, [None])
        w1, b1, w2, b2, w3, b3 = (tm.Variable(v) for v in init)
        h1 = tm.nn.relu(tm.nn.conv2d(xp, w1, strides=[1, 1, 1, 1], padding="SAME") + b1)
        p1 = tm.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        h2 = tm.nn.relu(tm.nn.conv2d(p1, w2, strides=[1, 1, 1, 1], padding="SAME") + b2)
        p2 = tm.nn.max_pool(h2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        logits = tm.matmul(tm.reshape(p2, [-1, 7 * 7 * 64]), w3) + b3
        loss = tm.reduce_mean(
            tm.nn.sparse_softmax_cross_entropy_with_logits(labels=yp, logits=logits))
        train = tm.train.GradientDescentOptimizer(0.01).minimize(loss)
    params = [v.copy() for v in init]
    with tm.Session(graph=g) as sess:
        sess.run(tm.global_variables_initializer())
        feed = {xp: x, yp: y}
        # The two programs agree step for step before they are timed.
        for _ in range(3):
            got = sess.run([loss, train], feed)[0]
            want = numpy_convnet_step(params, x, y)
            np.testing.assert_allclose(got, want, rtol=1e-4)
        t_tm = _median(lambda: sess.run([loss, train], feed), repeat=9)
    t_np = _median(lambda: numpy_convnet_step(params, x, y), repeat=9)
    print(f"convnet training step (batch 32): tfmini {1 / t_tm:.2f} steps/s "
          f"({t_tm * 1e3:.1f} ms), numpy {1 / t_np:.2f} steps/s ({t_np * 1e3:.1f} ms), "
          f"ratio {t_tm / t_np:.2f}")


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 28, 28, 32)).astype(np.float32)
    w = rng.normal(size=(3, 3, 32, 32)).astype(np.float32)
    dy = rng.normal(size=(32, 28, 28, 32)).astype(np.float32)
    g = tm.Graph()
    with g.as_default():
        xp, wp, dyp = (tm.placeholder(tm.float32, a.shape) for a in (x, w, dy))
        y = tm.nn.conv2d(xp, wp, 1, "SAME")
        dx, dw = tm.gradients(y, [xp, wp], grad_ys=dyp)
    with tm.Session(graph=g) as sess:
        feed = {xp: x, wp: w, dyp: dy}
        got = sess.run([y, dw, dx], feed)
        want = numpy_conv_step(x, w, dy)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-2)
        t_tm = _median(lambda: sess.run([y, dw, dx], feed))
    t_np = _median(lambda: numpy_conv_step(x, w, dy))
    print(f"conv2d fwd+bwd 32x28x28x32 * 3x3x32x32 SAME: tfmini {t_tm * 1e3:.1f} ms, "
          f"numpy {t_np * 1e3:.1f} ms, ratio {t_tm / t_np:.2f}")

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests import test_porting
    t0 = time.perf_counter()
    test_porting.convnet(tm)  # builds, initialises and runs 5 training steps (+1 loss)
    print(f"convnet porting program (build + init + 5 steps): {time.perf_counter() - t0:.2f} s")
    bench_convnet()


if __name__ == "__main__":
    main()
