"""The queue ops, with TensorFlow 2.21's signatures (``tensorflow/core/ops/data_flow_ops.cc``).

Resource-handle forms (``FIFOQueueV2``, ``QueueEnqueueV2``, ...), which the Python classes
build, and the TF1 ref-handle forms (``FIFOQueue``, ``QueueEnqueue``, ...). The kernels find
the queue (``queue_state``) by handle and check the components against it; the queue does
the rest. Enqueues, dequeues and a close that waits behind pending enqueues are blocking
ops: they wait without stalling the rest of the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from attrs import frozen

from tfmini import errors
from tfmini.core.dtypes import int64, tf_type_name
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, resource_manager_of
from tfmini.ops.data_flow.queue_state import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    Queue,
    RandomShuffleQueue,
    queue_display_name,
    split_rows,
    stack,
)
from tfmini.ops.random import blocks as philox_blocks
from tfmini.ops.random import key_counter_from_seeds as philox_key_counter

# ----------------------------------------------------------------------------------------
# Handles


@frozen(repr=False)
class QueueRef:
    """The value of a ref-style queue handle (TensorFlow's ``Ref(string)`` output).

    Attributes:
        device: The device whose resource manager holds the queue.
        container: The resource container (``""`` is TensorFlow's ``localhost``).
        name: The key the queue is found by.
    """

    device: str
    container: str
    name: str

    def _tm_deref(self) -> np.ndarray:
        return np.array([self.container or "localhost", self.name], dtype=object)

    def __repr__(self) -> str:
        return f"<tm.QueueRef '{self.container or 'localhost'}/{self.name}'>"


def _lookup(ctx: Any, handle: Any) -> Queue:
    if isinstance(handle, np.ndarray) and handle.shape == () and handle.dtype == object:
        handle = handle.item()
    if not isinstance(handle, (QueueRef, ResourceHandle)):
        raise invalid_argument(
            f"Expected a queue handle, got {type(handle).__name__}: {handle!r:.80}"
        )
    queue = resource_manager_of(ctx, handle).lookup(handle.container, handle.name)
    where = f"{handle.container or 'localhost'}/{handle.name}"
    if queue is None:
        raise errors.NotFoundError(None, None, f"Resource {where} (queue) does not exist.")
    if not isinstance(queue, Queue):
        raise invalid_argument(
            f"Trying to access resource {where} as a QueueInterface, but it holds a "
            f"{type(queue).__name__}"
        )
    return queue


def _philox_words(seed: int, seed2: int) -> Iterator[int]:
    """TensorFlow's ``PhiloxRandom(seed, seed2)`` read one 32-bit word at a time."""
    if seed == 0 and seed2 == 0:
        # TensorFlow's kernel then draws fresh seeds (random::New64).
        seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
    key, base = philox_key_counter(seed, seed2)
    block = 0
    while True:
        chunk = philox_blocks(key, base + block, 64)
        block += 64
        yield from chunk.reshape(-1).tolist()


# ----------------------------------------------------------------------------------------
# FIFOQueueV2, PaddingFIFOQueueV2, PriorityQueueV2, RandomShuffleQueueV2 (and ref forms)

_COMMON = ["capacity: int = -1", "container: string = ''", "shared_name: string = ''"]


def _handle_shape(ref: bool) -> Callable:
    def fn(ic):
        # TensorFlow: a ref handle is two strings, a resource handle a scalar.
        return [TensorShape((2,)) if ref else TensorShape(())]

    return fn


def _create_kernel(op_type: str, cls: type, ref: bool) -> Callable:
    kind = cls.kind

    def kernel(ctx, *, component_types, shapes, capacity, container, shared_name, node,
               **extra):
        shapes = [as_shape(s) for s in shapes]
        if cls is FIFOQueue or cls is RandomShuffleQueue:
            for s in shapes:
                if not s.is_fully_defined():
                    raise invalid_argument(f"All shapes must be fully defined: {s.tf_str()}")
        if shapes and len(shapes) != len(component_types):
            raise invalid_argument(
                f"All of the component types and shapes must be specified; got "
                f"{len(component_types)} types and {len(shapes)} shapes"
            )
        dtypes = list(component_types)
        if cls is PriorityQueue:
            dtypes = [int64, *dtypes]
            shapes = [TensorShape(()), *shapes]
        key = shared_name or node.name

        def make() -> Queue:
            name = queue_display_name(shared_name, node.name)
            if cls is RandomShuffleQueue:
                mad = extra["min_after_dequeue"]
                words = _philox_words(extra["seed"], extra["seed2"])
                return cls(dtypes, shapes, capacity, name, mad, words)
            return cls(dtypes, shapes, capacity, name)

        queue = ctx.resource_manager.lookup_or_create(container, key, make)
        if not isinstance(queue, Queue) or queue.kind != kind:
            found = getattr(queue, "kind", type(queue).__name__)
            raise invalid_argument(
                f"Shared queue '{key}' has type '{found}' that does not match type of Node "
                f"'{node.name}': {op_type}"
            )
        if queue.dtypes != dtypes:
            raise invalid_argument(
                f"Shared queue '{queue.name}' has component types "
                f"{_types(queue.dtypes)} but requested component types were {_types(dtypes)}"
            )
        if ref:
            return QueueRef(ctx.device, container, key)
        return ResourceHandle(ctx.device, container, key, None, None)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _types(dtypes) -> str:
    return ", ".join(tf_type_name(d) for d in dtypes)


_QUEUE_KINDS = (
    ("FIFOQueue", FIFOQueue, ["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []"],
     "A queue that produces elements in first-in first-out order."),
    ("PaddingFIFOQueue", PaddingFIFOQueue,
     ["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []"],
     "A FIFO queue whose DequeueMany pads each component's unknown dims to the largest."),
    ("PriorityQueue", PriorityQueue,
     ["component_types: list(type) >= 0 = []", "shapes: list(shape) >= 0"],
     "A queue that produces elements sorted by the first (int64) component, lowest first."),
    ("RandomShuffleQueue", RandomShuffleQueue,
     ["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []",
      "min_after_dequeue: int = 0", "seed: int = 0", "seed2: int = 0"],
     "A queue that randomizes the order of elements."),
)

for _name, _cls, _attrs, _doc in _QUEUE_KINDS:
    for _ref in (True, False):
        _type = _name if _ref else f"{_name}V2"
        register_op(
            _type,
            outputs=["handle: Ref(string)" if _ref else "handle: resource"],
            attrs=[*_attrs, *_COMMON],
            shape_fn=_handle_shape(_ref),
            stateful=True,
            doc=_doc,
        )(_create_kernel(_type, _cls, _ref))


# ----------------------------------------------------------------------------------------
# QueueEnqueue(V2), QueueEnqueueMany(V2)


def _kind(ref: bool) -> str:
    return "string_ref" if ref else "resource"


def _check_enqueue(queue: Queue, types: list, ref: bool, many: bool) -> None:
    if list(types) != queue.dtypes:
        have = ", ".join([_kind(ref), *(_name_of(d) for d in types)])
        want = ", ".join([_kind(ref), *(_name_of(d) for d in queue.dtypes)])
        raise invalid_argument(f"Signature mismatch, have: {have}-> expected: {want}->")


def _name_of(dtype) -> str:
    return tf_type_name(dtype)


def _enqueue_kernel(op_type: str, ref: bool, many: bool) -> Callable:
    def kernel(ctx, handle, components, *, Tcomponents):
        queue = _lookup(ctx, handle)
        _check_enqueue(queue, Tcomponents, ref, many)
        comps = [np.asarray(c) for c in components]
        if many:
            batch = queue.validate_many(comps)
            rows = split_rows(comps, batch)
        else:
            queue.validate(comps)
            rows = [tuple(np.array(c, copy=True) for c in comps)]
        queue.enqueue(ctx, rows)

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


for _ref in (True, False):
    for _many in (False, True):
        _type = "QueueEnqueueMany" if _many else "QueueEnqueue"
        _type = _type if _ref else f"{_type}V2"
        register_op(
            _type,
            inputs=["handle: Ref(string)" if _ref else "handle: resource",
                    "components: Tcomponents"],
            attrs=["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"],
            shape_fn=shape_fns.no_outputs,
            stateful=True,
            blocking=True,
            doc=("Enqueues zero or more elements, sliced from the components' 0th dimension; "
                 "waits for room." if _many else
                 "Enqueues one element (a tuple of components); waits for room."),
        )(_enqueue_kernel(_type, _ref, _many))


# ----------------------------------------------------------------------------------------
# QueueDequeue(V2), QueueDequeueMany(V2), QueueDequeueUpTo(V2)


def _check_dequeue(queue: Queue, types: list, ref: bool, many: bool) -> None:
    if list(types) != queue.dtypes:
        head = f"{_kind(ref)}, int32" if many else _kind(ref)
        have = ", ".join(_name_of(d) for d in types)
        want = ", ".join(_name_of(d) for d in queue.dtypes)
        raise invalid_argument(
            f"Signature mismatch, have: {head}->{have} expected: {head}->{want}"
        )


def _dequeue_kernel(op_type: str, ref: bool) -> Callable:
    def kernel(ctx, handle, *, component_types):
        queue = _lookup(ctx, handle)
        _check_dequeue(queue, component_types, ref, many=False)
        (element,) = queue.dequeue(ctx, 1)
        return [np.asarray(c) for c in element]

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _dequeue_many_kernel(op_type: str, ref: bool, up_to: bool) -> Callable:
    what = "DequeueUpTo" if up_to else "DequeueMany"

    def kernel(ctx, handle, n, *, component_types):
        queue = _lookup(ctx, handle)
        _check_dequeue(queue, component_types, ref, many=True)
        n = np.asarray(n)
        if n.ndim != 0:
            raise invalid_argument(f"Argument n must be scalar, but had bad shape "
                                   f"{dims_str(n.shape)}")
        count = int(n)
        if count < 0:
            raise invalid_argument(f"{what}Op requested {count} < 0 elements")
        if not queue.shapes:
            raise invalid_argument(
                f"{queue.kind}'s DequeueMany and DequeueUpTo require the components to have "
                "specified shapes."
            )
        if count == 0:
            return stack(queue, [], len(queue.dtypes))
        elements = queue.dequeue(ctx, count, up_to=up_to)
        return stack(queue, elements, len(queue.dtypes))

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


def _components_shape(ic):
    return [unknown_shape() for _ in ic.attrs["component_types"]]


def _many_shape(ic):
    shape_fns.with_rank(ic.input_shape(1), 0)
    return [unknown_shape() for _ in ic.attrs["component_types"]]


for _ref in (True, False):
    _handle = "handle: Ref(string)" if _ref else "handle: resource"
    _sfx = "" if _ref else "V2"
    register_op(
        f"QueueDequeue{_sfx}",
        inputs=[_handle],
        outputs=["components: component_types"],
        attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
        shape_fn=_components_shape,
        stateful=True,
        blocking=True,
        doc="Dequeues one element; waits while the queue is empty.",
    )(_dequeue_kernel(f"QueueDequeue{_sfx}", _ref))
    for _up_to in (False, True):
        _type = ("QueueDequeueUpTo" if _up_to else "QueueDequeueMany") + _sfx
        register_op(
            _type,
            inputs=[_handle, "n: int32"],
            outputs=["components: component_types"],
            attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
            shape_fn=_many_shape,
            stateful=True,
            blocking=True,
            doc=("Dequeues n elements, concatenated along a new 0th dimension; once the queue "
                 "is closed, returns fewer if at least one is left." if _up_to else
                 "Dequeues n elements, concatenated along a new 0th dimension; waits for "
                 "them."),
        )(_dequeue_many_kernel(_type, _ref, _up_to))


# ----------------------------------------------------------------------------------------
# QueueClose(V2), QueueSize(V2), QueueIsClosed(V2)


def _close_kernel(ctx, handle, *, cancel_pending_enqueues):
    """Closes the queue: no more enqueues; dequeues drain it, then fail with OutOfRange."""
    _lookup(ctx, handle).close(ctx, cancel_pending_enqueues)


def _size_kernel(ctx, handle):
    """The number of elements in the queue."""
    return np.int32(_lookup(ctx, handle).locked_size())


def _is_closed_kernel(ctx, handle):
    """Whether the queue is closed."""
    return np.bool_(_lookup(ctx, handle).is_closed())


for _ref in (True, False):
    _handle = "handle: Ref(string)" if _ref else "handle: resource"
    _sfx = "" if _ref else "V2"
    register_op(
        f"QueueClose{_sfx}",
        inputs=[_handle],
        attrs=["cancel_pending_enqueues: bool = false"],
        shape_fn=shape_fns.no_outputs,
        stateful=True,
        blocking=True,  # a plain close waits behind the pending enqueues
    )(_close_kernel)
    register_op(
        f"QueueSize{_sfx}",
        inputs=[_handle],
        outputs=["size: int32"],
        shape_fn=shape_fns.scalar,
        stateful=True,
    )(_size_kernel)
    register_op(
        f"QueueIsClosed{_sfx}",
        inputs=[_handle],
        outputs=["is_closed: bool"],
        shape_fn=shape_fns.scalar,
        stateful=True,
    )(_is_closed_kernel)


# TensorFlow registers no gradient for any queue op.
for _name, _cls, _attrs, _doc in _QUEUE_KINDS:
    no_gradient(_name)
    no_gradient(f"{_name}V2")
for _base in ("QueueEnqueue", "QueueEnqueueMany", "QueueDequeue", "QueueDequeueMany",
              "QueueDequeueUpTo", "QueueClose", "QueueSize", "QueueIsClosed"):
    no_gradient(_base)
    no_gradient(f"{_base}V2")
