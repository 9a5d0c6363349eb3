"""Contract samples for the math family (tfmini/ops/math/)."""

import numpy as np

import tfmini as tm


def _x(shape=(2, 3), dtype=np.float32, low=-3.0, high=3.0):
    n = int(np.prod(shape))
    return np.linspace(low, high, n).reshape(shape).astype(dtype)


def _binary(dtype=np.float32, x_shape=(2, 3), y_shape=(3,), **kw):
    return lambda: ([_x(x_shape, dtype, **kw), _x(y_shape, dtype, 0.5, 2.0)], {})


def _unary(dtype=np.float32, low=-3.0, high=3.0):
    return lambda: ([_x(dtype=dtype, low=low, high=high)], {})


def _reduce(dtype=np.float32, axes=(0, -1), keep=False):
    return lambda: ([_x((2, 3, 4), dtype), np.array(axes, np.int32)], {"keep_dims": keep})


_bool_x = np.array([[True, False, True], [False, False, True]])
_bool_y = np.array([True, False, False])

SAMPLES = {
    # Numeric, so the gradient contract checks Add too (string Add is in the math goldens).
    "Add": _binary(np.float64, x_shape=(2, 1), y_shape=(3,)),
    "AddV2": _binary(np.int32, low=-5, high=5),
    "AddN": lambda: ([[_x(), _x(), _x(dtype=np.float32, low=0.0)]], {}),
    "Sub": _binary(np.float64, x_shape=(2, 1), y_shape=(1, 3)),
    "Mul": _binary(np.float16),
    "RealDiv": _binary(),
    "Div": lambda: ([np.array([7, -7, 6], np.int32), np.array([2, 2, -4], np.int32)], {}),
    "FloorDiv": _binary(np.float64),
    "FloorMod": lambda: ([np.array([7, -7, 6], np.int64), np.array([2, 2, -4], np.int64)], {}),
    "Pow": lambda: ([_x(dtype=np.float32, low=0.5), _x((3,), np.float32, -1.0, 2.0)], {}),
    "Maximum": _binary(np.uint8, low=0, high=9),
    "Minimum": _binary(np.int8),
    "Less": _binary(),
    "LessEqual": _binary(np.int16),
    "Greater": _binary(np.float64),
    "GreaterEqual": _binary(np.int64),
    "Equal": lambda: ([_x(), _x((2, 1))], {"incompatible_shape_error": True}),
    "NotEqual": lambda: ([_x((2,)), _x((3,))], {"incompatible_shape_error": False}),
    "LogicalAnd": lambda: ([_bool_x, _bool_y], {}),
    "LogicalOr": lambda: ([_bool_x, _bool_y], {}),
    "LogicalNot": lambda: ([_bool_x], {}),
    "Neg": _unary(np.int32),
    "Abs": _unary(np.float64),
    "Sign": _unary(),
    "Square": _unary(np.uint8, 0, 20),
    "Sqrt": _unary(low=0.0),
    "Rsqrt": _unary(np.float64, 0.1, 4.0),
    "Exp": _unary(np.float16),
    "Log": _unary(low=0.1),
    "Log1p": _unary(np.float64, -0.5, 3.0),
    "Sin": _unary(),
    "Cos": _unary(np.float64),
    "Tanh": _unary(),
    "Sigmoid": _unary(np.float16),
    "Select": lambda: ([np.array([True, False]), _x(), -_x()], {}),
    "SelectV2": lambda: ([_bool_y, _x((2, 1)), _x((1, 3))], {}),
    "Cast": lambda: ([_x()], {"DstT": tm.int32, "Truncate": False}),
    "MatMul": lambda: ([_x((3, 2)), _x((4, 3))], {"transpose_a": True, "transpose_b": True}),
    "BatchMatMulV2": lambda: ([_x((2, 1, 2, 3)), _x((3, 4, 3))], {"adj_y": True}),
    "Sum": _reduce(),
    "Mean": _reduce(np.int32, axes=(1,), keep=True),
    "Max": _reduce(np.float64, axes=()),
    "Min": _reduce(np.int64, axes=(-2,)),
    "Prod": _reduce(np.float16, axes=(0, 1, 2), keep=True),
    "ArgMax": lambda: ([_x((2, 3, 4)), np.int32(-1)], {"output_type": tm.int32}),
    "ArgMin": lambda: ([_x((2, 3), np.uint8, 0, 9), np.int64(0)], {}),
}
