"""Segment reductions: SegmentSum/Mean/Max/Min/Prod (sorted ids) and UnsortedSegmentMax/Min/
Prod, with ``unsorted_segment_mean`` and ``unsorted_segment_sqrt_n`` built as TensorFlow
builds them (UnsortedSegmentSum is the array family's).

Kernels follow ``tensorflow/core/kernels/segment_reduction_ops_impl.h``: sorted segments that
are empty give 0; unsorted empty segments give the reduction's identity (the lowest value for
max, the highest for min, 1 for prod); negative unsorted ids are dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument, slice_debug_string

_SUM_TYPES = "float, double, int32, uint8, int16, int8, int64, half"
_MINMAX_TYPES = "float, double, int32, uint8, int16, int8, int64, half"


def _segment_shape(ic) -> list[TensorShape]:
    data = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    shape_fns.with_rank(ic.input_shape(1), 1)
    if data.dims is None:
        return [unknown_shape()]
    return [TensorShape([None, *data.dims[1:]])]


def _reduce_rows(np_reduce, rows: np.ndarray, ids: np.ndarray, n: int, init) -> np.ndarray:
    out = np.full((n,) + rows.shape[1:], init, dtype=rows.dtype)
    np_reduce.at(out, ids, rows)
    return out


def _identity(kind: str, dt: np.dtype):
    if kind == "max":
        return -np.inf if dt.kind == "f" else np.iinfo(dt).min
    if kind == "min":
        return np.inf if dt.kind == "f" else np.iinfo(dt).max
    return 1 if kind == "prod" else 0


_UFUNC = {"sum": np.add, "mean": np.add, "max": np.maximum, "min": np.minimum,
          "prod": np.multiply}


def _sorted_kernel(kind: str):
    def kernel(data, segment_ids):
        x, ids = np.asarray(data), np.asarray(segment_ids)
        if ids.ndim != 1:
            raise invalid_argument("segment_ids should be a vector.")
        if x.ndim < 1 or ids.shape[0] != x.shape[0]:
            raise invalid_argument(
                "segment_ids should be the same size as dimension 0 of input.")
        if ids.size > 1 and (np.diff(ids) < 0).any():
            raise invalid_argument("segment ids are not increasing")
        n = int(ids[-1]) + 1 if ids.size else 0
        if ids.size and ids[0] < 0:
            raise invalid_argument(
                f"Segment id {int(ids[0])} out of range [0, {n}), possibly because "
                "'segment_ids' input is not sorted.")
        rows = x.astype(np.float32) if x.dtype == np.float16 else x
        out = _reduce_rows(_UFUNC[kind], rows, ids.astype(np.int64), n,
                           _identity(kind, rows.dtype))
        counts = np.bincount(ids.astype(np.int64), minlength=n)
        empty = counts == 0
        if kind in ("max", "min"):
            out[empty] = 0  # an empty sorted segment is 0, not the identity
        if kind == "mean":
            shape = (n,) + (1,) * (x.ndim - 1)
            c = np.maximum(counts, 1).reshape(shape)
            out = out // c if x.dtype.kind in "iu" else out / c
        return out.astype(x.dtype)

    kernel.__name__ = f"segment_{kind}_kernel"
    return kernel


for _kind, _types in (("sum", _SUM_TYPES), ("mean", _SUM_TYPES), ("max", _MINMAX_TYPES),
                      ("min", _MINMAX_TYPES), ("prod", _SUM_TYPES)):
    register_op(
        f"Segment{_kind.capitalize()}",
        inputs=["data: T", "segment_ids: Tindices"],
        outputs=["output: T"],
        attrs=[f"T: {{{_types}}}", "Tindices: {int32, int64}"],
        shape_fn=_segment_shape,
        doc=f"The {_kind} of each segment of rows (ids sorted).",
    )(_sorted_kernel(_kind))


def _unsorted_shape(ic) -> list[TensorShape]:
    data = as_shape(ic.input_shape(0))
    ids = as_shape(ic.input_shape(1))
    shape_fns.with_rank(ic.input_shape(2), 0)
    num = shape_fns.dim_from_scalar_input(ic, 2, 2)
    if data.dims is None or ids.dims is None:
        return [unknown_shape()]
    return [TensorShape((num,) + tuple(data.dims[ids.rank:]))]


def _unsorted_kernel(kind: str):
    def kernel(data, segment_ids, num_segments):
        x, ids, num = np.asarray(data), np.asarray(segment_ids), np.asarray(num_segments)
        if num.ndim != 0:
            raise invalid_argument(f"num_segments should be a scalar, not shape "
                                   f"{dims_str(num.shape)}")
        if x.shape[:ids.ndim] != ids.shape:
            raise invalid_argument(
                f"data.shape = {dims_str(x.shape)} does not start with segment_ids.shape = "
                f"{dims_str(ids.shape)}")
        n = int(num)
        if n < 0:
            raise invalid_argument(f"Input num_segments == {n} must not be negative.")
        flat = ids.reshape(-1).astype(np.int64)
        over = flat >= n
        if over.any():
            i = int(np.argmax(over))
            raise invalid_argument(
                f"segment_ids{slice_debug_string(ids.shape, i)} = {flat[i]} is out of range "
                f"[0, {n})")
        rows = x.reshape((flat.size,) + x.shape[ids.ndim:])
        keep = flat >= 0
        work = rows.astype(np.float32) if x.dtype == np.float16 else rows
        out = _reduce_rows(_UFUNC[kind], work[keep], flat[keep], n, _identity(kind, work.dtype))
        if x.dtype.kind == "f" and kind in ("max", "min"):
            # TensorFlow's identity is the lowest (highest) finite value, not -inf (inf).
            info = np.finfo(x.dtype)
            empty = (np.bincount(flat[keep], minlength=n) == 0).reshape(
                (n,) + (1,) * (out.ndim - 1))
            out = np.where(empty, info.min if kind == "max" else info.max, out)
        return out.astype(x.dtype)

    kernel.__name__ = f"unsorted_segment_{kind}_kernel"
    return kernel


for _kind, _types in (("max", _MINMAX_TYPES), ("min", _MINMAX_TYPES), ("prod", _SUM_TYPES)):
    register_op(
        f"UnsortedSegment{_kind.capitalize()}",
        inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
        outputs=["output: T"],
        attrs=[f"T: {{{_types}}}", "Tindices: {int32, int64}",
               "Tnumsegments: {int32, int64} = DT_INT32"],
        shape_fn=_unsorted_shape,
        doc=f"The {_kind} of the rows of each segment id (negative ids dropped).",
    )(_unsorted_kernel(_kind))


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _sorted_fn(kind: str):
    op_type = f"Segment{kind.capitalize()}"

    def fn(data: Any, segment_ids: Any, name: str | None = None) -> Output:
        return build_output(op_type, [as_operand(data), as_operand(segment_ids)], name=name)

    fn.__name__ = fn.__qualname__ = f"segment_{kind}"
    fn.__doc__ = (
        f"The {kind} of each segment of rows (``tf.math.segment_{kind}``, op ``{op_type}``).\n\n"
        "Args:\n"
        "    data: A tensor.\n"
        "    segment_ids: 1-D sorted int ids, one per row of data.\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    ``[segment_ids[-1] + 1, *data.shape[1:]]``.\n"
    )
    return fn


def _unsorted_fn(kind: str):
    op_type = f"UnsortedSegment{kind.capitalize()}"

    def fn(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Output:
        return build_output(op_type, [as_operand(data), as_operand(segment_ids),
                                      as_operand(num_segments)], name=name)

    fn.__name__ = fn.__qualname__ = f"unsorted_segment_{kind}"
    fn.__doc__ = (
        f"The {kind} of the rows of each segment id (``tf.math.unsorted_segment_{kind}``, op "
        f"``{op_type}``).\n\n"
        "Args:\n"
        "    data: A tensor.\n"
        "    segment_ids: int ids matching data's leading dimensions; negative ids dropped.\n"
        "    num_segments: The number of output rows.\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    ``[num_segments, *data.shape[segment_ids.rank:]]``.\n"
    )
    return fn


segment_sum = _sorted_fn("sum")
segment_mean = _sorted_fn("mean")
segment_max = _sorted_fn("max")
segment_min = _sorted_fn("min")
segment_prod = _sorted_fn("prod")
unsorted_segment_max = _unsorted_fn("max")
unsorted_segment_min = _unsorted_fn("min")
unsorted_segment_prod = _unsorted_fn("prod")


def _segment_counts(data: Output, segment_ids: Output, num_segments: Any) -> Output:
    # TensorFlow's _unsorted_segment_N: rows per segment, at least 1, broadcastable to data.
    num_segments = as_operand(num_segments)
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = build_output("UnsortedSegmentSum", [ones, segment_ids, num_segments])
    extra = build_output("Sub", [array_ops.rank(data), array_ops.rank(segment_ids)])
    shape = array_ops.concat([array_ops.reshape(num_segments, [1]),
                              array_ops.ones(array_ops.reshape(extra, [1]),
                                             dtype=num_segments.dtype)], 0)
    return build_output("Maximum", [array_ops.reshape(n, shape),
                                    as_operand(1, data.dtype)])


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: str | None = None) -> Output:
    """The mean of the rows of each segment id (``tf.math.unsorted_segment_mean``); empty
    segments are 0."""
    with name_scope(name, "UnsortedSegmentMean"):
        data, segment_ids = as_operand(data), as_operand(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = build_output("UnsortedSegmentSum", [data, segment_ids, num_segments])
        return build_output("RealDiv", [summed, n])


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: str | None = None) -> Output:
    """The sum of each segment's rows over sqrt(its row count)
    (``tf.math.unsorted_segment_sqrt_n``)."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data, segment_ids = as_operand(data), as_operand(segment_ids)
        n = _segment_counts(data, segment_ids, num_segments)
        summed = build_output("UnsortedSegmentSum", [data, segment_ids, num_segments])
        return build_output("RealDiv", [summed, build_output("Sqrt", [n])])


__all__ = ["segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum",
           "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
           "unsorted_segment_prod", "unsorted_segment_sqrt_n"]
