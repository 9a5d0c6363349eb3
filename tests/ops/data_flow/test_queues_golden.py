"""Queues against TensorFlow 2.21 (tools/record_goldens_queues.py): the single-threaded cases
of TensorFlow's fifo_queue_test, padding_fifo_queue_test, priority_queue_test and
random_shuffle_queue_test, replayed under tfmini and compared with the recorded outcomes
(values, static shapes, op names and types, error classes and messages).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm


def _recorder():
    path = Path(__file__).resolve().parents[3] / "tools" / "record_goldens_queues.py"
    spec = importlib.util.spec_from_file_location("record_goldens_queues", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _recorder()
_ERROR = re.compile(r"^(\w+Error): (.*)$", re.S)
# An unshared queue's name carries a per-process kernel counter: '_3_fifo_queue'.
_COUNTER = re.compile(r"'_\d+_")


def _mask(text: str) -> str:
    return _COUNTER.sub("'_K_", text)


def check_outcome(key: str, got, expected: np.ndarray) -> None:
    """Asserts one outcome equals TensorFlow's (errors: class and kernel message)."""
    if expected.dtype.kind == "U":
        want = _mask(str(expected))
        value = _mask(str(np.asarray(got)))
        match = _ERROR.match(want)
        if match:
            cls, message = match.groups()
            assert value.startswith(cls + ":"), (key, value, want)
            assert message in value, (key, value, want)
        else:
            assert value == want, (key, value, want)
        return
    got = np.asarray(got)
    if expected.dtype.kind in "SO":  # strings: TensorFlow's bytes
        assert [tm.compat.as_bytes(v) for v in got.reshape(-1).tolist()] == \
            [tm.compat.as_bytes(v) for v in expected.reshape(-1).tolist()], key
        return
    assert got.dtype == expected.dtype, (key, got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected, err_msg=key)


def check_case(golden, case: str, outcomes: list) -> None:
    want = {k: v for k, v in golden("queues").items() if k.split("/")[0] == case}
    got = RECORDER.flatten(case, outcomes)
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        check_outcome(key, got[key], expected)


@pytest.mark.parametrize("case", sorted(RECORDER.CASES))
def test_matches_tensorflow_goldens(golden, case):
    with tm.Graph().as_default():
        outcomes = RECORDER.CASES[case](tm)
    check_case(golden, case, outcomes)
