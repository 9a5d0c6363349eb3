"""TF1's learning-rate decay functions (``tf.compat.v1.train.exponential_decay``...).

Each builds, in graph mode, the float scalar tensor of the decayed rate for ``global_step``
(cast to the learning rate's dtype, float32 for a Python float), under a name scope named as
TensorFlow names it (``ExponentialDecay``, ``PolynomialDecay``, ``SGDRDecay``...), the last op
taking the scope's name, so the result reads ``ExponentialDecay:0``. The formulas are those of
TensorFlow's schedules (``tensorflow/python/keras/optimizer_v2/learning_rate_schedule.py``,
wrapped by ``.../legacy_learning_rate_decay.py``).

tfmini's math family has no Floor or Ceil op yet: ``floor(x)`` is built as ``FloorDiv(x, 1)``
(the same value), ``ceil(x)`` as ``-FloorDiv(-x, 1)``.
"""

from __future__ import annotations

import math
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import name_scope
from tfmini.ops.array import constant
from tfmini.ops.math import (
    add,
    cast,
    cos,
    divide,
    equal,
    exp,
    floordiv,
    less_equal,
    log,
    minimum,
    multiply,
    negative,
    pow,  # noqa: A004 (TensorFlow's name)
    sqrt,
    where_v2,
)
from tfmini.ops.random import random_normal


def _floor(x):
    return floordiv(x, constant(1, dtype=x.dtype))


def _ceil(x):
    return negative(floordiv(negative(x), constant(1, dtype=x.dtype)))


def _require(global_step: Any, fn: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def _start(learning_rate: Any, global_step: Any):
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    return lr, lr.dtype, cast(global_step, lr.dtype)


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name,
                 default):
    with name_scope(name, default) as scope:
        lr, dtype, step = _start(learning_rate, global_step)
        p = step / cast(decay_steps, dtype)
        if staircase:
            p = _floor(p)
        return multiply(lr, pow(cast(decay_rate, dtype), p), name=scope)


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)``.

    Args:
        learning_rate: The initial rate (a float or scalar tensor).
        global_step: The step (an integer variable or tensor; required).
        decay_steps: Steps per decay by ``decay_rate``.
        decay_rate: The decay per ``decay_steps``.
        staircase: Decay in whole steps (the exponent floored).
        name: The name scope (default ``ExponentialDecay``).

    Returns:
        The decayed rate, a scalar tensor of ``learning_rate``'s dtype.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "exponential_decay")
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name,
                        "ExponentialDecay")


def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)`` (an exponential decay
    with rate ``exp(-decay_rate)``, as TensorFlow builds it).

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: Steps per decay.
        decay_rate: The decay rate.
        staircase: Decay in whole steps.
        name: The name scope (default ``ExponentialDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "natural_exp_decay")
    rate = exp(negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, rate, staircase, name,
                        "ExponentialDecay")


def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: str | None = None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``.

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: Steps per unit of decay.
        decay_rate: The decay rate.
        staircase: Decay in whole steps (the quotient floored).
        name: The name scope (default ``InverseTimeDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay") as scope:
        lr, dtype, step = _start(learning_rate, global_step)
        p = step / cast(decay_steps, dtype)
        if staircase:
            p = _floor(p)
        denom = constant(1, dtype=dtype) + multiply(cast(decay_rate, dtype), p)
        return divide(lr, denom, name=scope)


def piecewise_constant(x: Any, boundaries: list, values: list, name: str | None = None):
    """``values[0]`` for ``x <= boundaries[0]``, ``values[i]`` for ``boundaries[i-1] < x <=
    boundaries[i]``, ``values[-1]`` beyond the last boundary.

    Args:
        x: The step (a scalar tensor).
        boundaries: Increasing boundaries (converted to ``x``'s dtype).
        values: One more value than boundaries, all of one dtype.
        name: The name scope (default ``PiecewiseConstant``).

    Returns:
        The value for ``x``.

    Raises:
        ValueError: ``len(values) != len(boundaries) + 1``; ``x`` is None.
    """
    if x is None:
        raise ValueError("global_step is required for piecewise_constant.")
    if len(boundaries) != len(values) - 1:
        raise ValueError(
            "The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant"):
        x = convert_to_tensor(x)
        bounds = [cast(convert_to_tensor(b), x.dtype) for b in boundaries]
        vals = [convert_to_tensor(v) for v in values]
        # The last value past the last boundary; walking down, each earlier value where x is
        # at most its upper boundary (the boundaries are inclusive upper bounds).
        result = vals[-1]
        for b, v in zip(reversed(bounds), reversed(vals[:-1])):
            result = where_v2(less_equal(x, b), v, result)
        return result


def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                     end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                     name: str | None = None):
    """``(learning_rate - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end``;
    with ``cycle`` the horizon grows to the next multiple of ``decay_steps`` instead.

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: The steps to reach ``end_learning_rate``.
        end_learning_rate: The final rate.
        power: The polynomial's power.
        cycle: Restart past ``decay_steps`` (with a longer horizon).
        name: The name scope (default ``PolynomialDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay") as scope:
        lr, dtype, step = _start(learning_rate, global_step)
        end = cast(end_learning_rate, dtype)
        power = cast(power, dtype)
        steps = cast(decay_steps, dtype)
        if cycle:
            # A step of 0 counts as the first cycle (ceil(0) would make the horizon 0).
            multiplier = where_v2(equal(step, constant(0, dtype=dtype)),
                                  constant(1, dtype=dtype), _ceil(step / steps))
            steps = multiply(steps, multiplier)
        else:
            step = minimum(step, steps)
        p = step / steps
        return add(multiply(lr - end, pow(constant(1, dtype=dtype) - p, power)), end,
                   name=scope)


def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: str | None = None):
    """``learning_rate * ((1 - alpha) * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    / 2 + alpha)``.

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: Steps to the minimum.
        alpha: The minimum as a fraction of ``learning_rate``.
        name: The name scope (default ``CosineDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "cosine_decay")
    # TensorFlow leaves the last op unnamed here: the result reads "CosineDecay/Mul_3:0".
    with name_scope(name, "CosineDecay"):
        lr, dtype, step = _start(learning_rate, global_step)
        steps = cast(decay_steps, dtype)
        fraction = minimum(step, steps) / steps
        cosine = 0.5 * (1.0 + cos(constant(math.pi, dtype=dtype) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return multiply(lr, decayed)


def cosine_decay_restarts(learning_rate: Any, global_step: Any, first_decay_steps: Any,
                          t_mul: Any = 2.0, m_mul: Any = 1.0, alpha: Any = 0.0,
                          name: str | None = None):
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts ``first_decay_steps *
    t_mul**i`` steps and starts from ``learning_rate * m_mul**i``.

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        first_decay_steps: The first period's length.
        t_mul: The growth of each period's length.
        m_mul: The decay of each period's starting rate.
        alpha: The minimum as a fraction of the period's starting rate.
        name: The name scope (default ``SGDRDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "cosine_decay_restarts")
    with name_scope(name, "SGDRDecay") as scope:
        lr, dtype, step = _start(learning_rate, global_step)
        first = cast(first_decay_steps, dtype)
        alpha = cast(alpha, dtype)
        t_mul = cast(t_mul, dtype)
        m_mul = cast(m_mul, dtype)
        fraction = step / first
        one = constant(1, dtype=dtype)
        # Equal periods (t_mul == 1), or a geometric series of them; both computed, the
        # right one selected (TensorFlow picks with a cond; the values are the same).
        i_flat = _floor(fraction)
        f_flat = fraction - i_flat
        i_geo = _floor(log(one - fraction * (one - t_mul)) / log(t_mul))
        sum_r = (one - pow(t_mul, i_geo)) / (one - t_mul)
        f_geo = (fraction - sum_r) / pow(t_mul, i_geo)
        flat = equal(t_mul, one)
        i_restart = where_v2(flat, i_flat, i_geo)
        fraction = where_v2(flat, f_flat, f_geo)
        m_fac = pow(m_mul, i_restart)
        cosine = 0.5 * m_fac * (1.0 + cos(constant(math.pi, dtype=dtype) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return multiply(lr, decayed, name=scope)


def _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta, noise,
                   name, default):
    with name_scope(name, default) as scope:
        lr, dtype, step = _start(learning_rate, global_step)
        steps = cast(decay_steps, dtype)
        num_periods = cast(num_periods, dtype)
        alpha = cast(alpha, dtype)
        beta = cast(beta, dtype)
        step = minimum(step, steps)
        linear = (steps - step) / steps
        if noise is not None:
            initial_variance, variance_decay = (cast(x, dtype) for x in noise)
            variance = initial_variance / pow(1.0 + step, variance_decay)
            linear = linear + random_normal(linear.shape, stddev=sqrt(variance), dtype=dtype)
        fraction = 2.0 * num_periods * (step / steps)
        cosine = 0.5 * (1.0 + cos(constant(math.pi, dtype=dtype) * fraction))
        return multiply(lr, (alpha + linear) * cosine + beta, name=scope)


def linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                        num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                        name: str | None = None):
    """``learning_rate * ((alpha + (decay_steps - t) / decay_steps) * (1 + cos(2 * pi *
    num_periods * t / decay_steps)) / 2 + beta)``, ``t = min(step, decay_steps)``.

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: Steps of the linear decay.
        num_periods: Cosine periods over ``decay_steps``.
        alpha: Added to the linear part.
        beta: Added to the product.
        name: The name scope (default ``LinearCosineDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "linear_cosine_decay")
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          None, name, "LinearCosineDecay")


def noisy_linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                              initial_variance: Any = 1.0, variance_decay: Any = 0.55,
                              num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                              name: str | None = None):
    """:func:`linear_cosine_decay` with Gaussian noise of variance ``initial_variance /
    (1 + t) ** variance_decay`` added to the linear part (a ``random_normal`` op, seeded by
    the graph seed as any).

    Args:
        learning_rate: The initial rate.
        global_step: The step (required).
        decay_steps: Steps of the linear decay.
        initial_variance: The noise's initial variance.
        variance_decay: The decay of the noise's variance.
        num_periods: Cosine periods over ``decay_steps``.
        alpha: Added to the linear part.
        beta: Added to the product.
        name: The name scope (default ``NoisyLinearCosineDecay``).

    Returns:
        The decayed rate.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require(global_step, "noisy_linear_cosine_decay")
    return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta,
                          (initial_variance, variance_decay), name, "NoisyLinearCosineDecay")


__all__ = [
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "polynomial_decay",
]
