"""tm.nn functions built from other ops: sigmoid cross-entropy and embedding_lookup."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


def _logistic_loss(x, z):
    # The definition: -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)), in float64.
    s = 1.0 / (1.0 + np.exp(-x))
    return -z * np.log(s) - (1 - z) * np.log1p(-s)


def test_sigmoid_cross_entropy_matches_its_definition_and_is_stable(graph):
    x = np.array([-30.0, -1.0, 0.0, 2.0, 40.0, 100.0], np.float32)
    z = np.array([0.0, 1.0, 0.5, 1.0, 0.0, 1.0], np.float32)
    loss = tm.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    assert loss.name == "logistic_loss:0"
    with tm.Session() as sess:
        got = sess.run(loss)
    assert np.all(np.isfinite(got))  # the stable form does not overflow
    want = _logistic_loss(x[:4].astype(np.float64), z[:4].astype(np.float64))
    np.testing.assert_allclose(got[:4], want, rtol=1e-5, atol=1e-7)
    # Where the naive definition overflows: the loss tends to x (label 0) and to 0 (label 1).
    np.testing.assert_allclose(got[4:], [40.0, 0.0], atol=1e-6)


def test_sigmoid_cross_entropy_gradient_and_errors(graph):
    x = tm.placeholder(tm.float64, shape=(4,))
    z = np.array([0.0, 1.0, 0.3, 1.0])
    loss = tm.reduce_sum(tm.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x))
    with tm.Session():
        err = tm.test.compute_gradient_error(x, (4,), loss, (), x_init_value=[-2.0, -0.5, 0.7, 3])
    assert err < 1e-7
    with pytest.raises(ValueError, match="named arguments"):
        tm.nn.sigmoid_cross_entropy_with_logits(z, x)
    with pytest.raises(ValueError, match="same shape"):
        tm.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1.0, 2.0, 3.0])


def test_embedding_lookup_gathers_rows_with_sparse_gradients(graph):
    table = tm.Variable(np.arange(8.0, dtype=np.float32).reshape(4, 2), name="table")
    rows = tm.nn.embedding_lookup([table], [3, 1, 3])
    assert rows.name == "embedding_lookup/Identity:0"
    grad = tm.gradients(tm.reduce_sum(rows), table)[0]
    assert isinstance(grad, tm.IndexedSlices)
    with tm.Session() as sess:
        sess.run(table.initializer)
        np.testing.assert_array_equal(sess.run(rows), [[6, 7], [2, 3], [6, 7]])
        g = sess.run(grad)
    dense = np.zeros((4, 2), np.float32)
    np.add.at(dense, g.indices, g.values)
    np.testing.assert_array_equal(dense, [[0, 0], [1, 1], [0, 0], [2, 2]])


def test_embedding_lookup_strategy_is_checked_only_for_shards(graph):
    # TensorFlow's embedding_ops.py ignores partition_strategy for one table and refuses an
    # unknown one only when there are several shards (sharding is tested in test_sampled.py).
    t = tm.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    one = tm.nn.embedding_lookup(t, [3, 0], partition_strategy="mix")
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(one), [[6, 7], [0, 1]])
    with pytest.raises(ValueError, match="partition strategy"):
        tm.nn.embedding_lookup([t, t], [0], partition_strategy="mix")
