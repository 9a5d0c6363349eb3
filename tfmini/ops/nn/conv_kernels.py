"""The arithmetic of the convolution kernels, on channels-last arrays with any number of
spatial dims (2 for Conv2D, 3 for Conv3D).

Forward and filter gradients are im2col matmuls: a strided view of the padded input
(``window_geometry.windows``) reshaped to ``[N*outputs, taps*C]`` times the filter as
``[taps*C, O]``, one BLAS call (one per group for grouped convolutions). The input gradient
is one product per kernel tap (kh*kw of them, not a loop over pixels), each added as a slab
into the padded gradient (grouped convolutions: the transposed matmul, then col2im).
Depthwise convolutions loop over the taps with broadcast products (their channels do not
mix, so there is no matmul).

The semantics are those of tensorflow/core/kernels/conv_ops.cc, conv_grad_input_ops.cc,
conv_grad_filter_ops.cc and depthwise_conv_op.cc: no filter flip, zero padding, the input
gradient drops what lands in the padding. half is computed in float32 and int32 in int64,
then rounded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from tfmini.ops.nn import batch_split
from tfmini.ops.nn.window_geometry import crop, pad_spatial, tap_slice, taps, windows

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


def _im2col(xp: np.ndarray, ksizes, strides, dilations, outs) -> np.ndarray:
    """The ``[N*outputs, taps*C]`` patch matrix of padded ``xp``: one strided copy."""
    view = windows(xp, ksizes, strides, dilations, outs)
    return view.reshape(xp.shape[0] * prod(outs), prod(ksizes) * xp.shape[-1])


def _im2col_t(xp: np.ndarray, ksizes, strides, dilations, outs) -> np.ndarray:
    """For one input channel, the transposed patch matrix ``[taps, N*outputs]``: each tap's
    row is one strided slab of ``xp``, where the ``[N*outputs, taps]`` matrix would gather
    ``taps`` scattered values per row (2x faster copies for a 5x5 filter)."""
    view = windows(xp, ksizes, strides, dilations, outs)[..., 0]
    nd = len(ksizes)
    order = (*range(1 + nd, 1 + 2 * nd), *range(1 + nd))
    return view.transpose(order).reshape(prod(ksizes), xp.shape[0] * prod(outs))


def conv_forward(x: np.ndarray, w: np.ndarray, strides, dilations, pads,
                 outs) -> np.ndarray:
    """``y[n, o.., f] = sum x_pad[n, o*s + t*d .., c] * w[t.., c, f]`` (grouped when C is a
    multiple of the filter's in-depth)."""
    ksizes = w.shape[:-2]
    cg, o = w.shape[-2], w.shape[-1]
    n, c = x.shape[0], x.shape[-1]
    m, k = n * prod(outs), prod(ksizes)
    groups = c // cg if cg else 1
    xp = pad_spatial(x, pads)
    if groups == 1:
        # The batch in parts on the cores, each part's products written into its rows of y.
        y = np.empty((n, *outs, o), x.dtype)
        wm = w.reshape(k * c, o)

        def part(sl: slice) -> None:
            out = y[sl].reshape(-1, o)
            if c == 1:
                np.matmul(_im2col_t(xp[sl], ksizes, strides, dilations, outs).T, wm, out=out)
            else:
                np.matmul(_im2col(xp[sl], ksizes, strides, dilations, outs), wm, out=out)

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
    the padded gradient (the same sums as col2im of ``dy @ w^T``, without the
    ``[N*outputs, taps*C]`` matrix: 20 MB for a 5x5 convolution of a 32x14x14x64 batch,
    which made this 2.5x slower). One input channel takes all taps in one product instead,
    ``w @ dy^T``, whose rows are the taps' contiguous slabs (25 matrix-vector products were
    2x slower)."""
    ksizes = w.shape[:-2]
    o = w.shape[-1]
    n, c = in_shape[0], in_shape[-1]
    k = prod(ksizes)
    dxp = np.empty(_padded_shape(in_shape, pads), dy.dtype)

    def part(sl: slice) -> None:
        d = dy[sl].reshape(-1, o)
        nb = sl.stop - sl.start
        dx = dxp[sl]
        dx.fill(0)
        if c == 1:
            prods = w.reshape(k, o) @ d.T
            for i, tap in enumerate(taps(ksizes)):
                dx[tap_slice(tap, strides, dilations, outs)][..., 0] += prods[i].reshape(
                    nb, *outs)
            return
        for tap in taps(ksizes):
            dx[tap_slice(tap, strides, dilations, outs)] += (d @ w[tap].T).reshape(
                nb, *outs, c)

    batch_split.run(part, batch_split.parts(n, n * prod(outs) * k * c * o))
    return crop(dxp, pads, in_shape[1:-1])


def conv_backprop_input(in_shape: Sequence[int], w: np.ndarray, dy: np.ndarray, strides,
                        dilations, pads, outs) -> np.ndarray:
    """The adjoint of :func:`conv_forward` in x: col2im of ``dy @ w^T``."""
    ksizes = w.shape[:-2]
    cg, o = w.shape[-2], w.shape[-1]
    n, c = in_shape[0], in_shape[-1]
    m, k = n * prod(outs), prod(ksizes)
    groups = c // cg if cg else 1
    if groups == 1 and k > 1:
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
    xp = pad_spatial(x, pads)
    groups = c // cg if cg else 1
    if groups == 1:
        # Each batch part's product on its own core, then the parts' sums added.
        def part(sl: slice) -> np.ndarray:
            d = dy[sl].reshape(-1, o)
            if c == 1:
                return _im2col_t(xp[sl], ksizes, strides, dilations, outs) @ d
            return _im2col(xp[sl], ksizes, strides, dilations, outs).T @ d

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
