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

An op is marked when deferring it cannot change what the run computes: no step after it in
the plan touches any of its resources (every resource input of those steps comes from a
``VarHandleOp`` of another name, or an ``Identity`` of one, and is not fed), and no step
after it is a stateful op without resource inputs other than a ``NoOp`` (a ``py_func``, a
function call, a queue op: anything that might look at variables some other way). Only
plans run in order by the compiled executor are marked (not plans holding blocking
steps), and traced runs never defer (their per-step timings stay those of the update).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfmini.core.graph import Operation, Output

# Stateful ops after an update that cannot look at variables.
_HARMLESS_STATEFUL = frozenset({"NoOp", "VarHandleOp"})


class LateUpdate:
    """One deferred update: its resources (objects with a ``lock``), ``check()`` (raises when
    the update no longer fits the resources' state; called with every lock held, before any
    update of the run is applied) and ``apply()`` (writes it; must not fail)."""

    __slots__ = ("resources", "check", "apply")

    def __init__(self, resources: Sequence[Any], check: Callable[[], None],
                 apply: Callable[[], None]):
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
        if op.op_def.is_stateful and keys.isdisjoint(touched):
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
            u.check()
        for u in updates:
            u.apply()
    finally:
        for lock in reversed(locks):
            lock.release()
