"""SparseTensor ops (tm.sparse) against TensorFlow 2.21 (tests/goldens/sparse_ops.npz, recorded by
tools/record_goldens_sparse.py from tests/ops/io/sparse_cases.py)."""

from __future__ import annotations

import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.array import sparse_cases
from tests.ops.composite_replay import assert_matches, split_none

GOLDEN = load_golden("sparse_ops")
VALUE_CASES = sparse_cases.value_cases(tm)
BUILD_ERRORS = sparse_cases.build_error_cases(tm)
RUN_ERRORS = sparse_cases.run_error_cases(tm)
RE2_MESSAGES: set[str] = set()  # (string ops only)


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_match_tensorflow(case):
    with tm.Graph().as_default():
        fetches, feeds = VALUE_CASES[case]()
        fetches = split_none(GOLDEN, case, fetches)
        with tm.Session() as sess:
            values = sess.run(fetches, feeds)
    assert_matches(tm, GOLDEN, case, fetches, values)


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(case):
    cls = str(GOLDEN[f"build_error/{case}"]).partition(": ")[0]
    with tm.Graph().as_default(), pytest.raises((TypeError, ValueError)) as info:
        BUILD_ERRORS[case]()
    assert type(info.value).__name__ == cls, (str(info.value), str(GOLDEN[f"build_error/{case}"]))


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_errors_match_tensorflow(case):
    want = str(GOLDEN[f"run_error/{case}"])
    cls, _, message = want.partition(": ")
    with tm.Graph().as_default():
        fetch, feeds = RUN_ERRORS[case]()
        with tm.Session() as sess:
            with pytest.raises(getattr(tm.errors, cls)) as info:
                sess.run(fetch, feeds)
            assert sess.run(tm.constant(2) + 1) == 3  # the session stays usable
    if case in RE2_MESSAGES:
        message = message.split(", error: ")[0]
    assert message in str(info.value), (str(info.value), want)


def test_sparse_dense_cwise_add_has_no_gradient_as_in_tensorflow():
    with tm.Graph().as_default():
        a = tm.SparseTensor([[0, 1]], [2.0], [2, 3])
        out = tm.raw_ops.SparseDenseCwiseAdd(sp_indices=a.indices, sp_values=a.values,
                                             sp_shape=a.dense_shape, dense=tm.ones([3]))
        with tm.Session() as sess:
            assert sess.run(out).tolist() == [3.0]
        with pytest.raises(NotImplementedError, match="SparseDenseCwiseAdd"):
            tm.gradients(tm.reduce_sum(out), a.values)


@pytest.mark.parametrize("fn", ["maximum", "minimum"])
def test_sparse_maximum_minimum_have_no_gradient_as_in_tensorflow(fn):
    with tm.Graph().as_default():
        a = tm.SparseTensor([[0, 1]], [2.0], [2, 3])
        out = getattr(tm.sparse, fn)(a, a)
        with pytest.raises(NotImplementedError, match="is not implemented"):
            tm.gradients(tm.reduce_sum(out.values), a.values)
