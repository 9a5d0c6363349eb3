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

So the pool is resized to ``max(1, min(cores // runs_in_flight, cores - busy_elsewhere))``,
where ``busy_elsewhere`` is the machine's busy cores over the last second or so
(``/proc/stat``) less this process's own CPU use.
Resizing goes through threadpoolctl's controller for the loaded BLAS (a ctypes call into
``openblas_set_num_threads``, about 1 us); the controller itself is made once (about 5 ms:
it walks the loaded libraries). The size is recomputed only when the number of runs in
flight changes or the load sample is older than ``LOAD_SAMPLE_S``, and the library is
called only when the size changes, so a steady single-threaded loop makes no call at all.
The pool shrinks at once and grows back only after ``GROW_DELAY_S`` without crowding.
A shrink does not stop OpenBLAS's idle helper thread: it spins for 2^28 TSC cycles (about
0.1 s) after its last product before it sleeps, and nothing callable shortens that
(``OPENBLAS_THREAD_TIMEOUT`` is read when the library loads), so the first 0.1 s of a crowd
shares the cores with it (docs/performance.md, "Zen 5 again").

``ConfigProto.intra_op_parallelism_threads`` (TensorFlow's knob for threads inside one op)
fixes the size instead, when positive.

A run whose plan holds a kernel that splits its own work over the cores (the convolutions,
``ops/common/parallel.register_splitter``) keeps the pool at one thread for the whole run,
and its kernels get the cores as parts of one-thread products. Resizing the pool for those
kernels alone did not pay (OpenBLAS's woken thread spins on the second core for a while
after a two-thread product); holding it at one thread all through the step did: the small
convnet's step 9.4-9.7 -> 8.1-8.4 ms on an idle machine (docs/performance.md, "Fifth pass").

The policy also tells the kernels that share their work out themselves
(``tfmini/ops/common/parallel.py``: large products, dense optimizer updates) how many threads
they may use: the cores per run in flight, less the cores busy elsewhere (a core counts as
free when at least 70% idle). Their waiting threads block instead of spinning, and a
helper that gets no core leaves its parts to the caller, so they need a little less spare
room than OpenBLAS (a core half busy elsewhere already cuts the BLAS pool to one thread;
a large product is then split in two blocks instead).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from time import monotonic

from tfmini.ops.common import parallel as _kernel_threads

LOAD_SAMPLE_S = 1.0  # how stale the measure of other processes' load may be
GROW_DELAY_S = 0.1  # the pool grows back only after this long without crowding
MIN_TICK_WINDOW_S = 0.05  # the shortest interval /proc/stat's counts are read over


def _cpu_ticks() -> tuple[int, int] | None:
    """(all, idle) jiffies the machine's CPUs have spent since boot (``/proc/stat``'s ``cpu``
    line; idle includes iowait), or None where it cannot be read."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
        values = [int(v) for v in fields[1:9]]
        return sum(values), values[3] + values[4]
    except (OSError, ValueError, IndexError):
        return None


def _load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average on this platform
        return 0.0


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _OpenBlasSetter:
    """OpenBLAS's own ``openblas_set_num_threads``, callable from any thread.

    threadpoolctl (3.8 on) lets only the first thread that sets a pthreads OpenBLAS's size
    set it again; the same call from any other thread silently does nothing
    (``OpenBLASController.set_num_threads``). The policy resizes from whichever thread
    starts or ends a run, under its own lock, so it calls the library itself: through
    threadpoolctl, the 4-thread MLP loop's pool stayed at two threads while the policy
    believed it at one, and its steps ran 2.7x slower than with the pool held at one
    (9.5 against 3.2 ms a step on 2 cores, docs/performance.md).
    """

    def __init__(self, set_num_threads) -> None:
        self._set_num_threads = set_num_threads

    def set_num_threads(self, size: int) -> None:
        self._set_num_threads(size)


def _process_wide_setter(controller) -> _OpenBlasSetter | None:
    """The setter for a pthreads OpenBLAS found by threadpoolctl (its symbol carries the
    build's affixes: ``scipy_openblas_set_num_threads64_`` in NumPy's wheels), or None
    for any other library (threadpoolctl's own call then)."""
    if (getattr(controller, "internal_api", "") != "openblas"
            or getattr(controller, "threading_layer", "") == "openmp"):
        return None
    lib = getattr(controller, "dynlib", None)
    for prefix in ("", "scipy_"):
        for suffix in ("", "64_", "_64"):
            fn = getattr(lib, f"{prefix}openblas_set_num_threads{suffix}", None)
            if fn is not None:
                return _OpenBlasSetter(fn)
    return None


class BlasThreadPolicy:
    """Process-wide: sizes the BLAS pool to the cores left per run in flight.

    ``enter()`` / ``exit()`` bracket every run; both are a lock and a counter unless the
    pool size changes.
    """

    def __init__(self, share: Callable[[int, int], None] | None = None) -> None:
        # ``share(width, blas_threads)`` tells the kernels that split work themselves.
        self._share = share
        self.cores = _cpu_count()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._size = 0  # the size last set (0: not yet)
        self._fixed = 0  # intra_op_parallelism_threads, when a session set it
        self._single = False  # the last run splits its own work: BLAS held at one thread
        self._controllers: list | None = None
        self._busy_elsewhere = 0.0
        self._sampled_at = -LOAD_SAMPLE_S
        # (process CPU seconds, wall seconds) and (all, idle) CPU jiffies at the last sample;
        # the first is taken now, so the first run already measures the time since import.
        self._cpu_at = (time.process_time(), monotonic())
        self._ticks: tuple[int, int] | None = _cpu_ticks()
        self._crowded_at = -GROW_DELAY_S  # when the pool last had to shrink
        self._settled_until = 0.0  # a lone run before this time needs no resizing

    # -- the library ------------------------------------------------------------------------
    def _blas(self) -> list:
        if self._controllers is None:
            try:
                from threadpoolctl import ThreadpoolController

                self._controllers = [
                    _process_wide_setter(c) or c
                    for c in ThreadpoolController().select(user_api="blas").lib_controllers]
            except Exception:  # pragma: no cover - no controllable BLAS: nothing to size
                self._controllers = []
        return self._controllers

    def _set(self, size: int, now: float) -> None:
        # Shrinking is immediate; growing waits until runs have stopped overlapping for a
        # while, so a pool whose runs come and go (4 threads stepping in turn) is not
        # resized up and down on every run.
        if self._size and size < self._size:
            self._crowded_at = now
        elif (size > self._size and self._size and not self._fixed
              and now - self._crowded_at < GROW_DELAY_S):  # a fixed size applies at once
            return
        if size != self._size:
            for c in self._blas():
                c.set_num_threads(size)
            self._size = size

    # -- the load of other processes --------------------------------------------------------
    def _sample_load(self, now: float) -> None:
        """Cores kept busy by other processes: the machine's busy cores over the interval
        since the last sample (``/proc/stat``), less this process's own CPU use over it.

        The 1-minute load average (the fallback where ``/proc/stat`` cannot be read) counts
        runnable threads, not busy cores, and lags by a minute: a process that ran on both
        cores a few seconds ago (TensorFlow's side of a benchmark, say) kept the policy at
        one thread long after it had ended.
        """
        cpu = time.process_time()
        ticks = _cpu_ticks()
        last_cpu, last_wall = self._cpu_at
        last_ticks = self._ticks
        window = now - last_wall
        self._sampled_at = now
        if ticks is not None and last_ticks is not None and window < MIN_TICK_WINDOW_S:
            # Too short to count 10 ms jiffies over (the first run right after import):
            # keep the readings, go by the load average meanwhile, and ask again soon.
            self._sampled_at = now - LOAD_SAMPLE_S + MIN_TICK_WINDOW_S
            self._busy_elsewhere = _load_average()
            return
        self._cpu_at, self._ticks = (cpu, now), ticks
        own = (cpu - last_cpu) / window if 0.0 < window <= 60.0 else 0.0
        if ticks is not None and last_ticks is not None and window <= 60.0:
            total = ticks[0] - last_ticks[0]
            idle = ticks[1] - last_ticks[1]
            if total > 0:
                busy = self.cores * (1.0 - idle / total)
                self._busy_elsewhere = max(0.0, busy - own)
                return
        self._busy_elsewhere = max(0.0, _load_average() - own)

    def _target(self) -> int:
        if self._fixed:
            return self._fixed
        if self._single:
            return 1
        free = self.cores - int(self._busy_elsewhere + 0.5)
        return max(1, min(self.cores // max(self._in_flight, 1), free))

    def _share_out(self) -> None:
        """Tells the kernels that split work themselves (ops/common/parallel.py) how many
        threads they may use, and the BLAS pool's size (a product is split only beyond it)."""
        if self._share is None:
            return
        if self._fixed:
            width = self._fixed
        else:
            # The cores at least 70% idle: their waiting threads block instead of spinning,
            # and a helper that gets no core leaves its parts to the caller, but a helper on
            # a core someone else keeps busy gains nothing (measured on 2 cores with 1.15
            # busy elsewhere: the MLP's batch-1024 products 5-8% slower split in two; with
            # a core free, 1.6x faster).
            width = max(1, min(self.cores // max(self._in_flight, 1),
                               self.cores - int(self._busy_elsewhere + 0.3)))
        self._share(width, self._size)

    # -- runs -------------------------------------------------------------------------------
    def enter(self, fixed: int = 0, single_blas: bool = False) -> None:
        """A run starts; ``fixed`` is its session's intra_op_parallelism_threads;
        ``single_blas``: its kernels split their work themselves, so the BLAS pool stays at
        one thread (unless ``fixed``) while the kernels may still use the free cores."""
        with self._lock:
            n = self._in_flight = self._in_flight + 1
            now = monotonic()
            # The common case, one run at a time with a fresh load sample and the pool
            # already sized for it, touches nothing else (about 0.5 us in all).
            if (n == 1 and fixed == self._fixed and single_blas == self._single
                    and now < self._settled_until):
                return
            self._fixed = fixed
            self._single = single_blas
            if n > 1:
                # Crowded: the pool grows back only GROW_DELAY_S after the last crowding, not
                # after the last shrink (a pool already at one thread would otherwise grow
                # whenever a run found itself alone for a moment between rounds, and OpenBLAS's
                # woken thread spins for a while after each product).
                self._crowded_at = now
            if now - self._sampled_at > LOAD_SAMPLE_S:
                self._sample_load(now)
            self._set(self._target(), now)
            self._share_out()
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
                self._share_out()

    @property
    def size(self) -> int:
        """The BLAS pool size last set (0 before the first run)."""
        return self._size

    @property
    def in_flight(self) -> int:
        """Runs in flight now."""
        return self._in_flight


POLICY = BlasThreadPolicy(share=_kernel_threads.set_widths)
