"""Contract samples for the helper ops registered in tfmini/ops/array_grad.py."""

import numpy as np

import tfmini as tm


def _x(shape=(2, 3, 4), dtype=np.float32):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def _unknown(value):
    """A value whose static shape is unknown, so only the kernel decides the output shape."""
    return tm.placeholder_with_default(np.asarray(value), None)


SAMPLES = {
    "InvertPermutation": lambda: ([np.array([2, 0, 3, 1], np.int64)], {}),
    "ConcatOffset": lambda: ([np.int32(-2), [np.array([2, 3, 4], np.int32),
                                             np.array([2, 5, 4], np.int32)]], {}),
    "Pad": lambda: ([_x(dtype=np.float64), _unknown(np.array([[1, 0], [0, 2], [1, 1]]))], {}),
    "StridedSliceGrad": lambda: ([_unknown(np.array([3, 4], np.int64)), np.array([0, 3]),
                                  np.array([2, 0]), np.array([1, -2]), _x((2, 2))],
                                 {"begin_mask": 0, "shrink_axis_mask": 0}),
    "GatherNd": lambda: ([_x(), _unknown(np.array([[1, 2], [0, 0]], np.int16))], {}),
}
