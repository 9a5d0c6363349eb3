"""tfmini/ops/nn/batch_split.py: how a kernel's batch is cut into parts (as many as the thread
policy allows beside the BLAS's threads), and that the parts run on the kernel helpers and
report their failures."""

from __future__ import annotations

import threading

import pytest

from tfmini.ops.nn import batch_split


def test_parts_cover_the_batch_once_and_keep_small_work_whole(widths):
    widths(3, 1)
    big = batch_split.MIN_PART_MACS * 10
    assert batch_split.parts(7, big) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    assert batch_split.parts(2, big) == [slice(0, 1), slice(1, 2)]  # never more than the batch
    assert batch_split.parts(32, batch_split.MIN_PART_MACS - 1) == [slice(0, 32)]
    assert batch_split.parts(32, 2 * batch_split.MIN_PART_MACS) == [slice(0, 16),
                                                                     slice(16, 32)]
    assert batch_split.parts(0, big) == [slice(0, 0)]


def test_one_part_while_the_policy_allows_one_thread(widths):
    widths(1, 1)
    assert batch_split.parts(32, batch_split.MIN_PART_MACS * 10) == [slice(0, 32)]


def test_no_parts_while_the_blas_runs_several_threads(widths):
    """Parts on threads each asking a multi-threaded BLAS for every core oversubscribe it."""
    widths(2, 2)
    assert batch_split.parts(32, batch_split.MIN_PART_MACS * 10) == [slice(0, 32)]


def test_run_returns_the_parts_in_order_from_the_helpers(widths):
    widths(2, 1)
    threads = {}
    both = threading.Barrier(2, timeout=10)

    def fn(sl):
        threads[sl.start] = threading.get_ident()
        if sl.start in (0, 3):
            both.wait()  # two parts at once: they run on two threads
        return sl.stop - sl.start

    assert batch_split.run(fn, [slice(0, 3), slice(3, 4), slice(4, 9)]) == [3, 1, 5]
    assert threads[0] != threads[3]


@pytest.mark.parametrize("failing", [0, 1])
def test_run_raises_a_part_failure_after_every_part_ended(widths, failing):
    widths(2, 1)
    ended = []

    def fn(sl):
        if sl.start == failing:
            raise ValueError(f"part {failing}")
        ended.append(sl.start)

    with pytest.raises(ValueError, match=f"part {failing}"):
        batch_split.run(fn, [slice(0, 1), slice(1, 2), slice(2, 3)])
    assert sorted(ended) == sorted({0, 1, 2} - {failing})
