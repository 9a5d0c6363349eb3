"""tm.keras.optimizers.Adagrad: the keras adagrad_test cases (tf_keras's legacy adagrad_test.py)
against a NumPy reference, the sparse path, and Adagrad's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm

Adagrad = tm.keras.optimizers.Adagrad


def _adagrad_ref(var, acc, g, lr, eps=1e-7):
    acc = acc + g * g
    return var - lr * g / (np.sqrt(acc) + eps), acc


def _init(sess):
    sess.run(tm.global_variables_initializer())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_basic_against_numpy(dtype):
    with tm.Graph().as_default():
        v0 = tm.Variable(np.array([1.0, 2.0], dtype))
        v1 = tm.Variable(np.array([3.0, 4.0], dtype))
        g0, g1 = np.array([0.1, 0.1], dtype), np.array([0.01, 0.01], dtype)
        opt = Adagrad(3.0)
        train = opt.apply_gradients(zip([tm.constant(g0), tm.constant(g1)], [v0, v1]))
        with tm.Session() as sess:
            _init(sess)
            r0, a0 = np.array([1.0, 2.0], dtype), np.full(2, 0.1, dtype)
            r1, a1 = np.array([3.0, 4.0], dtype), np.full(2, 0.1, dtype)
            for step in range(3):
                assert sess.run(opt.iterations) == step
                sess.run(train)
                r0, a0 = _adagrad_ref(r0, a0, g0, 3.0)
                r1, a1 = _adagrad_ref(r1, a1, g1, 3.0)
                tol = {"rtol": 1e-3, "atol": 1e-3} if dtype == np.float16 else {"rtol": 1e-5}
                np.testing.assert_allclose(sess.run(v0), r0, **tol)
                np.testing.assert_allclose(sess.run(v1), r1, **tol)
                np.testing.assert_allclose(sess.run(opt.get_slot(v0, "accumulator")), a0, **tol)
            assert sess.run(v0).dtype == dtype


def test_decay_divides_by_one_plus_decay_times_the_step_before_increment():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        opt = Adagrad(3.0, decay=0.5)
        train = opt.apply_gradients([(tm.constant([0.1, 0.1]), v)])
        with tm.Session() as sess:
            _init(sess)
            ref, acc = np.array([1.0, 2.0]), np.full(2, 0.1)
            for t in range(3):
                sess.run(train)
                ref, acc = _adagrad_ref(ref, acc, 0.1, 3.0 / (1 + 0.5 * t))
            np.testing.assert_allclose(sess.run(v), ref, rtol=1e-5)  # float32 vs float64 ref


def test_minimize_sparse_resource_variable_by_embedding_lookup():
    with tm.Graph().as_default():
        var0 = tm.Variable([[1.0, 2.0]])
        x = tm.constant([[4.0], [5.0]])

        def loss():
            pred = tm.matmul(tm.gather(var0, [0]), x)
            return pred * pred

        train = Adagrad(1.0).minimize(loss, var_list=[var0])
        types = {op.type for op in tm.get_default_graph().get_operations()}
        assert "ResourceSparseApplyAdagradV2" in types and "Unique" in types
        assert "ResourceApplyAdagradV2" not in types
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            np.testing.assert_allclose(sess.run(var0), [[0.0, 1.0]], atol=0.01)


def test_sparse_repeated_indices_by_embedding_lookup_equal_aggregated():
    with tm.Graph().as_default():
        rep = tm.Variable([1.0, 2.0])
        agg = tm.Variable([1.0, 2.0])
        t_rep = Adagrad(2.0).minimize(lambda: tm.reduce_sum(tm.gather(rep, [0, 0])), [rep])
        t_agg = Adagrad(2.0).minimize(lambda: 2.0 * tm.reduce_sum(tm.gather(agg, [0])), [agg])
        with tm.Session() as sess:
            _init(sess)
            for _ in range(3):
                sess.run([t_rep, t_agg])
                np.testing.assert_allclose(sess.run(rep), sess.run(agg), rtol=1e-7)
            # duplicates summed before the update: one step of g = 2, not two of g = 1
            assert not np.allclose(sess.run(rep)[1], 1.0)


def test_sparse_update_touches_only_its_rows():
    with tm.Graph().as_default():
        v = tm.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        grad = tm.IndexedSlices(tm.constant([[0.1, 0.1], [0.2, 0.2]]), tm.constant([0, 2]),
                                tm.constant([3, 2]))
        opt = Adagrad(3.0)
        train = opt.apply_gradients([(grad, v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            got, acc = sess.run([v, opt.get_slot(v, "accumulator")])
    np.testing.assert_array_equal(got[1], [3.0, 4.0])
    np.testing.assert_allclose(acc, [[0.11, 0.11], [0.1, 0.1], [0.14, 0.14]], rtol=1e-6)
    np.testing.assert_allclose(got[0], 1.0 - 3.0 * 0.1 / (np.sqrt(0.11) + 1e-7) + [0, 1],
                               rtol=1e-5)


def test_epsilon_keeps_a_zero_gradient_on_a_zero_accumulator_finite():
    with tm.Graph().as_default():
        v = tm.Variable([1.0])
        train = Adagrad(1.0, initial_accumulator_value=0.0).apply_gradients(
            [(tm.constant([0.0]), v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            assert sess.run(v)[0] == 1.0


def test_lr_alias_warns_and_wins():
    with pytest.warns(UserWarning, match="The `lr` argument is deprecated"):
        opt = Adagrad(learning_rate=0.1, lr=1.0)
    assert opt.get_config()["learning_rate"] == 1.0


@pytest.mark.parametrize("eps", [None, 0, 0.0])
def test_epsilon_none_or_zero_is_keras_epsilon(eps):
    assert Adagrad(epsilon=eps).epsilon == 1e-7


def test_initial_accumulator_value_must_be_non_negative():
    with pytest.raises(ValueError, match="initial_accumulator_value must be non-negative: -0.1"):
        Adagrad(initial_accumulator_value=-0.1)
    Adagrad(initial_accumulator_value=0.0)  # zero is allowed (TF1's AdagradOptimizer refuses)


def test_integer_variables_are_a_type_error():
    with tm.Graph().as_default():
        v = tm.Variable([1, 2])
        with pytest.raises(TypeError, match="Expected int32, but got 0.1 of type 'float'"):
            Adagrad().apply_gradients([(tm.constant([1, 1]), v)])


def test_float64_variables_get_float64_slots():
    with tm.Graph().as_default():
        v = tm.Variable(np.array([1.0], np.float64))
        opt = Adagrad(0.5)
        opt.apply_gradients([(tm.constant(np.array([1.0])), v)])
        assert opt.get_slot(v, "accumulator").dtype == tm.float64


def test_get_slot_of_unknown_variable_is_a_key_error():
    with tm.Graph().as_default():
        v, w = tm.Variable([1.0], name="v"), tm.Variable([1.0], name="w")
        opt = Adagrad()
        opt.apply_gradients([(tm.constant([1.0]), v)])
        assert opt.get_slot_names() == ["accumulator"]
        with pytest.raises(KeyError, match="w"):
            opt.get_slot(w, "accumulator")
        with pytest.raises(KeyError):
            opt.get_slot(v, "momentum")


def test_constraint_is_applied_after_a_dense_update_and_refused_for_sparse():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0], constraint=lambda x: tm.minimum(tm.maximum(x, 0.0), 1.0))
        train = Adagrad(0.1).apply_gradients([(tm.constant([-1.0, -1.0]), v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            np.testing.assert_allclose(sess.run(v), [1.0, 1.0])
        sparse = tm.IndexedSlices(tm.constant([1.0]), tm.constant([0]), tm.constant([2]))
        with pytest.raises(RuntimeError, match="Cannot use a constraint function on a sparse"):
            Adagrad().apply_gradients([(sparse, v)])


def test_adagrad_set_weights_accepts_the_list_without_iterations():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        opt = Adagrad(1.0)
        train = opt.apply_gradients([(tm.constant([1.0, 1.0]), v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            opt.set_weights([np.array([5.0, 6.0], np.float32)])
            it, acc = opt.get_weights()
    assert it == 0
    np.testing.assert_array_equal(acc, [5.0, 6.0])
