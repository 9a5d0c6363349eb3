"""The worked cases T7-T14 (tensorflow/python/tpu/tests/tpu_embedding_base_test.py), each
against an independent NumPy reference: activations, per-row gradients, one training step per
optimizer, dynamic learning-rate tags, clipping, weight decay, sharding, and inference mode."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ops.tpu_embedding import worked as W

T = W.T


def _updated(table, grads, update):
    """``table`` with ``update(row, e, g)`` applied to each touched row (others unchanged)."""
    out = table.astype(np.float64).copy()
    for r, g in grads.items():
        out[r] = update(r, out[r], np.asarray(g, np.float64))
    return out


def _touched(name):
    return sorted(W.ref_table_gradients(W.TABLES)[name])


# ------------------------------------------------------------------------------------------
# T7: forward activations (first core of TF's test, and the whole batch, every enqueue op).


def test_t7_first_core_activations_match_tensorflows_test():
    sgd = T.StochasticGradientDescentParameters()
    cfg = W.config(W.opt_params(stochastic_gradient_descent=sgd), batch=2)
    step = W.Step(cfg, {"video": [], "user": []}, batch=2)
    video, user = step.run()
    # Rows b * 2 + f: watched is f = 0, favorited f = 1.
    np.testing.assert_array_equal(video[0::2], [[0, 1, 2, 3], [4, 6, 8, 10]])
    np.testing.assert_array_equal(video[1::2], [[4, 6, 8, 10], [4, 5, 6, 7]])
    np.testing.assert_array_equal(user, [[6, 7], [2, 3]])
    step.close()


@pytest.mark.parametrize("kind", ["sparse", "sparse_tensor", "ragged", "arbitrary",
                                  "arbitrary_sparse"])
def test_t7_activations_agree_for_every_enqueue_op(kind):
    features = kind.startswith("arbitrary")
    cfg = W.config(W.opt_params(adagrad=T.AdagradParameters()), features=features)
    slots = {"video": [np.full((8, 4), 0.1, np.float32)], "user": [np.full((16, 2), 0.1,
                                                                             np.float32)]}
    step = W.Step(cfg, slots, kind=kind)
    acts = step.run()
    ref = W.ref_activations(W.TABLES)
    if features:
        got = dict(zip(W.FEATURES, acts))
    else:
        video, user = acts
        got = {"watched": video[0::2], "favorited": video[1::2], "friends": user}
    for name in W.FEATURES:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-6, err_msg=name)
    step.close()


# ------------------------------------------------------------------------------------------
# T8: SGD; the per-row gradients summed over occurrences and features.


def test_t8_sgd_step_applies_summed_row_gradients_once():
    lr = 0.1
    cfg = W.config(W.opt_params(lr, stochastic_gradient_descent=(
        T.StochasticGradientDescentParameters())))
    step = W.Step(cfg, {"video": [], "user": []})
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    # Row 0 of video is hit by watched and favorited in several samples: one summed update.
    assert len(grads["video"]) == 2 and sorted(grads["user"]) == [0, 1, 2, 3]
    for name in ("video", "user"):
        (got,) = step.table(name)
        want = _updated(W.TABLES[name], grads[name], lambda r, e, g: e - lr * g)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)
    # Untouched rows are unchanged, bit for bit.
    (user,) = step.table("user")
    np.testing.assert_array_equal(user[4:], W.USER[4:])
    step.close()


# ------------------------------------------------------------------------------------------
# T9: Adagrad (accumulators), two steps so the accumulator carries over.


def test_t9_adagrad_two_steps_with_accumulators():
    lr, a0 = 0.1, 0.1
    cfg = W.config(W.opt_params(lr, adagrad=T.AdagradParameters()))
    slots = {n: [np.full(t.shape, a0, np.float32)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    tables = {n: t.astype(np.float64) for n, t in W.TABLES.items()}
    accs = {n: np.full(t.shape, a0) for n, t in W.TABLES.items()}
    for _ in range(2):
        step.run()
        grads = W.ref_table_gradients(tables)
        for name, rows in grads.items():
            for r, g in rows.items():
                accs[name][r] = accs[name][r] + g * g
                tables[name][r] = tables[name][r] - lr * g / np.sqrt(accs[name][r])
    for name in W.TABLES:
        params, acc = step.table(name)
        np.testing.assert_allclose(params, tables[name], rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(acc, accs[name], rtol=1e-5, err_msg=name)
    step.close()


# ------------------------------------------------------------------------------------------
# T10: Adam without bias correction; lazy; both epsilon placements; non-lazy variant.


@pytest.mark.parametrize("sum_inside_sqrt", [False, True])
def test_t10_adam_step_no_bias_correction(sum_inside_sqrt):
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-3
    cfg = W.config(W.opt_params(lr, adam=T.AdamParameters(
        beta1=b1, beta2=b2, epsilon=eps, use_sum_inside_sqrt=sum_inside_sqrt)))
    zeros = {n: [np.zeros_like(t), np.zeros_like(t)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, zeros)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name in W.TABLES:
        m = {r: (1 - b1) * g for r, g in grads[name].items()}
        v = {r: (1 - b2) * g * g for r, g in grads[name].items()}

        def update(r, e, g, m=m, v=v):
            denom = np.sqrt(v[r] + eps * eps) if sum_inside_sqrt else np.sqrt(v[r]) + eps
            return e - lr * m[r] / denom

        params, momenta, velocities = step.table(name)
        np.testing.assert_allclose(params, _updated(W.TABLES[name], grads[name], update),
                                   rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(momenta, _updated(np.zeros_like(W.TABLES[name]), m,
                                                     lambda r, e, g: g), rtol=1e-5)
        np.testing.assert_allclose(velocities, _updated(np.zeros_like(W.TABLES[name]), v,
                                                        lambda r, e, g: g), rtol=1e-5)
    step.close()


def test_t10_non_lazy_adam_also_moves_untouched_rows():
    lr, b1, b2, eps = 0.1, 0.5, 0.9, 1e-3
    cfg = W.config(W.opt_params(lr, adam=T.AdamParameters(
        beta1=b1, beta2=b2, epsilon=eps, use_non_lazy_adam=True)))
    m0 = {n: np.ones_like(t) for n, t in W.TABLES.items()}
    slots = {n: [m0[n], np.ones_like(t)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, table in W.TABLES.items():
        g = np.zeros(table.shape)
        for r, row in grads[name].items():
            g[r] = row
        m = b1 * 1.0 + (1 - b1) * g
        v = b2 * 1.0 + (1 - b2) * g * g
        want = table - lr * m / (np.sqrt(v) + eps)
        params, momenta, _ = step.table(name)
        np.testing.assert_allclose(params, want, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(momenta, m, rtol=1e-6)
    step.close()


# ------------------------------------------------------------------------------------------
# T11: FTRL, TF's test reference (l1 = l2 = 0) and the regularised form.


@pytest.mark.parametrize("l1,l2,lr_power", [(0.0, 0.0, -0.5), (0.5, 0.25, -0.5),
                                            (0.01, 0.1, -0.25)])
def test_t11_ftrl_step(l1, l2, lr_power):
    lr, a0 = 0.5, 0.1
    cfg = W.config(W.opt_params(lr, ftrl=T.FtrlParameters(l1=l1, l2=l2, lr_power=lr_power)))
    lin0 = {n: np.full(t.shape, 0.2, np.float32) for n, t in W.TABLES.items()}
    slots = {n: [np.full(t.shape, a0, np.float32), lin0[n]] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    p = -lr_power
    for name, table in W.TABLES.items():
        e_want = table.astype(np.float64).copy()
        acc_want = np.full(table.shape, a0)
        lin_want = np.full(table.shape, 0.2)
        for r, g in grads[name].items():
            a_new = a0 + g * g
            sigma = (a_new ** p - a0 ** p) / lr
            lin = 0.2 + g - sigma * table[r]
            quadratic = a_new ** p / lr + 2 * l2
            e_want[r] = np.where(np.abs(lin) > l1, (np.sign(lin) * l1 - lin) / quadratic, 0.0)
            acc_want[r], lin_want[r] = a_new, lin
        params, acc, lin = step.table(name)
        np.testing.assert_allclose(params, e_want, rtol=2e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(acc, acc_want, rtol=1e-5)
        np.testing.assert_allclose(lin, lin_want, rtol=1e-5, atol=1e-5)
    step.close()


# ------------------------------------------------------------------------------------------
# T12: AdagradMomentum, Momentum and RMSProp.


@pytest.mark.parametrize("nesterov,beta2", [(False, 1.0), (True, 0.9)])
def test_t12_adagrad_momentum_step(nesterov, beta2):
    lr, mu, eps, exponent = 0.1, 0.7, 1e-2, 2.0
    cfg = W.config(W.opt_params(lr, adagrad_momentum=T.AdagradMomentumParameters(
        momentum=mu, use_nesterov=nesterov, exponent=exponent, beta2=beta2, epsilon=eps)))
    slots = {n: [np.full(t.shape, 0.5, np.float32), np.full(t.shape, 0.25, np.float32)]
             for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, table in W.TABLES.items():
        def update(r, e, g):
            a = 0.5 + g * g if beta2 == 1.0 else beta2 * 0.5 + (1 - beta2) * g * g
            pre = (a + eps) ** (-1.0 / exponent)
            m = mu * 0.25 + g * pre
            return e - lr * ((mu * m + g * pre) if nesterov else m)

        params, _, _ = step.table(name)
        np.testing.assert_allclose(params, _updated(table, grads[name], update), rtol=1e-5)
    step.close()


@pytest.mark.parametrize("nesterov", [False, True])
def test_t12_momentum_step(nesterov):
    lr, mu = 0.1, 0.9
    cfg = W.config(W.opt_params(lr, momentum=T.MomentumParameters(momentum=mu,
                                                                  use_nesterov=nesterov)))
    slots = {n: [np.full(t.shape, 0.5, np.float32)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, table in W.TABLES.items():
        def update(r, e, g):
            m = mu * 0.5 + g
            return e - lr * (g + mu * m) if nesterov else e - lr * m

        params, momenta = step.table(name)
        np.testing.assert_allclose(params, _updated(table, grads[name], update), rtol=1e-5)
        np.testing.assert_allclose(
            momenta, _updated(np.full(table.shape, 0.5), grads[name],
                              lambda r, e, g: mu * e + g), rtol=1e-5)
    step.close()


def test_t12_rms_prop_step():
    lr, rho, mu, eps = 0.1, 0.9, 0.5, 1e-2
    cfg = W.config(W.opt_params(lr, rms_prop=T.RmsPropParameters(rho=rho, momentum=mu,
                                                                 epsilon=eps)))
    slots = {n: [np.full(t.shape, 1.0, np.float32), np.full(t.shape, 0.1, np.float32)]
             for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, table in W.TABLES.items():
        def update(r, e, g):
            ms = rho * 1.0 + (1 - rho) * g * g
            return e - (mu * 0.1 + lr * g / np.sqrt(ms + eps))

        params, ms, mom = step.table(name)
        np.testing.assert_allclose(params, _updated(table, grads[name], update), rtol=1e-5)
    step.close()


# ------------------------------------------------------------------------------------------
# T13: dynamic learning-rate tags, gradient and weight clipping, weight decay.


def test_t13_dynamic_learning_rate_tags_pick_each_tables_rate():
    sgd = T.StochasticGradientDescentParameters()
    cfg = W.config(
        W.opt_params(T.LearningRate(dynamic=T.DynamicLearningRate(tag=1)),
                     stochastic_gradient_descent=sgd),
        W.opt_params(T.LearningRate(dynamic=T.DynamicLearningRate(tag=0)),
                     stochastic_gradient_descent=sgd))
    assert T.dynamic_learning_rate_tags(cfg) == (0, 1)
    step = W.Step(cfg, {"video": [], "user": []}, learning_rates=[0.5, 0.01])
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, lr in (("video", 0.01), ("user", 0.5)):
        (got,) = step.table(name)
        np.testing.assert_allclose(
            got, _updated(W.TABLES[name], grads[name], lambda r, e, g, lr=lr: e - lr * g),
            rtol=1e-6, err_msg=name)
    # A different feed on the next step is used at once (the rate is an input, not state).
    tables = {n: step.table(n)[0].astype(np.float64) for n in W.TABLES}
    step.run([0.0, 0.0])
    for name in W.TABLES:
        np.testing.assert_array_equal(step.table(name)[0], tables[name].astype(np.float32))
    step.close()


def test_t13_gradient_clipping_before_and_weight_clipping_after():
    lr = 1.0
    params = W.opt_params(
        lr, adagrad=T.AdagradParameters(),
        gradient_clipping_limits=T.ClippingLimits(lower=-0.5, upper=1.5),
        clipping_limits=T.ClippingLimits(lower=0.25, upper=20.0))
    cfg = W.config(params)
    slots = {n: [np.full(t.shape, 0.1, np.float32)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    for name, table in W.TABLES.items():
        def update(r, e, g):
            g = np.clip(g, -0.5, 1.5)
            return np.clip(e - lr * g / np.sqrt(0.1 + g * g), 0.25, 20.0)

        got, acc = step.table(name)
        np.testing.assert_allclose(got, _updated(table, grads[name], update), rtol=1e-5)
        # The accumulator saw the clipped gradient.
        want_acc = _updated(np.full(table.shape, 0.1), grads[name],
                            lambda r, e, g: e + np.clip(g, -0.5, 1.5) ** 2)
        np.testing.assert_allclose(acc, want_acc, rtol=1e-5)
    # Untouched rows were not clipped (rows outside the batch keep 31 > 20).
    np.testing.assert_array_equal(step.table("video")[0][7], W.VIDEO[7])
    step.close()


@pytest.mark.parametrize("by_lr", [False, True])
def test_t13_weight_decay_on_touched_rows(by_lr):
    lr, wd = 0.1, 0.05
    cfg = W.config(W.opt_params(lr, stochastic_gradient_descent=(
        T.StochasticGradientDescentParameters()), weight_decay_factor=wd,
        multiply_weight_decay_factor_by_learning_rate=by_lr))
    step = W.Step(cfg, {"video": [], "user": []})
    step.run()
    grads = W.ref_table_gradients(W.TABLES)
    decay = wd * lr if by_lr else wd
    for name, table in W.TABLES.items():
        (got,) = step.table(name)
        want = _updated(table, grads[name], lambda r, e, g: e - lr * g - decay * e)
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=name)
    step.close()


# ------------------------------------------------------------------------------------------
# T14: sharding across 1, 2 and 4 simulated cores (DIV and MOD); inference mode.


def _train_twice(cores, strategy, kind="sparse"):
    cfg = W.config(W.opt_params(0.3, adam=T.AdamParameters(beta1=0.9, beta2=0.99,
                                                            epsilon=1e-3)),
                   cores=cores, strategy=strategy, features=kind.startswith("arbitrary"))
    zeros = {n: [np.zeros_like(t), np.zeros_like(t)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, zeros, kind=kind)
    acts = [step.run() for _ in range(2)]
    tables = {n: step.table(n) for n in W.TABLES}
    step.close()
    return acts, tables


@pytest.mark.parametrize("strategy", ["DIV_DEFAULT", "MOD"])
@pytest.mark.parametrize("cores", [2, 4])
def test_t14_sharding_gives_the_results_of_one_core(cores, strategy):
    acts1, tables1 = _train_twice(1, "DIV_DEFAULT")
    acts, tables = _train_twice(cores, strategy)
    for a, b in zip(acts1, acts):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    for name in W.TABLES:
        for x, y in zip(tables1[name], tables[name]):
            np.testing.assert_array_equal(x, y)
    # The step did train (else equality would prove nothing).
    assert not np.array_equal(tables1["video"][0], W.VIDEO)


@pytest.mark.parametrize("strategy,shards", [
    ("DIV_DEFAULT", [[0, 1, 2], [3, 4, 5], [6, 7]]),  # the first 8 % 3 shards hold one more
    ("MOD", [[0, 3, 6], [1, 4, 7], [2, 5]]),
])
def test_t14_retrieve_by_shard_follows_the_strategy(strategy, shards):
    # The device holds 4 core shards; Retrieve cuts 3 (another count) from them.
    cfg = W.config(W.opt_params(stochastic_gradient_descent=(
        T.StochasticGradientDescentParameters())), cores=4, strategy=strategy)
    step = W.Step(cfg, {"video": [], "user": []})
    for shard, rows in enumerate(shards):
        (got,) = step.table("video", num_shards=3, shard_id=shard)
        np.testing.assert_array_equal(got, W.VIDEO[rows])
    step.close()


@pytest.mark.parametrize("how", ["config", "override"])
def test_t14_inference_mode_never_updates(how):
    mode = "INFERENCE" if how == "config" else "TRAINING"
    cfg = W.config(W.opt_params(1.0, adagrad=T.AdagradParameters()), mode=mode)
    slots = {n: [np.full(t.shape, 0.1, np.float32)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    if how == "override":
        with step.graph.as_default():
            si, ids, w = W.sparse_batch_inputs()
            step.enqueue = W.R.EnqueueTPUEmbeddingSparseBatch(
                sample_indices=si, embedding_indices=ids, aggregation_weights=w,
                mode_override="inference", combiners=["sum", "mean"])
    acts = step.run()
    np.testing.assert_array_equal(acts[1], [[6, 7], [2, 3], [6, 7], [2, 3]])
    for name, table in W.TABLES.items():
        params, acc = step.table(name)
        np.testing.assert_array_equal(params, table)
        np.testing.assert_array_equal(acc, np.full(table.shape, 0.1, np.float32))
    step.close()


@pytest.mark.parametrize("strategy", ["DIV_DEFAULT", "MOD"])
@pytest.mark.parametrize("cores", [1, 2, 4])
def test_t14_each_core_holds_its_shard_as_its_own_array(cores, strategy):
    # White-box: the device keeps one array per simulated core, laid out by the strategy
    # (results cannot show the layout, since every layout gives the same numbers).
    cfg = W.config(W.opt_params(adagrad=T.AdagradParameters()), cores=cores,
                   strategy=strategy)
    slots = {n: [np.full(t.shape, 0.1, np.float32)] for n, t in W.TABLES.items()}
    step = W.Step(cfg, slots)
    device = step.sess._device("TPU").resource_manager.lookup("", "tpu_embedding")
    video = device.state.tables[0]
    assert len(video.slots["parameters"]) == cores
    for k, shard in enumerate(video.slots["parameters"]):
        rows = T.shard_row_ids(8, cores, k, strategy)
        np.testing.assert_array_equal(shard, W.VIDEO[rows])
    step.close()
