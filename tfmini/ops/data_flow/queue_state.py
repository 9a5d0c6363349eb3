"""The queues' state machines: the resources that the queue ops drive.

One :class:`Queue` lives in a device's resource manager per (container, shared name). Its
subclasses differ in where an element goes and which one a dequeue takes: :class:`FIFOQueue`
(first in, first out), :class:`PaddingFIFOQueue` (FIFO; a batch pads unknown dims with zeros),
:class:`PriorityQueue` (lowest int64 priority first) and :class:`RandomShuffleQueue` (a
uniformly random element, drawn from TensorFlow's Philox stream one 32-bit word at a time).

Waiting follows TensorFlow's ``tensorflow/core/kernels/queue_base.cc``: a queue keeps two
lines of attempts, enqueues and dequeues, each served strictly first come, first served; a
flush serves the head of each line until neither makes progress. An enqueue_many inserts its
rows one at a time as room frees up; a dequeue_many takes elements one at a time as they
arrive (so a waiting dequeue_many holds elements, and blocks the dequeues behind it). A
``close()`` without cancelling is itself an attempt at the back of the enqueue line.

A waiting attempt ends at the run's deadline (DeadlineExceededError "Timed out waiting for
notification") or when the session closes (CancelledError "Dequeue operation was
cancelled" / "Enqueue operation was cancelled"). A dequeue that ends so puts back the
elements it held, at the front; an enqueue_many keeps the rows it inserted (as TensorFlow
does). A dequeue in a run that fails later gives its elements back too (tfmini's rule that a
failed run loses nothing; TensorFlow drops them).
"""

from __future__ import annotations

import collections
import heapq
import itertools
import threading
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import DType
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common.kernel_util import invalid_argument

# How waiting queue ops are called in their CancelledError messages (TensorFlow's wording).
ENQUEUE_WHAT = "Enqueue operation"
DEQUEUE_WHAT = "Dequeue operation"

# TensorFlow names an unshared queue after a per-process kernel counter and its node.
_kernel_counter = itertools.count()


def queue_display_name(shared_name: str, node_name: str) -> str:
    """The name a queue has in messages: ``shared_name``, else ``_<k>_<node name>``."""
    if shared_name:
        return shared_name
    return f"_{next(_kernel_counter)}_{node_name}"


class _Attempt:
    """One enqueue, dequeue or close waiting in a queue's line."""

    __slots__ = ("rows", "pos", "n", "up_to", "taken", "done", "error", "cancelled", "close")

    def __init__(self, *, rows: list | None = None, n: int = 0, up_to: bool = False,
                 close: bool = False):
        self.rows = rows  # enqueue: the element tuples to insert
        self.pos = 0  # enqueue: rows inserted so far
        self.n = n  # dequeue: elements wanted
        self.up_to = up_to
        self.taken: list = []  # dequeue: elements held so far
        self.done = False
        self.error: Exception | None = None
        self.cancelled = False
        self.close = close


class Queue:
    """State common to every queue kind (TensorFlow's QueueBase).

    Args:
        dtypes: The component types.
        shapes: The component shapes (an empty list when not specified).
        capacity: Most elements held; a negative value means no limit.
        name: The name used in messages.
    """

    kind = "FIFOQueue"

    def __init__(self, dtypes: list[DType], shapes: list[TensorShape], capacity: int,
                 name: str):
        self.dtypes = list(dtypes)
        self.shapes = list(shapes)
        self.capacity = capacity if capacity >= 0 else None
        self.name = name
        self.closed = False
        self.cond = threading.Condition(threading.Lock())
        self.enqueuers: collections.deque[_Attempt] = collections.deque()
        self.dequeuers: collections.deque[_Attempt] = collections.deque()
        self._exact = [tuple(s.dims) if s.is_fully_defined() else None for s in self.shapes]

    # -- storage (subclasses; call with cond held) ----------------------------------------
    def size(self) -> int:
        raise NotImplementedError

    def _push(self, element: tuple) -> None:
        raise NotImplementedError

    def _pop(self) -> tuple:
        raise NotImplementedError

    def _push_front(self, element: tuple) -> None:
        raise NotImplementedError

    def _push_many(self, rows: list[tuple]) -> None:
        for row in rows:
            self._push(row)

    def _take_into(self, taken: list, n: int) -> None:
        """Moves elements into ``taken`` until it holds ``n`` or none may be taken."""
        while len(taken) < n and self._can_take():
            taken.append(self._pop())

    def _can_take(self) -> bool:
        """Whether a dequeue may take one element now (RandomShuffleQueue keeps a floor)."""
        return self.size() > 0

    # -- validation -----------------------------------------------------------------------
    def _shape_ok(self, i: int, shape: tuple) -> bool:
        exact = self._exact[i]
        if exact is not None:
            return shape == exact
        return self.shapes[i].is_compatible_with(shape)

    def validate(self, components: list[np.ndarray]) -> None:
        """Checks one element's component shapes (TensorFlow's ValidateTuple)."""
        if self.shapes:
            for i, c in enumerate(components):
                if not self._shape_ok(i, c.shape):
                    raise invalid_argument(
                        f"Shape mismatch in tuple component {i}. Expected "
                        f"{self.shapes[i].tf_str()}, got {dims_str(c.shape)}"
                    )

    def validate_many(self, components: list[np.ndarray]) -> int:
        """Checks a batch (TensorFlow's ValidateManyTuple); returns the batch size."""
        for c in components:
            if c.ndim == 0:
                raise invalid_argument(
                    "Input tensor must have rank at least 1 for EnqueueMany, got shape []"
                )
        batch = components[0].shape[0]
        if self.shapes:
            for i, c in enumerate(components):
                if c.shape[0] != batch or not self._shape_ok(i, c.shape[1:]):
                    want = TensorShape((batch,)).concatenate(self.shapes[i])
                    raise invalid_argument(
                        f"Shape mismatch in tuple component {i}. Expected {want.tf_str()}, "
                        f"got {dims_str(c.shape)}"
                    )
        else:
            for i, c in enumerate(components[1:], 1):
                if c.shape[0] != batch:
                    raise invalid_argument(
                        "All input tensors must have the same size in the 0th dimension. "
                        f"Component {i} has {c.shape[0]}, and should have {batch}"
                    )
        return batch

    # -- the lines of attempts (call with cond held) --------------------------------------
    def _room(self) -> int | None:
        return None if self.capacity is None else self.capacity - self.size()

    def _try_enqueue(self, a: _Attempt) -> bool:
        """Serves the enqueue head; True when it completed."""
        if a.close:
            if self.closed:
                a.error = errors.CancelledError(
                    None, None, f"Queue '{self.name}' is already closed."
                )
            self.closed = True
            return True
        if self.closed:
            a.error = errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            return True
        rows = a.rows
        while a.pos < len(rows):
            room = self._room()
            if room is not None and room <= 0:
                return False
            end = len(rows) if room is None else min(len(rows), a.pos + room)
            self._push_many(rows[a.pos:end])  # as many rows as there is room for
            a.pos = end
        return True

    def _try_dequeue(self, a: _Attempt) -> bool:
        """Serves the dequeue head; True when it completed (taken all, or failed)."""
        still = a.n - len(a.taken)
        if not self.closed or self.size() >= still:
            self._take_into(a.taken, a.n)
            return len(a.taken) >= a.n
        # Closed without enough (checked before taking, as TensorFlow does): hand back what
        # it holds, then take the rest if allowed.
        size = self.size()
        self._give_back(a)
        if a.up_to and self.size() > 0:
            while self.size() > 0:
                a.taken.append(self._pop())
            return True
        if a.up_to and self.enqueuers:
            return False  # a pending enqueue may still add elements
        a.error = errors.OutOfRangeError(
            None, None,
            f"{self.kind} '{self.name}' is closed and has insufficient elements (requested "
            f"{still}, current size {size})",
        )
        return True

    def _give_back(self, a: _Attempt) -> None:
        for element in reversed(a.taken):
            self._push_front(element)
        a.taken = []

    def _flush(self) -> None:
        progress = False
        changed = True
        while changed:
            changed = False
            while self.enqueuers:
                head = self.enqueuers[0]
                if head.cancelled:
                    self.enqueuers.popleft()
                    continue
                before = head.pos
                if self._try_enqueue(head):
                    self.enqueuers.popleft()
                    head.done = changed = True
                else:
                    changed = changed or head.pos != before
                    break
            while self.dequeuers:
                head = self.dequeuers[0]
                if head.cancelled:
                    self.dequeuers.popleft()
                    continue
                before = len(head.taken)
                if self._try_dequeue(head):
                    self.dequeuers.popleft()
                    head.done = changed = True
                else:
                    changed = changed or len(head.taken) != before
                    break
            progress = progress or changed
        if progress:
            self.cond.notify_all()

    def _wait(self, ctx: Any, a: _Attempt, line: collections.deque, what: str) -> None:
        """Queues ``a`` and waits until it is served; on a timeout or cancel it leaves the
        line (a dequeue puts back what it held)."""
        line.append(a)
        self._flush()
        if a.done:
            return
        try:
            ctx.wait(self.cond, lambda: a.done, what)
        except errors.DeadlineExceededError as e:
            self._abandon(a, line)
            raise errors.DeadlineExceededError(
                None, None, "Timed out waiting for notification"
            ) from e
        except BaseException:
            self._abandon(a, line)
            raise

    def _abandon(self, a: _Attempt, line: collections.deque) -> None:
        a.cancelled = True
        if a in line:
            line.remove(a)
        self._give_back(a)
        self._flush()  # those behind it may be servable now

    # -- the operations -------------------------------------------------------------------
    def enqueue(self, ctx: Any, rows: list[tuple]) -> None:
        """Inserts the elements ``rows`` (one for Enqueue), waiting for room."""
        a = _Attempt(rows=rows)
        with self.cond:
            if self.closed and not self.enqueuers:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            self._wait(ctx, a, self.enqueuers, ENQUEUE_WHAT)
            if a.error is not None:
                raise a.error

    def dequeue(self, ctx: Any, n: int, up_to: bool = False) -> list[tuple]:
        """Takes ``n`` elements (up to ``n`` once closed, for DequeueUpTo), waiting for them."""
        a = _Attempt(n=n, up_to=up_to)
        with self.cond:
            self._wait(ctx, a, self.dequeuers, DEQUEUE_WHAT)
            if a.error is not None:
                raise a.error
            taken = a.taken

        def undo() -> None:
            # The run failed after this dequeue: the elements go back to the front.
            with self.cond:
                for element in reversed(taken):
                    self._push_front(element)
                self._flush()

        if taken:
            ctx.on_failure(undo)
        return taken

    def close(self, ctx: Any, cancel_pending_enqueues: bool) -> None:
        """Closes the queue; pending enqueues complete first unless cancelled."""
        with self.cond:
            if cancel_pending_enqueues:
                # TensorFlow's CloseAndCancel: no complaint when closed already.
                self.closed = True
                for a in self.enqueuers:
                    if not a.cancelled and not a.done:
                        a.error = errors.CancelledError(
                            None, None, f"{ENQUEUE_WHAT} was cancelled"
                        )
                        a.done = True
                self.enqueuers.clear()
                self._flush()
                self.cond.notify_all()
                return
            a = _Attempt(close=True)
            self._wait(ctx, a, self.enqueuers, ENQUEUE_WHAT)
            self._flush()  # waiting dequeues see the close
            if a.error is not None:
                raise a.error

    def is_closed(self) -> bool:
        with self.cond:
            return self.closed

    def locked_size(self) -> int:
        with self.cond:
            return self.size()

    def __repr__(self) -> str:
        return (f"<{self.kind} '{self.name}' size={self.size()} "
                f"capacity={self.capacity} closed={self.closed}>")


class FIFOQueue(Queue):
    """First in, first out (TensorFlow's ``fifo_queue.cc``)."""

    kind = "FIFOQueue"

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.items: collections.deque[tuple] = collections.deque()

    def size(self) -> int:
        return len(self.items)

    def _push(self, element: tuple) -> None:
        self.items.append(element)

    def _pop(self) -> tuple:
        return self.items.popleft()

    def _push_front(self, element: tuple) -> None:
        self.items.appendleft(element)

    def _push_many(self, rows: list[tuple]) -> None:
        self.items.extend(rows)

    def _take_into(self, taken: list, n: int) -> None:
        items = self.items
        popleft = items.popleft
        taken.extend(popleft() for _ in range(min(n - len(taken), len(items))))


class PaddingFIFOQueue(FIFOQueue):
    """A FIFO queue whose batches pad unknown dims (``padding_fifo_queue.cc``)."""

    kind = "PaddingFIFOQueue"


class PriorityQueue(Queue):
    """Lowest priority (component 0, int64) first (``priority_queue.cc``)."""

    kind = "PriorityQueue"

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.heap: list = []
        self._seq = itertools.count()

    def size(self) -> int:
        return len(self.heap)

    def _push(self, element: tuple) -> None:
        heapq.heappush(self.heap, (int(element[0]), next(self._seq), element))

    def _pop(self) -> tuple:
        return heapq.heappop(self.heap)[2]

    def _push_front(self, element: tuple) -> None:
        self._push(element)


class RandomShuffleQueue(Queue):
    """A dequeue takes a uniformly random element (``random_shuffle_queue_op.cc``).

    The index is the next 32-bit word of ``PhiloxRandom(seed, seed2)`` modulo the size; the
    last element moves into the slot taken. While open, a dequeue leaves at least
    ``min_after_dequeue`` elements; after close that floor is gone.
    """

    kind = "RandomShuffleQueue"

    def __init__(self, dtypes: list[DType], shapes: list[TensorShape], capacity: int,
                 name: str, min_after_dequeue: int, words: Any):
        super().__init__(dtypes, shapes, capacity, name)
        self.min_after_dequeue = min_after_dequeue
        self.items: list[tuple] = []
        self._words = words  # an iterator of uint32 words (Python ints)

    def size(self) -> int:
        return len(self.items)

    def _can_take(self) -> bool:
        if self.closed:
            return len(self.items) > 0
        return len(self.items) > self.min_after_dequeue

    def _push(self, element: tuple) -> None:
        self.items.append(element)

    def _pop(self) -> tuple:
        items = self.items
        i = next(self._words) % len(items)
        element = items[i]
        last = items.pop()
        if i < len(items):
            items[i] = last
        return element

    def _push_front(self, element: tuple) -> None:
        self.items.append(element)


def split_rows(components: list[np.ndarray], batch: int) -> list[tuple]:
    """The elements of a batch: row ``i`` of every component, as arrays of their own."""
    # One copy of each component; the rows are views of it (NumPy scalars for 1-D ones).
    columns = [list(np.array(c, copy=True)) for c in components]
    return list(zip(*columns, strict=True))[:batch]


def stack(queue: Queue, elements: list[tuple], n_components: int) -> list[np.ndarray]:
    """The components of a dequeued batch ``[n] + shape`` (padded for PaddingFIFOQueue)."""
    out = []
    for k in range(n_components):
        dtype = queue.dtypes[k].np_dtype
        parts = [e[k] for e in elements]  # arrays (split_rows and Enqueue store arrays)
        if not parts:
            dims = queue.shapes[k].dims if queue.shapes else ()
            out.append(np.zeros((0, *[d or 0 for d in dims]), dtype=dtype))
            continue
        if all(p.shape == parts[0].shape for p in parts):
            out.append(np.stack(parts))
            continue
        # PaddingFIFOQueue: pad each unknown dim to the batch's largest.
        big = tuple(max(p.shape[d] for p in parts) for d in range(parts[0].ndim))
        fill = b"" if dtype == np.dtype(object) else 0
        batch = np.full((len(parts), *big), fill, dtype=dtype)
        for i, p in enumerate(parts):
            batch[(i, *[slice(0, s) for s in p.shape])] = p
        out.append(batch)
    return out
