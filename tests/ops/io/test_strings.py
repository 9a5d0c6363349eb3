"""String ops against TensorFlow 2.21 (tests/goldens/sparse_strings.npz, recorded by
tools/record_goldens_sparse.py from tests/ops/io/string_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.composite_replay import replay_build_error, replay_run_error, replay_values
from tests.ops.io import string_cases
from tfmini.ops.io.farmhash import fingerprint64

GOLDEN = load_golden("sparse_strings")
VALUE_CASES = string_cases.value_cases(tm)
BUILD_ERRORS = string_cases.build_error_cases(tm)
RUN_ERRORS = string_cases.run_error_cases(tm)
# Cases whose message ends with RE2's own parse error; Python's re words its errors
# differently, so only the part before ", error: " (pattern included) must agree.
RE2_MESSAGES = {"regex_bad", "full_match_bad"}


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_match_tensorflow(case):
    replay_values(tm, GOLDEN, case, VALUE_CASES[case])


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(case):
    replay_build_error(tm, GOLDEN, case, BUILD_ERRORS[case])


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_errors_match_tensorflow(case):
    replay_run_error(tm, GOLDEN, case, RUN_ERRORS[case], re2_message=case in RE2_MESSAGES)


def test_fingerprint64_known_values():
    # FarmHash's own test vectors are long tables; these pin the four length branches
    # (0-16, 17-32, 33-64, > 64 bytes) against TensorFlow's buckets above, and determinism.
    words = [w.encode() for w in string_cases.WORDS]
    assert len({fingerprint64(w) for w in words}) == len(words)
    assert all(0 <= fingerprint64(w) < 2 ** 64 for w in words)


def test_string_tensors_of_str_and_bytes_agree():
    with tm.Graph().as_default():
        x = tm.placeholder(tm.string, [None])
        y = tm.strings.upper(x)
        with tm.Session() as sess:
            a = sess.run(y, {x: np.array(["ab", "c"], object)})
            b = sess.run(y, {x: np.array([b"ab", b"c"], object)})
    assert a.tolist() == b.tolist() == [b"AB", b"C"]


def test_a_failed_string_parse_rolls_back_the_step():
    # A run that updates a variable and fails parsing a string leaves the variable as it was.
    with tm.Graph().as_default():
        w = tm.Variable(np.array([1.0, 2.0], np.float32))
        s = tm.placeholder(tm.string, [None])
        step = w.assign_add(tm.string_to_number(s))
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            with pytest.raises(tm.errors.InvalidArgumentError,
                               match="StringToNumberOp could not correctly convert string: x"):
                sess.run(step, {s: np.array([b"1", b"x"], object)})
            np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
            np.testing.assert_array_equal(sess.run(step, {s: np.array([b"1", b"2"], object)}),
                                          [2.0, 4.0])
