"""The run-time values of dataset tensors: lazy element pipelines.

A dataset op's kernel returns one of the :class:`DatasetValue` classes below (the value of a
``variant`` tensor). It holds its input datasets and arguments and produces nothing until an
iterator asks: :meth:`DatasetValue.iterate` returns a Python generator of elements (each a
tuple of NumPy values, one per flat component), so an infinite ``repeat()`` or a huge
``range`` costs no memory. Functions (``map``, ``filter``, ``flat_map``, ...) are the traced
function graphs, run with the kernel context of the ``Session.run`` that asks for the element
(``Env.ctx``), as TensorFlow runs them on its own executor.

Semantics follow TensorFlow's kernels under ``tensorflow/core/kernels/data/`` (file named on
each class).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.data import tfrecord
from tfmini.ops.random import blocks, key_counter_from_seeds

__all__: list[str] = []

Element = tuple


class Env:
    """What a pipeline needs from the run that pulls from it: the kernel context (to call
    function graphs). The iterator resource sets ``ctx`` before each ``get_next``."""

    __slots__ = ("ctx",)

    def __init__(self) -> None:
        self.ctx: Any = None


class DatasetValue:
    """Base of the dataset values: ``iterate(env)`` gives a fresh generator of elements."""

    def iterate(self, env: Env) -> Iterator[Element]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<tm.data {type(self).__name__}>"


def _call(env: Env, fn: Any, args: list) -> list:
    return list(env.ctx.call_function(fn, args))


class TensorValue(DatasetValue):
    """One element: the components (``TensorDataset``, tensor_dataset_op.cc)."""

    def __init__(self, components: list):
        self.components = tuple(components)

    def iterate(self, env):
        yield self.components


class TensorSliceValue(DatasetValue):
    """The slices along axis 0 (``TensorSliceDataset``, tensor_slice_dataset_op.cc)."""

    def __init__(self, components: list):
        self.components = [np.asarray(c) if not isinstance(c, np.ndarray) else c
                           for c in components]
        n = {c.shape[0] if c.ndim else None for c in self.components}
        if None in n:
            raise invalid_argument("TensorSliceDataset: every component must have rank >= 1")
        if len(n) > 1:
            dims = ", ".join(str(c.shape[0]) for c in self.components)
            raise invalid_argument(
                f"All components must have the same size in the 0th dimension, got {dims}")
        self.n = n.pop() if n else 0

    def iterate(self, env):
        comps = self.components
        for i in range(self.n):
            yield tuple(c[i] for c in comps)


class RangeValue(DatasetValue):
    """``range(start, stop, step)`` of one dtype (``RangeDataset``, range_dataset_op.cc)."""

    def __init__(self, start: int, stop: int, step: int, dtype: np.dtype):
        if step == 0:
            raise invalid_argument("step must be a non-zero integer.")
        self.start, self.stop, self.step, self.dtype = int(start), int(stop), int(step), dtype

    def iterate(self, env):
        dtype = self.dtype
        for v in range(self.start, self.stop, self.step):
            yield (dtype.type(v),)


class ZipValue(DatasetValue):
    """Elements of all inputs side by side, to the shortest (``ZipDataset``, zip_dataset_op.cc)."""

    def __init__(self, inputs: list[DatasetValue]):
        self.inputs = list(inputs)

    def iterate(self, env):
        its = [d.iterate(env) for d in self.inputs]
        while True:
            out: list = []
            for it in its:
                e = next(it, None)
                if e is None:
                    return
                out.extend(e)
            yield tuple(out)


class ConcatenateValue(DatasetValue):
    """One input, then the other (``ConcatenateDataset``)."""

    def __init__(self, first: DatasetValue, second: DatasetValue):
        self.first, self.second = first, second

    def iterate(self, env):
        yield from self.first.iterate(env)
        yield from self.second.iterate(env)


def _stack(elements: list[Element]) -> Element:
    out = []
    for parts in zip(*elements):
        first = np.shape(parts[0])
        for p in parts:
            if np.shape(p) != first:
                # batch_util.cc's CopyElementToSlice wording.
                raise invalid_argument(
                    "Cannot add tensor to the batch: number of elements does not match. "
                    f"Shapes are: [tensor]: {list(first)}, [batch]: {list(np.shape(p))}")
        out.append(np.stack([np.asarray(p) for p in parts]))
    return tuple(out)


class BatchValue(DatasetValue):
    """Consecutive elements stacked (``BatchDatasetV2``, batch_dataset_op.cc)."""

    def __init__(self, input: DatasetValue, batch_size: int, drop_remainder: bool):
        if batch_size <= 0:
            raise invalid_argument(f"Batch size must be greater than zero, got {batch_size}")
        self.input, self.batch_size, self.drop_remainder = input, batch_size, drop_remainder

    def iterate(self, env):
        batch: list = []
        for e in self.input.iterate(env):
            batch.append(e)
            if len(batch) == self.batch_size:
                yield _stack(batch)
                batch = []
        if batch and not self.drop_remainder:
            yield _stack(batch)


class PaddedBatchValue(DatasetValue):
    """Batches padded to ``padded_shapes`` (-1: the longest in the batch) with
    ``padding_values`` (``PaddedBatchDatasetV2``, padded_batch_dataset_op.cc)."""

    def __init__(self, input, batch_size, padded_shapes, padding_values, drop_remainder):
        if batch_size <= 0:
            raise invalid_argument(f"Batch size must be greater than zero, got {batch_size}")
        self.input, self.batch_size = input, batch_size
        self.padded_shapes = [np.asarray(s, np.int64).reshape(-1) for s in padded_shapes]
        self.padding_values = list(padding_values)
        self.drop_remainder = drop_remainder

    def _pad(self, batch: list[Element]) -> Element:
        out = []
        for i, parts in enumerate(zip(*batch)):
            parts = [np.asarray(p) for p in parts]
            spec = self.padded_shapes[i]
            rank = parts[0].ndim
            if any(p.ndim != rank for p in parts) or spec.size != rank:
                raise invalid_argument(
                    f"Mismatch in the rank of component {i}: padded shape has rank "
                    f"{spec.size}, element has rank {parts[0].ndim}")
            shape = []
            for d in range(rank):
                longest = max(p.shape[d] for p in parts)
                if spec[d] >= 0:
                    if longest > spec[d]:
                        raise invalid_argument(
                            f"Attempted to pad to a smaller size than the input element "
                            f"(component {i}, dimension {d}: {longest} > {spec[d]}).")
                    shape.append(int(spec[d]))
                else:
                    shape.append(longest)
            pad = self.padding_values[i]
            result = np.full((len(parts), *shape), pad, dtype=parts[0].dtype)
            for j, p in enumerate(parts):
                result[(j, *(slice(0, s) for s in p.shape))] = p
            out.append(result)
        return tuple(out)

    def iterate(self, env):
        batch: list = []
        for e in self.input.iterate(env):
            batch.append(e)
            if len(batch) == self.batch_size:
                yield self._pad(batch)
                batch = []
        if batch and not self.drop_remainder:
            yield self._pad(batch)


class MapValue(DatasetValue):
    """``f(*element, *captured)`` per element (``MapDataset``/``ParallelMapDatasetV2``: the
    parallel form keeps the order, deterministic by default, so it runs the same way here)."""

    def __init__(self, input, fn, captured):
        self.input, self.fn, self.captured = input, fn, list(captured)

    def iterate(self, env):
        fn, captured = self.fn, self.captured
        for e in self.input.iterate(env):
            yield tuple(_call(env, fn, [*e, *captured]))


class FilterValue(DatasetValue):
    """Elements whose predicate is true (``FilterDataset``, filter_dataset_op.cc)."""

    def __init__(self, input, fn, captured):
        self.input, self.fn, self.captured = input, fn, list(captured)

    def iterate(self, env):
        for e in self.input.iterate(env):
            (keep,) = _call(env, self.fn, [*e, *self.captured])
            keep = np.asarray(keep)
            if keep.shape != () or keep.dtype != np.bool_:
                raise invalid_argument(
                    "Filter predicate `f` must return a scalar bool.")
            if keep:
                yield e


def _as_dataset(value: Any) -> DatasetValue:
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object:
        value = value.item()
    if not isinstance(value, DatasetValue):
        raise invalid_argument(f"Expected a dataset (variant), got {type(value).__name__}")
    return value


class FlatMapValue(DatasetValue):
    """The elements of ``f(element)``'s datasets in turn (``FlatMapDataset``)."""

    def __init__(self, input, fn, captured):
        self.input, self.fn, self.captured = input, fn, list(captured)

    def iterate(self, env):
        for e in self.input.iterate(env):
            (ds,) = _call(env, self.fn, [*e, *self.captured])
            yield from _as_dataset(ds).iterate(env)


class InterleaveValue(DatasetValue):
    """``cycle_length`` of ``f``'s datasets at a time, ``block_length`` elements from each in
    turn (``InterleaveDataset``; the loop of interleave_dataset_op.cc's GetNextInternal)."""

    def __init__(self, input, fn, captured, cycle_length, block_length):
        if cycle_length <= 0:
            raise invalid_argument("cycle_length must be greater than zero.")
        if block_length <= 0:
            raise invalid_argument("block_length must be greater than zero.")
        self.input, self.fn, self.captured = input, fn, list(captured)
        self.cycle_length, self.block_length = cycle_length, block_length

    def iterate(self, env):
        inputs = self.input.iterate(env)
        current: list = [None] * self.cycle_length
        cycle = block = num_open = 0
        end_of_input = False
        while not end_of_input or num_open:
            it = current[cycle]
            if it is not None:
                e = next(it, None)
                if e is not None:
                    block += 1
                    if block == self.block_length:
                        block, cycle = 0, (cycle + 1) % self.cycle_length
                    yield e
                    continue
                current[cycle] = None
                num_open -= 1
                block, cycle = 0, (cycle + 1) % self.cycle_length
            elif not end_of_input:
                arg = next(inputs, None)
                if arg is None:
                    end_of_input = True
                else:
                    (ds,) = _call(env, self.fn, [*arg, *self.captured])
                    current[cycle] = _as_dataset(ds).iterate(env)
                    num_open += 1
            else:
                block, cycle = 0, (cycle + 1) % self.cycle_length


class _WordStream:
    """TensorFlow's Philox stream read one uint32 word at a time (``SingleSampleAdapter``)."""

    def __init__(self, seed: int, seed2: int):
        self.key, self.counter = key_counter_from_seeds(seed, seed2)
        self.words = np.empty(0, np.uint32)
        self.pos = 0

    def next(self) -> int:
        if self.pos == self.words.size:
            self.words = blocks(self.key, self.counter, 64).reshape(-1)
            self.counter += 64
            self.pos = 0
        w = int(self.words[self.pos])
        self.pos += 1
        return w


class ShuffleValue(DatasetValue):
    """A ring buffer of ``buffer_size`` elements, output in Philox order
    (``ShuffleDataset``, shuffle_dataset_op.cc).

    Each iteration is an epoch. With ``reshuffle_each_iteration`` epoch ``k`` is seeded with
    words ``2k`` and ``2k + 1`` of the stream of ``(seed, seed2)``; without it every epoch uses
    ``(seed, seed2)``. A (0, 0) pair means "not seeded": random seeds, as TensorFlow does.
    """

    def __init__(self, input, buffer_size, seed, seed2, reshuffle):
        if buffer_size <= 0:
            raise invalid_argument(
                f"buffer_size must be greater than zero, got {buffer_size}")
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int.from_bytes(os.urandom(4), "little") >> 1 for _ in range(2))
        self.input, self.buffer_size = input, buffer_size
        self.seed, self.seed2, self.reshuffle = seed, seed2, reshuffle
        self.epoch_seeds = _WordStream(seed, seed2) if reshuffle else None

    def iterate(self, env):
        if self.epoch_seeds is not None:
            seeds = (self.epoch_seeds.next(), self.epoch_seeds.next())
        else:
            seeds = (self.seed, self.seed2)
        words = _WordStream(*seeds)
        size = self.buffer_size
        ring: list = [None] * min(size, 1 << 16)
        start = held = 0
        inputs = self.input.iterate(env)
        end = False
        while True:
            while not end and held < size:
                e = next(inputs, None)
                if e is None:
                    end = True
                    break
                if held == len(ring):  # grow lazily: a huge buffer_size costs nothing up front
                    ring = ring[start:] + ring[:start] + [None] * len(ring)
                    start = 0
                ring[(start + held) % len(ring)] = e
                held += 1
            if held == 0:
                return
            n = len(ring)
            i = (start + words.next() % held) % n
            out = ring[i]
            ring[i] = ring[start]
            ring[start] = None
            start = (start + 1) % n
            held -= 1
            yield out


class RepeatValue(DatasetValue):
    """The input ``count`` times (-1: forever) (``RepeatDataset``)."""

    def __init__(self, input, count):
        self.input, self.count = input, count

    def iterate(self, env):
        k = 0
        while self.count < 0 or k < self.count:
            empty = True
            for e in self.input.iterate(env):
                empty = False
                yield e
            if empty:  # an empty input repeated forever is empty, not a hang
                return
            k += 1


class TakeValue(DatasetValue):
    """The first ``count`` elements (-1: all) (``TakeDataset``)."""

    def __init__(self, input, count):
        self.input, self.count = input, count

    def iterate(self, env):
        if self.count == 0:
            return
        for k, e in enumerate(self.input.iterate(env), 1):
            yield e
            if k == self.count:
                return


class SkipValue(DatasetValue):
    """All but the first ``count`` elements (-1: skip all) (``SkipDataset``)."""

    def __init__(self, input, count):
        self.input, self.count = input, count

    def iterate(self, env):
        it = self.input.iterate(env)
        if self.count < 0:
            for _ in it:
                pass
            return
        for _ in range(self.count):
            if next(it, None) is None:
                return
        yield from it


class PrefetchValue(DatasetValue):
    """The input unchanged (``PrefetchDataset``): elements are made when asked for, so there is
    nothing to overlap in a single-threaded pipeline."""

    def __init__(self, input):
        self.input = input

    def iterate(self, env):
        return self.input.iterate(env)


class CacheValue(DatasetValue):
    """The first complete pass kept in memory and replayed (``CacheDataset`` with filename '')."""

    def __init__(self, input, filename: str):
        if filename:
            raise errors.UnimplementedError(
                None, None, "CacheDataset: caching to a file is not supported by tfmini; use "
                "cache() (in memory)")
        self.input = input
        self.cached: list | None = None

    def iterate(self, env):
        if self.cached is not None:
            yield from self.cached
            return
        seen = []
        for e in self.input.iterate(env):
            seen.append(e)
            yield e
        self.cached = seen


class UnbatchValue(DatasetValue):
    """Each element split along axis 0 (``UnbatchDataset``)."""

    def __init__(self, input):
        self.input = input

    def iterate(self, env):
        for e in self.input.iterate(env):
            parts = [np.asarray(c) for c in e]
            if any(p.ndim == 0 for p in parts):
                raise invalid_argument("Input element must have a non-scalar value in each "
                                       "component.")
            n = {p.shape[0] for p in parts}
            if len(n) > 1:
                raise invalid_argument("Input element must have the same batch size in each "
                                       f"component. Component 0 had size {parts[0].shape[0]}")
            for i in range(parts[0].shape[0]):
                yield tuple(p[i] for p in parts)


class ListValue(DatasetValue):
    """A finite list of elements (the datasets ``window`` yields)."""

    def __init__(self, elements: list):
        self.elements = list(elements)

    def iterate(self, env):
        yield from self.elements


class WindowValue(DatasetValue):
    """Windows of ``size`` elements, ``shift`` apart, every ``stride``-th element; each window is
    a dataset per component (``WindowDataset``, window_dataset_op.cc)."""

    def __init__(self, input, size, shift, stride, drop_remainder):
        for name, v in (("size", size), ("shift", shift), ("stride", stride)):
            if v <= 0:
                raise invalid_argument(f"Window {name} must be greater than zero, but got {v}.")
        self.input, self.size, self.shift, self.stride = input, size, shift, stride
        self.drop_remainder = drop_remainder

    def iterate(self, env):
        span = (self.size - 1) * self.stride + 1
        buf: collections.deque = collections.deque()
        it = self.input.iterate(env)
        end = False
        while True:
            while not end and len(buf) < span:
                e = next(it, None)
                if e is None:
                    end = True
                else:
                    buf.append(e)
            if not buf:
                return
            window = list(buf)[::self.stride][:self.size]
            if len(window) < self.size and self.drop_remainder:
                return
            ncomp = len(window[0])
            yield tuple(ListValue([(w[c],) for w in window]) for c in range(ncomp))
            for _ in range(self.shift):
                if buf:
                    buf.popleft()
                elif not end:
                    if next(it, None) is None:
                        end = True
            if end and not buf:
                return


class GeneratorValue(DatasetValue):
    """Elements of a Python generator, checked against the declared types and shapes."""

    def __init__(self, generator, dtypes, shapes):
        self.generator, self.dtypes, self.shapes = generator, dtypes, shapes

    def iterate(self, env):
        from tfmini.ops.data import structure

        for value in self.generator():
            flat = structure.flatten(value)
            if len(flat) != len(self.dtypes):
                raise invalid_argument(
                    "TypeError: `generator` yielded an element that did not match the "
                    f"expected structure. Expected {len(self.dtypes)} components, got "
                    f"{len(flat)}: {value!r:.80}")
            out = []
            for v, dt, shape in zip(flat, self.dtypes, self.shapes):
                try:
                    arr = np.asarray(v, dtype=dt.np_dtype)
                except (TypeError, ValueError) as e:
                    raise invalid_argument(
                        f"TypeError: `generator` yielded an element that could not be "
                        f"converted to the expected type. The expected type was {dt.name}, "
                        f"but the yielded element was {str(v):.80}.") from e
                if not shape.is_compatible_with(arr.shape):
                    raise invalid_argument(
                        f"`generator` yielded an element of shape {list(arr.shape)} where an "
                        f"element of shape {shape} was expected.")
                out.append(arr)
            yield tuple(out)


class FileRecordsValue(DatasetValue):
    """Records (``TFRecordDataset``) or lines (``TextLineDataset``) of files, in order."""

    def __init__(self, filenames, compression_type: str, lines: bool):
        if compression_type:
            raise errors.UnimplementedError(
                None, None, f"compression_type {compression_type!r} is not supported by tfmini"
                " (only uncompressed files)")
        names = np.asarray(filenames, dtype=object).reshape(-1)
        self.filenames = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
        self.lines = lines

    def iterate(self, env):
        read = tfrecord.read_lines if self.lines else tfrecord.read_records
        for name in self.filenames:
            for rec in read(name):
                yield (np.array(rec, dtype=object),)
