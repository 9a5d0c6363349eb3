"""Kernel-side helpers shared by the op families: TensorFlow's run-time errors and messages.

A kernel raises :func:`invalid_argument` (or another ``tm.errors`` class) with
TensorFlow's message; the executor adds the op type, name, device, input shapes
and the user's line. Shape functions have their own helpers in ``shape_fns``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType
from tfmini.core.shapes import dims_str


def invalid_argument(message: str) -> errors.InvalidArgumentError:
    """The run-time error a kernel raises; the executor adds op type, name and location."""
    return errors.InvalidArgumentError(None, None, message)


def _attr_text(value: Any) -> str:
    if isinstance(value, DType):
        return "DT_" + value.name.upper()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def no_kernel(node) -> errors.InvalidArgumentError:
    """TensorFlow's "No OpKernel was registered" error for ``node`` (an Operation)."""
    # TensorFlow's OpDef admits these types but TensorFlow registers no CPU kernel for them.
    attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in sorted(node.attrs.items()))
    return invalid_argument(
        f"No OpKernel was registered to support Op '{node.type}' used by {{{{node {node.name}}}}} "
        f"with these attrs: [{attrs}]",
    )


def as_int_list(value: Any) -> list[int]:
    """The elements of an int tensor (any rank) as a flat list of Python ints."""
    return [int(v) for v in np.asarray(value).ravel().tolist()]


def scalar_value(value: Any, message: str) -> np.ndarray:
    """The single element of a scalar (or, as TensorFlow tolerates, one-element vector) input,
    as a 0-d array; otherwise ``message`` followed by the shape is the error."""
    arr = np.asarray(value)
    if not (arr.ndim == 0 or (arr.ndim == 1 and arr.size == 1)):
        raise invalid_argument(f"{message} {dims_str(arr.shape)}")
    return arr.reshape(())


def check_non_negative_dims(dims: Sequence[int]) -> None:
    """Raises TensorFlow's error for the first negative dimension of an output shape."""
    for d in dims:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")


def slice_debug_string(shape: Sequence[int], flat: int) -> str:
    """TensorFlow's SliceDebugString: ``[1]`` or ``[1,1]`` for the flat position ``flat`` in
    an array of ``shape``, ``""`` for rank 0."""
    if len(shape) == 0:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, tuple(shape))) + "]"


def check_indices(indices: np.ndarray, limit: int, name: str = "indices") -> None:
    """Raises TensorFlow's InvalidArgumentError for the first index outside ``[0, limit)``
    ("indices[1,0] = 7 is not in [0, 5)")."""
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        flat = int(np.flatnonzero(bad)[0]) if bad.ndim else 0
        value = indices.reshape(-1)[flat]
        raise invalid_argument(
            f"{name}{slice_debug_string(indices.shape, flat)} = {int(value)} is not in "
            f"[0, {limit})"
        )
