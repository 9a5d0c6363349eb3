"""A NumPy stand-in for ResourceApplyAdagradV2 / ResourceSparseApplyAdagradV2, registered
only while tfmini/ops/training.py does not define them (the raw training ops are written
alongside tm.keras). Same OpDef names, inputs and attrs as TensorFlow's; no validation."""

from __future__ import annotations

import numpy as np

from tfmini.core import registry
from tfmini.ops.state import lookup_variable


def _update(ctx, handles, fn):
    var, acc = (lookup_variable(ctx, h) for h in handles)
    with var.lock, acc.lock:
        v, a = var.value.copy(), acc.value.copy()
        fn(v, a)
        v.flags.writeable = a.flags.writeable = False
        var.replace(ctx, v)
        acc.replace(ctx, a)


def _dense(ctx, var, accum, lr, epsilon, grad, *, use_locking, update_slots):
    def fn(v, a):
        if update_slots:
            a += grad * grad
        v -= grad * lr / (np.sqrt(a) + epsilon)

    _update(ctx, (var, accum), fn)


def _sparse(ctx, var, accum, lr, epsilon, grad, indices, *, use_locking, update_slots):
    def fn(v, a):
        for k, i in enumerate(np.asarray(indices)):  # in order: a repeated row sees the first
            g = grad[k]
            if update_slots:
                a[i] += g * g
            v[i] -= g * lr / (np.sqrt(a[i]) + epsilon)

    _update(ctx, (var, accum), fn)


def install() -> bool:
    """Registers the stand-ins if the real ops are missing; True if it did."""
    if registry.lookup("ResourceApplyAdagradV2") is not None:
        return False
    common = ["var: resource", "accum: resource", "lr: T", "epsilon: T", "grad: T"]
    attrs = ["T: {half, float, double}", "use_locking: bool = false",
             "update_slots: bool = true"]
    registry.register_op("ResourceApplyAdagradV2", inputs=common, outputs=[], attrs=attrs,
                         stateful=True)(_dense)
    registry.register_op("ResourceSparseApplyAdagradV2", inputs=[*common, "indices: Tindices"],
                         outputs=[], attrs=[*attrs, "Tindices: {int32, int64}"],
                         stateful=True)(_sparse)
    registry.no_gradient("ResourceApplyAdagradV2")
    registry.no_gradient("ResourceSparseApplyAdagradV2")
    return True
