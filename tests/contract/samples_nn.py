"""Contract samples for the nn family (tfmini/ops/nn/nn_ops.py)."""

import numpy as np


def _x(shape=(2, 3), dtype=np.float32):
    return np.linspace(-3, 3, int(np.prod(shape))).reshape(shape).astype(dtype)


def _unary(dtype=np.float32):
    return lambda: ([_x(dtype=dtype)], {})


def _grad(dtype=np.float32):
    return lambda: ([np.ones((2, 3), dtype), _x(dtype=dtype)], {})


SAMPLES = {
    "Relu": _unary(np.int32),
    "Relu6": _unary(np.float16),
    "Elu": _unary(np.float64),
    "Selu": _unary(),
    "Softplus": _unary(),
    "Softsign": _unary(),
    "LeakyRelu": lambda: ([_x()], {"alpha": 0.1}),
    "ReluGrad": _grad(),
    "Relu6Grad": _grad(np.int64),
    "EluGrad": _grad(np.float64),
    "SeluGrad": _grad(),
    "SoftplusGrad": _grad(np.float16),
    "SoftsignGrad": _grad(),
    "LeakyReluGrad": lambda: ([np.ones((2, 3), np.float32), _x()], {"alpha": 0.3}),
    "Softmax": lambda: ([_x((2, 2, 3))], {}),
    "LogSoftmax": lambda: ([_x(dtype=np.float64)], {}),
    "BiasAdd": lambda: ([_x((2, 3, 4)), np.arange(3, dtype=np.float32)],
                        {"data_format": "NCHW"}),
    "BiasAddV1": lambda: ([_x((2, 3), np.int32), np.arange(3, dtype=np.int32)], {}),
    "BiasAddGrad": lambda: ([_x((2, 3, 4))], {"data_format": "NHWC"}),
    "SoftmaxCrossEntropyWithLogits": lambda: ([_x(), np.full((1, 3), 1 / 3, np.float32)], {}),
    "SparseSoftmaxCrossEntropyWithLogits": lambda: ([_x(), np.array([0, 2], np.int32)], {}),
    "L2Loss": lambda: ([_x(dtype=np.float16)], {}),
}
