"""Moving blocks between space and batch or depth: SpaceToBatchND, BatchToSpaceND,
SpaceToBatch, BatchToSpace, SpaceToDepth, DepthToSpace, and BroadcastArgs
(``broadcast_dynamic_shape``).

Kernels are the reshapes and transposes TensorFlow documents for these ops
(``tensorflow/core/kernels/spacetobatch_op.cc``, ``batchtospace_op.cc``,
``spacetodepth_op.cc``, ``depthtospace_op.cc``); on CPU only NHWC is supported, as in
TensorFlow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import build_autopacked
from tfmini.ops.common.kernel_util import invalid_argument, no_kernel

# ----------------------------------------------------------------------------------------
# Kernels' arithmetic


def _space_to_batch(x: np.ndarray, block: list[int], paddings: np.ndarray) -> np.ndarray:
    m = len(block)
    if x.ndim < m + 1:
        raise invalid_argument(f"input rank should be >= {m + 1} instead of {x.ndim}")
    if paddings.shape != (m, 2):
        raise invalid_argument(f"paddings should have shape [{m}, 2] instead of "
                               f"{dims_str(paddings.shape)}")
    if any(b < 1 for b in block):
        raise invalid_argument(f"All values in block_shape must be positive, got value, "
                               f"{min(block)} instead.")
    if (paddings < 0).any():
        raise invalid_argument("Negative paddings are not allowed")
    pad = [(0, 0)] + [tuple(p) for p in paddings.tolist()] + [(0, 0)] * (x.ndim - m - 1)
    padded = np.pad(x, pad)
    batch = x.shape[0]
    spatial = padded.shape[1:m + 1]
    rest = padded.shape[m + 1:]
    for i, (s, b) in enumerate(zip(spatial, block)):
        if s % b:
            raise invalid_argument(
                f"padded_shape[{i}]={s} is not divisible by block_shape[{i}]={b}")
    shape = [batch]
    for s, b in zip(spatial, block):
        shape += [s // b, b]
    work = padded.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    work = work.transpose(perm)
    return work.reshape([batch * int(np.prod(block))] + [s // b for s, b in zip(spatial, block)]
                        + list(rest))


def _batch_to_space(x: np.ndarray, block: list[int], crops: np.ndarray) -> np.ndarray:
    m = len(block)
    if x.ndim < m + 1:
        raise invalid_argument(f"input rank should be >= {m + 1} instead of {x.ndim}")
    if crops.shape != (m, 2):
        raise invalid_argument(f"crops should have shape [{m}, 2] instead of "
                               f"{dims_str(crops.shape)}")
    if any(b < 1 for b in block):
        raise invalid_argument(f"All values in block_shape must be positive, got value, "
                               f"{min(block)} instead.")
    if (crops < 0).any():
        raise invalid_argument("Crops must be non-negative")
    total = int(np.prod(block))
    if x.shape[0] % total:
        raise invalid_argument(
            f"Input batch dimension ({x.shape[0]}) is not divisible by product of block sizes "
            f"({total})")
    batch = x.shape[0] // total
    spatial = x.shape[1:m + 1]
    rest = x.shape[m + 1:]
    work = x.reshape(list(block) + [batch] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    work = work.transpose(perm).reshape([batch] + [s * b for s, b in zip(spatial, block)]
                                         + list(rest))
    index = [slice(None)]
    for i, (lo, hi) in enumerate(crops.tolist()):
        size = spatial[i] * block[i]
        if lo + hi > size:
            raise invalid_argument(
                f"Cropped size must be non-negative: start: {lo} end: {hi} size {size}")
        index.append(slice(lo, size - hi))
    return np.ascontiguousarray(work[tuple(index)])


# ----------------------------------------------------------------------------------------
# SpaceToBatchND, BatchToSpaceND


def _nd_shape(to_batch: bool):
    def shape_fn(ic) -> list[TensorShape]:
        inp = as_shape(ic.input_shape(0))
        block_s = shape_fns.with_rank(ic.input_shape(1), 1)
        shape_fns.with_rank(ic.input_shape(2), 2)
        block, amounts = ic.input_value(1), ic.input_value(2)
        m = block_s.dims[0]
        if inp.dims is None or block is None or amounts is None:
            return [unknown_shape(inp.rank)]
        block = np.asarray(block).reshape(-1).tolist()
        amounts = np.asarray(amounts).reshape(-1, 2)
        m = len(block)
        if inp.rank < m + 1:
            raise ValueError(f"Shape must be at least rank {m + 1} but is rank {inp.rank}")
        dims = list(inp.dims)
        total = int(np.prod(block))
        if to_batch:
            out = [None if dims[0] is None else dims[0] * total]
            for i, b in enumerate(block):
                d = dims[1 + i]
                if d is None:
                    out.append(None)
                    continue
                padded = d + int(amounts[i].sum())
                if padded % b:
                    raise ValueError(f"Dimension size must be evenly divisible by {b} but is "
                                     f"{padded}")
                out.append(padded // b)
        else:
            if dims[0] is not None and dims[0] % total:
                raise ValueError(f"Dimension size must be evenly divisible by {total} but is "
                                 f"{dims[0]}")
            out = [None if dims[0] is None else dims[0] // total]
            for i, b in enumerate(block):
                d = dims[1 + i]
                out.append(None if d is None else d * b - int(amounts[i].sum()))
        return [TensorShape(out + dims[m + 1:])]

    return shape_fn


@register_op(
    "SpaceToBatchND",
    inputs=["input: T", "block_shape: Tblock_shape", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32",
           "Tpaddings: {int32, int64} = DT_INT32"],
    shape_fn=_nd_shape(True),
)
def space_to_batch_nd_kernel(input, block_shape, paddings):  # noqa: A002
    """Zero-pads the spatial dimensions, then moves blocks of them into the batch."""
    block = np.asarray(block_shape)
    if block.ndim != 1:
        raise invalid_argument(f"block_shape must be 1-D, got shape {dims_str(block.shape)}")
    return _space_to_batch(np.asarray(input), block.tolist(), np.asarray(paddings))


@register_op(
    "BatchToSpaceND",
    inputs=["input: T", "block_shape: Tblock_shape", "crops: Tcrops"],
    outputs=["output: T"],
    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32",
           "Tcrops: {int32, int64} = DT_INT32"],
    shape_fn=_nd_shape(False),
)
def batch_to_space_nd_kernel(input, block_shape, crops):  # noqa: A002
    """Moves blocks of the batch back into the spatial dimensions, then crops them."""
    block = np.asarray(block_shape)
    if block.ndim != 1:
        raise invalid_argument(f"block_shape must be 1-D, got shape {dims_str(block.shape)}")
    return _batch_to_space(np.asarray(input), block.tolist(), np.asarray(crops))


# ----------------------------------------------------------------------------------------
# SpaceToBatch, BatchToSpace (4-D, one block size)


def _square_block_shape(to_batch: bool):
    nd = _nd_shape(to_batch)

    def shape_fn(ic) -> list[TensorShape]:
        shape_fns.with_rank(ic.input_shape(0), 4)
        return nd(_BlockAsInput(ic))

    return shape_fn


class _BlockAsInput:
    """An InferenceContext view with ``block_size`` as the block_shape input (index 1)."""

    def __init__(self, ic):
        self._ic = ic
        self.attrs = ic.attrs

    def input_shape(self, i):
        return TensorShape([2]) if i == 1 else self._ic.input_shape(1 if i == 2 else i)

    def input_value(self, i):
        if i == 1:
            return np.array([self.attrs["block_size"]] * 2)
        return self._ic.input_value(1 if i == 2 else i)


@register_op(
    "SpaceToBatch",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "block_size: int >= 2"],
    shape_fn=_square_block_shape(True),
)
def space_to_batch_kernel(input, paddings, *, block_size):  # noqa: A002
    """SpaceToBatchND of a 4-D NHWC input with a square block."""
    x = np.asarray(input)
    if x.ndim != 4:
        raise invalid_argument(f"input should have rank 4 instead of {x.ndim}")
    return _space_to_batch(x, [block_size] * 2, np.asarray(paddings))


@register_op(
    "BatchToSpace",
    inputs=["input: T", "crops: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "block_size: int >= 2", "Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_square_block_shape(False),
)
def batch_to_space_kernel(input, crops, *, block_size):  # noqa: A002
    """BatchToSpaceND of a 4-D NHWC input with a square block."""
    x = np.asarray(input)
    if x.ndim != 4:
        raise invalid_argument(f"input should have rank 4 instead of {x.ndim}")
    return _batch_to_space(x, [block_size] * 2, np.asarray(crops))


# ----------------------------------------------------------------------------------------
# SpaceToDepth, DepthToSpace

_FORMATS = "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"


def _depth_shape(to_depth: bool):
    def shape_fn(ic) -> list[TensorShape]:
        s = shape_fns.with_rank(ic.input_shape(0), 4)
        if s.dims is None:
            return [s]
        bs = ic.attrs["block_size"]
        b, h, w, c = s.dims
        if ic.attrs["data_format"] != "NHWC":
            return [unknown_shape(4)]
        if to_depth:
            for d in (h, w):
                if d is not None and d % bs:
                    raise ValueError(f"Dimension size must be evenly divisible by {bs} but is "
                                     f"{d}")
            return [TensorShape([b, None if h is None else h // bs,
                                 None if w is None else w // bs,
                                 None if c is None else c * bs * bs])]
        if c is not None and c % (bs * bs):
            raise ValueError(f"Dimension size must be evenly divisible by {bs * bs} but is {c}")
        return [TensorShape([b, None if h is None else h * bs, None if w is None else w * bs,
                             None if c is None else c // (bs * bs)])]

    return shape_fn


def _nhwc_4d(input: Any, data_format: str, node) -> np.ndarray:  # noqa: A002
    """The 4-D NHWC input of SpaceToDepth/DepthToSpace, checked as TensorFlow's kernels do."""
    # TensorFlow registers CPU kernels for NHWC only; other layouts find no kernel.
    if data_format != "NHWC":
        raise no_kernel(node)
    x = np.asarray(input)
    if x.ndim != 4:
        raise invalid_argument(f"Input rank should be: 4 instead of: {x.ndim}")
    return x


@register_op(
    "SpaceToDepth",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "block_size: int >= 2", _FORMATS],
    shape_fn=_depth_shape(True),
)
def space_to_depth_kernel(input, *, block_size, data_format, node):  # noqa: A002
    """Moves ``block_size x block_size`` spatial blocks into the channels."""
    x = _nhwc_4d(input, data_format, node)
    b, h, w, c = x.shape
    bs = block_size
    if h % bs or w % bs:
        raise invalid_argument(
            f"Image width {w} and height {h} should be divisible by block_size: {bs}")
    out = x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
    return out.reshape(b, h // bs, w // bs, bs * bs * c)


@register_op(
    "DepthToSpace",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "block_size: int >= 2", _FORMATS],
    shape_fn=_depth_shape(False),
)
def depth_to_space_kernel(input, *, block_size, data_format, node):  # noqa: A002
    """Moves channels into ``block_size x block_size`` spatial blocks."""
    x = _nhwc_4d(input, data_format, node)
    b, h, w, c = x.shape
    bs = block_size
    if c % (bs * bs):
        raise invalid_argument(
            f"Input depth dimension {c} should be divisible by: {bs * bs}")
    out = x.reshape(b, h, w, bs, bs, c // (bs * bs)).transpose(0, 1, 3, 2, 4, 5)
    return out.reshape(b, h * bs, w * bs, c // (bs * bs))


# ----------------------------------------------------------------------------------------
# BroadcastArgs


def _broadcast_args_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank(ic.input_shape(0), 1)
    b = shape_fns.with_rank(ic.input_shape(1), 1)
    if a.dims[0] is None or b.dims[0] is None:
        return [TensorShape([None])]
    return [TensorShape([max(a.dims[0], b.dims[0])])]


@register_op(
    "BroadcastArgs",
    inputs=["s0: T", "s1: T"],
    outputs=["r0: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape_fn=_broadcast_args_shape,
)
def broadcast_args_kernel(s0, s1):
    """The shape two shapes broadcast to."""
    a, b = np.asarray(s0), np.asarray(s1)
    try:
        return np.asarray(np.broadcast_shapes(tuple(a.tolist()), tuple(b.tolist())), a.dtype)
    except ValueError:
        raise invalid_argument(
            f"Incompatible shapes: [{','.join(map(str, a.tolist()))}] vs. "
            f"[{','.join(map(str, b.tolist()))}]") from None


# ----------------------------------------------------------------------------------------
# TF1-style functions


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any,  # noqa: A002
                      name: str | None = None) -> Output:
    """Zero-pads spatial dimensions and moves blocks into the batch (``tf.space_to_batch_nd``)."""
    return build_autopacked("SpaceToBatchND", [input, block_shape, paddings],
                            name=name).outputs[0]


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any,  # noqa: A002
                      name: str | None = None) -> Output:
    """The inverse of :func:`space_to_batch_nd` (``tf.batch_to_space_nd``)."""
    return build_autopacked("BatchToSpaceND", [input, block_shape, crops], name=name).outputs[0]


def space_to_batch(input: Any, paddings: Any, block_size: Any = None,  # noqa: A002
                   name: str | None = None, block_shape: Any = None) -> Output:
    """TF1 ``tf.space_to_batch``: SpaceToBatchND with a square block (``block_shape`` is the
    new name of ``block_size``)."""
    size = block_shape if block_shape is not None else block_size
    return space_to_batch_nd(input, np.array([size, size], np.int64), paddings, name=name)


def batch_to_space(input: Any, crops: Any, block_size: Any = None,  # noqa: A002
                   name: str | None = None, block_shape: Any = None) -> Output:
    """TF1 ``tf.batch_to_space``: BatchToSpaceND with a square block."""
    size = block_shape if block_shape is not None else block_size
    return batch_to_space_nd(input, np.array([size, size], np.int64), crops, name=name)


def space_to_depth(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Output:
    """Moves spatial blocks into channels (``tf.space_to_depth``)."""
    return build_autopacked("SpaceToDepth", [input], {"block_size": block_size,
                                                      "data_format": data_format},
                            name=name).outputs[0]


def depth_to_space(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Output:
    """Moves channels into spatial blocks (``tf.depth_to_space``)."""
    return build_autopacked("DepthToSpace", [input], {"block_size": block_size,
                                                      "data_format": data_format},
                            name=name).outputs[0]


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Output:
    """The broadcast of two shape vectors, computed at run time (``tf.broadcast_dynamic_shape``,
    op ``BroadcastArgs``)."""
    return build_autopacked("BroadcastArgs", [shape_x, shape_y]).outputs[0]


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any,
                                     base_paddings: Any = None, name: str | None = None):
    """``(paddings, crops)`` that make ``input_shape`` (plus ``base_paddings``) divisible by
    ``block_shape`` for :func:`space_to_batch_nd` and undo it in :func:`batch_to_space_nd`
    (``tf.required_space_to_batch_paddings``). NumPy arrays when everything is known at
    build time, tensors otherwise, as TensorFlow computes them.

    Raises:
        ValueError: ``block_shape`` is not a 1-D vector of known length.
    """
    from tfmini.core import dtypes
    from tfmini.core.convert import convert_to_tensor
    from tfmini.core.scope import name_scope
    from tfmini.ops.array.concat_split import stack
    from tfmini.ops.array.filling import zeros
    from tfmini.ops.common.build_util import constant_value

    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtypes.int32, name="block_shape")
        if block_shape.shape.rank != 1 or block_shape.shape.dims[0] is None:
            raise ValueError(f"block_shape must be a 1-D vector of known length, got shape "
                             f"{block_shape.shape}")
        m = block_shape.shape.dims[0]
        if m == 0:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        if not input_shape.shape.is_compatible_with([m]):
            raise ValueError(f"Shapes {input_shape.shape} and ({m},) are incompatible")
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtypes.int32, name="base_paddings")
        else:
            base_paddings = zeros([m, 2], dtypes.int32)
        known = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(k is not None for k in known):
            block_shape, input_shape, base_paddings = known
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(m)], name="paddings")
        crops = stack([[0, pad_end_extra[i]] for i in range(m)], name="crops")
        return paddings, crops


__all__ = ["batch_to_space", "batch_to_space_nd", "broadcast_dynamic_shape", "depth_to_space",
           "required_space_to_batch_paddings", "space_to_batch", "space_to_batch_nd",
           "space_to_depth"]
