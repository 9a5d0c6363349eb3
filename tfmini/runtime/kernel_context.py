"""The kernel context: everything a kernel may reach besides its inputs and attrs.

One ``RunState`` is made per ``Session.run``; each device a plan uses gets a
``KernelContext`` view of it (its resource manager, its device name).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from tfmini import errors
from tfmini.runtime.late_updates import LateUpdate

_step_ids = itertools.count(1)

# How often a waiting kernel looks at the clock and the session even without a notify: a
# close() or a deadline is noticed within this time (the issue asks for 100 ms).
WAIT_POLL_SECONDS = 0.02


class RunState:
    """Per-run state shared by every kernel of one ``Session.run``.

    Attributes:
        session: The running Session.
        options: The RunOptions of this run (or None).
        deadline: ``time.monotonic()`` value after which blocking steps give up, or None.
        step_id: A process-unique number for this run.
        step_resources: Resources that live for this run only (TensorFlow's per-step
            container: TensorArrays), keyed by name; dropped with the RunState.
        recomputing: How many gradient recomputations (a WhileGrad replaying its loop, a
            gradient function re-running forward ops) are in progress; kernels of per-step
            resources tolerate replayed writes and reads while it is nonzero.
    """

    __slots__ = (
        "session", "options", "deadline", "step_id", "_undo", "cancelled", "closed_inside",
        "step_resources", "recomputing", "late_ops", "late",
    )

    def __init__(self, session: Any, options: Any, deadline: float | None):
        self.session = session
        self.options = options
        self.deadline = deadline
        self.step_id = next(_step_ids)
        # Always a list: blocking steps' threads append to it too (list.append is atomic).
        self._undo: list[Callable[[], None]] = []
        self.cancelled = False
        # Set when a kernel of this run closed the session: the run then ends cancelled.
        self.closed_inside = False
        self.step_resources: dict[str, Any] = {}
        self.recomputing = 0
        # Ops of the plan whose updates may wait for the run's end (late_updates.py), and
        # the updates that wait.
        self.late_ops: frozenset = frozenset()
        self.late: list = []

    def cancel(self) -> None:
        """Makes this run's waiting steps give up (another step of the run failed)."""
        self.cancelled = True
        self.session._wake_waiters()

    def on_failure(self, undo: Callable[[], None]) -> None:
        self._undo.append(undo)

    def rollback(self) -> None:
        """Runs the undo actions of this run, newest first."""
        undo, self._undo = self._undo, []
        for fn in reversed(undo):
            fn()


class KernelContext:
    """What a kernel sees of the runtime (its first argument when it asks for ``ctx``)."""

    __slots__ = ("run", "device", "device_type", "resource_manager")

    def __init__(self, run: RunState, device: str, device_type: str, resource_manager: Any):
        self.run = run
        self.device = device
        self.device_type = device_type
        self.resource_manager = resource_manager

    @property
    def session(self) -> Any:
        return self.run.session

    @property
    def options(self) -> Any:
        return self.run.options

    @property
    def step_id(self) -> int:
        return self.run.step_id

    def on_failure(self, undo: Callable[[], None]) -> None:
        """Registers ``undo`` to run if this ``Session.run`` fails after this step.

        Stateful kernels call it when they change state, so a failed run leaves
        variables, accumulators and tables as they were.
        """
        self.run.on_failure(undo)

    def commits_late(self, node: Any) -> bool:
        """Whether ``node``'s kernel may hand its update to :meth:`commit_late` (nothing
        after it in this run touches its resources: ``runtime/late_updates.py``)."""
        return node in self.run.late_ops

    def late_pending(self) -> bool:
        """Whether this run already holds a deferred update: a marked op must then defer
        its own too, so that the two become visible in run order."""
        return bool(self.run.late)

    def commit_late(self, node: Any, resources: Sequence[Any], check: Callable[[], None],
                    apply: Callable[[], None]) -> None:
        """Registers ``node``'s update to apply when every step of the run has succeeded,
        holding the locks of ``resources``: ``check()`` (raising a ``tm.errors`` class when
        the resources changed so that the update no longer fits; the error then names
        ``node``) for every such update first, then ``apply()``, which must not fail. Only
        for a ``node`` :meth:`commits_late` accepted."""
        self.run.late.append(LateUpdate(node, resources, check, apply))

    @property
    def step_resources(self) -> dict[str, Any]:
        """This run's per-step resources (see ``RunState.step_resources``)."""
        return self.run.step_resources

    @property
    def recomputing(self) -> bool:
        """True while a gradient replays forward computation (see ``RunState.recomputing``)."""
        return self.run.recomputing > 0

    def call_function_recomputing(self, function: Any, args: Sequence[Any]) -> list:
        """``call_function`` for a replay of forward work by a gradient (see ``recomputing``)."""
        self.run.recomputing += 1
        try:
            return self.call_function(function, args)
        finally:
            self.run.recomputing -= 1

    def resource_manager_for(self, device_type: str) -> Any:
        """The resource manager of another device of this session."""
        return self.run.session._device(device_type).resource_manager

    def call_function(self, function: Any, args: Sequence[Any]) -> list:
        """Runs a sub-graph (a FuncGraph with ``inputs``, ``outputs``, ``control_outputs``)."""
        return self.run.session._call_function(function, args, self.run)

    def wait(self, condition: threading.Condition, ready: Callable[[], bool], what: str,
             detail: Callable[[], str] | None = None) -> None:
        """Waits until ``ready()`` is true; the caller holds ``condition`` (as for
        ``Condition.wait``) and notifies it whenever ``ready()`` may have changed.

        Blocking kernels (ops registered with ``blocking=True``) wait this way, so a
        wait ends when the session closes or the run is cancelled (CancelledError
        "<what> was cancelled") and at the run's deadline (DeadlineExceededError
        "Timed out waiting for <what>", with ``detail()`` appended), within
        ``WAIT_POLL_SECONDS`` even if nobody notifies.
        """
        run = self.run
        session = run.session
        session._add_waiter(condition)
        try:
            while not ready():
                if session.closed or run.cancelled:
                    raise errors.CancelledError(None, None, f"{what} was cancelled")
                timeout = WAIT_POLL_SECONDS
                if run.deadline is not None:
                    left = run.deadline - time.monotonic()
                    if left <= 0:
                        extra = f": {detail()}" if detail is not None else ""
                        raise errors.DeadlineExceededError(
                            None, None, f"Timed out waiting for {what}{extra}"
                        )
                    timeout = min(timeout, left)
                condition.wait(timeout)
        finally:
            session._remove_waiter(condition)

    def remaining_seconds(self) -> float | None:
        """Seconds until this run's deadline, or None for no deadline."""
        if self.run.deadline is None:
            return None
        return self.run.deadline - time.monotonic()

    def check_deadline(self, what: str) -> None:
        """Raises DeadlineExceededError if this run's deadline has passed."""
        left = self.remaining_seconds()
        if left is not None and left <= 0:
            raise errors.DeadlineExceededError(None, None, f"Timed out waiting for {what}")
