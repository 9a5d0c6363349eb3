"""Thread-local default session, as TF1 keeps it (``tm.get_default_session()``).

The Session (runtime layer) pushes itself here when entered; ``Output.eval``
and ``Operation.run`` read it. Core never imports the runtime.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

_local = threading.local()


def _stack() -> list:
    stack = getattr(_local, "sessions", None)
    if stack is None:
        stack = _local.sessions = []
    return stack


def get_default_session() -> Any:
    """The innermost session entered on this thread, or ``None``."""
    stack = _stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def default_session(session: Any):
    """Makes ``session`` the default session of this thread for the ``with`` block."""
    stack = _stack()
    stack.append(session)
    try:
        yield session
    finally:
        # Remove this entry even if blocks were exited out of order.
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is session:
                del stack[i]
                break


# The runtime registers its Session and RunOptions/RunMetadata classes here, so the layers
# above the ops (tm.train's MonitoredSession, hooks) make sessions without importing it.
_runtime_classes: dict[str, Any] = {}


def register_runtime_class(name: str, cls: Any) -> None:
    """Called by the runtime at import: ``Session``, ``RunOptions``, ``RunMetadata``."""
    _runtime_classes[name] = cls


def runtime_class(name: str) -> Any:
    """The runtime's class ``name``.

    Raises:
        RuntimeError: the runtime was not imported (``import tfmini`` imports it).
    """
    try:
        return _runtime_classes[name]
    except KeyError:
        raise RuntimeError(f"tfmini's runtime is not loaded (no {name!r}); import tfmini "
                           "first") from None
