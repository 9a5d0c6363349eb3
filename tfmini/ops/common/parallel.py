"""Work sharing for large kernels: the caller and helper threads take parts in turn.

A large kernel (a big matrix product, a dense optimizer update of a big variable) splits
its work into independent parts and hands them to :func:`run`. The caller works through
the parts itself while helper threads (started on first use, one fewer than
:func:`width`) take parts too; each part is taken by whichever thread asks first, and the
caller waits only for parts already started elsewhere. NumPy releases the GIL inside ufunc
loops and BLAS calls, so the parts run on separate cores.

Why not the BLAS library's own threads: OpenBLAS's threads spin (``sched_yield``) while
they wait, so on a machine whose cores other processes keep busy, a product split in two
waits for a half whose thread lost its core, and a 100-MFLOP product measured 5-25x slower
with 2 OpenBLAS threads than with 1 (docs/performance.md). Here a waiting thread blocks;
when no helper gets a core, the caller does every part itself (the cost of one thread plus
a few microseconds), and when one does, the work is shared.

How many threads a kernel may use is process-wide, set by the runtime's thread policy
(``tfmini/runtime/threads.py``) as runs start and end: the cores per run in flight less
those busy elsewhere. An update's slices go through the same operations in the same order
as the whole, so its results are equal bit for bit; a product's column or row blocks gave
the same bits as the whole product on the OpenBLAS measured here (BLAS does not promise it,
as it does not for its own thread splits).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Sequence
from itertools import count

import numpy as np

__all__: list[str] = []  # shared helpers, imported by name (not part of tm.*)

# Work below these sizes is not split. A hand-off costs 10-20 us of CPU, but the helper
# must also get a core, which on a shared machine can take a few hundred microseconds.
# Measured on 2 cores (docs/performance.md): the MLP's 512-wide products at batch 1024
# (540-820 MFLOP) ran 1.6x faster split in two while a core was free; those at batch 128
# (67-103 MFLOP) up to 1.5x slower; Adam's update of 400,000 elements gained nothing.
MIN_PRODUCT_FLOPS = 200_000_000  # a split product: 2*m*k*n at least this
MIN_ELEMENTS = 1 << 20  # an elementwise update: at least this many elements

_width = 1  # threads a kernel may use (the caller included)
_blas_threads = 1  # threads the BLAS pool has: products are split only beyond it
_SPLITTERS: set[str] = set()  # op types whose kernels split their batch over the cores


def register_splitter(*op_types: str) -> None:
    """Declares ``op_types`` as kernels that share their work out over the cores themselves
    (each part a one-thread BLAS call). A run holding one keeps the BLAS pool at one thread
    throughout (``runtime/threads.py``), so its kernels split where the machine is idle:
    the small convnet's step, whose three 5x5 convolutions run faster as two one-thread
    halves than as two-thread products (docs/performance.md, "Fifth pass")."""
    _SPLITTERS.update(op_types)


def splits_own_work(op_types) -> bool:
    """Whether any of ``op_types`` was declared by :func:`register_splitter`."""
    return not _SPLITTERS.isdisjoint(op_types)


def set_widths(width: int, blas_threads: int) -> None:
    """Called by the runtime's thread policy: threads a kernel may use, and the BLAS pool's
    size (a product is split into ``width // blas_threads`` parts)."""
    global _width, _blas_threads
    _width = max(1, int(width))
    _blas_threads = max(1, int(blas_threads))


def width() -> int:
    """Threads a kernel may use now (1: do the work in the caller)."""
    return _width


def parts_beside_blas() -> int:
    """How many threads a kernel may run BLAS calls on at once: :func:`width` over the BLAS
    pool's own threads (1 while the BLAS already uses the cores a kernel may have)."""
    return max(1, _width // _blas_threads)


def product_parts(m: int, k: int, n: int) -> int:
    """Into how many parts to split an ``[m, k] x [k, n]`` product (1: don't)."""
    parts = _width // _blas_threads
    if parts < 2 or 2 * m * k * n < MIN_PRODUCT_FLOPS or max(m, n) < 64 * parts:
        return 1
    return parts


def elementwise_parts(size: int) -> int:
    """Into how many parts to split an elementwise update of ``size`` elements."""
    if _width < 2 or size < MIN_ELEMENTS:
        return 1
    return min(_width, size // (MIN_ELEMENTS // 2))


def bounds(total: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ``(start, stop)`` ranges covering ``range(total)``."""
    cuts = [total * i // parts for i in range(parts + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


class _Job:
    """Parts handed out one by one to whichever thread asks; ``done`` when all finished."""

    __slots__ = ("parts", "take", "left", "lock", "done", "error", "errstate")

    def __init__(self, parts: Sequence[Callable[[], object]]) -> None:
        self.parts = parts
        self.take = count().__next__  # atomic under the GIL
        self.left = len(parts)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.errstate = np.geterr()  # the caller's (a run computes inf/nan silently)

    def work(self) -> None:
        parts, n = self.parts, len(self.parts)
        while True:
            i = self.take()
            if i >= n:
                return
            try:
                parts[i]()
            except BaseException as e:  # re-raised by the caller
                self.error = e
            with self.lock:
                self.left -= 1
                if not self.left:
                    self.done.set()


class _Helpers:
    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def _loop(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job.errstate == np.geterr():
                job.work()
            else:
                with np.errstate(**job.errstate):
                    job.work()

    def post(self, job: _Job, helpers: int) -> None:
        if len(self._threads) < helpers:
            with self._lock:
                while len(self._threads) < helpers:
                    t = threading.Thread(target=self._loop, name="tfmini-kernel-helper",
                                         daemon=True)
                    t.start()
                    self._threads.append(t)
        for _ in range(helpers):
            self._jobs.put(job)

    def reset(self) -> None:  # in a forked child: the threads are gone
        self.__init__()


_HELPERS = _Helpers()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_HELPERS.reset)


def run(parts: Sequence[Callable[[], object]]) -> None:
    """Runs the independent callables ``parts``, shared with the helper threads.

    Returns when all have finished; the first exception a part raised is re-raised here
    (the other parts still ran). With :func:`width` 1 or a single part, runs them in turn.
    """
    if len(parts) < 2 or _width < 2:
        for p in parts:
            p()
        return
    job = _Job(parts)
    _HELPERS.post(job, min(_width, len(parts)) - 1)
    job.work()
    job.done.wait()
    if job.error is not None:
        raise job.error


def elementwise(fn: Callable[..., object], arrays: Sequence[np.ndarray], *args) -> None:
    """``fn(*arrays, *args)``, or the same on matching slices of the flattened ``arrays`` in
    parts shared with the helpers when they are large (every array the same size and
    C-contiguous: the outputs among them are written through the slices). A None among
    ``arrays`` is passed as None to every part."""
    size = arrays[0].size
    parts = elementwise_parts(size)
    given = [a for a in arrays if a is not None]
    if parts > 1 and all(a.size == size and a.flags.c_contiguous for a in given):
        flat = [None if a is None else a.reshape(-1) for a in arrays]
        run([lambda s=s, e=e: fn(*[None if a is None else a[s:e] for a in flat], *args)
             for s, e in bounds(size, parts)])
    else:
        fn(*arrays, *args)


def matmul(x: np.ndarray, y: np.ndarray, parts: int) -> np.ndarray:
    """``x @ y`` for 2-D ``x``, ``y`` in ``parts`` products of column (or row) blocks."""
    m, n = x.shape[0], y.shape[1]
    out = np.empty((m, n), np.result_type(x, y))
    if n >= m:  # column blocks of y: each part reads all of x once
        run([lambda s=s, e=e: np.matmul(x, y[:, s:e], out=out[:, s:e])
             for s, e in bounds(n, parts)])
    else:
        run([lambda s=s, e=e: np.matmul(x[s:e], y, out=out[s:e])
             for s, e in bounds(m, parts)])
    return out
