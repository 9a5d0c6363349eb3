"""The TensorArray ops (TensorFlow's ``TensorArray*V3`` resource ops, ``data_flow_ops.cc``).

A TensorArray is a per-step resource, as in TensorFlow: it lives in the running
``Session.run``'s step container (``ctx.step_resources``) and is gone when the run ends, so a
failed run leaves nothing behind. Its handle is a :class:`ResourceHandle`; every op also takes
and returns the ``flow`` float scalar, which carries no data and only orders the ops (the
value is always 0, as TensorFlow's).

Semantics follow ``tensorflow/core/kernels/tensor_array.h`` and ``tensor_array_ops.cc``:
writes are once-only (gradient arrays add instead), ``clear_after_read`` frees an element on
its first read, reading an unwritten element gives zeros only when the element shape is
fully known, and ``identical_element_shapes`` makes the first write fix the element shape.

tfmini differentiates loops by recomputing them (see ``tfmini/control_flow_grad.py``): while
``ctx.recomputing`` is set, a replayed write to an element that already holds a value is
skipped and a replayed read of a cleared element sees the value it had.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType, tf_type_name
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, scalar, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, as_handle

# TensorFlow numbers TensorArrays process-wide ("TensorArray_0", "TensorArray_1", ...).
_counter = itertools.count()

_FLOW = np.float32(0.0)


def _shape_text(shape: Any) -> str:
    if isinstance(shape, TensorShape):
        return "<unknown>" if shape.rank is None else shape.tf_str()
    return dims_str(tuple(shape))


class TensorArrayState:
    """One TensorArray: its elements and TensorFlow's flags.

    Attributes:
        name: The unique name its errors show ("TensorArray_3").
        dtype: The element dtype.
        element_shape: The declared element shape, refined by writes when
            ``identical_element_shapes`` is set.
        elements: One entry per index: the written value or None.
        cleared: Indices read (and freed) under ``clear_after_read``.
    """

    def __init__(self, name: str, dtype: DType, size: int, element_shape: TensorShape, *,
                 dynamic_size: bool, clear_after_read: bool, identical_element_shapes: bool,
                 aggregate: bool = False):
        self.name = name
        self.dtype = dtype
        self.element_shape = element_shape
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.identical_element_shapes = identical_element_shapes
        self.aggregate = aggregate  # a gradient array: repeated writes add up
        self.elements: list[np.ndarray | None] = [None] * size
        self.cleared: set[int] = set()
        self.closed = False
        self.lock = threading.Lock()

    def _prefix(self) -> str:
        return f"TensorArray {self.name}: "

    def check_open(self) -> None:
        if self.closed:
            raise invalid_argument(f"TensorArray {self.name} has already been closed.")

    @property
    def size(self) -> int:
        return len(self.elements)

    def write(self, index: int, value: np.ndarray, recomputing: bool) -> None:
        """Writes (or, for a gradient array, adds) ``value`` at ``index``."""
        self.check_open()
        if index < 0 or (not self.dynamic_size and index >= self.size):
            raise invalid_argument(
                f"{self._prefix()}Tried to write to index {index} but array is not resizeable "
                f"and size is: {self.size}"
            )
        if index >= self.size:
            self.elements.extend([None] * (index + 1 - self.size))
        if not self.element_shape.is_compatible_with(value.shape):
            raise invalid_argument(
                f"{self._prefix()}Could not write to TensorArray index {index} because the value "
                f"shape is {dims_str(value.shape)} which is incompatible with the TensorArray's "
                f"inferred element shape: {_shape_text(self.element_shape)} (consider setting "
                "infer_shape=False)."
            )
        old = self.elements[index]
        if old is not None or index in self.cleared:
            if self.aggregate and old is not None:
                if old.shape != value.shape:
                    raise invalid_argument(
                        f"{self._prefix()}Could not aggregate to TensorArray index {index} "
                        f"because the existing shape is {dims_str(old.shape)} but the new input "
                        f"shape is {dims_str(value.shape)}."
                    )
                self.elements[index] = old + value
                return
            if recomputing:
                return  # a gradient replaying the forward write: the value is already there
            raise invalid_argument(
                f"{self._prefix()}Could not write to TensorArray index {index} because it has "
                "already been written to."
            )
        if self.identical_element_shapes:
            self.element_shape = self.element_shape.merge_with(value.shape)
        self.elements[index] = value

    def read(self, index: int, recomputing: bool) -> np.ndarray:
        """The element at ``index`` (zeros if unwritten and the element shape is known)."""
        self.check_open()
        if index < 0 or index >= self.size:
            raise invalid_argument(
                f"Tried to read from index {index} but array size is: {self.size}"
            )
        value = self.elements[index]
        if index in self.cleared and not recomputing:
            raise invalid_argument(
                f"{self._prefix()}Could not read index {index} twice because it was cleared "
                "after a previous read (perhaps try setting clear_after_read = false?)."
            )
        if value is None:
            if not self.element_shape.is_fully_defined():
                raise invalid_argument(
                    f"{self._prefix()}Could not read from TensorArray index {index}.  "
                    "Furthermore, the element shape is not fully defined: "
                    f"{_shape_text(self.element_shape)}.  It is possible you are working with "
                    "a resizeable TensorArray and stop_gradients is not allowing the gradients "
                    "to be written.  If you set the full element_shape property on the forward "
                    "TensorArray, the proper all-zeros tensor will be returned instead of "
                    "incurring this error."
                )
            return np.zeros(self.element_shape.as_list(), self.dtype.np_dtype)
        if self.clear_after_read:
            # The value is kept (not freed) so a gradient's replay can read it again.
            self.cleared.add(index)
        return value


def _state(ctx, handle: Any) -> TensorArrayState:
    h = as_handle(handle)
    ta = ctx.step_resources.get(h.name)
    if ta is None:
        raise errors.NotFoundError(
            None, None,
            f"Container _tensor_arrays does not exist. (Could not find resource: "
            f"_tensor_arrays/{h.name})",
        )
    return ta


def _index(value: Any) -> int:
    return int(np.asarray(value).reshape(()))


def _check_dtype(ta: TensorArrayState, dtype: DType, writing: bool) -> None:
    if dtype != ta.dtype:
        verb = "is trying to write dtype" if writing else "requested dtype"
        raise invalid_argument(
            f"TensorArray dtype is {tf_type_name(ta.dtype)} but Op {verb} "
            f"{tf_type_name(dtype)}."
        )


def _handle_shape(ic) -> list:
    return [TensorShape([2]), scalar()]


# ----------------------------------------------------------------------------------------
# TensorArrayV3, TensorArrayGradV3, TensorArrayGradWithShape


def _ta_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(0), 0)
    return _handle_shape(ic)


@register_op(
    "TensorArrayV3",
    inputs=["size: int32"],
    outputs=["handle: resource", "flow: float"],
    attrs=[
        "dtype: type",
        "element_shape: shape = {unknown_rank: true}",
        "dynamic_size: bool = false",
        "clear_after_read: bool = true",
        "identical_element_shapes: bool = false",
        "tensor_array_name: string = ''",
    ],
    shape_fn=_ta_shape,
    stateful=True,
    doc="An array of `size` tensors of one dtype for this step; outputs its handle and the "
    "flow scalar that orders the ops using it.",
)
def _tensor_array_kernel(ctx, size, *, dtype, element_shape, dynamic_size, clear_after_read,
                         identical_element_shapes, tensor_array_name, node):
    n = _index(size)
    if n < 0:
        raise invalid_argument("Size should be >= 0.")
    name = f"{tensor_array_name or node.name}_{next(_counter)}"
    shape = as_shape(element_shape)
    ctx.step_resources[name] = TensorArrayState(
        name, dtype, n, shape, dynamic_size=dynamic_size, clear_after_read=clear_after_read,
        identical_element_shapes=identical_element_shapes,
    )
    return ResourceHandle(ctx.device, "_tensor_arrays", name, dtype, shape), _FLOW


def _grad_array(ctx, handle: Any, source: str, prepend: list[int]) -> ResourceHandle:
    ta = _state(ctx, handle)
    ta.check_open()
    name = f"{ta.name}@{source}"
    shape = TensorShape(prepend).concatenate(ta.element_shape)
    with ta.lock:
        grad = ctx.step_resources.get(name)
        if grad is None:
            # As TensorFlow: the gradient has the forward array's size and (inferred) element
            # shape, a fixed size, and adds repeated writes (several reads of one element).
            grad = TensorArrayState(
                name, ta.dtype, ta.size, shape, dynamic_size=False, clear_after_read=True,
                identical_element_shapes=ta.identical_element_shapes, aggregate=True,
            )
            ctx.step_resources[name] = grad
    return ResourceHandle(ctx.device, "_tensor_arrays", name, ta.dtype, shape)


@register_op(
    "TensorArrayGradV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["grad_handle: resource", "flow_out: float"],
    attrs=["source: string"],
    shape_fn=_handle_shape,
    stateful=True,
    doc="The gradient TensorArray of `handle` for `source` (created on first use, found "
    "after): same size and element shape; repeated writes add.",
)
def _tensor_array_grad_kernel(ctx, handle, flow_in, *, source):
    return _grad_array(ctx, handle, source, []), _FLOW


@register_op(
    "TensorArrayGradWithShape",
    inputs=["handle: resource", "flow_in: float", "shape_to_prepend: int32"],
    outputs=["grad_handle: resource", "flow_out: float"],
    attrs=["source: string"],
    shape_fn=_handle_shape,
    stateful=True,
    doc="TensorArrayGradV3 whose element shape is `shape_to_prepend` + the forward one.",
)
def _tensor_array_grad_with_shape_kernel(ctx, handle, flow_in, shape_to_prepend, *, source):
    prepend = [int(d) for d in np.asarray(shape_to_prepend).ravel()]
    return _grad_array(ctx, handle, source, prepend), _FLOW


# ----------------------------------------------------------------------------------------
# Write, Read, Size, Close


def _write_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(1), 0)
    shape_fns.with_rank(ic.input_shape(3), 0)
    return [scalar()]


@register_op(
    "TensorArrayWriteV3",
    inputs=["handle: resource", "index: int32", "value: T", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=_write_shape,
    stateful=True,
    doc="Writes `value` at `index` (once; a gradient array adds).",
)
def _write_kernel(ctx, handle, index, value, flow_in, *, T):
    ta = _state(ctx, handle)
    _check_dtype(ta, T, writing=True)
    with ta.lock:
        ta.write(_index(index), np.asarray(value), ctx.recomputing)
    return flow_in


def _read_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(1), 0)
    shape_fns.with_rank(ic.input_shape(2), 0)
    return [unknown_shape()]


@register_op(
    "TensorArrayReadV3",
    inputs=["handle: resource", "index: int32", "flow_in: float"],
    outputs=["value: dtype"],
    attrs=["dtype: type"],
    shape_fn=_read_shape,
    stateful=True,
    doc="The element at `index` (cleared after the read if the array clears after read).",
)
def _read_kernel(ctx, handle, index, flow_in, *, dtype):
    ta = _state(ctx, handle)
    _check_dtype(ta, dtype, writing=False)
    with ta.lock:
        return ta.read(_index(index), ctx.recomputing)


@register_op(
    "TensorArraySizeV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["size: int32"],
    shape_fn=shape_fns.scalar,
    stateful=True,
    doc="The current size of the TensorArray.",
)
def _size_kernel(ctx, handle, flow_in):
    return np.int32(_state(ctx, handle).size)


@register_op(
    "TensorArrayCloseV3",
    inputs=["handle: resource"],
    outputs=[],
    shape_fn=shape_fns.no_outputs,
    stateful=True,
    doc="Closes the TensorArray: later ops on it fail.",
)
def _close_kernel(ctx, handle):
    ta = _state(ctx, handle)
    ta.closed = True
    ta.elements = [None] * ta.size  # frees the values


# ----------------------------------------------------------------------------------------
# Gather, Scatter


def _gather_shape(ic) -> list:
    indices = shape_fns.with_rank(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 0)
    elem = as_shape(ic.attrs["element_shape"])
    return [TensorShape([indices.dims[0]]).concatenate(elem)]


def _stack_values(ta: TensorArrayState, values: list[np.ndarray], indices: list[int]) -> Any:
    for j in range(1, len(values)):
        if values[j].shape != values[0].shape:
            raise invalid_argument(
                f"TensorArray has inconsistent shapes.  Index 0 has shape: "
                f"{dims_str(values[0].shape)} but index {indices[j]} has shape: "
                f"{dims_str(values[j].shape)}"
            )
    return np.stack(values)


@register_op(
    "TensorArrayGatherV3",
    inputs=["handle: resource", "indices: int32", "flow_in: float"],
    outputs=["value: dtype"],
    attrs=["dtype: type", "element_shape: shape = {unknown_rank: true}"],
    shape_fn=_gather_shape,
    stateful=True,
    doc="The elements at `indices`, stacked along a new first axis.",
)
def _gather_kernel(ctx, handle, indices, flow_in, *, dtype, element_shape):
    ta = _state(ctx, handle)
    _check_dtype(ta, dtype, writing=False)
    idx = [int(i) for i in np.asarray(indices).ravel()]
    with ta.lock:
        ta.check_open()
        if not idx:
            shape = ta.element_shape
            if shape.is_compatible_with(element_shape):
                shape = shape.merge_with(element_shape)
            if not shape.is_fully_defined():
                raise errors.UnimplementedError(
                    None, None,
                    f"TensorArray has size zero, but element shape {_shape_text(shape)} is not "
                    "fully defined. Currently only static shapes are supported when packing "
                    "zero-size TensorArrays.",
                )
            return np.zeros([0] + shape.as_list(), dtype.np_dtype)
        values = [ta.read(i, ctx.recomputing) for i in idx]
    return _stack_values(ta, values, idx)


def _scatter_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(1), 1)
    shape_fns.with_rank_at_least(ic.input_shape(2), 1)
    shape_fns.with_rank(ic.input_shape(3), 0)
    return [scalar()]


@register_op(
    "TensorArrayScatterV3",
    inputs=["handle: resource", "indices: int32", "value: T", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=_scatter_shape,
    stateful=True,
    doc="Writes `value[i]` at `indices[i]` for every i.",
)
def _scatter_kernel(ctx, handle, indices, value, flow_in, *, T):
    ta = _state(ctx, handle)
    _check_dtype(ta, T, writing=True)
    idx = [int(i) for i in np.asarray(indices).ravel()]
    value = np.asarray(value)
    if len(idx) != value.shape[0]:
        raise invalid_argument(
            f"Expected len(indices) == values.shape[0], but saw: {len(idx)} vs. {value.shape[0]}"
        )
    with ta.lock:
        ta.check_open()
        if idx and not ta.dynamic_size and max(idx) >= ta.size:
            raise invalid_argument(
                f"Max scatter index must be < array size ({max(idx)} vs. {ta.size})"
            )
        for j, i in enumerate(idx):
            ta.write(i, value[j], ctx.recomputing)
    return flow_in


# ----------------------------------------------------------------------------------------
# Concat, Split


def _concat_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(1), 0)
    rest = as_shape(ic.attrs["element_shape_except0"])
    return [TensorShape([None]).concatenate(rest), unknown_shape(1)]


@register_op(
    "TensorArrayConcatV3",
    inputs=["handle: resource", "flow_in: float"],
    outputs=["value: dtype", "lengths: int64"],
    attrs=["dtype: type", "element_shape_except0: shape = {unknown_rank: true}"],
    shape_fn=_concat_shape,
    stateful=True,
    doc="Every element concatenated along axis 0, and each element's length there.",
)
def _concat_kernel(ctx, handle, flow_in, *, dtype, element_shape_except0):
    ta = _state(ctx, handle)
    _check_dtype(ta, dtype, writing=False)
    with ta.lock:
        ta.check_open()
        if ta.size == 0:
            rest = as_shape(element_shape_except0)
            if not rest.is_fully_defined():
                raise errors.UnimplementedError(
                    None, None,
                    f"TensorArray has size zero, but element_shape_except0 {_shape_text(rest)} "
                    "is not fully defined. Currently only static shapes are supported when "
                    "concatenating zero-size TensorArrays.",
                )
            return np.zeros([0] + rest.as_list(), dtype.np_dtype), np.zeros(0, np.int64)
        values = [ta.read(i, ctx.recomputing) for i in range(ta.size)]
    for i, v in enumerate(values):
        if v.ndim == 0:
            raise invalid_argument(
                f"Concat saw a scalar shape at index {i} but requires at least vectors.  Did "
                "you mean to call stack?"
            )
        if v.shape[1:] != values[0].shape[1:]:
            raise invalid_argument(
                "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) "
                f"shape: {dims_str(values[0].shape[1:])} but index {i} has (excepting "
                f"dimension 0) shape: {dims_str(v.shape[1:])}"
            )
    lengths = np.array([v.shape[0] for v in values], np.int64)
    return np.concatenate(values, axis=0), lengths


def _split_shape(ic) -> list:
    shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 1)
    shape_fns.with_rank(ic.input_shape(3), 0)
    return [scalar()]


@register_op(
    "TensorArraySplitV3",
    inputs=["handle: resource", "value: T", "lengths: int64", "flow_in: float"],
    outputs=["flow_out: float"],
    attrs=["T: type"],
    shape_fn=_split_shape,
    stateful=True,
    doc="Splits `value` along axis 0 into pieces of `lengths` and writes piece i at index i.",
)
def _split_kernel(ctx, handle, value, lengths, flow_in, *, T):
    ta = _state(ctx, handle)
    _check_dtype(ta, T, writing=True)
    value = np.asarray(value)
    lens = [int(n) for n in np.asarray(lengths).ravel()]
    if value.ndim == 0:
        raise invalid_argument(
            f"Expected value to be at least a vector, but received shape: {dims_str(())}"
        )
    if sum(lens) != value.shape[0]:
        raise invalid_argument(
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
            f"{sum(lens)} and value's shape is: {dims_str(value.shape)}"
        )
    with ta.lock:
        ta.check_open()
        if not ta.dynamic_size and len(lens) != ta.size:
            raise invalid_argument(
                f"TensorArray's size is not equal to the size of lengths ({ta.size} vs. "
                f"{len(lens)}), and the TensorArray is not marked as dynamically resizeable"
            )
        start = 0
        for i, n in enumerate(lens):
            ta.write(i, value[start:start + n], ctx.recomputing)
            start += n
    return flow_in


# The op types a gradient may replay (see the module docstring).
REPLAYABLE_OPS = frozenset({
    "TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArrayWriteV3",
    "TensorArrayReadV3", "TensorArraySizeV3", "TensorArrayGatherV3", "TensorArrayScatterV3",
    "TensorArrayConcatV3", "TensorArraySplitV3",
})


__all__: list[str] = []
