"""Gradient cases shared by tools/record_goldens_array_grad.py and
tests/ops/array/test_array_grad.py.

Every case is a function of the module under test (``tensorflow.compat.v1`` when recording,
``tfmini`` when testing) that builds a graph in a fresh default graph and returns a list of
gradients from ``gradients(ys, xs, grad_ys)``. Both modules spell the calls the same way, so
one definition records TensorFlow's answer and replays it on tfmini. This module never
imports TensorFlow itself.

The graphs chain array ops (gather, reshape, transpose, slicing, concat, tile...) and use
fixed ``grad_ys`` instead of reductions, so only array gradients are exercised. Cases whose
name starts with ``unknown_`` feed inputs of unknown static shape
(``placeholder_with_default(value, None)``); ``second_order_`` cases differentiate a
gradient again (the gradients of ``Pad`` and ``StridedSliceGrad``).
"""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(1234)


def _r(*shape: int, dtype=np.float32) -> np.ndarray:
    return _RNG.standard_normal(shape).astype(dtype)


X = _r(4, 5, 6)
M = _r(5, 3)
N = _r(5, 2)
TABLE = _r(6, 3)


def grad_ys(*shape: int) -> np.ndarray:
    """Fixed upstream gradients for an output of ``shape`` (seeded by the shape itself)."""
    return np.random.default_rng([7, *shape]).standard_normal(shape).astype(np.float32)


def _w(tf, *shape: int):
    return tf.constant(grad_ys(*shape))


def cases(tf) -> dict:
    """name -> thunk returning a list of gradients (Outputs or IndexedSlices)."""

    def grad(y, xs, *w_shape):
        return tf.gradients(y, xs, grad_ys=_w(tf, *w_shape))

    def x():
        return tf.constant(X)

    def unknown(value):
        return tf.placeholder_with_default(value, None)

    def reshape_transpose():
        a = x()
        y = tf.reshape(tf.transpose(a, [2, 0, 1]), [6, 20])
        return grad(y, a, 6, 20)

    def strided_masks():
        a = x()
        y = a[::-2, 1:, tf.newaxis, -1]  # negative stride, begin mask, new axis, shrink
        return grad(y, a, 2, 4, 1)

    def strided_ellipsis():
        a = x()
        return grad(a[..., 1, ::-3], a, 4, 2) + grad(a[1:3, ..., ::-3], a, 2, 5, 2)

    def slice_concat():
        a, m = x(), tf.constant(M)
        s = tf.reshape(tf.slice(a, [1, 0, 2], [2, -1, 3]), [5, 6])[:, 1:4]
        y = tf.concat([m, s, tf.constant(N)], -1)
        return grad(tf.transpose(y)[:5], [a, m], 5, 5)

    def gather_rows():
        t = tf.constant(TABLE)
        y = tf.gather(t, [4, 0, 4, 2])
        return grad(y, t, 4, 3)

    def gather_rows_2d_indices():
        t = tf.constant(TABLE)
        y = tf.transpose(tf.gather(t, [[1, 1], [5, 0]]), [1, 0, 2])
        return grad(y, t, 2, 2, 3)

    def gather_reshape_transpose_slice():
        t = tf.constant(TABLE)
        g = tf.gather(t, [3, 3, 1, 0, 5, 3])
        y = tf.reshape(tf.transpose(tf.reshape(g, [2, 3, 3]), [0, 2, 1]), [3, 2, 3])[:, ::-1]
        return grad(y, t, 3, 2, 3)

    def gather_of_gather():
        t = tf.constant(TABLE)
        y = tf.gather(tf.gather(t, [5, 1, 2, 1]), [3, 0, 3])
        return grad(y, t, 3, 3)

    def gather_axis1():
        a = x()
        y = tf.gather(a, [[2, 0], [4, 4], [1, 3]], axis=1)
        return grad(tf.reshape(y, [4, 6, 6])[:, 0], a, 4, 6)

    def gather_axis_neg():
        a = x()
        y = tf.reshape(tf.gather(a, [5, 0, 5], axis=-1)[:2], [2, 15])[:, ::5]
        return grad(y, a, 2, 3)

    def gather_batch_dims():
        a = x()
        y = tf.gather(a, [[0, 4], [1, 1], [3, 2], [2, 2]], axis=1, batch_dims=1)
        return grad(tf.reshape(y, [4, 12])[:, :6], a, 4, 6)

    def concat_rows_then_gather():
        t, u = tf.constant(TABLE), tf.constant(M)
        y = tf.gather(tf.concat([t, u], 0), [0, 7, 5, 10, 7])
        return grad(y, [t, u], 5, 3)

    def concat_cols_then_gather():
        t, u = tf.constant(TABLE), tf.constant(TABLE[:, :2] * 2)
        y = tf.gather(tf.concat([t, u], 1), [5, 2, 2])
        return grad(y, [t, u], 3, 5)

    def tile_then_gather():
        t = tf.constant(TABLE[:2])
        y = tf.gather(tf.tile(t, [3, 2]), [0, 5, 3, 2])
        return grad(y, t, 4, 6)

    def tile_dense():
        a = tf.constant(M[:2])
        return grad(tf.reshape(tf.tile(a, [4, 2]), [6, 8])[:, :4], a, 6, 4)

    def resource_gather():
        v = tf.Variable(TABLE, use_resource=True)
        y = tf.gather(v, [[1, 0], [1, 3]])
        return grad(y, v, 2, 2, 3)

    def resource_gather_reshape():
        v = tf.Variable(TABLE, use_resource=True)
        y = tf.transpose(tf.reshape(tf.gather(v, [2, 2, 5, 0]), [3, 4]))[:, ::-1]
        return grad(y, v, 4, 3)

    def split_unstack_stack():
        a = tf.constant(M)
        p, q = tf.split(a, [2, 3], axis=0)
        r = tf.unstack(q, axis=1)
        y = tf.concat([tf.stack([r[2], r[0]], axis=1), p[:, 1:]], 0)
        return grad(y, a, 5, 2)

    def split_equal():
        a = x()
        parts = tf.split(a, 3, axis=-1)
        return grad(tf.reshape(parts[1], [4, 10])[:, :5], a, 4, 5)

    def expand_squeeze_identity():
        a = tf.constant(M)
        y = tf.squeeze(tf.expand_dims(tf.identity(a), 1), [1])
        return grad(tf.transpose(y), a, 3, 5)

    def broadcast_fill_pack():
        a = tf.constant(M[:1, :3])  # [1, 3]
        s = tf.constant(np.float32(1.5))
        y = tf.stack([tf.broadcast_to(a, [2, 3]), tf.fill([2, 3], s)], axis=1)
        return grad(y, [a, s], 2, 2, 3)

    def scatter_nd_gather_nd():
        u = tf.constant(M[:3])
        sc = tf.scatter_nd([[4], [1], [4]], u, [6, 3])
        t = tf.constant(TABLE)
        gn = tf.raw_ops.GatherNd(params=t, indices=[[0, 1], [5, 2], [0, 1]])
        gr = tf.raw_ops.GatherNd(params=t, indices=[[3], [1]])
        return (grad(sc[:4], u, 4, 3) + grad(gr, t, 2, 3)
                + tf.gradients(gn, t, grad_ys=tf.constant(grad_ys(3))))

    def unsorted_segment_sum_negative():
        d = tf.constant(TABLE)
        y = tf.unsorted_segment_sum(d, [0, -1, 2, 0, 3, -1], 4)
        return grad(y, d, 4, 3)

    def pad_raw():
        a = tf.constant(M)
        y = tf.raw_ops.Pad(input=a, paddings=[[1, 2], [0, 3]])
        return grad(tf.reshape(y, [8, 6])[:, 1:6], a, 8, 5)

    def unknown_reshape_strided():
        a = unknown(X)
        y = tf.reshape(a, [-1, 6])[3::-2, ::4]
        return grad(y, a, 2, 2)

    def unknown_slice_concat():
        a, m = unknown(X), unknown(M)
        y = tf.concat([tf.slice(a, [0, 1, 2], [-1, 4, 1])[:, :, 0], tf.transpose(m)[:, 1:]], 0)
        return grad(y, [a, m], 7, 4)

    def unknown_gather_axis1():
        a = unknown(X)
        y = tf.gather(a, [3, 3, 0], axis=1)
        return grad(y, a, 4, 3, 6)

    def unknown_gather_rows():
        t = unknown(TABLE)
        y = tf.gather(t, [5, 5, 0])
        return grad(y, t, 3, 3)

    def unknown_tile_transpose():
        a = unknown(M[:2])
        y = tf.transpose(tf.tile(a, [3, 1]), tf.placeholder_with_default([1, 0], [2]))
        return grad(y[:, :5], a, 3, 5)

    def second_order_strided_slice():
        a = x()
        w = _w(tf, 2, 3, 6)
        g = tf.gradients(a[1:4:2, ::-2], a, grad_ys=w)[0]  # StridedSliceGrad of w
        return tf.gradients(g, w, grad_ys=_w(tf, 4, 5, 6))

    def second_order_slice():
        a = x()
        w = _w(tf, 3, 5, 6)
        g = tf.gradients(tf.slice(a, [1, 0, 0], [3, -1, -1]), a, grad_ys=w)[0]  # Pad of w
        return tf.gradients(g, w, grad_ys=_w(tf, 4, 5, 6))

    return {name: fn for name, fn in locals().items()
            if callable(fn) and name not in ("grad", "x", "unknown")}


# Cases whose gradient TensorFlow returns as IndexedSlices but tfmini densifies, because the
# gradient of a concatenation along axis 0 selects rows with a ``Where`` op tfmini lacks.
DENSE_IN_TFMINI = {("concat_rows_then_gather", 0), ("concat_rows_then_gather", 1)}


def raw_cases(tf) -> dict:
    """name -> thunk building one helper op (tfmini/ops/array_grad.py) on run-time inputs.

    The recorder keeps the value, or the run-time error's message when the op fails.
    """

    def unknown(value):
        return tf.placeholder_with_default(np.asarray(value), None)

    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    i32 = np.int32

    def gather_nd(params, indices, **kw):
        return lambda: tf.raw_ops.GatherNd(params=unknown(params), indices=unknown(indices), **kw)

    def pad(paddings):
        return lambda: tf.raw_ops.Pad(input=unknown(m), paddings=unknown(np.array(paddings, i32)))

    def ssg(shape, begin, end, strides, dy, **masks):
        return lambda: tf.raw_ops.StridedSliceGrad(
            shape=unknown(np.array(shape, i32)), begin=begin, end=end, strides=strides,
            dy=unknown(np.asarray(dy, np.float32)), **masks)

    def invert(x):
        return lambda: tf.raw_ops.InvertPermutation(x=unknown(np.array(x, i32)))

    def concat_offset(axis, *shapes):
        return lambda: tf.raw_ops.ConcatOffset(
            concat_dim=unknown(i32(axis)), shape=[unknown(np.array(s, i32)) for s in shapes])

    return {
        "gather_nd_pairs": gather_nd(m, np.array([[2, 1], [0, 3]], i32)),
        "gather_nd_rows_int64": gather_nd(m, np.array([[[2]], [[0]]], np.int64)),
        "gather_nd_empty_index": gather_nd(m, np.zeros((2, 0), i32)),
        "gather_nd_ignore": gather_nd(m, np.array([[0, 1], [5, 0]], i32),
                                      bad_indices_policy="IGNORE"),
        "gather_nd_out_of_range": gather_nd(m, np.array([[0, 1], [5, 0]], i32)),
        "gather_nd_negative": gather_nd(m, np.array([[[0], [-1]]], i32)),
        "gather_nd_too_deep": gather_nd(m, np.array([[0, 1, 1]], i32)),
        "gather_nd_scalar_params": gather_nd(np.float32(1), np.zeros((2, 0), i32)),
        "gather_nd_scalar_indices": gather_nd(m, i32(1)),
        "gather_nd_empty_params": gather_nd(np.ones((0, 4), np.float32), np.zeros((2, 1), i32)),
        "pad_ok": pad([[1, 0], [2, 1]]),
        "pad_zero": pad([[0, 0], [0, 0]]),
        "pad_negative": pad([[0, -1], [0, 0]]),
        "pad_three_columns": pad([[0, 1, 1], [0, 0, 1]]),
        "pad_wrong_rank": pad([[0, 1]]),
        "ssg_negative_stride": ssg([3, 4], [0, 3], [2, 0], [1, -2], np.ones((2, 2))),
        "ssg_masks": ssg([3, 4], [1, 0, 2], [0, 0, 3], [1, 1, 1], np.arange(2).reshape(2, 1),
                         begin_mask=0, end_mask=1, ellipsis_mask=2, new_axis_mask=0,
                         shrink_axis_mask=0),
        "ssg_shrink_newaxis": ssg([3, 4], [0, 0, 1], [0, 3, 2], [1, 1, 1], [[5.0, 6.0, 7.0]],
                                  new_axis_mask=1, shrink_axis_mask=4, begin_mask=2),
        "ssg_wrong_dy": ssg([3, 4], [0], [2], [1], np.ones((3, 4))),
        "ssg_matrix_shape": ssg([[3, 4]], [0], [2], [1], np.ones((2, 4))),
        "invert_ok": invert([2, 0, 3, 1]),
        "invert_duplicate": invert([0, 0, 1]),
        "invert_out_of_range": invert([0, 3, 1]),
        "invert_matrix": lambda: tf.raw_ops.InvertPermutation(x=unknown(np.zeros((1, 1), i32))),
        "concat_offset": concat_offset(1, [2, 3, 4], [2, 5, 4], [2, 1, 4]),
        "concat_offset_negative": concat_offset(-1, [2, 3, 4], [2, 3, 1]),
        "concat_offset_mismatch": concat_offset(1, [2, 3, 4], [3, 5, 4]),
        "concat_offset_axis_range": concat_offset(3, [2, 3, 4], [2, 5, 4]),
        "concat_offset_rank": concat_offset(0, [2, 3, 4], [2, 5]),
    }
