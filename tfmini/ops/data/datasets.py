"""The ``tf.compat.v1.data`` Python classes: :class:`Dataset` and :class:`Iterator`.

A Dataset is a ``variant`` tensor in the graph (the output of a dataset op such as
``TensorSliceDataset``) plus its element structure. Transformations add ops; nothing runs
until an iterator is initialised and asked for elements. Functions given to ``map``,
``filter``, ``flat_map`` and ``interleave`` are traced once, when the transformation is built,
into a function graph (TensorFlow's ``StructuredFunctionWrapper``,
``tensorflow/python/data/ops/structured_function.py``).

A Dataset also remembers how to build itself again, so ``make_one_shot_iterator`` can put a
copy of the whole pipeline into the ``dataset_factory`` function of its ``OneShotIterator``
op, as TensorFlow does (``tensorflow/python/data/ops/iterator_ops.py``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from attrs import frozen

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype
from tfmini.core.function import FuncGraph, root_graph
from tfmini.core.graph import Output
from tfmini.core.scope import Scope, current_scope, get_default_graph, name_scope, scope_context
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops.data import structure as nest
from tfmini.ops.data.dataset_ops import register_generator
from tfmini.ops.random import get_seed

__all__ = ["Dataset", "Iterator", "TFRecordDataset", "TextLineDataset", "make_one_shot_iterator",
           "make_initializable_iterator", "get_output_types", "get_output_shapes"]

_uids = itertools.count(1)


@frozen
class TensorSpec:
    """The type and shape of one component of an element (``tf.TensorSpec``)."""

    shape: TensorShape
    dtype: dtypes.DType

    def __repr__(self) -> str:
        dims = self.shape.as_list() if self.shape.rank is not None else None
        shape = "<unknown>" if dims is None else repr(tuple(dims))
        return f"TensorSpec(shape={shape}, dtype=tm.{self.dtype.name}, name=None)"


@frozen
class DatasetSpec:
    """A component that is itself a dataset (the windows of ``window``)."""

    element_spec: Any
    dtype: dtypes.DType = dtypes.variant
    shape: TensorShape = TensorShape(())


def _spec_of(t: Output) -> TensorSpec:
    return TensorSpec(t.shape, t.dtype)


def _flat_types(spec) -> list:
    return [s.dtype for s in nest.flatten(spec)]


def _flat_shapes(spec) -> list:
    return [s.shape for s in nest.flatten(spec)]


def _int64(value: Any, name: str) -> Output:
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _normalize(element: Any) -> list[Output]:
    """The components of an element as tensors (lists become tensors, as in tf.data)."""
    with name_scope("normalize_element"):
        return [convert_to_tensor(c, name=f"component_{i}")
                for i, c in enumerate(nest.flatten(element))]


def _op(op_type: str, inputs: list, attrs: dict, name: str | None = None) -> Output:
    return build_op(current_scope(), op_type, inputs, attrs, name=name).outputs[0]


class Dataset:
    """A pipeline of elements (``tf.compat.v1.data.Dataset``).

    Build one with :meth:`from_tensors`, :meth:`from_tensor_slices`, :meth:`range`,
    :meth:`from_generator` (or :class:`TFRecordDataset`, :class:`TextLineDataset`), transform
    it, and read it with an iterator::

        ds = tm.data.Dataset.from_tensor_slices(x).shuffle(100, seed=1).batch(32)
        batch = tm.data.make_one_shot_iterator(ds).get_next()
    """

    def __init__(self, make: Callable[[], Output], spec: Any):
        self._make = make
        self._spec = spec
        self._variant_tensor = make()

    def _get(self) -> Output:
        """The variant tensor in the current graph: the one built already when that is where
        it lives, else a fresh copy of the pipeline (a one-shot iterator's factory)."""
        if self._variant_tensor.graph is get_default_graph():
            return self._variant_tensor
        return self._make()

    # ---- structure ------------------------------------------------------------------------
    @property
    def element_spec(self) -> Any:
        """The structure of an element, with a :class:`TensorSpec` per component."""
        return self._spec

    @property
    def output_types(self) -> Any:
        return nest.map_structure(lambda s: s.dtype, self._spec)

    @property
    def output_shapes(self) -> Any:
        return nest.map_structure(lambda s: s.shape, self._spec)

    def _attrs(self) -> dict:
        return {"output_types": _flat_types(self._spec), "output_shapes": _flat_shapes(self._spec)}

    def _unary(self, op_type: str, inputs: Callable[[], list], attrs: dict | None = None,
               spec: Any = None, extra_attrs: Callable[[], dict] | None = None) -> Dataset:
        parent = self
        spec = self._spec if spec is None else spec

        def make() -> Output:
            a = {"output_types": _flat_types(spec), "output_shapes": _flat_shapes(spec),
                 **(attrs or {})}
            if extra_attrs is not None:
                a.update(extra_attrs())
            return _op(op_type, [parent._get(), *inputs()], a)

        return Dataset(make, spec)

    # ---- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors: Any) -> Dataset:
        """A dataset of one element, ``tensors``."""
        probe = _normalize(tensors)
        spec = nest.pack_as(tensors, [_spec_of(t) for t in probe])

        def make() -> Output:
            comps = probe if probe[0].graph is get_default_graph() else _normalize(tensors)
            return _op("TensorDataset", [comps], {"output_shapes": [c.shape for c in comps]})

        return Dataset(make, spec)

    @staticmethod
    def from_tensor_slices(tensors: Any) -> Dataset:
        """The slices of ``tensors`` along their first dimension.

        Raises:
            ValueError: a component is a scalar, or the first dimensions differ.
        """
        probe = _normalize(tensors)
        first = None
        for t in probe:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if t.shape.rank is not None:
                d = t.shape.as_list()[0]
                if first is not None and d is not None and d != first:
                    raise ValueError(f"Dimensions {first} and {d} are not compatible")
                first = d if d is not None else first
        spec = nest.pack_as(tensors, [TensorSpec(t.shape[1:] if t.shape.rank is not None
                                                 else unknown_shape(), t.dtype) for t in probe])

        def make() -> Output:
            comps = probe if probe[0].graph is get_default_graph() else _normalize(tensors)
            return _op("TensorSliceDataset", [comps],
                       {"output_shapes": _flat_shapes(spec)})

        return Dataset(make, spec)

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64) -> Dataset:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)``."""
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        dtype = as_dtype(output_type)
        spec = TensorSpec(TensorShape(()), dtype)

        def make() -> Output:
            return _op("RangeDataset", [_int64(start, "start"), _int64(stop, "stop"),
                                        _int64(step, "step")],
                       {"output_types": [dtype], "output_shapes": [TensorShape(())]})

        return Dataset(make, spec)

    @staticmethod
    def from_generator(generator: Callable, output_types: Any, output_shapes: Any = None,
                       args: Any = None) -> Dataset:
        """The elements a Python generator yields (called anew for each pass).

        Args:
            generator: A callable returning an iterator.
            output_types: The structure of the elements' dtypes.
            output_shapes: Their shapes (unknown when None).
            args: Arguments for ``generator`` (Python values).
        """
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        types = nest.map_structure(as_dtype, output_types)
        if output_shapes is None:
            shapes = nest.map_structure(lambda _: unknown_shape(), types)
        else:
            if not nest.same_structure(types, output_shapes) and not isinstance(
                    output_shapes, (list, TensorShape)):
                raise TypeError("`output_shapes` must have the same structure as "
                                "`output_types`")
            shapes = (as_shape(output_shapes) if not isinstance(types, (tuple, dict))
                      else nest.pack_as(types, [as_shape(s) for s in nest.flatten(output_shapes)
                                                ] if isinstance(output_shapes, (tuple, dict))
                                        else [as_shape(output_shapes)]))
        spec = nest.pack_as(types, [TensorSpec(s, t) for t, s in
                                    zip(nest.flatten(types), nest.flatten(shapes))])
        call = (lambda: generator(*args)) if args is not None else generator
        token = f"pyfunc_{next(_uids)}"
        register_generator(token, call, _flat_types(spec), _flat_shapes(spec))

        def make() -> Output:
            return _op("PyGeneratorDataset", [], {"token": token, "output_types":
                                                  _flat_types(spec),
                                                  "output_shapes": _flat_shapes(spec)})

        return Dataset(make, spec)

    @staticmethod
    def zip(datasets: Any) -> Dataset:
        """Elements of ``datasets`` (a nested structure of datasets) side by side."""
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid `datasets`. `datasets` is expected to be a (nested) "
                                f"structure of `tf.data.Dataset` objects. Encountered object "
                                f"with type {type(d)}.")
        spec = nest.pack_as(datasets, [d._spec for d in flat])

        def make() -> Output:
            return _op("ZipDataset", [[d._get() for d in flat]],
                       {"output_types": _flat_types(spec), "output_shapes": _flat_shapes(spec)})

        return Dataset(make, spec)

    # ---- transformations ------------------------------------------------------------------
    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements, then ``dataset``'s.

        Raises:
            TypeError: the element types or structures differ.
        """
        if (not nest.same_structure(self._spec, dataset._spec)
                or _flat_types(self._spec) != _flat_types(dataset._spec)):
            raise TypeError(f"Incompatible dataset elements:\n  {self.element_spec} vs.   "
                            f"{dataset.element_spec}")
        spec = nest.pack_as(self._spec, [
            TensorSpec(_most_specific(a.shape, b.shape), a.dtype)
            for a, b in zip(nest.flatten(self._spec), nest.flatten(dataset._spec))])
        return self._unary("ConcatenateDataset", lambda: [dataset._get()], spec=spec)

    def batch(self, batch_size: Any, drop_remainder: bool = False,
              num_parallel_calls: Any = None, deterministic: Any = None,
              name: str | None = None) -> Dataset:
        """Stacks ``batch_size`` consecutive elements; the last batch may be smaller unless
        ``drop_remainder``, which also makes the batch dimension static."""
        static = batch_size if isinstance(batch_size, (int, np.integer)) else None
        dim = static if drop_remainder and static is not None else None
        spec = nest.map_structure(
            lambda s: TensorSpec(TensorShape([dim]).concatenate(s.shape), s.dtype), self._spec)
        return self._unary("BatchDatasetV2", lambda: [
            _int64(batch_size, "batch_size"),
            convert_to_tensor(drop_remainder, dtype=dtypes.bool_, name="drop_remainder")],
            {"parallel_copy": False}, spec=spec)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None,
                     padding_values: Any = None, drop_remainder: bool = False,
                     name: str | None = None) -> Dataset:
        """Batches whose components are padded (with 0, or ``padding_values``) to
        ``padded_shapes`` (default: the longest in each batch)."""
        flat_spec = nest.flatten(self._spec)
        if padded_shapes is None:
            shapes = [s.shape for s in flat_spec]
            if any(sh.rank is None for sh in shapes):
                raise ValueError("You must provide `padded_shapes` argument because component "
                                 "has unknown rank.")
        else:
            shapes = [as_shape(s) for s in _flatten_like(self._spec, padded_shapes)]
        pads = (_flatten_like(self._spec, padding_values) if padding_values is not None
                else [None] * len(flat_spec))
        static = batch_size if isinstance(batch_size, (int, np.integer)) else None
        dim = static if drop_remainder and static is not None else None
        spec = nest.pack_as(self._spec, [TensorSpec(TensorShape([dim]).concatenate(sh), s.dtype)
                                         for sh, s in zip(shapes, flat_spec)])

        def inputs() -> list:
            padded = [_int64([-1 if d is None else d for d in sh.as_list()], "Const")
                      for sh in shapes]
            values = []
            for s, v in zip(flat_spec, pads):
                if v is None:
                    v = b"" if s.dtype == dtypes.string else np.zeros((), s.dtype.np_dtype)
                values.append(convert_to_tensor(v, dtype=s.dtype, name="padding_value"))
            return [_int64(batch_size, "batch_size"), padded, values,
                    convert_to_tensor(drop_remainder, dtype=dtypes.bool_, name="drop_remainder")]

        def make() -> Output:
            return _op("PaddedBatchDatasetV2", [self._get(), *inputs()],
                       {"output_shapes": _flat_shapes(spec), "parallel_copy": False})

        return Dataset(make, spec)

    def map(self, map_func: Callable, num_parallel_calls: Any = None,
            deterministic: Any = None, name: str | None = None) -> Dataset:
        """``map_func`` applied to each element (traced once, now, into a function graph).
        With ``num_parallel_calls`` the op is ``ParallelMapDatasetV2``; the order is kept."""
        fn, spec = _trace(map_func, self._spec, "map")
        if num_parallel_calls is None:
            return self._fn_op("MapDataset", fn, spec, {
                "use_inter_op_parallelism": True, "preserve_cardinality": False,
                "force_synchronous": False})
        return self._fn_op("ParallelMapDatasetV2", fn, spec, {
            "use_inter_op_parallelism": True, "deterministic": "default",
            "preserve_cardinality": False, "use_unbounded_threadpool": False},
            tail=lambda: [_int64(num_parallel_calls, "num_parallel_calls")])

    def filter(self, predicate: Callable, name: str | None = None) -> Dataset:
        """The elements for which ``predicate`` (traced now) returns a scalar true.

        Raises:
            ValueError: the predicate does not return a scalar bool tensor.
        """
        fn, out = _trace(predicate, self._spec, "filter")
        if not isinstance(out, TensorSpec) or out.dtype != dtypes.bool_ or (
                out.shape.rank not in (0, None)):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                             f"tensor, but its return type is {out}.")
        return self._fn_op("FilterDataset", fn, self._spec, {}, fn_attr="predicate")

    def flat_map(self, map_func: Callable, name: str | None = None) -> Dataset:
        """The elements of the datasets ``map_func`` returns, one dataset after another."""
        fn, out = _trace(map_func, self._spec, "flat_map")
        if not isinstance(out, DatasetSpec):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                            f"{out!r:.100}.")
        return self._fn_op("FlatMapDataset", fn, out.element_spec, {})

    def interleave(self, map_func: Callable, cycle_length: Any = None,
                   block_length: Any = None, num_parallel_calls: Any = None,
                   deterministic: Any = None, name: str | None = None) -> Dataset:
        """``cycle_length`` of ``map_func``'s datasets at a time, ``block_length`` elements
        from each in turn (cycle_length None: the number of CPU cores, as AUTOTUNE)."""
        fn, out = _trace(map_func, self._spec, "interleave")
        if not isinstance(out, DatasetSpec):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                            f"{out!r:.100}.")
        cycle = os.cpu_count() or 1 if cycle_length is None else cycle_length
        block = 1 if block_length is None else block_length
        return self._fn_op("InterleaveDataset", fn, out.element_spec, {}, tail=lambda: [
            _int64(cycle, "cycle_length"), _int64(block, "block_length")])

    def _fn_op(self, op_type: str, fn: FuncGraph, spec: Any, attrs: dict,
               tail: Callable[[], list] | None = None, fn_attr: str = "f") -> Dataset:
        parent = self

        def make() -> Output:
            a = {fn_attr: fn, "output_types": _flat_types(spec),
                 "output_shapes": _flat_shapes(spec), **attrs}
            return _op(op_type, [parent._get(), fn.outer_values(), *(tail() if tail else [])],
                       a)

        return Dataset(make, spec)

    def shuffle(self, buffer_size: Any, seed: int | None = None,
                reshuffle_each_iteration: bool | None = None, name: str | None = None
                ) -> Dataset:
        """Elements in the order of a ``buffer_size`` shuffle buffer, seeded from the graph
        seed and ``seed`` (``tf.compat.v1.get_seed``); reshuffled each epoch by default."""
        s, s2 = get_seed(seed)
        s, s2 = (0, 0) if s is None else (s, s2)
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return self._unary("ShuffleDataset", lambda: [
            _int64(buffer_size, "buffer_size"), _int64(s, "seed"), _int64(s2, "seed2")],
            {"reshuffle_each_iteration": reshuffle})

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """The dataset ``count`` times (None or -1: forever)."""
        return self._unary("RepeatDataset", lambda: [_int64(-1 if count is None else count,
                                                            "count")])

    def take(self, count: Any, name: str | None = None) -> Dataset:
        """At most the first ``count`` elements (-1: all)."""
        return self._unary("TakeDataset", lambda: [_int64(count, "count")])

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        """All but the first ``count`` elements."""
        return self._unary("SkipDataset", lambda: [_int64(count, "count")])

    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        """The same elements (``PrefetchDataset``)."""
        return self._unary("PrefetchDataset", lambda: [_int64(buffer_size, "buffer_size")],
                           {"slack_period": 0, "legacy_autotune": False, "buffer_size_min": 0})

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """The first complete pass kept in memory and replayed (a file name is unsupported)."""
        return self._unary("CacheDataset", lambda: [
            convert_to_tensor(filename, dtype=dtypes.string, name="filename")])

    def unbatch(self, name: str | None = None) -> Dataset:
        """Each element split along its first dimension."""
        for s in nest.flatten(self._spec):
            if s.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        spec = nest.map_structure(lambda s: TensorSpec(
            s.shape[1:] if s.shape.rank is not None else unknown_shape(), s.dtype), self._spec)
        # TensorFlow maps each element through a normalising function first (unbatch_op.py);
        # for dense tensors it is the identity, kept so the graph has the same ops.
        normalized = self.map(lambda *x: x[0] if len(x) == 1 else x) if not isinstance(
            self._spec, dict) else self.map(lambda x: x)
        return normalized._unary("UnbatchDataset", lambda: [], spec=spec)

    def window(self, size: Any, shift: Any = None, stride: Any = 1,
               drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """Windows of ``size`` elements starting every ``shift`` elements (default ``size``),
        each a structure of datasets (one per component); flatten them with
        ``flat_map(lambda w: w.batch(size))``."""
        spec = nest.map_structure(lambda s: DatasetSpec(s), self._spec)
        return self._unary("WindowDataset", lambda: [
            _int64(size, "size"), _int64(size if shift is None else shift, "shift"),
            _int64(stride, "stride"),
            convert_to_tensor(drop_remainder, dtype=dtypes.bool_, name="drop_remainder")],
            spec=spec)

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """``transformation_func(self)``, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a `tf.data.Dataset` object. Got "
                            f"{type(out)}.")
        return out

    # ---- iterators ------------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Iterator:
        """An iterator initialised on first use (``tf.compat.v1.data.make_one_shot_iterator``)."""
        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Iterator:
        """An iterator with an ``initializer`` op to run first (and to restart it)."""
        return make_initializable_iterator(self, shared_name)

    def __iter__(self):
        raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager "
                           "mode or within tf.function. In graph mode use an iterator: "
                           "make_one_shot_iterator(dataset).get_next()")

    def __repr__(self) -> str:
        return f"<tm.data.Dataset element_spec={self._spec}>"


def _most_specific(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return unknown_shape()
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _flatten_like(spec: Any, values: Any) -> list:
    """``values`` given per component of ``spec`` (a bare value applies to a lone component)."""
    if not isinstance(spec, (tuple, dict)):
        return [values]
    if not nest.same_structure(spec, values):
        raise ValueError("The padded shapes/values must have the same structure as the "
                         "dataset's elements")
    return nest.flatten(values)


class _FunctionArgs:
    """Builds a traced function's arguments from an element spec."""


def _trace(func: Callable, spec: Any, kind: str) -> tuple[FuncGraph, Any]:
    """Traces ``func`` on placeholders of ``spec`` into a FuncGraph; returns it and the spec of
    its result (a DatasetSpec when it returns a dataset)."""
    graph = get_default_graph()
    fname = getattr(func, "__name__", "fn")
    fname = "lambda" if fname == "<lambda>" else fname
    fg = FuncGraph(name=f"__inference_Dataset_{kind}_{fname}_{next(_uids)}", outer_graph=graph)
    with scope_context(Scope(fg, device=current_scope().device)):
        args = []
        for i, s in enumerate(nest.flatten(spec)):
            arg = fg.add_argument(s.dtype, s.shape, name=f"args_{i}")
            if isinstance(s, DatasetSpec):
                arg = _from_variant(arg, s.element_spec)
            args.append(arg)
        structured = nest.pack_as(spec, args)
        if isinstance(structured, tuple) and not hasattr(structured, "_fields"):
            result = func(*structured)
        else:
            result = func(structured)
        if isinstance(result, Dataset):
            outputs = [result._variant_tensor]
            out_spec: Any = DatasetSpec(result._spec)
        else:
            if isinstance(result, list):
                result = convert_to_tensor(result)
            leaves = []
            for v in nest.flatten(result):
                if isinstance(v, Dataset):
                    raise TypeError("A function may return a dataset only on its own")
                leaves.append(convert_to_tensor(v))
            outputs = []
            for t in leaves:
                if t.graph is not fg:
                    t = fg._capture(t)
                if t in fg.inputs:  # a function output must be an op of its own
                    t = _op("Identity", [t], {})
                outputs.append(t)
            out_spec = nest.pack_as(result, [_spec_of(t) for t in outputs])
    fg.finalize_function(outputs)
    root_graph(graph)._register_function(fg)
    return fg, out_spec


def _from_variant(variant: Output, spec: Any) -> Dataset:
    """A Dataset over a variant tensor (a window inside a traced function)."""
    return Dataset(lambda: variant, spec)


class TFRecordDataset(Dataset):
    """The records of TFRecord files (``tf.data.TFRecordDataset``): the file names are sliced
    and each file's records are read by a ``TFRecordDataset`` op inside a ``flat_map``, as
    TensorFlow builds it."""

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None):
        ds = _file_dataset(filenames, "TFRecordDataset", compression_type, buffer_size)
        super().__init__(ds._make, ds._spec)


class TextLineDataset(Dataset):
    """The lines of text files, without line endings (``tf.data.TextLineDataset``)."""

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None):
        ds = _file_dataset(filenames, "TextLineDataset", compression_type, buffer_size)
        super().__init__(ds._make, ds._spec)


def _file_dataset(filenames, op_type, compression_type, buffer_size) -> Dataset:
    names = convert_to_tensor(filenames, dtype=dtypes.string)
    if names.shape.rank not in (0, 1, None):
        raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string` of rank <= 1")
    flat = _op("Reshape", [names, np.array([-1], np.int32)], {}, name="flat_filenames")
    files = Dataset.from_tensor_slices(flat)
    spec = TensorSpec(TensorShape(()), dtypes.string)

    def read(filename):
        def make() -> Output:
            return _op(op_type, [
                filename,
                convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                  name="compression_type"),
                _int64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size")], {})

        return Dataset(make, spec)

    return files.flat_map(read)


class Iterator:
    """Reads a dataset's elements in a session (``tf.compat.v1.data.Iterator``).

    Attributes:
        initializer: The ``MakeIterator`` op to run before :meth:`get_next` (None for a one-shot
            iterator).
    """

    def __init__(self, handle: Output, initializer: Any, spec: Any):
        self._handle = handle
        self._initializer = initializer
        self._spec = spec
        # TensorFlow's Iterator makes its string handle up front (iterator_ops.py).
        self._string_handle = _op("IteratorToStringHandle", [handle], {})

    def string_handle(self, name: str | None = None) -> Output:
        """The iterator's handle as a string tensor (``IteratorToStringHandle``)."""
        if name is None:
            return self._string_handle
        return _op("IteratorToStringHandle", [self._handle], {}, name=name)

    @staticmethod
    def from_structure(output_types: Any, output_shapes: Any = None, shared_name: str | None = None,
                       output_classes: Any = None) -> Iterator:
        """An iterator not bound to a dataset: give it one with :meth:`make_initializer`."""
        types = nest.map_structure(as_dtype, output_types)
        if output_shapes is None:
            shapes = [unknown_shape()] * len(nest.flatten(types))
        else:
            shapes = [as_shape(s) for s in _flatten_like(types, output_shapes)]
        spec = nest.pack_as(types, [TensorSpec(s, t) for t, s in
                                    zip(nest.flatten(types), shapes)])
        handle = _op("IteratorV2", [], {"shared_name": shared_name or "", "container": "",
                                        "output_types": _flat_types(spec),
                                        "output_shapes": _flat_shapes(spec)})
        return Iterator(handle, None, spec)

    @property
    def initializer(self) -> Any:
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was "
                             "likely created using `tf.data.Dataset.make_one_shot_iterator()`. "
                             "For an initializable iterator, use "
                             "`tf.data.Dataset.make_initializable_iterator()` instead.")
        return self._initializer

    @property
    def element_spec(self) -> Any:
        return self._spec

    @property
    def output_types(self) -> Any:
        return nest.map_structure(lambda s: s.dtype, self._spec)

    @property
    def output_shapes(self) -> Any:
        return nest.map_structure(lambda s: s.shape, self._spec)

    def make_initializer(self, dataset: Dataset, name: str | None = None) -> Any:
        """A ``MakeIterator`` op that (re)starts this iterator on ``dataset``.

        Raises:
            TypeError: the dataset's element structure or types differ from the iterator's.
        """
        if not nest.same_structure(self._spec, dataset._spec):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\nFirst structure: "
                f"{self.output_types!r}\n\nSecond structure: {dataset.output_types!r}")
        mine, theirs = self.output_types, dataset.output_types
        if _flat_types(self._spec) != _flat_types(dataset._spec):
            raise TypeError(f"Expected output types {mine!r} but got dataset with output "
                            f"types {theirs!r}.")
        for a, b in zip(_flat_shapes(self._spec), _flat_shapes(dataset._spec)):
            if not a.is_compatible_with(b):
                raise TypeError(f"Expected output shapes compatible with {self.output_shapes!r}"
                                f" but got dataset with output shapes "
                                f"{dataset.output_shapes!r}.")
        return build_op(current_scope(), "MakeIterator", [dataset._variant_tensor, self._handle],
                        {}, name=name or "make_initializer")

    def get_next(self, name: str | None = None) -> Any:
        """The next element as a structure of tensors; running it past the end raises
        ``OutOfRangeError`` ("End of sequence"), before initialisation
        ``FailedPreconditionError``."""
        op = build_op(current_scope(), "IteratorGetNext", [self._handle],
                      {"output_types": _flat_types(self._spec),
                       "output_shapes": _flat_shapes(self._spec)}, name=name)
        flat = list(op.outputs)
        leaves = nest.flatten(self._spec)
        flat = [_from_variant(o, s.element_spec) if isinstance(s, DatasetSpec) else o
                for o, s in zip(flat, leaves)]
        return nest.pack_as(self._spec, flat)


class _FactoryGraph(FuncGraph):
    """The ``dataset_factory`` of a one-shot iterator: it has no arguments, so a constant it
    uses from the outer graph is copied in; anything else cannot be captured."""

    def _capture(self, output: Output) -> Output:
        hit = self.captures.get(output)
        if hit is not None:
            return hit
        op = output.op
        if op.op_def.is_stateful or op.type == "Placeholder" or any(
                a.number_attr or a.type_list_attr for a in op.op_def.inputs):
            raise ValueError(
                "Failed to create a one-shot iterator for a dataset. "
                "`Dataset.make_one_shot_iterator()` does not support datasets that capture "
                f"stateful objects, such as a `Variable` or `LookupTable` (it captures "
                f"'{output.name}', a {op.type}). In these cases, use "
                "`Dataset.make_initializable_iterator()`.")
        # A stateless op (a constant, the Reshape of file names) is copied in, inputs first.
        inputs = [self._capture(i) for i in op.inputs]
        with scope_context(Scope(self)):
            copy = build_op(current_scope(), op.type, inputs, dict(op._attrs),
                            name=op.name.replace("/", "_"))
        for out, inner in zip(op.outputs, copy.outputs):
            self.captures[out] = inner
        return self.captures[output]


def make_one_shot_iterator(dataset: Dataset) -> Iterator:
    """An iterator initialised automatically on first use (``OneShotIterator``): its
    ``dataset_factory`` function holds a copy of the pipeline.

    Raises:
        ValueError: the dataset uses a tensor other than a constant from the graph (a
            placeholder, a variable): use :func:`make_initializable_iterator`.
    """
    graph = get_default_graph()
    factory = _FactoryGraph(name=f"_make_dataset_{next(_uids)}", outer_graph=graph)
    with scope_context(Scope(factory)):
        variant = dataset._get()
    factory.finalize_function([variant])
    factory.captures = {}
    root_graph(graph)._register_function(factory)
    handle = _op("OneShotIterator", [], {"dataset_factory": factory, "container": "",
                                         "shared_name": "", **dataset._attrs()})
    return Iterator(handle, None, dataset._spec)


def make_initializable_iterator(dataset: Dataset, shared_name: str | None = None) -> Iterator:
    """An iterator (``IteratorV2``) with an ``initializer`` (``MakeIterator``) to run first."""
    handle = _op("IteratorV2", [], {"shared_name": shared_name or "", "container": "",
                                    **dataset._attrs()})
    init = build_op(current_scope(), "MakeIterator", [dataset._variant_tensor, handle], {})
    return Iterator(handle, init, dataset._spec)


def get_output_types(dataset_or_iterator: Any) -> Any:
    """``tf.compat.v1.data.get_output_types``."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    """``tf.compat.v1.data.get_output_shapes``."""
    return dataset_or_iterator.output_shapes


Dataset.__module__ = "tfmini.data"
