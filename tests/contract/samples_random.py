"""Contract samples for the random family (tfmini/ops/random/) and Qr (tfmini/ops/linalg.py).
"""

import numpy as np

import tfmini as tm

F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64
SHAPE = np.array([2, 3], I32)
SEED = np.array([1, 2], I64)
KEY = np.array([12345], np.uint64)
COUNTER = np.array([2**64 - 1, 7], np.uint64)

SAMPLES = {
    "RandomStandardNormal": lambda: ([SHAPE], {"dtype": tm.float32, "seed": 1, "seed2": 2}),
    "RandomUniform": lambda: ([SHAPE], {"dtype": tm.float64, "seed": 1, "seed2": 2}),
    "TruncatedNormal": lambda: ([SHAPE], {"dtype": tm.float16, "seed": 3}),
    "RandomUniformInt": lambda: ([SHAPE, np.int64(-5), np.int64(7)], {"seed": 4}),
    "RandomShuffle": lambda: ([np.arange(12, dtype=F32).reshape(4, 3)], {"seed": 5}),
    "Multinomial": lambda: ([np.log(np.array([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]], F32)),
                             np.int32(4)], {"seed": 6}),
    "RandomGamma": lambda: ([np.array([3], I32), np.array([0.5, 2.0], F32)], {"seed": 7}),
    "RandomPoisson": lambda: ([np.array([3], I32), np.array([0.5, 2.0], F32)], {"seed": 8}),
    "RandomPoissonV2": lambda: ([np.array([3], I32), np.array([0.5, 2.0], F64)], {"seed": 9}),
    "ParameterizedTruncatedNormal": lambda: (
        [SHAPE, np.array([0.0, 1.0], F32), np.array([1.0, 2.0], F32),
         np.array([-1.0, 0.0], F32), np.array([1.0, 3.0], F32)], {"seed": 10}),
    "StatelessRandomNormal": lambda: ([SHAPE, SEED], {"dtype": tm.float32}),
    "StatelessRandomUniform": lambda: ([SHAPE, SEED], {"dtype": tm.float64}),
    "StatelessTruncatedNormal": lambda: ([SHAPE, SEED], {"dtype": tm.float32}),
    "StatelessRandomUniformInt": lambda: ([SHAPE, SEED, np.int32(0), np.int32(10)], {}),
    "StatelessMultinomial": lambda: ([np.zeros((2, 3), F32), np.int32(5), SEED], {}),
    "StatelessRandomGetKeyCounter": lambda: ([SEED], {}),
    "StatelessRandomGetKeyCounterAlg": lambda: ([SEED.astype(I32)], {}),
    "StatelessRandomGetAlg": lambda: ([], {}),
    "StatelessRandomNormalV2": lambda: ([SHAPE, KEY, COUNTER, np.int32(1)], {}),
    "StatelessRandomUniformV2": lambda: ([SHAPE, KEY, COUNTER, np.int32(3)],
                                         {"dtype": tm.float64}),
    "StatelessTruncatedNormalV2": lambda: ([SHAPE, KEY, COUNTER, np.int32(1)],
                                           {"dtype": tm.float16}),
    "StatelessRandomUniformIntV2": lambda: ([SHAPE, KEY, COUNTER, np.int32(1), np.int64(-4),
                                             np.int64(9)], {}),
    "StatelessRandomUniformFullIntV2": lambda: ([SHAPE, KEY, COUNTER, np.int32(1)],
                                                {"dtype": tm.uint32}),
    "RandomGammaGrad": lambda: ([np.array([[0.5], [2.0]], F64), np.array([[0.3, 1.2, 4.0]], F64)],
                                {}),
    "StatelessRandomGammaV2": lambda: ([np.array([3, 2], I32), SEED, np.array([0.5, 2.0], F32)],
                                       {}),
    "StatelessRandomGammaV3": lambda: ([np.array([3, 2], I32), KEY, COUNTER, np.int32(1),
                                        np.array([0.5, 2.0], F64)], {}),
    "StatelessRandomPoisson": lambda: ([np.array([3, 2], I32), SEED, np.array([1.5, 20.0], F64)],
                                       {"dtype": tm.int64}),
    "StatelessParameterizedTruncatedNormal": lambda: (
        [np.array([3, 2], I32), SEED, np.array([0.0, 1.0], F32), np.float32(1.0),
         np.float32(-1.0), np.float32(2.0)], {}),
    "Qr": lambda: ([np.array([[2.0, 1.0], [1.0, 3.0], [0.5, 0.5]], F64)], {}),
}
