"""tm.sort / tm.argsort at scale: one TopKV2 over the axis, so memory grows with n, not n^2
(values and the graph against TensorFlow are in test_layout.py)."""

from __future__ import annotations

import tracemalloc

import numpy as np

import tfmini as tm

N = 10**6


def _peak_bytes_of_run(build, value: np.ndarray) -> tuple[list, int]:
    with tm.Graph().as_default():
        x = tm.placeholder(tm.as_dtype(value.dtype), [None])
        fetches = build(x)
        with tm.Session() as sess:
            sess.run(fetches, {x: value[:10]})  # plan built before measuring
            tracemalloc.start()
            try:
                out = sess.run(fetches, {x: value})
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    return out, peak


def test_sort_of_a_million_stays_linear_in_memory():
    value = np.random.RandomState(7).standard_normal(N).astype(np.float32)
    value[::1000] = 0.5  # ties, kept in index order
    (s, a), peak = _peak_bytes_of_run(lambda x: [tm.sort(x), tm.argsort(x, stable=True)],
                                      value)
    np.testing.assert_array_equal(s, np.sort(value))
    np.testing.assert_array_equal(a, np.argsort(value, kind="stable"))
    # A pairwise build would need ~10^12 cells; the TopKV2 build holds a few arrays of n.
    assert peak < 64 * N, peak


def test_descending_int_sort_of_a_million():
    value = np.random.RandomState(3).randint(-50, 50, N).astype(np.int64)
    (s, a), peak = _peak_bytes_of_run(
        lambda x: [tm.sort(x, direction="DESCENDING"),
                   tm.argsort(x, direction="DESCENDING")], value)
    np.testing.assert_array_equal(s, np.sort(value)[::-1])
    # Largest first, the lower index first among equal values.
    np.testing.assert_array_equal(a, np.argsort(-value, kind="stable"))
    assert peak < 96 * N, peak
