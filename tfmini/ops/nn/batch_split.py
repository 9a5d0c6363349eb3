"""Splits a convolution kernel's batch over the cores: each part on its own thread.

A convolution's products (im2col times the filter, and the two gradients) are large, and
NumPy releases the GIL inside BLAS and inside its copy and add loops, so the batch halves
of a kernel run truly in parallel on two threads, each a one-thread BLAS call. This is
what lets a convolution use both cores of a loaded machine: OpenBLAS's own threads spin
while they wait for each other, and a spinning thread that lost its core stalls the whole
product (the BLAS pool is kept at one thread then, see ``tfmini/runtime/threads.py``), where
a part that finishes first here just waits on its sibling's future. Measured on the 2-core
machine (load average ~4, SkylakeX kernels), the 5x5x32x64 layer of the small convnet at
batch 32: forward 4.5 -> 2.6 ms, filter gradient 4.7 -> 2.9 ms, input gradient 4.7 -> 3.6 ms.

Small kernels stay on the calling thread: a hand-off costs tens of microseconds. So does
every kernel while NumPy's BLAS runs more than one thread of its own (the thread policy
gives it several only when it sees idle cores): parts on two threads each asking OpenBLAS
for two spinning threads took a convnet step from 52 to 223 ms at load 7, where one-thread
BLAS in two parts took it from 36 to 29 ms.

This module is internal to the nn family: it exports nothing to ``tm.*``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__: list[str] = []

# Below this many multiply-adds per part a kernel is not split (about 8 MFLOP: ~50 us of
# one core's products, against ~20-50 us for the hand-off).
MIN_PART_MACS = 1 << 22


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# At most 4 parts: more threads than that would each ask a multi-threaded BLAS for every
# core on a large machine.
MAX_PARTS = max(1, min(4, _cores()))
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_lock = threading.Lock()


def _get_pool() -> ThreadPoolExecutor:
    global _pool, _pool_pid
    with _pool_lock:
        # A forked child inherits the executor but not its threads: it makes its own.
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(max(1, MAX_PARTS - 1), thread_name_prefix="tfmini-conv")
            _pool_pid = os.getpid()
        return _pool


_blas: list | None = None  # threadpoolctl's controllers of the BLAS NumPy loaded


def _blas_threads() -> int:
    """The most threads any loaded BLAS runs per call (a ctypes call, about 0.3 us)."""
    global _blas
    if _blas is None:
        try:
            from threadpoolctl import ThreadpoolController

            _blas = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        except Exception:  # pragma: no cover - no controllable BLAS: assume one thread
            _blas = []
    return max((c.get_num_threads() for c in _blas), default=1)


def parts(batch: int, macs: int) -> list[slice]:
    """The batch slices to run in parallel: one per core while each part keeps at least
    ``MIN_PART_MACS`` of the ``macs`` multiply-adds, never more than ``batch``; the whole
    batch while the BLAS runs several threads itself."""
    count = max(1, min(MAX_PARTS, batch, macs // MIN_PART_MACS))
    if count > 1 and _blas_threads() > 1:
        return [slice(0, batch)]
    bounds = [batch * i // count for i in range(count + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def run(fn: Callable[[slice], object], slices: list[slice]) -> list:
    """``[fn(s) for s in slices]``, the first part on the calling thread and the others on
    the pool at the same time. The first exception raised by any part is raised here,
    after every part has ended (no part is left writing into a caller's buffer)."""
    if len(slices) == 1:
        return [fn(slices[0])]
    pool = _get_pool()
    futures = [pool.submit(fn, s) for s in slices[1:]]
    try:
        first = fn(slices[0])
    finally:
        rest = [f.exception() for f in futures]  # waits for each; no pending writes
    for err in rest:
        if err is not None:
            raise err
    return [first, *(f.result() for f in futures)]
