"""Contract samples for the ops defined in ops/array/basic.py (constants and identities).

The rest of the array family lives in samples_array.py.
"""

import numpy as np

import tfmini as tm

SAMPLES = {
    "Const": lambda: ([], {"value": np.arange(6, dtype=np.float32).reshape(2, 3),
                           "dtype": tm.float32}),
    "Placeholder": "feed",
    "PlaceholderWithDefault": lambda: ([np.ones((2, 3), np.float32)], {"shape": [None, 3]}),
    "Identity": lambda: ([np.arange(4, dtype=np.int32)], {}),
    "IdentityN": lambda: ([[np.ones(2, np.float32), np.arange(3)]], {}),
    "StopGradient": lambda: ([np.ones((2, 2), np.float64)], {}),
    "NoOp": lambda: ([], {}),
}
