"""``tm.logging``: TensorFlow's ``tf.compat.v1.logging`` (``tensorflow/python/platform/
tf_logging.py``) over Python's :mod:`logging`, on the ``tfmini`` logger.

The levels are Python's, under TensorFlow's names (DEBUG 10, INFO 20, WARN = WARNING 30,
ERROR 40, FATAL 50); the default verbosity is WARNING's (30), as in TensorFlow.
``log_every_n`` and ``log_first_n`` count calls per call site (file and line).
"""

from __future__ import annotations

import logging as _logging
import sys
import threading
from typing import Any

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
WARNING = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_counts: dict[tuple[str, int], int] = {}
_counts_lock = threading.Lock()


def get_logger() -> _logging.Logger:
    """The logger these functions write to (``tfmini``)."""
    return _logging.getLogger("tfmini")


def set_verbosity(v: int) -> None:
    """Sets the threshold below which messages are dropped (e.g. ``tm.logging.INFO``)."""
    get_logger().setLevel(v)


def get_verbosity() -> int:
    """The current threshold (the logger's effective level)."""
    return get_logger().getEffectiveLevel()


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs ``msg % args`` at ``level``."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at INFO."""
    get_logger().info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at WARNING."""
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ERROR."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL (Python's CRITICAL); like TensorFlow's, it does not exit."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at ``level`` (TensorFlow's vlog is plain ``log``)."""
    get_logger().log(level, msg, *args, **kwargs)


def _call_site_count() -> int:
    """How many times the caller's caller line was reached before (thread-safe)."""
    frame = sys._getframe(2)
    key = (frame.f_code.co_filename, frame.f_lineno)
    with _counts_lock:
        count = _counts.get(key, 0)
        _counts[key] = count + 1
    return count


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the 1st, (n+1)th, (2n+1)th, ... call from this call site."""
    count = _call_site_count()
    if count % max(n, 1) == 0:
        log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the first ``n`` calls from this call site only."""
    count = _call_site_count()
    if count < n:
        log(level, msg, *args)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    """Logs when ``condition`` is true."""
    if condition:
        log(level, msg, *args)


# TensorFlow's default threshold: WARNING, unless the application set one.
if get_logger().level == _logging.NOTSET:
    get_logger().setLevel(WARNING)

__all__ = [
    "DEBUG", "ERROR", "FATAL", "INFO", "WARN", "WARNING", "debug", "error", "fatal",
    "get_logger", "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if",
    "set_verbosity", "vlog", "warn", "warning",
]
