"""Resource handles: the value of a resource tensor, and finding the resource it names.

A stateful family (variables, accumulators, mutexes, ...) outputs a :class:`ResourceHandle`
from its handle op; kernels receiving one find the resource in the resource manager of the
handle's device (:func:`resource_manager_of`), as TensorFlow's ``LookupResource`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from attrs import frozen

from tfmini.core.devices import device_type_of
from tfmini.core.dtypes import DType
from tfmini.core.shapes import TensorShape
from tfmini.ops.common.kernel_util import invalid_argument


@frozen(repr=False)
class ResourceHandle:
    """The value of a resource tensor: where a resource lives and what it holds.

    Attributes:
        device: The device whose resource manager holds the resource (``"/device:CPU:0"``).
        container: The resource container (``""`` is the default, TF's ``localhost``).
        name: The shared name the resource is found by.
        dtype: The declared dtype of the variable.
        shape: The declared (possibly partial) shape of the variable.
    """

    device: str
    container: str
    name: str
    dtype: DType
    shape: TensorShape

    def __repr__(self) -> str:
        return (
            f"<tm.ResourceHandle '{handle_location(self)}' on {self.device or '?'} "
            f"dtype={self.dtype.name} shape={self.shape}>"
        )


def handle_location(handle: ResourceHandle) -> str:
    """``container/name`` as TensorFlow's messages show it (``localhost/w``)."""
    return f"{handle.container or 'localhost'}/{handle.name}"


def as_handle(value: Any) -> ResourceHandle:
    """The ResourceHandle a kernel received (a 0-d object array holding one is accepted).

    Raises:
        InvalidArgumentError: ``value`` is not a resource handle.
    """
    if isinstance(value, ResourceHandle):
        return value
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object:
        return as_handle(value.item())
    raise invalid_argument(f"Expected a resource handle, got {type(value).__name__}: {value!r:.80}")


def resource_manager_of(ctx: Any, handle: ResourceHandle) -> Any:
    """The resource manager holding ``handle``'s resource: the one of the handle's device."""
    if not handle.device or handle.device == ctx.device:
        return ctx.resource_manager
    dtype = device_type_of(handle.device)
    if dtype == ctx.device_type:
        return ctx.resource_manager
    return ctx.resource_manager_for(dtype)


def lookup_resource(ctx: Any, handle: ResourceHandle) -> Any:
    """Whatever resource ``handle`` names (None when there is none)."""
    return resource_manager_of(ctx, handle).lookup(handle.container, handle.name)



__all__ = ["ResourceHandle", "as_handle", "handle_location", "lookup_resource",
           "resource_manager_of"]
