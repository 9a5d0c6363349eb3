"""The FusedBatchNorm kernels' arithmetic: batch moments, normalisation and its gradient.

How the kernels are made fast and lean. A batch norm is memory bound: the work per element
is a handful of flops, the cost is streaming ``x`` (and ``dy``) through the CPU. The kernels
walk the tensor in blocks of 128K values (512 KB of float32, so a block and its scratch stay
in the L2 cache) and do everything a pass needs to a block while it is cached. Channels-last
data is viewed as rows of about 1024 values (whole pixels), so NumPy's inner loops are long
and per-channel vectors are tiled to the row; channels-first data is viewed as [N, C, M].
Per-channel vectors are tiled to a whole block, so every elementwise call runs over
same-shaped contiguous arrays. Per-block sums (``np.sum`` / ``np.einsum`` with ``out=``)
land in preallocated arrays and are folded to float64 per-channel totals once. The training
forward reads ``x`` twice (statistics, then ``y``), the training gradient reads ``x`` and
``dy`` twice (sums, then ``dx``), each second pass walking the blocks backwards (it starts
with those still cached); outputs are written straight into their final arrays and no
temporary as large as ``x`` is made. Blocks are shared among as many threads as other
processes leave cores free (NumPy releases the GIL in its loops; the runtime's thread
policy decides how many, ``ops/common/parallel.py``). The batch variance is E[x^2] - mean^2
from one pass of sums where every mean lies within a standard deviation of 0; otherwise
values are centred per group and merged exactly (Chan et al.), and the elementwise passes
centre on the mean whenever a mean lies far out in standard deviations (see
:func:`_can_fold`), so a spread tiny next to the mean keeps TensorFlow's accuracy.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

import numpy as np

from tfmini.core.shapes import dims_str
from tfmini.ops.common import parallel
from tfmini.ops.common.kernel_util import invalid_argument

# Values per block: 128K float32 is 512 KB, which fits the L2 cache with its scratch.
_BLOCK_ELEMENTS = 1 << 17

_F32 = np.dtype(np.float32)


# ----------------------------------------------------------------------------------------
# Data formats


def format_rank(data_format: str) -> int:
    return 5 if data_format in ("NDHWC", "NCDHW") else 4


def channel_index(data_format: str, rank: int) -> int:
    return 1 if data_format[1] == "C" else rank - 1


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
        """A float32 per-channel vector shaped to meet a block: ``[C, 1]`` (channels first),
        else tiled to a whole block (:meth:`fit` cuts it to a shorter last block), so the
        elementwise calls run over two same-shaped contiguous arrays, which NumPy does in
        one flat loop instead of one call of its inner loop per row (measured 16% less time
        for the gradient's pass)."""
        if self.channels_first:
            return v[:, None]
        return np.tile(v, self.tile * self.step).reshape(self.step, self.shape[1])

    def fit(self, vec: np.ndarray, rows: int) -> np.ndarray:
        """A :meth:`vec` result for a block of ``rows`` rows."""
        return vec if self.channels_first else vec[:rows]

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
_MAX_WORKERS = 4  # a batch norm draws no more bandwidth from more threads than this


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
        if size >= _PARALLEL_MIN_ELEMENTS:
            # Only the cores other processes leave free (the thread policy's measure): a
            # worker waiting for a busy core holds the others up at every hand-over of the
            # GIL. Measured at a load average of 6: 24.7 ms with one thread, 32.7 with two.
            self.workers = max(1, min(_MAX_WORKERS, len(self.tasks), parallel.width()))

    def run(self, fn: Callable, backwards: bool = False) -> None:
        """Calls ``fn(seg, i, sl, scratch)`` for every block, spread over the workers.

        ``backwards`` walks the blocks last to first: a kernel's second pass goes back over
        the data its first pass has just read, so it starts with the blocks still in the
        last-level cache (about a third of a 25 MB tensor) instead of those evicted first.

        Each worker takes the next block not yet taken, in order: neighbours stream
        neighbouring memory, and a worker that the machine's other processes slow down
        takes fewer blocks instead of holding the others up at the end (a fixed share per
        worker waited for the slowest). Each block writes only its own output rows and
        partial sums.
        """
        tasks = self.tasks[::-1] if backwards else self.tasks
        if self.workers == 1:
            scratch = _Scratch()
            for seg, i, sl in tasks:
                fn(seg, i, sl, scratch)
            return
        taken = itertools.count()
        lock = threading.Lock()

        def part() -> None:
            scratch = _Scratch()
            while True:
                with lock:
                    k = next(taken)
                if k >= len(tasks):
                    return
                seg, i, sl = tasks[k]
                fn(seg, i, sl, scratch)

        parallel.run([part] * self.workers)


def _batch_moments(blocks: _Blocks, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and biased variance (float64) of a non-empty ``x``.

    First one pass of two calls a block: the sums and the sums of squares, so the variance
    is E[x^2] - mean^2. Its rounding error is that of the sums of squares times
    E[x^2] / variance = 1 + mean^2 / variance, so it is kept only where every channel's
    mean is at most one standard deviation from 0 (at most twice the error of centred
    sums). Otherwise (a mean far out, or NaN) the centred pass below follows.
    """
    parts = {id(seg): (seg.view(flat), seg.partials(), seg.partials())
             for seg in blocks.segments}

    def block(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
        xs, sums, squares = parts[id(seg)]
        b = scratch.f32(seg, xs[sl], 1)
        seg.sum_into(b, seg.partial(sums, i, sl))
        seg.dot_into(b, b, seg.partial(squares, i, sl))

    blocks.run(block)
    total = sq = n = 0.0
    for seg in blocks.segments:
        _, sums, squares = parts[id(seg)]
        total = total + seg.fold(sums)
        sq = sq + seg.fold(squares)
        n += float(seg.group_counts().sum()) / blocks.channels
    mean = total / n
    with np.errstate(invalid="ignore", over="ignore"):
        var = sq / n - mean * mean
        if np.all(mean * mean <= var):
            return mean, var
    return _centred_moments(blocks, flat)


def _centred_moments(blocks: _Blocks, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_batch_moments` for any data, in one pass of three calls a block.

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
        rows = b.shape[0]
        y = ys[sl]
        out = y if y.dtype == _F32 else scratch.get(seg, rows)
        if fold:
            np.multiply(b, seg.fit(vecs[0], rows), out=out)
        else:
            np.subtract(b, seg.fit(vecs[0], rows), out=out)
            np.multiply(out, seg.fit(vecs[1], rows), out=out)
        np.add(out, seg.fit(vecs[-1], rows), out=y)  # float32 -> half rounds here, once

    blocks.run(block, backwards=True)


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
    channels = x.shape[channel_index(data_format, x.ndim)]
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


def fused_batch_norm_forward(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
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
    channels = x.shape[channel_index(data_format, x.ndim)]
    for value, what in ((scale, "scale"), (mean, "reserve_space_1"),
                        (variance, "reserve_space_2")):
        if value.size != channels:
            raise invalid_argument(
                f"{what} must have the same number of elements as the channels of x, got "
                f"{value.size} and {channels}"
            )
    return channels


def fused_batch_norm_backward(y_backprop, x, scale, mean, variance, *, epsilon, data_format,
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
    parts = {id(seg): (seg.view(fx), seg.view(fdy), seg.view(fdx),
                       None if fold else seg.vec(mu_32), seg.vec(k1_32), seg.partials(),
                       seg.partials())
             for seg in blocks.segments}

    def sums(seg: _Segment, i: int, sl: slice, scratch: _Scratch) -> None:
        xs, dys, dxs, m, k, sum_g, sum_gd = parts[id(seg)]
        b = scratch.f32(seg, xs[sl], 1)
        g = scratch.f32(seg, dys[sl], 2)
        rows = b.shape[0]
        if not is_training:
            np.multiply(g, seg.fit(k, rows), out=dxs[sl])  # inference: one pass does it all
        seg.sum_into(g, seg.partial(sum_g, i, sl))
        if not fold:  # sum(dy * (x - mean)), centred as in TensorFlow
            b = np.subtract(b, seg.fit(m, rows), out=scratch.get(seg, rows))
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
            k, v2, v3 = seg.fit(k, rows), seg.fit(v2, rows), seg.fit(v3, rows)
            if not fold:
                m = seg.fit(m, rows)
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

        blocks.run(backprop, backwards=True)
    return [dx, scale_backprop.astype(u), sum_dy.astype(u), empty, empty.copy()]



__all__ = ["channel_index", "format_rank", "fused_batch_norm_backward", "fused_batch_norm_forward"]
