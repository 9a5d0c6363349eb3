"""Resource variable ops: handles, reads, assignments, sparse reads and scatter updates.

A ``VarHandleOp`` outputs a :class:`ResourceHandle` (device, container, name,
dtype, shape). The variable itself is a :class:`VariableResource` held by the
session's resource manager of the handle's device, found by
``(container, name)``; ``AssignVariableOp`` creates it.

The rules for reading and changing a variable are in :mod:`variable_resource`.

Build time: when a resource input comes (directly, through ``Identity`` or a
function capture) from a ``VarHandleOp``, the shape functions check dtypes and
shapes against the handle's ``dtype``/``shape`` attrs with TensorFlow's
messages, as TensorFlow does with its handle data.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType, as_dtype, tf_type_name
from tfmini.core.graph import Output
from tfmini.core.registry import RegisterGradient, no_gradient, register_op
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import check_indices, invalid_argument
from tfmini.ops.common.resources import (
    ResourceHandle,
    as_handle,
    handle_location,
    lookup_resource,
    resource_manager_of,
)
from tfmini.ops.common.type_lists import INDEX_TYPES, NUMBER_TYPES, NUMERIC_TYPES
from tfmini.ops.variables.variable_resource import (
    VariableResource,
    check_value_dtype,
    freeze,
    lookup_variable,
    missing_variable,
    not_a_variable,
)

# TensorFlow's kernels for the arithmetic updates exist for the numeric types (real and
# complex; checked with TensorFlow 2.21: complex64 and bfloat16 assign_add run).
_NUMERIC = frozenset(as_dtype(t.strip()) for t in NUMBER_TYPES.split(","))


# ----------------------------------------------------------------------------------------
# Build-time knowledge of a handle (TensorFlow's handle data).


def var_handle_source(output: Output):
    """The ``VarHandleOp`` a resource Output comes from, or None when unknown.

    Follows ``Identity`` ops and function captures, as TensorFlow propagates
    its handle shape-and-type data.
    """
    for _ in range(64):
        op = output.op
        if op.type == "VarHandleOp":
            return op
        if op.type == "Identity" and op.inputs:
            output = op.inputs[0]
            continue
        captures = getattr(op.graph, "captures", None)
        if isinstance(captures, dict):
            outer = next((o for o, inner in captures.items() if inner is output), None)
            if outer is not None:
                output = outer
                continue
        return None
    return None


def handle_data(ic, key: int | str = 0) -> tuple[DType, TensorShape] | None:
    op = var_handle_source(ic.input(key))
    if op is None:
        return None
    return op.attrs["dtype"], op.attrs["shape"]


def _check_read_dtype(handle_dtype: DType, dtype: DType) -> None:
    if handle_dtype != dtype:
        raise ValueError(
            f"Trying to read variable with wrong dtype. Expected {tf_type_name(handle_dtype)} "
            f"got {tf_type_name(dtype)}"
        )


# ----------------------------------------------------------------------------------------
# VarHandleOp


def _var_handle_shape(ic):
    return [TensorShape(())]


@register_op(
    "VarHandleOp",
    outputs=["resource: resource"],
    attrs=[
        "container: string = ''",
        "shared_name: string = ''",
        "debug_name: string = ''",
        "dtype: type",
        "shape: shape",
        "allowed_devices: list(string) = []",
    ],
    shape_fn=_var_handle_shape,
    stateful=True,
)
def var_handle_op(ctx, *, container, shared_name, dtype, shape, node):
    """A handle to the variable named ``shared_name`` (the op's own name when empty)."""
    return ResourceHandle(ctx.device, container, shared_name or node.name, dtype, shape)


# ----------------------------------------------------------------------------------------
# ReadVariableOp


def _read_shape(ic):
    data = handle_data(ic)
    if data is None:
        return [unknown_shape()]
    _check_read_dtype(data[0], ic.attrs["dtype"])
    return [data[1]]


@register_op(
    "ReadVariableOp",
    inputs=["resource: resource"],
    outputs=["value: dtype"],
    attrs=["dtype: type"],
    shape_fn=_read_shape,
    stateful=True,
)
def read_variable_op(ctx, resource, *, dtype):
    """The variable's current value (the stored read-only array itself)."""
    handle = as_handle(resource)
    res = lookup_resource(ctx, handle)
    value = res.read() if isinstance(res, VariableResource) else None
    if value is None:
        if res is not None and not isinstance(res, VariableResource):
            raise not_a_variable(handle, res)
        where = handle.container or "localhost"
        raise errors.FailedPreconditionError(
            None,
            None,
            f"Could not find variable {handle.name}. This could mean that the variable has been "
            f"deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
            f"container={where}, status error message=Resource {where}/{handle.name} does not "
            f"exist.",
        )
    check_value_dtype(res, dtype)
    return value


# ----------------------------------------------------------------------------------------
# AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp


def _assign_shape(ic):
    data = handle_data(ic)
    if data is not None:
        _check_read_dtype(data[0], ic.attrs["dtype"])
        shape_fns.merge_shapes(data[1], ic.input_shape(1))
    return []


@register_op(
    "AssignVariableOp",
    inputs=["resource: resource", "value: dtype"],
    attrs=["dtype: type", "validate_shape: bool = false"],
    shape_fn=_assign_shape,
    stateful=True,
)
def assign_variable_op(ctx, resource, value, *, dtype, validate_shape, node):
    """Sets the variable to ``value``, creating the variable if it does not exist."""
    handle = as_handle(resource)
    res = resource_manager_of(ctx, handle).lookup_or_create(
        handle.container, handle.name, lambda: VariableResource(dtype)
    )
    if not isinstance(res, VariableResource):
        raise not_a_variable(handle, res)
    new = freeze(value, dtype)  # copied outside the lock: other runs keep reading meanwhile

    def check() -> None:
        old = res.value
        if old is not None:
            if res.dtype != dtype:
                raise invalid_argument(
                    f"Trying to assign variable with wrong dtype. Expected "
                    f"{tf_type_name(res.dtype)} got {tf_type_name(dtype)}",
                )
            if validate_shape and old.shape != new.shape:
                raise invalid_argument(
                    f"Trying to assign to variable with tensor with wrong shape. Expected "
                    f"{dims_str(old.shape)} got {dims_str(new.shape)}",
                )

    with res.lock:
        check()
        if ctx.late_pending() and ctx.commits_late(node):
            # An earlier update of this run waits for its end: this one follows it then, in
            # run order (runtime/late_updates.py).
            def apply() -> None:
                if res.value is None:
                    res.dtype = dtype
                res.swap(new)

            ctx.commit_late(node, (res,), check, apply)
            return
        if res.value is None:
            res.dtype = dtype  # an uninitialized variable takes the assigned dtype, as in TF
        res.replace(ctx, new)


def check_numeric(op_type: str, dtype: DType) -> None:
    """TensorFlow registers the arithmetic updates for the numeric types only."""
    if dtype not in _NUMERIC:
        raise invalid_argument(
            f"No OpKernel was registered to support Op '{op_type}' with dtype "
            f"{tf_type_name(dtype)}; allowed: {NUMBER_TYPES}",
        )


def _update_kernel(op_type: str, ufunc: Callable) -> Callable:
    def kernel(ctx, resource, value, *, dtype, node):
        check_numeric(op_type, dtype)
        res = lookup_variable(ctx, resource)
        delta_shape = np.shape(value)

        def check() -> None:
            old = res.value
            if old is None:
                raise missing_variable(as_handle(resource))
            if res.dtype != dtype:
                raise invalid_argument("DType of variable handle and value does not match.")
            if old.shape != delta_shape:
                raise invalid_argument(
                    f"Cannot update variable with shape {dims_str(old.shape)} using a Tensor "
                    f"with shape {dims_str(delta_shape)}, shapes must be equal.",
                )

        def updated() -> np.ndarray:
            new = res.scratch()  # ufunc with out=: an array even at rank 0, exact dtype
            ufunc(res.value, value, out=new)
            return new

        with res.lock:
            check()
            if ctx.late_pending() and ctx.commits_late(node):
                # An earlier update of this run waits for its end: this one follows it then,
                # in run order (runtime/late_updates.py).
                ctx.commit_late(node, (res,), check, lambda: res.swap(updated()))
                return
            res.replace(ctx, updated())

    kernel.__name__ = f"{op_type}_kernel"
    kernel.__doc__ = f"Atomically updates the variable with ``{ufunc.__name__}(value, delta)``."
    return kernel


register_op(
    "AssignAddVariableOp",
    inputs=["resource: resource", "value: dtype"],
    attrs=["dtype: type"],
    shape_fn=_assign_shape,
    stateful=True,
    doc="Adds ``value`` to the variable (an atomic read-modify-write).",
)(_update_kernel("AssignAddVariableOp", np.add))

register_op(
    "AssignSubVariableOp",
    inputs=["resource: resource", "value: dtype"],
    attrs=["dtype: type"],
    shape_fn=_assign_shape,
    stateful=True,
    doc="Subtracts ``value`` from the variable (an atomic read-modify-write).",
)(_update_kernel("AssignSubVariableOp", np.subtract))


# ----------------------------------------------------------------------------------------
# VarIsInitializedOp, DestroyResourceOp, VariableShape


@register_op(
    "VarIsInitializedOp",
    inputs=["resource: resource"],
    outputs=["is_initialized: bool"],
    shape_fn=shape_fns.scalar,
    stateful=True,
)
def var_is_initialized_op(ctx, resource):
    """True when the variable exists and holds a value."""
    handle = as_handle(resource)
    res = lookup_resource(ctx, handle)
    return np.bool_(isinstance(res, VariableResource) and res.value is not None)


@register_op(
    "DestroyResourceOp",
    inputs=["resource: resource"],
    attrs=["ignore_lookup_error: bool = true"],
    shape_fn=shape_fns.no_outputs,
    stateful=True,
)
def destroy_resource_op(ctx, resource, *, ignore_lookup_error):
    """Deletes the resource the handle names (a failed run puts it back)."""
    handle = as_handle(resource)
    manager = resource_manager_of(ctx, handle)
    res = manager.lookup(handle.container, handle.name)
    if res is None:
        if ignore_lookup_error:
            return
        raise errors.NotFoundError(
            None, None,
            f"Resource {handle_location(handle)} does not exist (Could not find resource).",
        )
    try:
        manager.delete(handle.container, handle.name)
    except errors.NotFoundError:  # deleted by a concurrent run meanwhile
        if ignore_lookup_error:
            return
        raise

    def undo() -> None:
        if manager.lookup(handle.container, handle.name) is None:
            try:
                manager.create(handle.container, handle.name, res)
            except errors.AlreadyExistsError:
                pass

    ctx.on_failure(undo)


def _variable_shape_shape(ic):
    data = handle_data(ic)
    if data is None or data[1].dims is None:
        return [unknown_shape(1)]
    return [TensorShape((len(data[1].dims),))]


@register_op(
    "VariableShape",
    inputs=["input: resource"],
    outputs=["output: out_type"],
    attrs=["out_type: {int32, int64} = DT_INT32"],
    shape_fn=_variable_shape_shape,
    stateful=True,
)
def variable_shape_op(ctx, input, *, out_type):
    """The shape of the variable's current value."""
    res = lookup_variable(ctx, input)
    return np.array(res.value.shape, dtype=out_type.np_dtype)


# ----------------------------------------------------------------------------------------
# ResourceGather


def _gather_shape(ic):
    batch_dims = ic.attrs["batch_dims"]
    if batch_dims < 0:
        raise ValueError(f"batch_dims is negative ({batch_dims})")
    data = handle_data(ic)
    indices = shape_fns.with_rank_at_least(ic.input_shape(1), batch_dims)
    if data is None:
        return [unknown_shape()]
    _check_read_dtype(data[0], ic.attrs["dtype"])
    params = shape_fns.with_rank_at_least(data[1], batch_dims + 1)
    if params.dims is None or indices.dims is None:
        return [unknown_shape()]
    return [TensorShape(params.dims[:batch_dims] + indices.dims[batch_dims:]
                        + params.dims[batch_dims + 1:])]


@register_op(
    "ResourceGather",
    inputs=["resource: resource", "indices: Tindices"],
    outputs=["output: dtype"],
    attrs=[
        "batch_dims: int = 0",
        "validate_indices: bool = true",
        "dtype: type",
        f"Tindices: {INDEX_TYPES}",
    ],
    shape_fn=_gather_shape,
    stateful=True,
)
def resource_gather(ctx, resource, indices, *, batch_dims, dtype):
    """Rows of the variable: ``params[indices]`` along axis ``batch_dims``."""
    res = lookup_variable(ctx, resource)
    params = res.read()
    check_value_dtype(res, dtype)
    if params.ndim < 1:
        raise invalid_argument("params must be at least 1 dimensional")
    idx = np.asarray(indices)
    if batch_dims < 0:
        raise invalid_argument(f"batch_dims is negative ({batch_dims})")
    if batch_dims == 0:
        check_indices(idx, params.shape[0])
        return np.take(params, idx, axis=0)
    if batch_dims > idx.ndim:
        raise invalid_argument(
            f"batch_dims ({batch_dims}) must be less than or equal to rank(indices) "
            f"({idx.ndim})",
        )
    if batch_dims >= params.ndim:
        raise invalid_argument(
            f"batch_dims ({batch_dims}) must be less than rank(params) ({params.ndim})",
        )
    for i in range(batch_dims):
        if params.shape[i] != idx.shape[i]:
            raise invalid_argument(
                f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                f"{idx.shape[i]}",
            )
    check_indices(idx, params.shape[batch_dims])
    batch = params.shape[:batch_dims]
    n = int(np.prod(batch))
    p = params.reshape((n,) + params.shape[batch_dims:])
    i = idx.reshape((n,) + idx.shape[batch_dims:])
    rows = np.arange(n).reshape((n,) + (1,) * (i.ndim - 1))
    out = p[rows, i]
    return out.reshape(batch + idx.shape[batch_dims:] + params.shape[batch_dims + 1:])


# ----------------------------------------------------------------------------------------
# ResourceScatterAdd and its siblings


def _scatter_shape(ic):
    data = handle_data(ic)
    if data is not None:
        var = shape_fns.with_rank_at_least(data[1], 1)
        indices = ic.input_shape(1)
        updates = ic.input_shape(2)
        if updates.dims is None or len(updates.dims) != 0:
            shape_fns.merge_shapes(updates, indices.concatenate(var[1:]))
    return []


def scatter_kernel(op_type: str, apply: Callable, numeric: bool) -> Callable:
    def kernel(ctx, resource, indices, updates, *, dtype):
        if numeric:
            check_numeric(op_type, dtype)
        res = lookup_variable(ctx, resource)
        idx = np.asarray(indices)
        upd = np.asarray(updates)
        with res.lock:
            params = res.value
            if params is None:
                raise missing_variable(as_handle(resource))
            if res.dtype != dtype:
                raise invalid_argument("DType of scatter resource and updates does not match.")
            shapes = (
                f"got updates.shape {dims_str(upd.shape)}, indices.shape {dims_str(idx.shape)}, "
                f"params.shape {dims_str(params.shape)}"
            )
            if upd.ndim != 0 and upd.ndim != idx.ndim + params.ndim - 1:
                raise invalid_argument(
                    "Must have updates.shape = indices.shape + params.shape[1:] or "
                    f"updates.shape = [], {shapes}",
                )
            if params.ndim < 1:
                raise invalid_argument(f"params must be at least 1 dimensional, {shapes}")
            if idx.size == 0:
                return  # nothing to update: the variable keeps its very array
            if upd.ndim:
                if upd.shape[: idx.ndim] != idx.shape:
                    raise invalid_argument(
                        f"The shape of indices ({dims_str(idx.shape)}) must be a prefix of the "
                        f"shape of updates ({dims_str(upd.shape)})",
                    )
                if upd.shape[idx.ndim:] != params.shape[1:]:
                    raise invalid_argument(
                        "Must have updates.shape = indices.shape + params.shape[1:] or "
                        f"updates.shape = [], {shapes}",
                    )
            check_indices(idx, params.shape[0])
            del params  # a reference of ours would make begin_update copy the whole variable
            new = res.begin_update(ctx, idx.reshape(-1))
            apply(new, idx, upd)
            res.finish_update(ctx, new)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def scatter_update_rows(params: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> None:
    params[idx] = upd  # duplicates: the last update wins (TensorFlow leaves the order unspecified)


_SCATTER_OPS = (
    ("ResourceScatterAdd", np.add.at, True, "Adds sparse updates; duplicate indices accumulate."),
    ("ResourceScatterSub", np.subtract.at, True,
     "Subtracts sparse updates; duplicate indices accumulate."),
    ("ResourceScatterMul", np.multiply.at, True,
     "Multiplies by sparse updates; duplicate indices accumulate."),
    ("ResourceScatterDiv", np.divide.at, True,
     "Divides by sparse updates; duplicate indices accumulate."),
    ("ResourceScatterMin", np.minimum.at, True, "Element-wise minimum with sparse updates."),
    ("ResourceScatterMax", np.maximum.at, True, "Element-wise maximum with sparse updates."),
)

for _type, _apply, _numeric, _doc in _SCATTER_OPS:
    register_op(
        _type,
        inputs=["resource: resource", "indices: Tindices", "updates: dtype"],
        attrs=[f"dtype: {{{NUMERIC_TYPES}}}", f"Tindices: {INDEX_TYPES}"],
        shape_fn=_scatter_shape,
        stateful=True,
        doc=_doc,
    )(scatter_kernel(_type, _apply, _numeric))

register_op(
    "ResourceScatterUpdate",
    inputs=["resource: resource", "indices: Tindices", "updates: dtype"],
    attrs=["dtype: type", f"Tindices: {INDEX_TYPES}"],
    shape_fn=_scatter_shape,
    stateful=True,
    doc="Sets rows of the variable to sparse updates.",
)(scatter_kernel("ResourceScatterUpdate", scatter_update_rows, False))


# ----------------------------------------------------------------------------------------
# Gradients. A read passes its gradient to the handle, as TensorFlow's _ReadGrad; what
# changes state has no gradient.


@RegisterGradient("ReadVariableOp")
def _read_grad(op, grad):
    return [grad]


for _type in (
    "VarHandleOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
    "VarIsInitializedOp", "DestroyResourceOp", "VariableShape", "ResourceScatterUpdate",
    *(t for t, *_ in _SCATTER_OPS),
):
    no_gradient(_type)


__all__: list[str] = []
