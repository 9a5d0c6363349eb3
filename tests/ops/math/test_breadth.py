"""The array family's padding, mask, reordering, search, diagonal, scatter and counting ops
against TensorFlow 2.21 (cases in breadth_cases.py, recorded by
tools/record_goldens_core12.py), plus their OpDef signatures."""

from __future__ import annotations

import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops import golden_replay
from tests.ops.math import breadth_cases

G = load_golden("core12")
P = "math/"
VALUES = breadth_cases.value_cases(tm)
GRADS = breadth_cases.grad_cases(tm)
BUILD_ERRORS = breadth_cases.build_error_cases(tm)
RUN_ERRORS = breadth_cases.run_error_cases(tm)

# Cases whose message wording differs from TensorFlow's (the class is still checked).
# igamma_int: TensorFlow's allowed list also names bfloat16, which tfmini has not.
LOOSE = frozenset({"igamma_int"})


def test_every_case_was_recorded():
    for kind, cases in (("value", VALUES), ("grad", GRADS), ("build_error", BUILD_ERRORS),
                        ("run_error", RUN_ERRORS)):
        recorded = {k.split("/")[2] for k in G if k.startswith(f"{P}{kind}/")}
        assert recorded == set(cases), kind


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_matches_tensorflow(name):
    golden_replay.check_value(G, P, name, VALUES[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradient_matches_tensorflow(name):
    golden_replay.check_grad(G, P, name, GRADS[name])


@pytest.mark.parametrize("name", sorted(BUILD_ERRORS))
def test_build_error_matches_tensorflow(name):
    golden_replay.check_build_error(G, P, name, BUILD_ERRORS[name], LOOSE)


@pytest.mark.parametrize("name", sorted(RUN_ERRORS))
def test_run_error_matches_tensorflow(name):
    golden_replay.check_run_error(G, P, name, RUN_ERRORS[name], LOOSE)
