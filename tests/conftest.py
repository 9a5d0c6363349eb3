"""Shared test helpers: golden files recorded from TensorFlow, fresh graphs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

GOLDEN_DIR = Path(__file__).parent / "goldens"


def load_golden(name: str) -> dict[str, np.ndarray]:
    """The arrays of ``tests/goldens/<name>.npz`` (written by ``tools/record_goldens.py``)."""
    path = GOLDEN_DIR / f"{name}.npz"
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.fixture
def golden():
    return load_golden


@pytest.fixture
def graph():
    """A fresh graph, made the default for the test."""
    import tfmini as tm

    g = tm.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def widths():
    """``set_widths(width, blas_threads)`` of the kernel work sharing
    (tfmini/ops/common/parallel.py), process-wide, put back after the test."""
    from tfmini.ops.common import parallel

    saved = (parallel._width, parallel._blas_threads)
    yield parallel.set_widths
    parallel.set_widths(*saved)


def pytest_addoption(parser):
    parser.addoption(
        "--fuzz-long", action="store_true", default=False,
        help="run the fuzz tests (tests/test_fuzz.py) with many examples; the same as "
             "TFMINI_FUZZ_LONG=<examples per test> (or 1 for the default long count)",
    )


def pytest_configure(config):
    import os

    # Set before tests/test_fuzz.py is imported (collection comes after configure).
    if config.getoption("--fuzz-long") and not os.environ.get("TFMINI_FUZZ_LONG"):
        os.environ["TFMINI_FUZZ_LONG"] = "1"
