"""tm.keras.optimizers.schedules: errors, serialisation of user schedules, direct calls."""

from __future__ import annotations

import pytest

import tfmini as tm

schedules = tm.keras.optimizers.schedules


def test_piecewise_lengths_must_match():
    with pytest.raises(ValueError, match="The length of boundaries should be 1 less than the "
                                         "length of values"):
        schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.2])


def test_base_class_is_abstract():
    with pytest.raises(TypeError):
        schedules.LearningRateSchedule()


class HalfEveryStep(schedules.LearningRateSchedule):
    def __init__(self, start):
        self.start = start

    def __call__(self, step):
        return self.start * tm.pow(0.5, tm.cast(step, tm.float32))

    def get_config(self):
        return {"start": self.start}


def test_custom_schedule_round_trips_with_custom_objects():
    config = schedules.serialize(HalfEveryStep(0.8))
    assert config["class_name"] == "HalfEveryStep" and config["config"] == {"start": 0.8}
    with pytest.raises(ValueError, match="Unknown learning rate schedule: 'HalfEveryStep'"):
        schedules.deserialize(config)
    back = schedules.deserialize(config, custom_objects={"HalfEveryStep": HalfEveryStep})
    assert isinstance(back, HalfEveryStep) and back.start == 0.8
    opt = tm.keras.optimizers.Adagrad.from_config(
        {"learning_rate": config}, custom_objects={"HalfEveryStep": HalfEveryStep})
    assert isinstance(opt._hyper["learning_rate"], HalfEveryStep)


def test_custom_schedule_drives_adagrad_on_iterations():
    with tm.Graph().as_default():
        v = tm.Variable([0.0])
        opt = tm.keras.optimizers.Adagrad(HalfEveryStep(1.0), initial_accumulator_value=0.0)
        train = opt.apply_gradients([(tm.constant([1.0]), v)])
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            sess.run(train)  # lr 1, acc 1: -1
            sess.run(train)  # lr 0.5, acc 2: -0.5 / sqrt(2)
            assert sess.run(v)[0] == pytest.approx(-1.0 - 0.5 / 2 ** 0.5, rel=1e-6)


def test_schedules_take_python_steps_and_config_round_trips():
    sched = schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True, name="exp")
    assert schedules.ExponentialDecay.from_config(sched.get_config()).get_config() == \
        sched.get_config()
    with tm.Graph().as_default():
        lr = sched(25)
        with tm.Session() as sess:
            assert sess.run(lr) == pytest.approx(0.025)


def test_serialize_refuses_non_schedules():
    with pytest.raises(TypeError):
        schedules.serialize(0.1)
    with pytest.raises(ValueError):
        schedules.deserialize("ExponentialDecay")
