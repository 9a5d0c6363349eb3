"""Iterator ops: ``OneShotIterator``, ``IteratorV2``, ``MakeIterator``, ``IteratorGetNext``
(``tensorflow/core/kernels/data/iterator_ops.cc``).

An iterator is a resource in the session's resource manager, named by its op (or by its
``shared_name``). ``MakeIterator`` gives it a fresh pipeline over the dataset value it receives;
as the dataset ops run again in that run, every initialisation starts from a re-created
dataset. A new Session has new resources, so it starts again too.
"""

from __future__ import annotations

import threading

import numpy as np

from tfmini import errors
from tfmini.core.dtypes import variant
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.resources import ResourceHandle, as_handle, resource_manager_of
from tfmini.ops.data import pipeline as p

__all__: list[str] = []

NOT_INITIALIZED = (
    "GetNext() failed because the iterator has not been initialized. Ensure that you have run "
    "the initializer operation for this iterator before getting the next element."
)


class IteratorResource:
    """The state of one iterator: its element generator and the elements given back by runs
    that failed after taking them (handed out again first, so a failed run loses nothing)."""

    def __init__(self, output_types, output_shapes):
        self.output_types = list(output_types)
        self.output_shapes = list(output_shapes)
        self.env = p.Env()
        self.elements = None
        self.returned: list = []
        self.error: BaseException | None = None
        self.lock = threading.Lock()

    def reset(self, dataset: p.DatasetValue) -> None:
        self.elements = dataset.iterate(self.env)
        self.returned = []
        self.error = None

    def get_next(self, ctx):
        with self.lock:
            if self.elements is None:
                raise errors.FailedPreconditionError(None, None, NOT_INITIALIZED)
            if self.returned:
                element = self.returned.pop()
            else:
                if self.error is not None:
                    raise self.error
                self.env.ctx = ctx
                try:
                    element = next(self.elements, None)
                except errors.OpError as e:
                    # A Python generator that raised is finished: later calls see the error.
                    self.error = e
                    raise
                finally:
                    self.env.ctx = None
                if element is None:
                    raise errors.OutOfRangeError(None, None, "End of sequence")
        ctx.on_failure(lambda: self._give_back(element))
        return element

    def _give_back(self, element) -> None:
        with self.lock:
            self.returned.append(element)


def _iterator_of(ctx, handle, output_types=None, output_shapes=None) -> IteratorResource:
    h = as_handle(handle)
    rm = resource_manager_of(ctx, h)
    res = rm.lookup(h.container, h.name)
    if res is None:
        if output_types is None:
            raise errors.NotFoundError(None, None, f"Iterator resource {h.name} does not exist")
        res = rm.lookup_or_create(h.container, h.name,
                                  lambda: IteratorResource(output_types, output_shapes))
    if not isinstance(res, IteratorResource):
        raise invalid_argument(f"Resource {h.name} is a {type(res).__name__}, not an iterator")
    return res


_ITER_ATTRS = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]


@register_op(
    "IteratorV2",
    outputs=["handle: resource"],
    attrs=["shared_name: string", "container: string", *_ITER_ATTRS],
    shape_fn=shape_fns.scalar,
    stateful=True,
)
def iterator_v2(ctx, *, shared_name, container, output_types, output_shapes, node):
    """A handle to the iterator (created uninitialised on first use)."""
    handle = ResourceHandle(ctx.device, container, shared_name or node.name, variant,
                            TensorShape(()))
    _iterator_of(ctx, handle, output_types, output_shapes)
    return handle


@register_op(
    "OneShotIterator",
    outputs=["handle: resource"],
    attrs=["dataset_factory: func", *_ITER_ATTRS, "container: string = ''",
           "shared_name: string = ''"],
    shape_fn=shape_fns.scalar,
    stateful=True,
)
def one_shot_iterator(ctx, *, dataset_factory, container, shared_name, output_types,
                      output_shapes, node):
    """A handle to an iterator initialised, on its first use in a session, with the dataset
    that ``dataset_factory`` builds."""
    handle = ResourceHandle(ctx.device, container, shared_name or node.name, variant,
                            TensorShape(()))
    res = _iterator_of(ctx, handle, output_types, output_shapes)
    if res.elements is None:
        (dataset,) = ctx.call_function(dataset_factory, [])
        res.reset(p._as_dataset(dataset))
    return handle


@register_op(
    "MakeIterator",
    inputs=["dataset: variant", "iterator: resource"],
    shape_fn=shape_fns.no_outputs,
    stateful=True,
)
def make_iterator(ctx, dataset, iterator):
    """(Re)initialises the iterator with a fresh pass over ``dataset``."""
    res = _iterator_of(ctx, iterator)
    before = (res.elements, res.returned, res.error)
    res.reset(p._as_dataset(dataset))

    def undo():
        res.elements, res.returned, res.error = before

    ctx.on_failure(undo)


def _get_next_shapes(ic) -> list:
    return list(ic.attrs["output_shapes"])


@register_op(
    "IteratorGetNext",
    inputs=["iterator: resource"],
    outputs=["components: output_types"],
    attrs=_ITER_ATTRS,
    shape_fn=_get_next_shapes,
    stateful=True,
)
def iterator_get_next(ctx, iterator, *, output_types, output_shapes):
    """The iterator's next element; OutOfRangeError "End of sequence" after the last."""
    res = _iterator_of(ctx, iterator)
    element = res.get_next(ctx)
    out = []
    for i, (value, dt, shape) in enumerate(zip(element, output_types, output_shapes)):
        arr = value if isinstance(value, p.DatasetValue) else np.asarray(value)
        if not isinstance(arr, p.DatasetValue):
            if arr.dtype != dt.np_dtype and dt.name != "string":
                raise invalid_argument(
                    f"Component {i}: expected dtype {dt.name}, got {arr.dtype}")
            if not shape.is_compatible_with(arr.shape):
                raise invalid_argument(
                    f"Component {i}: element shape {list(arr.shape)} is not compatible with "
                    f"the iterator's shape {shape}")
        out.append(arr)
    return out


@register_op(
    "IteratorToStringHandle",
    inputs=["resource_handle: resource"],
    outputs=["string_handle: string"],
    shape_fn=shape_fns.scalar,
)
def iterator_to_string_handle(resource_handle):
    """The iterator's resource name as a string (for feeding a handle-selected iterator)."""
    h = as_handle(resource_handle)
    return np.array(f"{h.container or 'localhost'}/{h.name}".encode(), dtype=object)


for _op in ("IteratorToStringHandle", "IteratorV2", "OneShotIterator", "MakeIterator",
            "IteratorGetNext"):
    no_gradient(_op)
