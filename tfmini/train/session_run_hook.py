"""``SessionRunHook`` and its arguments (``tensorflow/python/training/session_run_hook.py``).

A hook sees a ``MonitoredSession``'s life: ``begin`` (the graph can still change),
``after_create_session``, ``before_run`` / ``after_run`` around every ``run`` (adding
fetches, feeds and options to the caller's), and ``end``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to ``MonitoredSession.run``; every method does nothing here."""

    def begin(self) -> None:
        """Called once before the session is made; the graph may still be changed."""

    def after_create_session(self, session: Any, coord: Any) -> None:
        """Called when a new session is ready (after restore or initialisation)."""

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        """Called before each ``run``; returns extra fetches/feeds/options or None."""
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        """Called after each successful ``run`` with the results of this hook's fetches."""

    def end(self, session: Any) -> None:
        """Called when the session closes without an error."""


class SessionRunArgs(NamedTuple):
    """What a hook adds to a ``run``: ``fetches``, ``feed_dict`` and ``options``."""

    fetches: Any
    feed_dict: Any = None
    options: Any = None


class SessionRunValues(NamedTuple):
    """The results of a hook's fetches, and the run's options and metadata."""

    results: Any
    options: Any
    run_metadata: Any


class SessionRunContext:
    """The ``run`` call a hook sees: the caller's arguments, the session, and a stop flag.

    Args:
        original_args: The caller's ``SessionRunArgs``.
        session: The raw session (not the monitored one).
    """

    def __init__(self, original_args: SessionRunArgs, session: Any):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self) -> Any:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the monitored session to stop after this run (``should_stop`` turns True)."""
        self._stop_requested = True
