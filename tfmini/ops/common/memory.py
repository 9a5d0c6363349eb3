"""The per-allocation cap: a kernel asked for more memory than the machine can give fails
clearly, before allocating, instead of a bare MemoryError or the machine swapping.

TensorFlow's allocator fails such a request with ResourceExhaustedError ("OOM when
allocating tensor with shape[...] and type ... on ... by allocator cpu",
tensorflow/core/framework/op_kernel.cc and tensorflow/core/common_runtime/bfc_allocator.cc).
tfmini's kernels allocate through NumPy, so kernels whose output size comes from a value (a
shape input, a count) call :func:`check_allocation` first. The cap defaults to the memory
the machine has available when tfmini is imported (``MemAvailable`` on Linux, else the
physical memory); the environment variable ``TFMINI_MAX_ALLOCATION_BYTES`` or
:func:`set_allocation_limit` changes it. See docs/reliability.md.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import as_dtype, tf_type_name

__all__: list[str] = []  # shared helpers, imported by name (not part of tm.*)

_ENV = "TFMINI_MAX_ALLOCATION_BYTES"


def _available_memory() -> int:
    """Bytes the machine can give now: /proc/meminfo's MemAvailable, else physical memory."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def _initial_limit() -> int:
    text = os.environ.get(_ENV, "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value > 0:
            return value
    return _available_memory()


_limit = _initial_limit()


def allocation_limit() -> int:
    """The largest single allocation (bytes) a kernel may ask for."""
    return _limit


def set_allocation_limit(nbytes: int | None) -> int:
    """Sets the per-allocation cap (bytes); None restores the default. Returns the old cap.

    Raises:
        ValueError: ``nbytes`` is not a positive int.
    """
    global _limit
    old = _limit
    if nbytes is None:
        _limit = _initial_limit()
    elif isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
        raise ValueError(f"The allocation limit must be a positive int, got {nbytes!r}")
    else:
        _limit = nbytes
    return old


def check_allocation(dims: Sequence[int], dtype: Any) -> int:
    """The element count of a tensor of ``dims``; fails before it is allocated when too big.

    Args:
        dims: The tensor's dims (non-negative ints).
        dtype: Its tfmini DType (or anything ``as_dtype`` accepts).

    Returns:
        The number of elements.

    Raises:
        InvalidArgumentError: more than 2**63 - 1 elements (TensorFlow's TensorShape limit).
        ResourceExhaustedError: more bytes than :func:`allocation_limit` (TensorFlow's OOM
            message, with the requested shape, type and size); the executor adds the op.
    """
    n = math.prod(int(d) for d in dims)
    shape = ",".join(str(int(d)) for d in dims)
    if n >= 1 << 63:
        raise errors.InvalidArgumentError(
            None, None, f"Shape [{shape}] has more than 2**63 - 1 elements")
    dt = as_dtype(dtype)
    nbytes = n * np.dtype(dt.np_dtype).itemsize
    if nbytes > _limit:
        raise errors.ResourceExhaustedError(
            None, None,
            f"OOM when allocating tensor with shape[{shape}] and type {tf_type_name(dt)} on "
            f"/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu: {nbytes} bytes "
            f"requested, more than the per-allocation limit of {_limit} bytes "
            f"(tfmini.ops.common.memory; {_ENV})")
    return n
