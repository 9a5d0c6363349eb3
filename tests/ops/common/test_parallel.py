"""Work sharing for large kernels (tfmini/ops/common/parallel.py)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.common import parallel
from tfmini.runtime.threads import POLICY


def test_run_shares_the_parts_and_runs_each_once(widths):
    widths(2, 1)
    seen, threads = [], set()
    lock = threading.Lock()

    def part(i):
        def f():
            with lock:
                seen.append(i)
                threads.add(threading.get_ident())
        return f

    for _ in range(20):
        parallel.run([part(i) for i in range(6)])
    assert sorted(seen) == sorted(list(range(6)) * 20)
    assert len(threads) <= 2


def test_run_reraises_a_part_error_after_the_others_ran(widths):
    widths(2, 1)
    done = []

    def bad():
        raise ValueError("part 1 failed")

    with pytest.raises(ValueError, match="part 1 failed"):
        parallel.run([lambda: done.append(0), bad, lambda: done.append(2)])
    assert sorted(done) == [0, 2]


def test_nested_runs_and_width_one_finish(widths):
    widths(2, 1)
    out = []
    parallel.run([lambda: parallel.run([lambda: out.append(1), lambda: out.append(2)]),
                  lambda: out.append(3)])
    assert sorted(out) == [1, 2, 3]
    widths(1, 1)
    order = []
    parallel.run([lambda i=i: order.append(i) for i in range(4)])
    assert order == [0, 1, 2, 3]  # in the caller, in turn


def test_split_products_match_the_whole_product(widths):
    widths(2, 1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((130, 300), dtype=np.float32)
    y = rng.standard_normal((300, 200), dtype=np.float32)
    for a, b in ((x, y), (y.T, x.T), (x[:, :200].T, x[:, :200])):
        want = a @ b
        for parts in (2, 3):
            np.testing.assert_allclose(parallel.matmul(a, b, parts), want, rtol=1e-5,
                                       atol=1e-4)
    assert parallel.product_parts(1024, 784, 512) == 2
    assert parallel.product_parts(128, 784, 512) == 1  # too small to be worth a hand-off
    widths(2, 2)
    assert parallel.product_parts(1024, 784, 512) == 1  # the BLAS pool has the cores


def test_elementwise_writes_through_slices_or_falls_back(widths):
    widths(2, 1)
    n = parallel.MIN_ELEMENTS * 2
    a = np.arange(n, dtype=np.float32).reshape(-1, 64)
    out = np.empty_like(a)
    calls = []

    def fn(x, o, k):
        calls.append(x.shape)
        np.multiply(x, k, out=o)

    parallel.elementwise(fn, (a, out), np.float32(2))
    np.testing.assert_array_equal(out, a * 2)
    assert len(calls) == 2
    calls.clear()
    fortran = np.asfortranarray(a)
    out2 = np.empty_like(fortran)
    parallel.elementwise(fn, (fortran, out2), np.float32(3))
    np.testing.assert_array_equal(out2, a * 3)
    assert calls == [a.shape]  # not C-contiguous: one call on the whole arrays


def test_split_matmul_kernel_and_adam_update_equal_unsplit(monkeypatch):
    """With two kernel threads and a one-thread BLAS pool, the MatMul kernel splits its
    products and Adam slices its update; the results are the unsplit ones."""
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((96, 700), dtype=np.float32)
    w0 = rng.standard_normal((700, 400), dtype=np.float32) * 0.05

    def train(width):
        monkeypatch.setattr(POLICY, "_share", lambda w, b: parallel.set_widths(width, 1))
        monkeypatch.setattr(POLICY, "_settled_until", 0.0)  # the next run asks again
        g = tm.Graph()
        with g.as_default():
            x = tm.placeholder(tm.float32, [None, 700])
            w = tm.Variable(w0)
            loss = tm.reduce_sum(tm.square(tm.matmul(x, w)))
            step = tm.train.AdamOptimizer(0.01).minimize(loss)
            init = tm.global_variables_initializer()
        with tm.Session(graph=g) as sess:
            sess.run(init)
            for _ in range(3):
                sess.run(step, {x: x0})
            return sess.run(w)

    calls = {"matmul": 0, "elementwise": 0}
    real_mm, real_parts = parallel.matmul, parallel.elementwise_parts
    # Thresholds this small problem passes (the real ones are tuned for big products).
    monkeypatch.setattr(parallel, "MIN_PRODUCT_FLOPS", 1_000_000)
    monkeypatch.setattr(parallel, "MIN_ELEMENTS", 1 << 16)

    def counted_mm(a, b, p):
        calls["matmul"] += 1
        return real_mm(a, b, p)

    def counted_parts(size):
        parts = real_parts(size)
        calls["elementwise"] += parts > 1
        return parts

    monkeypatch.setattr(parallel, "matmul", counted_mm)
    monkeypatch.setattr(parallel, "elementwise_parts", counted_parts)
    saved = (parallel._width, parallel._blas_threads)
    try:
        one = train(1)
        assert calls == {"matmul": 0, "elementwise": 0}
        two = train(2)  # products of 96x700x400 in 2 blocks, the 280,000-element update in 2
    finally:
        parallel.set_widths(*saved)
    assert calls["matmul"] >= 3 and calls["elementwise"] == 3
    np.testing.assert_allclose(two, one, rtol=1e-4, atol=1e-5)
