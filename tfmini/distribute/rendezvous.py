"""The rendezvous of a task actor: where the _Recv ops of its parts find their values.

Every task holds one :class:`~tfmini.ops.data_flow.Rendezvous` table keyed by (step id,
TensorFlow's rendezvous key). A ``_Send`` whose receiver is another task pushes the value to
that task's actor (``deliver``, in the actor's own ``rendezvous`` concurrency group so it is
never starved by blocked runs); the receiving ``_Recv`` waits on its own table with the run's
deadline. The client aborts a step on every task when one part fails, which wakes the others'
waits, so no step outlives its first error.
"""

from __future__ import annotations

import threading
from typing import Any

from tfmini.core.devices import DeviceSpec
from tfmini.distribute.ray_support import NAMESPACE, actor_name, import_ray
from tfmini.ops.data_flow import Rendezvous

# Ray concurrency group of deliver/abort_step: a few threads of their own.
CONCURRENCY_GROUP = "rendezvous"


class TaskRendezvous:
    """One task's rendezvous table and its handles to the other tasks' actors."""

    def __init__(self, job: str, task: int, namespace: str = NAMESPACE):
        self.task = (job, task)
        self.namespace = namespace
        self.table = Rendezvous()
        self._peers: dict[tuple[str, int], Any] = {}
        self._lock = threading.Lock()

    def step(self, step_id: str) -> StepRendezvous:
        return StepRendezvous(self, step_id)

    def peer(self, task: tuple[str, int]) -> Any:
        """The ``deliver`` method of ``task``'s actor."""
        with self._lock:
            actor = self._peers.get(task)
            if actor is None:
                ray = import_ray()
                actor = ray.get_actor(actor_name(*task), namespace=self.namespace)
                # The bound method with its options, built once (options() costs per call).
                actor = actor.deliver.options(concurrency_group=CONCURRENCY_GROUP)
                self._peers[task] = actor
            return actor


class StepRendezvous:
    """The rendezvous one run of a part sees (``options.rendezvous`` of its kernels)."""

    def __init__(self, owner: TaskRendezvous, step_id: str):
        self.owner = owner
        self.step_id = step_id

    def send(self, ctx: Any, key: str, value: Any, recv_device: str) -> None:
        del ctx
        spec = DeviceSpec.from_string(recv_device)
        task = (spec.job, spec.task if spec.task is not None else 0)
        if task == self.owner.task:
            self.owner.table.put(self.step_id, key, value)
            return
        # Fire and forget: a lost delivery shows as the receiver's deadline or as the
        # client's abort of the step when a task fails.
        self.owner.peer(task).remote(self.step_id, key, value)

    def recv(self, ctx: Any, key: str, what: str) -> Any:
        return self.owner.table.take(ctx, self.step_id, key, what)
