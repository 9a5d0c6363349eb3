"""Cases for the SparseTensor ops of tfmini/ops/array/sparse_math.py and sparse_layout.py
(tm.sparse.add, reduce_sum, sparse_dense_matmul, reorder, concat, slice, transpose,
from_dense, to_indicator) and their gradients, shared by tools/record_goldens_sparse.py and
tests/ops/array/test_sparse_more.py.

Each case is a function of the module under test (``tensorflow.compat.v1`` when recording,
``tfmini`` when testing); see tests/ops/math/complex_cases.py for the protocol. This module
never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(2026_12)

# An unordered 3x4 SparseTensor, an ordered one of the same shape, and a dense 4x2 matrix.
A_IDX = np.array([[2, 1], [0, 3], [1, 0], [0, 0], [2, 3]], np.int64)
A_VAL = _RNG.normal(size=5).astype(np.float32)
B_IDX = np.array([[0, 0], [0, 2], [1, 0], [2, 3]], np.int64)
B_VAL = _RNG.normal(size=4).astype(np.float32)
B_VAL[0] = -A_VAL[3]  # A + B cancels exactly at [0, 0]
SHAPE = np.array([3, 4], np.int64)
DENSE = _RNG.normal(size=(4, 2)).astype(np.float32)
DENSE_T = _RNG.normal(size=(3, 2)).astype(np.float32)
C3_IDX = np.array([[0, 1, 2], [1, 0, 1], [1, 2, 0], [0, 0, 0]], np.int64)
C3_VAL = _RNG.normal(size=4).astype(np.float64)
C3_SHAPE = np.array([2, 3, 3], np.int64)


def _sp(tf, idx=A_IDX, val=A_VAL, shape=SHAPE):
    return tf.SparseTensor(tf.constant(idx), tf.constant(val), tf.constant(shape))


def _weighted_sum(tf, t, seed):
    """sum(t * w) with weights that differ per element (t's shape may be unknown)."""
    flat = tf.reshape(t, [-1])
    w = tf.cast(tf.range(tf.size(flat)), t.dtype) * 0.375 + (0.5 + 0.125 * seed)
    return tf.reduce_sum(flat * w)


def _reorder(tf):
    a = _sp(tf)
    r = tf.sparse.reorder(a)
    loss = _weighted_sum(tf, r.values, 1)
    return {"r": r, "grad/values": tf.gradients(loss, a.values)[0]}, {}


def _add(tf):
    a, b = tf.sparse.reorder(_sp(tf)), _sp(tf, B_IDX, B_VAL)
    s = tf.sparse.add(a, b)
    s_thresh = tf.sparse.add(a, b, threshold=0.5)
    dense = tf.constant(_RNG.normal(size=(3, 4)).astype(np.float32))
    sd = tf.sparse.add(a, dense)
    ds = tf.sparse_add(dense, b)
    loss = (_weighted_sum(tf, s.values, 2) + _weighted_sum(tf, sd, 3)
            + _weighted_sum(tf, s_thresh.values, 4))
    ga, gb, gd = tf.gradients(loss, [a.values, b.values, dense])
    return {"s": s, "s_thresh": s_thresh, "sd": sd, "ds": ds, "grad/a": ga, "grad/b": gb,
            "grad/dense": gd}, {}


def _reduce_sum(tf):
    a = _sp(tf)
    c = _sp(tf, C3_IDX, C3_VAL, C3_SHAPE)
    outs = {"all": tf.sparse.reduce_sum(a), "axis1": tf.sparse.reduce_sum(a, 1),
            "axis0_keep": tf.sparse.reduce_sum(a, 0, keepdims=True),
            "c_axes": tf.sparse_reduce_sum(c, [0, 2]),
            "c_neg": tf.sparse.reduce_sum(c, -1),
            "sparse": tf.sparse.reduce_sum_sparse(a, 1),
            "sparse_keep": tf.sparse_reduce_sum_sparse(c, [1], keep_dims=True),
            "max_all": tf.sparse.reduce_max(a), "max_axis0": tf.sparse.reduce_max(a, 0),
            "max_keep": tf.sparse_reduce_max(c, [2], keepdims=True),
            "max_int": tf.sparse.reduce_max(tf.SparseTensor(
                tf.constant(B_IDX), tf.constant([-4, 2, -3, 7]), tf.constant(SHAPE)), 1),
            "max_sparse": tf.sparse.reduce_max_sparse(c, 1)}
    loss = (_weighted_sum(tf, outs["axis1"], 5) + _weighted_sum(tf, outs["all"], 6)
            + _weighted_sum(tf, outs["axis0_keep"], 7))
    outs["grad/a"] = tf.gradients(loss, a.values)[0]
    outs["grad/c"] = tf.gradients(_weighted_sum(tf, outs["c_axes"], 8), c.values)[0]
    return outs, {}


def _matmul(tf):
    a = tf.sparse.reorder(_sp(tf))
    b, bt = tf.constant(DENSE), tf.constant(DENSE_T)
    outs = {"ab": tf.sparse.sparse_dense_matmul(a, b),
            "atb": tf.sparse_tensor_dense_matmul(a, bt, adjoint_a=True),
            "abt": tf.sparse.sparse_dense_matmul(a, tf.transpose(b), adjoint_b=True),
            "atbt": tf.sparse.sparse_dense_matmul(a, tf.transpose(bt), adjoint_a=True,
                                                  adjoint_b=True)}
    for k, o in list(outs.items()):
        ga, gb = tf.gradients(_weighted_sum(tf, o, len(k)), [a.values, b if "tb" not in k
                                                             and k != "atb" else bt])
        outs[f"grad/{k}/a"], outs[f"grad/{k}/b"] = ga, gb
    return outs, {}


def _concat(tf):
    a = tf.sparse.reorder(_sp(tf))
    b = _sp(tf, B_IDX, B_VAL)
    c = _sp(tf, np.array([[1, 1]], np.int64), np.array([7.0], np.float32), np.array([3, 2]))
    return {"axis1": tf.sparse.concat(1, [a, b, c]),
            "axis0": tf.sparse_concat(0, [a, b]),
            "neg": tf.sparse.concat(-1, [b, a])}, {}


def _slice(tf):
    a = tf.sparse.reorder(_sp(tf))
    s = tf.sparse.slice(a, [0, 1], [2, 3])
    edge = tf.sparse_slice(a, [1, 2], [5, 5])
    loss = _weighted_sum(tf, s.values, 9) + _weighted_sum(tf, edge.values, 10)
    return {"s": s, "edge": edge, "grad/a": tf.gradients(loss, a.values)[0]}, {}


def _transpose(tf):
    a = tf.sparse.reorder(_sp(tf))
    c = _sp(tf, C3_IDX, C3_VAL, C3_SHAPE)
    t = tf.sparse.transpose(a)
    loss = _weighted_sum(tf, tf.sparse.to_dense(t), 11)
    return {"t": t, "perm": tf.sparse_transpose(c, [1, 0, 2]),
            "reverse": tf.sparse.transpose(c), "grad/a": tf.gradients(loss, a.values)[0]}, {}


def _from_dense_and_indicator(tf):
    x = tf.constant(np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, 3.0]], np.float32))
    ids = tf.SparseTensor(tf.constant([[0, 0], [0, 1], [1, 0], [2, 1]], tf.int64),
                          tf.constant([3, 0, 2, 3], tf.int64), tf.constant([3, 2], tf.int64))
    return {"from_dense": tf.sparse.from_dense(x),
            "from_dense_int": tf.sparse.from_dense(tf.constant([[0, 4], [0, 0]])),
            "indicator": tf.sparse.to_indicator(ids, 5),
            "expand0": tf.sparse.expand_dims(_sp(tf), 0),
            "expand_last": tf.sparse.expand_dims(_sp(tf, C3_IDX, C3_VAL, C3_SHAPE)),
            "expand_mid": tf.sparse.expand_dims(_sp(tf), -2),
            "eye": tf.sparse.eye(3),
            "eye_rect": tf.sparse.eye(2, 4, dtype=tf.int32),
            "to_complex": tf.to_complex64(x), "to_bf16": tf.to_bfloat16(x)}, {}


def _fed(tf):
    sp = tf.sparse_placeholder(tf.float32, [None, 4])
    r = tf.sparse.reorder(sp)
    feed = tf.SparseTensorValue(A_IDX, A_VAL, SHAPE)
    return {"sum": tf.sparse.reduce_sum(r, 1), "mm": tf.sparse.sparse_dense_matmul(
        r, tf.constant(DENSE))}, {sp: feed}


def _cwise(tf):
    a = tf.sparse.reorder(_sp(tf))
    d = tf.constant(_RNG.normal(size=(3, 4)).astype(np.float32))
    row = tf.constant(np.array([1.5, -2.0, 0.5, 4.0], np.float32))
    m, q = a * d, a / row
    ints = tf.SparseTensor(tf.constant(B_IDX), tf.constant([1, 2, 3, 4]), tf.constant(SHAPE))
    loss = _weighted_sum(tf, m.values, 12) + _weighted_sum(tf, q.values, 13)
    ga, gd, gr = tf.gradients(loss, [a.values, d, row])
    return {"mul": m, "div": q, "int_div": ints / tf.constant([2, 2, 2, 2]),
            "scalar": a * 2.0, "grad/a": ga, "grad/d": gd, "grad/row": gr}, {}


def _softmax_max_min(tf):
    a = tf.sparse.reorder(_sp(tf))
    b = _sp(tf, B_IDX, B_VAL)
    c = tf.sparse.reorder(_sp(tf, C3_IDX, C3_VAL, C3_SHAPE))
    sm = tf.sparse.softmax(a)
    sm3 = tf.sparse_softmax(c)
    ga = tf.gradients(_weighted_sum(tf, sm.values, 14), a.values)[0]
    gc = tf.gradients(_weighted_sum(tf, sm3.values, 15), c.values)[0]
    return {"softmax": sm, "softmax3": sm3, "max": tf.sparse.maximum(a, b),
            "min": tf.sparse_minimum(a, b), "grad/a": ga, "grad/c": gc}, {}


def value_cases(tf) -> dict:
    """Named cases: each a thunk returning ``(fetches, feeds)``."""
    return {
        "reorder": lambda: _reorder(tf),
        "add": lambda: _add(tf),
        "reduce_sum": lambda: _reduce_sum(tf),
        "matmul": lambda: _matmul(tf),
        "concat": lambda: _concat(tf),
        "slice": lambda: _slice(tf),
        "transpose": lambda: _transpose(tf),
        "from_dense_and_indicator": lambda: _from_dense_and_indicator(tf),
        "fed": lambda: _fed(tf),
        "cwise": lambda: _cwise(tf),
        "softmax_max_min": lambda: _softmax_max_min(tf),
        # TensorFlow's SparseReorder sorts without checking the bounds.
        "reorder_out_of_bounds": lambda: ({"r": tf.sparse.reorder(_sp(
            tf, np.array([[0, 0], [3, 1], [1, 9]], np.int64), np.array([1.0, 2.0, 3.0],
                                                                    np.float32)))}, {}),
    }


def build_error_cases(tf) -> dict:
    """Thunks that raise TypeError/ValueError while building."""
    return {
        "matmul_inner": lambda: tf.sparse.sparse_dense_matmul(
            _run_sp(tf, [[1, 0]], [1.0], [3, 4]), tf.ones([3, 2])),
        "add_two_dense": lambda: tf.sparse.add(tf.constant([1.0]), tf.constant([2.0])),
        "add_shapes": lambda: tf.sparse.add(_sp(tf, shape=np.array([3, 4])),
                                            tf.SparseTensor([[0]], [1.0], [4])),
    }


def _run_sp(tf, idx, val, shape):
    return tf.SparseTensor(tf.constant(np.array(idx, np.int64)),
                           tf.constant(np.array(val, np.float32)),
                           tf.constant(np.array(shape, np.int64)))


def run_error_cases(tf) -> dict:
    """Thunks returning ``(fetch, feeds)`` that fail when run (TensorFlow's messages)."""
    oob = lambda: _run_sp(tf, [[0, 0], [3, 1]], [1.0, 2.0], [3, 4])  # noqa: E731
    unordered = lambda: _run_sp(tf, [[1, 0], [0, 1]], [1.0, 2.0], [3, 4])  # noqa: E731
    return {
        "to_dense_out_of_bounds": lambda: (tf.sparse.to_dense(oob()), {}),
        "to_dense_out_of_order": lambda: (tf.sparse.to_dense(unordered()), {}),
        "to_dense_repeated": lambda: (tf.sparse.to_dense(
            _run_sp(tf, [[0, 1], [0, 1]], [1.0, 2.0], [3, 4])), {}),
        "dense_add_shapes": lambda: (tf.sparse.add(unordered(), tf.ones([3, 3])), {}),
        "matmul_index": lambda: (tf.sparse.sparse_dense_matmul(
            _run_sp(tf, [[0, 5]], [1.0], [3, 4]), tf.ones([4, 2])), {}),
        "reduce_write_index": lambda: (tf.sparse.reduce_sum(_run_sp(
            tf, [[0, 0], [5, 1]], [1.0, 2.0], [3, 4]), 1), {}),
        "reduce_axis": lambda: (tf.sparse.reduce_sum(unordered(), 2), {}),
        "concat_shapes": lambda: (tf.sparse.concat(0, [unordered(), _run_sp(
            tf, [[0, 0]], [1.0], [2, 5])]).values, {}),
        "add_sparse_shapes": lambda: (tf.sparse.add(unordered(), tf.SparseTensor(
            tf.constant([[0, 0]], tf.int64), tf.constant([1.0]),
            tf.placeholder_with_default(np.array([3, 5], np.int64), [2]))).values, {}),
    }
