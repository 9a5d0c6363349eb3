"""The conditional accumulators' state machines: the dense and sparse accumulator resources.

:class:`DenseAccumulator` and :class:`SparseAccumulator` (both :class:`Accumulator`) live in a
device's resource manager; the ops of ``accumulator_ops`` find them by handle and call ``apply``,
``take``, ``set_global_step`` and ``num_accumulated``. The semantics are in
``tfmini.ops.data_flow.conditional_accumulator``
(tensorflow/core/kernels/conditional_accumulator_base.cc).

The state of an accumulator is changed only under its condition's lock and never in place:
each change swaps in new arrays, so a snapshot of the state is a handful of references. A
change registers an undo (``ctx.on_failure``) that restores the snapshot if the accumulator
still holds the state that change made, so a failed ``Session.run`` leaves accumulators as
they were: an apply's gradient is taken back out, a take that completed puts its gradients
and the global step back. When other runs changed the accumulator since, a dense apply's
undo subtracts its gradient (while no take has consumed it); any other undo then leaves the
state as it is, as variables do.

An apply may carry an idempotency key (a distributed step's id, the op and the local step):
an accumulator remembers the keys of the gradients it holds and ignores an apply whose key it
has already counted, so a step delivered twice is counted once (docs/distributed.md,
"Faults"). A take forgets the keys of the gradients it consumed.
"""

from __future__ import annotations

import collections
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core.dtypes import DType
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common.kernel_util import invalid_argument

_log = logging.getLogger("tfmini")

# What a waiting take is called in its CancelledError / DeadlineExceededError (TF's wording).
TAKE_WHAT = "TakeGrad operation"

# Identifies an accumulator's state: every change takes a fresh number, an undo puts the old
# one back, so "unchanged since" is one comparison.
_state_ids = itertools.count(1)


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


class Accumulator:
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
        # Idempotency keys of the gradients counted since the last take (never changed in
        # place: snapshots share it).
        self.keys: frozenset = frozenset()

    # -- snapshots and undo (call with cond held) ---------------------------------------
    def _snapshot(self) -> tuple:
        return (self.counter, self.global_step, self.epoch, self.state, self._sum_state(),
                self.keys)

    def _restore(self, snap: tuple) -> None:
        self.counter, self.global_step, self.epoch, self.state, sums, self.keys = snap
        self._set_sum_state(sums)

    def _seen(self, key: tuple | None) -> bool:
        """True if an apply with ``key`` was counted already (a repeated delivery)."""
        if key is None or key not in self.keys:
            return False
        _log.info("%s '%s': apply %s was counted already; the repeated delivery is ignored",
                  self.kind, self.name, key)
        return True

    def _count_key(self, key: tuple | None) -> None:
        if key is not None:
            self.keys = self.keys | {key}

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
            self.keys = frozenset()
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


class DenseAccumulator(Accumulator):
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

    def apply(self, ctx: Any, local_step: int, grad: np.ndarray,
              key: tuple | None = None) -> None:
        with self.cond:
            if local_step < self.global_step:
                return  # stale: dropped before any validation, as in TensorFlow
            self._check_shape(grad)
            if self._seen(key):
                return
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
            self._count_key(key)

            def subtract() -> None:
                # Others changed the accumulator since; take this gradient back out unless a
                # take has consumed it already.
                if self.epoch == epoch and self.counter > 0:
                    self.counter -= 1
                    self.sum = None if self.counter == 0 else np.subtract(self.sum, grad)
                    self.keys = self.keys - {key}
                    self.state = next(_state_ids)

            self._changed(ctx, before, subtract)
            if self.takers:
                self._flush()

    def _take_result(self) -> np.ndarray:
        if self.reduction_type == "MEAN":
            return np.divide(self.sum, self._divisor(self.counter))
        return self.sum


class SparseAccumulator(Accumulator):
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
              grad_shape: np.ndarray, has_known_shape: bool, key: tuple | None = None) -> None:
        with self.cond:
            if local_step < self.global_step:
                return  # stale: dropped before any validation, as in TensorFlow
            _check_sparse_inputs(indices, values)
            self._validate(indices, values, grad_shape, has_known_shape)
            if self._seen(key):
                return
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
            self._count_key(key)
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
