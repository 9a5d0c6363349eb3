"""Mutexes: MutexV2, MutexLock and ConsumeMutexLock, TensorFlow's critical-section ops.

A ``MutexV2`` op outputs a handle to a mutex resource (found by ``(container, shared_name)``,
so every op naming the same mutex in one Session shares it). ``MutexLock`` waits until the
mutex is free, takes it and outputs the lock as a ``variant``; the mutex stays taken until
the lock is released. TensorFlow releases it when the last copy of the lock tensor is
destroyed and keeps the tensor alive with ``ConsumeMutexLock``; here ``ConsumeMutexLock``
releases it explicitly, a lock nobody consumes is released when its value is garbage, and a
failed ``Session.run`` releases the locks it took (after its other undo actions, so a run that
rolls back variable updates does so while it still holds the mutex).

Ops that run between ``MutexLock`` and ``ConsumeMutexLock`` (ordered by data or control
dependencies) form a critical section across all threads running the Session:
``tm.train.DropStaleGradientOptimizer`` uses one to make its staleness check, the update and
the global step increment one atomic step.

``MutexLock`` is a blocking op: it runs on a thread of its own, so a run holding two locks of
one mutex in sequence does not stall, and its wait ends at the run's deadline or when the
session closes.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from tfmini.core.dtypes import variant
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, as_handle, resource_manager_of

_lock_ids = itertools.count(1)


class Mutex:
    """The mutex resource: who holds it (a lock id, or None when free)."""

    __slots__ = ("name", "holder", "cond")

    def __init__(self, name: str):
        self.name = name
        self.holder: int | None = None
        self.cond = threading.Condition(threading.Lock())

    def release(self, lock_id: int) -> bool:
        """Frees the mutex if ``lock_id`` holds it; whether it did."""
        with self.cond:
            if self.holder != lock_id:
                return False
            self.holder = None
            self.cond.notify_all()
            return True

    def __repr__(self) -> str:
        state = "free" if self.holder is None else f"held by lock {self.holder}"
        return f"<tm.Mutex '{self.name}' {state}>"


class MutexLockValue:
    """The value of a ``MutexLock`` output: one acquisition of a mutex."""

    __slots__ = ("mutex", "lock_id", "__weakref__")

    def __init__(self, mutex: Mutex, lock_id: int):
        self.mutex = mutex
        self.lock_id = lock_id

    def release(self) -> bool:
        """Frees the mutex if this lock still holds it (idempotent)."""
        return self.mutex.release(self.lock_id)

    def __del__(self):
        # TensorFlow's rule: a lock lives as long as its tensor. Normally ConsumeMutexLock or
        # the failed run's undo has released it already and this does nothing.
        self.release()

    def __repr__(self) -> str:
        return f"<tm.MutexLock {self.lock_id} of {self.mutex!r}>"


def _mutex_of(ctx: Any, handle: Any) -> Mutex:
    h = as_handle(handle)
    res = resource_manager_of(ctx, h).lookup_or_create(h.container, h.name, lambda: Mutex(h.name))
    if not isinstance(res, Mutex):
        raise invalid_argument(
            f"Trying to access resource {h.container or 'localhost'}/{h.name} as a mutex, but it "
            f"holds a {type(res).__name__}"
        )
    return res


@register_op(
    "MutexV2",
    outputs=["resource: resource"],
    attrs=["container: string = ''", "shared_name: string = ''"],
    shape_fn=shape_fns.scalar,
    stateful=True,
)
def mutex_v2(ctx, *, container, shared_name, node):
    """A handle to the mutex ``shared_name`` (the op's own name when empty)."""
    handle = ResourceHandle(ctx.device, container, shared_name or node.name, variant,
                            TensorShape(()))
    _mutex_of(ctx, handle)  # created when the handle is, as TensorFlow's kernel does
    return handle


@register_op(
    "MutexLock",
    inputs=["mutex: resource"],
    outputs=["mutex_lock: variant"],
    shape_fn=shape_fns.scalar,
    stateful=True,
    blocking=True,
)
def mutex_lock(ctx, mutex):
    """Waits for the mutex to be free, takes it, and returns the lock."""
    m = _mutex_of(ctx, mutex)
    lock_id = next(_lock_ids)
    with m.cond:
        ctx.wait(m.cond, lambda: m.holder is None, f"mutex {m.name}",
                 detail=lambda: f"held by lock {m.holder}")
        m.holder = lock_id
    lock = MutexLockValue(m, lock_id)
    # The undo holds the mutex, not the lock value, so a failed run's traceback keeps nothing
    # locked through it.
    ctx.on_failure(lambda: m.release(lock_id))
    return lock


@register_op(
    "ConsumeMutexLock",
    inputs=["mutex_lock: variant"],
    shape_fn=shape_fns.no_outputs,
    stateful=True,
)
def consume_mutex_lock(mutex_lock):
    """Ends the critical section: releases the lock ``MutexLock`` produced."""
    value = mutex_lock
    if not isinstance(value, MutexLockValue) and getattr(value, "shape", None) == ():
        value = value.item()  # a 0-d object array (a fed or function-passed value)
    if not isinstance(value, MutexLockValue):
        raise invalid_argument(
            f"Expected input to be a MutexLock, got {type(value).__name__}: {value!r:.80}"
        )
    value.release()


for _type in ("MutexV2", "MutexLock", "ConsumeMutexLock"):
    no_gradient(_type)


__all__: list[str] = []
