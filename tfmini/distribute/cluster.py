"""``tm.distribute.RayCluster``: one threaded Ray actor per task of a ClusterSpec.

Each actor is a :class:`~tfmini.distribute.task_server.TaskServer` (max_concurrency > 1, so a
run blocked in a take or dequeue does not stall the others). Actors are named
``tfmini/<job>/<task>`` in a Ray namespace (``tfmini`` by default) so a Server or Session in
another process of the same Ray cluster finds them. Ray restarts a task actor that dies as
its job's ``max_restarts`` says (docs/distributed.md, "Faults"). Targets
(``grpc://<task address>``) are registered in this process so ``tm.Session(target)`` knows the
cluster behind them.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from tfmini import errors
from tfmini.distribute.ray_support import NAMESPACE, actor_name, ensure_ray
from tfmini.distribute.rendezvous import CONCURRENCY_GROUP
from tfmini.distribute.task_server import TaskServer
from tfmini.train.server_lib import ClusterSpec

# Concurrent calls one task serves: blocked waits (takes, dequeues) hold a thread each.
MAX_CONCURRENCY = 32
# Seconds a session waits for a task's actor to appear (TFMINI_TASK_WAIT_S overrides).
TASK_WAIT_S = 60.0

_targets: dict[str, tuple[RayCluster, str, int]] = {}
_targets_lock = threading.Lock()


class RayCluster:
    """The tasks of ``cluster_spec`` as Ray actors.

    Args:
        cluster_spec: A ClusterSpec or its dict.
        address: None (start a local Ray instance on 127.0.0.1 if this process has none),
            ``"auto"`` or a Ray address to join.
        start: Create the task actors now (otherwise each :meth:`start_task` creates one).
        namespace: The Ray namespace of the task actors: two clusters with the same jobs
            coexist on one Ray instance in different namespaces.
        max_restarts: How often Ray restarts a task actor that died (killed, ``os._exit``):
            an int for every job or a dict job -> int (missing jobs: 0). 0 drops a dead task
            (its calls fail with UnavailableError); -1 restarts it without limit. A restarted
            task starts empty: its resources (variables, accumulators, queues) are gone.
        max_task_retries: Ray's retries of a call to a task that died during it (Ray's
            ``max_task_retries``; at-least-once delivery, so accumulator applies are
            idempotent per step, docs/distributed.md): an int or a dict job -> int.
    """

    def __init__(self, cluster_spec: Any, address: str | None = None, start: bool = True,
                 namespace: str = NAMESPACE, max_restarts: int | dict[str, int] = 0,
                 max_task_retries: int | dict[str, int] = 0):
        self.cluster_spec = (cluster_spec if isinstance(cluster_spec, ClusterSpec)
                             else ClusterSpec(cluster_spec))
        self.namespace = namespace
        self._restarts = _per_job(max_restarts, "max_restarts")
        self._retries = _per_job(max_task_retries, "max_task_retries")
        self._ray = ensure_ray(address)
        self._actors: dict[tuple[str, int], Any] = {}
        self._lock = threading.Lock()
        for job in self.cluster_spec.jobs:
            for task in self.cluster_spec.task_indices(job):
                with _targets_lock:
                    _targets[target_of(self.cluster_spec, job, task)] = (self, job, task)
                if start:
                    self.start_task(job, task)

    def start_task(self, job: str, task: int) -> Any:
        """The actor of one task, created unless it exists (in any process of the cluster)."""
        self.cluster_spec.task_address(job, task)  # ValueError for an unknown task
        with self._lock:
            actor = self._actors.get((job, task))
            if actor is None:
                remote_cls = self._ray.remote(
                    num_cpus=0, max_concurrency=MAX_CONCURRENCY,
                    concurrency_groups={CONCURRENCY_GROUP: 4})(TaskServer)
                actor = remote_cls.options(
                    name=actor_name(job, task), namespace=self.namespace, get_if_exists=True,
                    max_restarts=self._restarts(job),
                    max_task_retries=self._retries(job)).remote(job, task, self.namespace)
                self._actors[(job, task)] = actor
            return actor

    def actor(self, job: str, task: int) -> Any:
        """The actor of ``/job:<job>/task:<task>``, waiting (bounded) for the task's process
        to create it when it is not there yet.

        Raises:
            ValueError: no such task in the cluster.
            UnavailableError: the task's actor did not appear within ``TFMINI_TASK_WAIT_S``
                seconds (60 by default).
        """
        self.cluster_spec.task_address(job, task)
        actor = self._actors.get((job, task))
        if actor is None:
            actor = self._actors[(job, task)] = _wait_for_actor(
                self._ray, job, task, self.namespace)
        return actor

    def shutdown(self) -> None:
        """Ends the task actors (their resources go with them)."""
        with self._lock:
            actors = list(self._actors.values())
            self._actors.clear()
        for a in actors:
            self._ray.kill(a)
        with _targets_lock:
            for t in [t for t, v in _targets.items() if v[0] is self]:
                del _targets[t]


def _wait_for_actor(ray: Any, job: str, task: int, namespace: str = NAMESPACE) -> Any:
    # A task started by a process of its own (one process per task) may come up after the
    # processes that use it, as TensorFlow's servers may: wait for it, bounded.
    wait_s = float(os.environ.get("TFMINI_TASK_WAIT_S", TASK_WAIT_S))
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return ray.get_actor(actor_name(job, task), namespace=namespace)
        except ValueError:  # Ray's answer for a name no live actor has
            if time.monotonic() >= deadline:
                raise errors.UnavailableError(
                    None, None, f"/job:{job}/task:{task} did not start within {wait_s:g} s "
                                "(no process has created its Server)") from None
            time.sleep(0.1)


def _per_job(value: int | dict[str, int], what: str):
    """``job -> value`` from an int (every job) or a dict (missing jobs: 0)."""
    if isinstance(value, dict):
        bad = {j: v for j, v in value.items() if not isinstance(v, int) or v < -1}
    else:
        bad = {} if isinstance(value, int) and value >= -1 else {"*": value}
    if bad:
        raise ValueError(f"RayCluster: {what} must be ints >= -1 (-1: no limit), got {bad}")
    if isinstance(value, dict):
        return lambda job: value.get(job, 0)
    return lambda job: value


def target_of(cluster_spec: ClusterSpec, job: str, task: int) -> str:
    return "grpc://" + cluster_spec.task_address(job, task)


def resolve_target(target: str) -> tuple[RayCluster, str, int] | None:
    """The cluster and task a session target names (None if no cluster here has it)."""
    with _targets_lock:
        return _targets.get(target)
