"""``tm.logging``: TensorFlow 1's logging functions (``tf.compat.v1.logging``) on Python's
:mod:`logging`, through the ``"tfmini"`` logger.

Levels are Python's (``DEBUG`` 10 ... ``FATAL`` 50); ``set_verbosity`` sets the logger's level.
``fatal`` logs at FATAL and does not exit (TensorFlow's absl logger aborts).
"""

from __future__ import annotations

import logging as _logging
import sys
from typing import Any

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_logger = _logging.getLogger("tfmini")
_counts: dict[Any, int] = {}


def get_logger() -> _logging.Logger:
    """The ``"tfmini"`` logger these functions write to."""
    return _logger


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs ``msg % args`` at ``level``."""
    _logger.log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at DEBUG."""
    _logger.debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at INFO."""
    _logger.info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at WARN."""
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ERROR."""
    _logger.error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL (without exiting)."""
    _logger.critical(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ``level`` (TensorFlow's verbose logging)."""
    _logger.log(level, msg, *args, **kwargs)


def _caller_key() -> tuple:
    frame = sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the 1st, (n+1)-th, (2n+1)-th ... call from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % max(n, 1) == 0:
        _logger.log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the first ``n`` calls from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        _logger.log(level, msg, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs when ``condition`` is true."""
    if condition:
        _logger.log(level, msg, *args)


def flush() -> None:
    """Flushes the logger's handlers."""
    for handler in _logger.handlers:
        handler.flush()


def get_verbosity() -> int:
    """The logger's effective level."""
    return _logger.getEffectiveLevel()


def set_verbosity(v: int) -> None:
    """Sets the logger's level."""
    _logger.setLevel(v)


def TaskLevelStatusMessage(msg: Any) -> None:  # noqa: N802  (TensorFlow's name)
    """Logs a task-level status message (at ERROR, as TensorFlow does)."""
    _logger.error(msg)


__all__ = ["DEBUG", "ERROR", "FATAL", "INFO", "TaskLevelStatusMessage", "WARN", "debug", "error",
           "fatal", "flush", "get_verbosity", "info", "log", "log_every_n", "log_first_n",
           "log_if", "set_verbosity", "vlog", "warn", "warning"]
