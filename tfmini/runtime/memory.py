"""Memory that stays warm between runs: glibc's allocator keeps freed large blocks.

A kernel's output is a fresh NumPy array. glibc's ``malloc`` serves a block above its
mmap threshold (128 KiB, rising dynamically to at most 32 MiB) with a fresh ``mmap`` and
gives it back with ``munmap`` when freed, and it trims the top of the heap once 128 KiB
or more is free there. Either way the next step's array of the same size is new memory
that the kernel page-faults in as it writes: a third of a FusedBatchNorm step on a
32x56x56x64 batch, and milliseconds of an embedding step, went to those faults.

TensorFlow's BFC allocator keeps the memory it has used; this does the same through
glibc's own knobs (``mallopt``), set once per process when the first Session starts:

* ``M_MMAP_THRESHOLD`` = 32 MiB (glibc's maximum): blocks up to 32 MiB come from the heap
  and are reused when freed instead of unmapped;
* ``M_TRIM_THRESHOLD`` = 1 GiB: free memory at the top of the heap stays mapped (and
  paged in) up to that size.

So a steady training loop reuses the same pages step after step; the process keeps about
its peak step's memory, as TensorFlow does (measured flat over 10,000 MLP steps, see
docs/performance.md). Set ``TFMINI_WARM_MEMORY=0`` in the environment to leave the
allocator as it is. Anywhere other than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import os
import threading

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc refuses more (HEAP_MAX_SIZE / 2 on 64-bit)
TRIM_THRESHOLD = 2**30

_lock = threading.Lock()
_state = {"done": False, "active": False}


def keep_memory_warm() -> bool:
    """Sets the allocator's thresholds once per process; True when they are in effect."""
    if _state["done"]:
        return _state["active"]
    with _lock:
        if not _state["done"]:
            _state["active"] = _configure()
            _state["done"] = True
    return _state["active"]


def _configure() -> bool:
    if os.environ.get("TFMINI_WARM_MEMORY", "1") == "0":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: nothing to set
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    return mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
