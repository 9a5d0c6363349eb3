"""TF1 AdagradOptimizer: TensorFlow's python/training/adagrad_test.py cases and its
constructor check."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm

V0_AFTER_3 = [-1.6026098728179932, -0.6026098728179932]
V1_AFTER_3 = [2.715679168701172, 3.715679168701172]
TOLERANCE = {tm.float16: 2e-3, tm.float32: 1e-6, tm.float64: 1e-6}


@pytest.fixture
def g():
    graph = tm.Graph()
    with graph.as_default():
        yield graph


@pytest.mark.parametrize("dtype", [tm.float16, tm.float32, tm.float64], ids=lambda d: d.name)
def test_basic(g, dtype):
    v0 = tm.Variable([1.0, 2.0], dtype=dtype)
    v1 = tm.Variable([3.0, 4.0], dtype=dtype)
    grads0 = tm.constant([0.1, 0.1], dtype=dtype)
    grads1 = tm.constant([0.01, 0.01], dtype=dtype)
    opt = tm.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1)
    update = opt.apply_gradients(zip([grads0, grads1], [v0, v1]))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        np.testing.assert_allclose(sess.run(v0), [1.0, 2.0])
        for _ in range(3):
            sess.run(update)
        r0, r1 = sess.run([v0, v1])
    assert r0.dtype == dtype.np_dtype
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(r0, V0_AFTER_3, rtol=tol, atol=tol)
    np.testing.assert_allclose(r1, V1_AFTER_3, rtol=tol, atol=tol)


def test_minimize_sparse_resource_variable(g):
    var0 = tm.Variable([[1.0, 2.0]])
    x = tm.constant([[4.0], [5.0]])
    pred = tm.matmul(tm.gather(var0, [0]), x)
    loss = pred * pred
    op = tm.train.AdagradOptimizer(1.0).minimize(loss)
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(op)
        np.testing.assert_allclose(sess.run(var0), [[0.0, 1.0]], atol=0.01)


def test_tensor_learning_rate(g):
    v0 = tm.Variable([1.0, 2.0])
    v1 = tm.Variable([3.0, 4.0])
    opt = tm.train.AdagradOptimizer(tm.constant(3.0), initial_accumulator_value=0.1)
    update = opt.apply_gradients(zip([tm.constant([0.1, 0.1]), tm.constant([0.01, 0.01])],
                                     [v0, v1]))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for _ in range(3):
            sess.run(update)
        np.testing.assert_allclose(sess.run(v0), V0_AFTER_3, rtol=1e-6)
        np.testing.assert_allclose(sess.run(v1), V1_AFTER_3, rtol=1e-6)


def test_sparse_basic(g):
    v0 = tm.Variable([[1.0], [2.0]])
    v1 = tm.Variable([[3.0], [4.0]])
    grads0 = tm.IndexedSlices(tm.constant([0.1], shape=[1, 1]), tm.constant([0]),
                              tm.constant([2, 1]))
    grads1 = tm.IndexedSlices(tm.constant([0.01], shape=[1, 1]), tm.constant([1]),
                              tm.constant([2, 1]))
    opt = tm.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1)
    update = opt.apply_gradients(zip([grads0, grads1], [v0, v1]))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for _ in range(3):
            sess.run(update)
        np.testing.assert_allclose(sess.run(v0), [[V0_AFTER_3[0]], [2.0]], rtol=1e-6)
        np.testing.assert_allclose(sess.run(v1), [[3.0], [V1_AFTER_3[1]]], rtol=1e-6)
        acc = opt.get_slot(v0, "accumulator")
        np.testing.assert_allclose(sess.run(acc), [[0.1 + 3 * 0.01], [0.1]], rtol=1e-6)


def test_sparse_repeated_indices_by_embedding_lookup(g):
    var_repeated = tm.Variable([1.0, 2.0])
    loss_repeated = tm.reduce_sum(tm.gather(var_repeated, [0, 0]))
    var_aggregated = tm.Variable([1.0, 2.0])
    loss_aggregated = 2 * tm.reduce_sum(tm.gather(var_aggregated, [0]))
    update_r = tm.train.AdagradOptimizer(2.0).minimize(loss_repeated)
    update_a = tm.train.AdagradOptimizer(2.0).minimize(loss_aggregated)
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for _ in range(3):
            sess.run([update_r, update_a])
            np.testing.assert_allclose(*sess.run([var_repeated, var_aggregated]), rtol=1e-6)


def test_sharing(g):
    v0 = tm.Variable([1.0, 2.0])
    v1 = tm.Variable([3.0, 4.0])
    grads = [tm.constant([0.1, 0.1]), tm.constant([0.01, 0.01])]
    opt = tm.train.AdagradOptimizer(3.0)
    update1 = opt.apply_gradients(zip(grads, [v0, v1]))
    slot0 = opt.get_slot(v0, "accumulator")
    update2 = opt.apply_gradients(zip(grads, [v0, v1]))
    assert opt.get_slot(v0, "accumulator") is slot0
    assert [v.name for v in opt.variables()] == ["Variable/Adagrad:0", "Variable_1/Adagrad:0"]
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(update1)
        sess.run(update2)
        sess.run(update1)
        np.testing.assert_allclose(sess.run(v0), V0_AFTER_3, rtol=1e-6)
        np.testing.assert_allclose(sess.run(v1), V1_AFTER_3, rtol=1e-6)


def test_dynamic_shape_variable(g):
    v = tm.Variable(np.zeros(5, np.float32), shape=[None])
    opt = tm.train.AdagradOptimizer(1.0)
    update = opt.apply_gradients([(tm.ones([5]), v)])
    acc = opt.get_slot(v, "accumulator")
    with tm.Session() as sess:
        sess.run(v.initializer)
        sess.run(acc.initializer)  # after v: its shape comes from v's value
        np.testing.assert_allclose(sess.run(acc), np.full(5, 0.1))
        sess.run(update)
        np.testing.assert_allclose(sess.run(v), np.full(5, -1 / np.sqrt(1.1)), rtol=1e-6)


def test_float64_accumulator_starts_at_the_exact_value(g):
    v = tm.Variable([1.0], dtype=tm.float64)
    opt = tm.train.AdagradOptimizer(1.0, initial_accumulator_value=0.1)
    opt.apply_gradients([(tm.constant([0.0], tm.float64), v)])
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        assert sess.run(opt.get_slot(v, "accumulator"))[0] == 0.1


@pytest.mark.parametrize("value", [0.0, -0.1])
def test_initial_accumulator_value_must_be_positive(value):
    with pytest.raises(ValueError, match=f"^initial_accumulator_value must be positive: "
                                         f"{value}$"):
        tm.train.AdagradOptimizer(1.0, initial_accumulator_value=value)
