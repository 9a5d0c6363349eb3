"""The work of one cluster task, run inside its Ray actor.

A task holds one runtime :class:`~tfmini.runtime.session.Device` (its resource manager: the
variables, accumulators and queues placed on it), shared by every graph part any client sends
it, so resources are shared across sessions by (container, shared_name) as in TensorFlow 1.
Parts arrive as graph_defs (imported once, by key) and run in a runtime Session over that
shared device, with the client's deadline; ``cancel`` wakes the waits of one client session,
``abort_step`` those of one step (its runs fail and roll back their state).

A part's run carries its step id as the idempotency key of its accumulator applies: a step
delivered twice (Ray's retries are at-least-once) adds each gradient once. A task restarted by
Ray starts empty; a client that asks it for a part it no longer holds gets AbortedError, as
TensorFlow's worker answers for a graph handle it lost in a restart.
"""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

from attrs import define

from tfmini import errors
from tfmini.core.graph import Graph
from tfmini.core.serialize import import_graph_def
from tfmini.distribute.rendezvous import TaskRendezvous
from tfmini.runtime.options import RunOptions
from tfmini.runtime.session import Device, Session


@define
class _PartRunOptions(RunOptions):
    """RunOptions of one part's run: its step's rendezvous for the _Send/_Recv kernels, and
    the key that makes its accumulator applies idempotent (the client's step id)."""

    rendezvous: Any = None
    idempotency_key: str = ""


class _PartSession(Session):
    """A runtime Session over the task's shared device: closing it cancels its runs but
    keeps the task's resources (they belong to the task, not to one client)."""

    def __init__(self, graph: Graph, devices: dict[str, Device], inline_waits: Any = None):
        super().__init__(graph=graph)
        self._devices = dict(devices)
        # Not None: the part runs in order (its sends held until it waits or ends), and
        # these op types wait inline, as its partitioner ordered them (sequencing.py).
        self.sequential = inline_waits is not None
        if inline_waits:
            self._inline_waits = frozenset(inline_waits)

    def cancel(self) -> None:
        self._devices = {}  # close() clears the devices' resources: not the task's
        self.close()

    def cancel_step(self, step_id: str) -> None:
        """Cancels this part's runs of step ``step_id``: their waits (takes, dequeues) end
        with CancelledError and the runs roll back their state changes."""
        for run in list(self._inflight):
            rendezvous = getattr(run.options, "rendezvous", None)
            if rendezvous is not None and rendezvous.step_id == step_id:
                run.cancel()


class TaskServer:
    """One task (``/job:<job>/task:<index>``): runs graph parts on its resources."""

    def __init__(self, job: str, task: int, namespace: str | None = None):
        self.job = job
        self.task = task
        self.device = Device("CPU")
        self.device.resource_manager.device = f"/job:{job}/replica:0/task:{task}/device:CPU:0"
        # The task's simulated TPU device (its TPU embedding state, or its shard of the
        # tables: tfmini/ops/tpu_embedding/ps_shards.py), shared by every part like the CPU.
        self.tpu = Device("TPU")
        self.tpu.resource_manager.device = f"/job:{job}/replica:0/task:{task}/device:TPU:0"
        self._parts: dict[tuple, tuple[Graph, _PartSession, dict]] = {}
        self._lock = threading.Lock()
        self.rendezvous = (TaskRendezvous(job, task) if namespace is None
                           else TaskRendezvous(job, task, namespace))
        self.part_calls = 0  # run_part calls served (the benchmark and tests count them)
        # This incarnation of the task: a restart (Ray's max_restarts) makes a new one.
        self.incarnation = uuid.uuid4().hex

    def ping(self) -> tuple[str, int]:
        return self.job, self.task

    def get_incarnation(self) -> str:
        """This task's incarnation: it changes when the task restarts (it lost its state)."""
        return self.incarnation

    def pid(self) -> int:
        """The process id (tests end every process they start by its PID)."""
        return os.getpid()

    def run_part(self, client: str, key: str, graph_def: dict | None, feeds: dict,
                 fetches: list[str], targets: list[str], timeout_ms: int,
                 step_id: str = "", inline_waits: Any = None, incarnation: str = "") -> list:
        """Runs one part of step ``step_id`` for client session ``client``; returns the
        fetched values.

        ``graph_def`` is sent the first time a key is used (None afterwards), with
        ``inline_waits``: None, or the part is sequential (its node order lets these
        blocking op types wait inline, in the compiled plan; tfmini/distribute/sequencing.py).
        A client that knew another ``incarnation`` of this task gets AbortedError (the task
        restarted and lost that client's state, as TensorFlow's worker reports it). The part's
        _Send/_Recv ops exchange tensors with the other tasks' parts of the same step. Errors
        come back as tm.errors (they pickle), so the client raises the kernel's own class.
        """
        if incarnation and incarnation != self.incarnation:
            raise errors.AbortedError(
                None, None, f"Task {self.name} restarted since this session first used it: "
                "its resources (variables, queues, accumulators) are new")
        with self._lock:
            self.part_calls += 1
            entry = self._parts.get((client, key))
            if entry is None:
                if graph_def is None:
                    raise errors.AbortedError(
                        None, None, f"Task {self.name} does not hold part {key} of this "
                        "session: possibly, the task just restarted (its resources are new)")
                graph = Graph()
                with graph.as_default():
                    import_graph_def(graph_def, name="")
                entry = self._parts[(client, key)] = (
                    graph, _PartSession(graph, {"CPU": self.device, "TPU": self.tpu},
                                         inline_waits), {})
        graph, sess, calls = entry
        names = tuple(feeds)
        call = calls.get((names, tuple(fetches), tuple(targets)))
        if call is None:
            # One callable per signature: later calls skip resolving fetches and feeds.
            call = calls[(names, tuple(fetches), tuple(targets))] = sess.make_callable(
                [[graph.as_graph_element(n) for n in fetches],
                 [graph.get_operation_by_name(n) for n in targets]],
                [graph.as_graph_element(n) for n in names], accept_options=True)
        rendezvous = self.rendezvous.step(step_id, batched=sess.sequential)
        options = _PartRunOptions(timeout_in_ms=max(timeout_ms, 0), rendezvous=rendezvous,
                                  idempotency_key=step_id)
        try:
            values = call(*feeds.values(), options=options)[0]
        except errors.OpError as e:
            # The client sees which task failed (a deadline names the task that waited).
            raise type(e)(None, None, f"{e.message} (on task {self.name})") from None
        rendezvous.flush()  # what the part sent last (a failed part's sends are dropped)
        return values

    @property
    def name(self) -> str:
        """``/job:<job>/task:<index>``."""
        return f"/job:{self.job}/task:{self.task}"

    def deliver(self, step_id: str, key: str, value: Any) -> None:
        """Receives a value another task's _Send pushed for step ``step_id``."""
        self.rendezvous.table.put(step_id, key, value)

    def deliver_all(self, step_id: str, items: list) -> None:
        """Receives the ``(key, value)`` pairs another task's part sent for ``step_id``."""
        self.rendezvous.table.put_all(step_id, items)

    def abort_step(self, step_id: str, reason: str) -> None:
        """Fails step ``step_id``'s runs here (another part failed): waiting _Recv ops, and
        any other wait of the step's runs, end and the runs roll back."""
        self.rendezvous.table.abort(step_id, reason)
        with self._lock:
            sessions = [entry[1] for entry in self._parts.values()]
        for sess in sessions:
            sess.cancel_step(step_id)

    def calls(self) -> int:
        """How many parts this task has been asked to run."""
        return self.part_calls

    def pending_values(self) -> int:
        """Values sent here and not (yet) received: 0 once every step is over."""
        return self.rendezvous.table.pending()

    def cancel(self, client: str) -> None:
        """Cancels the blocked runs of client session ``client`` and drops its parts."""
        with self._lock:
            mine = [k for k in self._parts if k[0] == client]
            entries = [self._parts.pop(k) for k in mine]
        for _, sess, _ in entries:
            sess.cancel()

    def resource_count(self) -> int:
        return len(self.device.resource_manager.items())
