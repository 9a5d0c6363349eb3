"""Learning-rate decays and ExponentialMovingAverage (tfmini/train/learning_rate_decay.py,
moving_averages.py) against TensorFlow 2.21 (tests/goldens/optim.npz, recorded by
tools/record_goldens_optim.py); slot_creator; the optimizers' argument checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.train import slot_creator

GOLDENS = load_golden("optim")
DECAYS = sorted({k.split("/")[1] for k in GOLDENS
                 if k.startswith("decay/") and k.endswith("/config")})
STEPS = GOLDENS["decay/steps"]


@pytest.mark.parametrize("case", DECAYS)
def test_decay_series_matches_tensorflow(case):
    config = json.loads(str(GOLDENS[f"decay/{case}/config"]))
    want = GOLDENS[f"decay/{case}/values"]
    with tm.Graph().as_default():
        step = tm.placeholder(tm.int64, [], name="step")
        fn = getattr(tm.train, config["fn"])
        if config["fn"] == "piecewise_constant":
            lr = fn(step, **config["kwargs"])
        else:
            lr = fn(global_step=step, **config["kwargs"])
        if config["fn"] != "piecewise_constant":  # TensorFlow's is a case op's output
            assert lr.name == str(GOLDENS[f"decay/{case}/name"])
        assert lr.dtype == tm.as_dtype(want.dtype)
        with tm.Session() as sess:
            got = np.array([sess.run(lr, {step: s}) for s in STEPS])
    # float32 arithmetic (cos near its zeros, pow): a few ulps of difference.
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-9)


def test_decays_cover_every_function():
    fns = {json.loads(str(GOLDENS[f"decay/{c}/config"]))["fn"] for c in DECAYS}
    assert fns == {"exponential_decay", "inverse_time_decay", "natural_exp_decay",
                   "piecewise_constant", "polynomial_decay", "cosine_decay",
                   "cosine_decay_restarts", "linear_cosine_decay"}


@pytest.mark.parametrize("fn", ["exponential_decay", "polynomial_decay", "cosine_decay"])
def test_decays_need_a_global_step(fn):
    with tm.Graph().as_default(), pytest.raises(ValueError, match="global_step is required"):
        getattr(tm.train, fn)(0.1, None, 10, *([0.5] if fn == "exponential_decay" else []))


def test_piecewise_constant_checks_lengths():
    with tm.Graph().as_default(), pytest.raises(ValueError, match="1 less than"):
        tm.train.piecewise_constant(tm.constant(1), [1, 2], [1.0, 2.0])


def test_noisy_linear_cosine_decay_draws_tensorflows_noise():
    # Its noise is a random_normal op seeded from the graph seed: the same bits as TF's.
    with tm.Graph().as_default():
        tm.set_random_seed(3)
        step = tm.placeholder(tm.int64, [], name="step")
        lr = tm.train.noisy_linear_cosine_decay(0.1, step, 30)
        assert lr.name == str(GOLDENS["noisy/name"])
        with tm.Session() as sess:
            got = np.array([sess.run(lr, {step: s}) for s in STEPS])
    np.testing.assert_allclose(got, GOLDENS["noisy/values"], rtol=1e-5, atol=1e-8)


# ----------------------------------------------------------------------------------------
# ExponentialMovingAverage


@pytest.mark.parametrize("case", ["plain", "num_updates"])
def test_ema_of_variables_matches_tensorflow(case):
    names = json.loads(str(GOLDENS[f"ema/{case}/names"]))
    want = GOLDENS[f"ema/{case}/values"]
    num_updates = [0, 5, 100, 1000] if case == "num_updates" else None
    with tm.Graph().as_default():
        v = tm.Variable(10.0, name="v")
        w = tm.Variable([1.0, 2.0], name="w")
        n = tm.placeholder(tm.int64, [], name="n") if num_updates else None
        ema = tm.train.ExponentialMovingAverage(0.9, num_updates=n)
        update = ema.apply([v, w])
        assert update.name == names["update"]
        assert ema.average(v).name == names["shadow_v"]
        assert ema.average(w).name == names["shadow_w"]
        assert ema.average_name(v) == names["average_name_v"]
        assert [x.name for x in tm.moving_average_variables()] == names[
            "moving_average_variables"]
        assert sorted((k, x.name) for k, x in ema.variables_to_restore().items()) == [
            tuple(p) for p in names["variables_to_restore"]]
        assert [x.name for x in tm.trainable_variables()] == names["trainable"]
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            for k, (x, y) in enumerate(((20.0, 3.0), (0.0, -1.0), (5.0, 4.0), (7.0, 7.0))):
                sess.run([v.assign(x), w.assign([y, 2 * y])])
                sess.run(update, {n: num_updates[k]} if num_updates else None)
                a, b = sess.run([ema.average(v), ema.average(w)])
                np.testing.assert_allclose(np.concatenate([[a], b]), want[k], rtol=1e-6)


@pytest.mark.parametrize("case", ["tensor", "tensor_debias"])
def test_ema_of_tensors_matches_tensorflow(case):
    names = json.loads(str(GOLDENS[f"ema/{case}/names"]))
    want = GOLDENS[f"ema/{case}/values"]
    with tm.Graph().as_default():
        x = tm.placeholder(tm.float32, [2], name="x")
        t = tm.identity(x, name="t")
        ema = tm.train.ExponentialMovingAverage(0.5, zero_debias=case == "tensor_debias")
        update = ema.apply([t])
        assert update.name == names["update"]
        assert ema.average(t).name == names["shadow"]
        assert sorted(v.name for v in tm.global_variables()) == names["globals"]
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            for k, feed in enumerate(([4.0, 1.0], [8.0, -1.0], [2.0, 0.5])):
                sess.run(update, {x: feed})
                np.testing.assert_allclose(sess.run(ema.average(t)), want[k], rtol=1e-6)


def test_ema_refuses_integer_variables():
    with tm.Graph().as_default():
        v = tm.Variable(1, name="count")
        with pytest.raises(TypeError, match="must be half, float, or double: count"):
            tm.train.ExponentialMovingAverage(0.9).apply([v])


def test_assign_moving_average_without_debias():
    with tm.Graph().as_default():
        avg = tm.Variable(10.0, name="avg", trainable=False)
        out = tm.train.assign_moving_average(avg, tm.constant(20.0), 0.9, zero_debias=False)
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            np.testing.assert_allclose(sess.run(out), 10.0 - 0.1 * (10.0 - 20.0), rtol=1e-6)


# ----------------------------------------------------------------------------------------
# slot_creator and the optimizers' argument checks


@pytest.mark.parametrize("use_resource", [True, False])
def test_slot_creator_names_and_kinds(use_resource):
    with tm.Graph().as_default():
        v = tm.Variable(np.ones((2, 3), np.float32), name="v", use_resource=use_resource)
        a = slot_creator.create_zeros_slot(v, "Opt")
        b = slot_creator.create_slot(v, tm.constant(np.full((2, 3), 2.0, np.float32)), "Opt")
        c = slot_creator.create_slot_with_initializer(v, tm.ones_initializer(), v.shape,
                                                      tm.float64, "Opt")
        assert [s.name for s in (a, b, c)] == ["v/Opt:0", "v/Opt_1:0", "v/Opt_2:0"]
        assert c.dtype == tm.float64
        assert all(slot_creator.is_ref_variable(s) != use_resource for s in (a, b, c))
        assert not any(s in tm.trainable_variables() for s in (a, b, c))
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            got = sess.run([a, b, c])
    np.testing.assert_array_equal(got[0], np.zeros((2, 3)))
    np.testing.assert_array_equal(got[1], np.full((2, 3), 2.0))
    np.testing.assert_array_equal(got[2], np.ones((2, 3)))


@pytest.mark.parametrize("make, message", [
    (lambda: tm.train.FtrlOptimizer(0.1, initial_accumulator_value=-1.0),
     "initial_accumulator_value -1.000000 needs to be positive or zero"),
    (lambda: tm.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
     "learning_rate_power 0.500000 needs to be negative or zero"),
    (lambda: tm.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0),
     "l1_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tm.train.FtrlOptimizer(0.1, l2_regularization_strength=-1.0),
     "l2_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tm.train.FtrlOptimizer(0.1, l2_shrinkage_regularization_strength=-1.0),
     "l2_shrinkage_regularization_strength -1.000000 needs to be positive or zero"),
    (lambda: tm.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0),
     "initial_accumulator_value must be positive: 0.0"),
    (lambda: tm.train.AdagradDAOptimizer(0.1, None,
                                         initial_gradient_squared_accumulator_value=0.0),
     "initial_gradient_squared_accumulator_value must be positive: 0.0"),
])
def test_optimizer_argument_checks(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_rmsprop_slots_and_ops():
    with tm.Graph().as_default() as g:
        v = tm.Variable([1.0, 2.0], name="v")
        opt = tm.train.RMSPropOptimizer(0.1, centered=True)
        opt.minimize(tm.reduce_sum(v * v))
        assert opt.get_slot_names() == ["mg", "momentum", "rms"]
        assert opt.get_slot(v, "rms").name == "v/RMSProp:0"
        assert opt.get_slot(v, "mg").name == "v/RMSProp_1:0"
        assert opt.get_slot(v, "momentum").name == "v/RMSProp_2:0"
        assert "ResourceApplyCenteredRMSProp" in {op.type for op in g.get_operations()}
