"""Per-op generator state and the checks every random kernel shares.

A stateful random op keeps a :class:`PhiloxStream` (TensorFlow's ``GuardedPhiloxRandom``,
``tensorflow/core/util/guarded_philox_random.h``) in the session's resource manager, keyed by
the op: the first run creates it from the op's seed attrs, each run reserves the blocks it
uses, and a new Session starts again from the seeds. A failed run gives its reservation back
(as variables undo their writes), so running it again draws the same numbers.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini.core.shapes import dims_str
from tfmini.ops.common.kernel_util import as_int_list, check_non_negative_dims, invalid_argument
from tfmini.ops.common.memory import check_allocation
from tfmini.ops.random import philox

__all__: list[str] = []

_RESOURCE_CONTAINER = "_random_streams"
_MASK128 = (1 << 128) - 1


class PhiloxStream:
    """A Philox key and the counter of the next unused block."""

    __slots__ = ("key", "counter", "_lock")

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:
            # TensorFlow's "nondeterministic" seeds: fresh random ones per kernel instance.
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self.key, self.counter = philox.key_counter_from_seeds(seed, seed2)
        self._lock = threading.Lock()

    def reserve(self, blocks: int, ctx: Any = None) -> int:
        """Returns the counter of the first of ``blocks`` blocks and skips past them; with
        ``ctx``, a failure of the run gives them back."""
        with self._lock:
            base = self.counter
            after = (base + blocks) & _MASK128
            self.counter = after
        if ctx is not None and blocks:
            def undo() -> None:
                with self._lock:
                    if self.counter == after:
                        self.counter = base
            ctx.on_failure(undo)
        return base


def stream_for(ctx: Any, node: Any, seed: int, seed2: int) -> PhiloxStream:
    """The op's stream in this session (created from its seed attrs on first use)."""
    name = f"{node.name}@{id(node.graph):x}"
    return ctx.resource_manager.lookup_or_create(
        _RESOURCE_CONTAINER, name, lambda: PhiloxStream(int(seed), int(seed2)))


def output_dims(shape: Any, name: str = "shape") -> list[int]:
    """The output dims an int vector input asks for, checked as TensorFlow's
    ``tensor::MakeShape`` checks them."""
    arr = np.asarray(shape)
    if arr.ndim != 1:
        raise invalid_argument(
            f"{name} must be a vector of {{int32,int64}}, got shape {dims_str(arr.shape)}")
    if arr.dtype.kind not in "iu":
        raise invalid_argument(f"{name} must be a vector of {{int32,int64}}, got {arr.dtype}")
    dims = as_int_list(arr)
    check_non_negative_dims(dims)
    return dims


def check_size(dims: Sequence[int], dtype: Any) -> int:
    """The element count of ``dims``; ResourceExhaustedError before allocating more memory
    than the per-allocation cap (:func:`tfmini.ops.common.memory.check_allocation`)."""
    return check_allocation(dims, dtype)
