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

The parts are shared with the kernel helper threads of ``tfmini/ops/common/parallel.py``,
as many as the runtime's thread policy allows beside the BLAS's own threads. Small kernels
stay on the calling thread: a hand-off costs tens of microseconds. So does every kernel
while NumPy's BLAS runs more than one thread of its own (the thread policy gives it several
only when it sees idle cores): parts on two threads each asking OpenBLAS
for two spinning threads took a convnet step from 52 to 223 ms at load 7, where one-thread
BLAS in two parts took it from 36 to 29 ms.

This module is internal to the nn family: it exports nothing to ``tm.*``.
"""

from __future__ import annotations

from collections.abc import Callable

from tfmini.ops.common import parallel

__all__: list[str] = []

# Below this many multiply-adds per part a kernel is not split (about 8 MFLOP: ~50 us of
# one core's products, against ~20-50 us for the hand-off).
MIN_PART_MACS = 1 << 22


def parts(batch: int, macs: int) -> list[slice]:
    """The batch slices to run in parallel: as many as the thread policy allows beside the
    BLAS's own threads while each part keeps at least ``MIN_PART_MACS`` of the ``macs``
    multiply-adds, never more than ``batch``."""
    count = max(1, min(parallel.parts_beside_blas(), batch, macs // MIN_PART_MACS))
    bounds = [batch * i // count for i in range(count + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def run(fn: Callable[[slice], object], slices: list[slice]) -> list:
    """``[fn(s) for s in slices]``, the parts shared between the calling thread and the
    kernel helper threads. The first exception raised by any part is raised here, after
    every part has ended (no part is left writing into a caller's buffer)."""
    results: list = [None] * len(slices)

    def part(i: int, s: slice) -> None:
        results[i] = fn(s)

    parallel.run([lambda i=i, s=s: part(i, s) for i, s in enumerate(slices)])
    return results
