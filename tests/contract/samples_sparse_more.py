"""Contract samples for the SparseTensor ops of tfmini/ops/array/sparse_math.py and
sparse_layout.py (values are checked against TensorFlow in tests/ops/array/test_sparse_more.py)."""

import numpy as np

_IDX = np.array([[0, 0], [0, 3], [1, 0], [2, 1], [2, 3]], np.int64)
_VAL = np.linspace(-1.0, 2.0, 5)
_SHAPE = np.array([3, 4], np.int64)
_B_IDX = np.array([[0, 0], [1, 2], [2, 3]], np.int64)
_B_VAL = np.array([0.5, -1.5, 2.5])


def _sp():
    return [_IDX, _VAL, _SHAPE]


SAMPLES = {
    "SparseAdd": lambda: ([*_sp(), _B_IDX, _B_VAL, _SHAPE, np.float64(0.25)], {}),
    "SparseAddGrad": lambda: ([np.linspace(1.0, 2.0, 6), _IDX, _B_IDX,
                               np.array([[0, 0], [0, 3], [1, 0], [1, 2], [2, 1], [2, 3]],
                                        np.int64)], {}),
    "SparseTensorDenseAdd": lambda: ([*_sp(), np.linspace(0, 1, 12).reshape(3, 4)], {}),
    "SparseReduceSum": lambda: ([*_sp(), np.array([1], np.int32)], {"keep_dims": False}),
    "SparseReduceSumSparse": lambda: ([*_sp(), np.array([0], np.int32)], {"keep_dims": True}),
    "SparseReduceMax": lambda: ([*_sp(), np.array([0], np.int32)], {"keep_dims": False}),
    "SparseReduceMaxSparse": lambda: ([*_sp(), np.array([1], np.int32)], {"keep_dims": False}),
    "SparseTensorDenseMatMul": lambda: ([*_sp(), np.linspace(-1, 1, 8).reshape(4, 2)],
                                        {"adjoint_a": False, "adjoint_b": False}),
    "SparseReorder": lambda: ([_IDX[::-1].copy(), _VAL, _SHAPE], {}),
    "SparseConcat": lambda: ([[_IDX, _B_IDX], [_VAL, _B_VAL], [_SHAPE, _SHAPE]],
                             {"concat_dim": 1}),
    "SparseSlice": lambda: ([*_sp(), np.array([0, 1], np.int64), np.array([3, 3], np.int64)],
                            {}),
    "SparseDenseCwiseMul": lambda: ([*_sp(), np.linspace(1, 2, 4)], {}),
    "SparseDenseCwiseDiv": lambda: ([*_sp(), np.linspace(1, 2, 12).reshape(3, 4)], {}),
    "SparseDenseCwiseAdd": lambda: ([*_sp(), np.linspace(1, 2, 4)], {}),
    "SparseSoftmax": lambda: ([*_sp()], {}),
    "SparseSparseMaximum": lambda: ([*_sp(), _B_IDX, _B_VAL, _SHAPE], {}),
    "SparseSparseMinimum": lambda: ([*_sp(), _B_IDX, _B_VAL, _SHAPE], {}),
    "SparseSliceGrad": lambda: ([np.array([1.0, 2.0]), _IDX, np.array([0, 1], np.int64),
                                 np.array([[0, 2], [2, 0]], np.int64)], {}),
}
