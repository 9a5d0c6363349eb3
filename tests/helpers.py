"""Helpers shared by test modules (import them: ``from tests.helpers import hammer``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def hammer(fn: Callable[[], object], threads: int = 8, times: int = 200) -> list[Exception]:
    """Calls ``fn`` ``times`` times in each of ``threads`` threads, all released at once.

    Returns:
        The exceptions the calls raised (empty when every call succeeded).
    """
    start = threading.Barrier(threads)  # all threads hammer at once
    errors_seen: list[Exception] = []

    def work():
        try:
            start.wait()
            for _ in range(times):
                fn()
        except Exception as e:  # pragma: no cover - reported by the caller
            errors_seen.append(e)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return errors_seen


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
