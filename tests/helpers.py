"""Helpers shared by test modules (import them: ``from tests.helpers import hammer``)."""

from __future__ import annotations

import threading
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
