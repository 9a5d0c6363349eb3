"""The conditional accumulator ops: thirteen ops with TensorFlow 2.21's signatures.

The dense ``ConditionalAccumulator`` family in TensorFlow's two spellings (ref handles
``Ref(string)``, whose value is an :class:`AccumulatorRef`, and ``Resource...`` handles) and
the sparse ``SparseConditionalAccumulator`` family (ref handles only, as in TensorFlow). The
kernels find the accumulator (``accumulator_state``) by handle and check their inputs; the
accumulator does the rest. The semantics are in ``tfmini.ops.data_flow.conditional_accumulator``.

Kernels exist for half, float and double only (TensorFlow's OpDef accepts every number
type, its CPU kernels only these). A gradient or take whose dtype is not the accumulator's is
an InvalidArgumentError ("Signature mismatch"), where TensorFlow aborts the process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from attrs import frozen

from tfmini import errors
from tfmini.core.dtypes import DType, float16, float32, float64, tf_type_name
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, resource_manager_of
from tfmini.ops.data_flow.accumulator_state import (
    Accumulator,
    DenseAccumulator,
    SparseAccumulator,
)

# TensorFlow's OpDef admits every number type; its CPU kernels exist for these only.
_DTYPE_ATTR = "dtype: {half, float, double, int8, int16, int32, int64, uint8}"
_KERNEL_DTYPES = (float16, float32, float64)
_COMMON_ATTRS = [
    _DTYPE_ATTR,
    "shape: shape",
    "container: string = ''",
    "shared_name: string = ''",
    "reduction_type: {'MEAN', 'SUM'} = 'MEAN'",
]


# ----------------------------------------------------------------------------------------
# Handles


@frozen(repr=False)
class AccumulatorRef:
    """The value of a ref-style accumulator handle (TensorFlow's ``Ref(string)`` output).

    Attributes:
        device: The device whose resource manager holds the accumulator.
        container: The resource container (``""`` is TensorFlow's ``localhost``).
        name: The shared name the accumulator is found by.
    """

    device: str
    container: str
    name: str

    def _tm_deref(self) -> np.ndarray:
        # A plain input fed by the ref receives what TensorFlow's handle holds: two strings.
        return np.array([self.container or "localhost", self.name], dtype=object)

    def __repr__(self) -> str:
        return f"<tm.AccumulatorRef '{self.container or 'localhost'}/{self.name}'>"


def _where(handle: Any) -> str:
    return f"{handle.container or 'localhost'}/{handle.name}"


# ----------------------------------------------------------------------------------------
# Kernel helpers


def _check_kernel_dtype(op_type: str, node: Any, dtype: DType) -> None:
    """TensorFlow registers CPU kernels for half, float and double only."""
    if dtype not in _KERNEL_DTYPES:
        raise invalid_argument(
            f"No OpKernel was registered to support Op '{op_type}' used by {{{{node "
            f"{node.name}}}}} with these attrs: [dtype=DT_{tf_type_name(dtype).upper()}]. "
            "Registered devices: [CPU], Registered kernels: device='CPU'; dtype in [DT_DOUBLE]; "
            "device='CPU'; dtype in [DT_FLOAT]; device='CPU'; dtype in [DT_HALF]"
        )


def _lookup(ctx: Any, handle: Any, cls: type) -> Accumulator:
    """The accumulator a handle (ref or resource) names."""
    if isinstance(handle, np.ndarray) and handle.shape == () and handle.dtype == object:
        handle = handle.item()
    if not isinstance(handle, (AccumulatorRef, ResourceHandle)):
        raise invalid_argument(
            f"Expected an accumulator handle, got {type(handle).__name__}: {handle!r:.80}"
        )
    acc = resource_manager_of(ctx, handle).lookup(handle.container, handle.name)
    if acc is None:
        raise errors.NotFoundError(
            None, None, f"Resource {_where(handle)} (accumulator) does not exist."
        )
    if not isinstance(acc, cls):
        want = cls.kind if cls is not Accumulator else "ConditionalAccumulatorBase"
        raise invalid_argument(
            f"Trying to access resource {_where(handle)} as a {want}, but it holds a "
            f"{getattr(acc, 'kind', type(acc).__name__)}"
        )
    return acc


def _check_signature(acc: Accumulator, dtype: DType, have: Callable[[str], str]) -> None:
    """TensorFlow's CheckSignature: the op's dtype must be the accumulator's. TensorFlow
    aborts on a mismatch; tfmini reports it with TensorFlow's logged message."""
    if dtype != acc.dtype:
        raise invalid_argument(
            f"Signature mismatch, have: {have(tf_type_name(dtype))} expected: "
            f"{have(tf_type_name(acc.dtype))}"
        )


def _scalar_arg(value: Any, arg: str) -> int:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid_argument(
            f"Argument {arg} must be scalar, but had bad shape {dims_str(arr.shape)}"
        )
    return int(arr)


def _apply_key(ctx: Any, node: Any, local_step: int) -> tuple | None:
    """The idempotency key of an apply: (the run's key, the op, the local step), or None.

    A distributed run carries its step id as ``options.idempotency_key``
    (tfmini/distribute/task_server.py), so a step delivered twice (Ray's at-least-once
    retries) adds its gradient once. A local run has none: every apply counts, as in
    TensorFlow.
    """
    key = getattr(ctx.options, "idempotency_key", "") if ctx.options is not None else ""
    return (key, node.name, local_step) if key else None


def _handle_kind(ref: bool) -> str:
    return "string_ref" if ref else "resource"


# ----------------------------------------------------------------------------------------
# Shape functions


def _handle_shape(ic):
    # TensorFlow gives both handle kinds the shape [2] (the ref's two strings).
    return [TensorShape((2,))]


def _rank0_input(index: int, outputs: list):
    def fn(ic):
        shape_fns.with_rank(ic.input_shape(index), 0)
        return outputs

    return fn


_apply_shape = _rank0_input(1, [])
_set_step_shape = _rank0_input(1, [])


def _take_shape(ic):
    shape_fns.with_rank(ic.input_shape(1), 0)
    return [unknown_shape()]


def _sparse_take_shape(ic):
    shape_fns.with_rank(ic.input_shape(1), 0)
    return [unknown_shape(1), unknown_shape(), unknown_shape(1)]


# ----------------------------------------------------------------------------------------
# ConditionalAccumulator, ResourceConditionalAccumulator, SparseConditionalAccumulator


def _create_kernel(op_type: str, cls: type, ref: bool) -> Callable:
    def kernel(ctx, *, dtype, shape, container, shared_name, reduction_type, node):
        _check_kernel_dtype(op_type, node, dtype)
        name = shared_name or node.name
        acc = ctx.resource_manager.lookup_or_create(
            container, name, lambda: cls(dtype, as_shape(shape), reduction_type, name)
        )
        # The existing accumulator wins, even with another declared shape (TF's
        # MatchesNodeDef is a no-op); one of the other kind cannot be shared.
        if not isinstance(acc, cls):
            raise invalid_argument(
                f"Trying to access resource {container or 'localhost'}/{name} as a "
                f"{cls.kind}, but it holds a {getattr(acc, 'kind', type(acc).__name__)}"
            )
        if ref:
            return AccumulatorRef(ctx.device, container, name)
        return ResourceHandle(ctx.device, container, name, acc.dtype, acc.shape)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


register_op(
    "ConditionalAccumulator",
    outputs=["handle: Ref(string)"],
    attrs=_COMMON_ATTRS,
    shape_fn=_handle_shape,
    stateful=True,
    doc="A dense conditional accumulator (ref handle): created, or found by "
        "(container, shared_name or the op's name).",
)(_create_kernel("ConditionalAccumulator", DenseAccumulator, ref=True))

register_op(
    "ResourceConditionalAccumulator",
    outputs=["handle: resource"],
    attrs=_COMMON_ATTRS,
    shape_fn=_handle_shape,
    stateful=True,
    doc="A dense conditional accumulator (resource handle): created, or found by "
        "(container, shared_name or the op's name).",
)(_create_kernel("ResourceConditionalAccumulator", DenseAccumulator, ref=False))

register_op(
    "SparseConditionalAccumulator",
    outputs=["handle: Ref(string)"],
    attrs=_COMMON_ATTRS,
    shape_fn=_handle_shape,
    stateful=True,
    doc="A sparse conditional accumulator (ref handle): created, or found by "
        "(container, shared_name or the op's name).",
)(_create_kernel("SparseConditionalAccumulator", SparseAccumulator, ref=True))


# ----------------------------------------------------------------------------------------
# AccumulatorApplyGradient, ResourceAccumulatorApplyGradient


def _apply_kernel(op_type: str, ref: bool) -> Callable:
    kind = _handle_kind(ref)

    def kernel(ctx, handle, local_step, gradient, *, dtype, node):
        _check_kernel_dtype(op_type, node, dtype)
        acc = _lookup(ctx, handle, DenseAccumulator)
        _check_signature(acc, dtype, lambda t: f"{kind}, int64, {t}->")
        step = _scalar_arg(local_step, "local_step")
        acc.apply(ctx, step, np.asarray(gradient), key=_apply_key(ctx, node, step))

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


_APPLY_DOC = ("Adds a gradient computed at ``local_step`` to the accumulator; a stale one "
              "(``local_step`` < the global step) is dropped silently.")

register_op(
    "AccumulatorApplyGradient",
    inputs=["handle: Ref(string)", "local_step: int64", "gradient: dtype"],
    attrs=[_DTYPE_ATTR],
    shape_fn=_apply_shape,
    stateful=True,
    doc=_APPLY_DOC,
)(_apply_kernel("AccumulatorApplyGradient", ref=True))

register_op(
    "ResourceAccumulatorApplyGradient",
    inputs=["handle: resource", "local_step: int64", "gradient: dtype"],
    attrs=[_DTYPE_ATTR],
    shape_fn=_apply_shape,
    stateful=True,
    doc=_APPLY_DOC,
)(_apply_kernel("ResourceAccumulatorApplyGradient", ref=False))


# ----------------------------------------------------------------------------------------
# AccumulatorTakeGradient, ResourceAccumulatorTakeGradient


def _num_required(value: Any) -> int:
    n = _scalar_arg(value, "num_required")
    if n <= 0:
        raise invalid_argument(f"Argument num_required must be positive, but was {n}")
    return n


def _take_kernel(op_type: str, ref: bool) -> Callable:
    kind = _handle_kind(ref)

    def kernel(ctx, handle, num_required, *, dtype, node):
        _check_kernel_dtype(op_type, node, dtype)
        acc = _lookup(ctx, handle, DenseAccumulator)
        _check_signature(acc, dtype, lambda t: f"{kind}, int32->{t}")
        return acc.take(ctx, _num_required(num_required))

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


_TAKE_DOC = ("Waits until ``num_required`` gradients are in, then returns their mean (or sum), "
             "resets the accumulator and increments its global step.")

register_op(
    "AccumulatorTakeGradient",
    inputs=["handle: Ref(string)", "num_required: int32"],
    outputs=["average: dtype"],
    attrs=[_DTYPE_ATTR],
    shape_fn=_take_shape,
    stateful=True,
    blocking=True,
    doc=_TAKE_DOC,
)(_take_kernel("AccumulatorTakeGradient", ref=True))

register_op(
    "ResourceAccumulatorTakeGradient",
    inputs=["handle: resource", "num_required: int32"],
    outputs=["average: dtype"],
    attrs=[_DTYPE_ATTR],
    shape_fn=_take_shape,
    stateful=True,
    blocking=True,
    doc=_TAKE_DOC,
)(_take_kernel("ResourceAccumulatorTakeGradient", ref=False))


# ----------------------------------------------------------------------------------------
# AccumulatorNumAccumulated, ResourceAccumulatorNumAccumulated


def _num_accumulated_kernel(ctx, handle):
    """The number of gradients accumulated since the last take."""
    return np.int32(_lookup(ctx, handle, Accumulator).num_accumulated())


for _type, _handle in (("AccumulatorNumAccumulated", "Ref(string)"),
                       ("ResourceAccumulatorNumAccumulated", "resource")):
    register_op(
        _type,
        inputs=[f"handle: {_handle}"],
        outputs=["num_accumulated: int32"],
        shape_fn=shape_fns.scalar,
        stateful=True,
    )(_num_accumulated_kernel)


# ----------------------------------------------------------------------------------------
# AccumulatorSetGlobalStep, ResourceAccumulatorSetGlobalStep


def _set_global_step_kernel(ctx, handle, new_global_step):
    """Sets the accumulator's global step (a smaller value only logs a warning, as in TF)."""
    acc = _lookup(ctx, handle, Accumulator)
    acc.set_global_step(ctx, _scalar_arg(new_global_step, "new_global_step"))


for _type, _handle in (("AccumulatorSetGlobalStep", "Ref(string)"),
                       ("ResourceAccumulatorSetGlobalStep", "resource")):
    register_op(
        _type,
        inputs=[f"handle: {_handle}", "new_global_step: int64"],
        shape_fn=_set_step_shape,
        stateful=True,
    )(_set_global_step_kernel)


# ----------------------------------------------------------------------------------------
# SparseAccumulatorApplyGradient, SparseAccumulatorTakeGradient


@register_op(
    "SparseAccumulatorApplyGradient",
    inputs=[
        "handle: Ref(string)",
        "local_step: int64",
        "gradient_indices: int64",
        "gradient_values: dtype",
        "gradient_shape: int64",
    ],
    attrs=[_DTYPE_ATTR, "has_known_shape: bool"],
    shape_fn=_apply_shape,
    stateful=True,
)
def sparse_accumulator_apply_gradient(ctx, handle, local_step, gradient_indices,
                                      gradient_values, gradient_shape, *, dtype,
                                      has_known_shape, node):
    """Adds a sparse gradient (rows ``gradient_values`` at ``gradient_indices``) computed at
    ``local_step``; a stale one is dropped silently."""
    _check_kernel_dtype("SparseAccumulatorApplyGradient", node, dtype)
    acc = _lookup(ctx, handle, SparseAccumulator)
    _check_signature(acc, dtype, lambda t: f"string_ref, int64, int64, {t}, int64->")
    step = _scalar_arg(local_step, "local_step")
    indices = np.asarray(gradient_indices)
    values = np.asarray(gradient_values)
    acc.apply(ctx, step, indices, values, np.asarray(gradient_shape), has_known_shape,
              key=_apply_key(ctx, node, step))


@register_op(
    "SparseAccumulatorTakeGradient",
    inputs=["handle: Ref(string)", "num_required: int32"],
    outputs=["indices: int64", "values: dtype", "shape: int64"],
    attrs=[_DTYPE_ATTR],
    shape_fn=_sparse_take_shape,
    stateful=True,
    blocking=True,
)
def sparse_accumulator_take_gradient(ctx, handle, num_required, *, dtype, node):
    """Waits until ``num_required`` gradients are in, then returns the accumulated rows
    (each row's mean over the gradients that touched it, or its sum), resets the accumulator
    and increments its global step."""
    _check_kernel_dtype("SparseAccumulatorTakeGradient", node, dtype)
    acc = _lookup(ctx, handle, SparseAccumulator)
    _check_signature(acc, dtype, lambda t: f"string_ref, int32->int64, {t}, int64")
    return acc.take(ctx, _num_required(num_required))


# TensorFlow registers no gradient for any of them.
for _type in (
    "ConditionalAccumulator", "ResourceConditionalAccumulator", "SparseConditionalAccumulator",
    "AccumulatorApplyGradient", "ResourceAccumulatorApplyGradient",
    "AccumulatorTakeGradient", "ResourceAccumulatorTakeGradient",
    "AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated",
    "AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep",
    "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient",
):
    no_gradient(_type)
