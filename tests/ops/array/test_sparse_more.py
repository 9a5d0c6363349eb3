"""SparseTensor ops (tm.sparse) against TensorFlow 2.21 (tests/goldens/sparse_ops.npz, recorded by
tools/record_goldens_sparse.py from tests/ops/io/sparse_cases.py)."""

from __future__ import annotations

import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.array import sparse_cases
from tests.ops.composite_replay import replay_build_error, replay_run_error, replay_values

GOLDEN = load_golden("sparse_ops")
VALUE_CASES = sparse_cases.value_cases(tm)
BUILD_ERRORS = sparse_cases.build_error_cases(tm)
RUN_ERRORS = sparse_cases.run_error_cases(tm)


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_match_tensorflow(case):
    replay_values(tm, GOLDEN, case, VALUE_CASES[case])


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(case):
    replay_build_error(tm, GOLDEN, case, BUILD_ERRORS[case])


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_errors_match_tensorflow(case):
    replay_run_error(tm, GOLDEN, case, RUN_ERRORS[case])


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
