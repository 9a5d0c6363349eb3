"""Conv2D forward + backward in a Session against the same work written directly in NumPy.

Case: input 32x28x28x32, filter 3x3x32x32, SAME, stride 1 (float32). tfmini runs Conv2D,
Conv2DBackpropInput and Conv2DBackpropFilter in one Session.run; NumPy does im2col with a
strided view, one matmul for the output, one for the filter gradient, and one plus col2im for
the input gradient. Also times the convnet training step of tests/test_porting.py (batch 32
of 28x28x1). Prints medians (seconds) and the ratio.

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


if __name__ == "__main__":
    main()
