"""Array ops that join and split tensors: ConcatV2, Pack, Unpack, Split and SplitV.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.array.basic``, the family's front module.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.array.basic import constant
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, build_autopacked, has_symbolic
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import as_int_list, invalid_argument, scalar_value

# ----------------------------------------------------------------------------------------
# ConcatV2


def _concat_shape(ic):
    shapes = [as_shape(s) for s in ic.input_shape("values")]
    shape_fns.with_rank(ic.input_shape("axis"), 0)
    rank = next((s.rank for s in shapes if s.rank is not None), None)
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if rank is not None:
        # Inputs of unknown rank take the known rank (their dims unknown).
        shapes = [shape_fns.with_rank(s, rank) for s in shapes]
    axis = ic.input_value("axis")
    if axis is None:
        return [unknown_shape(rank)]
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    for s in shapes:
        shape_fns.with_rank_at_least(s, min_rank)
    if rank is None:
        return [unknown_shape()]
    axis = axis + rank if axis < 0 else axis
    # Merge everything but the axis; add up the axis (unknown if any piece is unknown).
    before = TensorShape(shapes[-1].dims[:axis])
    after = TensorShape(shapes[-1].dims[axis + 1 :])
    middle = shapes[-1].dims[axis]
    for s in reversed(shapes[:-1]):
        before = shape_fns.merge_shapes(TensorShape(s.dims[:axis]), before)
        d = s.dims[axis]
        middle = None if d is None or middle is None else d + middle
        after = shape_fns.merge_shapes(TensorShape(s.dims[axis + 1 :]), after)
    return [TensorShape(before.dims + (middle,) + after.dims)]


@register_op(
    "ConcatV2",
    inputs=["values: N * T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_concat_shape,
    value_fn=fold_constant,
)
def concat_v2_kernel(values, axis):
    """The ``values`` joined along ``axis``."""
    concat_dim = int(scalar_value(axis, "axis tensor should be a scalar integer, but got shape"))
    values = [np.asarray(v) for v in values]
    first = values[0].shape
    rank = len(first)
    ax = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= ax < rank and concat_dim != 0:
        raise invalid_argument(
            f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), "
            f"but got {concat_dim}"
        )
    for i, v in enumerate(values):
        if v.ndim != rank:
            raise invalid_argument(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                f"{dims_str(first)} vs. shape[{i}] = {dims_str(v.shape)}"
            )
        for j in builtins.range(rank):
            if j != ax and v.shape[j] != first[j]:
                raise invalid_argument(
                    f"ConcatOp : Dimension {j} in both shapes must be equal: shape[0] = "
                    f"{dims_str(first)} vs. shape[{i}] = {dims_str(v.shape)}"
                )
    if rank == 0:
        raise invalid_argument("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    return np.concatenate(values, axis=ax)


def concat(values: Any, axis: Any, name: str = "concat") -> Output:
    """Joins tensors along a dimension (``tf.concat``).

    Args:
        values: A list of tensors of equal rank (a single tensor is returned as an
            ``Identity``).
        axis: The dimension, in ``[-rank, rank)``.
        name: Op name.

    Returns:
        The concatenation.

    Raises:
        ValueError: ranks or non-axis dimensions differ statically.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        # As TensorFlow: check the axis, then an Identity named "<name>/<name>".
        with name_scope(name):
            axis_t = convert_to_tensor(axis, dtype=dtypes.int32, name="concat_dim")
            shape_fns.with_rank(axis_t.shape, 0)
            return build_op(current_scope(), "Identity", [values[0]], name=name).outputs[0]
    return build_autopacked("ConcatV2", [list(values), axis], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# Pack, Unpack


def _pack_axis(axis: int, rank: int) -> int:
    if axis < -rank or axis >= rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    return axis + rank if axis < 0 else axis


def _pack_shape(ic):
    shapes = ic.input_shape("values")
    cur = as_shape(shapes[-1])
    for i in builtins.range(len(shapes) - 2, -1, -1):
        try:
            cur = shape_fns.merge_shapes(shapes[i], cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if cur.dims is None:
        return [unknown_shape()]
    axis = _pack_axis(ic.attrs["axis"], cur.rank + 1)
    return [TensorShape(cur.dims[:axis] + (len(shapes),) + cur.dims[axis:])]


@register_op(
    "Pack",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "axis: int = 0"],
    shape_fn=_pack_shape,
    value_fn=fold_constant,
)
def pack_kernel(values, *, axis):
    """The ``N`` equally shaped ``values`` stacked into one tensor along a new ``axis``."""
    values = [np.asarray(v) for v in values]
    rank = values[0].ndim + 1
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    for i, v in enumerate(values[1:], 1):
        if v.shape != values[0].shape:
            raise invalid_argument(
                f"Shapes of all inputs must match: values[0].shape = {dims_str(values[0].shape)} "
                f"!= values[{i}].shape = {dims_str(v.shape)}"
            )
    return np.stack(values, axis=axis)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Output:
    """Stacks equally shaped tensors along a new dimension (``tf.stack``).

    With ``axis=0`` and no tensor among ``values`` the result is a ``Const``, as
    in TensorFlow.

    Args:
        values: A list of tensors (or literals) of one shape and dtype.
        axis: Where the new dimension goes, in ``[-(rank+1), rank+1)``.
        name: Op name.

    Raises:
        ValueError: ``axis`` is out of range or the shapes differ statically.
    """
    if axis == 0 and not has_symbolic(values):
        try:
            return constant(values, name=name)
        except (TypeError, ValueError):
            pass  # ragged literals: let Pack report the mismatch
    value_shape = convert_to_tensor(values[0]).shape if is_symbolic(values[0]) else (
        TensorShape(np.shape(values[0]))
    )
    if value_shape.rank is not None:
        n = value_shape.rank + 1
        if axis < -n or axis >= n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return build_autopacked("Pack", [list(values)], {"axis": axis}, name=name).outputs[0]


def _unpack_shape(ic):
    s = ic.input_shape(0)
    num = ic.attrs["num"]
    if s.dims is None:
        return [unknown_shape()] * num
    axis = _pack_axis(ic.attrs["axis"], s.rank)
    d = s.dims[axis]
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    return [TensorShape(s.dims[:axis] + s.dims[axis + 1 :])] * num


@register_op(
    "Unpack",
    inputs=["value: T"],
    outputs=["output: num * T"],
    attrs=["num: int >= 0", "T: type", "axis: int = 0"],
    shape_fn=_unpack_shape,
    value_fn=fold_constant,
)
def unpack_kernel(value, *, num, axis):
    """``value`` split into ``num`` tensors along ``axis``, which is removed."""
    value = np.asarray(value)
    rank = value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    ax = axis + rank if axis < 0 else axis
    if value.shape[ax] != num:
        raise invalid_argument(
            f"Input shape axis {ax} must equal {num}, got shape {dims_str(value.shape)}"
        )
    lead = (builtins.slice(None),) * ax
    return [value[lead + (i,)] for i in builtins.range(num)]


def unstack(value: Any, num: int | None = None, axis: int = 0,
            name: str = "unstack") -> list[Output]:
    """Splits a tensor into a list along a dimension, removing it (``tf.unstack``).

    Args:
        value: A tensor of rank >= 1.
        num: The length of ``axis``; inferred from the static shape if None.
        axis: The dimension to unstack along.
        name: Op name.

    Returns:
        A list of ``num`` tensors.

    Raises:
        ValueError: ``num`` is None and cannot be inferred, or ``axis`` is out of range.
    """
    if num is None:
        value = convert_to_tensor(value)
        s = value.shape
        if s.rank is not None:
            if axis < -s.rank or axis >= s.rank:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-s.rank}, {s.rank})")
            num = s.dims[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    op = build_autopacked("Unpack", [value], {"num": num, "axis": axis}, name=name)
    return list(op.outputs)


# ----------------------------------------------------------------------------------------
# Split, SplitV


def _split_shape(ic):
    inp = ic.input_shape("value")
    num = ic.attrs["num_split"]
    axis = shape_fns.axis_from_scalar_input(ic, "split_dim", inp.rank)
    if axis is None:
        return [unknown_shape(inp.rank)] * num
    inp = shape_fns.with_rank_at_least(inp, axis + 1)
    if inp.dims is None:
        return [unknown_shape()] * num
    d = inp.dims[axis]
    if d is not None and d % num:
        raise ValueError(
            f"Dimension size must be evenly divisible by {num} but is {d}\n\t"
            "Number of ways to split should evenly divide the split dimension"
        )
    dims = list(inp.dims)
    dims[axis] = None if d is None else d // num
    return [TensorShape(dims)] * num


def _split_axis(value: np.ndarray, split_dim: Any) -> int:
    d = int(np.asarray(split_dim).ravel()[0])
    rank = value.ndim
    ax = d + rank if d < 0 else d
    if not 0 <= ax < rank:
        raise invalid_argument(
            f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {d}"
        )
    return ax


@register_op(
    "Split",
    inputs=["split_dim: int32", "value: T"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type"],
    shape_fn=_split_shape,
    value_fn=fold_constant,
)
def split_kernel(split_dim, value, *, num_split):
    """``value`` split into ``num_split`` equal pieces along ``split_dim``."""
    value = np.asarray(value)
    ax = _split_axis(value, split_dim)
    if value.shape[ax] % num_split:
        raise invalid_argument(
            f"Number of ways to split should evenly divide the split dimension, but got "
            f"split_dim {ax} (size = {value.shape[ax]}) and num_split {num_split}"
        )
    return np.split(value, num_split, axis=ax)


def _split_v_shape(ic):
    inp = ic.input_shape("value")
    num = ic.attrs["num_split"]
    axis = shape_fns.axis_from_scalar_input(ic, "split_dim", inp.rank)
    sizes = ic.input_value("size_splits")
    if inp.dims is None:
        return [unknown_shape()] * num
    if inp.rank == 0:
        raise ValueError("Can't split scalars")
    if axis is None:
        return [unknown_shape(inp.rank)] * num
    if sizes is None:
        dims = list(inp.dims)
        dims[axis] = None
        return [TensorShape(dims)] * num
    sizes = as_int_list(sizes)
    if len(sizes) != num:
        raise ValueError(
            f"Length of size_splits should be equal to num_outputs: {num} vs. {len(sizes)}"
        )
    total, has_neg_one = 0, False
    for s in sizes:
        if s == -1:
            if has_neg_one:
                raise ValueError("size_splits can only have one -1")
            has_neg_one = True
        else:
            total += s
    dim = inp.dims[axis]
    shapes = []
    for i, s in enumerate(sizes):
        if s == -1 and dim is not None:
            s = dim - total
        if s < -1 or (s == -1 and dim is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {s}")
        dims = list(inp.dims)
        dims[axis] = None if s == -1 else s
        shapes.append(TensorShape(dims))
    if dim is not None and (total > dim if has_neg_one else total != dim):
        raise ValueError(
            f"can't split axis of size {dim} into pieces of size "
            f"[{','.join(str(s) for s in sizes)}]"
        )
    return shapes


@register_op(
    "SplitV",
    inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"],
    shape_fn=_split_v_shape,
    value_fn=fold_constant,
)
def split_v_kernel(value, size_splits, split_dim, *, num_split):
    """``value`` split along ``split_dim`` into pieces of ``size_splits`` (one may be -1)."""
    value, sizes_arr = np.asarray(value), np.asarray(size_splits)
    if sizes_arr.ndim != 1 or sizes_arr.size != num_split:
        raise invalid_argument(
            f"size of the split_tensor must be 1-D and have the same elements as outputs got "
            f"{sizes_arr.ndim} -D and {sizes_arr.size} elements"
        )
    ax = _split_axis(value, split_dim)
    n = value.shape[ax]
    sizes = as_int_list(sizes_arr)
    if num_split == 1:
        return [value]  # TensorFlow passes the input through without checking the size
    neg_one, determined = -1, 0
    for d, s in enumerate(sizes):
        if s == -1:
            if neg_one != -1:
                raise invalid_argument("There can only be one -1 in the input.")
            neg_one = d
        else:
            determined += s
    if not ((neg_one == -1 and determined == n) or (neg_one >= 0 and determined <= n)):
        raise invalid_argument(
            "Determined shape must either match input shape along split_dim exactly if fully "
            "specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {determined}"
        )
    if neg_one >= 0:
        sizes[neg_one] = n - determined
    for i, s in enumerate(sizes):
        if s < 0:
            raise invalid_argument(f"Split size at index {i} must be >= 0. Got: {s}")
    bounds = np.cumsum(sizes)[:-1]
    return np.split(value, bounds, axis=ax)


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list[Output]:
    """Splits a tensor into pieces (``tf.split``).

    Args:
        value: The tensor to split.
        num_or_size_splits: An int (``Split`` into that many equal pieces) or a 1-D list or
            tensor of sizes, one of which may be -1 (``SplitV``).
        axis: The dimension to split, in ``[-rank, rank)``.
        num: The number of pieces when it cannot be inferred from ``num_or_size_splits``.
        name: Op name.

    Returns:
        A list of tensors.

    Raises:
        ValueError: the sizes are a scalar tensor, ``num`` cannot be inferred, or the static
            shapes do not divide.
    """
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(
        num_or_size_splits, bool
    ):
        op = build_autopacked("Split", [axis, value], {"num_split": int(num_or_size_splits)},
                              name=name)
        return list(op.outputs)
    size_splits = convert_to_tensor(autopack(num_or_size_splits))
    if size_splits.shape.rank == 0:
        raise ValueError(
            "Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
            f"Argument provided: {num_or_size_splits}"
        )
    if num is None:
        if size_splits.shape.rank is not None:
            num = size_splits.shape.dims[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    op = build_autopacked("SplitV", [value, size_splits, axis], {"num_split": num}, name=name)
    return list(op.outputs)


# ----------------------------------------------------------------------------------------
# ConcatOffset (built by ConcatV2's gradient)


def _concat_offset_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(0), 0)
    return [shape_fns.with_rank(s, 1) for s in ic.input_shape(1)]


@register_op(
    "ConcatOffset",
    inputs=["concat_dim: int32", "shape: N * shape_type"],
    outputs=["offset: N * shape_type"],
    attrs=["N: int >= 2", "shape_type: {int32, int64} = DT_INT32"],
    shape_fn=_concat_offset_shape,
)
def concat_offset_kernel(concat_dim, shape):
    """Where each of N concatenated inputs (given by their shapes) starts in the output."""
    shapes = [np.asarray(s) for s in shape]
    first = shapes[0]
    rank = first.size
    axis = int(concat_dim)
    if not -rank <= axis < rank:
        raise invalid_argument(f"Concat dim is out of range: {axis} vs. {rank}")
    axis %= rank
    offsets = []
    position = 0
    for i, s in enumerate(shapes):
        if s.size != rank:
            raise invalid_argument(f"input {i} should contain {rank} elements, but got {s.size}")
        for d in builtins.range(rank):
            if d != axis and s[d] != first[d]:
                raise invalid_argument(
                    f"All dimensions except {axis} must match. Input {i} has shape "
                    f"[{' '.join(map(str, s.tolist()))}] and doesn't match input 0 with shape "
                    f"[{' '.join(map(str, first.tolist()))}]."
                )
        offset = np.zeros(rank, dtype=first.dtype)
        offset[axis] = position
        offsets.append(offset)
        position += int(s[axis])
    return offsets


no_gradient("ConcatOffset")


__all__ = [
    "concat",
    "split",
    "stack",
    "unstack",
]
