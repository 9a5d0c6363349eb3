"""Contract samples for the complex-number ops (tfmini/ops/math/complex_ops.py).

The gradient contract differentiates real inputs only, so it checks ``Complex`` (float parts
in); the others take complex inputs and their gradients are checked against TensorFlow's in
tests/ops/math/test_complex.py.
"""

import numpy as np

import tfmini as tm

_Z = np.array([[1.5 - 2.0j, -0.5 + 0.25j, 3.0 + 0.0j], [0.0 - 1.0j, 2.0 + 2.0j, -1.0 - 3.0j]],
              np.complex64)
_PART = {"Tout": tm.float32}

SAMPLES = {
    "Complex": lambda: ([np.linspace(-2, 2, 6).reshape(2, 3), np.linspace(1, 3, 3)],
                        {"Tout": tm.complex128}),
    "Real": lambda: ([_Z], _PART),
    "Imag": lambda: ([_Z], _PART),
    "Angle": lambda: ([_Z.astype(np.complex128)], {"Tout": tm.float64}),
    "ComplexAbs": lambda: ([_Z], _PART),
    "Conj": lambda: ([_Z], {}),
}
