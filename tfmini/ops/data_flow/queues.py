"""Queues: the ``tf.compat.v1`` classes :class:`FIFOQueue`, :class:`PaddingFIFOQueue`,
:class:`PriorityQueue`, :class:`RandomShuffleQueue` and their base :class:`QueueBase`.

They build the resource-handle ops (``FIFOQueueV2``, ``QueueEnqueueV2``, ...) with the names
TensorFlow's ``tensorflow/python/ops/data_flow_ops.py`` gives them (``fifo_queue``,
``fifo_queue_enqueue``, ``fifo_queue_DequeueMany``, ...) and check dtypes and static shapes
at build time as it does. docs/queues.md describes the run-time semantics.

Example::

    q = tm.FIFOQueue(10, [tm.int32, tm.float32], shapes=[[], [2]])
    enq = q.enqueue_many([[1, 2], [[1.0, 2.0], [3.0, 4.0]]])
    a, b = q.dequeue()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, int32, int64
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops import array
from tfmini.ops.common.build_util import constant_value
from tfmini.ops.data_flow import queue_ops  # noqa: F401  (registers the queue ops)
from tfmini.ops.random import get_seed


def _as_type_list(dtypes: Any) -> list[DType]:
    if isinstance(dtypes, (list, tuple)):
        return [as_dtype(d) for d in dtypes]
    return [as_dtype(dtypes)]


def _as_shape_list(shapes: Any, dtypes: list[DType], unknown_dim_allowed: bool = False,
                   unknown_rank_allowed: bool = False) -> list[TensorShape]:
    """One shape per component, as TensorFlow's ``_as_shape_list`` reads ``shapes``: a list
    of ints and Nones (even an empty one) is a single shape; None means not specified."""
    del dtypes
    if unknown_dim_allowed and (
        not isinstance(shapes, (list, tuple)) or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return []
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        f"got {type(shapes)}")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {_shapes_repr(shapes)}")
    if not unknown_rank_allowed and any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {_shapes_repr(shapes)}")
    return shapes


def _shapes_repr(shapes: list[TensorShape]) -> str:
    # TF1's repr (Dimension objects), as TensorFlow prints it after disable_v2_behavior.
    def one(s: TensorShape) -> str:
        if s.dims is None:
            return "TensorShape(None)"
        return "TensorShape([" + ", ".join(f"Dimension({d})" for d in s.dims) + "])"

    return "[" + ", ".join(one(s) for s in shapes) + "]"


def _rank_at_least_1(shape: TensorShape) -> list:
    """TensorFlow's ``with_rank_at_least(1)`` (the dims as a list), with its message."""
    if shape.dims is None:
        return [None]
    if len(shape.dims) < 1:
        raise ValueError(f"Shape {shape} must have rank at least 1")
    return list(shape.dims)


def _merge_dim(a: int | None, b: int | None) -> int | None:
    """TensorFlow's ``Dimension.merge_with``, with its message."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")
    return a if a is not None else b


def _as_name_list(names: Any, dtypes: list[DType]) -> list[str] | None:
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes, "
                         f"received len(names)={len(names)},len(dtypes)={len(dtypes)}")
    return list(names)


class QueueBase:
    """Base class for queue implementations (``tf.compat.v1.QueueBase``).

    A queue holds tuples of tensors (its components, each with a dtype and optionally a
    shape); its ops enqueue and dequeue them. Build a subclass instead of this class.

    Args:
        dtypes: The component types.
        shapes: The component shapes (``[]``: not specified).
        names: Component names (enqueue and dequeue then use dicts), or None.
        queue_ref: The queue's handle.

    Raises:
        ValueError: the lengths of dtypes, shapes and names differ.
    """

    def __init__(self, dtypes: Sequence[DType], shapes: Sequence[TensorShape], names: Any,
                 queue_ref: Output):
        self._dtypes = list(dtypes)
        if shapes:
            if len(shapes) != len(self._dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    f"len(shapes)={len(shapes)}, len(dtypes)={len(self._dtypes)}")
            self._shapes = [as_shape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(self._dtypes):
                raise ValueError(
                    "Queue names must have the same length as dtypes, received "
                    f"len(names)={len(names)}, len(dtypes)={len(self._dtypes)}")
            self._names = list(names)
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index: Any, queues: Sequence[QueueBase]) -> QueueBase:
        """A queue that is ``queues[index]`` at run time (all must have the same dtypes,
        shapes and names).

        Args:
            index: An int32 scalar tensor choosing the queue.
            queues: The queues to choose from.

        Returns:
            A QueueBase whose handle is the chosen queue's.

        Raises:
            TypeError: ``queues`` is empty or holds something else than queues.
            ValueError: the queues' dtypes, names or shapes differ.
        """
        if not queues or not all(isinstance(x, QueueBase) for x in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [s.dims for s in queues[0].shapes]
        if not all(shapes == [s.dims for s in q.shapes] for q in queues[1:]):
            raise TypeError("Queues do not have matching component shapes.")
        refs = [q.queue_ref for q in queues]
        selected = array.gather(array.stack(refs), index)
        return QueueBase(dtypes=dtypes, shapes=queues[0].shapes, names=names,
                         queue_ref=selected)

    # -- properties -----------------------------------------------------------------------
    @property
    def queue_ref(self) -> Output:
        """The underlying queue handle."""
        return self._queue_ref

    @property
    def name(self) -> str:
        """The name of the underlying queue op."""
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list[DType]:
        """The component types."""
        return self._dtypes

    @property
    def shapes(self) -> list[TensorShape]:
        """The component shapes (unknown when not specified)."""
        return self._shapes

    @property
    def names(self) -> list[str] | None:
        """The component names, or None."""
        return self._names

    # -- building -------------------------------------------------------------------------
    def _check_enqueue_dtypes(self, vals: Any) -> list[Output]:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  "
                    f"Dictionary: {sorted(vals.keys())},Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        # zip stops at the shorter: too few values fail at run time, as in TensorFlow.
        return [convert_to_tensor(v, dtype=d, name=f"component_{i}")
                for i, (v, d) in enumerate(zip(vals, self._dtypes, strict=False))]

    def _op(self, op_type: str, inputs: list, attrs: dict | None, name: str):
        return build_op(current_scope(), op_type, [self._queue_ref, *inputs], attrs, name=name)

    def enqueue(self, vals: Any, name: str | None = None):
        """Enqueues one element (its components ``vals``); the op waits for room.

        Args:
            vals: A tensor, a list or tuple of tensors, or a dict (for a queue with names).
            name: Op name; default ``<queue>_enqueue``.

        Returns:
            The enqueue Operation.

        Raises:
            TypeError: a value cannot become its component's dtype.
            ValueError: a static shape conflicts with its component's shape.
        """
        with name_scope(name, f"{self._name}_enqueue") as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes, strict=False):
                val.shape.assert_is_compatible_with(shape)
            return self._op("QueueEnqueueV2", [vals], None, scope)

    def enqueue_many(self, vals: Any, name: str | None = None):
        """Enqueues the elements sliced from ``vals``' 0th dimension (all the same size).

        Args:
            vals: Tensors of rank at least 1 (a list or tuple, or a dict by name).
            name: Op name; default ``<queue>_EnqueueMany``.

        Returns:
            The enqueue Operation.

        Raises:
            ValueError: a value is a scalar, the batch sizes differ, or a static shape
                conflicts with its component's shape.
        """
        with name_scope(name, f"{self._name}_EnqueueMany") as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = _rank_at_least_1(vals[0].shape)[0]
            for val, shape in zip(vals, self._shapes, strict=False):
                val_shape = _rank_at_least_1(val.shape)
                batch_dim = _merge_dim(batch_dim, val_shape[0])
                if val.shape.dims is not None:
                    TensorShape(val_shape[1:]).assert_is_compatible_with(shape)
            return self._op("QueueEnqueueManyV2", [vals], None, scope)

    def _dequeue_return_value(self, tensors: list[Output]) -> Any:
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name: str | None = None) -> Any:
        """Dequeues one element; the op waits while the queue is empty.

        Once the queue is closed and empty it fails with OutOfRangeError.

        Args:
            name: Op name; default ``<queue>_Dequeue``.

        Returns:
            The component tensor (one component), a list of them, or a dict by name.
        """
        if name is None:
            name = f"{self._name}_Dequeue"
        op = self._op("QueueDequeueV2", [], {"component_types": self._dtypes}, name)
        outs = list(op.outputs)
        for out, shape in zip(outs, self._shapes, strict=True):
            out.set_shape(shape)
        return self._dequeue_return_value(outs)

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        """Dequeues ``n`` elements, concatenated along a new 0th dimension.

        Waits until ``n`` are there; once the queue is closed with fewer it fails with
        OutOfRangeError and leaves them in the queue.

        Args:
            n: The number of elements (int32 scalar).
            name: Op name; default ``<queue>_DequeueMany``.

        Returns:
            Tensors of shape ``[n] + component shape``.
        """
        if name is None:
            name = f"{self._name}_DequeueMany"
        op = self._op("QueueDequeueManyV2", [convert_to_tensor(n, int32)],
                      {"component_types": self._dtypes}, name)
        value = constant_value(op.inputs[1])
        batch = TensorShape((None if value is None else int(value),))
        outs = list(op.outputs)
        for out, shape in zip(outs, self._shapes, strict=True):
            out.set_shape(batch.concatenate(shape))
        return self._dequeue_return_value(outs)

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        """Like :meth:`dequeue_many`, but once the queue is closed returns what is left
        (at least one element) instead of failing.

        Args:
            n: The most elements to dequeue (int32 scalar).
            name: Op name; default ``<queue>_DequeueUpTo``.

        Returns:
            Tensors of shape ``[None] + component shape``.
        """
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        op = self._op("QueueDequeueUpToV2", [convert_to_tensor(n, int32)],
                      {"component_types": self._dtypes}, name)
        outs = list(op.outputs)
        for out, shape in zip(outs, self._shapes, strict=True):
            out.set_shape(TensorShape((None,)).concatenate(shape))
        return self._dequeue_return_value(outs)

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None):
        """Closes the queue: later enqueues fail; dequeues drain what is left.

        Args:
            cancel_pending_enqueues: Fail the enqueues waiting for room (else they complete
                first, and the close waits for them).
            name: Op name; default ``<queue>_Close``.

        Returns:
            The close Operation.
        """
        if name is None:
            name = f"{self._name}_Close"
        return self._op("QueueCloseV2", [],
                        {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}, name)

    def is_closed(self, name: str | None = None) -> Output:
        """A bool scalar: whether the queue is closed (name default ``<queue>_Is_Closed``)."""
        if name is None:
            name = f"{self._name}_Is_Closed"
        return self._op("QueueIsClosedV2", [], None, name).outputs[0]

    def size(self, name: str | None = None) -> Output:
        """An int32 scalar: the number of elements (name default ``<queue>_Size``)."""
        if name is None:
            name = f"{self._name}_Size"
        return self._op("QueueSizeV2", [], None, name).outputs[0]


def _build_queue(op_type: str, attrs: dict, name: str) -> Output:
    return build_op(current_scope(), op_type, [], attrs, name=name).outputs[0]


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order (``tf.compat.v1``).

    Args:
        capacity: The most elements it holds (enqueues wait for room); -1: no limit.
        dtypes: The component types.
        shapes: The component shapes (fully defined), or None (then dequeue_many fails).
        names: Component names, or None.
        shared_name: If non-empty, queues built with this name share state.
        name: Name of the queue op.

    Raises:
        ValueError: a shape is not fully defined, or names/shapes do not match dtypes.
    """

    def __init__(self, capacity: int, dtypes: Any, shapes: Any = None, names: Any = None,
                 shared_name: str | None = None, name: str = "fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = _build_queue("FIFOQueueV2", {
            "component_types": dtypes, "shapes": shapes, "capacity": capacity,
            "shared_name": shared_name or "",
        }, name)
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads unknown dims with zeros (``tf.compat.v1``).

    Args:
        capacity: The most elements it holds; -1: no limit.
        dtypes: The component types.
        shapes: The component shapes (required; None dims are padded per batch).
        names: Component names, or None.
        shared_name: If non-empty, queues built with this name share state.
        name: Name of the queue op.

    Raises:
        ValueError: ``shapes`` does not have one (known-rank) shape per component.
    """

    def __init__(self, capacity: int, dtypes: Any, shapes: Any, names: Any = None,
                 shared_name: str | None = None, name: str = "padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, but received "
                f"{len(dtypes)} dtypes and {len(shapes)} shapes."
            )
        ref = _build_queue("PaddingFIFOQueueV2", {
            "component_types": dtypes, "shapes": shapes, "capacity": capacity,
            "shared_name": shared_name or "",
        }, name)
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues the element with the lowest priority first (``tf.compat.v1``).

    Each element is ``(priority, *components)`` with an int64 scalar priority first; the
    order among equal priorities is not specified.

    Args:
        capacity: The most elements it holds; -1: no limit.
        types: The component types (without the priority).
        shapes: The component shapes (required, fully defined).
        names: Component names, or None.
        shared_name: If non-empty, queues built with this name share state.
        name: Name of the queue op.
    """

    def __init__(self, capacity: int, types: Any, shapes: Any, names: Any = None,
                 shared_name: str | None = None, name: str = "priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        ref = _build_queue("PriorityQueueV2", {
            "component_types": types, "shapes": shapes, "capacity": capacity,
            "shared_name": shared_name or "",
        }, name)
        priority_dtypes = [int64, *types]
        priority_shapes = [TensorShape(()), *shapes] if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues a uniformly random element (``tf.compat.v1``).

    While open, a dequeue waits until more than ``min_after_dequeue`` elements are in, so
    the mix stays good; once closed, the rest drains. The order is TensorFlow's for the same
    seeds (``get_seed(seed)``; no seeds at all: a nondeterministic order).

    Args:
        capacity: The most elements it holds; -1: no limit.
        min_after_dequeue: The fewest elements a dequeue leaves while open.
        dtypes: The component types.
        shapes: The component shapes (fully defined), or None.
        names: Component names, or None.
        seed: The op seed (combined with the graph seed as ``tm.random`` does).
        shared_name: If non-empty, queues built with this name share state.
        name: Name of the queue op.
    """

    def __init__(self, capacity: int, min_after_dequeue: int, dtypes: Any, shapes: Any = None,
                 names: Any = None, seed: int | None = None, shared_name: str | None = None,
                 name: str = "random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        ref = _build_queue("RandomShuffleQueueV2", {
            "component_types": dtypes, "shapes": shapes, "capacity": capacity,
            "min_after_dequeue": min_after_dequeue, "seed": seed1, "seed2": seed2,
            "shared_name": shared_name or "",
        }, name)
        super().__init__(dtypes, shapes, names, ref)


__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]
