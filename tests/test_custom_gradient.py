"""tm.custom_gradient in graph mode and tm.GradientTape's refusal (TensorFlow's values are in
tests/ops/data_flow/test_functional_goldens.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


def test_builds_identity_n_with_a_unique_gradient_override(graph):
    @tm.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy

    a = f(tm.constant(1.0))
    b = f(tm.constant(2.0))
    assert a.op.type == b.op.type == "IdentityN"
    ga, gb = graph.gradient_override_of(a.op), graph.gradient_override_of(b.op)
    assert ga.startswith("CustomGradient-") and gb.startswith("CustomGradient-") and ga != gb


def test_variables_need_a_variables_argument(graph):
    v = tm.Variable(1.0, name="v", use_resource=True)

    @tm.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with pytest.raises(TypeError, match="must accept keyword argument 'variables'"):
        f(tm.constant(1.0))


def test_a_variable_gradient_per_variable(graph):
    v = tm.Variable(1.0, name="v", use_resource=True)

    @tm.custom_gradient
    def f(x):
        return x * v, lambda dy, variables=None: (dy, [])

    y = f(tm.constant(1.0))
    with pytest.raises(ValueError, match="Must return gradient for each variable"):
        tm.gradients(y, v)


def test_nested_structures_and_unused_results(graph):
    x = tm.constant([1.0, 2.0])

    @tm.custom_gradient
    def f(u):
        def grad(d_sum, d_prod):
            return (d_sum * 7.0 + d_prod) * tm.ones_like(u)
        return (tm.reduce_sum(u), tm.reduce_prod(u)), grad

    total, _ = f(x)
    (gx,) = tm.gradients(total, x)
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx), [7.0, 7.0])


def test_gradient_tape_refuses_with_the_alternative():
    with pytest.raises(NotImplementedError, match=r"use tm.gradients\(ys, xs\)"):
        tm.GradientTape()
