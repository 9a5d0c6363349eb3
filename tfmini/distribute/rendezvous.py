"""The rendezvous of a task actor: where the _Recv ops of its parts find their values.

Every task holds one :class:`~tfmini.ops.data_flow.Rendezvous` table keyed by (step id,
TensorFlow's rendezvous key). A ``_Send`` whose receiver is another task pushes the value to
that task's actor (``deliver_all``, in the actor's own ``rendezvous`` concurrency group so it
is never starved by blocked runs; a sequential part's sends to one task go in one call); the
receiving ``_Recv`` waits on its own table with the run's deadline. The client aborts a
step on every task when one part fails, which wakes the others' waits, so no step outlives
its first error.
"""

from __future__ import annotations

import functools
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

    def step(self, step_id: str, batched: bool = False) -> StepRendezvous:
        """The rendezvous of one part's run of step ``step_id``; ``batched``: the part is
        sequential (one thread), so its sends to a task go out together (see
        :class:`StepRendezvous`)."""
        return StepRendezvous(self, step_id, batched)

    def peer(self, task: tuple[str, int]) -> Any:
        """The ``deliver_all`` method of ``task``'s actor."""
        with self._lock:
            actor = self._peers.get(task)
            if actor is None:
                ray = import_ray()
                actor = ray.get_actor(actor_name(*task), namespace=self.namespace)
                # The bound method with its options, built once (options() costs per call);
                # no return value: nobody waits for a delivery.
                actor = actor.deliver_all.options(concurrency_group=CONCURRENCY_GROUP,
                                                  num_returns=0)
                self._peers[task] = actor
            return actor


@functools.lru_cache(maxsize=1024)
def _task_of(device: str) -> tuple[str, int]:
    spec = DeviceSpec.from_string(device)
    return (spec.job, spec.task if spec.task is not None else 0)


class StepRendezvous:
    """The rendezvous one run of a part sees (``options.rendezvous`` of its kernels).

    A value for another task goes to that task's actor in a ``deliver_all`` call. In a
    sequential part (its ops run in order on one thread, tfmini/distribute/sequencing.py)
    the values for one task wait here until the part is about to wait in a ``_Recv`` or its
    run ends (``flush``), so consecutive sends (a step's variables, its gradients) make one
    call, not one each; the order puts every send a ``_Recv`` depends on before it, so
    nothing waits for a value still held here. A dataflow part sends each value at once.
    """

    def __init__(self, owner: TaskRendezvous, step_id: str, batched: bool = False):
        self.owner = owner
        self.step_id = step_id
        self._held: dict[tuple[str, int], list] | None = {} if batched else None

    def send(self, ctx: Any, key: str, value: Any, recv_device: str) -> None:
        del ctx
        task = _task_of(recv_device)
        if task == self.owner.task:
            self.owner.table.put(self.step_id, key, value)
        elif self._held is not None:
            self._held.setdefault(task, []).append((key, value))
        else:
            # Fire and forget: a lost delivery shows as the receiver's deadline or as the
            # client's abort of the step when a task fails.
            self.owner.peer(task).remote(self.step_id, [(key, value)])

    def flush(self) -> None:
        """Sends the values held for other tasks (one call per task)."""
        if self._held:
            held, self._held = self._held, {}
            for task, items in held.items():
                self.owner.peer(task).remote(self.step_id, items)

    def recv(self, ctx: Any, key: str, what: str) -> Any:
        self.flush()
        return self.owner.table.take(ctx, self.step_id, key, what)
