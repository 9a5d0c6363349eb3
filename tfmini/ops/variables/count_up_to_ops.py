"""``CountUpTo`` and ``ResourceCountUpTo``: increment a counter variable until a limit
(TensorFlow's ``tensorflow/core/kernels/count_up_to_op.cc``), and ``tf.compat.v1.count_up_to``.

``tf.compat.v1.train.limit_epochs`` counts its epochs with one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.dtypes import DType
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.variables.ref_variables import as_storage
from tfmini.ops.variables.resource_ops import handle_data
from tfmini.ops.variables.variable_resource import VariableResource, lookup_variable


def _count_up(ctx: Any, res: VariableResource, limit: int, dtype: DType) -> np.ndarray:
    with res.lock:
        old = res.value
        if old.shape != ():
            raise invalid_argument(f"input is not a scalar: {old.shape}")
        if res.dtype != dtype:
            raise invalid_argument("Trying to read variable with wrong dtype.")
        if int(old) >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        res.replace(ctx, np.asarray(old + 1, dtype=old.dtype))
    return old


def _ref_shape(ic):
    return [shape_fns.with_rank(ic.input_shape(0), 0)]


@register_op(
    "CountUpTo",
    inputs=["ref: Ref(T)"],
    outputs=["output: T"],
    attrs=["limit: int", "T: {int32, int64}"],
    shape_fn=_ref_shape,
    stateful=True,
)
def count_up_to_kernel(ctx, ref, *, limit, T):
    """Increments the variable ``ref`` until it reaches ``limit``; outputs the value before
    the increment (OutOfRangeError "Reached limit of <limit>" once there)."""
    return _count_up(ctx, as_storage(ref), limit, T)


def _resource_shape(ic):
    data = handle_data(ic)
    if data is not None:
        shape_fns.with_rank(data[1], 0)
    return [TensorShape(())]


@register_op(
    "ResourceCountUpTo",
    inputs=["resource: resource"],
    outputs=["output: T"],
    attrs=["limit: int", "T: {int32, int64}"],
    shape_fn=_resource_shape,
    stateful=True,
)
def resource_count_up_to_kernel(ctx, resource, *, limit, T):
    """Increments the resource variable until it reaches ``limit``; outputs the value before
    the increment (OutOfRangeError "Reached limit of <limit>" once there)."""
    return _count_up(ctx, lookup_variable(ctx, resource), limit, T)


no_gradient("CountUpTo")
no_gradient("ResourceCountUpTo")


def count_up_to(ref: Any, limit: int, name: str | None = None) -> Output:
    """Increments ``ref`` until it reaches ``limit`` (``tf.compat.v1.count_up_to``).

    Args:
        ref: An int32 or int64 scalar variable (reference or resource).
        limit: The value at which the op starts failing with OutOfRangeError.
        name: Optional op name.

    Returns:
        The value of ``ref`` before the increment.
    """
    handle = getattr(ref, "handle", ref)
    if handle.dtype.name == "resource":
        return build_op(current_scope(), "ResourceCountUpTo", [handle],
                        {"limit": int(limit), "T": ref.dtype}, name=name).outputs[0]
    return build_op(current_scope(), "CountUpTo", [handle], {"limit": int(limit)},
                    name=name).outputs[0]


__all__ = ["count_up_to"]
