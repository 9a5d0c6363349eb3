"""Padding beyond zeros: PadV2 (a constant), MirrorPad and MirrorPadGrad, and ``tm.pad``.

Kernels follow ``tensorflow/core/kernels/pad_op.cc`` and ``mirror_pad_op.cc``; ``Pad`` (zeros)
lives in ``slicing`` beside ``Slice``, whose gradient it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.array.slicing import pad_shape as _zero_pad_shape  # shared with Pad
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import build_autopacked, has_symbolic
from tfmini.ops.common.kernel_util import invalid_argument


def _check_paddings(x: np.ndarray, p: np.ndarray) -> None:
    if p.ndim != 2 or p.shape[1] != 2:
        raise invalid_argument(f"paddings must be a matrix with 2 columns: {dims_str(p.shape)}")
    if p.shape[0] != x.ndim:
        raise invalid_argument(
            "The first dimension of paddings must be the rank of inputs"
            f"{dims_str(p.shape)} {dims_str(x.shape)}"
        )


# ----------------------------------------------------------------------------------------
# PadV2


def _pad_v2_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(2), 0)
    return _zero_pad_shape(ic)


@register_op(
    "PadV2",
    inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"],
    shape_fn=_pad_v2_shape,
)
def pad_v2_kernel(input, paddings, constant_values):  # noqa: A002  (TensorFlow's name)
    """``input`` padded with ``constant_values`` before and after each dimension."""
    x, p = np.asarray(input), np.asarray(paddings)
    _check_paddings(x, p)
    c = np.asarray(constant_values)
    if c.ndim != 0:
        raise invalid_argument(
            f"constant_values must be a scalar. Found: {dims_str(c.shape)}")
    for before, after in p.tolist():
        if before < 0 or after < 0:
            raise invalid_argument(f"Paddings must be non-negative: {before} {after}")
    return np.pad(x, p.astype(np.int64), mode="constant", constant_values=c[()])


# ----------------------------------------------------------------------------------------
# MirrorPad, MirrorPadGrad

_MODES = ["REFLECT", "SYMMETRIC"]


def _mirror_pad_shape(ic) -> list[TensorShape]:
    return _zero_pad_shape(ic)


def _mirror_limits(x_shape, p: np.ndarray, mode: str) -> None:
    offset = 1 if mode == "REFLECT" else 0
    for d, (before, after) in enumerate(p.tolist()):
        if before < 0 or after < 0:
            raise invalid_argument(f"paddings must be non-negative: {before} {after}")
        size = x_shape[d]
        if before > size - offset or after > size - offset:
            raise invalid_argument(
                f"paddings must be no greater than the dimension size: {before}, {after} "
                f"greater than {size - offset}"
            )


@register_op(
    "MirrorPad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32",
           "mode: {'REFLECT', 'SYMMETRIC'}"],
    shape_fn=_mirror_pad_shape,
)
def mirror_pad_kernel(input, paddings, *, mode):  # noqa: A002
    """``input`` padded with its own mirror image (REFLECT skips the edge, SYMMETRIC repeats
    it)."""
    x, p = np.asarray(input), np.asarray(paddings)
    _check_paddings(x, p)
    _mirror_limits(x.shape, p, mode)
    return np.pad(x, p.astype(np.int64), mode="reflect" if mode == "REFLECT" else "symmetric")


def _mirror_pad_grad_shape(ic) -> list[TensorShape]:
    inp = ic.input_shape(0)
    value = ic.input_value(1)
    if inp.dims is None or value is None:
        return [unknown_shape(inp.rank)]
    value = np.asarray(value).reshape(-1, 2)
    return [TensorShape([None if d is None else d - int(b) - int(a)
                         for d, (b, a) in zip(inp.dims, value)])]


@register_op(
    "MirrorPadGrad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32",
           "mode: {'REFLECT', 'SYMMETRIC'}"],
    shape_fn=_mirror_pad_grad_shape,
)
def mirror_pad_grad_kernel(input, paddings, *, mode):  # noqa: A002
    """Folds the mirrored borders of a MirrorPad gradient back onto the elements they copy."""
    g, p = np.asarray(input), np.asarray(paddings)
    _check_paddings(g, p)
    offset = 1 if mode == "REFLECT" else 0
    out = g
    for d, (before, after) in enumerate(p.astype(np.int64).tolist()):
        size = out.shape[d] - before - after
        if size < 0 or before > size - offset or after > size - offset:
            raise invalid_argument(
                f"paddings must be no greater than the dimension size: {before}, {after} "
                f"greater than {size - offset}"
            )
        moved = np.moveaxis(out, d, 0)
        core = moved[before:before + size].copy()
        # The i-th padded row before the core copies core row (before - i - 1 + offset).
        for i in range(before):
            core[before - 1 - i + offset] += moved[i]
        for i in range(after):
            core[size - 1 - i - offset] += moved[before + size + i]
        out = np.moveaxis(core, 0, d)
    return np.ascontiguousarray(out)


# ----------------------------------------------------------------------------------------
# TF1-style function


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> Output:
    """Pads a tensor (``tf.pad``).

    Args:
        tensor: The tensor to pad.
        paddings: ``[rank, 2]`` int: how many values to add before and after each dimension.
        mode: ``"CONSTANT"`` (op ``Pad``, or ``PadV2`` for a non-zero or tensor
            ``constant_values``), ``"REFLECT"`` or ``"SYMMETRIC"`` (op ``MirrorPad``); any case.
        name: Optional op name.
        constant_values: The scalar to pad with in CONSTANT mode.

    Returns:
        The padded tensor.

    Raises:
        ValueError: ``mode`` is not one of the three.
    """
    upper = str(mode).upper()
    if upper == "CONSTANT":
        if (not has_symbolic(constant_values) and np.ndim(constant_values) == 0
                and constant_values == 0):
            return build_autopacked("Pad", [tensor, paddings], name=name).outputs[0]
        return build_autopacked("PadV2", [tensor, paddings, constant_values],
                                name=name).outputs[0]
    if upper in _MODES:
        return build_autopacked("MirrorPad", [tensor, paddings], {"mode": upper},
                                name=name).outputs[0]
    raise ValueError(
        'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
        f"Received `mode` = {mode}"
    )


__all__ = ["pad"]
