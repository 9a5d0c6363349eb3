"""Helpers shared by test modules (import them: ``from tests.helpers import hammer``).

Synchronisation for tests with threads: wait on something observable, never for a fixed time.

- ``wait_for(predicate)`` polls until ``predicate()`` is true and fails the test, saying what
  it waited for, when it is not true within ``timeout``.
- ``run_in_thread(fn, *args)`` runs ``fn`` in a thread; ``handle.result(timeout)`` returns its
  value or re-raises its exception in the test's thread, and fails the test if the thread is
  still running after ``timeout`` (instead of hanging the suite).
- ``run_in_threads(fn, n)`` runs ``fn(i)`` in ``n`` threads released together and returns
  their results (the first exception is re-raised; a hung thread fails the test).
- ``waiting_kernels(sess)`` / ``wait_until_waiting(sess, n)``: how many blocking kernels of a
  session are parked in ``KernelContext.wait`` (tfmini/runtime/kernel_context.py), to know a
  run is blocked (on a dequeue, a take, a mutex, a Recv) before the test acts on it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

# Long enough for a loaded 2-core CI machine, short enough that a regression fails soon.
DEFAULT_TIMEOUT = 5.0


def _describe(message: str | Callable[[], str] | None, predicate: Callable[[], Any]) -> str:
    if callable(message):
        return message()
    if message:
        return message
    return getattr(predicate, "__qualname__", repr(predicate))


def wait_for(
    predicate: Callable[[], Any],
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = 0.001,
    message: str | Callable[[], str] | None = None,
) -> Any:
    """Polls ``predicate()`` every ``interval`` seconds until it returns a true value.

    Args:
        predicate: What to wait for; it is called once more after the timeout, so a condition
            that became true just then still counts.
        timeout: Seconds to wait before failing the test.
        interval: Seconds between polls.
        message: What the test waited for (a string, or a callable giving one, evaluated only
            on failure); the failure says ``timed out after Ns waiting for <message>``.

    Returns:
        The (true) value ``predicate()`` returned.
    """
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= end:
            value = predicate()  # one last look: the thread may have got there meanwhile
            if value:
                return value
            pytest.fail(
                f"timed out after {timeout:g}s waiting for {_describe(message, predicate)}",
                pytrace=False,
            )
        time.sleep(interval)  # the poll interval, not a synchronisation


_thread_numbers = itertools.count(1)


class ThreadHandle:
    """A function running in a daemon thread (see ``run_in_thread``).

    Attributes:
        ended_at: ``time.monotonic()`` when the function returned or raised (None before).
    """

    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict, name: str | None):
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self._value: Any = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self.ended_at: float | None = None
        # Not "tfmini ...": tests count the runtime's own threads by that prefix.
        self.name = name or f"test-thread-{next(_thread_numbers)}"
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)

    def _run(self) -> None:
        try:
            self._value = self._fn(*self._args, **self._kwargs)
        except BaseException as e:  # handed to the test's thread by result()/exception()
            self._error = e
        finally:
            self.ended_at = time.monotonic()
            self._done.set()

    def start(self) -> ThreadHandle:
        self._thread.start()
        return self

    def done(self) -> bool:
        """Whether the function has returned or raised."""
        return self._done.is_set()

    def is_alive(self) -> bool:
        """Whether the function is still running."""
        return not self._done.is_set()

    def join(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Waits until the function ended; fails the test if it runs past ``timeout``."""
        if not self._done.wait(timeout):
            pytest.fail(f"thread {self.name} ({_name_of(self._fn)}) still running after "
                        f"{timeout:g}s", pytrace=False)
        self._thread.join()  # ended already: only the thread's last few instructions remain

    def result(self, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """The function's value; re-raises its exception here; fails the test on timeout."""
        self.join(timeout)
        if self._error is not None:
            raise self._error
        return self._value

    def exception(self, timeout: float = DEFAULT_TIMEOUT) -> BaseException | None:
        """The exception the function raised (None if it returned); fails on timeout."""
        self.join(timeout)
        return self._error


def _name_of(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", repr(fn))


def run_in_thread(fn: Callable[..., Any], *args: Any, name: str | None = None,
                  **kwargs: Any) -> ThreadHandle:
    """Starts ``fn(*args, **kwargs)`` in a daemon thread and returns its ``ThreadHandle``."""
    return ThreadHandle(fn, args, kwargs, name).start()


def join_all(handles: list[ThreadHandle], timeout: float = 30.0) -> list[Any]:
    """The results of ``handles`` in order, all waited for within ``timeout`` in total.

    Every thread is waited for before any exception is re-raised (the first one, in order),
    so no thread of the test is left running into the next test.
    """
    end = time.monotonic() + timeout
    for h in handles:
        h.join(max(0.0, end - time.monotonic()))
    return [h.result(0) for h in handles]


def run_in_threads(fn: Callable[[int], Any], n: int, timeout: float = 30.0) -> list[Any]:
    """Runs ``fn(i)`` for ``i`` in ``range(n)`` in ``n`` threads released together.

    Returns:
        The results, in order of ``i``. The first exception (in order of ``i``) is re-raised;
        a thread still running after ``timeout`` fails the test instead of hanging it.
    """
    barrier = threading.Barrier(n)

    def released(i: int) -> Any:
        barrier.wait(timeout)
        return fn(i)

    return join_all([run_in_thread(released, i) for i in range(n)], timeout)


def hammer(fn: Callable[[], object], threads: int = 8, times: int = 200,
           timeout: float = 60.0) -> list[Exception]:
    """Calls ``fn`` ``times`` times in each of ``threads`` threads, all released at once.

    Returns:
        The exceptions the calls raised (empty when every call succeeded). A thread still
        running after ``timeout`` fails the test.
    """
    start = threading.Barrier(threads)  # all threads hammer at once
    errors_seen: list[Exception] = []

    def work():
        try:
            start.wait(timeout)
            for _ in range(times):
                fn()
        except Exception as e:  # pragma: no cover - reported by the caller
            errors_seen.append(e)

    join_all([run_in_thread(work) for _ in range(threads)], timeout)
    return errors_seen


# -- blocking kernels ----------------------------------------------------------------------


def waiting_kernels(sess: Any) -> int:
    """How many blocking kernels of ``sess`` are parked in ``KernelContext.wait`` now.

    ``KernelContext.wait`` registers its condition with the session (``_add_waiter``) while
    it holds the condition's lock, and keeps it registered until the wait ends; so a count
    of ``n`` means ``n`` kernels are inside their wait loop (about to wait, or waiting).
    This is the one place the tests read that private bookkeeping.
    """
    return sum(sess._waiters.values())


def wait_until_waiting(sess: Any, n: int = 1, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Waits until at least ``n`` blocking kernels of ``sess`` are parked in a wait."""
    wait_for(lambda: waiting_kernels(sess) >= n, timeout,
             message=lambda: f"{n} blocking kernel(s) to wait "
                             f"({waiting_kernels(sess)} waiting)")
def wait_until(cond: Callable[[], bool], timeout: float = 5.0) -> None:
    """Polls ``cond`` until it is true (a thread reached a blocking point), instead of sleeping
    a fixed time; fails the test after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.001)


def in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, dict]:
    """Runs ``fn`` in a daemon thread; returns ``(thread, box)`` where ``box["value"]`` gets
    its result or exception and ``box["at"]`` the ``time.monotonic()`` when it ended."""
    box: dict = {}

    def work():
        try:
            box["value"] = fn()
        except Exception as e:  # handed to the test through the box
            box["value"] = e
        box["at"] = time.monotonic()

    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t, box
