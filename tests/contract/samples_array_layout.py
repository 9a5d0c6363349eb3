"""Contract samples for the array family's padding, reordering, diagonal, scatter, mask and
counting ops (tfmini/ops/array/{pad_ops,where_mask,reverse_roll,sort_search,diagonals,
tensor_scatter,counting}.py)."""

import numpy as np

import tfmini as tm


def _x(shape=(3, 4), dtype=np.float32):
    return (np.arange(int(np.prod(shape))).reshape(shape) * 0.37 - 1.0).astype(dtype)


def _i(values, dtype=np.int32):
    return np.array(values, dtype)


SAMPLES = {
    "PadV2": lambda: ([_x(), _i([[1, 0], [2, 1]]), np.float32(-2.0)], {}),
    "MirrorPad": lambda: ([_x(), _i([[1, 2], [3, 0]], np.int64)], {"mode": "REFLECT"}),
    "MirrorPadGrad": lambda: ([_x((5, 6)), _i([[1, 1], [0, 2]])], {"mode": "SYMMETRIC"}),
    "Where": lambda: ([_x() > 0.5], {}),
    "ReverseV2": lambda: ([_x((2, 3, 4)), _i([0, -1])], {}),
    "ReverseSequence": lambda: ([_x((3, 4)), _i([2, 4, 0], np.int64)],
                                {"seq_dim": 1, "batch_dim": 0}),
    "Roll": lambda: ([_x(), _i([1, -5]), _i([0, 1])], {}),
    "LowerBound": lambda: ([np.sort(_x(), axis=1), _x((3, 2)) + 0.1], {"out_type": tm.int64}),
    "UpperBound": lambda: ([_i([[1, 2, 2, 5]]), _i([[2, 0, 6]])], {}),
    "MatrixBandPart": lambda: ([_x((2, 3, 4)), np.int64(1), np.int64(-1)], {}),
    "MatrixDiagV3": lambda: ([_x((2, 3)), _i([-1, 0]), np.int32(-1), np.int32(4),
                              np.float32(0.5)], {"align": "LEFT_RIGHT"}),
    "MatrixDiagPartV3": lambda: ([_x((2, 3, 4)), _i([-1, 1]), np.float32(9.0)], {}),
    "MatrixSetDiagV3": lambda: ([_x((3, 4)), _x((3,)), np.int32(1)], {}),
    "Diag": lambda: ([_x((2, 2))], {}),
    "DiagPart": lambda: ([_x((3, 3))], {}),
    "TensorScatterUpdate": lambda: ([_x(), _i([[2], [0]]), _x((2, 4))], {}),
    "TensorScatterAdd": lambda: ([_x(), _i([[1, 1], [2, 3]]), _x((2,))], {}),
    "TensorScatterSub": lambda: ([_x(), _i([[0], [0]], np.int64), _x((2, 4))], {}),
    "TensorScatterMin": lambda: ([_x(), _i([[1, 2], [0, 3]]), _x((2,)) * 3], {}),
    "TensorScatterMax": lambda: ([_x(), _i([[1, 2], [0, 0]]), _x((2,)) * 3], {}),
    "ScatterNdNonAliasingAdd": lambda: ([_x(), _i([[2], [2]]), _x((2, 4))], {}),
    "UniqueWithCounts": lambda: ([_i([4, 1, 4, 2, 1, 4])], {"out_idx": tm.int64}),
    "UniqueV2": lambda: ([_i([[1, 2], [3, 4], [1, 2]]), _i([0], np.int64)], {}),
    "ListDiff": lambda: ([_i([4, 1, 4, 2, 7]), _i([4, 9])], {}),
    "Bincount": lambda: ([_i([1, 1, 3, 0]), np.int32(5), np.zeros(0, np.float32)], {}),
    "DenseBincount": lambda: ([_i([[1, 1, 3], [0, 0, 7]]), np.int32(4), _x((2, 3))],
                              {"binary_output": False}),
    "HistogramFixedWidth": lambda: ([_x((10,)), np.array([-1.0, 2.0], np.float32),
                                     np.int32(4)], {}),
    "SpaceToBatchND": lambda: ([_x((2, 3, 4, 1)), _i([2, 2]), _i([[1, 0], [0, 2]])], {}),
    "BatchToSpaceND": lambda: ([_x((8, 2, 3, 1)), _i([2, 2], np.int64), _i([[1, 0], [0, 2]])],
                               {}),
    "SpaceToBatch": lambda: ([_x((1, 4, 2, 2)), _i([[0, 0], [1, 1]])], {"block_size": 2}),
    "BatchToSpace": lambda: ([_x((4, 2, 2, 1)), _i([[0, 1], [1, 0]])], {"block_size": 2}),
    "SpaceToDepth": lambda: ([_x((1, 4, 6, 2))], {"block_size": 2, "data_format": "NHWC"}),
    "DepthToSpace": lambda: ([_x((2, 1, 2, 8))], {"block_size": 2, "data_format": "NHWC"}),
    "BroadcastArgs": lambda: ([_i([2, 1, 3]), _i([4, 1])], {}),
    "ShapeN": lambda: ([[_x(), _x((2, 0, 1))]], {"out_type": tm.int64}),
    "UnravelIndex": lambda: ([_i([0, 7, 11]), _i([3, 4])], {}),
    "CheckNumerics": lambda: ([_x()], {"message": "checked"}),
    "Bitcast": lambda: ([_x((2,), np.float32)], {"type": tm.uint8}),
    "Snapshot": lambda: ([_x()], {}),
    "PreventGradient": lambda: ([_x()], {"message": "no"}),
    "Reverse": lambda: ([_x((2, 3, 4)), np.array([True, False, True])], {}),
    "MatrixDiag": lambda: ([_x((2, 3))], {}),
    "MatrixDiagPart": lambda: ([_x((2, 3, 4))], {}),
    "MatrixSetDiag": lambda: ([_x((3, 4)), _x((3,))], {}),
    "MatrixDiagV2": lambda: ([_x((2, 3)), _i([-1, 0]), np.int32(-1), np.int32(4),
                              np.float32(0.5)], {}),
    "MatrixDiagPartV2": lambda: ([_x((2, 3, 4)), _i([-1, 1]), np.float32(9.0)], {}),
    "MatrixSetDiagV2": lambda: ([_x((3, 4)), _x((2, 3)), _i([0, 1])], {}),
    "UniqueWithCountsV2": lambda: ([_i([[1, 2], [3, 4], [1, 2]]), _i([0], np.int64)], {}),
    "EnsureShape": lambda: ([_x()], {"shape": tm.TensorShape([None, 4])}),
}
