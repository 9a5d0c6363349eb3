"""The dataset op types, with TensorFlow 2.21's signatures (``tensorflow/core/ops/dataset_ops.cc``
and ``experimental_dataset_ops.cc``). Each kernel returns a lazy
:class:`~tfmini.ops.data.pipeline.DatasetValue` (the value of the ``variant`` output); nothing
is read or computed until an iterator asks for elements.
"""

from __future__ import annotations

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.data import pipeline as p

__all__: list[str] = []

_TYPES = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]
_META = ["metadata: string = ''"]
_FN = ["f: func", "Targuments: list(type) >= 0"]
_ONE_INPUT = ["input_dataset: variant"]
_HANDLE = ["handle: variant"]

DATASET_OPS: list[str] = []


def _dataset(op_type: str, inputs: list, attrs: list, doc: str):
    """Registers a dataset op (scalar variant output, no gradient) around its kernel."""

    def wrap(kernel):
        register_op(op_type, inputs=inputs, outputs=_HANDLE, attrs=attrs,
                    shape_fn=shape_fns.scalar, doc=doc)(kernel)
        no_gradient(op_type)
        DATASET_OPS.append(op_type)
        return kernel

    return wrap


def _int(x) -> int:
    return int(np.asarray(x).reshape(()))


@_dataset("TensorDataset", ["components: Toutput_types"],
          ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1", *_META],
          "A dataset of one element: the components.")
def tensor_dataset(components):
    return p.TensorValue(components)


@_dataset("TensorSliceDataset", ["components: Toutput_types"],
          ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
           "is_files: bool = false", *_META, "replicate_on_split: bool = false"],
          "The slices of the components along their first dimension.")
def tensor_slice_dataset(components):
    return p.TensorSliceValue(components)


@_dataset("RangeDataset", ["start: int64", "stop: int64", "step: int64"],
          [*_TYPES, *_META, "replicate_on_split: bool = false"],
          "start, start + step, ... up to (not including) stop.")
def range_dataset(start, stop, step, *, output_types):
    return p.RangeValue(_int(start), _int(stop), _int(step), output_types[0].np_dtype)


@_dataset("ZipDataset", ["input_datasets: N * variant"], [*_TYPES, "N: int >= 1", *_META],
          "The inputs' elements side by side, as long as the shortest input.")
def zip_dataset(input_datasets):
    return p.ZipValue([p._as_dataset(d) for d in input_datasets])


@_dataset("ConcatenateDataset", ["input_dataset: variant", "another_dataset: variant"],
          [*_TYPES, *_META], "The first dataset's elements, then the second's.")
def concatenate_dataset(input_dataset, another_dataset):
    return p.ConcatenateValue(p._as_dataset(input_dataset), p._as_dataset(another_dataset))


@_dataset("BatchDatasetV2", [*_ONE_INPUT, "batch_size: int64", "drop_remainder: bool"],
          ["parallel_copy: bool = false", *_TYPES, *_META],
          "Consecutive elements stacked into batches.")
def batch_dataset_v2(input_dataset, batch_size, drop_remainder):
    return p.BatchValue(p._as_dataset(input_dataset), _int(batch_size), bool(drop_remainder))


@_dataset("PaddedBatchDatasetV2",
          [*_ONE_INPUT, "batch_size: int64", "padded_shapes: N * int64",
           "padding_values: Toutput_types", "drop_remainder: bool"],
          ["parallel_copy: bool = false", "Toutput_types: list(type) >= 1",
           "output_shapes: list(shape) >= 1", "N: int >= 1", *_META],
          "Batches padded to padded_shapes with padding_values.")
def padded_batch_dataset_v2(input_dataset, batch_size, padded_shapes, padding_values,
                            drop_remainder):
    return p.PaddedBatchValue(p._as_dataset(input_dataset), _int(batch_size), padded_shapes,
                              padding_values, bool(drop_remainder))


@_dataset("MapDataset", [*_ONE_INPUT, "other_arguments: Targuments"],
          [*_FN, *_TYPES, "use_inter_op_parallelism: bool = true",
           "preserve_cardinality: bool = false", "force_synchronous: bool = false", *_META],
          "f applied to each element.")
def map_dataset(input_dataset, other_arguments, *, f):
    return p.MapValue(p._as_dataset(input_dataset), f, other_arguments)


@_dataset("ParallelMapDatasetV2",
          [*_ONE_INPUT, "other_arguments: Targuments", "num_parallel_calls: int64"],
          [*_FN, *_TYPES, "use_inter_op_parallelism: bool = true",
           "deterministic: string = 'default'", "preserve_cardinality: bool = false",
           "use_unbounded_threadpool: bool = false", *_META],
          "f applied to each element (in order; tfmini runs the calls one at a time).")
def parallel_map_dataset_v2(input_dataset, other_arguments, num_parallel_calls, *, f):
    return p.MapValue(p._as_dataset(input_dataset), f, other_arguments)


@_dataset("FilterDataset", [*_ONE_INPUT, "other_arguments: Targuments"],
          ["predicate: func", "Targuments: list(type) >= 0", *_TYPES, *_META],
          "The elements for which predicate is true.")
def filter_dataset(input_dataset, other_arguments, *, predicate):
    return p.FilterValue(p._as_dataset(input_dataset), predicate, other_arguments)


@_dataset("FlatMapDataset", [*_ONE_INPUT, "other_arguments: Targuments"],
          [*_FN, *_TYPES, *_META], "The elements of the datasets f returns, one after another.")
def flat_map_dataset(input_dataset, other_arguments, *, f):
    return p.FlatMapValue(p._as_dataset(input_dataset), f, other_arguments)


@_dataset("InterleaveDataset",
          [*_ONE_INPUT, "other_arguments: Targuments", "cycle_length: int64",
           "block_length: int64"],
          [*_FN, *_TYPES, *_META], "The datasets f returns, interleaved.")
def interleave_dataset(input_dataset, other_arguments, cycle_length, block_length, *, f):
    return p.InterleaveValue(p._as_dataset(input_dataset), f, other_arguments,
                             _int(cycle_length), _int(block_length))


@_dataset("ShuffleDataset",
          [*_ONE_INPUT, "buffer_size: int64", "seed: int64", "seed2: int64"],
          ["reshuffle_each_iteration: bool = true", *_TYPES, *_META],
          "The elements in the order of a seeded shuffle buffer.")
def shuffle_dataset(input_dataset, buffer_size, seed, seed2, *, reshuffle_each_iteration):
    return p.ShuffleValue(p._as_dataset(input_dataset), _int(buffer_size), _int(seed),
                          _int(seed2), reshuffle_each_iteration)


@_dataset("RepeatDataset", [*_ONE_INPUT, "count: int64"], [*_TYPES, *_META],
          "The input repeated count times (-1: forever).")
def repeat_dataset(input_dataset, count):
    return p.RepeatValue(p._as_dataset(input_dataset), _int(count))


@_dataset("TakeDataset", [*_ONE_INPUT, "count: int64"], [*_TYPES, *_META],
          "The first count elements (-1: all).")
def take_dataset(input_dataset, count):
    return p.TakeValue(p._as_dataset(input_dataset), _int(count))


@_dataset("SkipDataset", [*_ONE_INPUT, "count: int64"], [*_TYPES, *_META],
          "All but the first count elements.")
def skip_dataset(input_dataset, count):
    return p.SkipValue(p._as_dataset(input_dataset), _int(count))


@_dataset("PrefetchDataset", [*_ONE_INPUT, "buffer_size: int64"],
          [*_TYPES, "slack_period: int = 0", "legacy_autotune: bool = true",
           "buffer_size_min: int = 0", *_META], "The input unchanged.")
def prefetch_dataset(input_dataset, buffer_size):
    return p.PrefetchValue(p._as_dataset(input_dataset))


@_dataset("CacheDataset", [*_ONE_INPUT, "filename: string"], [*_TYPES, *_META],
          "The input's first full pass, kept and replayed.")
def cache_dataset(input_dataset, filename):
    name = np.asarray(filename, dtype=object).reshape(()).item()
    return p.CacheValue(p._as_dataset(input_dataset), name.decode() if isinstance(name, bytes)
                        else str(name))


@_dataset("UnbatchDataset", _ONE_INPUT, [*_TYPES, *_META],
          "Each element split along its first dimension.")
def unbatch_dataset(input_dataset):
    return p.UnbatchValue(p._as_dataset(input_dataset))


@_dataset("WindowDataset",
          [*_ONE_INPUT, "size: int64", "shift: int64", "stride: int64",
           "drop_remainder: bool"], [*_TYPES, *_META],
          "Windows of the input, each a dataset per component.")
def window_dataset(input_dataset, size, shift, stride, drop_remainder):
    return p.WindowValue(p._as_dataset(input_dataset), _int(size), _int(shift), _int(stride),
                         bool(drop_remainder))


@_dataset("TFRecordDataset",
          ["filenames: string", "compression_type: string", "buffer_size: int64"], _META,
          "The records of TFRecord files, in order.")
def tf_record_dataset(filenames, compression_type, buffer_size):
    comp = np.asarray(compression_type, dtype=object).reshape(()).item()
    return p.FileRecordsValue(filenames, comp.decode() if isinstance(comp, bytes) else comp,
                              lines=False)


@_dataset("TextLineDataset",
          ["filenames: string", "compression_type: string", "buffer_size: int64"], _META,
          "The lines of text files, in order.")
def text_line_dataset(filenames, compression_type, buffer_size):
    comp = np.asarray(compression_type, dtype=object).reshape(()).item()
    return p.FileRecordsValue(filenames, comp.decode() if isinstance(comp, bytes) else comp,
                              lines=True)


# from_generator: TensorFlow builds it from GeneratorDataset and a PyFunc op, which tfmini does
# not have; a Python generator is kept in a process-wide table (as script_ops keeps PyFunc's
# callables) and named by a token attr.
_GENERATORS: dict[str, tuple] = {}


def register_generator(token: str, generator, dtypes, shapes) -> None:
    """Keeps ``generator`` for the ``PyGeneratorDataset`` ops whose token is ``token``."""
    _GENERATORS[token] = (generator, dtypes, shapes)


@_dataset("PyGeneratorDataset", [], ["token: string", *_TYPES, *_META],
          "The elements of a Python generator (tfmini's stand-in for TensorFlow's "
          "GeneratorDataset + PyFunc).")
def py_generator_dataset(*, token, output_types, output_shapes):
    from tfmini import errors

    entry = _GENERATORS.get(token)
    if entry is None:
        raise errors.NotFoundError(None, None, f"No Python generator registered for token "
                                   f"{token!r} (from_generator in another process?)")
    return p.GeneratorValue(*entry)
