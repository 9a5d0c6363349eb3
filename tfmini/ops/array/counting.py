"""Counting and set ops: UniqueWithCounts, ListDiff (``setdiff1d``), Bincount, DenseBincount
(``bincount``), HistogramFixedWidth; and EnsureShape, ``meshgrid`` and
``broadcast_static_shape``.

Kernels follow ``tensorflow/core/kernels/unique_op.cc``, ``listdiff_op.cc``,
``bincount_op.cc``, ``histogram_op.cc`` and ``shape_ops.cc`` (EnsureShape).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.array.concat_split import stack
from tfmini.ops.array.filling import ones
from tfmini.ops.array.shape_ops import reshape, size
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_autopacked, build_output
from tfmini.ops.common.kernel_util import invalid_argument

# ----------------------------------------------------------------------------------------
# UniqueWithCounts


def _unique_with_counts_shape(ic) -> list[TensorShape]:
    x = shape_fns.with_rank(ic.input_shape(0), 1)
    return [TensorShape([None]), x, TensorShape([None])]


@register_op(
    "UniqueWithCounts",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx", "count: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape_fn=_unique_with_counts_shape,
)
def unique_with_counts_kernel(x, *, out_idx):
    """Distinct values in order of first appearance, each element's position among them, and
    how often each occurs."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("unique expects a 1D vector.")
    it = out_idx.np_dtype
    if x.size == 0:
        return x.copy(), np.zeros(0, it), np.zeros(0, it)
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")  # np.unique sorts; TF keeps first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return x[first[order]], rank[inverse.ravel()].astype(it), counts[order].astype(it)


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: str | None = None):
    """``(y, idx, count)`` of a 1-D tensor (``tf.unique_with_counts``)."""
    op = build_autopacked("UniqueWithCounts", [x], {"out_idx": as_dtype(out_idx)}, name=name)
    return tuple(op.outputs)


# ----------------------------------------------------------------------------------------
# UniqueV2 (unique slices along an axis)


def _unique_v2_shape(ic) -> list[TensorShape]:
    x = as_shape(ic.input_shape(0))
    axis = ic.input_value(1)
    if axis is not None and np.size(axis) == 0:
        if x.rank not in (None, 1):
            raise ValueError("x expects a 1D vector.")
        return [TensorShape([None]), TensorShape([None]) if x.dims is None else x]
    if x.dims is None or axis is None:
        return [unknown_shape(x.rank), TensorShape([None])]
    a = int(np.asarray(axis).reshape(-1)[0])
    if not -x.rank <= a < x.rank:
        raise ValueError(f"axis {a} is out of range for rank {x.rank}")
    return [unknown_shape(x.rank), TensorShape([x.dims[a % x.rank]])]


@register_op(
    "UniqueV2",
    inputs=["x: T", "axis: Taxis"],
    outputs=["y: T", "idx: out_idx"],
    attrs=["T: type", "Taxis: {int32, int64} = DT_INT64", "out_idx: {int32, int64} = DT_INT32"],
    shape_fn=_unique_v2_shape,
)
def unique_v2_kernel(x, axis, *, out_idx):
    """The distinct slices of ``x`` along ``axis`` in order of first appearance, and for each
    slice its position among them (an empty ``axis`` means a 1-D ``x``)."""
    x, a = np.asarray(x), np.asarray(axis).reshape(-1)
    it = out_idx.np_dtype
    if a.size == 0:
        if x.ndim != 1:
            raise invalid_argument("unique expects a 1D vector.")
        a = np.array([0])
    if a.size != 1:
        raise invalid_argument(f"axis expects a 1D vector with 1 element: {dims_str(a.shape)}")
    ax = int(a[0])
    if not -x.ndim <= ax < x.ndim:
        raise invalid_argument(f"axis has to be between [{-x.ndim}, {x.ndim})")
    ax %= x.ndim
    moved = np.moveaxis(x, ax, 0)
    n = moved.shape[0]
    if n == 0:
        return x.copy(), np.zeros(0, it)
    rows = moved.reshape(n, -1)
    keys = [r.tobytes() if rows.dtype != object else tuple(r.tolist()) for r in rows]
    first: dict = {}
    idx = np.empty(n, it)
    for i, k in enumerate(keys):
        idx[i] = first.setdefault(k, len(first))
    order = sorted(first.values())
    picks = [next(i for i, k in enumerate(keys) if first[k] == j) for j in order]
    return np.moveaxis(moved[picks], 0, ax), idx


def _unique_with_counts_v2_shape(ic) -> list[TensorShape]:
    y, idx = _unique_v2_shape(ic)
    return [y, idx, TensorShape([None])]


@register_op(
    "UniqueWithCountsV2",
    inputs=["x: T", "axis: Taxis"],
    outputs=["y: T", "idx: out_idx", "count: out_idx"],
    attrs=["T: type", "Taxis: {int32, int64} = DT_INT64", "out_idx: {int32, int64} = DT_INT32"],
    shape_fn=_unique_with_counts_v2_shape,
)
def unique_with_counts_v2_kernel(x, axis, *, out_idx):
    """UniqueV2 with how often each distinct slice occurs."""
    y, idx = unique_v2_kernel(x, axis, out_idx=out_idx)
    count = np.bincount(idx.astype(np.int64), minlength=np.shape(y)[0] if idx.size else 0)
    return y, idx, count.astype(out_idx.np_dtype)


# ----------------------------------------------------------------------------------------
# ListDiff


def _list_diff_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(0), 1)
    shape_fns.with_rank(ic.input_shape(1), 1)
    return [TensorShape([None]), TensorShape([None])]


@register_op(
    "ListDiff",
    inputs=["x: T", "y: T"],
    outputs=["out: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape_fn=_list_diff_shape,
)
def list_diff_kernel(x, y, *, out_idx):
    """The elements of ``x`` not in ``y`` (in ``x``'s order) and their positions in ``x``."""
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim != 1:
        raise invalid_argument("x should be a 1D vector.")
    if y.ndim != 1:
        raise invalid_argument("y should be a 1D vector.")
    keep = ~np.isin(x, y)
    return x[keep], np.nonzero(keep)[0].astype(out_idx.np_dtype)


def setdiff1d(x: Any, y: Any, index_dtype: Any = dtypes.int32, name: str | None = None):
    """``(out, idx)``: the values of ``x`` not in ``y`` (``tf.compat.v1.setdiff1d``)."""
    xo = as_operand(x)
    op = build_autopacked("ListDiff", [xo, as_operand(y, xo.dtype)],
                          {"out_idx": as_dtype(index_dtype)}, name=name)
    return op.outputs[0], op.outputs[1]


# ----------------------------------------------------------------------------------------
# Bincount, DenseBincount


def _bincount_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 0)
    n = ic.input_value(1)
    return [TensorShape([None if n is None else int(n)])]


@register_op(
    "Bincount",
    inputs=["arr: int32", "size: int32", "weights: T"],
    outputs=["bins: T"],
    attrs=["T: {int32, int64, float, double}"],
    shape_fn=_bincount_shape,
)
def bincount_kernel(arr, size, weights):
    """Counts (or sums ``weights``) of each value in ``[0, size)``; larger values are
    ignored."""
    return _count(np.asarray(arr).reshape(-1), size, np.asarray(weights).reshape(-1),
                  np.asarray(weights).dtype, False)


def _count(arr, size, weights, dtype, binary):
    n = np.asarray(size)
    if n.ndim != 0:
        raise invalid_argument(f"Shape must be rank 0 but is rank {n.ndim}")
    n = int(n)
    if n < 0:
        raise invalid_argument(f"size ({n}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise invalid_argument("Input arr must be non-negative!")
    if weights.size and weights.shape != arr.shape:
        raise invalid_argument(
            f"Input arr and weights must have the same shape: {dims_str(arr.shape)} vs "
            f"{dims_str(weights.shape)}")
    keep = arr < n
    out = np.zeros(n, dtype)
    if binary:
        out[arr[keep]] = 1
    elif weights.size:
        np.add.at(out, arr[keep], weights[keep])
    else:
        np.add.at(out, arr[keep], 1)
    return out


def _dense_bincount_shape(ic) -> list[TensorShape]:
    inp = shape_fns.with_rank_at_most(ic.input_shape(0), 2)
    shape_fns.with_rank(ic.input_shape(1), 0)
    n = ic.input_value(1)
    n = None if n is None else int(n)
    if inp.rank is None:
        return [unknown_shape()]
    return [TensorShape([n] if inp.rank <= 1 else [inp.dims[0], n])]


@register_op(
    "DenseBincount",
    inputs=["input: Tidx", "size: Tidx", "weights: T"],
    outputs=["output: T"],
    attrs=["Tidx: {int32, int64}", "T: {int32, int64, float, double}",
           "binary_output: bool = false"],
    shape_fn=_dense_bincount_shape,
)
def dense_bincount_kernel(input, size, weights, *, binary_output):  # noqa: A002
    """Bincount of a 1-D input, or of each row of a 2-D input."""
    x, w = np.asarray(input), np.asarray(weights)
    if x.ndim > 2:
        raise invalid_argument(f"Shape must be at most rank 2 but is rank {x.ndim}")
    if x.ndim <= 1:
        return _count(x.reshape(-1), size, w.reshape(-1) if w.size else w, w.dtype,
                      binary_output)
    if w.size and w.shape != x.shape:
        raise invalid_argument(
            f"Input arr and weights must have the same shape: {dims_str(x.shape)} vs "
            f"{dims_str(w.shape)}")
    rows = [_count(x[r], size, w[r] if w.size else w, w.dtype, binary_output)
            for r in range(x.shape[0])]
    return np.stack(rows) if rows else np.zeros((0, int(size)), w.dtype)


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = dtypes.int32, name: str | None = None) -> Output:
    """Counts of each value in ``arr`` (``tf.compat.v1.bincount``), as TensorFlow builds it:
    the size is ``max(arr) + 1`` clipped to ``[minlength, maxlength]``, then DenseBincount.

    Args:
        arr: Non-negative int tensor.
        weights: Optional weights of ``arr``'s shape, summed instead of counting.
        minlength: Least output length.
        maxlength: Greatest output length (larger values are dropped).
        dtype: Output dtype when ``weights`` is None.
        name: Name scope (default ``bincount``).

    Returns:
        1-D counts.
    """
    with name_scope(name or "bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if not arr.dtype.is_integer:
            arr = build_output("Cast", [arr], {"DstT": dtypes.int32, "Truncate": False},
                               name="Cast")
        nonempty = build_output("Greater", [size(arr), 0])
        top = build_output("AddV2", [build_output(
            "Max", [arr, build_output("Range", [0, build_output("Rank", [arr]), 1])],
            {"keep_dims": False}), convert_to_tensor(1, arr.dtype)])
        out_size = build_output("Mul", [build_output(
            "Cast", [nonempty], {"DstT": arr.dtype, "Truncate": False}, name="Cast"), top])
        if minlength is not None:
            out_size = build_output("Maximum", [convert_to_tensor(minlength, arr.dtype,
                                                                  name="minlength"), out_size])
        if maxlength is not None:
            out_size = build_output("Minimum", [convert_to_tensor(maxlength, arr.dtype,
                                                                  name="maxlength"), out_size])
        if weights is not None:
            weights = reshape(weights, [-1])
        arr = reshape(arr, [-1])
        if weights is None:
            weights = convert_to_tensor(np.zeros(0, as_dtype(dtype).np_dtype))
        return build_output("DenseBincount", [arr, out_size, weights],
                            {"binary_output": False})


# ----------------------------------------------------------------------------------------
# HistogramFixedWidth


def _histogram_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 0)
    n = ic.input_value(2)
    return [TensorShape([None if n is None else int(n)])]


@register_op(
    "HistogramFixedWidth",
    inputs=["values: T", "value_range: T", "nbins: int32"],
    outputs=["out: dtype"],
    attrs=["T: {int32, int64, float, double}", "dtype: {int32, int64} = DT_INT32"],
    shape_fn=_histogram_shape,
)
def histogram_fixed_width_kernel(values, value_range, nbins, *, dtype):
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range``; values outside fall
    in the first or last bin."""
    v, r, n = np.asarray(values), np.asarray(value_range), np.asarray(nbins)
    if r.shape != (2,):
        raise invalid_argument(f"value_range should be a vector of 2 elements, but got "
                               f"{dims_str(r.shape)}")
    if n.ndim != 0:
        raise invalid_argument(f"nbins should be a scalar, but got {dims_str(n.shape)}")
    n = int(n)
    if n <= 0:
        raise invalid_argument(f"nbins should be a positive number, but got '{n}'")
    lo, hi = r.tolist()
    if not lo < hi:
        raise invalid_argument(
            f"value_range should satisfy value_range[0] < value_range[1], but got "
            f"[{lo}, {hi}]")
    step = (float(hi) - float(lo)) / n
    idx = np.minimum((np.maximum(v.astype(np.float64), lo) - float(lo)) / step, n - 1)
    counts = np.bincount(idx.astype(np.int32).reshape(-1), minlength=n)
    return counts.astype(dtype.np_dtype)


def histogram_fixed_width(values: Any, value_range: Any, nbins: Any = 100,
                          dtype: Any = dtypes.int32, name: str | None = None) -> Output:
    """Counts of ``values`` in ``nbins`` equal-width bins (``tf.histogram_fixed_width``)."""
    v = as_operand(values)
    return build_output("HistogramFixedWidth",
                        [v, as_operand(value_range, v.dtype), as_operand(nbins, dtypes.int32)],
                        {"dtype": as_dtype(dtype)}, name=name)


def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: Any = 100,
                               dtype: Any = dtypes.int32, name: str | None = None) -> Output:
    """The bin of each value among ``nbins`` equal bins over ``value_range``, values outside
    clipped to the first or last (``tf.histogram_fixed_width_bins``), built as TensorFlow
    builds it (scale, Floor, clip, Cast).

    Args:
        values: Numeric tensor.
        value_range: ``[low, high]`` of values' dtype.
        nbins: Scalar int number of bins.
        dtype: int32 (the only dtype TensorFlow produces here).
        name: Name scope (default ``histogram_fixed_width_bins``).

    Returns:
        int32 bin indices of ``values``' shape.
    """
    del dtype
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = build_output("Shape", [values])
        flat = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, values.dtype, name="value_range")
        nbins = convert_to_tensor(nbins, dtypes.int32, name="nbins")
        nbins_float = build_output("Cast", [nbins], {"DstT": values.dtype, "Truncate": False},
                                   name="Cast")
        low, high = value_range[0], value_range[1]
        scaled = build_output("RealDiv", [build_output("Sub", [flat, low]),
                                          build_output("Sub", [high, low])],
                              name="scaled_values")
        indices = build_output("Floor", [build_output("Mul", [nbins_float, scaled])],
                               name="indices")
        top = build_output("Sub", [nbins_float, convert_to_tensor(1, values.dtype)])
        clipped = build_output("Maximum", [build_output("Minimum", [indices, top]),
                                           convert_to_tensor(0, values.dtype)])
        as_int = build_output("Cast", [clipped], {"DstT": dtypes.int32, "Truncate": False},
                              name="Cast")
        return reshape(as_int, shape)


# ----------------------------------------------------------------------------------------
# EnsureShape


def _ensure_shape_shape(ic) -> list[TensorShape]:
    return [shape_fns.merge_shapes(ic.input_shape(0), ic.attrs["shape"])]


@register_op(
    "EnsureShape",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["shape: shape", "T: type"],
    shape_fn=_ensure_shape_shape,
)
def ensure_shape_kernel(input, *, shape):  # noqa: A002
    """``input``, after checking its shape is compatible with ``shape``."""
    x = np.asarray(input)
    if not shape.is_compatible_with(x.shape):
        raise invalid_argument(
            f"Shape of tensor input {dims_str(x.shape)} is not compatible with expected shape "
            f"{shape.tf_str()}.")
    return input


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Output:
    """``x`` with its shape checked (at build and run time) against ``shape``
    (``tf.ensure_shape``)."""
    return build_output("EnsureShape", [x], {"shape": as_shape(shape)}, name=name)


# ----------------------------------------------------------------------------------------
# meshgrid, broadcast_static_shape


def meshgrid(*args: Any, **kwargs: Any) -> list[Output]:
    """Coordinate grids from 1-D tensors (``tf.meshgrid``), built as TensorFlow builds them
    (Pack, Reshape, Size, Fill, Mul).

    Args:
        *args: 1-D tensors.
        **kwargs: ``indexing`` (``"xy"`` Cartesian, default, or ``"ij"`` matrix) and ``name``.

    Returns:
        One N-D tensor per input.

    Raises:
        TypeError: an unknown keyword argument.
        ValueError: ``indexing`` is neither.
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = list(kwargs)[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    with name_scope(name, "meshgrid", args):
        ndim = len(args)
        s0 = (1,) * ndim
        if not ndim:
            return []
        output = [reshape(stack(x), s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        dtype = convert_to_tensor(args[0]).dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult = ones(shapes, dtype)
        return [build_output("Mul", [x, mult]) for x in output]


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The broadcast of two static shapes (``tf.broadcast_static_shape``).

    Raises:
        ValueError: the shapes do not broadcast.
    """
    try:
        return shape_fns.broadcast_shapes(as_shape(shape_x), as_shape(shape_y))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {as_shape(shape_x)} and {as_shape(shape_y)}.") from None


__all__ = ["bincount", "broadcast_static_shape", "ensure_shape", "histogram_fixed_width",
           "histogram_fixed_width_bins",
           "meshgrid", "setdiff1d", "unique_with_counts"]
