"""Replaying a recorded TF1 program case on tfmini, shared by the layers and RNN golden tests.

A case is ``fn(tm) -> spec`` with ``spec["names"]`` (label -> tensor or variable),
``spec["collections"]`` (collection keys) and ``spec["runs"]`` (``(label, fetches, feeds)``
triples run in order in one Session); the recorder runs the same function under TensorFlow.
"""

from __future__ import annotations

import numpy as np

import tfmini as tm


def run_program_case(name: str, case, *, local_variables: bool = False):
    """``(spec, names, collections, values)`` of one case run in a fresh graph and Session."""
    with tm.Graph().as_default():
        spec = case(tm)
        names = {k: v.name for k, v in spec["names"].items()}
        collections = {key: [getattr(v, "name", str(v)) for v in tm.get_collection(key)]
                       for key in spec["collections"]}
        init = [tm.global_variables_initializer()]
        if local_variables:
            init.append(tm.local_variables_initializer())
        values = {}
        with tm.Session() as sess:
            sess.run(init)
            for label, fetches, feeds in spec["runs"]:
                for key, v in sess.run(fetches, feeds).items():
                    if v is not None:
                        values[f"{name}/{label}/{key}"] = np.asarray(v)
    return spec, names, collections, values


def assert_values_match(name: str, values: dict, golden: dict, tol: float) -> None:
    """Every value the case fetched equals TensorFlow's recorded one, and nothing is missing."""
    expected = {k: v for k, v in golden.items() if k.startswith(f"{name}/")}
    assert expected, "no goldens recorded for this case"
    assert set(values) == set(expected)
    for key, want in expected.items():
        np.testing.assert_allclose(values[key], want, rtol=tol, atol=tol, err_msg=key)
