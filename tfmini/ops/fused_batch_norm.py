"""Fused batch normalisation: FusedBatchNorm, V2, V3 and their gradient ops.

Each op reads as in the other families: its registration (TensorFlow's OpDef, with the
shape function), then its NumPy kernel; the gradient functions (first and second order)
and ``tf.compat.v1.nn.fused_batch_norm`` follow.

Semantics are those of TensorFlow's CPU kernels (see TF_SEMANTICS.md section 3): the
normalisation uses the biased batch variance, the ``batch_variance`` output is
Bessel-corrected, ``exponential_avg_factor`` blends the running statistics, and the
reserve spaces hold the batch mean and the biased variance (training) or the given mean
and variance (inference, where TensorFlow leaves them unspecified).

How the kernels are made fast and lean. A batch norm is memory bound: the work per element
is a handful of flops, the cost is streaming ``x`` (and ``dy``) through the CPU. The kernels
walk the tensor in blocks of 128K values (512 KB of float32, so a block and its scratch stay
in the L2 cache) and do everything a pass needs to a block while it is cached. Channels-last
data is viewed as rows of about 1024 values (whole pixels), so NumPy's inner loops are long
and per-channel vectors are tiled to the row; channels-first data is viewed as [N, C, M].
Per-block sums (``np.sum`` / ``np.einsum`` with ``out=``) land in preallocated arrays and are
folded to float64 per-channel totals once. The training forward reads ``x`` twice
(statistics, then ``y``), the training gradient reads ``x`` and ``dy`` twice (sums, then
``dx``); outputs are written straight into their final arrays and no temporary as large as
``x`` is made. Blocks are shared among a few threads (NumPy releases the GIL in its loops).
Variances are centred per group of values and merged exactly (Chan et al.), and the
elementwise passes centre on the mean whenever a mean lies far out in standard deviations
(see :func:`_can_fold`), so a spread tiny next to the mean keeps TensorFlow's accuracy.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import RegisterGradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import shape_fns
from tfmini.ops.kernel_util import invalid_argument

# TensorFlow's T is {half, bfloat16, float}; tfmini has no bfloat16. U is float32 on CPU.
_T_TYPES = "half, float"
_FORMATS_4D = "{'NHWC', 'NCHW'}"
_FORMATS_5D = "{'NHWC', 'NCHW', 'NDHWC', 'NCDHW'}"
_COMMON_ATTRS = ["epsilon: float = 0.0001"]
_MODE_ATTRS = ["is_training: bool = true"]

# Values per block: 128K float32 is 512 KB, which fits the L2 cache with its scratch.
_BLOCK_ELEMENTS = 1 << 17

_F32 = np.dtype(np.float32)


# ----------------------------------------------------------------------------------------
# Shape functions (TensorFlow's FusedBatchNormShape / FusedBatchNormGradShape).


def _format_rank(data_format: str) -> int:
    return 5 if data_format in ("NDHWC", "NCDHW") else 4


def _channel_index(data_format: str, rank: int) -> int:
    return 1 if data_format[1] == "C" else rank - 1


def _with_channel(shape: TensorShape, rank: int, index: int, channels: int | None):
    dims = [None] * rank if shape.dims is None else list(shape.dims)
    dims[index] = channels
    return TensorShape(dims)


def _fused_batch_norm_shape(ic) -> list[TensorShape]:
    data_format = ic.attrs["data_format"]
    rank = _format_rank(data_format)
    x = shape_fns.with_rank(ic.input_shape(0), rank)
    index = _channel_index(data_format, rank)
    channels = x.dims[index]
    # In training with factor 1 the mean and variance inputs are not read, so any shape goes.
    uses_stats = not ic.attrs["is_training"] or ic.attrs["exponential_avg_factor"] != 1.0
    for i in range(1, 5 if uses_stats else 3):
        vec = shape_fns.with_rank(ic.input_shape(i), 1)
        channels = shape_fns.merge_dim(channels, vec.dims[0])
    vector = TensorShape([channels])
    shapes = [_with_channel(x, rank, index, channels)] + [vector] * 4
    if len(ic.op_def.outputs) == 6:
        shapes.append(unknown_shape())  # reserve_space_3: TensorFlow leaves it unknown
    return shapes


def _fused_batch_norm_grad_shape(ic) -> list[TensorShape]:
    data_format = ic.attrs["data_format"]
    rank = _format_rank(data_format)
    dy = shape_fns.with_rank(ic.input_shape(0), rank)
    x = shape_fns.with_rank(ic.input_shape(1), rank)
    index = _channel_index(data_format, rank)
    channels = shape_fns.merge_dim(dy.dims[index], x.dims[index])
    for i in range(2, 5):  # scale, reserve_space_1, reserve_space_2
        vec = shape_fns.with_rank(ic.input_shape(i), 1)
        channels = shape_fns.merge_dim(channels, vec.dims[0])
    vector = TensorShape([channels])
    return [_with_channel(dy, rank, index, channels), vector, vector,
            as_shape([0]), as_shape([0])]


# ----------------------------------------------------------------------------------------
# Blocked per-channel arithmetic.


class _Segment:
    """A contiguous run of ``x`` seen as rows, walked in cache-sized blocks of rows.

    Channels last: rows of ``tile`` whole pixels (``tile * C`` values), so NumPy's inner
    loops run over thousands of values rather than C; a per-channel vector is tiled to the
    row's length and column sums are folded back to channels at the end. Channels first:
    the view is ``[N, C, M]`` (M the spatial size), a per-channel vector broadcasts as
    ``[C, 1]`` and sums over M give ``[N, C]``.

    Per-block sums go into preallocated arrays (one row per block, or one per image for
    channels first) and are folded to per-channel float64 totals once, at the end, so each
    block costs a few NumPy calls and no small-array bookkeeping.
    """

    def __init__(self, start: int, stop: int, shape: tuple[int, ...], channels: int,
                 tile: int, channels_first: bool):
        self.start, self.stop, self.shape = start, stop, shape
        self.channels, self.tile, self.channels_first = channels, tile, channels_first
        per_row = max(1, int(np.prod(shape[1:], dtype=np.int64)))
        self.step = max(1, _BLOCK_ELEMENTS // per_row)
        self.slices = [slice(i, min(i + self.step, shape[0]))
                       for i in range(0, shape[0], self.step)]

    def view(self, flat: np.ndarray) -> np.ndarray:
        return flat[self.start:self.stop].reshape(self.shape)

    def vec(self, v: np.ndarray) -> np.ndarray:
        """A float32 per-channel vector shaped (or tiled) to broadcast against a block."""
        if self.channels_first:
            return v[:, None]
        return np.tile(v, self.tile) if self.tile > 1 else v

    def per_group(self, v: np.ndarray) -> np.ndarray:
        """A per-channel vector broadcastable against a :meth:`partials`-shaped array."""
        return np.tile(v, self.tile) if not self.channels_first and self.tile > 1 else v

    def partials(self) -> np.ndarray:
        """An array for per-block float32 sums: ``[blocks, row]`` or ``[N, C]``."""
        if self.channels_first:
            return np.empty(self.shape[:2], _F32)
        return np.empty((len(self.slices), self.shape[1]), _F32)

    def partial(self, arr: np.ndarray, i: int, sl: slice) -> np.ndarray:
        return arr[sl] if self.channels_first else arr[i]

    def sum_into(self, b: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Sums of a block over rows (channels last) or over M (channels first)."""
        return np.sum(b, axis=2 if self.channels_first else 0, out=out)

    def dot_into(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Sums of a * b, like :meth:`sum_into`, without a temporary."""
        spec = "ncm,ncm->nc" if self.channels_first else "ij,ij->j"
        return np.einsum(spec, a, b, out=out)

    def group_counts(self) -> np.ndarray:
        """How many values each entry of :meth:`partials` sums, as float64 of its shape."""
        if self.channels_first:
            return np.full(self.shape[:2], float(self.shape[2]))
        rows = np.array([sl.stop - sl.start for sl in self.slices], np.float64)
        return np.broadcast_to(rows[:, None], (len(self.slices), self.shape[1]))

    def fold(self, arr: np.ndarray) -> np.ndarray:
        """Per-channel float64 totals of a :meth:`partials`-shaped array."""
        return arr.reshape(-1, self.channels).sum(0, dtype=np.float64)


class _Scratch:
    """Float32 scratch blocks of one worker, reused for every block (so they stay in cache)."""

    def __init__(self):
        self._bufs: dict[tuple, np.ndarray] = {}

    def get(self, seg: _Segment, rows: int, slot: int = 0) -> np.ndarray:
        key = (seg.shape[1:], slot)
        buf = self._bufs.get(key)
        if buf is None:
            buf = self._bufs[key] = np.empty((seg.step,) + seg.shape[1:], _F32)
        return buf[:rows]

    def f32(self, seg: _Segment, block: np.ndarray, slot: int) -> np.ndarray:
        """The block in float32 (half blocks are widened into scratch ``slot``)."""
        if block.dtype == _F32:
            return block
        out = self.get(seg, block.shape[0], slot)
        np.copyto(out, block)
        return out


# Large tensors are split over a few threads: NumPy and BLAS release the GIL inside their
# loops, and one core alone cannot draw the memory bandwidth a batch norm needs.
_PARALLEL_MIN_ELEMENTS = 1 << 18
_MAX_WORKERS = max(1, min(4, os.cpu_count() or 1))
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_MAX_WORKERS - 1, thread_name_prefix="tfmini-bn")
        return _pool


class _Blocks:
    """``x`` as segments of cache-sized blocks, and a parallel loop over them."""

    # Channels-last rows hold about this many values (a multiple of C).
    ROW_VALUES = 1024

    def __init__(self, shape: tuple[int, ...], channels_first: bool):
        size = int(np.prod(shape, dtype=np.int64))
        self.segments: list[_Segment] = []
        if channels_first:
            c = shape[1]
            m = int(np.prod(shape[2:], dtype=np.int64))
            if size:
                self.segments.append(_Segment(0, size, (shape[0], c, m), c, 1, True))
        else:
            c = shape[-1]
            if size:
                rows = size // c
                tile = max(1, min(rows, self.ROW_VALUES // c))
                bulk = rows - rows % tile
                if bulk:
                    self.segments.append(_Segment(0, bulk * c, (bulk // tile, tile * c), c,
                                                  tile, False))
                if bulk < rows:
                    self.segments.append(_Segment(bulk * c, size, (rows - bulk, c), c, 1,
                                                  False))
        self.channels = c
        self.tasks = [(seg, i, sl) for seg in self.segments for i, sl in enumerate(seg.slices)]
        self.workers = 1
        if size >= _PARALLEL_MIN_ELEMENTS and _MAX_WORKERS > 1:
            self.workers = min(_MAX_WORKERS, len(self.tasks))

    def run(self, fn: Callable) -> None:
        """Calls ``fn(seg, i, sl, scratch)`` for every block, spread over the workers.

        Worker w takes blocks w, w + workers, ...: neighbours stream neighbouring memory,
        and each block writes only its own output rows and partial sums, so no locking.
        """
        nw = self.workers

        def part(w: int) -> None:
            scratch = _Scratch()
            for seg, i, sl in self.tasks[w::nw]:
                fn(seg, i, sl, scratch)

        if nw == 1:
            part(0)
            return
        pool = _get_pool()
        futures = [pool.submit(part, w) for w in range(1, nw)]
        try:
            part(0)
        finally:
            for f in futures:
                f.result()


def _batch_moments(blocks: _Blocks, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and biased variance (float64) of a non-empty ``x``, in one pass.

    Each group of values (a block's column, or an image's channel) is centred on its own
    float32 mean ``a`` while it is in cache; the groups are merged exactly with
    sum((x-m)^2) = sum((x-a)^2) - 2(m-a) sum(x-a) + n_g (m-a)^2, so a mean far from 0
    does not cancel the variance away.
    """
    parts = {id(seg): (seg.view(flat), seg.partials(), seg.partials())
             for seg in blocks.segments}

    def block(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
        xs, sums, squares = parts[id(seg)]
        b = scratch.f32(seg, xs[sl], 1)
        s = seg.sum_into(b, seg.partial(sums, i, sl))
        if seg.channels_first:
            a = (s / _F32.type(b.shape[2]))[..., None]
        else:
            a = s / _F32.type(b.shape[0])
        d = np.subtract(b, a, out=scratch.get(seg, b.shape[0]))
        seg.dot_into(d, d, seg.partial(squares, i, sl))

    blocks.run(block)
    total = n = 0.0
    for seg in blocks.segments:
        _, sums, _ = parts[id(seg)]
        total = total + seg.fold(sums)
        n += float(seg.group_counts().sum()) / blocks.channels
    mean = total / n
    m2 = 0.0
    for seg in blocks.segments:
        _, sums, squares = parts[id(seg)]
        counts = seg.group_counts()
        # The centres, recomputed exactly as the blocks computed them.
        centres = (sums / counts.astype(_F32)).astype(np.float64)
        s = sums.astype(np.float64)
        shift = seg.per_group(mean) - centres
        m2 = m2 + seg.fold(squares.astype(np.float64) - 2 * shift * (s - counts * centres)
                           + counts * shift * shift)
    return mean, np.maximum(m2, 0.0) / n


def _can_fold(mean: np.ndarray, r: np.ndarray) -> bool:
    """Whether x * k - mean * k may stand for (x - mean) * k: true when every channel's mean
    is within _FOLD_LIMIT standard deviations of 0, where the folded form loses less than
    2 * _FOLD_LIMIT float32 ulps of the result, the float32 rounding TensorFlow's own saved
    mean already carries, and saves one pass over the data. Otherwise (a spread tiny next
    to the mean, as with a small epsilon) the kernels centre first, as TensorFlow does."""
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.all(np.abs(mean) * r <= _FOLD_LIMIT))


_FOLD_LIMIT = 64.0


def _normalize(blocks: _Blocks, flat_x: np.ndarray, flat_y: np.ndarray, mean: np.ndarray,
               mult: np.ndarray, offset: np.ndarray, fold: bool) -> None:
    """y = (x - mean) * mult + offset per channel (float64 vectors), block by block."""
    if fold:
        vectors = (mult.astype(_F32), (offset - mean * mult).astype(_F32))
    else:
        vectors = (mean.astype(_F32), mult.astype(_F32), offset.astype(_F32))
    parts = {id(seg): (seg.view(flat_x), seg.view(flat_y), [seg.vec(v) for v in vectors])
             for seg in blocks.segments}

    def block(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
        xs, ys, vecs = parts[id(seg)]
        b = scratch.f32(seg, xs[sl], 1)
        y = ys[sl]
        out = y if y.dtype == _F32 else scratch.get(seg, b.shape[0])
        if fold:
            np.multiply(b, vecs[0], out=out)
        else:
            np.subtract(b, vecs[0], out=out)
            np.multiply(out, vecs[1], out=out)
        np.add(out, vecs[-1], out=y)  # float32 -> half rounds here, once

    blocks.run(block)


def _rsqrt(v: np.ndarray, epsilon: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(v + np.float64(epsilon))


def _check_forward(x, scale, offset, mean, variance, data_format, is_training, factor) -> int:
    if x.ndim not in (4, 5):
        raise invalid_argument(f"input must be 4 or 5-dimensional{dims_str(x.shape)}")
    for value, what in ((scale, "scale"), (offset, "offset"), (mean, "estimated_mean"),
                        (variance, "estimated_variance")):
        if value.ndim != 1:
            raise invalid_argument(f"{what} must be 1-dimensional{dims_str(value.shape)}")
    channels = x.shape[_channel_index(data_format, x.ndim)]
    for value, what in ((scale, "scale"), (offset, "offset")):
        if value.size != channels:
            raise invalid_argument(
                f"{what} must have the same number of elements as the channels of x, got "
                f"{value.size} and {channels}"
            )
    if not is_training or factor != 1.0:
        prefix = "When exponential_avg_factor != 1" if is_training else "When is_training=false"
        for value, what in ((mean, "mean"), (variance, "variance")):
            if value.size != channels:
                raise invalid_argument(
                    f"{prefix}, {what} must have the same number of elements as the channels "
                    f"of x, got {value.size} and {channels}"
                )
    return channels


def _fused_batch_norm(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                      data_format, is_training):
    """Forward batch norm: (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2)."""
    factor = exponential_avg_factor
    channels = _check_forward(x, scale, offset, mean, variance, data_format, is_training,
                              factor)
    u = scale.dtype
    x = np.ascontiguousarray(x)
    blocks = _Blocks(x.shape, data_format[1] == "C")
    y = np.empty(x.shape, x.dtype)
    count = x.size // channels if channels else 0
    if is_training:
        if count:
            batch_mean, batch_var = _batch_moments(blocks, x.reshape(-1))
        else:
            batch_mean = batch_var = np.full(channels, np.nan)
        pop_mean, pop_var = batch_mean, batch_var
        corrected = batch_var * (count / max(count - 1, 1))
        if factor != 1.0:
            f = np.float64(factor)
            out_mean = (1 - f) * mean.astype(np.float64) + f * batch_mean
            out_var = (1 - f) * variance.astype(np.float64) + f * corrected
        else:
            out_mean, out_var = batch_mean, corrected
        reserve = (batch_mean.astype(u), batch_var.astype(u))
    else:
        pop_mean, pop_var = mean.astype(np.float64), variance.astype(np.float64)
        out_mean, out_var = pop_mean, pop_var
        if not count:  # TensorFlow's kernels report NaN statistics for an empty batch
            out_mean = out_var = np.full(channels, np.nan)
        reserve = (mean.astype(u, copy=True), variance.astype(u, copy=True))
    if count:
        r = _rsqrt(pop_var, epsilon)
        _normalize(blocks, x.reshape(-1), y.reshape(-1), pop_mean,
                   scale.astype(np.float64) * r, offset.astype(np.float64),
                   _can_fold(pop_mean, r))
    return [y, out_mean.astype(u), out_var.astype(u), *reserve]


def _check_grad(y_backprop, x, scale, mean, variance, data_format) -> int:
    for value in (y_backprop, x):
        if value.ndim not in (4, 5):
            raise invalid_argument(f"input must be 4 or 5-dimensional{dims_str(value.shape)}")
    for value, what in ((scale, "scale"), (mean, "saved mean"), (variance, "saved variance")):
        if value.ndim != 1:
            raise invalid_argument(f"{what} must be 1-dimensional{dims_str(value.shape)}")
    if x.shape != y_backprop.shape:
        raise invalid_argument(
            f"x and y_backprop must have same shape, but x has shape {dims_str(x.shape)} and "
            f"y_backprop has shape {dims_str(y_backprop.shape)}"
        )
    channels = x.shape[_channel_index(data_format, x.ndim)]
    for value, what in ((scale, "scale"), (mean, "reserve_space_1"),
                        (variance, "reserve_space_2")):
        if value.size != channels:
            raise invalid_argument(
                f"{what} must have the same number of elements as the channels of x, got "
                f"{value.size} and {channels}"
            )
    return channels


def _fused_batch_norm_grad(y_backprop, x, scale, mean, variance, *, epsilon, data_format,
                           is_training):
    """Batch norm gradient: (x_backprop, scale_backprop, offset_backprop, empty, empty).

    Training: mean/variance are the batch statistics saved by the forward op and
    dx = scale*r*(dy - mean(dy) - xhat*mean(dy*xhat)), r = 1/sqrt(variance + epsilon).
    Inference: they are the population statistics the forward op used and dx = dy*scale*r.
    """
    channels = _check_grad(y_backprop, x, scale, mean, variance, data_format)
    u = np.dtype(mean.dtype)
    empty = np.zeros(0, u)
    dx = np.empty(x.shape, x.dtype)
    if x.size == 0:
        zeros = np.zeros(channels, u)
        return [dx, zeros, zeros.copy(), empty, empty.copy()]
    x = np.ascontiguousarray(x)
    y_backprop = np.ascontiguousarray(y_backprop)
    blocks = _Blocks(x.shape, data_format[1] == "C")
    fx, fdy, fdx = x.reshape(-1), y_backprop.reshape(-1), dx.reshape(-1)
    count = x.size // channels
    r = _rsqrt(variance.astype(np.float64), epsilon)
    k1 = scale.astype(np.float64) * r  # dx = k1 * dy (+ the training terms)
    k1_32 = k1.astype(_F32)
    mu = mean.astype(np.float64)
    fold = _can_fold(mu, r)
    mu_32 = mu.astype(_F32)
    parts = {id(seg): (seg.view(fx), seg.view(fdy), seg.view(fdx), seg.vec(mu_32),
                       seg.vec(k1_32), seg.partials(), seg.partials())
             for seg in blocks.segments}

    def sums(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
        xs, dys, dxs, m, k, sum_g, sum_gd = parts[id(seg)]
        b = scratch.f32(seg, xs[sl], 1)
        g = scratch.f32(seg, dys[sl], 2)
        if not is_training:
            np.multiply(g, k, out=dxs[sl])  # inference: one pass does it all
        seg.sum_into(g, seg.partial(sum_g, i, sl))
        if not fold:  # sum(dy * (x - mean)), centred as in TensorFlow
            b = np.subtract(b, m, out=scratch.get(seg, b.shape[0]))
        seg.dot_into(b, g, seg.partial(sum_gd, i, sl))

    blocks.run(sums)
    sum_dy = sum(seg.fold(parts[id(seg)][5]) for seg in blocks.segments)
    sum_dy_xc = sum(seg.fold(parts[id(seg)][6]) for seg in blocks.segments)
    if fold:  # sum(dy * x) - mean * sum(dy)
        sum_dy_xc = sum_dy_xc - mu * sum_dy
    scale_backprop = sum_dy_xc * r
    if is_training:
        # dx = k1 * (dy - mean(dy)) + k2 * (x - mean) = k1 * dy + k2 * x + k3.
        k2 = -k1 * r * r * (sum_dy_xc / count)
        mean_dy = sum_dy / count
        if fold:
            vectors = (k2, -k1 * mean_dy - k2 * mu)
        else:
            vectors = (k2, mean_dy)
        more = {id(seg): [seg.vec(v.astype(_F32)) for v in vectors] for seg in blocks.segments}

        def backprop(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
            xs, dys, dxs, m, k = parts[id(seg)][:5]
            v2, v3 = more[id(seg)]
            b = scratch.f32(seg, xs[sl], 1)
            g = scratch.f32(seg, dys[sl], 2)
            rows = b.shape[0]
            dx_block = dxs[sl]
            out = dx_block if dx_block.dtype == _F32 else scratch.get(seg, rows, 3)
            t = scratch.get(seg, rows)
            if fold:
                np.multiply(b, v2, out=out)
                np.add(out, v3, out=out)
                np.multiply(g, k, out=t)
            else:
                np.subtract(b, m, out=out)
                np.multiply(out, v2, out=out)
                np.subtract(g, v3, out=t)
                np.multiply(t, k, out=t)
            np.add(out, t, out=dx_block)  # float32 -> half rounds here, once

        blocks.run(backprop)
    return [dx, scale_backprop.astype(u), sum_dy.astype(u), empty, empty.copy()]


# ----------------------------------------------------------------------------------------
# Forward ops


def _forward_kernel(with_reserve_space_3: bool):
    def kernel(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
               data_format, is_training):
        outputs = _fused_batch_norm(
            x, scale, offset, mean, variance, epsilon=epsilon,
            exponential_avg_factor=exponential_avg_factor, data_format=data_format,
            is_training=is_training,
        )
        if with_reserve_space_3:
            # TensorFlow's CPU kernel has no use for a third reserve space: a float 0.
            outputs.append(np.zeros((), _F32))
        return outputs

    return kernel


_FORWARD_ATTRS = [*_COMMON_ATTRS, "exponential_avg_factor: float = 1.0"]
_FORWARD_DOC = (
    "Batch normalisation over every axis but the channel axis. Training: y uses the batch "
    "mean and biased variance, batch_variance is Bessel-corrected, both blended with "
    "mean/variance by exponential_avg_factor. Inference: y uses mean and variance."
)

register_op(
    "FusedBatchNorm",
    inputs=["x: T", "scale: T", "offset: T", "mean: T", "variance: T"],
    outputs=["y: T", "batch_mean: T", "batch_variance: T", "reserve_space_1: T",
             "reserve_space_2: T"],
    attrs=["T: {float}", *_FORWARD_ATTRS, f"data_format: {_FORMATS_4D} = 'NHWC'",
           *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC,
)(_forward_kernel(False))

register_op(
    "FusedBatchNormV2",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
             "reserve_space_2: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_FORWARD_ATTRS,
           f"data_format: {_FORMATS_4D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC,
)(_forward_kernel(False))

register_op(
    "FusedBatchNormV3",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
             "reserve_space_2: U", "reserve_space_3: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_FORWARD_ATTRS,
           f"data_format: {_FORMATS_5D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_shape,
    doc=_FORWARD_DOC + " reserve_space_3 is a float 0 on CPU.",
)(_forward_kernel(True))


# ----------------------------------------------------------------------------------------
# Gradient ops


def _grad_kernel(with_reserve_space_3: bool):
    if with_reserve_space_3:
        def kernel(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *,
                   epsilon, data_format, is_training):
            # reserve_space_3 is the forward op's unused dummy: any value is accepted.
            return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1,
                                          reserve_space_2, epsilon=epsilon,
                                          data_format=data_format, is_training=is_training)
    else:
        def kernel(y_backprop, x, scale, reserve_space_1, reserve_space_2, *, epsilon,
                   data_format, is_training):
            return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1,
                                          reserve_space_2, epsilon=epsilon,
                                          data_format=data_format, is_training=is_training)
    return kernel


_GRAD_DOC = (
    "Gradients of FusedBatchNorm* for x, scale and offset, from the forward op's saved "
    "batch statistics (training) or its population mean and variance (inference); the last "
    "two outputs are empty placeholders."
)

register_op(
    "FusedBatchNormGrad",
    inputs=["y_backprop: T", "x: T", "scale: T", "reserve_space_1: T", "reserve_space_2: T"],
    outputs=["x_backprop: T", "scale_backprop: T", "offset_backprop: T", "reserve_space_3: T",
             "reserve_space_4: T"],
    attrs=["T: {float}", *_COMMON_ATTRS, f"data_format: {_FORMATS_4D} = 'NHWC'",
           *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(False))

register_op(
    "FusedBatchNormGradV2",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_3: U",
             "reserve_space_4: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_COMMON_ATTRS,
           f"data_format: {_FORMATS_4D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(False))

register_op(
    "FusedBatchNormGradV3",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U", "reserve_space_3: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_4: U",
             "reserve_space_5: U"],
    attrs=[f"T: {{{_T_TYPES}}}", "U: {float}", *_COMMON_ATTRS,
           f"data_format: {_FORMATS_5D} = 'NHWC'", *_MODE_ATTRS],
    shape_fn=_fused_batch_norm_grad_shape,
    doc=_GRAD_DOC,
)(_grad_kernel(True))


# ----------------------------------------------------------------------------------------
# Gradients of the forward ops (TensorFlow's nn_grad._BaseFusedBatchNormGrad).

_GRAD_OP = {"FusedBatchNorm": "FusedBatchNormGrad", "FusedBatchNormV2": "FusedBatchNormGradV2",
            "FusedBatchNormV3": "FusedBatchNormGradV3"}
_TO_CHANNELS_LAST = {"NCHW": [0, 2, 3, 1], "NCDHW": [0, 2, 3, 4, 1]}
_TO_CHANNELS_FIRST = {"NCHW": [0, 3, 1, 2], "NCDHW": [0, 4, 1, 2, 3]}


def _op(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs, name=name)


def _transpose(x: Output, perm: list[int]) -> Output:
    return _op("Transpose", [x, np.asarray(perm, np.int32)], name="transpose").outputs[0]


def _fused_batch_norm_backprop(op, *grads):
    """dx, dscale, doffset from the forward op; none for mean and variance.

    Only the gradient of ``y`` is used, as in TensorFlow. Training feeds the grad op the
    reserve spaces; inference feeds it the mean/variance inputs, in NHWC/NDHWC (channels-first
    tensors are transposed there and back, as TensorFlow does).
    """
    x, scale = op.inputs[0], op.inputs[1]
    grad_y = grads[0]
    data_format = op.attrs["data_format"]
    is_training = op.attrs["is_training"]
    attrs = {"epsilon": op.attrs["epsilon"], "data_format": data_format,
             "is_training": is_training}
    v3 = op.type == "FusedBatchNormV3"
    if is_training:
        inputs = [grad_y, x, scale, op.outputs[3], op.outputs[4]]
    else:
        if data_format in _TO_CHANNELS_LAST:
            x = _transpose(x, _TO_CHANNELS_LAST[data_format])
            grad_y = _transpose(grad_y, _TO_CHANNELS_LAST[data_format])
        attrs["data_format"] = "NDHWC" if data_format in ("NDHWC", "NCDHW") else "NHWC"
        inputs = [grad_y, x, scale, op.inputs[3], op.inputs[4]]
    if v3:
        inputs.append(op.outputs[5])
    dx, dscale, doffset = _op(_GRAD_OP[op.type], inputs, attrs).outputs[:3]
    if not is_training and data_format in _TO_CHANNELS_FIRST:
        dx = _transpose(dx, _TO_CHANNELS_FIRST[data_format])
    return [dx, dscale, doffset, None, None]


for _forward in _GRAD_OP:
    RegisterGradient(_forward)(_fused_batch_norm_backprop)


# ----------------------------------------------------------------------------------------
# Second-order gradients: the gradients of TensorFlow's _BatchNormGrad (the grad op's maths
# written with ordinary ops) in closed form, built from ordinary ops.


def _bn_grad_grad(op, *grads):
    """Gradients of FusedBatchNormGrad* for y_backprop, x and scale.

    With n values per channel, xhat = (x - mean) r, r = 1/sqrt(var + epsilon) (mean and
    var recomputed from x in training, as TensorFlow's _BatchNormGrad does), gx, gs, go the
    incoming gradients of x_backprop, scale_backprop, offset_backprop, P(w) = w - mean(w)
    - xhat mean(w xhat), g = y_backprop, s = scale:

    * training: d/dg = s r P(gx) + gs xhat + go; d/ds = sum(gx r P(g));
      d/dx = gs r P(g) - s r^2 [(mean(gx (g - mean(g))) - m B) xhat + B P(g) + m P(gx)],
      where m = mean(g xhat) and B = mean(gx xhat);
    * inference (population mean/var): d/dg = gx s r + gs (x - mean) r + go;
      d/dx = gs g r; d/ds = sum(gx g r).

    Reserve-space inputs get no gradient, as in TensorFlow.
    """
    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    ggx, ggs, ggo = grads[0], grads[1], grads[2]
    data_format = op.attrs["data_format"]
    epsilon = op.attrs["epsilon"]
    rank = _format_rank(data_format)
    channels_first = data_format[1] == "C"
    axes = np.array([i for i in range(rank) if i != _channel_index(data_format, rank)],
                    np.int32)
    x_dtype = x.dtype
    half = x_dtype != dtypes.float32

    def f32(t: Output) -> Output:
        return _op("Cast", [t], {"DstT": dtypes.float32}).outputs[0] if half else t

    def channel(v: Output) -> Output:
        # Per-channel vectors broadcast against channels-last tensors as they are.
        if not channels_first:
            return v
        shape = np.array([1, -1] + [1] * (rank - 2), np.int32)
        return _op("Reshape", [v, shape]).outputs[0]

    def mean(t: Output) -> Output:
        return _op("Mean", [t, axes], {"keep_dims": True}).outputs[0]

    def total(t: Output) -> Output:
        return _op("Sum", [t, axes], {"keep_dims": False}).outputs[0]

    g, xs, gx = f32(grad_y), f32(x), f32(ggx)
    s, gs, go = channel(scale), channel(ggs), channel(ggo)
    if op.attrs["is_training"]:
        xc = xs - mean(xs)
        r = _op("Rsqrt", [mean(_op("Square", [xc]).outputs[0]) + epsilon]).outputs[0]
        xhat = xc * r

        def project(w: Output) -> Output:
            return w - mean(w) - xhat * mean(w * xhat)

        m = mean(g * xhat)
        b = mean(gx * xhat)
        a = mean(gx * (g - mean(g)))
        pg = project(g)
        d_grad_y = s * r * project(gx) + gs * xhat + go
        d_scale = total(gx * r * pg)
        d_x = gs * r * pg - s * r * r * ((a - m * b) * xhat + b * pg + m * project(gx))
    else:
        r = _op("Rsqrt", [channel(pop_var) + epsilon]).outputs[0]
        d_grad_y = gx * s * r + gs * (xs - channel(pop_mean)) * r + go
        d_x = gs * g * r
        d_scale = total(gx * g * r)
    if half:
        d_grad_y = _op("Cast", [d_grad_y], {"DstT": x_dtype}).outputs[0]
        d_x = _op("Cast", [d_x], {"DstT": x_dtype}).outputs[0]
    return [d_grad_y, d_x, d_scale] + [None] * (len(op.inputs) - 3)


for _grad in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    RegisterGradient(_grad)(_bn_grad_grad)


# ----------------------------------------------------------------------------------------
# tf.compat.v1.nn.fused_batch_norm


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC",
                     is_training: bool = True, name: str | None = None,
                     exponential_avg_factor: float = 1.0):
    """Batch normalisation with one FusedBatchNormV3 op (``tf.compat.v1.nn.fused_batch_norm``).

    Args:
        x: A 4-D (or, with ``NDHWC``/``NCDHW``, 5-D) half or float32 tensor.
        scale: The per-channel scale (float32, length C).
        offset: The per-channel offset (float32, length C).
        mean: The population mean for inference, or the running mean blended with the batch
            mean when ``exponential_avg_factor`` != 1; may be None in plain training.
        variance: Like ``mean``, for the variance.
        epsilon: Added to the variance; used as given (TensorFlow 2 does not clamp it).
        data_format: ``NHWC``, ``NCHW``, ``NDHWC`` or ``NCDHW``.
        is_training: Use the batch statistics (True) or ``mean``/``variance`` (False).
        name: Name of the op.
        exponential_avg_factor: Weight of the batch statistics in the running ones.

    Returns:
        ``(y, running_mean, running_var)``: the normalised ``x`` and the op's batch_mean and
        batch_variance outputs (Bessel-corrected and blended in training; the inputs in
        inference).

    Raises:
        ValueError: ``mean`` or ``variance`` is None where they are needed, or static shapes
            conflict.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` "
            f"{variance!r}"
        )
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    # Given mean/variance literals are converted by the builder inside the op's name
    # ("bn/mean"), missing ones become empty constants beside it ("Const"), as in TensorFlow.
    if mean is None:
        mean = convert_to_tensor(np.zeros(0, np.float32))
    if variance is None:
        variance = convert_to_tensor(np.zeros(0, np.float32))
    op = _op("FusedBatchNormV3", [x, scale, offset, mean, variance], {
        "epsilon": epsilon, "exponential_avg_factor": exponential_avg_factor,
        "data_format": data_format, "is_training": is_training}, name=name)
    return op.outputs[0], op.outputs[1], op.outputs[2]


__all__ = ["fused_batch_norm"]
