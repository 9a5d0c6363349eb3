"""The arithmetic of the pooling kernels, on channels-last arrays with 2 or 3 spatial dims.

Semantics of tensorflow/core/kernels/pooling_ops_common.h, maxpooling_op.cc and
avgpooling_op.cc: max pooling never picks a padding cell and skips NaN; ties go to the
first maximal cell in the window's row-major scan; average pooling divides by the number of
valid (unpadded) cells. Windows are strided views (no loop over pixels); max pooling reduces
a ``[N*outputs, taps, C]`` copy of them, average pooling adds the taps' slabs in float64 and
rounds once. Max pooling of windows that tile the input (and its gradient) runs a compiled
loop where one is available (pooling_native.py), with the same results.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from tfmini.ops.nn import pooling_native
from tfmini.ops.nn.window_geometry import crop, pad_spatial, tap_slice, taps, windows

__all__: list[str] = []


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_argmax(x: np.ndarray, ksizes, strides, pads, outs,
               first_nan_sticks: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The window maxima ``[N, *outs, C]`` and, per output, the tap (flat index into the
    window, row-major) holding it. NaN is skipped; with ``first_nan_sticks``, a window
    whose first unpadded cell is NaN picks that cell, as MaxPoolGrad's argmax does
    (``SpatialMaxPoolWithArgMaxHelper`` in tensorflow/core/kernels/maxpooling_op.cc takes
    the first cell unconditionally, then a later one only if ``max < cell``)."""
    ones = [1] * len(ksizes)
    xp = pad_spatial(x, pads, _lowest(x.dtype))
    view = windows(xp, ksizes, strides, ones, outs)
    n, c = x.shape[0], x.shape[-1]
    flat = view.reshape(n, *outs, prod(ksizes), c)
    first_nan = None
    if x.dtype.kind == "f" and np.isnan(flat).any():
        nan = np.isnan(flat)
        if first_nan_sticks:
            first = _first_valid_tap(x.shape[1:-1], ksizes, strides, pads, outs)
            first_nan = (first, np.take_along_axis(nan, first[..., None, :], axis=-2)[..., 0, :])
        flat = np.where(nan, -np.inf, flat)  # TensorFlow skips NaN
    arg = np.argmax(flat, axis=-2)
    if first_nan is not None:
        arg = np.where(first_nan[1], first_nan[0], arg)
    out = np.take_along_axis(flat, arg[..., None, :], axis=-2)[..., 0, :]
    return out, arg


def _first_valid_tap(spatial, ksizes, strides, pads, outs) -> np.ndarray:
    """Per output position, the first tap (row-major) of its window that is not padding,
    shaped ``[1, *outs, 1]``."""
    valid = pad_spatial(np.ones((1, *spatial, 1), np.int8), pads, 0)
    view = windows(valid, ksizes, strides, [1] * len(ksizes), outs)
    return np.argmax(view.reshape(1, *outs, prod(ksizes), 1), axis=-2)


def argmax_positions(arg: np.ndarray, ksizes, strides, pads) -> list[np.ndarray]:
    """Per spatial dim, the unpadded coordinate of each output's maximal cell."""
    coords = np.unravel_index(arg, tuple(ksizes))
    grids = np.ogrid[tuple(slice(0, d) for d in arg.shape)]
    return [grids[1 + i] * strides[i] + coords[i] - pads[i][0] for i in range(len(ksizes))]


def flat_index(arg: np.ndarray, in_shape: Sequence[int], ksizes, strides, pads,
               include_batch: bool = True) -> np.ndarray:
    """The flat index into the (unpadded, channels-last) input of each output's maximum:
    ``((b*H + y)*W + x)*C + c``, without the batch term unless ``include_batch``."""
    pos = argmax_positions(arg, ksizes, strides, pads)
    grids = np.ogrid[tuple(slice(0, d) for d in arg.shape)]
    idx = grids[0] if include_batch else np.zeros_like(grids[0])
    for p, size in zip(pos, in_shape[1:-1]):
        idx = idx * size + p
    return idx * in_shape[-1] + grids[-1]


def _tile_taps(x: np.ndarray, ksizes, strides, pads, outs) -> list[tuple] | None:
    """When the windows tile ``x`` exactly (stride = window, no padding), the index of each
    tap's cells, one per window (``x[:, a::kh, b::kw, :]`` for tap (a, b)), in row-major tap
    order; else None. Pooling then needs no window copy: one strided pass per tap."""
    if list(ksizes) != list(strides) or any(tuple(p) != (0, 0) for p in pads):
        return None
    if any(o * k != d for o, k, d in zip(outs, ksizes, x.shape[1:-1])):
        return None
    return [(slice(None), *[slice(t, None, k) for t, k in zip(tap, ksizes)], slice(None))
            for tap in taps(ksizes)]


def _tiled_max(x: np.ndarray, cells: list[tuple]) -> np.ndarray:
    # An elementwise maximum over the taps' strided views, no 6-D reduce (several times
    # faster than ``reshape(...).max(axis=(2, 4))`` for 2x2 windows).
    # The running maximum is np.maximum's second operand: on a tie NumPy returns the second
    # operand, so the first maximal cell's value stays (-0.0 against 0.0 is the only tie
    # that shows; tests/ops/nn/test_pooling_native.py checks it against the general path).
    # np.copyto(..., where=v > y) says the same without the tie rule but took 13x longer.
    # NaN propagates: the caller sends such windows to the general path.
    y = x[cells[0]].copy()
    for cell in cells[1:]:
        np.maximum(x[cell], y, out=y)
    return y


def tiled_max(x: np.ndarray, ksizes, strides, pads, outs) -> np.ndarray | None:
    """Max pooling of windows that tile ``x``; None when they do not tile it or a window
    holds NaN (the general path skips NaN as TensorFlow does)."""
    y = pooling_native.max_pool(x, ksizes, strides, pads, outs)
    if y is not None:
        return y
    cells = _tile_taps(x, ksizes, strides, pads, outs)
    if cells is None:
        return None
    y = _tiled_max(x, cells)
    if x.dtype.kind == "f" and np.isnan(y).any():
        return None
    return y


# MaxPoolGrad reads x twice (the window maxima, then each tap's comparison with them):
# a chunk of images this size is still in the core's cache for the second read. 32x28x28x32
# float32 with the input not in cache: 2.9 ms at once, 1.0 ms in chunks of 4 images.
_GRAD_CHUNK_BYTES = 1 << 19


def tiled_max_grad(x: np.ndarray, dy: np.ndarray, ksizes, strides, pads,
                   outs) -> np.ndarray | None:
    """MaxPoolGrad for windows that tile ``x``: each output's gradient at the first maximal
    cell of its window in row-major scan, as TensorFlow picks it. None where the general
    path is needed (windows that do not tile, NaN in x, non-finite gradients: a 0 * inf
    must not turn into NaN)."""
    dx = pooling_native.max_pool_grad(x, dy, ksizes, strides, pads, outs)
    if dx is not None:
        return dx
    cells = _tile_taps(x, ksizes, strides, pads, outs)
    if cells is None:
        return None
    dx = np.empty(x.shape, dy.dtype)
    n = x.shape[0]
    step = max(1, _GRAD_CHUNK_BYTES // max(1, x[:1].nbytes))
    for start in range(0, n, step):
        sub = slice(start, min(start + step, n))
        if not _tiled_max_grad_chunk(x[sub], dy[sub], dx[sub], cells):
            return None
    return dx


def _tiled_max_grad_chunk(x: np.ndarray, dy: np.ndarray, dx: np.ndarray,
                          cells: list[tuple]) -> bool:
    """Writes a chunk of images' gradient into ``dx``; False if the general path is needed."""
    y = _tiled_max(x, cells)
    if x.dtype.kind == "f" and (np.isnan(y).any() or not np.isfinite(dy).all()):
        return False
    # Every input cell is one tap of one window, so each tap's strided slab of dx is
    # written once: dy where the tap is the window's first maximum, else 0 (as dy * 0 here,
    # made +0.0 below).
    free = None  # windows whose maximum no earlier tap holds
    last = len(cells) - 1
    for i, cell in enumerate(cells):  # ties: only the first maximal cell in scan order
        first = np.equal(x[cell], y)
        if free is None:
            if i < last:
                free = np.logical_not(first)
        else:
            np.logical_and(first, free, out=first)
            if i < last:
                np.logical_xor(free, first, out=free)  # first is within free: free & ~first
        np.multiply(dy, first, out=dx[cell])
    if dx.dtype.kind == "f":
        # TensorFlow adds each gradient into a zeroed dx: 0.0 where dy * 0 gave -0.0 (a
        # negative dy at another cell), and at the maximum a -0.0 gradient lands as 0.0.
        dx += 0
    return True


def max_pool_grad(in_shape: Sequence[int], arg: np.ndarray, grad: np.ndarray, ksizes,
                  strides, pads) -> np.ndarray:
    """Each output's gradient added at its maximal input cell."""
    idx = flat_index(arg, in_shape, ksizes, strides, pads)
    total = prod(in_shape)
    if grad.dtype.kind == "f":
        out = np.bincount(idx.ravel(), weights=grad.ravel().astype(np.float64),
                          minlength=total)
    else:
        out = np.zeros(total, np.int64)
        np.add.at(out, idx.ravel(), grad.ravel())
    return out.astype(grad.dtype).reshape(in_shape)


def max_pool_grad_grad(in_shape: Sequence[int], arg: np.ndarray, grad: np.ndarray, ksizes,
                       strides, pads) -> np.ndarray:
    """The input-shaped ``grad`` read at each output's maximal cell."""
    idx = flat_index(arg, in_shape, ksizes, strides, pads)
    return grad.reshape(-1)[idx]


def valid_counts(in_spatial, ksizes, strides, pads, outs) -> np.ndarray:
    """Per output position, the number of unpadded cells its window covers (``[1, *outs,
    1]``): a product over the dims of each dim's count."""
    total = np.ones([1] * (len(outs) + 2), np.float64)
    for i, (n, k, s, (b, _), o) in enumerate(zip(in_spatial, ksizes, strides, pads, outs)):
        start = np.arange(o) * s - b
        count = np.minimum(start + k, n) - np.maximum(start, 0)
        shape = [1] * (len(outs) + 2)
        shape[1 + i] = o
        total = total * count.reshape(shape)
    return total


def avg_pool(x: np.ndarray, ksizes, strides, pads, outs) -> np.ndarray:
    ones = [1] * len(ksizes)
    xp = pad_spatial(x.astype(np.float64), pads)
    acc = np.zeros((x.shape[0], *outs, x.shape[-1]), np.float64)
    for tap in taps(ksizes):
        acc += xp[tap_slice(tap, strides, ones, outs)]
    acc /= valid_counts(x.shape[1:-1], ksizes, strides, pads, outs)
    return acc.astype(x.dtype)


def avg_pool_grad(in_shape: Sequence[int], grad: np.ndarray, ksizes, strides, pads,
                  outs) -> np.ndarray:
    ones = [1] * len(ksizes)
    share = grad.astype(np.float64) / valid_counts(in_shape[1:-1], ksizes, strides, pads, outs)
    n, *spatial, c = in_shape
    dxp = np.zeros((n, *[s + b + a for s, (b, a) in zip(spatial, pads)], c), np.float64)
    for tap in taps(ksizes):
        dxp[tap_slice(tap, strides, ones, outs)] += share
    return crop(dxp, pads, spatial).astype(grad.dtype)
