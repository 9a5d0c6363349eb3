"""The session behind ``tm.Session("grpc://...")``: runs a graph's parts on cluster tasks.

A run is partitioned by task (:mod:`tfmini.distribute.partition`) into stages; each stage is
one call to its task's actor carrying every tensor it receives and returning every tensor it
sends. Blocking ops wait in the actor with the run's remaining deadline; ``close()`` cancels
this session's waits on every task. Fetching, feeding and errors behave as the local Session.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.distribute.cluster import resolve_target
from tfmini.distribute.partition import partition, recv_name
from tfmini.runtime.session import Session, register_session_target

# Slack for the remote call beyond the run's own deadline before the client gives up.
CALL_SLACK_S = 5.0


class _DistPlan:
    def __init__(self, outputs, stages):
        self.outputs = outputs
        self.stages = stages
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

    @property
    def sess_str(self) -> str:
        return self._target

    def _plan(self, outputs, feeds, targets):
        key = (tuple(outputs), feeds, tuple(targets))
        with self._dist_lock:
            plan = self._dist_plans.get(key)
            if plan is None:
                stages = partition(list(outputs), feeds, list(targets),
                                   self._cluster.cluster_spec, self._default_task)
                plan = self._dist_plans[key] = _DistPlan(list(outputs), stages)
            return plan

    def _execute(self, plan: _DistPlan, feed_values: list, options: Any,
                 run_metadata: Any) -> list:
        del run_metadata
        ray = self._cluster._ray
        values: dict = {}
        key = next(k for k, p in self._dist_plans.items() if p is plan)
        for t, v in zip(key[1], feed_values):
            values[t] = v
        timeout_ms = getattr(options, "timeout_in_ms", 0) or getattr(
            self._config, "operation_timeout_in_ms", 0) or 0
        deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else None
        for stage in plan.stages:
            if self._closed:
                raise errors.CancelledError(None, None, "Session was closed during the run")
            actor = self._cluster.actor(*stage.task)
            send_def = (stage.task, stage.key) not in plan.sent
            feeds = {recv_name(t) + ":0": values[t] for t in stage.recvs}
            remaining = 0
            if deadline is not None:
                remaining = max(1, int((deadline - time.monotonic()) * 1000))
            self._tasks_used.add(stage.task)
            ref = actor.run_part.remote(
                self._client, stage.key, stage.graph_def if send_def else None, feeds,
                [t.name for t in stage.sends], [op.name for op in stage.ops], remaining)
            wait = None if deadline is None else remaining / 1000 + CALL_SLACK_S
            out = _get(ray, ref, wait, stage.task)
            plan.sent.add((stage.task, stage.key))
            for t, v in zip(stage.sends, out):
                values[t] = v
        return [np.asarray(values[o]) if not isinstance(values[o], np.generic) else values[o]
                for o in plan.outputs]

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
    except errors.OpError:
        raise
    except ray.exceptions.GetTimeoutError:
        raise errors.DeadlineExceededError(
            None, None, f"/job:{task[0]}/task:{task[1]} did not answer in time") from None
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, errors.OpError):
            raise cause from None
        if isinstance(cause, (ValueError, TypeError)):
            raise cause from None
        raise errors.InternalError(None, None, f"/job:{task[0]}/task:{task[1]}: {e}") from None
    except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as e:
        raise errors.UnavailableError(
            None, None, f"/job:{task[0]}/task:{task[1]} is unavailable: {e}") from None


register_session_target(lambda target: DistributedSession
                        if resolve_target(target) is not None else None)
