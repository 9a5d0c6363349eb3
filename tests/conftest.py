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
