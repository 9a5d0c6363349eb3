"""``tm.test``: numeric gradient checking, as ``tf.compat.v1.test.compute_gradient``.

The theoretical Jacobian comes from the symbolic gradients (one backward run per element of
``y``); the numerical one from central differences (two forward runs per element of ``x``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.context import get_default_session
from tfmini.core.dtypes import as_dtype
from tfmini.core.scope import scope_context
from tfmini.gradients import gradients
from tfmini.ops.array import placeholder
from tfmini.ops.common.indexed_slices import IndexedSlicesValue


def _dense(value: Any, shape: tuple) -> np.ndarray:
    if isinstance(value, IndexedSlicesValue):
        out = np.zeros(shape, dtype=np.asarray(value.values).dtype)
        np.add.at(out, np.asarray(value.indices), np.asarray(value.values))
        return out
    return np.asarray(value)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta: float = 1e-3,
                     init_targets=None, extra_feed_dict=None, session=None):
    """Theoretical and numerical Jacobians of ``y`` with respect to ``x``.

    Args:
        x: A tensor (or list of tensors) that can be fed; the points of evaluation.
        x_shape: Its shape (a list of shapes for a list ``x``).
        y: The output tensor.
        y_shape: Its shape.
        x_init_value: Value(s) of ``x`` (default: random in [-1, 1), fixed seed).
        delta: Central-difference step.
        init_targets: Ops to run first (e.g. variable initializers).
        extra_feed_dict: Further feeds for every run.
        session: Session to use (default: the default session).

    Returns:
        ``(jacobian_t, jacobian_n)``, each of shape ``[x_size, y_size]``; lists of such
        pairs when ``x`` is a list.
    """
    sess = session or get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session or session=")
    xs = _as_list(x)
    shapes = x_shape if isinstance(x, (list, tuple)) else [x_shape]
    if x_init_value is None:
        rng = np.random.default_rng(0)
        inits = [rng.uniform(-1, 1, s).astype(xi.dtype.np_dtype) for xi, s in zip(xs, shapes)]
    else:
        inits = [np.asarray(v, xi.dtype.np_dtype)
                 for xi, v in zip(xs, _as_list(x_init_value) if isinstance(x, (list, tuple))
                                  else [x_init_value])]
    for t in init_targets or ():
        sess.run(t)
    feeds = dict(extra_feed_dict or {})
    y_shape = tuple(y_shape)
    y_size = int(np.prod(y_shape))
    with scope_context(_root_scope(y)):
        dy = placeholder(as_dtype(y.dtype), shape=y_shape, name="compute_gradient_dy")
        grads = gradients(y, xs, grad_ys=dy)
    results = []
    for k, (xi, shape, init) in enumerate(zip(xs, shapes, inits)):
        shape = tuple(shape)
        x_size = int(np.prod(shape))
        base = {**feeds, **{xj: v for xj, v in zip(xs, inits)}}
        jac_t = np.zeros((x_size, y_size), dtype=np.float64)
        if grads[k] is not None:
            for j in range(y_size):
                onehot = np.zeros(y_size, y.dtype.np_dtype)
                onehot[j] = 1
                value = sess.run(grads[k], {**base, dy: onehot.reshape(y_shape)})
                jac_t[:, j] = _dense(value, shape).reshape(-1)
        jac_n = np.zeros((x_size, y_size), dtype=np.float64)
        flat = init.astype(np.float64).reshape(-1)
        for i in range(x_size):
            plus, minus = flat.copy(), flat.copy()
            plus[i] += delta
            minus[i] -= delta
            y_plus = sess.run(y, {**base, xi: plus.reshape(shape).astype(init.dtype)})
            y_minus = sess.run(y, {**base, xi: minus.reshape(shape).astype(init.dtype)})
            diff = np.asarray(y_plus, np.float64) - np.asarray(y_minus, np.float64)
            jac_n[i, :] = diff.reshape(-1) / (2 * delta)
        results.append((jac_t, jac_n))
    return results if isinstance(x, (list, tuple)) else results[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta: float = 1e-3,
                           init_targets=None, extra_feed_dict=None, session=None) -> float:
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    result = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                              extra_feed_dict, session)
    pairs = result if isinstance(result, list) else [result]
    return max(float(np.max(np.abs(t - n))) if t.size else 0.0 for t, n in pairs)


def _root_scope(y):
    from tfmini.core.scope import Scope

    return Scope(y.graph)


__all__ = ["compute_gradient", "compute_gradient_error"]
