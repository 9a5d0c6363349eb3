"""The session behind ``tm.Session("grpc://...")``: runs a graph's parts on cluster tasks.

A run is partitioned by task (:mod:`tfmini.distribute.partition`) into one part per task,
joined by _Send/_Recv pairs. A step is one call per task carrying all of that task's feeds,
dispatched to every task at once; the client then waits for all of them with the run's
deadline. When a part fails, the step is aborted on every task (the other parts' waits end
and their runs roll back) and the first error is raised with its own class. A dead or
restarting task raises UnavailableError naming it; a task that restarted since this session
first used it, AbortedError (docs/distributed.md, "Faults"). ``close()`` cancels this
session's waits on every task. Fetching, feeding and errors behave as the local Session.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.distribute.cluster import resolve_target
from tfmini.distribute.partition import feed_name, partition
from tfmini.distribute.rendezvous import CONCURRENCY_GROUP
from tfmini.runtime.session import Session, register_session_target

# Slack for the remote call beyond the run's own deadline before the client gives up.
CALL_SLACK_S = 5.0


class _DistPlan:
    def __init__(self, outputs, feeds, parts):
        self.outputs = outputs
        self.feeds = feeds
        self.parts = parts
        self.sent: set[tuple[tuple[str, int], str]] = set()  # parts a task already holds


class DistributedSession(Session):
    """A Session whose ops run on the tasks of a :class:`RayCluster` (see module doc)."""

    def __init__(self, target: str = "", graph: Any = None, config: Any = None, **kwargs):
        resolved = resolve_target(target)
        if resolved is None:
            raise errors.UnavailableError(None, None, f"No cluster task serves {target!r}")
        super().__init__("", graph, config, **kwargs)
        self._target = target
        self._cluster, job, task = resolved
        self._default_task = (job, task)
        self._client = uuid.uuid4().hex
        self._dist_plans: dict[tuple, _DistPlan] = {}
        self._dist_lock = threading.Lock()
        self._tasks_used: set[tuple[str, int]] = set()
        # The incarnation of each task this session used: a task that restarted since (it
        # lost this session's state) answers AbortedError.
        self._incarnations: dict[tuple[str, int], str] = {}
        self._steps = itertools.count()

    @property
    def sess_str(self) -> str:
        return self._target

    def _plan(self, outputs, feeds, targets):
        key = (tuple(outputs), feeds, tuple(targets))
        with self._dist_lock:
            plan = self._dist_plans.get(key)
            if plan is None:
                parts = partition(list(outputs), feeds, list(targets),
                                  self._cluster.cluster_spec, self._default_task,
                                  soft_placement=bool(getattr(
                                      self._config, "allow_soft_placement", False)))
                plan = self._dist_plans[key] = _DistPlan(list(outputs), feeds, parts)
            return plan

    def _execute(self, plan: _DistPlan, feed_values: list, options: Any,
                 run_metadata: Any) -> list:
        del run_metadata
        ray = self._cluster._ray
        values: dict = dict(zip(plan.feeds, feed_values))
        timeout_ms = getattr(options, "timeout_in_ms", 0) or getattr(
            self._config, "operation_timeout_in_ms", 0) or 0
        deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else None
        if self._closed:
            raise errors.CancelledError(None, None, "Session was closed during the run")
        step_id = f"{self._client}:{next(self._steps)}"
        refs: dict[Any, Any] = {}
        for part in plan.parts:
            actor = self._cluster.actor(*part.task)
            send_def = (part.task, part.key) not in plan.sent
            feeds = {feed_name(t) + ":0": values[t] for t in part.feeds}
            self._tasks_used.add(part.task)
            ref = actor.run_part.remote(
                self._client, part.key, part.graph_def if send_def else None, feeds,
                [t.name for t in part.fetches], part.targets, timeout_ms, step_id,
                part.inline_waits if part.sequential else None,
                self._incarnation(part.task, actor))
            refs[ref] = part
        pending = list(refs)
        while pending:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, pending = ray.wait(pending, num_returns=1,
                                      timeout=None if wait is None else wait + CALL_SLACK_S)
            if not ready:
                late = ", ".join(f"/job:{refs[r].task[0]}/task:{refs[r].task[1]}"
                                 for r in pending)
                self._abort(plan, step_id, f"{late} did not answer in time")
                raise errors.DeadlineExceededError(
                    None, None, f"{late} did not answer in time")
            part = refs[ready[0]]
            try:
                out = _get(ray, ready[0], 0, part.task)
            except Exception as e:
                self._fail_step(plan, step_id, part.task, e, pending)
                raise
            plan.sent.add((part.task, part.key))
            for t, v in zip(part.fetches, out):
                values[t] = v
        return [np.asarray(values[o]) if not isinstance(values[o], np.generic) else values[o]
                for o in plan.outputs]

    def _incarnation(self, task: tuple[str, int], actor: Any) -> str:
        """The incarnation of ``task`` this session knows (asked once per task)."""
        known = self._incarnations.get(task)
        if known is None:
            ray = self._cluster._ray
            known = _get(ray, actor.get_incarnation.remote(), CALL_SLACK_S, task)
            self._incarnations[task] = known
        return known

    def _fail_step(self, plan: _DistPlan, step_id: str, task: tuple[str, int],
                   error: Exception, pending: list) -> None:
        """Ends step ``step_id`` everywhere after ``task``'s part failed with ``error``: the
        other parts' waits end and their runs roll back; returns once they answered (or
        after ``CALL_SLACK_S``), so no part of a failed step goes on running."""
        if isinstance(error, (errors.UnavailableError, errors.AbortedError)):
            # The task died or restarted: it lost every part it held; send them again.
            with self._dist_lock:
                for p in self._dist_plans.values():
                    p.sent = {s for s in p.sent if s[0] != task}
        self._abort(plan, step_id, f"/job:{task[0]}/task:{task[1]}: {error}")
        if pending:
            self._cluster._ray.wait(pending, num_returns=len(pending), timeout=CALL_SLACK_S)

    def _abort(self, plan: _DistPlan, step_id: str, reason: str) -> None:
        for part in plan.parts:
            try:
                self._cluster.actor(*part.task).abort_step.options(
                    concurrency_group=CONCURRENCY_GROUP).remote(step_id, reason)
            except Exception:  # a task that is gone has no waits to end
                pass

    def close(self) -> None:
        if self._closed:
            return
        ray = self._cluster._ray
        refs = []
        for task in self._tasks_used:
            try:
                refs.append(self._cluster.actor(*task).cancel.remote(self._client))
            except Exception:  # a task that is gone has nothing to cancel
                pass
        for r in refs:
            try:
                ray.get(r, timeout=CALL_SLACK_S)
            except Exception:
                pass
        super().close()


def _get(ray: Any, ref: Any, timeout: float | None, task: tuple[str, int]) -> Any:
    try:
        return ray.get(ref, timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        raise errors.DeadlineExceededError(
            None, None, f"/job:{task[0]}/task:{task[1]} did not answer in time") from None
    except ray.exceptions.RayTaskError as e:
        # Ray raises a class deriving from both RayTaskError and the task's error, whose text
        # is Ray's traceback: the task's own error is what the caller sees.
        cause = getattr(e, "cause", None)
        if isinstance(cause, errors.OpError):
            raise cause from None
        if isinstance(cause, (ValueError, TypeError)):
            raise cause from None
        raise errors.InternalError(None, None, f"/job:{task[0]}/task:{task[1]}: {e}") from None
    except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as e:
        # Ray's ActorDiedError / ActorUnavailableError: the task's process is gone or
        # restarting. Its one-line reason, not Ray's traceback.
        raise errors.UnavailableError(
            None, None, f"Task /job:{task[0]}/task:{task[1]} is unavailable "
            f"({type(e).__name__}: its process died or is restarting); its step was "
            "aborted on the other tasks") from None


register_session_target(lambda target: DistributedSession
                        if resolve_target(target) is not None else None)
