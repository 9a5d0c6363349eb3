"""Contract samples for the ops registered by the math gradients (tfmini/ops/math_grad.py)."""

import numpy as np

SAMPLES = {
    "BroadcastGradientArgs": lambda: (
        [np.array([2, 1, 3], np.int32), np.array([4, 1], np.int32)], {}),
}
