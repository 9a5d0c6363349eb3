"""The TF1 input pipeline helpers (TensorFlow's ``tensorflow/python/training/input.py``).

Producers (``input_producer``, ``string_input_producer``, ``range_input_producer``,
``slice_input_producer``) fill a FIFOQueue with their input once per epoch, shuffled or not;
batchers (``batch``, ``shuffle_batch``, ``batch_join``, ``shuffle_batch_join``) enqueue
single examples (or batches) into a queue and dequeue ``batch_size`` at a time. Each registers
a :class:`~tfmini.train.queue_runner.QueueRunner`, so ``start_queue_runners`` runs their
enqueue ops. ``limit_epochs`` makes the input run out (OutOfRangeError) after ``num_epochs``.

Queue and op names are TensorFlow's (``input_producer/input_producer``, ``batch/fifo_queue``,
``shuffle_batch/random_shuffle_queue``, the dequeue op named after the scope: ``batch``).

Each helper records its queue's fill level with a ``ScalarSummary`` in the ``summaries``
collection, as TensorFlow does: ``fraction_of_<capacity>_full`` (producers, ``batch``,
``batch_join``) or ``fraction_over_<min_after_dequeue>_of_<capacity - min_after_dequeue>_full``
(the shuffling batchers), inside the helper's name scope. ``string_input_producer`` asserts a
non-empty input at run time. Sparse tensors are not supported, nor ``keep_input`` (the
``maybe_*`` variants).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import float32, int64, string
from tfmini.core.graph import Output
from tfmini.core.scope import control_dependencies, name_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.ops import array, control_flow
from tfmini.ops import io as io_family
from tfmini.ops.data_flow import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue
from tfmini.ops.math import cast, greater, maximum
from tfmini.ops.random import random_shuffle
from tfmini.ops.variables import GraphKeys, Variable, count_up_to
from tfmini.train.queue_runner import QueueRunner, add_queue_runner

# ----------------------------------------------------------------------------------------
# Producers


def _fill_summary(name: str, fraction: Output) -> None:
    """The queue's fill level as a scalar summary (``summary.scalar(name, fraction)``)."""
    io_family.summary_ops.scalar(name, fraction)


def limit_epochs(tensor: Any, num_epochs: int | None = None, name: str | None = None) -> Any:
    """Returns ``tensor`` ``num_epochs`` times, then fails with OutOfRangeError.

    A local int64 variable ``epochs`` counts the evaluations (CountUpTo); initialize it with
    ``tm.local_variables_initializer()``.

    Args:
        tensor: Any tensor.
        num_epochs: How many times it may be evaluated; None: no limit.
        name: Optional name scope (default ``limit_epochs``).

    Returns:
        ``tensor`` (an Identity depending on the counter), or ``tensor`` itself when
        ``num_epochs`` is None.

    Raises:
        ValueError: ``num_epochs`` is not positive.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as scope:
        zero64 = convert_to_tensor(0, dtype=int64)
        epochs = Variable(zero64, name="epochs", trainable=False, use_resource=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return array.identity(tensor, name=scope)


def input_producer(input_tensor: Any, element_shape: Any = None, num_epochs: int | None = None,
                   shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                   shared_name: str | None = None, summary_name: str | None = None,
                   name: str | None = None, cancel_op: Any = None) -> QueueBase:
    """A FIFOQueue filled with the rows of ``input_tensor``, once per epoch.

    Args:
        input_tensor: A tensor of rank at least 1; its rows are the elements.
        element_shape: The rows' shape, if not known statically.
        num_epochs: How many times to produce the rows; None: forever.
        shuffle: Shuffle the rows anew each epoch (``random_shuffle``).
        seed: The op seed of the shuffle.
        capacity: The queue's capacity.
        shared_name: If set, the queue is shared under this name.
        summary_name: The name of the fill-level summary (none when None).
        name: Name scope and the queue's name (default ``input_producer``).
        cancel_op: The QueueRunner's cancel op (default: the queue's cancelling close).

    Returns:
        The queue; its QueueRunner is in ``GraphKeys.QUEUE_RUNNERS``.

    Raises:
        ValueError: the row shape is not fully defined.
    """
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        rows = input_tensor.shape
        row_shape = TensorShape(None if rows.dims is None else rows.dims[1:])
        element_shape = (row_shape.merge_with(as_shape(element_shape))
                         if element_shape is not None else row_shape)
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype], shapes=[element_shape],
                      shared_name=shared_name, name=name or "fifo_queue")
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fill_summary(summary_name, cast(q.size(), float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor: Any, num_epochs: int | None = None,
                          shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                          shared_name: str | None = None, name: str | None = None,
                          cancel_op: Any = None) -> QueueBase:
    """A queue of strings (e.g. file names), once per epoch (see :func:`input_producer`).

    Raises:
        ValueError: ``string_tensor`` is empty (a Python list).
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Output) and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=string)
        non_empty = control_flow.Assert(greater(array.size(string_tensor), 0), [not_null_err])
        with control_dependencies([non_empty]):
            string_tensor = array.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, element_shape=[],
                              num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=scope,
                              summary_name=f"fraction_of_{capacity}_full",
                              cancel_op=cancel_op)


def range_input_producer(limit: Any, num_epochs: int | None = None, shuffle: bool = True,
                         seed: int | None = None, capacity: int = 32,
                         shared_name: str | None = None, name: str | None = None) -> QueueBase:
    """A queue of the integers ``0 .. limit-1``, once per epoch (see :func:`input_producer`).
    """
    with name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = array.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list: Sequence[Any], num_epochs: int | None = None,
                         shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                         shared_name: str | None = None, name: str | None = None) -> list:
    """Rows of each tensor of ``tensor_list``, one row index at a time.

    A :func:`range_input_producer` over the first tensor's rows yields the index; each
    output gathers that row.

    Returns:
        One tensor per input: its row at the dequeued index.

    Raises:
        ValueError: ``tensor_list`` is empty.
    """
    with name_scope(name, "input_producer", list(tensor_list)):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array.gather(t, index) for t in tensor_list]


# ----------------------------------------------------------------------------------------
# Batchers


def _as_tensor_list(tensors: Any) -> Any:
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list: Sequence[Any]) -> list:
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
    return [_as_tensor_list(tensors) for tensors in tensors_list]


def _as_original_type(original: Any, tensor_list: Any) -> Any:
    if isinstance(original, dict):
        if len(original) == 1:
            tensor_list = [tensor_list]  # a single component dequeues as one tensor
        return {k: tensor_list[i] for i, k in enumerate(sorted(original, key=str))}
    return tensor_list


def _validate(tensor_list: Any) -> list[Output]:
    if isinstance(tensor_list, (Output, Variable)) or not isinstance(tensor_list, (list, tuple)):
        tensor_list = [tensor_list]
    tensor_list = [convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list: list) -> list:
    tensor_list_list = [[convert_to_tensor(t) for t in tl] for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _dtypes(tensor_list_list: list) -> list:
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other in all_types[1:]:
        if other != types:
            raise TypeError(f"Expected types to be consistent: {types} vs. {other}.")
    return types


def _shapes(tensor_list_list: list, shapes: Any, enqueue_many: bool) -> Any:
    """The queue's component shapes: given, or the first input's static shapes (without the
    batch dim when ``enqueue_many``), as TensorFlow infers them."""
    if shapes is not None:
        return shapes
    for tl in tensor_list_list:
        for t in tl:
            if t.shape.dims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {t}")
    out = []
    for t in tensor_list_list[0]:
        dims = list(t.shape.dims)
        if enqueue_many:
            if not dims:
                raise ValueError(f"Shape {t.shape} must have rank at least 1")
            dims = dims[1:]
        out.append(dims)
    return out


def _enqueue(queue: QueueBase, tensor_list: list, threads: int, enqueue_many: bool) -> None:
    fn = queue.enqueue_many if enqueue_many else queue.enqueue
    # TensorFlow runs the same op in every thread.
    add_queue_runner(QueueRunner(queue, [fn(tensor_list)] * threads))


def _enqueue_join(queue: QueueBase, tensor_list_list: list, enqueue_many: bool) -> None:
    fn = queue.enqueue_many if enqueue_many else queue.enqueue
    add_queue_runner(QueueRunner(queue, [fn(tl) for tl in tensor_list_list]))


def _dequeue(queue: QueueBase, batch_size: Any, allow_smaller_final_batch: bool,
             name: str) -> Any:
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _which_queue(dynamic_pad: bool) -> type:
    return PaddingFIFOQueue if dynamic_pad else FIFOQueue


def batch(tensors: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32,
          enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
          allow_smaller_final_batch: bool = False, shared_name: str | None = None,
          name: str | None = None) -> Any:
    """Batches ``tensors`` through a FIFOQueue (``batch/fifo_queue``) filled by
    ``num_threads`` threads running the same enqueue op.

    Args:
        tensors: A list or dict of tensors (one example, or a batch with ``enqueue_many``).
        batch_size: Elements per dequeued batch.
        num_threads: Enqueue threads.
        capacity: The queue's capacity.
        enqueue_many: ``tensors`` are batches (enqueued row by row).
        shapes: The examples' shapes (default: inferred from ``tensors``).
        dynamic_pad: Use a PaddingFIFOQueue (pads unknown dims per batch).
        allow_smaller_final_batch: Dequeue with ``dequeue_up_to`` (a smaller last batch).
        shared_name: If set, the queue is shared under this name.
        name: Name scope, and the name of the dequeue op (default ``batch``).

    Returns:
        The batched tensors, in the structure of ``tensors``.
    """
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list)) as scope:
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many)
        _fill_summary(f"fraction_of_{capacity}_full",
                      cast(queue.size(), float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors, dequeued)


def batch_join(tensors_list: Sequence[Any], batch_size: Any, capacity: int = 32,
               enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
               allow_smaller_final_batch: bool = False, shared_name: str | None = None,
               name: str | None = None) -> Any:
    """Like :func:`batch`, with one enqueue op (and thread) per tensor list of
    ``tensors_list`` (all with the same types)."""
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", [t for tl in tensor_list_list for t in tl]) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many)
        _fill_summary(f"fraction_of_{capacity}_full",
                      cast(queue.size(), float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors_list[0], dequeued)


def shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                  num_threads: int = 1, seed: int | None = None, enqueue_many: bool = False,
                  shapes: Any = None, allow_smaller_final_batch: bool = False,
                  shared_name: str | None = None, name: str | None = None) -> Any:
    """Batches ``tensors`` in random order through a RandomShuffleQueue
    (``shuffle_batch/random_shuffle_queue``).

    Args:
        tensors: A list or dict of tensors.
        batch_size: Elements per dequeued batch.
        capacity: The queue's capacity.
        min_after_dequeue: The fewest elements left after a dequeue (the mixing pool).
        num_threads: Enqueue threads.
        seed: The queue's op seed.
        enqueue_many: ``tensors`` are batches.
        shapes: The examples' shapes (default: inferred).
        allow_smaller_final_batch: Dequeue with ``dequeue_up_to``.
        shared_name: If set, the queue is shared under this name.
        name: Name scope, and the dequeue op's name (default ``shuffle_batch``).

    Returns:
        The batched tensors, in the structure of ``tensors``.

    Raises:
        ValueError: ``capacity <= min_after_dequeue``.
    """
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list)) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many)
        _fill_summary(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}"
                      "_full", cast(maximum(0, queue.size() - min_after_dequeue), float32)
                      * (1.0 / (capacity - min_after_dequeue)))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors, dequeued)


def shuffle_batch_join(tensors_list: Sequence[Any], batch_size: Any, capacity: int,
                       min_after_dequeue: int, seed: int | None = None,
                       enqueue_many: bool = False, shapes: Any = None,
                       allow_smaller_final_batch: bool = False,
                       shared_name: str | None = None, name: str | None = None) -> Any:
    """Like :func:`shuffle_batch`, with one enqueue op (and thread) per tensor list."""
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "shuffle_batch_join",
                    [t for tl in tensor_list_list for t in tl]) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many)
        _fill_summary(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}"
                      "_full", cast(maximum(0, queue.size() - min_after_dequeue), float32)
                      * (1.0 / (capacity - min_after_dequeue)))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(tensors_list[0], dequeued)


__all__ = [
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
]
