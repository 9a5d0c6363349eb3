"""Row sums by id (tfmini/ops/common/segment_reduce.py) against a one-by-one loop."""

from __future__ import annotations

import numpy as np
import pytest

from tfmini.ops.common.segment_reduce import (
    segment_starts,
    sum_rows_by_id,
    unsorted_segment_sum_into,
)


def _loop_sum(n, ids, rows):
    out = np.zeros((n,) + rows.shape[1:], rows.dtype)
    for i, j in enumerate(ids):
        out[j] += rows[i]
    return out


@pytest.mark.parametrize("inner", [(), (3,), (64,), (4, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_unsorted_segment_sum_matches_a_loop(inner, dtype):
    rng = np.random.default_rng(3)
    ids = np.minimum(rng.zipf(1.3, size=500) - 1, 49)  # heavy duplicates, unsorted
    rows = (rng.standard_normal((500,) + inner) * 10).astype(dtype)
    out = np.zeros((50,) + inner, dtype)
    unsorted_segment_sum_into(out, ids, rows)
    want = _loop_sum(50, ids, rows)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(out, want)


def test_sum_rows_by_id_gives_sorted_distinct_ids():
    ids = np.array([7, 2, 7, 7, 0, 2])
    rows = np.arange(6 * 16, dtype=np.float64).reshape(6, 16)
    unique, sums = sum_rows_by_id(ids, rows)
    np.testing.assert_array_equal(unique, [0, 2, 7])
    np.testing.assert_array_equal(sums, [rows[4], rows[1] + rows[5],
                                         rows[0] + rows[2] + rows[3]])


def test_empty_inputs():
    unique, sums = sum_rows_by_id(np.zeros(0, np.int64), np.zeros((0, 16), np.float32))
    assert unique.shape == (0,) and sums.shape == (0, 16)
    out = np.zeros((3, 16), np.float32)
    unsorted_segment_sum_into(out, np.zeros(0, np.int64), np.zeros((0, 16), np.float32))
    assert not out.any()


def test_segment_starts():
    np.testing.assert_array_equal(segment_starts(np.array([1, 1, 2, 5, 5, 5])), [0, 2, 3])
