"""tm.layers / tm.losses / tm.metrics against TensorFlow 2.21 (tf_keras legacy layers):
the programs of layers_cases.py, recorded by tools/record_goldens_layers.py."""

from __future__ import annotations

import json

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR, load_golden
from tests.layers import layers_cases
from tests.program_replay import assert_values_match, run_program_case

GOLDEN = load_golden("layers")
META = json.loads((GOLDEN_DIR / "layers.json").read_text())

# Ops TensorFlow builds as a Switch/Merge cond are one If op in tfmini: outputs named
# "<scope>/cond/Identity" or "<scope>/cond:0" where TF has "<scope>/cond/Merge:0".
TOLERANCE = {"mlp_training": 2e-5, "cnn_training": 2e-5, "e2e_vector": 2e-5}


def _run_case(name):
    return run_program_case(name, layers_cases.CASES[name], local_variables=True)


@pytest.mark.parametrize("name", sorted(layers_cases.CASES))
def test_values_match_tensorflow(name):
    _, _, _, values = _run_case(name)
    assert_values_match(name, values, GOLDEN, TOLERANCE.get(name, 1e-5))


@pytest.mark.parametrize("name", sorted(layers_cases.CASES))
def test_names_and_collections_match_tensorflow(name):
    spec, names, collections, _ = _run_case(name)
    meta = META["cases"][name]
    assert names == meta["names"]
    assert collections == meta["collections"]
    if "layer_weights" in meta:
        assert spec["layer_weights"] == meta["layer_weights"]


@pytest.mark.parametrize("name", sorted(layers_cases.ERROR_CASES))
def test_errors_match_tensorflow(name):
    cls_name, message = META["errors"][name]
    g = tm.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        layers_cases.ERROR_CASES[name](tm)
    assert type(info.value).__name__ == cls_name
    got = str(info.value)
    # TF1 adds context after the gist ("Originally defined at:", "Received weights=...",
    # shapes printed as Dimension(...)): compare up to that point.
    for cut in (" Originally defined at", " Received weights=", " Full shape received"):
        message = message.split(cut)[0]
    assert got.startswith(message), f"{got!r} vs TensorFlow's {message!r}"
