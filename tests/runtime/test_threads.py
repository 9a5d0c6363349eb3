"""The BLAS thread policy (tfmini/runtime/threads.py)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

import tfmini as tm
from tfmini.runtime.threads import BlasThreadPolicy


class _FakeBlas:
    def __init__(self):
        self.sizes = []

    def set_num_threads(self, n):
        self.sizes.append(n)


def _policy(cores, busy_elsewhere=0.0):
    p = BlasThreadPolicy()
    p.cores = cores
    fake = _FakeBlas()
    p._controllers = [fake]
    p._sampled_at = float("inf")  # no load sampling: the test sets it
    p._busy_elsewhere = busy_elsewhere
    return p, fake


def test_pool_shrinks_with_runs_in_flight_and_grows_back():
    p, blas = _policy(cores=4)
    p.enter()
    assert p.size == 4
    p.enter()
    assert p.size == 2
    p.enter()
    p.enter()
    assert p.size == 1 and p.in_flight == 4
    for _ in range(3):
        p.exit()
    assert p.size == 1 and p.in_flight == 1  # no growing back while runs come and go
    p.exit()
    p._crowded_at -= 1.0  # as if the crowd had left a second ago
    p.enter()
    assert p.size == 4
    p.exit()
    assert blas.sizes == [4, 2, 1, 4]  # the library is called only on a change


def test_steady_single_run_loop_calls_the_library_once():
    p, blas = _policy(cores=2)
    for _ in range(100):
        p.enter()
        p.exit()
    assert blas.sizes == [2]


def test_other_processes_load_leaves_fewer_threads():
    p, _ = _policy(cores=2, busy_elsewhere=1.6)
    p.enter()
    assert p.size == 1  # never below one
    p.exit()


def test_intra_op_parallelism_threads_fixes_the_size():
    p, _ = _policy(cores=8)
    p.enter(fixed=3)
    p.enter(fixed=3)
    assert p.size == 3
    p.exit()
    p.exit()


def test_sessions_run_from_threads_count_runs_and_stay_correct():
    from tfmini.runtime import threads

    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [64, 64])
        y = tm.matmul(x, x)
    a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    want = a @ a
    errors = []
    with tm.Session(graph=g) as sess:
        def work():
            try:
                for _ in range(20):
                    np.testing.assert_allclose(sess.run(y, {x: a}), want, rtol=1e-5)
            except BaseException as e:  # reported below
                errors.append(e)

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert not errors
    assert threads.POLICY.in_flight == 0
    assert threads.POLICY.size >= 1


def test_a_failed_run_leaves_the_count_balanced():
    from tfmini.runtime import threads

    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.int32, [])
        y = tm.raw_ops.FloorDiv(x=x, y=tm.constant(0))
    with tm.Session(graph=g) as sess:
        try:
            sess.run(y, {x: 1})
        except tm.errors.OpError:
            pass
    assert threads.POLICY.in_flight == 0


def test_kernel_threads_get_the_cores_per_run_while_some_core_is_free():
    shared = []
    p = BlasThreadPolicy(share=lambda width, blas: shared.append((width, blas)))
    p.cores = 2
    p._controllers = [_FakeBlas()]
    p._sampled_at = float("inf")
    p._busy_elsewhere = 0.6  # a core partly busy: one BLAS thread, products split in two
    p.enter()
    assert shared[-1] == (2, 1)
    p.enter()  # two runs in flight: a thread each
    assert shared[-1] == (1, 1)
    p.exit()
    p.exit()
    p._busy_elsewhere = 0.8  # no core 70% idle: nothing to split onto
    p._settled_until = 0.0  # (a new sample would end the settled state)
    p.enter()
    assert shared[-1] == (1, 1)
    p.exit()
    p.enter(fixed=3)  # intra_op_parallelism_threads: both
    assert shared[-1] == (3, 3)
    p.exit()


def test_busy_cores_elsewhere_come_from_proc_stat_deltas_less_own_use(monkeypatch):
    from tfmini.runtime import threads

    ticks = iter([(1000, 500), (1200, 500)])  # 200 jiffies, none idle: both cores busy
    monkeypatch.setattr(threads, "_cpu_ticks", lambda: next(ticks))
    cpu = iter([10.0, 10.5])  # this process used half a core over the second between
    monkeypatch.setattr(threads.time, "process_time", lambda: next(cpu))
    monkeypatch.setattr(threads, "monotonic", lambda: 100.0)
    p = BlasThreadPolicy()  # the first reading: when the policy is made
    p.cores = 2
    p._sample_load(101.0)
    assert abs(p._busy_elsewhere - 1.5) < 1e-9
    monkeypatch.setattr(threads, "_cpu_ticks", lambda: None)  # no /proc/stat: load average
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (3.0, 0.0, 0.0))
    monkeypatch.setattr(threads.time, "process_time", lambda: 10.5)
    p._sample_load(102.0)
    assert p._busy_elsewhere == 3.0


def test_a_lone_run_between_crowded_ones_does_not_grow_the_pool(monkeypatch):
    from tfmini.runtime import threads

    clock = [1000.0]
    monkeypatch.setattr(threads, "monotonic", lambda: clock[0])
    p, blas = _policy(cores=2)
    p.enter()
    p.enter()  # crowded: one thread each
    p.exit()
    p.exit()
    for _ in range(6):  # rounds 50 ms apart, each a lone run and then a crowd again
        clock[0] += 0.05
        p._settled_until = 0.0
        p.enter()
        assert p.size == 1
        p.enter()
        p.exit()
        p.exit()
    clock[0] += 1.0  # no crowd for a second: a lone run gets both cores back
    p._settled_until = 0.0
    p.enter()
    assert p.size == 2
    p.exit()
    assert blas.sizes == [2, 1, 2]


def test_a_run_that_splits_its_own_work_holds_the_blas_pool_at_one_thread():
    shared = []
    p = BlasThreadPolicy(share=lambda width, blas: shared.append((width, blas)))
    p.cores = 2
    blas = _FakeBlas()
    p._controllers = [blas]
    p._sampled_at = float("inf")
    p._busy_elsewhere = 0.0  # an idle machine: a plain run gets two BLAS threads
    p.enter()
    p.exit()
    assert p.size == 2 and shared[-1] == (2, 2)
    p.enter(single_blas=True)  # a convolution's run: one BLAS thread, its parts on 2 cores
    assert p.size == 1 and shared[-1] == (2, 1)
    p.exit()
    for _ in range(3):  # steady: no library call
        p.enter(single_blas=True)
        p.exit()
    p._crowded_at -= 1.0
    p.enter()  # a plain run again: the pool grows back
    assert p.size == 2 and shared[-1] == (2, 2)
    p.exit()
    p.enter(fixed=2, single_blas=True)  # intra_op_parallelism_threads wins
    assert p.size == 2
    p.exit()
    assert blas.sizes == [2, 1, 2]


def test_plans_know_whether_a_kernel_splits_its_own_work():
    with tm.Graph().as_default():
        x = tm.compat.v1.placeholder(tm.float32, [1, 4, 4, 1])
        y = tm.nn.conv2d(x, tm.ones([2, 2, 1, 2]), strides=1, padding="SAME")
        z = tm.reduce_sum(x)
        with tm.compat.v1.Session() as sess:
            feed = {x: np.ones([1, 4, 4, 1], np.float32)}
            assert sess.run(z, feed) == 16.0
            assert sess.run(y, feed).shape == (1, 4, 4, 2)
            plans = {p.fetches[0].op.type: p for p in sess._plans.values()}
    assert plans["Conv2D"].splits_own_work
    assert not plans["Sum"].splits_own_work


def test_the_real_blas_pool_is_resized_from_any_thread():
    # threadpoolctl 3.8 ignores a pthreads OpenBLAS resize from any thread but the first
    # that made one; the policy resizes from whichever thread starts a run.
    controllers = ThreadpoolController().select(user_api="blas").lib_controllers
    if not controllers:
        pytest.skip("no BLAS library that threadpoolctl can size")
    before = [c.get_num_threads() for c in controllers]
    p = BlasThreadPolicy()
    p.cores = 2
    p._sampled_at = float("inf")
    p._busy_elsewhere = 0.0
    seen = []

    def run_in_thread(fixed):
        def run():
            p.enter(fixed=fixed)
            seen.append([c.get_num_threads() for c in controllers])
            p.exit()
        t = threading.Thread(target=run)
        t.start()
        t.join()

    try:
        p.enter(fixed=2)  # the main thread resizes first
        p.exit()
        run_in_thread(1)
        run_in_thread(2)
        assert seen == [[1] * len(controllers), [2] * len(controllers)]
    finally:
        for setter, n in zip(p._blas(), before):
            setter.set_num_threads(n)
