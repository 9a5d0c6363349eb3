"""Runtime tests: the counter ops of counter_ops.py are registered for the whole package."""

from __future__ import annotations

import pytest

from tests.runtime import counter_ops


@pytest.fixture(autouse=True, scope="package")
def _counter_ops():
    counter_ops.register()
    yield
    counter_ops.unregister_all()
