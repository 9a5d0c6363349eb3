"""The BLAS thread policy (tfmini/runtime/threads.py)."""

from __future__ import annotations

import threading

import numpy as np

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
