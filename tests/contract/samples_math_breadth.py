"""Contract samples for the math family's newer ops (tfmini/ops/math/{special,bitwise,
cumulative,segment_reduction,einsum_ops,linalg_ops,reduction,incomplete}.py)."""

import numpy as np

import tfmini as tm


def _x(shape=(2, 3), dtype=np.float32, low=-0.9, high=0.9):
    n = int(np.prod(shape))
    return np.linspace(low, high, n).reshape(shape).astype(dtype)


def _unary(dtype=np.float32, low=-0.9, high=0.9):
    return lambda: ([_x(dtype=dtype, low=low, high=high)], {})


def _binary(dtype=np.float32, low=-0.9, high=0.9, ylow=0.5, yhigh=2.0):
    return lambda: ([_x(dtype=dtype, low=low, high=high), _x((3,), dtype, ylow, yhigh)], {})


def _ints(values, dtype=np.int32):
    return np.array(values, dtype)


def _spd(n=3, batch=()):
    a = np.arange(n * n, dtype=np.float64).reshape(n, n) * 0.1 + np.eye(n)
    return np.broadcast_to(a @ a.T + n * np.eye(n), batch + (n, n)).copy()


_bits_x = _ints([[5, -3, 12], [0, 7, -128]], np.int16)
_bits_y = _ints([1, 2, 3], np.int16)
_data = _x((5, 2), np.float64, -2.0, 3.0)
_scan = lambda dtype=np.float32, **attrs: lambda: (  # noqa: E731
    [_x((2, 3), dtype, 0.2, 1.5), np.int32(1)],
    {"exclusive": False, "reverse": False, **attrs})

SAMPLES = {
    "Erf": _unary(), "Erfc": _unary(np.float64), "Lgamma": _unary(low=0.3, high=4.0),
    "Erfinv": _unary(np.float64), "Ndtri": _unary(np.float64, 0.05, 0.9),
    "Digamma": _unary(np.float64, 0.3, 4.0), "Floor": _unary(), "Ceil": _unary(np.float16),
    "Round": lambda: ([_ints([[1, -2, 3]])], {}), "Rint": _unary(np.float64, -2.5, 2.5),
    "Reciprocal": _unary(low=0.5, high=2.0), "Inv": _unary(np.float64, 0.5, 2.0),
    "Expm1": _unary(), "Tan": _unary(), "Asin": _unary(), "Acos": _unary(np.float64),
    "Atan": _unary(), "Sinh": _unary(), "Cosh": _unary(), "Asinh": _unary(),
    "Acosh": _unary(low=1.2, high=3.0), "Atanh": _unary(np.float64),
    "Atan2": _binary(), "SquaredDifference": _binary(np.float64),
    "Xlogy": _binary(), "Xlog1py": _binary(np.float64), "Xdivy": _binary(),
    "DivNoNan": lambda: ([_x(), np.array([0.5, 0.0, 2.0], np.float32)], {}),
    "TruncateDiv": lambda: ([_ints([7, -7, 6]), _ints([2, 2, -4])], {}),
    "TruncateMod": _binary(np.float64, -3.0, 3.0),
    "Zeta": lambda: ([np.array([2.5, 3.0, 4.0]), _x((2, 3), np.float64, 0.5, 2.0)], {}),
    "Polygamma": lambda: ([tm.constant([1.0, 2.0, 0.0], tm.float64),
                           _x((2, 3), np.float64, 0.5, 2.0)], {}),
    "Igamma": lambda: ([np.array([[0.5], [2.0]]), np.array([0.3, 1.5, 4.0])], {}),
    "Igammac": lambda: ([np.array([1.5, 3.0, 0.7]), _x((2, 3), np.float64, 0.5, 5.0)], {}),
    "IgammaGradA": lambda: ([np.array([1.5, 3.0, 0.7]), _x((2, 3), np.float64, 0.5, 5.0)], {}),
    "Betainc": lambda: ([np.array([0.5, 2.0, 3.5]), np.array([1.5, 0.7, 2.0]),
                         np.array([0.2, 0.6, 0.9])], {}),
    "IsFinite": lambda: ([np.array([1.0, np.inf, np.nan], np.float32)], {}),
    "IsNan": lambda: ([np.array([1.0, np.inf, np.nan], np.float16)], {}),
    "IsInf": lambda: ([np.array([1.0, -np.inf, np.nan])], {}),
    "BitwiseAnd": lambda: ([_bits_x, _bits_y], {}),
    "BitwiseOr": lambda: ([_bits_x, _bits_y], {}),
    "BitwiseXor": lambda: ([_bits_x.astype(np.uint8), _bits_y.astype(np.uint8)], {}),
    "LeftShift": lambda: ([_bits_x, _ints([1, 20, -1], np.int16)], {}),
    "RightShift": lambda: ([_bits_x.astype(np.int64), _ints([1, 70, 3], np.int64)], {}),
    "Invert": lambda: ([_bits_x.astype(np.int8)], {}),
    "PopulationCount": lambda: ([_bits_x], {}),
    "All": lambda: ([_x() > 0, np.int32(1)], {"keep_dims": False}),
    "Any": lambda: ([_x((2, 3, 2)) > 0.5, _ints([0, 2])], {"keep_dims": True}),
    "EuclideanNorm": lambda: ([_x((2, 3, 2)), _ints([0, -1])], {"keep_dims": False}),
    "Cumsum": _scan(), "Cumprod": _scan(np.float64, exclusive=True),
    "CumulativeLogsumexp": _scan(np.float64, reverse=True),
    "SegmentSum": lambda: ([_data, _ints([0, 0, 1, 3, 3])], {}),
    "SegmentMean": lambda: ([_data, _ints([0, 0, 1, 3, 3], np.int64)], {}),
    "SegmentMax": lambda: ([_data, _ints([0, 1, 1, 1, 2])], {}),
    "SegmentMin": lambda: ([_data, _ints([0, 0, 0, 2, 2])], {}),
    "SegmentProd": lambda: ([_data, _ints([0, 0, 1, 1, 1])], {}),
    "UnsortedSegmentMax": lambda: ([_data, _ints([2, -1, 0, 1, 0]), np.int32(3)], {}),
    "UnsortedSegmentMin": lambda: ([_data, _ints([1, 1, 0, -1, 0]), np.int64(2)], {}),
    "UnsortedSegmentProd": lambda: ([_data, _ints([1, 0, 0, 1, -1]), np.int32(2)], {}),
    "LinSpace": lambda: ([np.float32(-1.0), np.float32(2.0), np.int32(7)], {}),
    "Cross": lambda: ([_x((2, 3)), _x((2, 3), low=0.3, high=2.0)], {}),
    "MulNoNan": lambda: ([_x(), np.array([0.0, 1.5, -2.0], np.float32)], {}),
    "NextAfter": lambda: ([_x((2, 3), np.float64), np.array([0.0, 5.0, -5.0])], {}),
    "Mod": lambda: ([_ints([7, -7, 7]), _ints([3, 3, -3])], {}),
    "ApproximateEqual": lambda: ([_x(), _x() + np.float32(1e-6)], {"tolerance": 1e-5}),
    "Einsum": lambda: ([[_x((2, 3)), _x((3, 4), low=0.1, high=1.2)]], {"equation": "ij,jk->ik"}),
    "MatrixInverse": lambda: ([_spd()], {"adjoint": True}),
    "MatrixDeterminant": lambda: ([_spd(2, (2,))], {}),
    "LogMatrixDeterminant": lambda: ([_spd()], {}),
    "Cholesky": lambda: ([_spd(3, (2,))], {}),
    "MatrixSolve": lambda: ([_spd(), _x((3, 2), np.float64)], {"adjoint": False}),
    "MatrixTriangularSolve": lambda: ([np.tril(_spd()), _x((3, 2), np.float64)],
                                      {"lower": True, "adjoint": True}),
    "MatrixSolveLs": lambda: ([_x((4, 2), np.float64, 0.1, 2.0) + np.eye(4, 2),
                               _x((4, 1), np.float64), np.float64(0.0)], {"fast": True}),
    "Svd": lambda: ([np.array([[3.0, 1.0, 0.5], [0.2, 2.0, 0.1]])],
                    {"compute_uv": True, "full_matrices": False}),
    "SelfAdjointEigV2": lambda: ([np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.3],
                                            [0.1, 0.3, 5.0]])], {"compute_v": True}),
}
