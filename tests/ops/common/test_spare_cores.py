"""spare_cores (tfmini/ops/common/spare_cores.py): the cores other processes leave free."""

from __future__ import annotations

import os
import time

from tfmini.ops.common import spare_cores as sc


def _resample(sampler, own_cores):
    """Makes the next get() sample again, as if this process had used ``own_cores`` cores
    over the last 2 seconds."""
    sampler.at = time.monotonic() - 2.0
    sampler.cpu = time.process_time() - 2.0 * own_cores


def test_spare_cores_are_the_cores_less_the_load_of_others(monkeypatch):
    sampler = sc._Sampler()
    sampler.cores = 4
    monkeypatch.setattr(os, "getloadavg", lambda: (2.6, 0.0, 0.0))
    # First sample, at once: no own CPU rate yet, so all of the load counts as others'.
    assert sampler.get() == 2
    _resample(sampler, own_cores=1.0)  # 1.6 cores busy elsewhere: one wholly
    assert sampler.get() == 3
    _resample(sampler, own_cores=0.0)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.9, 0.0, 0.0))
    assert sampler.get() == 4
    monkeypatch.setattr(os, "getloadavg", lambda: (7.0, 0.0, 0.0))
    _resample(sampler, own_cores=0.5)
    assert sampler.get() == 1


def test_spare_cores_are_at_least_one_and_sampled_at_most_once_a_second(monkeypatch):
    sampler = sc._Sampler()
    calls = []
    monkeypatch.setattr(os, "getloadavg", lambda: calls.append(1) or (50.0, 0.0, 0.0))
    assert sampler.get() == 1 and sampler.get() == 1
    assert len(calls) == 1
    assert 1 <= sc.spare_cores() <= sc._cpu_count()
