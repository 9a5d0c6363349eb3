"""A tiny counter resource for tests of blocking steps.

``BlkSignal`` adds one to a named counter; the blocking ``BlkWaitFor`` waits (through
``KernelContext.wait``) until the counter reaches ``n`` and returns it. The ops are
registered for the whole ``tests/runtime`` package by its conftest.
"""

from __future__ import annotations

import threading

import numpy as np

import tfmini as tm
from tfmini.core.registry import register_op, unregister

OP_TYPES = ("BlkSignal", "BlkWaitFor")


class Counter:
    def __init__(self):
        self.value = 0
        self.cond = threading.Condition()


def get_counter(ctx, name: str) -> Counter:
    """The counter ``name`` of the kernel's device (made on first use)."""
    return ctx.resource_manager.lookup_or_create("", name, Counter)


def register() -> None:
    @register_op("BlkSignal", inputs=["x: float"], outputs=["y: float"],
                 attrs=["counter: string"], stateful=True)
    def signal_kernel(ctx, x, *, counter: str):
        c = get_counter(ctx, counter)
        with c.cond:
            c.value += 1
            c.cond.notify_all()
        return x

    @register_op("BlkWaitFor", inputs=["n: int32"], outputs=["count: int32"],
                 attrs=["counter: string"], stateful=True, blocking=True,
                 shape_fn=lambda ic: [()])
    def wait_for_kernel(ctx, n, *, counter: str):
        c = get_counter(ctx, counter)
        with c.cond:
            ctx.wait(c.cond, lambda: c.value >= n, f"counter '{counter}'",
                     detail=lambda: f"{c.value} of {int(n)} signals")
            return np.int32(c.value)


def unregister_all() -> None:
    for name in OP_TYPES:
        unregister(name)


def wait_op(n, counter: str = "c"):
    """A BlkWaitFor step: waits until ``counter`` reaches ``n``."""
    return tm.raw_ops.BlkWaitFor(n=n, counter=counter)


def signal(x, counter: str = "c"):
    """A BlkSignal step: passes ``x`` through and adds one to ``counter``."""
    return tm.raw_ops.BlkSignal(x=x, counter=counter)
