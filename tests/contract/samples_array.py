"""Contract samples for the shape-manipulation ops of tfmini/ops/array/.

The ops at the top of that module (Const, Placeholder, PlaceholderWithDefault,
Identity, IdentityN, StopGradient, NoOp) are sampled in samples_core.py; an op
may be sampled only once.
"""

import numpy as np

import tfmini as tm


def _x(shape=(2, 3, 4), dtype=np.float32):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def _unknown(value):
    """A value whose static shape is unknown, so only the kernel decides the output shape."""
    return tm.placeholder_with_default(np.asarray(value), None)


SAMPLES = {
    "Shape": lambda: ([_x()], {"out_type": tm.int64}),
    "Size": lambda: ([_unknown(_x())], {}),
    "Rank": lambda: ([_unknown(_x(dtype=np.int32))], {}),
    "Reshape": lambda: ([_x(), np.array([4, -1], np.int64)], {}),
    "ExpandDims": lambda: ([_x(), -1], {}),
    "Squeeze": lambda: ([_x((1, 3, 1)), ], {"squeeze_dims": [-1]}),
    "Transpose": lambda: ([_x(dtype=np.int64), [2, 0, 1]], {}),
    "ConcatV2": lambda: ([[_x(), _x(), _x((2, 1, 4))], 1], {}),
    "Pack": lambda: ([[_x((3,)), _x((3,))]], {"axis": -1}),
    "Unpack": lambda: ([_x((2, 3))], {"num": 3, "axis": 1}),
    "Split": lambda: ([2, _x()], {"num_split": 2}),
    "SplitV": lambda: ([_x(dtype=np.float64), np.array([1, -1], np.int64), 1], {"num_split": 2}),
    "Slice": lambda: ([_x(), [1, 0, 1], [-1, 2, 3]], {}),
    "StridedSlice": lambda: ([_x(), [0, 2], [0, 0], [1, -1]],
                             {"begin_mask": 1, "end_mask": 3, "new_axis_mask": 0}),
    "Tile": lambda: ([_x((2, 1), np.int8), [1, 3]], {}),
    "Fill": lambda: ([np.array([2, 0, 3], np.int64), np.float16(1.5)], {}),
    "ZerosLike": lambda: ([_x(dtype=np.uint8)], {}),
    "OnesLike": lambda: ([_x(dtype=np.bool_)], {}),
    "Range": lambda: ([np.float32(0.5), np.float32(3.0), np.float32(0.7)], {}),
    "GatherV2": lambda: ([_x(), np.array([[2, 0], [1, 1]], np.int64), 1], {"batch_dims": 1}),
    "ScatterNd": lambda: ([[[0], [2], [0]], _x((3, 4)), [4, 4]], {}),
    "UnsortedSegmentSum": lambda: ([_x((4, 2), np.float64), [0, -1, 2, 0], 3], {}),
    "Unique": lambda: ([np.array([4, 1, 4, 7, 1], np.int64)], {"out_idx": np.int64}),
    "OneHot": lambda: ([np.array([[0, 3], [1, -1]], np.int64), 3, 1.0, 0.0], {"axis": 1}),
    "BroadcastTo": lambda: ([_x((3, 1)), [2, 3, 4]], {}),
}
