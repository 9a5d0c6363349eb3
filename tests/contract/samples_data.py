"""Contract samples for the data family (tfmini/ops/data): dataset ops give a scalar variant;
iterator ops a resource handle, nothing, or the element."""

import numpy as np

import tfmini as tm
from tfmini.core.shapes import TensorShape

R = tm.raw_ops
I64 = np.int64
S = [TensorShape(())]
T = {"output_types": [tm.int64], "output_shapes": S}


def _range(n=4):
    return R.RangeDataset(start=I64(0), stop=I64(n), step=I64(1), **T)


def _fn(kind):
    """A traced function for the ops that take one (via the public API)."""
    ds = tm.data.Dataset.range(3)
    if kind == "map":
        op = ds.map(lambda x: x + 1)._variant_tensor.op
    elif kind == "filter":
        op = ds.filter(lambda x: x > 0)._variant_tensor.op
    else:
        op = ds.flat_map(lambda x: tm.data.Dataset.from_tensors(x))._variant_tensor.op
    return op.get_attr("predicate" if kind == "filter" else "f")


def _iterator():
    return R.IteratorV2(shared_name="it", container="", **T)


SAMPLES = {
    "TensorDataset": lambda: ([[np.array([1, 2])]], {"output_shapes": [TensorShape([2])]}),
    "TensorSliceDataset": lambda: ([[np.array([1, 2])]], {"output_shapes": S}),
    "RangeDataset": lambda: ([I64(0), I64(3), I64(1)], T),
    "ZipDataset": lambda: ([[_range(), _range()]],
                           {"output_types": [tm.int64] * 2, "output_shapes": S * 2}),
    "ConcatenateDataset": lambda: ([_range(), _range()], T),
    "BatchDatasetV2": lambda: ([_range(), I64(2), False],
                               {"output_types": [tm.int64],
                                "output_shapes": [TensorShape([None])]}),
    "PaddedBatchDatasetV2": lambda: ([_range(), I64(2), [np.zeros([0], I64)], [I64(0)], False],
                                     {"output_shapes": [TensorShape([None])]}),
    "MapDataset": lambda: ([_range(), []], {"f": _fn("map"), **T}),
    "ParallelMapDatasetV2": lambda: ([_range(), [], I64(2)], {"f": _fn("map"), **T}),
    "FilterDataset": lambda: ([_range(), []], {"predicate": _fn("filter"), **T}),
    "FlatMapDataset": lambda: ([_range(), []], {"f": _fn("flat_map"), **T}),
    "InterleaveDataset": lambda: ([_range(), [], I64(2), I64(1)], {"f": _fn("flat_map"), **T}),
    "ShuffleDataset": lambda: ([_range(), I64(2), I64(1), I64(2)], T),
    "RepeatDataset": lambda: ([_range(), I64(2)], T),
    "TakeDataset": lambda: ([_range(), I64(2)], T),
    "SkipDataset": lambda: ([_range(), I64(2)], T),
    "PrefetchDataset": lambda: ([_range(), I64(1)], T),
    "CacheDataset": lambda: ([_range(), ""], T),
    "UnbatchDataset": lambda: ([R.BatchDatasetV2(
        input_dataset=_range(), batch_size=I64(2), drop_remainder=False, output_types=[tm.int64],
        output_shapes=[TensorShape([None])])], T),
    "WindowDataset": lambda: ([_range(), I64(2), I64(1), I64(1), False],
                              {"output_types": [tm.variant], "output_shapes": S}),
    "TFRecordDataset": lambda: (["missing.tfrecord", "", I64(0)], {}),
    "TextLineDataset": lambda: (["missing.txt", "", I64(0)], {}),
    "PyGeneratorDataset": lambda: ([], {"token": tm.data.Dataset.from_generator(
        lambda: iter([1]), tm.int64, [])._variant_tensor.op.get_attr("token"), **T}),
    "IteratorV2": lambda: ([], {"shared_name": "it", "container": "", **T}),
    "IteratorToStringHandle": lambda: ([_iterator()], {}),
    "MakeIterator": lambda: ([_range(), _iterator()], {}),
    "IteratorGetNext": lambda: ([_iterator()], T, [R.MakeIterator(dataset=_range(),
                                                                  iterator=_iterator())]),
    "OneShotIterator": lambda: ([], {"dataset_factory": tm.data.make_one_shot_iterator(
        tm.data.Dataset.range(2))._handle.op.get_attr("dataset_factory"), **T}),
}
