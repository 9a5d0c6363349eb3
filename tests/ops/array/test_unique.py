"""Unique: first-appearance order and inverse indices, as tf.unique (values checked by hand
against TF 2.21's output for the same inputs)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


def test_unique_keeps_first_appearance_order():
    with tm.Graph().as_default():
        y, idx = tm.unique(tm.constant([3, 1, 3, 2]))
        assert idx.dtype == tm.int32
        with tm.Session() as sess:
            y_v, idx_v = sess.run([y, idx])
    np.testing.assert_array_equal(y_v, [3, 1, 2])
    np.testing.assert_array_equal(idx_v, [0, 1, 0, 2])


def test_unique_int64_idx_and_float_values():
    with tm.Graph().as_default():
        x = tm.placeholder(tm.float32, [None])
        y, idx = tm.unique(x, out_idx=tm.int64)
        with tm.Session() as sess:
            y_v, idx_v = sess.run([y, idx], {x: [2.5, -1.0, -1.0, 0.0, 2.5]})
            empty = sess.run([y, idx], {x: np.zeros(0, np.float32)})
    np.testing.assert_array_equal(y_v, [2.5, -1.0, 0.0])
    assert idx_v.dtype == np.int64
    np.testing.assert_array_equal(idx_v, [0, 1, 1, 2, 0])
    assert empty[0].shape == (0,) and empty[1].shape == (0,)


def test_unique_needs_a_vector():
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="rank 1"):
            tm.unique(tm.constant([[1, 2]]))
        p = tm.placeholder(tm.int32)
        y, _ = tm.unique(p)
        with tm.Session() as sess:
            with pytest.raises(tm.errors.InvalidArgumentError, match="unique expects a 1D vector"):
                sess.run(y, {p: [[1, 2]]})
