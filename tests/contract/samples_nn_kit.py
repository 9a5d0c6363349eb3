"""Contract samples for the nn helpers' ops (tfmini/ops/nn/lrn_ops.py, top_k_ops.py); the math
ops they build on (SquaredDifference, DivNoNan, Reciprocal) are sampled with the math family."""

import numpy as np


def _x(shape, low=-2.0, high=3.0, dtype=np.float32):
    n = int(np.prod(shape))
    # A permuted ramp: distinct values (no ties for TopKV2) in no sorted order.
    v = np.linspace(low, high, n)[np.random.default_rng(7).permutation(n)]
    return v.reshape(shape).astype(dtype)


_LRN_ATTRS = {"depth_radius": 2, "bias": 1.5, "alpha": 0.4, "beta": 0.75}


def _lrn_grad():
    x = _x((2, 1, 2, 5))
    norm = 1.5 + 0.4 * np.array([[[[sum(v[max(0, c - 2):c + 3] ** 2) for c in range(5)]
                                   for v in row] for row in img] for img in x])
    return [_x((2, 1, 2, 5), -1.0, 1.0), x, (x * norm ** -0.75).astype(np.float32)], _LRN_ATTRS


SAMPLES = {
    "LRN": lambda: ([_x((2, 1, 2, 5))], _LRN_ATTRS),
    "LRNGrad": _lrn_grad,
    "TopKV2": lambda: ([_x((2, 3, 5)), np.int32(3)], {"sorted": True}),
    "InTopKV2": lambda: ([_x((3, 4)), np.array([0, 3, 2], np.int64), np.int64(2)], {}),
}
