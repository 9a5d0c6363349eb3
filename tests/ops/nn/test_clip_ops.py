"""tf.clip_by_value / clip_by_norm / global_norm / clip_by_global_norm (TensorFlow's clip_ops).

Expected values and names are TensorFlow 2.21's for the same graphs (tf.compat.v1).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


def _run(fetches):
    with tm.Session() as sess:
        return sess.run(fetches)


def test_clip_by_value_values_names_and_gradient():
    g = tm.Graph()
    with g.as_default():
        a = tm.constant([3.0, 4.0, -1.0])
        c = tm.clip_by_value(a, 0.5, 3.5)
        c2 = tm.clip_by_value(a, 0.0, 1.0)
        (grad,) = tm.gradients(tm.reduce_sum(c * c), [a])
        assert c.op.name == "clip_by_value" and c.op.type == "Maximum"
        assert c2.op.name == "clip_by_value_1"
        assert [o.name for o in g.get_operations() if o.name.startswith("clip_by_value/")] == [
            "clip_by_value/Minimum/y", "clip_by_value/Minimum", "clip_by_value/y"]
        got, got2, got_grad = _run([c, c2, grad])
    np.testing.assert_array_equal(got, [3.0, 3.5, 0.5])
    np.testing.assert_array_equal(got2, [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(got_grad, [6.0, 0.0, 0.0])


def test_clip_by_value_keeps_indexed_slices_and_refuses_broadcasting():
    with tm.Graph().as_default():
        s = tm.IndexedSlices(tm.constant([[1.0, -2.0]]), tm.constant([1]), tm.constant([3, 2]))
        cs = tm.clip_by_value(s, 0.0, 0.5)
        assert isinstance(cs, tm.IndexedSlices)
        assert cs.indices is s.indices and cs.dense_shape is s.dense_shape
        np.testing.assert_array_equal(_run(cs.values), [[0.5, 0.0]])
        with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(2, 2\) are incompatible"):
            tm.clip_by_value(tm.constant([1.0, 2.0]), [0.0, 0.0], [[1.0, 1.0], [2.0, 2.0]])


def test_clip_by_norm_and_its_zero_guard():
    with tm.Graph().as_default():
        b = tm.constant([[1.0, 2.0]])
        n = tm.clip_by_norm(b, 1.0)
        z = tm.clip_by_norm(tm.zeros([2]), 1.0)
        rows = tm.clip_by_norm(tm.constant([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=[1])
        (grad,) = tm.gradients(tm.reduce_sum(n), [b])
        assert n.op.name == "clip_by_norm" and n.op.type == "Identity"
        got_n, got_z, got_rows, got_grad = _run([n, z, rows, grad])
    np.testing.assert_allclose(got_n, [[0.4472136, 0.8944272]], rtol=1e-6)
    np.testing.assert_array_equal(got_z, [0.0, 0.0])
    np.testing.assert_allclose(got_rows, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(got_grad, [[0.17888546, -0.08944267]], rtol=1e-5)


def test_global_norm_and_clip_by_global_norm():
    with tm.Graph().as_default():
        a = tm.constant([3.0, 4.0])
        b = tm.constant([[1.0, 2.0]])
        s = tm.IndexedSlices(tm.constant([[1.0, 1.0]]), tm.constant([1]), tm.constant([3, 2]))
        clipped, norm = tm.clip_by_global_norm([a, None, b, s], 2.0)
        gn = tm.global_norm([a, b])
        assert norm.name == "global_norm/global_norm:0"
        assert gn.name == "global_norm_1/global_norm:0"
        assert clipped[1] is None and isinstance(clipped[3], tm.IndexedSlices)
        assert clipped[0].name == "clip_by_global_norm/clip_by_global_norm/_0:0"
        got = _run([norm, gn, clipped[0], clipped[2], clipped[3].values])
        # a norm below clip_norm leaves the values as they are
        small, small_norm = tm.clip_by_global_norm([a], 10.0)
        got_small = _run(small + [small_norm])
        # a non-finite norm makes every value NaN
        nan, _ = tm.clip_by_global_norm([tm.constant([np.inf, 1.0])], 1.0)
        got_nan = _run(nan[0])
    np.testing.assert_allclose(got[0], 5.656854, rtol=1e-6)
    np.testing.assert_allclose(got[1], 5.477226, rtol=1e-6)
    np.testing.assert_allclose(got[2], [1.0606601, 1.4142135], rtol=1e-6)
    np.testing.assert_allclose(got[3], [[0.35355338, 0.70710677]], rtol=1e-6)
    np.testing.assert_allclose(got[4], [[0.35355338, 0.35355338]], rtol=1e-6)
    np.testing.assert_allclose(got_small[0], [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(got_small[1], 5.0, rtol=1e-6)
    assert np.isnan(got_nan).all()


def test_global_norm_wants_a_sequence():
    with tm.Graph().as_default():
        a = tm.constant([3.0, 4.0])
        with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
            tm.global_norm(a)
        with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
            tm.clip_by_global_norm(a, 1.0)
