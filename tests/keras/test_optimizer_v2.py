"""The OptimizerV2 behaviour of keras optimizer_v2_test.py (tf_keras's legacy optimizer tests),
through Adagrad: clipping, weights, hyper-parameters, iterations, gradients, errors."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tfmini as tm
from tfmini.keras.optimizers.optimizer_v2 import NotAVariableError

Adagrad = tm.keras.optimizers.Adagrad


def _init(sess):
    sess.run(tm.global_variables_initializer())


def _accumulators_after_one_step(grads, **kwargs):
    """The accumulators (0.1 + clipped g^2) after one step with constant gradients."""
    with tm.Graph().as_default():
        vs = [tm.Variable(np.zeros(np.shape(g), np.float32)) for g in grads]
        opt = Adagrad(1.0, **kwargs)
        train = opt.apply_gradients(
            [(tm.constant(np.asarray(g, np.float32)), v) for g, v in zip(grads, vs)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            return [np.sqrt(sess.run(opt.get_slot(v, "accumulator")) - 0.1) * np.sign(g)
                    for v, g in zip(vs, grads)]


def test_grad_clip_value():
    (g,) = _accumulators_after_one_step([[3.0, -0.5]], clipvalue=1.0)
    np.testing.assert_allclose(g, [1.0, -0.5], rtol=1e-5)


def test_grad_clip_norm():
    (g,) = _accumulators_after_one_step([[3.0]], clipnorm=1.0)
    np.testing.assert_allclose(g, [1.0], rtol=1e-5)
    (g,) = _accumulators_after_one_step([[0.3, 0.4]], clipnorm=1.0)  # below: unchanged
    np.testing.assert_allclose(g, [0.3, 0.4], rtol=1e-5)


def test_grad_global_clip_norm():
    g0, g1 = _accumulators_after_one_step([[3.0], [4.0]], global_clipnorm=2.0)
    np.testing.assert_allclose([g0[0], g1[0]], [1.2, 1.6], rtol=1e-5)


def test_clip_value_comes_before_clip_norm():
    # clipvalue first: [3, 4] -> [1, 1] (norm 1.414) -> clipnorm 1 -> [0.707, 0.707].
    # The other order would give [0.6, 0.8].
    (g,) = _accumulators_after_one_step([[3.0, 4.0]], clipvalue=1.0, clipnorm=1.0)
    np.testing.assert_allclose(g, [0.70710677, 0.70710677], rtol=1e-5)


def test_gradient_transformers_run_after_clipping():
    seen = []

    def double(pairs):
        seen.append(len(pairs))
        return [(g * 2.0, v) for g, v in pairs]

    with tm.Graph().as_default():
        v = tm.Variable([0.0])
        opt = Adagrad(1.0, clipvalue=1.0)
        opt.gradient_transformers = [double]
        train = opt.apply_gradients([(tm.constant([5.0]), v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            np.testing.assert_allclose(sess.run(opt.get_slot(v, "accumulator")), [4.1])
    assert seen == [1]
    with pytest.raises(ValueError, match="cannot be set when `gradient_transformers`"):
        opt.clipnorm = 1.0


def test_aggregation_flag_and_custom_aggregator():
    calls = []

    def aggregator(pairs):
        calls.append(len(pairs))
        return pairs

    with tm.Graph().as_default():
        v = tm.Variable([1.0])
        opt = Adagrad(1.0)
        opt.gradient_aggregator = aggregator
        opt.apply_gradients([(tm.constant([1.0]), v)])
        opt.apply_gradients([(tm.constant([1.0]), v)], experimental_aggregate_gradients=False)
    assert calls == [1]


def test_apply_gradients_returns_the_iterations_increment_and_names_updates():
    with tm.Graph().as_default():
        v = tm.Variable([1.0], name="v")
        opt = Adagrad()
        op = opt.apply_gradients([(tm.constant([1.0]), v)], name="train")
        assert op.type == "AssignAddVariableOp"
        assert op.name == "Adagrad/train/AssignAddVariableOp"
        names = [o.name for o in tm.get_default_graph().get_operations()]
        assert "Adagrad/train/update_v/ResourceApplyAdagradV2" in names
        with tm.Session() as sess:
            _init(sess)
            for step in range(1, 4):
                sess.run(op)
                assert sess.run(opt.iterations) == step


def test_iteration_without_minimize_is_zero_and_int64():
    with tm.Graph().as_default():
        opt = Adagrad()
        it = opt.iterations
        assert it.dtype == tm.int64 and it.name == "iter:0"
        assert opt.weights == [it]
        with tm.Session() as sess:
            _init(sess)
            assert sess.run(it) == 0


def test_optimizer_set_iterations_shares_a_global_step():
    with tm.Graph().as_default():
        step = tm.Variable(np.int64(0), name="global_step", trainable=False)
        v = tm.Variable([1.0])
        opt = Adagrad()
        opt.iterations = step
        train = opt.apply_gradients([(tm.constant([1.0]), v)])
        assert opt.weights[0] is step
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            sess.run(train)
            assert sess.run(step) == 2
        with pytest.raises(RuntimeError, match="Cannot set `iterations` to a new Variable"):
            opt.iterations = step
        fresh = Adagrad()
        _ = fresh.iterations  # reading creates it
        with pytest.raises(RuntimeError, match="after the Optimizer weights have been created"):
            fresh.iterations = step


def test_weights_round_trip_and_mismatch_errors():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0], name="v")
        w = tm.Variable([[3.0]], name="w")
        opt1, opt2 = Adagrad(0.5), Adagrad(0.5, name="Other")
        t1 = opt1.minimize(lambda: tm.reduce_sum(v * v) + tm.reduce_sum(w), [v, w])
        opt2.apply_gradients([(tm.constant([0.0, 0.0]), v), (tm.constant([[0.0]]), w)])
        assert [x.name for x in opt1.weights] == [
            "Adagrad/iter:0", "Adagrad/v/accumulator:0", "Adagrad/w/accumulator:0"]
        assert opt1.variables() == opt1.weights
        with tm.Session() as sess:
            _init(sess)
            sess.run(t1)
            sess.run(t1)
            saved = opt1.get_weights()
            assert saved[0] == 2 and len(saved) == 3
            opt2.set_weights(saved)
            for a, b in zip(opt2.get_weights(), saved):
                np.testing.assert_array_equal(a, b)
            with pytest.raises(ValueError, match="but the optimizer was expecting 3 weights"):
                opt2.set_weights(saved[:1])
            with pytest.raises(ValueError,
                               match=r"Optimizer weight shape \(2,\) not compatible with "
                                     r"provided weight shape \(3,\)"):
                opt2.set_weights([saved[0], np.zeros(3), saved[2]])
        with pytest.raises(RuntimeError, match="default session"):
            opt1.get_weights()


def test_getting_and_setting_hyper_parameters():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        opt = Adagrad(3.0)
        opt.learning_rate = 2.0  # before the variables exist: replaces the value
        assert opt.get_config()["learning_rate"] == 2.0
        train = opt.apply_gradients([(tm.constant([0.5, 0.5]), v)])
        lr = opt.learning_rate
        assert isinstance(lr, tm.Variable) and lr.name == "Adagrad/learning_rate:0"
        assert opt.lr is lr
        assert "lr" in dir(opt) and "learning_rate" in dir(opt)
        with tm.Session() as sess:
            _init(sess)
            assert sess.run(lr) == 2.0
            opt.learning_rate = 0.05  # assigns the variable in the default session
            assert sess.run(lr) == pytest.approx(0.05)
            assert opt.get_config()["learning_rate"] == pytest.approx(0.05)
            opt.lr = 0.5
            assert sess.run(opt.learning_rate) == 0.5
            before = sess.run(v)
            sess.run(train)  # the adaptive step uses the new rate
            np.testing.assert_allclose(
                sess.run(v), before - 0.5 * 0.5 / (np.sqrt(0.35) + 1e-7), rtol=1e-5)
        with pytest.raises(AttributeError, match="'Adagrad' object has no attribute 'nope'"):
            _ = opt.nope


def test_hyper_parameters_with_lr_in_constructor():
    with tm.Graph().as_default(), pytest.warns(UserWarning):
        opt = Adagrad(lr=3.0)
        assert opt.lr is opt.learning_rate
        with tm.Session() as sess:
            _init(sess)
            assert sess.run(opt.lr) == 3.0
            opt.lr = 2.0
            assert sess.run(opt.learning_rate) == 2.0


def test_no_gradients_errors_and_warnings(caplog):
    with tm.Graph().as_default():
        v, w = tm.Variable([1.0], name="v"), tm.Variable([2.0], name="w")
        opt = Adagrad()
        with pytest.raises(ValueError, match=r"No gradients provided for any variable: "
                                             r"\(\['v:0'\],\)"):
            opt.minimize(lambda: tm.reduce_sum(w), var_list=[v])
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opt.apply_gradients([(None, v), (None, w)])
        with caplog.at_level(logging.WARNING, logger="tfmini.keras"):
            opt.apply_gradients([(None, v), (tm.constant([1.0]), w)])
        assert "Gradients do not exist for variables ['v:0']" in caplog.text
        empty = opt.apply_gradients([])
        assert empty.type == "NoOp"


def test_malformed_grads_and_vars():
    with tm.Graph().as_default():
        v = tm.Variable([1.0])
        g = tm.constant([1.0])
        opt = Adagrad()
        with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
            opt.apply_gradients([(g, v, 1)])
        with pytest.raises(TypeError):
            opt.apply_gradients([g])
        with pytest.raises(TypeError, match="Updating a `Tensor` is not implemented"):
            opt.apply_gradients([(g, tm.constant([1.0]))])


def test_compute_gradients_with_tensors_then_apply_is_not_implemented():
    with tm.Graph().as_default():
        x = tm.convert_to_tensor(1.0)
        opt = Adagrad(3.0)
        (grad, x_as_var), = opt._compute_gradients(lambda: x * x, [x])
        assert x_as_var is x
        with tm.Session() as sess:
            assert sess.run(grad) == 2.0
        with pytest.raises(NotImplementedError):
            opt.apply_gradients([(grad, x)])
        assert issubclass(NotAVariableError, TypeError)


def test_minimize_needs_a_tape_for_a_tensor_loss_and_takes_callables():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        loss = tm.reduce_sum(v * v)
        opt = Adagrad(0.1)
        with pytest.raises(ValueError, match="`tape` is required when a `Tensor` loss is passed"):
            opt.minimize(loss, [v])
        t_tape = opt.minimize(loss, [v], tape=object())  # graph mode: the tape is not used
        t_call = opt.minimize(lambda: tm.reduce_sum(v * v), lambda: [v])
        with tm.Session() as sess:
            _init(sess)
            sess.run(t_tape)
            sess.run(t_call)
            assert sess.run(opt.iterations) == 2


def test_precomputed_gradient_via_grad_loss():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        opt = Adagrad(1.0)
        train = opt.minimize(lambda: v * 3.0, [v], grad_loss=tm.constant([2.0, -1.0]))
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            g = np.array([6.0, -3.0])
            want = [1.0, 2.0] - g / (np.sqrt(0.1 + g * g) + 1e-7)
            np.testing.assert_allclose(sess.run(v), want, atol=1e-6)  # 1 - 0.9986: cancels


def test_gradients_as_variables():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        g = tm.Variable([0.5, 0.5])
        train = Adagrad(1.0).apply_gradients([(g, v)])
        with tm.Session() as sess:
            _init(sess)
            sess.run(train)
            np.testing.assert_allclose(sess.run(v), np.array([1.0, 2.0]) - 0.5 / (
                np.sqrt(0.35) + 1e-7), rtol=1e-5)


def test_get_gradients_and_get_updates():
    with tm.Graph().as_default():
        v = tm.Variable([1.0, 2.0])
        w = tm.Variable([5.0])
        loss = tm.reduce_sum(v * v)
        opt = Adagrad(1.0)
        (grad,) = opt.get_gradients(loss, [v])
        with pytest.raises(ValueError, match="has `None` for gradient"):
            opt.get_gradients(loss, [v, w])
        (update,) = opt.get_updates(loss, [v])
        with tm.Session() as sess:
            _init(sess)
            np.testing.assert_allclose(sess.run(grad), [2.0, 4.0])
            sess.run(update)
            assert sess.run(opt.iterations) == 1


def test_empty_var_list_is_a_no_op():
    with tm.Graph().as_default():
        op = Adagrad().apply_gradients([])
        with tm.Session() as sess:
            _init(sess)
            sess.run(op)


def test_config_with_session_reads_the_variable():
    with tm.Graph().as_default():
        v = tm.Variable([1.0])
        opt = Adagrad(0.25, decay=0.1, clipvalue=0.5)
        opt.apply_gradients([(tm.constant([1.0]), v)])
        with tm.Session() as sess:
            _init(sess)
            opt.learning_rate = 0.75
            config = opt.get_config()
        assert config == {"name": "Adagrad", "clipvalue": 0.5, "learning_rate": 0.75,
                          "decay": 0.1, "initial_accumulator_value": 0.1, "epsilon": 1e-7}
        again = Adagrad.from_config(config)
        assert again.get_config() == config
        assert Adagrad.from_config({"lr": 0.5, "name": "A"}).get_config()["learning_rate"] == 0.5
        assert Adagrad.from_config({"learning_rate": 0.5}).get_config()[
            "initial_accumulator_value"] == 0.1
