"""Sums of rows by segment id, without ``np.add.at``.

``np.add.at(out, ids, rows)`` adds one row at a time through a slow generic path (2.5 ms
for 4,096 rows of 64 float32). Sorting the ids once (stable, so equal ids keep their order)
and reducing each run of equal ids with ``np.add.reduceat`` does the same sums several
times faster. ``reduceat`` may add a segment's rows in a different order than one by one
(TensorFlow's CPU kernels add them in index order), so sums can differ in the last bits;
they are within float tolerance of TensorFlow's, as every other reduction here is.

Rows of fewer than ``MIN_ROW`` elements (or 1-D data) keep ``np.add.at``, which NumPy 2
runs quickly for them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_starts", "sum_rows_by_id", "unsorted_segment_sum_into"]

MIN_ROW = 8  # elements per row from which sorting pays off


def _row_size(rows: np.ndarray) -> int:
    """Elements per row (0 for 1-D data: one scalar per id is add.at's fast case)."""
    return int(np.prod(rows.shape[1:], dtype=np.int64)) if rows.ndim >= 2 else 0


def segment_starts(sorted_ids: np.ndarray) -> np.ndarray:
    """Positions where a new run of equal ids begins in ``sorted_ids`` (1-D, non-empty)."""
    flag = np.empty(sorted_ids.shape[0], bool)
    flag[0] = True
    np.not_equal(sorted_ids[1:], sorted_ids[:-1], out=flag[1:])
    return np.flatnonzero(flag)


def sum_rows_by_id(ids: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``ids`` (sorted) and, per id, the sum of its rows of ``rows``.

    Args:
        ids: 1-D integer ids, one per row of ``rows``.
        rows: Array whose first dimension matches ``ids``.

    Returns:
        ``(unique_ids, sums)`` with ``sums[k] = rows[ids == unique_ids[k]].sum(0)``.
    """
    if ids.shape[0] == 0:
        return ids.copy(), np.zeros((0,) + rows.shape[1:], rows.dtype)
    if _row_size(rows) < MIN_ROW:
        unique, inverse = np.unique(ids, return_inverse=True)
        sums = np.zeros((unique.shape[0],) + rows.shape[1:], rows.dtype)
        np.add.at(sums, inverse.reshape(-1), rows)
        return unique, sums
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = segment_starts(sorted_ids)
    return sorted_ids[starts], np.add.reduceat(rows[order], starts, axis=0)


def unsorted_segment_sum_into(out: np.ndarray, ids: np.ndarray, rows: np.ndarray) -> None:
    """``out[ids[i]] += rows[i]`` for every i, into a zero-filled ``out`` (ids in range)."""
    if ids.shape[0] == 0 or _row_size(rows) < MIN_ROW:
        np.add.at(out, ids, rows)
        return
    unique, sums = sum_rows_by_id(ids, rows)
    out[unique] += sums
