"""Reordering ops: ReverseV2, ReverseSequence and Roll, with ``tm.reverse``,
``tm.reverse_sequence`` and ``tm.roll`` (kernels as ``tensorflow/core/kernels/reverse_op.cc``,
``reverse_sequence_op.cc``, ``roll_op.cc``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import build_autopacked
from tfmini.ops.common.kernel_util import invalid_argument

# ----------------------------------------------------------------------------------------
# ReverseV2


def _reverse_v2_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 1)
    inp = as_shape(ic.input_shape(0))
    axes = ic.input_value(1)
    if inp.rank is not None and axes is not None:
        rank = inp.rank
        seen = set()
        for a in np.asarray(axes).reshape(-1).tolist():
            if a < -rank or a >= rank:
                raise ValueError(f"'axis'[{len(seen)}] = {a} is out of valid range [0, "
                                 f"{rank - 1}")
            if a % rank in seen:
                raise ValueError(f"axis {a % rank} specified more than once.")
            seen.add(a % rank)
    return [inp]


@register_op(
    "ReverseV2",
    inputs=["tensor: T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["Tidx: {int32, int64} = DT_INT32",
           "T: {uint8, int8, int16, int32, int64, bool, half, float, double, string}"],
    shape_fn=_reverse_v2_shape,
)
def reverse_v2_kernel(tensor, axis):
    """``tensor`` with the order of the given axes reversed."""
    x, axes = np.asarray(tensor), np.asarray(axis)
    if axes.ndim != 1:
        raise invalid_argument(f"'axis' must be 1-dimensional but got {dims_str(axes.shape)}")
    seen: list[int] = []
    for i, a in enumerate(axes.tolist()):
        c = a + x.ndim if a < 0 else a
        if c < 0 or c >= x.ndim:
            raise invalid_argument(f"'axis'[{i}] = {a} is out of valid range [0, {x.ndim - 1}")
        if c in seen:
            raise invalid_argument(f"axis {c} specified more than once.")
        seen.append(c)
    return np.flip(x, axis=tuple(seen)).copy() if seen else x


def _reverse_shape(ic) -> list[TensorShape]:
    dims = shape_fns.with_rank(ic.input_shape(1), 1)
    inp = as_shape(ic.input_shape(0))
    if inp.rank is not None and dims.dims[0] is not None and dims.dims[0] != inp.rank:
        raise ValueError(f"Dimension must be {inp.rank} but is {dims.dims[0]}")
    return [inp]


@register_op(
    "Reverse",
    inputs=["tensor: T", "dims: bool"],
    outputs=["output: T"],
    attrs=["T: {uint8, int8, int16, int32, int64, bool, half, float, double, string}"],
    shape_fn=_reverse_shape,
)
def reverse_v1_kernel(tensor, dims):
    """``tensor`` reversed along the dimensions where ``dims`` is true (the old op)."""
    x, d = np.asarray(tensor), np.asarray(dims)
    if d.ndim != 1 or d.shape[0] != x.ndim:
        raise invalid_argument(
            f"'dims' must have the same number of values as 'input' has dimensions. 'input' "
            f"has {x.ndim}'dims' has {d.size} values")
    axes = tuple(int(i) for i in np.nonzero(d)[0])
    return np.flip(x, axes).copy() if axes else x


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Output:
    """Reverses the given axes of ``tensor`` (``tf.reverse``, op ``ReverseV2``).

    Args:
        tensor: Any tensor.
        axis: 1-D int axes to reverse (negative counts from the end).
        name: Optional op name.

    Returns:
        A tensor of ``tensor``'s shape.
    """
    return build_autopacked("ReverseV2", [tensor, axis], name=name).outputs[0]


reverse_v2 = reverse

# ----------------------------------------------------------------------------------------
# ReverseSequence


def _reverse_sequence_shape(ic) -> list[TensorShape]:
    inp = as_shape(ic.input_shape(0))
    lens = shape_fns.with_rank(ic.input_shape(1), 1)
    seq_dim, batch_dim = ic.attrs["seq_dim"], ic.attrs["batch_dim"]
    if inp.rank is None:
        return [inp]
    rank = inp.rank
    if batch_dim >= rank:
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")
    if seq_dim >= rank:
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    shape_fns.merge_dim(lens.dims[0], inp.dims[batch_dim])
    return [inp]


@register_op(
    "ReverseSequence",
    inputs=["input: T", "seq_lengths: Tlen"],
    outputs=["output: T"],
    attrs=["seq_dim: int", "batch_dim: int = 0", "T: type", "Tlen: {int32, int64} = DT_INT64"],
    shape_fn=_reverse_sequence_shape,
)
def reverse_sequence_kernel(input, seq_lengths, *, seq_dim, batch_dim):  # noqa: A002
    """Reverses the first ``seq_lengths[b]`` elements along ``seq_dim`` of each batch row b."""
    x, lens = np.asarray(input), np.asarray(seq_lengths)
    if batch_dim == seq_dim:
        raise invalid_argument(f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= x.ndim:
        raise invalid_argument(f"seq_dim must be < input rank( {seq_dim} vs. {x.ndim})")
    if batch_dim >= x.ndim:
        raise invalid_argument(f"batch_dim must be < input rank( {batch_dim} vs. {x.ndim})")
    if lens.ndim != 1 or lens.shape[0] != x.shape[batch_dim]:
        raise invalid_argument(
            f"Length of seq_lengths != input.dims({batch_dim}), "
            f"({lens.shape[0] if lens.ndim else 0} vs. {x.shape[batch_dim]})")
    for i, n in enumerate(lens.tolist()):
        if n < 0:
            raise invalid_argument(f"seq_lens({i}) < 0")
        if n > x.shape[seq_dim]:
            raise invalid_argument(f"seq_lens({i}) > input.dims({seq_dim})")
    out = x.copy()
    moved_in = np.moveaxis(x, (batch_dim, seq_dim), (0, 1))
    moved_out = np.moveaxis(out, (batch_dim, seq_dim), (0, 1))
    for b, n in enumerate(lens.tolist()):
        moved_out[b, :n] = moved_in[b, :n][::-1]
    return out


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None,  # noqa: A002
                     batch_axis: int | None = None, name: str | None = None,
                     seq_dim: int | None = None, batch_dim: int | None = None) -> Output:
    """Reverses variable-length slices (``tf.reverse_sequence``).

    Args:
        input: The tensor.
        seq_lengths: 1-D lengths, one per row along ``batch_axis``.
        seq_axis: The axis reversed (``seq_dim`` is its deprecated alias).
        batch_axis: The batch axis (default 0; ``batch_dim`` is its alias).
        name: Optional op name.
        seq_dim: Deprecated alias of ``seq_axis``.
        batch_dim: Deprecated alias of ``batch_axis``.

    Returns:
        A tensor of ``input``'s shape.
    """
    seq = seq_axis if seq_axis is not None else seq_dim
    batch = batch_axis if batch_axis is not None else (batch_dim if batch_dim is not None else 0)
    return build_autopacked("ReverseSequence", [input, seq_lengths],
                            {"seq_dim": seq, "batch_dim": batch}, name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# Roll


def _roll_shape(ic) -> list[TensorShape]:
    shift = shape_fns.with_rank_at_most(ic.input_shape(1), 1)
    axis = shape_fns.with_rank_at_most(ic.input_shape(2), 1)
    if shift.rank == 1 and axis.rank == 1:
        shape_fns.merge_dim(shift.dims[0], axis.dims[0])
    return [as_shape(ic.input_shape(0))]


@register_op(
    "Roll",
    inputs=["input: T", "shift: Tshift", "axis: Taxis"],
    outputs=["output: T"],
    attrs=["T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"],
    shape_fn=_roll_shape,
)
def roll_kernel(input, shift, axis):  # noqa: A002
    """Elements shifted along each axis, wrapping around (shifts on one axis add up)."""
    x, s, a = np.asarray(input), np.asarray(shift), np.asarray(axis)
    if s.ndim > 1:
        raise invalid_argument(f"shift must be a scalar or a 1-D vector. Found: "
                               f"{dims_str(s.shape)}")
    if a.ndim > 1:
        raise invalid_argument(f"axis must be a scalar or a 1-D vector. Found: "
                               f"{dims_str(a.shape)}")
    if s.shape != a.shape:
        raise invalid_argument(
            "shift and axis must have the same size")
    if x.ndim == 0:
        raise invalid_argument("input must be 1-D or higher")
    total = [0] * x.ndim
    for sh, ax in zip(s.reshape(-1).tolist(), a.reshape(-1).tolist()):
        c = ax + x.ndim if ax < 0 else ax
        if c < 0 or c >= x.ndim:
            raise invalid_argument(f"axis {ax} is out of range")
        total[c] += sh
    axes = [i for i, t in enumerate(total) if x.shape[i] and t % x.shape[i]]
    if not axes:
        return x
    return np.roll(x, [total[i] for i in axes], axis=axes)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Output:  # noqa: A002
    """Rolls elements along axes, wrapping around (``tf.roll``).

    Args:
        input: The tensor.
        shift: int scalar or 1-D shifts (positive moves toward higher indices).
        axis: int scalar or 1-D axes, one per shift.
        name: Optional op name.

    Returns:
        A tensor of ``input``'s shape.
    """
    return build_autopacked("Roll", [input, shift, axis], name=name).outputs[0]


__all__ = ["reverse", "reverse_sequence", "reverse_v2", "roll"]
