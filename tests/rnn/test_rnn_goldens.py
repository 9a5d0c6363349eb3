"""tm.nn.rnn_cell and the RNN drivers against TensorFlow 2.21 (tf_keras legacy cells): the
programs of rnn_cases.py, recorded by tools/record_goldens_rnn.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR, load_golden
from tests.program_replay import assert_values_match, run_program_case
from tests.rnn import rnn_cases

GOLDEN = load_golden("rnn")
META = json.loads((GOLDEN_DIR / "rnn.json").read_text())

# Training trajectories accumulate float32 rounding over the steps.
TOLERANCE = {"dynamic_gru_adam": 2e-5, "dynamic_multi_lstm_sgd": 2e-5, "static_lstm_sgd": 2e-5,
             "e2e_rmsprop": 2e-5}

# Tensor names where the loop differs: TF1 builds Enter/Merge/Switch/Exit loops and Switch/Merge
# conds, tfmini the functional While/If (see docs/rnn.md). Variable names never differ.
NAME_DIFFERENCES: dict = {"static_lstm_sgd": {"out0": "rnn/cond/Identity:0"}}


def _run_case(name):
    return run_program_case(name, rnn_cases.CASES[name], local_variables=False)


@pytest.mark.parametrize("name", sorted(rnn_cases.CASES))
def test_values_match_tensorflow(name):
    _, _, _, values = _run_case(name)
    assert_values_match(name, values, GOLDEN, TOLERANCE.get(name, 1e-5))


@pytest.mark.parametrize("name", sorted(rnn_cases.CASES))
def test_names_and_collections_match_tensorflow(name):
    spec, names, collections, _ = _run_case(name)
    meta = META["cases"][name]
    want_names = {**meta["names"], **NAME_DIFFERENCES.get(name, {})}
    assert names == want_names
    assert collections == meta["collections"]
    if "weights" in meta:
        assert spec["weights"] == meta["weights"]


# Errors whose wording is TensorFlow's framework rather than the RNN code's: only the class is
# compared (unpacking a tensor state; Keras rewords it as "Python control flow in a layer").
CLASS_ONLY = {"state_structure"}


def _gist(message: str) -> str:
    """TensorFlow's message up to the first tensor / function / node description (their
    reprs differ: ``Tensor("x:0", shape=(2, ?))`` vs ``<tm.Tensor 'x:0' ...>``)."""
    for cut in ('Tensor("', "(<function", "'{{node", " Originally defined at",
                " Full shape received"):
        message = message.split(cut)[0]
    return message


@pytest.mark.parametrize("name", sorted(rnn_cases.ERROR_CASES))
def test_errors_match_tensorflow(name):
    cls_name, message = META["errors"][name]
    g = tm.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        rnn_cases.ERROR_CASES[name](tm)
    assert type(info.value).__name__ == cls_name
    if name not in CLASS_ONLY:
        got = str(info.value)
        assert _gist(message) in got, f"{got!r} vs TensorFlow's {message!r}"


def test_the_documented_basic_lstm_vector():
    # BasicLSTMCell(2), kernel 0.1, bias 0, x = [[1, 2]], zero state:
    # c = sigmoid(0.3) * tanh(0.3), h = tanh(c) * sigmoid(0.3).
    c = GOLDEN["basic_lstm_vector/step/state.c"]
    h = GOLDEN["basic_lstm_vector/step/state.h"]
    s = 1 / (1 + np.exp(-0.3))
    np.testing.assert_allclose(c, [[s * np.tanh(0.3)] * 2], rtol=1e-6)
    np.testing.assert_allclose(h, np.tanh(c) * s, rtol=1e-6)
    _, _, _, values = _run_case("basic_lstm_vector")
    np.testing.assert_allclose(values["basic_lstm_vector/step/state.c"], c, rtol=1e-6)
