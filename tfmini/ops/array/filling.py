"""Array ops that make a tensor from a shape or a range: Fill (with ``zeros`` and ``ones``),
ZerosLike, OnesLike and Range.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.array.basic``, the family's front module.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, scope_context
from tfmini.core.shapes import TensorShape, as_shape, dims_str
from tfmini.ops.array.basic import constant, literal_to_array
from tfmini.ops.array.shape_ops import reshape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, build_autopacked, has_symbolic, op_scope
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import (
    as_int_list,
    check_non_negative_dims,
    invalid_argument,
    scalar_value,
)
from tfmini.ops.common.memory import check_allocation

# ----------------------------------------------------------------------------------------
# Fill


def _fill_shape(ic):
    shape_fns.with_rank(ic.input_shape("dims"), 1)
    shape_fns.with_rank(ic.input_shape("value"), 0)
    dims = ic.input_value("dims")
    if dims is not None and any(d < 0 for d in as_int_list(dims)):
        raise ValueError("Fill dimensions must be >= 0")
    return [shape_fns.shape_from_shape_tensor(ic, "dims")]


@register_op(
    "Fill",
    inputs=["dims: index_type", "value: T"],
    outputs=["output: T"],
    attrs=["T: type", "index_type: {int32, int64} = DT_INT32"],
    shape_fn=_fill_shape,
    value_fn=fold_constant,
)
def fill_kernel(dims, value):
    """A tensor of shape ``dims`` with every element ``value``."""
    dims, value = np.asarray(dims), np.asarray(value)
    if dims.ndim != 1:
        raise invalid_argument(f"dims must represent a vector, got shape {dims_str(dims.shape)}")
    value = scalar_value(value, "value must represent a scalar, got shape")
    shape_ = as_int_list(dims)
    check_non_negative_dims(shape_)
    check_allocation(shape_, as_dtype(value.dtype))
    return np.full(shape_, value, dtype=value.dtype)


def fill(dims: Any, value: Any, name: str | None = None) -> Output:
    """A tensor filled with a scalar (``tf.fill``).

    Args:
        dims: The output shape (1-D int tensor or list).
        value: The scalar to fill with; its dtype is the output's.
        name: Op name (default ``"Fill"``).
    """
    return build_autopacked("Fill", [dims, value], name=name).outputs[0]


def _filled(shape_: Any, value: Any, dtype: DType, outer, base: str) -> Output:
    """``zeros``/``ones``: a ``Const`` when the shape is static and small (under 1000
    elements, as TensorFlow decides), else ``Fill``; built as ``base`` in ``outer``."""
    if not is_symbolic(shape_) and not has_symbolic(shape_):
        try:
            static = as_shape(shape_)
        except (TypeError, ValueError):
            static = None
        if static is not None and static.is_fully_defined():
            dims = list(static.dims)
            if math.prod(dims) < 1000:  # exact: np.prod in int64 wraps for huge dims
                with scope_context(outer):
                    return constant(value, dtype=dtype, shape=dims, name=base)
            big = any(d > np.iinfo(np.int32).max for d in dims)
            shape_ = constant(dims, dtype=dtypes.int64 if big else dtypes.int32)
    shape_t = convert_to_tensor(autopack(shape_), dtype_hint=dtypes.int32)
    if shape_t.shape.rank == 0:
        shape_t = reshape(shape_t, [-1])
    fill_value = constant(value, dtype=dtype)
    return build_op(outer, "Fill", [shape_t, fill_value], name=base).outputs[0]


def _zero_of(dtype: DType) -> Any:
    return False if dtype.is_bool else b"" if dtype == dtypes.string else 0


def _one_of(dtype: DType) -> Any:
    return True if dtype.is_bool else 1


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Output:
    """A tensor of zeros (``tf.zeros``); a ``Const`` when small, else ``Fill``.

    Args:
        shape: A list, TensorShape or 1-D int tensor.
        dtype: The element type (default float32).
        name: Op name (default ``"zeros"``).
    """
    dtype = as_dtype(dtype)
    with op_scope(name, "zeros") as (outer, base):
        return _filled(shape, _zero_of(dtype), dtype, outer, base)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Output:
    """A tensor of ones (``tf.ones``); a ``Const`` when small, else ``Fill``.

    Args:
        shape: A list, TensorShape or 1-D int tensor.
        dtype: The element type (default float32).
        name: Op name (default ``"ones"``).
    """
    dtype = as_dtype(dtype)
    with op_scope(name, "ones") as (outer, base):
        return _filled(shape, _one_of(dtype), dtype, outer, base)


# ----------------------------------------------------------------------------------------
# ZerosLike, OnesLike


@register_op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged, value_fn=fold_constant)
def zeros_like_kernel(x):
    """Zeros with the shape and dtype of ``x``."""
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


@register_op(
    "OnesLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: {half, float, double, int8, uint8, int16, int32, int64, bool}"],
    shape_fn=shape_fns.unchanged,
    value_fn=fold_constant,
)
def ones_like_kernel(x):
    """Ones with the shape and dtype of ``x``."""
    return np.ones_like(np.asarray(x))


def _shape_internal(x: Output) -> Output:
    # TF's shape_internal(optimize=True): a Const when the shape is static.
    if x.shape.is_fully_defined():
        return constant(list(x.shape.dims), dtypes.int32)
    return build_op(current_scope(), "Shape", [x]).outputs[0]


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None,
               optimize: bool = True) -> Output:
    """Zeros shaped like ``tensor`` (``tf.zeros_like``).

    As in TensorFlow, a fully defined static shape gives ``zeros(shape)`` (a
    ``Const`` when small) rather than a ``ZerosLike`` op.

    Args:
        tensor: A tensor.
        dtype: The result's dtype (default: ``tensor``'s).
        name: Op name (default ``"zeros_like"``).
        optimize: Use the static shape when it is fully defined.
    """
    with op_scope(name, "zeros_like") as (outer, base):
        x = convert_to_tensor(tensor)
        dt = as_dtype(dtype) if dtype is not None else x.dtype
        if optimize and x.shape.is_fully_defined() and x.dtype != dtypes.variant:
            return _filled(list(x.shape.dims), _zero_of(dt), dt, outer, base)
        if dt != x.dtype and dt != dtypes.variant:
            shape_t = _shape_internal(x) if optimize else build_op(
                current_scope(), "Shape", [x]).outputs[0]
            return _filled(shape_t, _zero_of(dt), dt, outer, base)
        return build_op(outer, "ZerosLike", [x], name=base).outputs[0]


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None,
              optimize: bool = True) -> Output:
    """Ones shaped like ``tensor`` (``tf.ones_like``): a ``Fill`` of its shape, as in TF.

    Args:
        tensor: A tensor.
        dtype: The result's dtype (default: ``tensor``'s).
        name: Op name (default ``"ones_like"``).
        optimize: Use the static shape when it is fully defined.
    """
    with op_scope(name, "ones_like") as (outer, base):
        x = convert_to_tensor(tensor)
        shape_t = _shape_internal(x) if optimize else build_op(
            current_scope(), "Shape", [x]).outputs[0]
        dt = as_dtype(dtype) if dtype is not None else x.dtype
        out = _filled(shape_t, _one_of(dt), dt, outer, base)
    out.set_shape(x.shape)
    return out


# ----------------------------------------------------------------------------------------
# Range


def _num_str(v: Any) -> str:
    """A number as TensorFlow's StrCat prints it (``5``, ``0.5``)."""
    v = np.asarray(v).item()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _range_size(start, limit, delta, fail: Callable[[str], Exception], shape_time: bool) -> int:
    """The length of ``range(start, limit, delta)``, in the op's own arithmetic."""
    if delta == 0:
        raise fail("Requires delta != 0" + ("" if shape_time else f": {_num_str(delta)}"))
    if delta > 0 and start > limit:
        raise fail(f"Requires start <= limit when delta > 0: {_num_str(start)}/{_num_str(limit)}")
    if delta < 0 and start < limit:
        raise fail(f"Requires start >= limit when delta < 0: {_num_str(start)}/{_num_str(limit)}")
    if np.issubdtype(np.asarray(start).dtype, np.integer):
        s, lim, d = int(start), int(limit), int(delta)
        return (abs(lim - s) + abs(d) - 1) // abs(d)
    # Floats: ceil(|(limit - start) / delta|) computed in the element type, as TensorFlow.
    return int(np.ceil(np.abs((limit - start) / delta)))


def _range_shape(ic):
    for key in ("start", "limit", "delta"):
        try:
            shape_fns.with_rank(ic.input_shape(key), 0)
        except ValueError as e:
            raise ValueError(f"{e} for '{key}'") from None
    values = [ic.input_value(k) for k in ("start", "limit", "delta")]
    if any(v is None for v in values):
        return [TensorShape([None])]
    dtype = ic.attrs["Tidx"]
    if dtype not in (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64):
        # TensorFlow's shape function sizes only these types (a known quirk, kept).
        raise ValueError(f"Unsupported dtype{dtype.enum}")
    start, limit, delta = (np.asarray(v).reshape(()) for v in values)
    return [TensorShape([_range_size(start, limit, delta, ValueError, shape_time=True)])]


@register_op(
    "Range",
    inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
    outputs=["output: Tidx"],
    attrs=["Tidx: {half, float, double, int8, int16, int32, int64} = DT_INT32"],
    shape_fn=_range_shape,
    value_fn=fold_constant,
)
def range_kernel(start, limit, delta, *, Tidx):  # noqa: N803  (TensorFlow's attr name)
    """``start, start + delta, ...`` up to but excluding ``limit``."""
    start = scalar_value(start, "start must be a scalar, not shape")
    limit = scalar_value(limit, "limit must be a scalar, not shape")
    delta = scalar_value(delta, "delta must be a scalar, not shape")
    n = _range_size(start[()], limit[()], delta[()], invalid_argument, shape_time=False)
    check_allocation([n], Tidx)
    t = Tidx.np_dtype
    # TensorFlow computes start + i * delta in the element type (no accumulated rounding).
    return (start.astype(t) + np.arange(n).astype(t) * delta.astype(t)).astype(t)


_RANGE_DTYPE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32,
                      dtypes.float64)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Output:
    """A sequence of numbers (``tf.range``); ``range(n)`` is ``0 .. n-1``.

    Without ``dtype`` the result takes the widest of the arguments' dtypes in
    TensorFlow's order int32 < int64 < float16 < float32 < float64 (Python ints
    are int32, floats float32); the others are cast to it.

    Args:
        start: First value (or the limit, when ``limit`` is None).
        limit: Exclusive upper (or, with negative ``delta``, lower) bound.
        delta: Step; not 0.
        dtype: The element type.
        name: Op name.

    Raises:
        TypeError: an argument's dtype is not a number type TensorFlow allows here.
        ValueError: the static arguments make an empty-by-contradiction range (delta 0,
            start > limit with delta > 0, ...).
    """
    if limit is None:
        start, limit = 0, start
    want = as_dtype(dtype) if dtype is not None else None
    with op_scope(name, "Range") as (outer, base):
        named = (("start", start), ("limit", limit), ("delta", delta))
        args = {k: convert_to_tensor(v) for k, v in named if is_symbolic(v)}
        if want is None:
            # A literal counts with the dtype it would convert to (int32, float32...).
            kinds = [args[k].dtype if k in args else as_dtype(literal_to_array(v).dtype)
                     for k, v in named]
            for dt in kinds:
                if dt not in _RANGE_DTYPE_ORDER:
                    raise TypeError(
                        f"tf.range arguments must be int32, int64, float16, float32 or float64, "
                        f"got {dt.name}"
                    )
            want = max(kinds, key=_RANGE_DTYPE_ORDER.index)
        inputs = []
        for k, v in named:
            if k not in args:
                # Converted straight to the result dtype (TensorFlow converts, then casts), so
                # the value stays known at build time and the static length with it.
                inputs.append(convert_to_tensor(v, dtype=want, name=k))
            elif args[k].dtype != want:
                inputs.append(build_op(current_scope(), "Cast", [args[k]], {"DstT": want},
                                       name="Cast").outputs[0])
            else:
                inputs.append(args[k])
        return build_op(outer, "Range", inputs, name=base).outputs[0]


__all__ = [
    "fill",
    "ones",
    "ones_like",
    "range",
    "zeros",
    "zeros_like",
]
