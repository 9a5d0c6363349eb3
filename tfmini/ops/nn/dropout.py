"""``tm.nn.dropout`` as ``tf.compat.v1.nn.dropout`` (``tensorflow/python/ops/nn_ops.py``):
``keep_prob`` (deprecated) or ``rate``, the scale ``1 / (1 - rate)``, and a keep mask from
``tm.random_uniform(noise_shape) >= rate``, so a seeded graph drops TensorFlow's elements.
Its gradient comes from the ops it is made of.
"""

from __future__ import annotations

import numbers
from typing import Any

from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops.array import constant, shape, stack
from tfmini.ops.math import cast, greater_equal, multiply, realdiv, subtract, where_v2
from tfmini.ops.random import get_seed, random_uniform

__all__ = ["dropout"]


def _noise_shape(x: Output, noise_shape: Any) -> Any:
    if noise_shape is None:
        return shape(x)
    if is_symbolic(noise_shape):
        return noise_shape
    dims = list(noise_shape)
    x_dims = x.shape.as_list() if x.shape.dims is not None else None
    if x_dims is not None and len(x_dims) == len(dims) and any(d is None for d in dims):
        dims = [xd if d is None else d for d, xd in zip(dims, x_dims)]
        if any(d is None for d in dims):
            xs = shape(x)
            return stack([xs[i] if d is None else d for i, d in enumerate(dims)])
    return dims


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None, rate: Any = None) -> Output:
    """Zeroes elements of ``x`` with probability ``rate`` and scales the rest by
    ``1 / (1 - rate)``.

    Args:
        x: A float tensor.
        keep_prob: Deprecated: ``1 - rate``. Give exactly one of ``keep_prob`` and ``rate``.
        noise_shape: Shape of the keep mask (broadcast against ``x``); default ``x``'s shape.
        seed: Op seed (with the graph seed, as :func:`tm.get_seed`).
        name: Name scope (default ``"dropout"``).
        rate: Probability of dropping each element, a float in [0, 1) or a scalar tensor.

    Raises:
        ValueError: both or neither of ``keep_prob`` and ``rate``; ``rate`` outside [0, 1);
            ``x`` not floating.
    """
    try:
        rate_from_keep_prob = 1.0 - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError(f"`keep_prob` must be a floating point number or Tensor. Received: "
                         f"keep_prob={keep_prob}") from None
    if rate is not None and rate_from_keep_prob is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if rate is None:
        rate = rate_from_keep_prob
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    with name_scope(name, "dropout"):
        is_rate_number = isinstance(rate, numbers.Real) and not is_symbolic(rate)
        if is_rate_number and (rate < 0 or rate >= 1):
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={x.dtype.name}")
        if is_rate_number and rate == 0:
            get_seed(seed)  # the seed request TensorFlow's fast path also makes
            return x
        if is_rate_number:
            scale = convert_to_tensor(1 / (1 - rate), dtype=x.dtype)
            ret = multiply(x, scale)
        else:
            rate = convert_to_tensor(rate)
            if rate.shape.dims is not None and len(rate.shape.dims) != 0:
                raise ValueError(f"Shape {rate.shape} must have rank 0")
            if rate.dtype != x.dtype:
                rate = cast(rate, x.dtype, name="rate")
            one = constant(1, dtype=x.dtype)
            ret = realdiv(x, subtract(one, rate))
        random_tensor = random_uniform(_noise_shape(x, noise_shape), seed=seed, dtype=x.dtype)
        keep = greater_equal(random_tensor, rate)
        zero = constant(0, dtype=x.dtype)
        return where_v2(keep, ret, zero)
