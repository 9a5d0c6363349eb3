"""SparseTensor (fetch, feed, static shape) and the sparse ops' kernels on cases worked by hand;
their TensorFlow goldens are in tests/ops/nn/test_sampled.py (sampled_cases ``sparse_ops``,
``sparse/*``, ``safe/*``)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


def test_sparse_tensor_fetches_as_a_value_and_keeps_its_static_shape(graph):
    st = tm.SparseTensor([[0, 1], [2, 0]], [1.5, -2.0], [3, 4])
    assert st.shape.as_list() == [3, 4] and st.dtype == tm.float32
    assert st.indices.dtype == tm.int64 and st.dense_shape.dtype == tm.int64
    with tm.Session() as sess:
        v = sess.run(st)
    assert isinstance(v, tm.SparseTensorValue)
    np.testing.assert_array_equal(v.indices, [[0, 1], [2, 0]])
    np.testing.assert_array_equal(v.values, [1.5, -2.0])
    np.testing.assert_array_equal(v.dense_shape, [3, 4])


def test_sparse_placeholder_is_fed_a_value_or_a_tuple(graph):
    sp = tm.sparse_placeholder(tm.float32, shape=[None, 3], name="sp")
    assert sp.values.name == "sp/values:0" and sp.indices.name == "sp/indices:0"
    dense = tm.sparse.to_dense(sp)
    value = tm.SparseTensorValue(np.array([[1, 2]], np.int64), np.array([7.0], np.float32),
                                 np.array([2, 3], np.int64))
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(dense, {sp: value}), [[0, 0, 0], [0, 0, 7]])
        as_tuple = ([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
        np.testing.assert_array_equal(sess.run(dense, {sp: as_tuple}), [[1, 0], [0, 2]])
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {sp: np.zeros(3)})


def test_sparse_tensor_rejects_wrong_ranks(graph):
    with pytest.raises(ValueError, match="indices must have rank 2"):
        tm.SparseTensor([0, 1], [1.0, 2.0], [3])


def test_fill_empty_rows_keeps_each_rows_order_and_maps_back(graph):
    # Rows out of order: row 2's entries keep their input order; rows 1 and 3 are empty.
    idx = np.array([[2, 3], [0, 1], [2, 0]], np.int64)
    op = tm.raw_ops.SparseFillEmptyRows(indices=idx, values=[1.0, 2.0, 3.0],
                                        dense_shape=np.array([4, 5], np.int64),
                                        default_value=-1.0)
    with tm.Session() as sess:
        out_idx, out_vals, empty, rmap = sess.run(list(op))
    np.testing.assert_array_equal(out_idx, [[0, 1], [1, 0], [2, 3], [2, 0], [3, 0]])
    np.testing.assert_array_equal(out_vals, [2, -1, 1, 3, -1])
    np.testing.assert_array_equal(empty, [False, True, False, True])
    np.testing.assert_array_equal(rmap, [2, 0, 3])


def test_fill_empty_rows_bad_row_is_invalid_argument(graph):
    op = tm.raw_ops.SparseFillEmptyRows(indices=np.array([[5, 0]], np.int64), values=[1.0],
                                        dense_shape=np.array([4, 5], np.int64),
                                        default_value=0.0)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"indices\(0, 0\) is invalid"):
            sess.run(op[0])


def test_sparse_reshape_and_where(graph):
    st = tm.SparseTensor([[0, 3], [2, 1]], [1, 2], [3, 4])
    r = tm.sparse.reshape(st, [-1, 6])
    w = tm.where(tm.constant([[True, False], [False, True]]))
    with tm.Session() as sess:
        v, coords = sess.run([r, w])
    np.testing.assert_array_equal(v.indices, [[0, 3], [1, 3]])
    np.testing.assert_array_equal(v.dense_shape, [2, 6])
    np.testing.assert_array_equal(coords, [[0, 0], [1, 1]])


def test_segment_sum_requires_sorted_ids(graph):
    out = tm.segment_sum(tm.constant([1.0, 2.0, 3.0]), [0, 2, 1])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="not increasing"):
            sess.run(out)


def test_sparse_segment_mean_divides_by_count_and_gives_sparse_gradient(graph):
    data = tm.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    out = tm.sparse.segment_mean(data, [3, 0, 3], [0, 0, 2], sparse_gradient=True)
    (g,) = tm.gradients(tm.reduce_sum(out), [data])
    assert isinstance(g, tm.IndexedSlices)
    with tm.Session() as sess:
        v, gv = sess.run([out, g])
    np.testing.assert_allclose(v, [[3, 4], [0, 0], [6, 7]])
    np.testing.assert_array_equal(gv.indices, [0, 3])
    np.testing.assert_allclose(gv.values, [[0.5, 0.5], [1.5, 1.5]])
