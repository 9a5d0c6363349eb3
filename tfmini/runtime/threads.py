"""The BLAS thread policy: never more busy threads than cores.

NumPy's BLAS (OpenBLAS) splits each large product over its own thread pool, sized once to
the core count, and process-wide. Two things oversubscribe that pool:

* several runs in flight at once (threads sharing one Session, the workers of a
  synchronous round): each product asks for every core, so 4 callers on 2 cores run 8
  threads that spin waiting for each other;
* other processes keeping the cores busy: a product split in two waits for its slower half,
  and a spinning OpenBLAS thread that lost its core stalls the whole call. On this project's
  shared 2-core machine a 128x784x512 product took 25x longer with 2 BLAS threads than with
  1 while the load average was above 6.

So the pool is resized to ``max(1, min(cores // runs_in_flight, cores - busy_elsewhere))``.
Resizing goes through threadpoolctl's controller for the loaded BLAS (a ctypes call into
``openblas_set_num_threads``, about 1 us); the controller itself is made once (about 5 ms:
it walks the loaded libraries). The size is recomputed only when the number of runs in
flight changes or the load sample is older than ``LOAD_SAMPLE_S``, and the library is
called only when the size changes, so a steady single-threaded loop makes no call at all.
The pool shrinks at once and grows back only after ``GROW_DELAY_S`` without crowding.

``ConfigProto.intra_op_parallelism_threads`` (TensorFlow's knob for threads inside one op)
fixes the size instead, when positive.
"""

from __future__ import annotations

import os
import threading
import time
from time import monotonic

LOAD_SAMPLE_S = 1.0  # how stale the measure of other processes' load may be
GROW_DELAY_S = 0.1  # the pool grows back only after this long without crowding


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class BlasThreadPolicy:
    """Process-wide: sizes the BLAS pool to the cores left per run in flight.

    ``enter()`` / ``exit()`` bracket every run; both are a lock and a counter unless the
    pool size changes.
    """

    def __init__(self) -> None:
        self.cores = _cpu_count()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._size = 0  # the size last set (0: not yet)
        self._fixed = 0  # intra_op_parallelism_threads, when a session set it
        self._controllers: list | None = None
        self._busy_elsewhere = 0.0
        self._sampled_at = -LOAD_SAMPLE_S
        self._cpu_at = (0.0, 0.0)  # (process CPU seconds, wall seconds) at the last sample
        self._crowded_at = -GROW_DELAY_S  # when the pool last had to shrink
        self._settled_until = 0.0  # a lone run before this time needs no resizing

    # -- the library ------------------------------------------------------------------------
    def _blas(self) -> list:
        if self._controllers is None:
            try:
                from threadpoolctl import ThreadpoolController

                self._controllers = list(
                    ThreadpoolController().select(user_api="blas").lib_controllers)
            except Exception:  # pragma: no cover - no controllable BLAS: nothing to size
                self._controllers = []
        return self._controllers

    def _set(self, size: int, now: float) -> None:
        # Shrinking is immediate; growing waits until runs have stopped overlapping for a
        # while, so a pool whose runs come and go (4 threads stepping in turn) is not
        # resized up and down on every run.
        if self._size and size < self._size:
            self._crowded_at = now
        elif size > self._size and self._size and now - self._crowded_at < GROW_DELAY_S:
            return
        if size != self._size:
            for c in self._blas():
                c.set_num_threads(size)
            self._size = size

    # -- the load of other processes --------------------------------------------------------
    def _sample_load(self, now: float) -> None:
        """Cores kept busy by other processes: the 1-minute load average less this
        process's own CPU use over the last sample interval."""
        cpu = time.process_time()
        last_cpu, last_wall = self._cpu_at
        self._cpu_at = (cpu, now)
        self._sampled_at = now
        if last_wall <= 0.0 or now - last_wall > 60.0:
            own = 0.0
        else:
            own = (cpu - last_cpu) / max(now - last_wall, 1e-3)
        try:
            load = os.getloadavg()[0]
        except OSError:  # pragma: no cover - no load average on this platform
            load = 0.0
        self._busy_elsewhere = max(0.0, load - own)

    def _target(self) -> int:
        if self._fixed:
            return self._fixed
        free = self.cores - int(self._busy_elsewhere + 0.5)
        return max(1, min(self.cores // max(self._in_flight, 1), free))

    # -- runs -------------------------------------------------------------------------------
    def enter(self, fixed: int = 0) -> None:
        """A run starts; ``fixed`` is its session's intra_op_parallelism_threads."""
        with self._lock:
            n = self._in_flight = self._in_flight + 1
            now = monotonic()
            # The common case, one run at a time with a fresh load sample and the pool
            # already sized for it, touches nothing else (about 0.5 us in all).
            if n == 1 and fixed == self._fixed and now < self._settled_until:
                return
            self._fixed = fixed
            if now - self._sampled_at > LOAD_SAMPLE_S:
                self._sample_load(now)
            self._set(self._target(), now)
            if n == 1 and self._size == self._target():
                self._settled_until = self._sampled_at + LOAD_SAMPLE_S
            else:
                self._settled_until = 0.0

    def exit(self) -> None:
        """A run ended (successfully or not)."""
        with self._lock:
            n = self._in_flight = self._in_flight - 1
            if n:  # a crowd thinning out: grows back after GROW_DELAY_S
                self._settled_until = 0.0
                self._set(self._target(), monotonic())

    @property
    def size(self) -> int:
        """The BLAS pool size last set (0 before the first run)."""
        return self._size

    @property
    def in_flight(self) -> int:
        """Runs in flight now."""
        return self._in_flight


POLICY = BlasThreadPolicy()
