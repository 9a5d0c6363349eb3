"""Array ops that take a block of a tensor: Slice, StridedSlice, and ``x[...]`` on tensors
(TensorFlow's ``_slice_helper``), which builds one StridedSlice; and the ops that put one
back: StridedSliceGrad (StridedSlice's gradient op) and Pad (Slice's counterpart).

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.array.basic``, the family's front module.
"""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.graph import Output, register_operator_override
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.array.basic import constant
from tfmini.ops.array.concat_split import stack
from tfmini.ops.array.filling import ones_like
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, build_autopacked, op_scope
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import as_int_list, invalid_argument

# ----------------------------------------------------------------------------------------
# Slice


def _slice_shape(ic):
    inp = ic.input_shape("input")
    begin_shape = shape_fns.with_rank(ic.input_shape("begin"), 1)
    size_shape = shape_fns.with_rank(ic.input_shape("size"), 1)
    begin_shape = shape_fns.merge_shapes(begin_shape, size_shape)
    ndims = begin_shape.dims[0]
    if ndims is not None:
        inp = shape_fns.with_rank(inp, ndims)
    # Sizes read as a shape: -1 ("to the end") becomes an unknown dimension.
    sizes = shape_fns.shape_from_shape_tensor(ic, "size")
    if sizes.dims is None:
        return [unknown_shape(ndims)]
    begin = ic.input_value("begin")
    dims: list[int | None] = []
    for i, d in enumerate(sizes.dims):
        if d is not None or begin is None or inp.dims is None or inp.dims[i] is None:
            dims.append(d)
            continue
        b = as_int_list(begin)[i]
        if inp.dims[i] - b < 0:
            raise ValueError(
                f"Negative dimension size caused by subtracting {b} from {inp.dims[i]}"
            )
        dims.append(inp.dims[i] - b)
    return [TensorShape(dims)]


@register_op(
    "Slice",
    inputs=["input: T", "begin: Index", "size: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"],
    shape_fn=_slice_shape,
    value_fn=fold_constant,
)
def slice_kernel(input, begin, size):
    """The block of ``input`` starting at ``begin`` with ``size`` (-1: to the end)."""
    input, begin, size = np.asarray(input), np.asarray(begin), np.asarray(size)
    rank = input.ndim
    if begin.ndim != 1 or size.ndim != 1 or begin.size != rank or size.size != rank:
        raise invalid_argument(
            f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got "
            f"shapes {dims_str(begin.shape)} and {dims_str(size.shape)} instead."
        )
    index = []
    for i, (b, s) in enumerate(zip(as_int_list(begin), as_int_list(size))):
        dim = input.shape[i]
        if s == -1:
            s = dim - b
        if dim == 0:
            if b != 0 or s != 0:
                raise invalid_argument(
                    f"Expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {s}) when "
                    f"input.dim_size({i}) == 0"
                )
        else:
            if not 0 <= b <= dim:
                raise invalid_argument(f"Expected begin[{i}] in [0, {dim}], but got {b}")
            if not (0 <= s and b + s <= dim):
                raise invalid_argument(f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        index.append(builtins.slice(b, b + s))
    return input[tuple(index)]


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Output:  # noqa: A001
    """Extracts a block (``tf.slice``).

    Args:
        input_: A tensor.
        begin: The start of the block in every dimension.
        size: The block's size in every dimension; -1 takes the rest of the dimension.
        name: Op name (default ``"Slice"``).
    """
    return build_autopacked("Slice", [input_, begin, size], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# StridedSlice

_NEW_AXIS = -1
_SHRINK_AXIS = -2


def _strided_slice_plan(dims, begin, end, strides, masks, fail: Callable[[str], Exception]):
    """TensorFlow's ``ValidateStridedSliceOp``, shared by the shape function and the kernel.

    Args:
        dims: The input's dimensions (None where unknown).
        begin, end: Lists of ints, or None when not known at build time.
        strides: A list of ints.
        masks: ``(begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)``.
        fail: Makes the exception to raise from a message.

    Returns:
        ``(slices, processing, final, is_identity)``: one ``(begin, end, stride)`` per input
        dimension (canonical: in range, end exclusive), the shape of the strided block, the
        shape after new axes are added and shrunk ones removed, and whether the op returns
        its input unchanged.
    """
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = masks
    if ellipsis_mask & (ellipsis_mask - 1):
        raise fail("Multiple ellipses in slice spec not allowed")
    n = len(strides)
    # Step 1: count new axes after the ellipsis; add an implicit ellipsis at the end.
    after_ellipsis, seen = 0, False
    for i in builtins.range(n):
        if seen and (1 << i) & new_axis_mask:
            after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            seen = True
    sparse_ellipsis, sparse_dims = ellipsis_mask, n
    if not seen:
        sparse_ellipsis |= 1 << n
        sparse_dims += 1
    # Step 2: the sparse spec (one entry per index item) into a dense one (one per dimension).
    rank = len(dims)
    d_begin, d_end, d_strides = [0] * rank, [0] * rank, [1] * rank
    d_begin_mask = d_end_mask = d_shrink = 0
    gather: list[int] = []  # per final dimension: a dense dimension, _NEW_AXIS or _SHRINK_AXIS
    full = 0
    for i in builtins.range(sparse_dims):
        bit = 1 << i
        if bit & sparse_ellipsis:
            stop = min(rank - (sparse_dims - i) + 1 + after_ellipsis, rank)
            while full < stop:
                d_begin_mask |= 1 << full
                d_end_mask |= 1 << full
                gather.append(full)
                full += 1
        elif bit & new_axis_mask:
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise fail(f"Index out of range using input dim {full}; input has only {rank} dims")
            if begin is not None:
                d_begin[full] = begin[i]
            if end is not None:
                d_end[full] = end[i]
            d_strides[full] = strides[i]
            if begin_mask & bit:
                d_begin_mask |= 1 << full
            if end_mask & bit:
                d_end_mask |= 1 << full
            if shrink_axis_mask & bit:
                gather.append(_SHRINK_AXIS)
                d_shrink |= 1 << full
            else:
                gather.append(full)
            full += 1
    # Step 3: make masked and negative bounds explicit, check them, size each dimension.
    known = begin is not None and end is not None
    is_identity = True
    slices, processing = [], []
    for i in builtins.range(rank):
        b, e, s, dim = d_begin[i], d_end[i], d_strides[i], dims[i]
        if s == 0:
            raise fail(f"strides[{i}] must be non-zero")
        shrink = bool(d_shrink & (1 << i))
        if dim is None:
            processing.append(1 if shrink else None)
            slices.append(None)
            is_identity = False
            continue
        bm, em = bool(d_begin_mask & (1 << i)), bool(d_end_mask & (1 << i))
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

        def canonical(x, masked, is_end, s=s, dim=dim, lo=lo, hi=hi):
            if masked:
                return (hi if is_end else lo) if s > 0 else (lo if is_end else hi)
            x = x + dim if x < 0 else x
            return lo if x < lo else hi if x > hi else x

        if shrink and s <= 0:
            raise fail("only stride 1 allowed on non-range indexing.")
        if known:
            if shrink:
                b = b + dim if b < 0 else b
                e = b + 1
                if b < 0 or b >= dim:
                    raise fail(f"slice index {b} of dimension {i} out of bounds.")
            else:
                b, e = canonical(b, bm, False), canonical(e, em, True)
            is_identity = is_identity and s == 1 and b == 0 and e == dim
            interval = e - b
        else:
            is_identity = is_identity and s == 1 and bm and em
            interval = 1 if shrink else (-dim if s < 0 else dim) if bm and em else None
        if interval is None:
            processing.append(None)
        elif interval == 0 or (interval < 0) != (s < 0):
            processing.append(0)
        else:
            processing.append(-(-abs(interval) // abs(s)))
        slices.append((b, e, s))
    # Step 4: the final shape: new axes are 1, shrunk dimensions disappear.
    final = [processing[g] if g >= 0 else 1 for g in gather if g != _SHRINK_AXIS]
    return slices, processing, final, is_identity


def _strided_slice_masks(attrs) -> tuple[int, int, int, int, int]:
    return (attrs["begin_mask"], attrs["end_mask"], attrs["ellipsis_mask"],
            attrs["new_axis_mask"], attrs["shrink_axis_mask"])


def _strided_slice_shape(ic):
    begin_shape = shape_fns.with_rank(ic.input_shape("begin"), 1)
    end_shape = shape_fns.with_rank(ic.input_shape("end"), 1)
    strides_shape = shape_fns.with_rank(ic.input_shape("strides"), 1)
    begin_shape = shape_fns.merge_shapes(begin_shape, end_shape)
    begin_shape = shape_fns.merge_shapes(begin_shape, strides_shape)
    inp = ic.input_shape("input")
    strides = ic.input_value("strides")
    if inp.dims is None or begin_shape.dims[0] is None or strides is None:
        return [unknown_shape()]
    begin, end = ic.input_value("begin"), ic.input_value("end")
    _, _, final, _ = _strided_slice_plan(
        list(inp.dims),
        None if begin is None else as_int_list(begin),
        None if end is None else as_int_list(end),
        as_int_list(strides),
        _strided_slice_masks(ic.attrs),
        ValueError,
    )
    return [TensorShape(final)]


@register_op(
    "StridedSlice",
    inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
    outputs=["output: T"],
    attrs=[
        "T: type",
        "Index: {int16, int32, int64}",
        "begin_mask: int = 0",
        "end_mask: int = 0",
        "ellipsis_mask: int = 0",
        "new_axis_mask: int = 0",
        "shrink_axis_mask: int = 0",
    ],
    shape_fn=_strided_slice_shape,
    value_fn=fold_constant,
)
def strided_slice_kernel(input, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask):
    """Python-style ``input[begin:end:strides]`` per dimension, steered by the masks."""
    input = np.asarray(input)
    begin, end, strides = np.asarray(begin), np.asarray(end), np.asarray(strides)
    if (begin.ndim != 1 or end.ndim != 1 or strides.ndim != 1
            or not begin.size == end.size == strides.size):
        raise invalid_argument(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{dims_str(begin.shape)}, {dims_str(end.shape)}, and {dims_str(strides.shape)} "
            "instead."
        )
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    slices, processing, final, is_identity = _strided_slice_plan(
        list(input.shape), as_int_list(begin), as_int_list(end), as_int_list(strides),
        masks, invalid_argument,
    )
    if is_identity:
        return input.reshape(final)
    index = []
    for (b, e, s), size_ in zip(slices, processing):
        # Canonical bounds: with a negative stride, end == -1 means "past index 0".
        stop = e if e >= 0 else None
        index.append(builtins.slice(0, 0) if size_ == 0 else builtins.slice(b, stop, s))
    return input[tuple(index)].reshape(final)


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> Output:
    """Strided slice (``tf.strided_slice``); ``x[...]`` on a tensor builds one.

    Args:
        input_: A tensor.
        begin, end: 1-D int tensors or lists, one entry per index item.
        strides: Per-item steps; default all 1.
        begin_mask, end_mask: Bit i set: ignore ``begin[i]`` / ``end[i]`` (slice from the start
            / to the end).
        ellipsis_mask: Bit i set: item i is ``...``.
        new_axis_mask: Bit i set: item i is ``tf.newaxis``.
        shrink_axis_mask: Bit i set: item i is an index, its dimension removed.
        var: Unused (TensorFlow's sliced-variable assignment hook).
        name: Op name (default ``"StridedSlice"``).

    Raises:
        ValueError: the static shapes show an index out of range or a bad spec.
    """
    del var
    begin, end = autopack(begin), autopack(end)
    if strides is None:
        strides = ones_like(begin)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    op = build_autopacked("StridedSlice", [input_, begin, end, strides], attrs, name=name)
    return op.outputs[0]


# -- x[...] on tensors: TensorFlow's _slice_helper ------------------------------------------

_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)
_SLICE_DTYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _check_index(idx: Any) -> None:
    if isinstance(idx, numbers.Integral):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and as_dtype(dtype) in _SLICE_DTYPES
    except TypeError:
        ok = False
    shape = getattr(idx, "shape", None)
    if isinstance(shape, tuple):
        shape = TensorShape(shape)
    if not ok or (shape and len(shape) == 1):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _index_dtype(x: Any) -> DType | None:
    return x.dtype if isinstance(x, Output) else None


def slice_helper(tensor: Any, slice_spec: Any, var: Any = None) -> Output:
    """``tensor[slice_spec]``: ints, slices (any step), ``...``, ``None`` (new axis) and
    scalar int tensors, translated into one ``StridedSlice`` exactly as TensorFlow does.

    Args:
        tensor: The tensor (or anything convertible) being indexed.
        slice_spec: What is inside the brackets.
        var: Unused (TensorFlow's hook for sliced variable assignment).

    Raises:
        TypeError: an index of another kind (floats, lists, rank-1 tensors, booleans).
        ValueError: the static shape shows an index out of range.
    """
    del var
    tensor = convert_to_tensor(tensor)
    if isinstance(slice_spec, (bool, np.bool_)) or (
        isinstance(slice_spec, (Output, np.ndarray)) and as_dtype(slice_spec.dtype).is_bool
    ):
        raise TypeError("Boolean-mask indexing (tf.boolean_mask) is not supported by tfmini")
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin: list = []
    end: list = []
    strides: list = []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
            # The best dtype for the packed begin/end/strides among tensors in the slice.
            dtype = None
            for t in (s.start, s.stop, s.step):
                t_dtype = _index_dtype(t)
                if t_dtype == dtypes.int64:
                    dtype = dtypes.int64
                elif t_dtype == dtypes.int32 and dtype != dtypes.int64:
                    dtype = dtypes.int32
                elif t_dtype == dtypes.int16 and dtype is None:
                    dtype = dtypes.int16
            if s.start is not None:
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0 if dtype is None else constant(0, dtype=dtype))
                begin_mask |= 1 << index
            if s.stop is not None:
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0 if dtype is None else constant(0, dtype=dtype))
                end_mask |= 1 << index
            if s.step is not None:
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1 if dtype is None else constant(1, dtype=dtype))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            if isinstance(s, Output) and s.dtype in (dtypes.int16, dtypes.int64):
                strides.append(constant(1, dtype=s.dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= 1 << index
    with op_scope(None, "strided_slice") as (outer, base):
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(p.dtype == dtypes.int64 for p in packed):
                packed = [
                    p if p.dtype == dtypes.int64
                    else build_op(current_scope(), "Cast", [p], {"DstT": dtypes.int64}).outputs[0]
                    for p in packed
                ]
        else:
            empty = constant([], dtype=dtypes.int32)
            packed = [empty, empty, empty]
        attrs = {"begin_mask": begin_mask, "end_mask": end_mask,
                 "ellipsis_mask": ellipsis_mask, "new_axis_mask": new_axis_mask,
                 "shrink_axis_mask": shrink_axis_mask}
        return build_op(outer, "StridedSlice", [tensor] + packed, attrs, name=base).outputs[0]


register_operator_override("__getitem__", slice_helper)

newaxis = None  # ``x[:, tm.newaxis]``, as ``tf.newaxis``


# ----------------------------------------------------------------------------------------
# Pad


def pad_shape(ic) -> list[TensorShape]:
    paddings = shape_fns.with_rank(ic.input_shape(1), 2)
    if paddings.dims[1] is not None and paddings.dims[1] != 2:
        raise ValueError(f"Dimension must be 2 but is {paddings.dims[1]}")
    n = paddings.dims[0]
    inp = ic.input_shape(0)
    if n is not None:
        inp = shape_fns.with_rank(inp, n)
    elif inp.dims is None:
        return [unknown_shape()]
    else:
        n = len(inp.dims)
    value = ic.input_value(1)
    if value is None:
        return [unknown_shape(n)]
    value = np.asarray(value).reshape(n, 2)
    if (value < 0).any():
        raise ValueError("Paddings must be non-negative")
    return [TensorShape([None if d is None else d + int(b) + int(a)
                         for d, (b, a) in zip(inp.dims, value)])]


@register_op(
    "Pad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"],
    shape_fn=pad_shape,
)
def pad_kernel(input, paddings):
    """``input`` with zeros before and after each dimension (``paddings[d] = [before, after]``)."""
    x = np.asarray(input)
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2:
        raise invalid_argument(f"paddings must be a matrix with 2 columns: {dims_str(p.shape)}")
    if p.shape[0] != x.ndim:
        raise invalid_argument(
            "The first dimension of paddings must be the rank of inputs"
            f"{dims_str(p.shape)} {dims_str(x.shape)}"
        )
    for before, after in p.tolist():
        if before < 0 or after < 0:
            raise invalid_argument(f"Paddings must be non-negative: {before} {after}")
    fill = b"" if x.dtype == object else 0  # TensorFlow pads strings with empty strings
    return np.pad(x, p.astype(np.int64), mode="constant", constant_values=fill)


# ----------------------------------------------------------------------------------------
# StridedSliceGrad (StridedSlice's gradient op)


STRIDED_SLICE_MASKS = (
    "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask",
)


def _strided_slice_grad_shape(ic) -> list[TensorShape]:
    # A partially known Shape of the sliced input still gives its known dimensions.
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


@register_op(
    "StridedSliceGrad",
    inputs=["shape: Index", "begin: Index", "end: Index", "strides: Index", "dy: T"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}", *(f"{m}: int = 0" for m in STRIDED_SLICE_MASKS)],
    shape_fn=_strided_slice_grad_shape,
)
def strided_slice_grad_kernel(shape, begin, end, strides, dy, **attrs):
    """Zeros of ``shape`` with ``dy`` placed where ``StridedSlice`` took its elements."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise invalid_argument(f"shape must be 1-D, got shape.shape = {dims_str(shape.shape)}")
    dims = tuple(as_int_list(shape))
    # StridedSlice of the element positions tells where each element of dy came from; the
    # forward kernel does all the mask handling and validation.
    positions = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
    taken = np.asarray(strided_slice_kernel(positions, begin, end, strides,
                                            **{m: attrs[m] for m in STRIDED_SLICE_MASKS}))
    dy = np.asarray(dy)
    if taken.shape != dy.shape:
        raise invalid_argument(
            f"shape of dy was {dims_str(dy.shape)} instead of {dims_str(taken.shape)}")
    out = np.zeros(positions.size, dtype=dy.dtype)
    out[taken.reshape(-1)] = dy.reshape(-1)  # a strided slice never takes an element twice
    return out.reshape(dims)


__all__ = [
    "newaxis",
    "slice",
    "strided_slice",
]
