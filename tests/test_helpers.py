"""The synchronisation helpers of tests/helpers.py."""

from __future__ import annotations

import threading
import time

import pytest

import tfmini as tm
from tests.helpers import (
    hammer,
    join_all,
    run_in_thread,
    run_in_threads,
    wait_for,
    wait_until_waiting,
    waiting_kernels,
)

# -- wait_for ------------------------------------------------------------------------------


def test_wait_for_returns_the_true_value_at_once():
    assert wait_for(lambda: 42) == 42


def test_wait_for_polls_until_another_thread_makes_it_true():
    flag = threading.Event()
    calls = []

    def predicate():
        calls.append(1)
        if len(calls) == 3:
            threading.Thread(target=flag.set).start()
        return flag.is_set()

    assert wait_for(predicate) is True
    assert len(calls) >= 3


def test_wait_for_times_out_with_its_message():
    start = time.monotonic()
    with pytest.raises(pytest.fail.Exception,
                       match=r"timed out after 0.05s waiting for the moon to turn blue"):
        wait_for(lambda: False, timeout=0.05, message="the moon to turn blue")
    assert 0.05 <= time.monotonic() - start < 2.0


def test_wait_for_message_may_be_computed_on_failure():
    state = {"n": 0}

    def predicate():
        state["n"] += 1
        return False

    with pytest.raises(pytest.fail.Exception, match=r"waiting for n > 1000 \(n is \d+\)"):
        wait_for(predicate, timeout=0.01, message=lambda: f"n > 1000 (n is {state['n']})")


def test_wait_for_without_a_message_names_the_predicate():
    def the_door_opens():
        return False

    with pytest.raises(pytest.fail.Exception, match="waiting for .*the_door_opens"):
        wait_for(the_door_opens, timeout=0.01)


def test_wait_for_looks_once_more_at_the_timeout():
    # True only on the last look, taken when the time is up: not a failure.
    seen = []

    def predicate():
        seen.append(time.monotonic())
        return len(seen) > 1

    assert wait_for(predicate, timeout=0.0) is True


# -- threads -------------------------------------------------------------------------------


def test_run_in_thread_returns_the_value_and_runs_elsewhere():
    handle = run_in_thread(lambda a, b=0: (threading.get_ident(), a + b), 1, b=2)
    ident, value = handle.result()
    assert value == 3 and ident != threading.get_ident()
    assert handle.done() and not handle.is_alive() and handle.ended_at is not None
    assert handle.exception() is None


def test_run_in_thread_result_re_raises_the_threads_exception():
    def fails():
        raise ValueError("raised in the thread")

    handle = run_in_thread(fails)
    with pytest.raises(ValueError, match="raised in the thread") as info:
        handle.result()
    # The traceback leads into the thread's function.
    assert any(entry.name == "fails" for entry in info.traceback)
    assert isinstance(handle.exception(), ValueError)


def test_run_in_thread_keeps_base_exceptions_too():
    def interrupted():
        raise KeyboardInterrupt("in the thread")

    handle = run_in_thread(interrupted)
    assert isinstance(handle.exception(), KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        handle.result()


def test_run_in_thread_fails_clearly_instead_of_hanging():
    release = threading.Event()

    def stuck():
        release.wait(10)

    handle = run_in_thread(stuck, name="the-stuck-one")
    try:
        with pytest.raises(pytest.fail.Exception,
                           match=r"thread the-stuck-one \(.*stuck\) still running after 0.05s"):
            handle.result(0.05)
        assert handle.is_alive()
    finally:
        release.set()
    assert handle.result() is None


def test_join_all_returns_results_in_order_and_re_raises_the_first_error():
    gate = threading.Event()

    def slow_ok():
        gate.wait(5)
        return "slow"

    handles = [run_in_thread(slow_ok), run_in_thread(lambda: "fast")]
    gate.set()
    assert join_all(handles) == ["slow", "fast"]

    def boom(msg):
        raise RuntimeError(msg)

    handles = [run_in_thread(lambda: 1), run_in_thread(boom, "first"),
               run_in_thread(boom, "second")]
    with pytest.raises(RuntimeError, match="first"):
        join_all(handles)
    assert not any(h.is_alive() for h in handles)  # all were waited for


def test_run_in_threads_releases_all_together():
    n = 6
    inside = []
    lock = threading.Lock()

    def work(i):
        with lock:
            inside.append(i)
        # Every thread passed the barrier before any returns: all n arrive here.
        wait_for(lambda: len(inside) == n)
        return i * i

    assert run_in_threads(work, n) == [i * i for i in range(n)]


def test_run_in_threads_re_raises():
    def work(i):
        if i == 2:
            raise ValueError(f"thread {i}")
        return i

    with pytest.raises(ValueError, match="thread 2"):
        run_in_threads(work, 4)


def test_hammer_collects_errors():
    count = []
    assert hammer(lambda: count.append(1), threads=4, times=10) == []
    assert len(count) == 40
    errors = hammer(lambda: 1 / 0, threads=3, times=5)
    assert len(errors) == 3 and all(isinstance(e, ZeroDivisionError) for e in errors)


# -- blocking kernels ----------------------------------------------------------------------


def test_wait_until_waiting_sees_a_run_parked_in_a_blocking_kernel():
    g = tm.Graph()
    with g.as_default():
        lock = tm.raw_ops.MutexLock(mutex=tm.raw_ops.MutexV2(shared_name="helpers"))
    sess = tm.Session(graph=g)
    held = sess.run(lock)
    assert waiting_kernels(sess) == 0
    blocked = run_in_thread(sess.run, lock)
    wait_until_waiting(sess)
    assert waiting_kernels(sess) == 1 and blocked.is_alive()
    del held  # releases the mutex: the waiting run takes it
    blocked.result()
    assert waiting_kernels(sess) == 0
    sess.close()


def test_wait_until_waiting_times_out_naming_the_count():
    with tm.Session(graph=tm.Graph()) as sess:
        with pytest.raises(pytest.fail.Exception,
                           match=r"waiting for 1 blocking kernel\(s\) to wait \(0 waiting\)"):
            wait_until_waiting(sess, timeout=0.01)
