"""Splitting strings into a SparseTensor: StringSplit (``tf.string_split``) and StringSplitV2
(``tf.strings.split``, TF1 form).

TensorFlow's kernel is ``tensorflow/core/kernels/string_split_op.cc``. StringSplit treats
each character of ``delimiter`` as a delimiter (an empty delimiter splits into bytes) and
drops empty tokens when ``skip_empty``; StringSplitV2 splits on the whole ``sep`` string
(Python's ``str.split(sep, maxsplit)``), or on runs of whitespace when ``sep`` is empty.
The result is ``[batch, max tokens]`` sparse: token ``j`` of string ``i`` at ``[i, j]``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.sparse_tensor import SparseTensor
from tfmini.ops.io.string_util import as_bytes

__all__ = ["string_split"]


def _split_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape("input"), 1)
    shape_fns.with_rank(ic.input_shape(1), 0)
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


def _sparse_from_tokens(tokens: list[list[bytes]]):
    counts = np.fromiter((len(ts) for ts in tokens), np.int64, len(tokens))
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(tokens), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    indices = np.stack([rows, np.arange(total, dtype=np.int64) - starts], axis=1)
    values = np.empty(total, dtype=object)
    values[:] = [t for ts in tokens for t in ts]
    width = int(counts.max()) if len(tokens) else 0
    return indices, values, np.array([len(tokens), width], dtype=np.int64)


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"  # TensorFlow's spelling: [1,1]


def _check_vector(input) -> None:  # noqa: A002
    if np.ndim(input) != 1:
        raise invalid_argument(f"input must be a vector, got shape: {_dims(np.shape(input))}")


@register_op(
    "StringSplit",
    inputs=["input: string", "delimiter: string"],
    outputs=["indices: int64", "values: string", "shape: int64"],
    attrs=["skip_empty: bool = true"],
    shape_fn=_split_shape,
)
def string_split_kernel(input, delimiter, *, skip_empty):  # noqa: A002
    """Splits each string at any of the delimiter's characters (bytes if it is empty)."""
    _check_vector(input)
    if np.ndim(delimiter) != 0:
        raise invalid_argument(
            f"delimiter must be a scalar, got shape: {_dims(np.shape(delimiter))}")
    delim = as_bytes(np.asarray(delimiter, dtype=object).item())
    tokens = []
    splitter = re.compile(b"[" + re.escape(delim) + b"]") if len(delim) > 1 else None
    for s in np.asarray(input, dtype=object).tolist():
        s = as_bytes(s)
        if not delim:
            parts = [s[i:i + 1] for i in range(len(s))]
        elif splitter is None:
            parts = s.split(delim)
        else:
            parts = splitter.split(s)
        # An empty string has no tokens, even when empty tokens are kept.
        tokens.append([p for p in parts if p or not skip_empty] if s else [])
    return _sparse_from_tokens(tokens)


@register_op(
    "StringSplitV2",
    inputs=["input: string", "sep: string"],
    outputs=["indices: int64", "values: string", "shape: int64"],
    attrs=["maxsplit: int = -1"],
    shape_fn=_split_shape,
)
def string_split_v2_kernel(input, sep, *, maxsplit):  # noqa: A002
    """Splits each string at ``sep`` (at whitespace runs when it is empty)."""
    _check_vector(input)
    if np.ndim(sep) != 0:
        raise invalid_argument(f"sep must be a scalar, got shape: {_dims(np.shape(sep))}")
    separator = as_bytes(np.asarray(sep, dtype=object).item())
    tokens = []
    for s in np.asarray(input, dtype=object).tolist():
        s = as_bytes(s)
        tokens.append(s.split(separator or None, maxsplit))
    return _sparse_from_tokens(tokens)


no_gradient("StringSplit")
no_gradient("StringSplitV2")


def _sparse(op) -> SparseTensor:
    indices, values, shape = op.outputs
    return SparseTensor(indices, values, shape)


def string_split(source: Any, sep: Any = None, skip_empty: bool = True, delimiter: Any = None,
                 result_type: str = "SparseTensor", name: str | None = None) -> SparseTensor:
    """Splits each string of a vector at any character of ``sep`` (TF1 ``tf.string_split``).

    Args:
        source: A 1-D string tensor.
        sep: The delimiter characters (default ``" "``; ``""`` splits into bytes).
        skip_empty: Drop empty tokens.
        delimiter: Deprecated name of ``sep``.
        result_type: Only ``"SparseTensor"`` (tfmini has no RaggedTensor).
        name: Optional name scope.

    Returns:
        A SparseTensor ``[len(source), max tokens]`` of string tokens.

    Raises:
        ValueError: both ``sep`` and ``delimiter`` are given, or result_type is not
            ``"SparseTensor"``.
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'.")
    _check_result_type(result_type)
    delim = delimiter if sep is None else sep
    with name_scope(name, "StringSplit", [source]):
        op = build_op(current_scope(), "StringSplit",
                      [as_operand(source, dtypes.string),
                       as_operand(" " if delim is None else delim, dtypes.string)],
                      {"skip_empty": skip_empty})
    return _sparse(op)


def strings_split(input: Any = None, sep: Any = None, maxsplit: int = -1,  # noqa: A002
                  result_type: str = "SparseTensor", source: Any = None,
                  name: str | None = None) -> SparseTensor:
    """Splits each string at ``sep`` (``tf.compat.v1.strings.split``): StringSplitV2.

    Args:
        input: A 1-D string tensor.
        sep: The separator string; None or ``""`` splits at runs of whitespace.
        maxsplit: At most this many splits per string (-1: no limit).
        result_type: Only ``"SparseTensor"`` (tfmini has no RaggedTensor).
        source: Deprecated name of ``input``.
        name: Optional op name.

    Returns:
        A SparseTensor ``[len(input), max tokens]`` of string tokens.
    """
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'.")
    _check_result_type(result_type)
    data = source if input is None else input
    op = build_op(current_scope(), "StringSplitV2",
                  [as_operand(data, dtypes.string),
                   as_operand("" if sep is None else sep, dtypes.string)],
                  {"maxsplit": maxsplit}, name=name)
    return _sparse(op)


def _check_result_type(result_type: str) -> None:
    if result_type != "SparseTensor":
        raise ValueError(f"result_type must be 'SparseTensor' in tfmini (no RaggedTensor), "
                         f"got {result_type!r}")
