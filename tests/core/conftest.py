"""Fixtures shared by the core tests."""

from __future__ import annotations

import pytest

import tfmini as tm
from tfmini.core import registry


@pytest.fixture
def register():
    """``tm.register_op`` that unregisters the op types again when the test ends."""
    names: list[str] = []

    def reg(op_type, *args, **kwargs):
        names.append(op_type)
        return tm.register_op(op_type, *args, **kwargs)

    yield reg
    for name in names:
        if registry.lookup(name) is not None:
            registry.unregister(name)
