"""Many threads on one Session (and one Graph) at once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import run_in_threads, wait_for
from tfmini.runtime import session as session_module

THREADS = 12
RUNS = 40


def _in_threads(fn, n=THREADS):
    """Runs ``fn(i)`` in ``n`` threads released together; returns results, re-raises errors
    (a thread still running after 30 s fails the test)."""
    return run_in_threads(fn, n, timeout=30)


@pytest.fixture
def net(graph):
    x = tm.placeholder(tm.float32, shape=[None], name="x")
    k = tm.placeholder(tm.float32, shape=[], name="k")
    y = x
    for _ in range(10):
        y = tm.raw_ops.AddV2(x=y, y=k)  # y = x + 10 k
    z = tm.identity(y, name="z")
    return graph, x, k, z


def test_concurrent_runs_with_different_feeds_get_their_own_results(net):
    graph, x, k, z = net
    with tm.Session(graph=graph) as sess:

        def work(i):
            out = []
            for r in range(RUNS):
                xs = np.full(i + 1, r, np.float32)  # a different shape per thread, too
                got = sess.run(z, {x: xs, k: float(i)})
                out.append(np.array_equal(got, xs + 10 * i) and got.shape == (i + 1,))
            return all(out)

        assert _in_threads(work) == [True] * THREADS
        assert len(sess._plans) == 1


def test_plan_is_built_once_under_contention(net, monkeypatch):
    graph, x, k, z = net
    built: list = []
    missed: set = set()  # the threads that looked for the plan and did not find it

    class WatchedPlans(dict):
        def get(self, key, default=None):
            plan = super().get(key, default)
            if plan is None:
                missed.add(threading.get_ident())
            return plan

    class SlowPlan(session_module.Plan):
        def __init__(self, *args, **kwargs):
            built.append(threading.get_ident())
            # Every other thread arrives while this one builds: each has looked the plan up,
            # found none, and goes on to wait for the plan lock this one holds.
            wait_for(lambda: len(missed) == THREADS,
                     message=lambda: f"every thread to miss the plan ({len(missed)} did)")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(session_module, "Plan", SlowPlan)
    with tm.Session(graph=graph) as sess:
        sess._plans = WatchedPlans()
        results = _in_threads(lambda i: sess.run(z, {x: [float(i)], k: 1.0}))
        assert len(built) == 1
        assert [r.tolist() for r in results] == [[i + 10.0] for i in range(THREADS)]
        (plan,) = sess._plans.values()
        assert isinstance(plan, SlowPlan)


def test_make_callable_from_many_threads(net):
    graph, x, k, z = net
    with tm.Session(graph=graph) as sess:
        fn = sess.make_callable(z, feed_list=[x, k])
        results = _in_threads(lambda i: [fn([float(i)], float(r))[0] for r in range(RUNS)])
    for i, got in enumerate(results):
        assert got == [i + 10.0 * r for r in range(RUNS)]


def test_failures_in_one_thread_do_not_disturb_others(net):
    graph, x, k, z = net
    with tm.Session(graph=graph) as sess:

        def work(i):
            if i % 2:
                with pytest.raises(tm.errors.InvalidArgumentError, match="must feed"):
                    sess.run(z, {x: [1.0]})  # k missing
                return "failed as expected"
            return sess.run(z, {x: [0.0], k: 1.0}).tolist()

        results = _in_threads(work)
    assert results == [[10.0] if i % 2 == 0 else "failed as expected" for i in range(THREADS)]


def test_default_session_is_per_thread(net):
    graph = net[0]
    sess = tm.Session(graph=graph)
    seen = []
    with sess.as_default():
        t = threading.Thread(target=lambda: seen.append(tm.get_default_session()))
        t.start()
        t.join()
        assert tm.get_default_session() is sess
    assert seen == [None]
    sess.close()


def test_concurrent_building_gives_unique_names():
    g = tm.Graph()

    def build(i):
        with g.as_default():
            return [tm.constant(float(i), name="c").op.name for _ in range(RUNS)]

    names = [n for chunk in _in_threads(build) for n in chunk]
    assert len(names) == len(set(names)) == THREADS * RUNS
    assert len(g.get_operations()) == THREADS * RUNS
    assert sorted(op._id for op in g.get_operations()) == list(range(THREADS * RUNS))


def test_concurrent_name_scopes_stay_in_their_thread():
    g = tm.Graph()
    inside = threading.Barrier(THREADS, timeout=30)

    def build(i):
        with g.as_default(), tm.name_scope(f"t{i}"):
            inside.wait()  # every thread is inside its own name scope before any builds
            return tm.constant(1.0).op.name

    assert _in_threads(build) == [f"t{i}/Const" for i in range(THREADS)]
