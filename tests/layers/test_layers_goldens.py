"""tm.layers / tm.losses / tm.metrics against TensorFlow 2.21 (tf_keras legacy layers):
the programs of layers_cases.py, recorded by tools/record_goldens_layers.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR, load_golden
from tests.layers import layers_cases

GOLDEN = load_golden("layers")
META = json.loads((GOLDEN_DIR / "layers.json").read_text())

# Ops TensorFlow builds as a Switch/Merge cond are one If op in tfmini: outputs named
# "<scope>/cond/Identity" or "<scope>/cond:0" where TF has "<scope>/cond/Merge:0".
TOLERANCE = {"mlp_training": 2e-5, "cnn_training": 2e-5, "e2e_vector": 2e-5}


def _run_case(name):
    g = tm.Graph()
    with g.as_default():
        spec = layers_cases.CASES[name](tm)
        names = {k: v.name for k, v in spec["names"].items()}
        collections = {key: [getattr(v, "name", str(v)) for v in tm.get_collection(key)]
                       for key in spec["collections"]}
        values = {}
        with tm.Session() as sess:
            sess.run([tm.global_variables_initializer(), tm.local_variables_initializer()])
            for label, fetches, feeds in spec["runs"]:
                out = sess.run(fetches, feeds)
                for key, v in out.items():
                    if v is not None:
                        values[f"{name}/{label}/{key}"] = np.asarray(v)
    return spec, names, collections, values


@pytest.mark.parametrize("name", sorted(layers_cases.CASES))
def test_values_match_tensorflow(name):
    _, _, _, values = _run_case(name)
    expected = {k: v for k, v in GOLDEN.items() if k.startswith(f"{name}/")}
    assert expected, "no goldens recorded for this case"
    assert set(values) == set(expected)
    tol = TOLERANCE.get(name, 1e-5)
    for key, want in expected.items():
        np.testing.assert_allclose(values[key], want, rtol=tol, atol=tol, err_msg=key)


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
