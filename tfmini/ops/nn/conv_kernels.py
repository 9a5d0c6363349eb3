"""The arithmetic of the convolution kernels, on channels-last arrays with any number of
spatial dims (2 for Conv2D, 3 for Conv3D).

Forward and filter gradients are im2col matmuls: the windows of the padded input
(``window_geometry.windows``, a strided view) copied a few images at a time into a
``[rows, taps*C]`` patch matrix and multiplied by the filter as ``[taps*C, O]`` (one
product per group for grouped convolutions). 2-D convolutions with stride 1 in height go
by filter rows instead: one copy of each input row's kw-wide windows, and per filter row a
product over a shifted block of it (``_row_patches``). One input channel with O a multiple of 16
(float32, 2-D) takes a compiled direct convolution instead, for the forward and the filter
gradient (``conv_native.one_channel_loop``). The ungrouped input gradient is ``dy @ w^T`` a
few images at a time, summed back into the input by the compiled col2im of
``conv_native``; without it (``TFMINI_NATIVE=0``, no compiler, integers) the stride-1 input
gradient is the forward convolution of dy with the flipped filter, and otherwise one
product per kernel tap (kh*kw of them, not a loop over pixels), each added into the
gradient at the cells the tap reads (grouped convolutions: the transposed matmul, then
col2im). Large ungrouped kernels run their batch in parts on two threads
(``batch_split``). Depthwise convolutions loop over the taps with broadcast products
(their channels do not mix, so there is no matmul).

The semantics are those of tensorflow/core/kernels/conv_ops.cc, conv_grad_input_ops.cc,
conv_grad_filter_ops.cc and depthwise_conv_op.cc: no filter flip, zero padding, the input
gradient drops what lands in the padding. half is computed in float32 and int32 in int64,
then rounded once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import prod

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tfmini.ops.nn import batch_split, conv_native, conv_winograd
from tfmini.ops.nn.window_geometry import (
    clipped_tap_slices,
    crop,
    pad_spatial,
    tap_slice,
    taps,
    windows,
)

__all__: list[str] = []


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a kernel computes in: float32 for half, int64 for integers."""
    if dtype == np.float16:
        return np.dtype(np.float32)
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return dtype


def _padded_shape(in_shape: Sequence[int], pads: Sequence[tuple[int, int]]) -> tuple:
    n, *spatial, c = in_shape
    return (n, *[s + b + a for s, (b, a) in zip(spatial, pads)], c)


# The patch matrix is built and consumed in chunks of whole images of about this size:
# written into one reused buffer that stays in cache, then read by the product at once.
# Measured for the 5x5x32x64 layer at batch 32 (one core): the forward product with its
# im2col took 4.9 ms CPU for the whole batch at once (a 20 MB matrix), 3.4 ms in chunks of
# 2.5 MB; the filter gradient 5.3 -> 3.8 ms.
_CHUNK_BYTES = 3 << 20

# Fewer input channels than this make the transposed convolution's product too narrow
# (one output column for a grey image): the input gradient adds a product per tap instead.
_MIN_TRANSPOSED_CHANNELS = 8


def _patch_chunks(xp: np.ndarray, part: slice, ksizes, strides, dilations,
                  outs) -> Iterator[tuple[slice, np.ndarray]]:
    """The im2col matrix of padded ``xp``'s images ``part``, chunk by chunk: pairs (image
    slice, ``[rows, taps*C]`` patches, columns in the filter's ``[*ksizes, C]`` order).

    The patches of a chunk live in one buffer reused by the next chunk: use each before
    taking the next. One input channel builds the transposed matrix ``[taps, rows]`` (each
    tap's row one strided slab of ``xp``, where the ``[rows, taps]`` layout gathers
    ``taps`` scattered values per row: 2x slower for a 5x5 filter) and yields its
    transpose. A 1x1 filter with stride 1 needs no copy: the patches are ``xp`` itself.
    """
    nd = len(ksizes)
    k, c, per_out = prod(ksizes), xp.shape[-1], prod(outs)
    if k == 1 and all(s == 1 for s in strides):
        for i in range(part.start, part.stop, max(1, part.stop - part.start)):
            sub = slice(i, part.stop)
            yield sub, xp[sub].reshape(-1, c)
        return
    per_image = per_out * k * c
    step = max(1, _CHUNK_BYTES // max(1, per_image * xp.itemsize))
    buf = np.empty(min(step, max(part.stop - part.start, 1)) * per_image, xp.dtype)
    order = (*range(1 + nd, 1 + 2 * nd), *range(1 + nd))
    for start in range(part.start, part.stop, step):
        sub = slice(start, min(start + step, part.stop))
        nb = sub.stop - sub.start
        rows = nb * per_out
        view = windows(xp[sub], ksizes, strides, dilations, outs)
        if c == 1:
            col_t = buf[:rows * k].reshape(*ksizes, nb, *outs)
            np.copyto(col_t, view[..., 0].transpose(order))
            yield sub, col_t.reshape(k, rows).T
        else:
            col = buf[:rows * k * c].reshape(view.shape)
            np.copyto(col, view)
            yield sub, col.reshape(rows, k * c)


# Filter-row products pay off once a row's taps give them this much depth (kw*C).
_MIN_ROW_DEPTH = 64
_ROW_TAPS = True  # False: every 2-D convolution takes the im2col product (tests compare)


def _row_taps_apply(ksizes, c: int, strides) -> bool:
    """Whether the forward and filter gradient go by filter rows: 2-D, stride 1 in height
    (each filter row's patches are then one contiguous block of the row patches), more than
    one filter row, and rows at least ``_MIN_ROW_DEPTH`` deep."""
    return (_ROW_TAPS and len(ksizes) == 2 and strides[0] == 1 and ksizes[0] > 1
            and ksizes[1] * c >= _MIN_ROW_DEPTH)


def _row_patches(xp: np.ndarray, sub: slice, ksizes, strides, dilations, outs,
                 rows: int, buf: np.ndarray) -> np.ndarray:
    """``E[r, n, j, b, c] = xp[n, r, j*sw + b*dw, c]`` for images ``sub`` of padded ``xp``
    and its first ``rows`` rows, in ``buf``: the windows of one filter row, kw wide, for
    every padded input row. Filter row a of output row i reads padded row ``i + a*dh``, so
    its patches are the contiguous block ``E[a*dh : a*dh + OH]``: kh products over
    shifted blocks of one copy kw times the input's size, where im2col copies kh*kw times
    it."""
    part = xp[sub]
    nb = part.shape[0]
    (_, kw), ow, c = ksizes, outs[1], xp.shape[-1]
    sn, sh, sw, sc = part.strides
    view = as_strided(part, (rows, nb, ow, kw, c),
                      (sh, sn, sw * strides[1], sw * dilations[1], sc), writeable=False)
    e = buf[:rows * nb * ow * kw * c].reshape(rows, nb, ow, kw, c)
    np.copyto(e, view)
    return e.reshape(rows, nb * ow, kw * c)


def _row_chunks(xp: np.ndarray, ksizes, dh: int, outs, part: slice):
    """How the filter-row kernels walk images ``part``: (padded rows read per image, the
    row patches' depth kw*C, images per chunk, the largest chunk, a patch buffer for it)."""
    kh, kw = ksizes
    oh, ow = outs
    rows = oh + (kh - 1) * dh
    depth = kw * xp.shape[-1]
    per_image = rows * ow * depth
    step = max(1, _CHUNK_BYTES // max(1, per_image * xp.itemsize))
    nb_max = min(step, max(part.stop - part.start, 1))
    return rows, depth, step, nb_max, np.empty(nb_max * per_image, xp.dtype)


def _forward_row_taps(xp: np.ndarray, w: np.ndarray, y: np.ndarray, part: slice, strides,
                      dilations, outs) -> None:
    """The stride-1 (in height) 2-D forward of images ``part`` by filter rows: per chunk of
    images, the row patches (:func:`_row_patches`) times each filter row ``[kw*C, O]``,
    summed over the rows, in output-row-major order, then moved to ``y``'s layout.

    Against the im2col product: a fifth of the copy for a 5x5 filter and products kw*C
    deep. The convnet's 5x5x32x64 layer at batch 32 (alternated with the im2col path in one
    process, SkylakeX kernels, 2026-11-25 20:38, load 2.7): one thread 3.32-3.34 ->
    3.16-3.20 ms (25th percentiles), two BLAS threads 3.8-4.0 -> 2.6 ms (best of 60).
    """
    kh = w.shape[0]
    o = w.shape[-1]
    oh, ow = outs
    dh = dilations[0]
    rows, depth, step, nb_max, buf = _row_chunks(xp, w.shape[:2], dh, outs, part)
    acc = np.empty(nb_max * oh * ow * o, xp.dtype)
    tmp = np.empty_like(acc)
    wr = w.reshape(kh, depth, o)
    for start in range(part.start, part.stop, step):
        sub = slice(start, min(start + step, part.stop))
        nb = sub.stop - sub.start
        e = _row_patches(xp, sub, w.shape[:2], strides, dilations, outs, rows, buf)
        yp = acc[:oh * nb * ow * o].reshape(oh * nb * ow, o)
        t = tmp[:yp.size].reshape(yp.shape)
        for a in range(kh):
            block = e[a * dh:a * dh + oh].reshape(oh * nb * ow, depth)
            if a == 0:
                np.matmul(block, wr[a], out=yp)
            else:
                np.matmul(block, wr[a], out=t)
                yp += t
        np.copyto(y[sub], yp.reshape(oh, nb, ow, o).transpose(1, 0, 2, 3))


def _filter_row_taps(xp: np.ndarray, dy: np.ndarray, filter_shape, part: slice, strides,
                     dilations, outs) -> np.ndarray:
    """The stride-1 (in height) 2-D filter gradient of images ``part`` by filter rows: per
    chunk of images, filter row a's gradient ``[kw*C, O]`` is the row patches' block
    ``E[a*dh : a*dh + OH]`` (:func:`_row_patches`) transposed times dy in output-row-major
    order. The convnet's 5x5x32x64 layer (as for the forward, 20:39, load 2.6-3.1): one
    thread 3.54-3.76 -> 3.46-3.63 ms (25th percentiles), two BLAS threads 2.29-2.68 ->
    2.14-2.31 ms (best of 60)."""
    kh, kw = filter_shape[:2]
    o = dy.shape[-1]
    oh, ow = outs
    dh = dilations[0]
    rows, depth, step, nb_max, buf = _row_chunks(xp, (kh, kw), dh, outs, part)
    dyp_buf = np.empty(nb_max * oh * ow * o, dy.dtype)
    dw = np.zeros((kh, depth, o), dy.dtype)
    t = np.empty((depth, o), dy.dtype)
    for start in range(part.start, part.stop, step):
        sub = slice(start, min(start + step, part.stop))
        nb = sub.stop - sub.start
        e = _row_patches(xp, sub, (kh, kw), strides, dilations, outs, rows, buf)
        dyp = dyp_buf[:oh * nb * ow * o].reshape(oh, nb, ow, o)
        np.copyto(dyp, dy[sub].transpose(1, 0, 2, 3))
        d2 = dyp.reshape(-1, o)
        for a in range(kh):
            np.matmul(e[a * dh:a * dh + oh].reshape(oh * nb * ow, depth).T, d2, out=t)
            dw[a] += t
    return dw


def _winograd(dtype, ksizes, strides, dilations, c: int, o: int, macs: int,
              *operands: np.ndarray) -> bool:
    """Whether this ungrouped convolution takes the Winograd kernels (``conv_winograd``):
    its geometry qualifies and every operand is finite. A transform mixes a tile's values,
    so one inf would spread NaNs (inf - inf) where the direct sums give inf: such inputs
    take the im2col path (one sum per operand decides; a sum that overflows only sends a
    finite input there too)."""
    return conv_winograd.applies(dtype, ksizes, strides, dilations, c, o, macs) and all(
        np.isfinite(a.sum(dtype=np.float32)) for a in operands)


def conv_forward(x: np.ndarray, w: np.ndarray, strides, dilations, pads,
                 outs) -> np.ndarray:
    """``y[n, o.., f] = sum x_pad[n, o*s + t*d .., c] * w[t.., c, f]`` (grouped when C is a
    multiple of the filter's in-depth)."""
    ksizes = w.shape[:-2]
    cg, o = w.shape[-2], w.shape[-1]
    n, c = x.shape[0], x.shape[-1]
    m, k = n * prod(outs), prod(ksizes)
    groups = c // cg if cg else 1
    if groups == 1 and _winograd(x.dtype, ksizes, strides, dilations, c, o, m * k * c * o,
                                 x, w):
        return conv_winograd.forward(x, w, pads, outs)
    xp = pad_spatial(x, pads)
    if groups == 1:
        # The batch in parts on the cores, each part's products written into its rows of y.
        y = np.empty((n, *outs, o), x.dtype)
        loop = None if c != 1 else conv_native.one_channel_loop(
            "forward", x.dtype, ksizes, o, strides, dilations, outs)
        if loop is not None:
            xp, wc = np.ascontiguousarray(xp), np.ascontiguousarray(w)
            batch_split.run(lambda sl: loop(xp[sl], wc, y[sl]),
                            batch_split.parts(n, m * k * c * o))
            return y
        if _row_taps_apply(ksizes, c, strides):
            batch_split.run(lambda sl: _forward_row_taps(xp, w, y, sl, strides, dilations,
                                                         outs),
                            batch_split.parts(n, m * k * c * o))
            return y
        wm = w.reshape(k * c, o)

        def part(sl: slice) -> None:
            for sub, col in _patch_chunks(xp, sl, ksizes, strides, dilations, outs):
                np.matmul(col, wm, out=y[sub].reshape(-1, o))

        batch_split.run(part, batch_split.parts(n, m * k * c * o))
        return y
    view = windows(xp, ksizes, strides, dilations, outs)
    og = o // groups
    y = np.empty((m, o), x.dtype)
    for g in range(groups):
        col = view[..., g * cg:(g + 1) * cg].reshape(m, k * cg)
        y[:, g * og:(g + 1) * og] = col @ w[..., g * og:(g + 1) * og].reshape(k * cg, og)
    return y.reshape(n, *outs, o)


def _backprop_input_taps(in_shape: Sequence[int], w: np.ndarray, dy: np.ndarray, strides,
                         dilations, pads, outs) -> np.ndarray:
    """The ungrouped input gradient: per batch part, each tap's product added straight into
    the gradient at the cells the tap reads (the same sums as col2im of ``dy @ w^T``,
    without the ``[N*outputs, taps*C]`` matrix: 20 MB for a 5x5 convolution of a
    32x14x14x64 batch, which made this 2.5x slower). Products landing in the padding are
    dropped by clipping each tap's slice, so the result is contiguous (a padded buffer's
    crop is a strided view that every consumer reads slower). One input channel takes all
    taps in one product instead, ``w @ dy^T``, whose rows are the taps' contiguous slabs
    (25 matrix-vector products were 2x slower)."""
    ksizes = w.shape[:-2]
    o = w.shape[-1]
    n, c = in_shape[0], in_shape[-1]
    k = prod(ksizes)
    spatial = in_shape[1:-1]
    dx = np.empty(tuple(in_shape), dy.dtype)
    cells = [clipped_tap_slices(tap, strides, dilations, pads, outs, spatial)
             for tap in taps(ksizes)]

    def part(sl: slice) -> None:
        d = dy[sl].reshape(-1, o)
        nb = sl.stop - sl.start
        dxb = dx[sl]
        dxb.fill(0)
        if c == 1:
            prods = (w.reshape(k, o) @ d.T).reshape(k, nb, *outs, 1)
            for i, cell in enumerate(cells):
                if cell is not None:
                    dxb[cell[0]] += prods[i][cell[1]]
            return
        for tap, cell in zip(taps(ksizes), cells):
            if cell is not None:
                dxb[cell[0]] += (d @ w[tap].T).reshape(nb, *outs, c)[cell[1]]

    batch_split.run(part, batch_split.parts(n, n * prod(outs) * k * c * o))
    return dx


def _backprop_input_col2im(in_shape: Sequence[int], w: np.ndarray, dy: np.ndarray, outs,
                           loop) -> np.ndarray:
    """The ungrouped input gradient as ``dcol = dy @ w^T`` and the compiled col2im, a few
    images at a time so that each chunk's ``dcol`` is summed while still in cache.

    ``[rows, O] x [O, taps*C]`` is a good product shape for BLAS; the stride-1 transposed
    convolution it replaces multiplied a patch matrix of dy (``taps*O`` wide, 40 MB for the
    convnet's second layer) by only C columns. Measured on the 5x5x32x64 layer at batch 32,
    one thread, SkylakeX kernels: 4.0-6.5 -> 3.1 ms (the col2im ~0.35 ms of it).
    """
    o = w.shape[-1]
    n, c = in_shape[0], in_shape[-1]
    per_image = prod(outs)
    width = prod(w.shape[:-2]) * c
    w_t = np.ascontiguousarray(w.reshape(width, o).T)
    d2 = dy.reshape(n * per_image, o)
    dx = np.empty(tuple(in_shape), dy.dtype)
    step = max(1, _CHUNK_BYTES // max(1, per_image * width * dy.itemsize))

    def part(sl: slice) -> None:
        buf = np.empty(min(step, max(sl.stop - sl.start, 1)) * per_image * width, dy.dtype)
        for start in range(sl.start, sl.stop, step):
            stop = min(start + step, sl.stop)
            dcol = buf[:(stop - start) * per_image * width].reshape(-1, width)
            np.matmul(d2[start * per_image:stop * per_image], w_t, out=dcol)
            loop(dcol, dx[start:stop])

    batch_split.run(part, batch_split.parts(n, n * per_image * width * o))
    return dx


def conv_backprop_input(in_shape: Sequence[int], w: np.ndarray, dy: np.ndarray, strides,
                        dilations, pads, outs) -> np.ndarray:
    """The adjoint of :func:`conv_forward` in x: col2im of ``dy @ w^T``."""
    ksizes = w.shape[:-2]
    cg, o = w.shape[-2], w.shape[-1]
    n, c = in_shape[0], in_shape[-1]
    m, k = n * prod(outs), prod(ksizes)
    groups = c // cg if cg else 1
    if groups == 1 and k > 1:
        flipped = [(t - 1 - b, t - 1 - a) for t, (b, a) in zip(ksizes, pads)]
        if min(min(fp) for fp in flipped) >= 0 and _winograd(
                dy.dtype, ksizes, strides, dilations, o, c, m * k * c * o, dy, w):
            # Stride 1: the forward convolution of dy with the filter flipped in space and
            # its channels swapped, padded by the filter's reach less the forward padding.
            w_t = np.ascontiguousarray(np.flip(w, tuple(range(len(ksizes)))).swapaxes(-1, -2))
            return conv_winograd.forward(dy, w_t, flipped, in_shape[1:-1])
        if c > 1:
            loop = conv_native.col2im_loop(dy.dtype, in_shape[1:-1], c, ksizes, strides,
                                           dilations, pads, outs)
            if loop is not None:
                return _backprop_input_col2im(in_shape, w, dy, outs, loop)
        nd = len(ksizes)
        flipped_pads = [((t - 1) * d - b, (t - 1) * d - a)
                        for t, d, (b, a) in zip(ksizes, dilations, pads)]
        if c >= _MIN_TRANSPOSED_CHANNELS and all(s == 1 for s in strides) and all(
                b >= 0 and a >= 0 for b, a in flipped_pads):
            # With stride 1 the input gradient is itself a convolution: of dy, padded by
            # the filter's reach less the forward padding, with the filter flipped in space
            # and its in/out channels swapped. That takes the chunked im2col product (4.7 ->
            # 4.1 ms CPU for the 5x5x32x64 layer at batch 32) instead of a product and an
            # add per tap.
            w_t = np.ascontiguousarray(np.flip(w, tuple(range(nd))).swapaxes(-1, -2))
            return conv_forward(dy, w_t, strides, dilations, flipped_pads, in_shape[1:-1])
        return _backprop_input_taps(in_shape, w, dy, strides, dilations, pads, outs)
    dy2 = dy.reshape(m, o)
    if groups == 1:
        dcol = dy2 @ w.reshape(k * c, o).T
    else:
        og = o // groups
        dcol = np.empty((m, k, c), dy.dtype)
        for g in range(groups):
            wg = w[..., g * og:(g + 1) * og].reshape(k * cg, og)
            dcol[:, :, g * cg:(g + 1) * cg] = (dy2[:, g * og:(g + 1) * og] @ wg.T).reshape(
                m, k, cg)
    dcol = dcol.reshape(n, *outs, *ksizes, c)
    return col2im(dcol, in_shape, ksizes, strides, dilations, pads, outs)


def col2im(dcol: np.ndarray, in_shape, ksizes, strides, dilations, pads,
           outs) -> np.ndarray:
    """Adds ``dcol[n, o.., t.., c]`` into the padded input at ``o*s + t*d`` and crops."""
    dxp = np.zeros(_padded_shape(in_shape, pads), dcol.dtype)
    lead = (slice(None),) * (1 + len(outs))
    for tap in taps(ksizes):
        dxp[tap_slice(tap, strides, dilations, outs)] += dcol[lead + tap]
    return crop(dxp, pads, in_shape[1:-1])


def conv_backprop_filter(x: np.ndarray, filter_shape: Sequence[int], dy: np.ndarray, strides,
                         dilations, pads, outs) -> np.ndarray:
    """``dw[t.., c, f] = sum x_pad[n, o*s + t*d .., c] * dy[n, o.., f]``: ``col^T @ dy``."""
    ksizes = tuple(filter_shape[:-2])
    cg, o = filter_shape[-2], filter_shape[-1]
    n, c = x.shape[0], x.shape[-1]
    m, k = n * prod(outs), prod(ksizes)
    groups = c // cg if cg else 1
    if groups == 1 and _winograd(x.dtype, ksizes, strides, dilations, c, o, m * k * c * o,
                                 x, dy):
        return conv_winograd.backprop_filter(x, filter_shape, dy, pads, outs)
    xp = pad_spatial(x, pads)
    loop = None if groups != 1 or c != 1 else conv_native.one_channel_loop(
        "filter", x.dtype, ksizes, o, strides, dilations, outs)
    if loop is not None:
        xp, dyc = np.ascontiguousarray(xp), np.ascontiguousarray(dy)

        def one_channel_part(sl: slice) -> np.ndarray:
            dw = np.empty(tuple(filter_shape), dy.dtype)
            loop(xp[sl], dyc[sl], dw)
            return dw

        sums = batch_split.run(one_channel_part, batch_split.parts(n, m * k * c * o))
        dw = sums[0]
        for s in sums[1:]:
            dw += s
        return dw
    if groups == 1 and _row_taps_apply(ksizes, c, strides):
        sums = batch_split.run(
            lambda sl: _filter_row_taps(xp, dy, filter_shape, sl, strides, dilations, outs),
            batch_split.parts(n, m * k * c * o))
        dw = sums[0]
        for s in sums[1:]:
            dw += s
        return dw.reshape(filter_shape)
    if groups == 1:
        # Each batch part's product on its own core, then the parts' sums added.
        def part(sl: slice) -> np.ndarray:
            dw = scratch = None
            for sub, col in _patch_chunks(xp, sl, ksizes, strides, dilations, outs):
                d = dy[sub].reshape(-1, o)
                if dw is None:
                    dw = col.T @ d
                    continue
                if scratch is None:
                    scratch = np.empty_like(dw)
                np.matmul(col.T, d, out=scratch)
                dw += scratch
            return np.zeros((k * c, o), dy.dtype) if dw is None else dw

        sums = batch_split.run(part, batch_split.parts(n, m * k * c * o))
        dw = sums[0]
        for s in sums[1:]:
            dw += s
        return dw.reshape(filter_shape)
    view = windows(xp, ksizes, strides, dilations, outs)
    dy2 = dy.reshape(m, o)
    og = o // groups
    dw = np.empty((k, cg, o), dy.dtype)
    for g in range(groups):
        col = view[..., g * cg:(g + 1) * cg].reshape(m, k * cg)
        dw[:, :, g * og:(g + 1) * og] = (col.T @ dy2[:, g * og:(g + 1) * og]).reshape(k, cg, og)
    return dw.reshape(filter_shape)


def depthwise_forward(x: np.ndarray, w: np.ndarray, strides, dilations, pads,
                      outs) -> np.ndarray:
    """Output channel ``c*M + m`` is channel c convolved with ``w[.., c, m]``."""
    ksizes, (c, mult) = w.shape[:-2], w.shape[-2:]
    xp = pad_spatial(x, pads)
    y = np.zeros((x.shape[0], *outs, c, mult), x.dtype)
    for tap in taps(ksizes):
        y += xp[tap_slice(tap, strides, dilations, outs)][..., None] * w[tap]
    return y.reshape(x.shape[0], *outs, c * mult)


def depthwise_backprop_input(in_shape, w: np.ndarray, dy: np.ndarray, strides, dilations,
                             pads, outs) -> np.ndarray:
    ksizes, (c, mult) = w.shape[:-2], w.shape[-2:]
    dy = dy.reshape(in_shape[0], *outs, c, mult)
    dxp = np.zeros(_padded_shape(in_shape, pads), dy.dtype)
    for tap in taps(ksizes):
        dxp[tap_slice(tap, strides, dilations, outs)] += np.einsum("...cm,cm->...c", dy, w[tap])
    return crop(dxp, pads, in_shape[1:-1])


def depthwise_backprop_filter(x: np.ndarray, filter_shape, dy: np.ndarray, strides,
                              dilations, pads, outs) -> np.ndarray:
    ksizes, (c, mult) = tuple(filter_shape[:-2]), tuple(filter_shape[-2:])
    xp = pad_spatial(x, pads)
    dy = dy.reshape(-1, c, mult)
    dw = np.empty((*ksizes, c, mult), dy.dtype)
    for tap in taps(ksizes):
        xs = xp[tap_slice(tap, strides, dilations, outs)].reshape(-1, c)
        dw[tap] = np.einsum("ic,icm->cm", xs, dy)
    return dw
