"""The per-allocation cap (tfmini/ops/common/memory.py), shared by Fill, Range, Tile, OneHot
and the random family: one implementation, one setting."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.common import memory
from tfmini.ops.random import stream


@pytest.fixture
def cap_1k():
    old = memory.set_allocation_limit(1024)
    yield
    memory.set_allocation_limit(old)


def test_check_allocation_counts_and_refuses():
    assert memory.check_allocation([2, 3], tm.float32) == 6
    with pytest.raises(tm.errors.InvalidArgumentError, match=r"more than 2\*\*63 - 1 elements"):
        memory.check_allocation([2**62, 4], tm.float32)
    with pytest.raises(tm.errors.ResourceExhaustedError,
                       match=r"shape\[1000000,1000000\] and type double .* 8000000000000 bytes"):
        memory.check_allocation([10**6, 10**6], tm.float64)


def test_set_allocation_limit_validates():
    with pytest.raises(ValueError, match="positive int"):
        memory.set_allocation_limit(0)
    old = memory.set_allocation_limit(5)
    assert memory.allocation_limit() == 5
    memory.set_allocation_limit(old)


def test_random_family_uses_the_same_cap(graph, cap_1k):
    assert stream.check_size([16], tm.float32) == 16
    u = tm.random.uniform([512])  # 2 kB of float32
    with tm.Session() as sess:
        with pytest.raises(tm.errors.ResourceExhaustedError, match="limit of 1024 bytes"):
            sess.run(u)


@pytest.mark.parametrize("build", [
    lambda: tm.range(0, 1000),
    lambda: tm.tile(tm.constant([1.0, 2.0]), [1000]),
    lambda: tm.one_hot(tm.constant([0, 1]), 1000),
])
def test_array_kernels_check_before_allocating(graph, cap_1k, build):
    out = build()
    with tm.Session() as sess:
        with pytest.raises(tm.errors.ResourceExhaustedError, match=r"OOM when allocating"):
            sess.run(out)
    memory.set_allocation_limit(1 << 20)
    with tm.Session() as sess:
        assert np.asarray(sess.run(out)).size >= 1000
