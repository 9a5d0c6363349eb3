"""Row sums by id (tfmini/ops/common/segment_reduce.py) against a one-by-one loop."""

from __future__ import annotations

import numpy as np
import pytest

from tfmini.ops.common.segment_reduce import (
    segment_starts,
    sort_order,
    sum_rows_by_id,
    unique_in_order,
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
def test_sums_add_in_index_order_to_the_last_bit(dtype):
    # Zipf ids: many segments of one row, a few of hundreds (the heavy path), and the
    # rounds of the light ones; every sum must equal TensorFlow's one-by-one addition.
    rng = np.random.default_rng(5)
    ids = np.minimum(rng.zipf(1.2, size=3000) - 1, 10**6).astype(np.int32)
    rows = (rng.standard_normal((3000, 16)) * 100).astype(dtype)
    unique, sums = sum_rows_by_id(ids, rows)
    want = np.zeros((unique.size, 16), dtype)
    where = np.searchsorted(unique, ids)
    for i, j in enumerate(where):
        want[j] += rows[i]
    if dtype == np.float16:  # NumPy sums half values in float32 before rounding
        np.testing.assert_allclose(sums, want, rtol=2e-2, atol=1)
    else:
        np.testing.assert_array_equal(sums, want)


def test_non_finite_rows_sum_as_in_a_loop():
    ids = np.array([1, 0, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] * 3)
    rows = np.ones((ids.size, 8), np.float32)
    rows[2, 0], rows[5, 0], rows[4, 1] = np.inf, -np.inf, np.nan
    out = np.zeros((3, 8), np.float32)
    with np.errstate(invalid="ignore"):  # as a Session runs kernels
        unsorted_segment_sum_into(out, ids, rows)
        want = _loop_sum(3, ids, rows)
    np.testing.assert_array_equal(out, want)


def test_sum_into_a_non_contiguous_output():
    ids = np.array([3, 0, 3, 1])
    rows = np.arange(4 * 8, dtype=np.float32).reshape(4, 8)
    base = np.zeros((8, 8), np.float32)
    out = base[::2]
    unsorted_segment_sum_into(out, ids, rows)
    np.testing.assert_array_equal(out, _loop_sum(4, ids, rows))


@pytest.mark.parametrize("ids", [
    np.array([5, -3, 5, 7, -3, 0], np.int32),
    np.array([2**63 - 1, -2**63, 0, 2**63 - 1]),  # too wide to pack: argsort
    np.array([2**64 - 1, 2**63 + 5, 2**64 - 1], np.uint64),
    np.array([200, 3, 200, 255], np.uint8),
    np.array([4]),
])
def test_sort_order_is_a_stable_argsort(ids):
    np.testing.assert_array_equal(sort_order(ids), np.argsort(ids, kind="stable"))


def test_unique_in_order_keeps_first_appearances():
    rng = np.random.default_rng(2)
    x = rng.integers(-50, 50, 400)
    y, idx = unique_in_order(x)
    _, first = np.unique(x, return_index=True)
    np.testing.assert_array_equal(y, x[np.sort(first)])
    np.testing.assert_array_equal(y[idx], x)
    np.testing.assert_array_equal(unique_in_order(np.array([9, 9, 1, 9]))[1], [0, 0, 1, 0])
