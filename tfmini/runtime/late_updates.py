"""Variable updates applied in place once the run has succeeded ("late commits").

A dense optimizer update (``ResourceApplyAdam``) normally writes the new variable and slots
into spare buffers and swaps them in, so that a run failing later can put the old arrays
back (``VariableResource.replace``). For the 784x512 layer of an MLP that is 7 arrays of
1.6 MB per update (4 read, 3 written, each written line first read from memory), against
4 for an update written over the arrays it reads; measured in an MLP step at batch 128,
about 0.3 ms of 2.6-2.9 (docs/performance.md).

An update may be written in place only when nothing can fail after it, which is known only
once the run is over. So a kernel whose op :func:`late_ops` marks validates its inputs
as usual, then registers a :class:`LateUpdate` (``KernelContext.commit_late``) instead of
writing; when every step has run, :func:`commit` takes the locks of all the run's late
updates, checks each again (another run may have changed a variable meanwhile: a check
raises, before anything is written, when the update no longer fits) and applies them all.
A failed run registered nothing that was applied: its variables are as they were.

An op is marked when deferring it cannot change what the run computes, nor the order in
which other runs see its effects. The marked ops are the run's trailing updates: scanning
the plan from its end, every step that changes state must be an update that can wait
(``DEFERRABLE``: the dense optimizer updates and the variable assigns) of resources no later
step touches; the scan stops at the first step that changes state some other way (an
accumulator, a queue, a scatter, a ``py_func``, a function call: anything but a ``NoOp`` or
a read), at a later step touching the same resources, and at a resource handle it cannot
trace to a variable (fed, or from another op). Reads (``READS``) after an update are fine
when they read other variables. Only plans run in order by the compiled executor are marked
(not plans holding blocking steps), and traced runs never defer (their per-step timings
stay those of the update).

Order: an update that follows a deferred one (``global_step.assign_add`` after the optimizer's
updates, under a control dependency, or Adam's beta powers) must not become visible before
it, or another run could see step s with step s-1's weights. So once a run holds a deferred
update, every later marked op defers too (:meth:`KernelContext.late_pending`), even one that
would run at once on its own (a small variable), and :func:`commit` applies them in run
order holding all their locks.

Limits: an ``apply()`` that runs out of memory part way (its fallback allocates spare
buffers) leaves the run's earlier updates applied; an update whose variable another run
destroys and re-creates before the commit goes to the destroyed one, as a run that had
already applied it would have; and a check that fails at the commit (another run changed
the variable's shape meanwhile) fails a run whose update, applied mid-run, would have fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfmini import errors
from tfmini.core.graph import Operation, Output

# Stateful ops after an update that cannot look at variables.
_HARMLESS_STATEFUL = frozenset({"NoOp", "VarHandleOp"})
# Ops with resource inputs that only read them.
READS = frozenset({"ReadVariableOp", "ResourceGather", "VarIsInitializedOp", "VariableShape"})
# Updates whose kernels can wait for the run's end (KernelContext.commit_late).
DEFERRABLE = frozenset({"ResourceApplyAdam", "ResourceApplyGradientDescent",
                        "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"})


class LateUpdate:
    """One deferred update: its op, its resources (objects with a ``lock``), ``check()``
    (raises when the update no longer fits the resources' state; called with every lock
    held, before any update of the run is applied) and ``apply()`` (writes it; must not
    fail)."""

    __slots__ = ("op", "resources", "check", "apply")

    def __init__(self, op: Operation, resources: Sequence[Any], check: Callable[[], None],
                 apply: Callable[[], None]):
        self.op = op
        self.resources = resources
        self.check = check
        self.apply = apply


def _resource_key(out: Output, feed_set: set[Output]) -> tuple | None:
    """The name a resource Output's handle resolves to at run time, or None when unknown.
    The container and name only (not the device): two names alike count as one."""
    for _ in range(16):
        if out in feed_set:
            return None
        op = out.op
        if op.type == "VarHandleOp":
            return (op.attrs.get("container") or "", op.attrs.get("shared_name") or op.name)
        if op.type == "Identity" and op.inputs:
            out = op.inputs[0]
            continue
        return None
    return None


def late_ops(steps: Sequence[Any], feeds: Sequence[Output]) -> frozenset[Operation]:
    """The stateful ops among ``steps`` (in run order) whose resource effects may be
    applied after the last step (see the module docstring)."""
    feed_set = set(feeds)
    touched: set[tuple] = set()
    marked = []
    for step in reversed(steps):
        op = step.op
        keys = None
        for inp in op.inputs:
            if inp.dtype.name == "resource":
                key = _resource_key(inp, feed_set)
                if key is None:  # a later step may read any variable: none before it is marked
                    return frozenset(marked)
                if keys is None:
                    keys = {key}
                else:
                    keys.add(key)
        if keys is None:
            if op.op_def.is_stateful and op.type not in _HARMLESS_STATEFUL:
                return frozenset(marked)
            continue
        if op.type in READS or not op.op_def.is_stateful:
            touched |= keys
            continue
        if op.type not in DEFERRABLE or not keys.isdisjoint(touched):
            # State changed some other way, or by an update a later step reads: an earlier
            # update deferred past it would become visible out of order.
            return frozenset(marked)
        marked.append(op)
        touched |= keys
    return frozenset(marked)


def commit(updates: Sequence[LateUpdate]) -> None:
    """Applies ``updates`` (a succeeded run's, in run order) holding all their locks, after
    checking every one; a failing check raises before anything is written."""
    unique = {id(r): r for u in updates for r in u.resources}
    # The order training_ops.locked_all takes several variables' locks in: no deadlock.
    locks = [unique[k].lock for k in sorted(unique)]
    for lock in locks:
        lock.acquire()
    try:
        for u in updates:
            try:
                u.check()
            except errors.OpError as e:
                op = u.op
                if e.op is not None or op is None:
                    raise
                raise type(e)(None, op, (
                    f"{op.type} '{op.name}', its update applied at the end of the run: "
                    f"{e.message} (defined at {op.defined_at})")) from e
        for u in updates:
            u.apply()
    finally:
        for lock in reversed(locks):
            lock.release()
