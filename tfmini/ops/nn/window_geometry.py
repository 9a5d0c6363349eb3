"""Sliding-window geometry shared by the convolution and pooling ops.

One place computes what TensorFlow's ``GetWindowedOutputSizeVerbose``
(tensorflow/core/framework/kernel_shape_util.cc) and the shape functions of
tensorflow/core/framework/common_shape_fns.cc compute: per spatial dimension the
output size and the padding before and after, for VALID, SAME and EXPLICIT padding,
with strides and dilations. It also holds the layout helpers (channels-first data
is moved to channels-last, computed there and moved back) and the strided views the
kernels turn into BLAS matmuls (im2col without Python loops over pixels).

This module is internal to the nn family: it exports nothing to ``tm.*``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tfmini import errors
from tfmini.ops.common.kernel_util import invalid_argument

__all__: list[str] = []


# ----------------------------------------------------------------------------------------
# Layouts


def channels_first(data_format: str) -> bool:
    """Whether ``data_format`` (``NCHW``, ``NCDHW``) puts channels right after the batch."""
    return data_format.startswith("NC")


def channel_axis(data_format: str) -> int:
    return 1 if channels_first(data_format) else len(data_format) - 1


def spatial_axes(data_format: str) -> list[int]:
    """The axes of the spatial dimensions, in order (H, W or D, H, W)."""
    rank = len(data_format)
    return list(range(2, rank)) if channels_first(data_format) else list(range(1, rank - 1))


def spatial_of(values: Sequence[int], data_format: str) -> list[int]:
    """The spatial entries of a per-dimension attr (strides, ksize, dilations)."""
    return [int(values[i]) for i in spatial_axes(data_format)]


def to_channels_last(x: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if channels_first(data_format) else x


def from_channels_last(y: np.ndarray, data_format: str) -> np.ndarray:
    return np.ascontiguousarray(np.moveaxis(y, -1, 1)) if channels_first(data_format) else y


def shape_to_channels_last(shape: Sequence, data_format: str) -> list:
    """A shape (entries may be None) in channels-last order."""
    shape = [None if d is None else int(d) for d in shape]
    if channels_first(data_format):
        return [shape[0], *shape[2:], shape[1]]
    return shape


def shape_from_channels_last(shape: Sequence, data_format: str) -> list:
    shape = list(shape)
    if channels_first(data_format):
        return [shape[0], shape[-1], *shape[1:-1]]
    return shape


# ----------------------------------------------------------------------------------------
# Window geometry


def window_size(n: int | None, k: int, s: int, d: int, padding: str,
                explicit: tuple[int, int] = (0, 0)) -> tuple[int | None, int, int]:
    """(output size, padding before, padding after) of one spatial dimension.

    ``k`` is the kernel size, ``s`` the stride, ``d`` the dilation; the effective kernel is
    ``(k - 1) * d + 1``. SAME puts the odd padding cell after.

    Raises:
        ValueError: the effective kernel does not fit (VALID, EXPLICIT), as TensorFlow's
            "Negative dimension size caused by subtracting 8 from 7".
    """
    if s <= 0:
        raise ValueError(f"Stride must be > 0, but got {s}")
    if d < 1:
        raise ValueError(f"Dilation rate must be >= 1, but got {d}")
    ek = (k - 1) * d + 1
    if padding == "SAME":
        if n is None:
            return None, 0, 0
        out = -(-n // s)
        total = max((out - 1) * s + ek - n, 0)
        return out, total // 2, total - total // 2
    before, after = explicit if padding == "EXPLICIT" else (0, 0)
    if n is None:
        return None, before, after
    if n + before + after < ek:
        raise ValueError(
            f"Negative dimension size caused by subtracting {ek} from {n + before + after}")
    return (n + before + after - ek) // s + 1, before, after


def check_list_attr(op_type: str, what: str, values: Sequence[int], rank: int) -> None:
    """The shape functions' check that strides/dilations/ksize have one entry per dim."""
    if len(values) != rank:
        raise ValueError(f"{op_type} requires the {what} attribute to contain {rank} values, "
                         f"but got: {len(values)}")


def explicit_pairs(op_type: str, padding: str, explicit_paddings: Sequence[int],
                   data_format: str) -> list[tuple[int, int]]:
    """The (before, after) pairs of the spatial dims; all zeros unless padding is EXPLICIT.

    Raises:
        ValueError: TensorFlow's ``CheckValidPadding`` messages.
    """
    rank = len(data_format)
    pads = [int(p) for p in explicit_paddings]
    if padding != "EXPLICIT":
        if pads:
            raise ValueError("explicit_paddings attribute must be empty if the padding "
                             "attribute is not EXPLICIT")
        return [(0, 0)] * (rank - 2)
    if len(pads) != 2 * rank:
        raise ValueError(f"explicit_paddings attribute must contain {2 * rank} values, "
                         f"but got: {len(pads)}")
    if any(p < 0 for p in pads):
        bad = next(p for p in pads if p < 0)
        raise ValueError(f"All explicit padding values must be nonnegative, but got {bad}")
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in range(rank)]
    for axis in (0, channel_axis(data_format)):
        if pairs[axis] != (0, 0):
            raise ValueError("Nonzero explicit padding in the batch or depth dimensions is "
                             "not supported")
    return [pairs[i] for i in spatial_axes(data_format)]


def output_geometry(spatial_in: Sequence[int | None], ksizes: Sequence[int],
                    strides: Sequence[int], dilations: Sequence[int], padding: str,
                    pairs: Sequence[tuple[int, int]]) -> tuple[list, list[tuple[int, int]]]:
    """Per spatial dim, the output sizes and the (before, after) padding."""
    outs, pads = [], []
    for n, k, s, d, pair in zip(spatial_in, ksizes, strides, dilations, pairs):
        out, before, after = window_size(n, k, s, d, padding, pair)
        outs.append(out)
        pads.append((before, after))
    return outs, pads


def run_time_geometry(spatial_in: Sequence[int], ksizes: Sequence[int],
                      strides: Sequence[int], dilations: Sequence[int], padding: str,
                      pairs: Sequence[tuple[int, int]]) -> tuple[list[int], list]:
    """:func:`output_geometry` for a kernel: a misfit is an InvalidArgumentError."""
    try:
        return output_geometry(spatial_in, ksizes, strides, dilations, padding, pairs)
    except ValueError as e:
        raise invalid_argument(str(e)) from None


def check_batch_depth(values: Sequence[int], data_format: str, what: str) -> None:
    """TensorFlow's kernels support strides and dilations only in the spatial dims."""
    if values[0] != 1 or values[channel_axis(data_format)] != 1:
        if what == "strides":
            raise errors.UnimplementedError(
                None, None, "Current implementation does not yet support strides in the "
                "batch and depth dimensions.")
        raise invalid_argument("Current implementation does not yet support dilations in "
                               "the batch and depth dimensions.")


# ----------------------------------------------------------------------------------------
# Strided views (im2col without copying until the matmul needs it)


def pad_spatial(x: np.ndarray, pads: Sequence[tuple[int, int]], value=0) -> np.ndarray:
    """``x`` (channels last) padded in its spatial dims with ``value``."""
    if not any(b or a for b, a in pads):
        return x
    # Only the border cells are filled, then x copied in: one pass over the result, where
    # np.pad costs ~0.2 ms of Python per call on top (five calls in a convnet step).
    nd = len(pads)
    out = np.empty((x.shape[0], *[s + b + a for s, (b, a) in zip(x.shape[1:-1], pads)],
                    x.shape[-1]), x.dtype)
    inner = [slice(None)] * (nd + 2)
    for i, ((b, a), size) in enumerate(zip(pads, x.shape[1:-1])):
        if b:
            out[(*inner[:i + 1], slice(0, b))] = value
        if a:
            out[(*inner[:i + 1], slice(b + size, None))] = value
        inner[i + 1] = slice(b, b + size)
    out[tuple(inner)] = x
    return out


def windows(xp: np.ndarray, ksizes: Sequence[int], strides: Sequence[int],
            dilations: Sequence[int], outs: Sequence[int]) -> np.ndarray:
    """A read-only view ``[N, *outs, *ksizes, C]`` of the windows of padded ``xp``.

    Entry ``[n, o..., t..., c]`` is ``xp[n, o*s + t*d ..., c]``: reshaping it to
    ``[N*prod(outs), prod(ksizes)*C]`` is the im2col matrix, whose columns are in the
    filter's ``[*ksizes, C]`` order.
    """
    sn, *ss, sc = xp.strides
    shape = (xp.shape[0], *outs, *ksizes, xp.shape[-1])
    st = (sn, *[a * s for a, s in zip(ss, strides)], *[a * d for a, d in zip(ss, dilations)],
          sc)
    return as_strided(xp, shape=shape, strides=st, writeable=False)


def taps(ksizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every kernel tap (a, b, ...) in row-major order, TensorFlow's scan order."""
    return itertools.product(*[range(k) for k in ksizes])


def tap_slice(tap: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
              outs: Sequence[int]) -> tuple:
    """The index of the cells of a padded channels-last array that tap ``tap`` reads, one per
    output position: ``[:, t*d : t*d + (o-1)*s + 1 : s, ..., :]``."""
    parts = [slice(None)]
    for t, s, d, o in zip(tap, strides, dilations, outs):
        start = t * d
        parts.append(slice(start, start + (o - 1) * s + 1, s))
    parts.append(slice(None))
    return tuple(parts)


def clipped_tap_slices(tap: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
                       pads: Sequence[tuple[int, int]], outs: Sequence[int],
                       spatial_in: Sequence[int]) -> tuple[tuple, tuple] | None:
    """For tap ``tap``, the cells of the *unpadded* channels-last input it reads and the
    output positions reading them, as two indexes ``(input_index, output_index)``: output
    ``o`` reads input ``o*s + t*d - pad_before`` where that lies inside the input. None when
    the tap reads only padding. Adding a tap's products at ``input_index`` needs no padded
    buffer (nor the crop's strided copy)."""
    dst, src = [slice(None)], [slice(None)]
    for t, s, d, (before, _), o, n in zip(tap, strides, dilations, pads, outs, spatial_in):
        offset = t * d - before
        lo = max(0, -(offset // s))  # the first output whose cell is >= 0: ceil(-offset/s)
        hi = min(o, (n - 1 - offset) // s + 1)
        if hi <= lo:
            return None
        dst.append(slice(lo * s + offset, (hi - 1) * s + offset + 1, s))
        src.append(slice(lo, hi))
    dst.append(slice(None))
    src.append(slice(None))
    return tuple(dst), tuple(src)


def crop(xp: np.ndarray, pads: Sequence[tuple[int, int]],
         spatial_in: Sequence[int]) -> np.ndarray:
    """The unpadded part of a padded channels-last array."""
    idx = (slice(None), *[slice(b, b + n) for (b, _), n in zip(pads, spatial_in)], slice(None))
    return xp[idx]
