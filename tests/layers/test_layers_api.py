"""tm.layers / tm.losses / tm.metrics behaviour beyond the recorded goldens: the Layer object
API, reuse, regularizers and constraints, contrib and Keras regularizers against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm

X = np.array([[1, 2, 3], [4, 5, 6]], np.float32)


def test_layer_object_exposes_weights_losses_and_updates(graph):
    layer = tm.layers.Dense(2, kernel_regularizer=lambda w: tm.reduce_sum(w),
                            activity_regularizer=lambda y: tm.reduce_sum(tm.abs(y)))
    assert layer.name == "dense_1" and not layer.built
    with pytest.raises(ValueError, match="has not been used yet"):
        _ = layer.scope_name
    y = layer(tm.constant(X))
    assert layer.built and layer.scope_name == "dense"
    assert [v.name for v in layer.trainable_weights] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.non_trainable_weights == [] and layer.weights == layer.variables
    assert [t.name for t in layer.losses] == [
        "dense/kernel/Regularizer/Sum:0", "dense/ActivityRegularizer/truediv:0"]
    assert tm.get_collection(tm.GraphKeys.REGULARIZATION_LOSSES) == layer.losses
    bn = tm.layers.BatchNormalization()
    bn(y, training=True)
    assert [v.name for v in bn.non_trainable_weights] == [
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(bn.updates) == 2
    assert tm.get_collection(tm.GraphKeys.UPDATE_OPS) == bn.updates
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        k, out, act = sess.run([layer.kernel, y, layer.losses[1]])
        np.testing.assert_allclose(out, X @ k, rtol=1e-6)
        np.testing.assert_allclose(act, np.abs(X @ k).sum() / 2, rtol=1e-5)


def test_auto_reuse_shares_variables_and_untrainable_layers_train_nothing(graph):
    x = tm.constant(X)
    for _ in range(2):
        with tm.variable_scope("tower", reuse=tm.AUTO_REUSE):
            tm.layers.dense(x, 3, name="fc")
    assert [v.name for v in tm.global_variables()] == ["tower/fc/kernel:0", "tower/fc/bias:0"]
    frozen = tm.layers.Dense(2, trainable=False)
    frozen(x)
    assert frozen.trainable_weights == [] and len(frozen.non_trainable_weights) == 2
    assert len(tm.trainable_variables()) == 2


def test_kernel_constraint_is_applied_by_the_optimizer(graph):
    x = tm.constant(X)
    y = tm.layers.dense(x, 2, kernel_initializer=tm.constant_initializer(1.0),
                        kernel_constraint=lambda w: tm.clip_by_value(w, -0.5, 0.45))
    train = tm.train.GradientDescentOptimizer(0.1).minimize(tm.reduce_sum(y))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(train)
        kernel = sess.run(tm.global_variables()[0])
    # One step: 1 - 0.1 * [5, 7, 9] = [0.5, 0.3, 0.1]; the constraint clips 0.5 to 0.45.
    want = np.clip(1 - 0.1 * X.sum(0), -0.5, 0.45)[:, None] * np.ones((1, 2))
    np.testing.assert_allclose(kernel, want, rtol=1e-6)


def test_contrib_and_keras_regularizers_match_numpy(graph):
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    v = tm.constant(w)
    reg = tm.contrib.layers
    got = [reg.l1_regularizer(0.1)(v), reg.l2_regularizer(0.2)(v),
           reg.l1_l2_regularizer(0.1, 0.2)(v), tm.keras.regularizers.l2(0.3)(v),
           tm.keras.regularizers.l1_l2(0.1, 0.2)(v),
           reg.apply_regularization(reg.l1_regularizer(0.5), [v, v * 2])]
    want = [0.1 * np.abs(w).sum(), 0.2 * (w ** 2).sum() / 2,
            0.1 * np.abs(w).sum() + 0.2 * (w ** 2).sum() / 2, 0.3 * (w ** 2).sum(),
            0.1 * np.abs(w).sum() + 0.2 * (w ** 2).sum(), 0.5 * 3 * np.abs(w).sum()]
    with tm.Session() as sess:
        np.testing.assert_allclose(sess.run(got), want, rtol=1e-6)
    assert reg.l2_regularizer(0.0)(v) is None
    assert tm.get_collection(tm.GraphKeys.REGULARIZATION_LOSSES) == [got[-1]]
    with pytest.raises(ValueError, match="scale cannot be an integer: 1"):
        reg.l1_regularizer(1)
    with pytest.raises(ValueError, match="less than 0 on a regularizer: -0.5"):
        reg.l2_regularizer(-0.5)


def test_reduction_keys_and_loss_collection(graph):
    reduction = tm.losses.Reduction
    assert reduction.SUM_OVER_NONZERO_WEIGHTS == reduction.SUM_BY_NONZERO_WEIGHTS
    with pytest.raises(ValueError, match="Invalid Reduction Key x"):
        tm.losses.Reduction.validate("x")
    loss = tm.losses.mean_squared_error([[1.0]], [[3.0]], reduction=tm.losses.Reduction.NONE)
    assert tm.losses.get_losses() == [loss]
    with tm.Graph().as_default(), pytest.raises(ValueError, match="No losses"):
        tm.losses.get_total_loss()


def test_metric_state_is_local_and_reset_by_the_local_initializer(graph):
    acc, update = tm.metrics.accuracy([1, 0, 1], tm.constant([1, 1, 1]))
    assert tm.global_variables() == []
    assert [v.name for v in tm.local_variables()] == ["accuracy/total:0", "accuracy/count:0"]
    assert tm.get_collection(tm.GraphKeys.METRIC_VARIABLES) == tm.local_variables()
    with tm.Session() as sess:
        sess.run(tm.local_variables_initializer())
        sess.run(update)
        assert sess.run(update) == pytest.approx(2 / 3)
        sess.run(tm.local_variables_initializer())
        assert sess.run(acc) == 0.0


def test_batch_norm_training_placeholder_of_wrong_kind_fails_cleanly(graph):
    x = tm.placeholder(tm.float32, [4, 3])
    with pytest.raises(TypeError, match="'pred' of 'Switch' Op has type int32"):
        tm.layers.batch_normalization(x, training=tm.placeholder(tm.int32, []))
    with pytest.raises(NotImplementedError, match="renorm"):
        tm.layers.batch_normalization(x, renorm=True)
