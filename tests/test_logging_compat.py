"""``tm.logging`` (TF1's logging functions on Python's logging) and ``tm.compat``'s helpers."""

from __future__ import annotations

import logging
import pathlib

import pytest

import tfmini as tm


def test_logging_levels_and_repetition(caplog):
    tm.logging.set_verbosity(tm.logging.INFO)
    assert tm.logging.get_verbosity() == logging.INFO
    with caplog.at_level(logging.DEBUG, logger="tfmini"):
        tm.logging.info("step %d", 3)
        tm.logging.debug("hidden at INFO?")  # caplog lowers the level: recorded
        for i in range(5):
            tm.logging.log_every_n(tm.logging.WARN, "every %d", 2, i)
        for i in range(5):
            tm.logging.log_first_n(tm.logging.ERROR, "first %d", 2, i)
        tm.logging.log_if(tm.logging.INFO, "yes", True)
        tm.logging.log_if(tm.logging.INFO, "no", False)
        tm.logging.TaskLevelStatusMessage("status")
    messages = [r.getMessage() for r in caplog.records]
    assert "step 3" in messages
    assert [m for m in messages if m.startswith("every")] == ["every 0", "every 2", "every 4"]
    assert [m for m in messages if m.startswith("first")] == ["first 0", "first 1"]
    assert "yes" in messages and "no" not in messages
    assert any(r.levelno == logging.ERROR and r.getMessage() == "status" for r in caplog.records)
    tm.logging.flush()


def test_compat_helpers():
    assert tm.compat.as_bytes("é") == "é".encode()
    assert tm.compat.as_text(b"abc") == tm.compat.as_str("abc") == "abc"
    assert tm.compat.as_str_any(3) == "3"
    assert tm.compat.path_to_str(pathlib.Path("/tmp/x")) == "/tmp/x"
    assert tm.compat.dimension_value(tm.TensorShape([None, 4]).dims[1]) == 4
    assert tm.compat.dimension_at_index(tm.TensorShape(None), 0) is None
    assert isinstance(3, tm.compat.integral_types) and isinstance(2.5, tm.compat.real_types)
    assert tm.compat.v1 is tm and tm.compat.v1.placeholder is tm.placeholder
    with pytest.raises(TypeError):
        tm.compat.as_bytes(3)
