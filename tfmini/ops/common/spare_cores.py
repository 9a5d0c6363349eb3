"""How many cores a kernel may split its work over: those other processes leave free.

A kernel that splits a large elementwise job over threads (NumPy releases the GIL in its
loops) gains on idle cores and loses on busy ones: each NumPy call a worker makes needs the
GIL back afterwards, and on a machine whose cores other processes keep busy the thread that
is handed the GIL waits for a core first. Measured on the project's shared 2-core machine,
FusedBatchNorm + its gradient on 32x56x56x64 (same process, interleaved, medians): at a
load average of 6, 24.7 ms with one thread and 32.7 ms with two; at 4.2, 20.4 and 22.4 ms;
at 1.7 (this process's own core and ~0.7 more), 10.4 and 7.3 ms.

:func:`spare_cores` is ``cores - floor(busy_elsewhere)``, at least 1, where
``busy_elsewhere`` is the 1-minute load average less this process's own CPU use since the
last sample (the measure of the runtime's BLAS thread policy). The sample is refreshed at
most once a second, so a call costs a clock read.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["spare_cores"]

SAMPLE_S = 1.0  # how stale the load sample may be


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _Sampler:
    def __init__(self) -> None:
        self.cores = _cpu_count()
        self.lock = threading.Lock()
        self.sampled = False
        # The baseline of this process's CPU rate: import time, then each sample.
        self.at = time.monotonic()
        self.cpu = time.process_time()
        self.spare = 1

    def get(self) -> int:
        now = time.monotonic()
        if self.sampled and now - self.at < SAMPLE_S:
            return self.spare
        with self.lock:
            if not self.sampled or now - self.at >= SAMPLE_S:
                cpu = time.process_time()
                # This process's own share of the load: its CPU rate since the last sample
                # (since import for the first), none if that is too short or too long ago.
                span = now - self.at
                own = (cpu - self.cpu) / span if 0.05 < span < 60.0 else 0.0
                try:
                    load = os.getloadavg()[0]
                except OSError:  # pragma: no cover - no load average on this platform
                    load = 0.0
                busy = max(0.0, load - own)
                # A core counts as taken only when wholly busy: a second worker still paid
                # off with ~0.7 cores busy elsewhere (below).
                self.spare = max(1, self.cores - int(busy))
                self.at, self.cpu, self.sampled = now, cpu, True
            return self.spare


_SAMPLER = _Sampler()


def spare_cores() -> int:
    """Cores not wholly kept busy by other processes (at least 1), sampled at most once a
    second."""
    return _SAMPLER.get()
