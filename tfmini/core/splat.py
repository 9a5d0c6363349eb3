"""Splat arrays: one value standing for a whole tensor, as TensorFlow's TensorProto keeps it.

``tf.constant(1.0, shape=[10**9])`` stores a TensorProto with a shape and a single value;
TensorFlow expands it only when the kernel runs. tfmini keeps such a constant as a *splat
array*: a read-only ``np.broadcast_to`` view (every stride 0) of a private 0-d copy of the
value. It is an ordinary ndarray to every reader (shape functions, ``static_value``, kernels),
costs the bytes of one element, and a kernel that computes with it allocates only its own
result. A graph_def writes it back as one value (see :mod:`tfmini.core.tensor_json`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["is_splat", "splat", "splat_element"]


def splat(value: Any, shape: Sequence[int]) -> np.ndarray:
    """A read-only array of ``shape`` whose every element is ``value`` (one element stored).

    Args:
        value: A one-element array or scalar; it is copied, so later changes to the
            caller's array do not reach the splat.
        shape: The dims (non-negative ints).

    Returns:
        The broadcast view; ``np.array(result)`` materialises it.
    """
    one = np.array(np.asarray(value).reshape(()), copy=True)
    one.flags.writeable = False
    out = np.broadcast_to(one, tuple(int(d) for d in shape))
    return out


def is_splat(arr: Any) -> bool:
    """Whether ``arr`` is an array of more than one element that stores one (all strides 0)."""
    return (
        isinstance(arr, np.ndarray) and arr.size > 1 and not any(arr.strides)
    )


def splat_element(arr: np.ndarray) -> Any:
    """The one element of a splat array (as a 0-d array)."""
    return np.asarray(arr[(0,) * arr.ndim])
