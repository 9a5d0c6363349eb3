"""Bad input to the array/math/linalg breadth ops: whatever shape or value an input has at
run time, the op either runs or fails with a ``tm.errors`` class naming the op, and the
Session stays usable (never a bare Python exception from a kernel).

Each op is built from its contract sample (tests/contract/) with one input at a time replaced
by a value of unknown static shape: a scalar, an empty vector, or the input with an extra
leading dimension, so only the kernel sees the problem.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.contract import samples_array_layout, samples_math_breadth
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope

SAMPLES = {**samples_array_layout.SAMPLES, **samples_math_breadth.SAMPLES}


def _variants(value):
    a = np.asarray(value)
    yield np.zeros((), a.dtype)
    yield np.zeros((0,), a.dtype)
    yield np.stack([a, a])


@pytest.mark.parametrize("op_type", sorted(SAMPLES))
def test_unexpected_shapes_fail_cleanly(op_type):
    inputs, attrs = SAMPLES[op_type]()[:2]
    for position, value in enumerate(inputs):
        if isinstance(value, (list, Output)):
            continue
        for bad in _variants(value):
            g = tm.Graph()
            with g.as_default():
                args = list(inputs)
                args[position] = tm.placeholder_with_default(bad, None)
                try:
                    op = build_op(current_scope(), op_type, args, attrs)
                except (ValueError, TypeError):
                    continue  # refused at build time, as TensorFlow's shape functions do
                with tm.Session(graph=g) as sess:
                    try:
                        sess.run(list(op.outputs))
                    except tm.errors.OpError as e:
                        # Named, and a known class (UnknownError would be an unforeseen crash).
                        assert op_type in str(e), str(e)
                        assert not isinstance(e, tm.errors.UnknownError), str(e)
                    assert sess.run(tm.constant(2.0)) == 2.0
