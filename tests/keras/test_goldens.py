"""tm.keras Adagrad and schedules against tf_keras 2.21 (tests/goldens/keras.npz, recorded by
tools/record_goldens_keras.py from tests/keras/keras_cases.py)."""

from __future__ import annotations

import json
import os
import types
import warnings

import numpy as np
import pytest

import tfmini as tm
from tests.keras import keras_cases

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "goldens", "keras.npz")
GOLDENS = np.load(GOLDEN_PATH)
K = types.SimpleNamespace(Adagrad=tm.keras.optimizers.Adagrad,
                          schedules=tm.keras.optimizers.schedules)


def _golden(prefix: str) -> dict:
    return {k[len(prefix):]: GOLDENS[k] for k in GOLDENS.files if k.startswith(prefix)}


def _run(case) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the lr alias cases warn, as TF-Keras does
        return keras_cases.run_case(tm, K, case)


def test_every_case_was_recorded():
    for name in keras_cases.TRAJECTORY_CASES:
        assert _golden(f"traj/{name}/"), name
    for name in keras_cases.SCHEDULE_VALUE_CASES:
        assert f"sched/{name}" in GOLDENS.files
    assert os.path.getsize(GOLDEN_PATH) < 200_000


@pytest.mark.parametrize("name", sorted(keras_cases.TRAJECTORY_CASES))
def test_trajectory_matches_tf_keras(name):
    want = _golden(f"traj/{name}/")
    got = _run(keras_cases.TRAJECTORY_CASES[name])
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        value = got[key]
        assert value.dtype == expected.dtype, key
        assert value.shape == expected.shape, key
        # float16: TF's own tolerance for half (assertAllCloseAccordingToType), since one
        # rounding in a different place moves a half value by an ulp; else 1e-5 relative.
        tol = {"rtol": 1e-3, "atol": 1e-3} if expected.dtype == np.float16 else {"rtol": 1e-5}
        np.testing.assert_allclose(value, expected, **tol, err_msg=f"{name}/{key}")


@pytest.mark.parametrize("name", sorted(keras_cases.SCHEDULE_VALUE_CASES))
def test_schedule_values_match_tf_keras(name):
    got = _run(keras_cases.SCHEDULE_VALUE_CASES[name])["lr"][0]
    want = GOLDENS[f"sched/{name}"]
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


def _to_json(config: dict) -> dict:
    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        raise TypeError(repr(o))

    return json.loads(json.dumps(config, default=default))


@pytest.mark.parametrize("name", sorted(keras_cases.CONFIG_CASES))
def test_get_config_and_round_trip_match_tf_keras(name):
    with tm.Graph().as_default(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = keras_cases.CONFIG_CASES[name](K)
        config = opt.get_config()
        assert _to_json(config) == json.loads(str(GOLDENS[f"config/{name}"]))
        again = type(opt).from_config(_to_json(config))
        assert _to_json(again.get_config()) == json.loads(str(GOLDENS[f"roundtrip/{name}"]))
        key = f"serialized/{name}"
        if key in GOLDENS.files:
            sched = opt._hyper["learning_rate"]
            assert _to_json(K.schedules.serialize(sched)) == json.loads(str(GOLDENS[key]))
            # from_config rebuilt a schedule, not a dict
            assert isinstance(again._hyper["learning_rate"], K.schedules.LearningRateSchedule)


@pytest.mark.parametrize("name", sorted(keras_cases.CONSTRUCTOR_ERROR_CASES))
def test_constructor_errors_match_tf_keras(name):
    want = str(GOLDENS[f"ctor_error/{name}"])
    cls_name, _, message = want.partition(": ")
    with pytest.raises(Exception) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        K.Adagrad(**keras_cases.CONSTRUCTOR_ERROR_CASES[name])
    assert type(info.value).__name__ == cls_name
    if name == "unknown_kwarg":
        # The allowed set prints in hash order; compare its members.
        head, _, allowed = message.partition("Allowed kwargs are ")
        got_head, _, got_allowed = str(info.value).partition("Allowed kwargs are ")
        assert got_head == head
        assert set(eval(got_allowed.rstrip("."))) == set(eval(allowed.rstrip(".")))  # noqa: S307
    else:
        assert str(info.value) == message


def test_names_match_tf_keras():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = keras_cases.names_case(tm, K)
    assert got == json.loads(str(GOLDENS["names"]))
