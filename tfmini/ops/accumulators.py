"""Conditional accumulators: gradient aggregation for synchronous training.

Thirteen ops with TensorFlow 2.21's signatures: the dense ``ConditionalAccumulator`` family
in TensorFlow's two spellings (ref handles ``Ref(string)`` and ``Resource...`` handles), and
the sparse ``SparseConditionalAccumulator`` family (ref handles only, as in TensorFlow), plus
the ``tf.compat.v1`` classes :class:`ConditionalAccumulator` (built from the resource ops, as
TensorFlow 2.21 builds it) and :class:`SparseConditionalAccumulator` (ref ops).

Semantics (TF_SEMANTICS.md section 1):

* An accumulator holds a dtype, a declared (partial) shape, a reduction (MEAN or SUM), a
  counter of accepted gradients, a global step (starting at 0) and the running sum.
* Apply(local_step, g): a stale gradient (``local_step < global_step``) is dropped silently,
  before any validation; otherwise it is validated, added to the sum and counted.
* Take(n) blocks until the counter reaches ``n``, then returns the sum or the mean (the
  sparse mean divides each row by the number of gradients that touched it), resets the
  counter and the sum and increments the global step. Waiting takes are served first in,
  first out: a waiting head blocks later takes even when they could be served.
* A waiting take ends at the run's deadline (DeadlineExceededError naming the accumulator
  and its counts) or when the session closes or the run is cancelled (CancelledError
  "TakeGrad operation was cancelled"); the accumulator keeps everything it had.

Kernels exist for half, float and double only (TensorFlow's OpDef accepts every number
type, its CPU kernels only these). A gradient or take whose dtype is not the accumulator's is
an InvalidArgumentError ("Signature mismatch"), where TensorFlow aborts the process.

The state of an accumulator is changed only under its condition's lock and never in place:
each change swaps in new arrays, so a snapshot of the state is a handful of references. A
change registers an undo (``ctx.on_failure``) that restores the snapshot if the accumulator
still holds the state that change made, so a failed ``Session.run`` leaves accumulators as
they were: an apply's gradient is taken back out, a take that completed puts its gradients
and the global step back. When other runs changed the accumulator since, a dense apply's
undo subtracts its gradient (while no take has consumed it); any other undo then leaves the
state as it is, as variables do.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from attrs import frozen

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, float16, float32, float64, int64, tf_type_name
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import shape_fns
from tfmini.ops.indexed_slices import IndexedSlices
from tfmini.ops.kernel_util import invalid_argument
from tfmini.ops.math import cast
from tfmini.ops.state import ResourceHandle, resource_manager_of

_log = logging.getLogger("tfmini")

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

# What a waiting take is called in its CancelledError / DeadlineExceededError (TF's wording).
TAKE_WHAT = "TakeGrad operation"

# Identifies an accumulator's state: every change takes a fresh number, an undo puts the old
# one back, so "unchanged since" is one comparison.
_state_ids = itertools.count(1)


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
# The accumulator resources


class _Take:
    """One take attempt waiting in an accumulator's queue."""

    __slots__ = ("num_required", "done", "cancelled", "result", "before", "after")

    def __init__(self, num_required: int):
        self.num_required = num_required
        self.done = False
        self.cancelled = False
        self.result: Any = None
        self.before: tuple = ()
        self.after = 0


class _Accumulator:
    """State common to the dense and sparse accumulators (TF's ConditionalAccumulatorBase).

    ``cond`` guards everything; applies notify it, waiting takes wait on it.
    """

    kind = "ConditionalAccumulator"

    def __init__(self, dtype: DType, shape: TensorShape, reduction_type: str, name: str):
        self.dtype = dtype
        self.shape = shape
        self.reduction_type = reduction_type
        self.name = name
        self.cond = threading.Condition(threading.Lock())
        self.counter = 0
        self.global_step = 0
        self.epoch = 0  # number of completed takes (restored by a take's undo)
        self.state = next(_state_ids)
        self.takers: collections.deque[_Take] = collections.deque()

    # -- snapshots and undo (call with cond held) ---------------------------------------
    def _snapshot(self) -> tuple:
        return (self.counter, self.global_step, self.epoch, self.state, self._sum_state())

    def _restore(self, snap: tuple) -> None:
        self.counter, self.global_step, self.epoch, self.state, sums = snap
        self._set_sum_state(sums)

    def _sum_state(self) -> Any:
        raise NotImplementedError

    def _set_sum_state(self, sums: Any) -> None:
        raise NotImplementedError

    def _changed(self, ctx: Any, before: tuple,
                 fallback: Callable[[], None] | None = None) -> None:
        """Marks a change made under the lock and registers its undo with ``ctx``."""
        self.state = after = next(_state_ids)

        def undo() -> None:
            with self.cond:
                if self.state == after:
                    self._restore(before)
                    if self.takers:
                        self._flush()  # restored gradients may serve a waiting take
                elif fallback is not None:
                    fallback()

        ctx.on_failure(undo)

    # -- takes (call with cond held) ------------------------------------------------------
    def _flush(self) -> None:
        """Serves waiting takes strictly in order; a head that cannot be served blocks the
        rest (TensorFlow's FIFO)."""
        takers = self.takers
        served = False
        while takers:
            head = takers[0]
            if head.cancelled:
                takers.popleft()
                continue
            if self.counter < head.num_required:
                break
            takers.popleft()
            head.before = self._snapshot()
            head.result = self._take_result()
            self.global_step += 1
            self.counter = 0
            self.epoch += 1
            self._set_sum_state(None)
            self.state = head.after = next(_state_ids)
            head.done = True
            served = True
        if served:
            self.cond.notify_all()

    def _take_result(self) -> Any:
        raise NotImplementedError

    def _divisor(self, count: Any) -> np.ndarray:
        # TensorFlow divides in the accumulator's type (a half counter for half).
        return np.asarray(count, dtype=self.dtype.np_dtype)

    def take(self, ctx: Any, num_required: int) -> Any:
        """Blocks until ``num_required`` gradients are in, then takes them all."""
        attempt = _Take(num_required)
        with self.cond:
            self.takers.append(attempt)
            self._flush()
            if not attempt.done:
                try:
                    ctx.wait(self.cond, lambda: attempt.done, TAKE_WHAT,
                             lambda: self._wait_detail(attempt))
                except BaseException:
                    # Dropped from the queue; counter and sum are untouched. Those behind it
                    # may be servable now that it no longer blocks the head.
                    attempt.cancelled = True
                    if attempt in self.takers:
                        self.takers.remove(attempt)
                    self._flush()
                    raise
            before, after = attempt.before, attempt.after

        def undo() -> None:
            with self.cond:
                if self.state == after:  # nothing happened since: give the gradients back
                    self._restore(before)
                    if self.takers:
                        self._flush()

        ctx.on_failure(undo)
        return attempt.result

    def _wait_detail(self, attempt: _Take) -> str:
        return (
            f"accumulator '{self.name}' has {self.counter} of {attempt.num_required} "
            f"gradients (global step {self.global_step})"
        )

    # -- the global step ----------------------------------------------------------------
    def set_global_step(self, ctx: Any, new_step: int) -> None:
        with self.cond:
            if new_step < self.global_step:
                # TensorFlow only warns (a header comment promises an error; no release has it).
                _log.warning(
                    "Attempt to set current_global_step_ to smaller value: accumulator '%s' "
                    "current_global_step_ = %d while new_global_step = %d.",
                    self.name, self.global_step, new_step,
                )
            before = self._snapshot()
            self.global_step = new_step
            self._changed(ctx, before)

    def num_accumulated(self) -> int:
        with self.cond:
            return self.counter

    def __repr__(self) -> str:
        return (
            f"<{self.kind} '{self.name}' dtype={self.dtype.name} shape={self.shape.tf_str()} "
            f"{self.reduction_type} counter={self.counter} global_step={self.global_step}>"
        )


class DenseAccumulator(_Accumulator):
    """A dense conditional accumulator: the running sum is one array."""

    kind = "ConditionalAccumulator"

    def __init__(self, dtype: DType, shape: TensorShape, reduction_type: str, name: str):
        super().__init__(dtype, shape, reduction_type, name)
        self.sum: np.ndarray | None = None
        # The common case, a fully known declared shape, is one tuple comparison.
        self._exact_shape = tuple(shape.dims) if shape.is_fully_defined() else None

    def _sum_state(self) -> Any:
        return self.sum

    def _set_sum_state(self, sums: Any) -> None:
        self.sum = sums

    def _check_shape(self, grad: np.ndarray) -> None:
        shape = grad.shape
        if self._exact_shape is not None:
            ok = shape == self._exact_shape
        else:
            ok = self.shape.is_compatible_with(shape)
        if not ok:
            raise invalid_argument(
                f"Shape mismatch: expected {self.shape.tf_str()}, got {dims_str(shape)}"
            )
        if self.counter > 0 and self.sum.shape != shape:
            raise invalid_argument(
                f"Shape mismatch: expected {dims_str(self.sum.shape)}, got {dims_str(shape)}"
            )

    def apply(self, ctx: Any, local_step: int, grad: np.ndarray) -> None:
        with self.cond:
            if local_step < self.global_step:
                return  # stale: dropped before any validation, as in TensorFlow
            self._check_shape(grad)
            before = self._snapshot()
            epoch = self.epoch
            if self.counter == 0:
                new = np.array(grad, dtype=self.dtype.np_dtype, copy=True)
            else:
                # A new array (0-d stays an array): the snapshot keeps the old one.
                new = np.asarray(np.add(self.sum, grad))
            new.flags.writeable = False
            self.sum = new
            self.counter += 1

            def subtract() -> None:
                # Others changed the accumulator since; take this gradient back out unless a
                # take has consumed it already.
                if self.epoch == epoch and self.counter > 0:
                    self.counter -= 1
                    self.sum = None if self.counter == 0 else np.subtract(self.sum, grad)
                    self.state = next(_state_ids)

            self._changed(ctx, before, subtract)
            if self.takers:
                self._flush()

    def _take_result(self) -> np.ndarray:
        if self.reduction_type == "MEAN":
            return np.divide(self.sum, self._divisor(self.counter))
        return self.sum


class SparseAccumulator(_Accumulator):
    """A sparse conditional accumulator: rows (indices, values) and a count per row."""

    kind = "SparseConditionalAccumulator"

    def __init__(self, dtype: DType, shape: TensorShape, reduction_type: str, name: str):
        super().__init__(dtype, shape, reduction_type, name)
        self.indices: np.ndarray | None = None
        self.values: np.ndarray | None = None
        self.counts: np.ndarray | None = None

    def _sum_state(self) -> Any:
        return None if self.indices is None else (self.indices, self.values, self.counts)

    def _set_sum_state(self, sums: Any) -> None:
        self.indices, self.values, self.counts = sums if sums is not None else (None,) * 3

    def _validate(self, indices: np.ndarray, values: np.ndarray, grad_shape: np.ndarray,
                  has_known_shape: bool) -> None:
        """TensorFlow's checks of a sparse gradient against the declared shape and, once a
        gradient is in, against the stored rows."""
        declared = self.shape.dims
        rank = -1 if declared is None else len(declared)
        if has_known_shape:
            given = [int(d) for d in grad_shape.reshape(-1)]
            if rank > len(given):
                raise invalid_argument(
                    f"Shape mismatch: expected shape rank at least {rank}, got {len(given)}"
                )
            for i in range(max(rank, 0)):
                if declared[i] is not None and declared[i] != given[i]:
                    raise invalid_argument(
                        f"Shape mismatch: expected shape dim {i} to be {declared[i]}, got "
                        f"{given[i]}"
                    )
        if rank > 0 and declared[0] is not None and indices.size:
            over = np.flatnonzero(indices >= declared[0])
            if over.size:
                i = int(over[0])
                raise invalid_argument(
                    f"Shape mismatch: index of slice {i} exceeded limits of shape; index is "
                    f"{int(indices[i])} exceeded {declared[0]}"
                )
        if self.counter > 0:
            stored = self.values
            if stored.ndim != values.ndim:
                raise invalid_argument(
                    f"Shape mismatch: expected values rank {stored.ndim}, got {values.ndim}"
                )
            for i in range(1, stored.ndim):
                if stored.shape[i] != values.shape[i]:
                    raise invalid_argument(
                        f"Shape mismatch: expected values dim {i} to be {stored.shape[i]}, "
                        f"got {values.shape[i]}"
                    )
        else:
            if rank > values.ndim:
                raise invalid_argument(
                    f"Shape mismatch: expected values rank at least {rank}, got {values.ndim}"
                )
            for i in range(1, max(rank, 0)):
                if declared[i] is not None and declared[i] != values.shape[i]:
                    raise invalid_argument(
                        f"Shape mismatch: expected values dim {i} to be {declared[i]}, got "
                        f"{values.shape[i]}"
                    )

    def apply(self, ctx: Any, local_step: int, indices: np.ndarray, values: np.ndarray,
              grad_shape: np.ndarray, has_known_shape: bool) -> None:
        with self.cond:
            if local_step < self.global_step:
                return  # stale: dropped before any validation, as in TensorFlow
            _check_sparse_inputs(indices, values)
            self._validate(indices, values, grad_shape, has_known_shape)
            before = self._snapshot()
            if self.counter == 0:
                # The first gradient is stored as given (order and repeats kept, as TF does).
                new = (
                    np.array(indices, dtype=np.int64, copy=True),
                    np.array(values, dtype=self.dtype.np_dtype, copy=True),
                    np.ones(len(indices), dtype=np.int64),
                )
            else:
                new = _merge_rows(self.indices, self.values, self.counts, indices, values)
            for a in new:
                a.flags.writeable = False
            self.indices, self.values, self.counts = new
            self.counter += 1
            self._changed(ctx, before)
            if self.takers:
                self._flush()

    def _take_result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        values = self.values
        if self.reduction_type == "MEAN":
            counts = self._divisor(self.counts).reshape((-1,) + (1,) * (values.ndim - 1))
            values = np.divide(values, counts)
        declared = self.shape.dims
        dim0 = declared[0] if declared and declared[0] is not None else -1
        shape = np.array((dim0,) + values.shape[1:], dtype=np.int64)
        return self.indices, values, shape


def _check_sparse_inputs(indices: np.ndarray, values: np.ndarray) -> None:
    if indices.ndim != 1:
        raise invalid_argument(
            f"Input indices should be vector but received shape: {dims_str(indices.shape)}"
        )
    if values.ndim == 0:
        raise invalid_argument("Values cannot be 0-dimensional.")
    if values.shape[0] != indices.shape[0]:
        raise invalid_argument(
            f"Expected {indices.shape[0]} non-empty input values, got {values.shape[0]}"
        )


def _merge_rows(acc_idx: np.ndarray, acc_val: np.ndarray, acc_cnt: np.ndarray,
                idx: np.ndarray, val: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TensorFlow's merge of stored rows with a gradient's rows.

    A two-pointer walk that assumes both index lists ascending: equal indices add (the row's
    count goes up by one), the smaller index is copied. Unsorted or repeated indices give
    TensorFlow's artefacts exactly (``[2, 0]`` then ``[0]`` gives ``[0, 2, 0]``).
    """
    val = val.astype(acc_val.dtype, copy=False)
    if _strictly_increasing(acc_idx) and _strictly_increasing(idx):
        # The walk then computes a sorted union; vectorised, same result.
        union = np.union1d(acc_idx, idx)
        pos_a = np.searchsorted(union, acc_idx)
        pos_g = np.searchsorted(union, idx)
        values = np.zeros((len(union),) + acc_val.shape[1:], dtype=acc_val.dtype)
        values[pos_a] = acc_val
        values[pos_g] += val
        counts = np.zeros(len(union), dtype=np.int64)
        counts[pos_a] = acc_cnt
        counts[pos_g] += 1
        return union.astype(np.int64), values, counts
    out_idx: list[int] = []
    rows: list[np.ndarray] = []
    counts_l: list[int] = []
    i = j = 0
    na, ng = len(acc_idx), len(idx)
    while i < na and j < ng:
        a, g = acc_idx[i], idx[j]
        if a < g:
            out_idx.append(a), rows.append(acc_val[i]), counts_l.append(acc_cnt[i])
            i += 1
        elif a == g:
            out_idx.append(a), rows.append(acc_val[i] + val[j]), counts_l.append(acc_cnt[i] + 1)
            i += 1
            j += 1
        else:
            out_idx.append(g), rows.append(val[j]), counts_l.append(1)
            j += 1
    for k in range(i, na):
        out_idx.append(acc_idx[k]), rows.append(acc_val[k]), counts_l.append(acc_cnt[k])
    for k in range(j, ng):
        out_idx.append(idx[k]), rows.append(val[k]), counts_l.append(1)
    values = (np.stack(rows) if rows
              else np.zeros((0,) + acc_val.shape[1:], dtype=acc_val.dtype))
    return (np.array(out_idx, dtype=np.int64), values.astype(acc_val.dtype, copy=False),
            np.array(counts_l, dtype=np.int64))


def _strictly_increasing(a: np.ndarray) -> bool:
    return a.size < 2 or bool(np.all(a[1:] > a[:-1]))


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


def _lookup(ctx: Any, handle: Any, cls: type) -> _Accumulator:
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
        want = cls.kind if cls is not _Accumulator else "ConditionalAccumulatorBase"
        raise invalid_argument(
            f"Trying to access resource {_where(handle)} as a {want}, but it holds a "
            f"{getattr(acc, 'kind', type(acc).__name__)}"
        )
    return acc


def _check_signature(acc: _Accumulator, dtype: DType, have: Callable[[str], str]) -> None:
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
        acc.apply(ctx, step, np.asarray(gradient))

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
    return np.int32(_lookup(ctx, handle, _Accumulator).num_accumulated())


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
    acc = _lookup(ctx, handle, _Accumulator)
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
    acc.apply(ctx, step, indices, values, np.asarray(gradient_shape), has_known_shape)


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


# ----------------------------------------------------------------------------------------
# The tf.compat.v1 classes


SparseAccumulatorTakeGradientOutputs = collections.namedtuple(
    "SparseAccumulatorTakeGradient", ["indices", "values", "shape"]
)


def _local_step(local_step: Any) -> Output:
    # TensorFlow casts: 10.7 becomes 10 (truncation).
    return cast(convert_to_tensor(local_step), int64)


class ConditionalAccumulatorBase:
    """What the dense and sparse accumulators share (``tf.compat.v1.ConditionalAccumulatorBase``).

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the accumulated gradients (None: unknown).
        accumulator_ref: The handle the subclass built.
    """

    _NUM_ACCUMULATED = "ResourceAccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "ResourceAccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: Output):
        self._dtype = as_dtype(dtype)
        self._shape = as_shape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self) -> Output:
        """The accumulator's handle (a resource for the dense class, a ref for the sparse)."""
        return self._accumulator_ref

    @property
    def handle(self) -> Output:
        """The accumulator's handle (the same as :attr:`accumulator_ref`)."""
        return self._accumulator_ref

    @property
    def name(self) -> str:
        """The name of the accumulator's op (the last component)."""
        return self._name

    @property
    def dtype(self) -> DType:
        """The type of the accumulated gradients."""
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        """The declared shape of the accumulated gradients."""
        return self._shape

    def num_accumulated(self, name: str | None = None) -> Output:
        """The number of gradients accumulated since the last take.

        Args:
            name: Op name; default ``<name>_NumAccumulated``.

        Returns:
            An int32 scalar tensor.
        """
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return build_op(current_scope(), self._NUM_ACCUMULATED, [self._accumulator_ref],
                        name=name).outputs[0]

    def set_global_step(self, new_global_step: Any, name: str | None = None):
        """Sets the accumulator's global step; a smaller value only logs a warning.

        Args:
            new_global_step: The new step (a tensor, variable or number; cast to int64).
            name: Optional op name.

        Returns:
            The Operation that sets the step.
        """
        step = cast(convert_to_tensor(new_global_step), int64)
        return build_op(current_scope(), self._SET_GLOBAL_STEP, [self._accumulator_ref, step],
                        name=name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for aggregating dense gradients (``tf.compat.v1``).

    Gradients computed at the accumulator's current step (or later) are added; stale ones
    are dropped. A take waits until enough gradients are in, then returns their mean (or
    sum), resets the accumulator and increments its step. Built from the resource ops, as
    TensorFlow 2.21 builds it.

    Example::

        acc = tm.ConditionalAccumulator(tm.float32, shape=[2])
        apply = acc.apply_grad(tm.placeholder(tm.float32, [2], name="g"), local_step=0)
        avg = acc.take_grad(2)
        # two sess.run(apply, feed_dict=...) from workers, then sess.run(avg) on the chief

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the gradients (None: fixed by each round's first gradient).
        shared_name: If non-empty, accumulators built with this name share state.
        name: Name of the accumulator op.
        reduction_type: ``"MEAN"`` or ``"SUM"``.

    Raises:
        ValueError: ``reduction_type`` is neither (TensorFlow's attr message).
    """

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN"):
        dtype = as_dtype(dtype)
        op = _build_accumulator("ResourceConditionalAccumulator", dtype, shape, shared_name,
                                name, reduction_type)
        super().__init__(dtype, shape, op.outputs[0])

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None):
        """Applies a gradient; dropped silently if ``local_step`` is stale.

        Args:
            grad: The gradient (converted to the accumulator's dtype).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.

        Raises:
            ValueError: the gradient's static shape conflicts with the declared shape.
        """
        grad = convert_to_tensor(grad, self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        step = _local_step(local_step)
        return build_op(current_scope(), "ResourceAccumulatorApplyGradient",
                        [self._accumulator_ref, step, grad], name=name)

    def take_grad(self, num_required: Any, name: str | None = None) -> Output:
        """Waits for ``num_required`` gradients and takes their mean (or sum).

        The take resets the counter and the sum and increments the global step.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            The averaged gradient, with the declared static shape.

        Raises:
            InvalidArgumentError: at run time, if ``num_required`` < 1.
        """
        out = build_op(current_scope(), "ResourceAccumulatorTakeGradient",
                       [self._accumulator_ref, num_required], {"dtype": self._dtype},
                       name=name).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for sparse gradients (IndexedSlices), ``tf.compat.v1``.

    Built from the ref ops, as TensorFlow 2.21 builds it. With MEAN each row of the result
    is divided by the number of gradients that touched that row.

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the dense gradient (None: unknown).
        shared_name: If non-empty, accumulators built with this name share state.
        name: Name of the accumulator op.
        reduction_type: ``"MEAN"`` or ``"SUM"``.

    Raises:
        ValueError: ``reduction_type`` is neither (TensorFlow's attr message).
    """

    _NUM_ACCUMULATED = "AccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "AccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "sparse_conditional_accumulator", reduction_type: str = "MEAN"):
        dtype = as_dtype(dtype)
        op = _build_accumulator("SparseConditionalAccumulator", dtype, shape, shared_name,
                                name, reduction_type)
        super().__init__(dtype, shape, op.outputs[0])

    def apply_indexed_slices_grad(self, grad: IndexedSlices, local_step: Any = 0,
                                  name: str | None = None):
        """Applies an IndexedSlices gradient; dropped silently if ``local_step`` is stale.

        Args:
            grad: The gradient (its ``dense_shape`` may be None).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.
        """
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices: Any, grad_values: Any, grad_shape: Any = None,
                   local_step: Any = 0, name: str | None = None):
        """Applies a sparse gradient given as indices, values and an optional dense shape.

        Args:
            grad_indices: Row indices (a vector; int32 or int64, cast to int64).
            grad_values: The rows, ``[len(indices), ...]``.
            grad_shape: The dense shape, or None when unknown (then not checked).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.
        """
        step = _local_step(local_step)
        indices = cast(convert_to_tensor(grad_indices), int64)
        if grad_shape is None:
            shape = convert_to_tensor(np.zeros(0, np.int64))
        else:
            shape = cast(convert_to_tensor(grad_shape), int64)
        return build_op(
            current_scope(), "SparseAccumulatorApplyGradient",
            [self._accumulator_ref, step, indices, grad_values, shape],
            {"has_known_shape": grad_shape is not None}, name=name,
        )

    def take_grad(self, num_required: Any, name: str | None = None):
        """Waits for ``num_required`` gradients and takes the accumulated rows.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            A namedtuple ``(indices, values, shape)`` of tensors.
        """
        op = build_op(current_scope(), "SparseAccumulatorTakeGradient",
                      [self._accumulator_ref, num_required], {"dtype": self._dtype}, name=name)
        return SparseAccumulatorTakeGradientOutputs(*op.outputs)

    def take_indexed_slices_grad(self, num_required: Any,
                                 name: str | None = None) -> IndexedSlices:
        """Like :meth:`take_grad`, as an IndexedSlices.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            The taken gradient as ``IndexedSlices(values, indices, dense_shape)``.
        """
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values=values, indices=indices, dense_shape=shape)


def _build_accumulator(op_type: str, dtype: DType, shape: Any, shared_name: str | None,
                       name: str, reduction_type: str):
    attrs = {
        "dtype": dtype,
        "shape": as_shape(shape) if shape is not None else unknown_shape(),
        "shared_name": shared_name or "",
        "reduction_type": reduction_type,
    }
    return build_op(current_scope(), op_type, [], attrs, name=name)


__all__ = [
    "ConditionalAccumulator",
    "ConditionalAccumulatorBase",
    "SparseConditionalAccumulator",
]
