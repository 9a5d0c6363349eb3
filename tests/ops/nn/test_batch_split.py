"""tfmini/ops/nn/batch_split.py: how a kernel's batch is cut into parts, and that the parts
run on the pool's threads and report their failures."""

from __future__ import annotations

import threading

import pytest

from tfmini.ops.nn import batch_split


def test_parts_cover_the_batch_once_and_keep_small_work_whole(monkeypatch):
    monkeypatch.setattr(batch_split, "MAX_PARTS", 3)
    monkeypatch.setattr(batch_split, "_blas_threads", lambda: 1)
    big = batch_split.MIN_PART_MACS * 10
    assert batch_split.parts(7, big) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    assert batch_split.parts(2, big) == [slice(0, 1), slice(1, 2)]  # never more than the batch
    assert batch_split.parts(32, batch_split.MIN_PART_MACS - 1) == [slice(0, 32)]
    assert batch_split.parts(32, 2 * batch_split.MIN_PART_MACS) == [slice(0, 16),
                                                                     slice(16, 32)]
    assert batch_split.parts(0, big) == [slice(0, 0)]


def test_run_returns_the_parts_in_order_from_two_threads(monkeypatch):
    monkeypatch.setattr(batch_split, "MAX_PARTS", 2)
    threads = {}

    def fn(sl):
        threads[sl.start] = threading.get_ident()
        return sl.stop - sl.start

    assert batch_split.run(fn, [slice(0, 3), slice(3, 4), slice(4, 9)]) == [3, 1, 5]
    assert threads[0] == threading.get_ident()  # the first part on the calling thread
    assert threads[3] != threading.get_ident()


@pytest.mark.parametrize("failing", [0, 1])
def test_run_raises_a_part_failure_after_every_part_ended(failing):
    ended = []

    def fn(sl):
        if sl.start == failing:
            raise ValueError(f"part {failing}")
        ended.append(sl.start)

    with pytest.raises(ValueError, match=f"part {failing}"):
        batch_split.run(fn, [slice(0, 1), slice(1, 2), slice(2, 3)])
    assert sorted(ended) == sorted({0, 1, 2} - {failing})


def test_no_parts_while_the_blas_runs_several_threads(monkeypatch):
    """Parts on threads each asking a multi-threaded BLAS for every core oversubscribe it."""
    monkeypatch.setattr(batch_split, "MAX_PARTS", 2)
    monkeypatch.setattr(batch_split, "_blas_threads", lambda: 2)
    assert batch_split.parts(32, batch_split.MIN_PART_MACS * 10) == [slice(0, 32)]


def test_blas_threads_reads_the_loaded_blas():
    assert batch_split._blas_threads() >= 1
