"""``tm.nn`` functions composed of other ops, as TensorFlow's ``python/ops/nn_impl.py`` (and a
few of ``nn_ops.py``) build them: moments, batch normalisation, l2_normalize, swish, crelu,
xw_plus_b, relu_layer, the weighted and Poisson losses, zero_fraction.

They register no op: their gradients come from the ops they are made of. The subgraphs are
TensorFlow's op for op (same op types, same order of operations), so the values agree with
``tf.compat.v1.nn`` within float rounding and names follow TensorFlow's scopes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.common.build_util import op_scope
from tfmini.ops.nn import nn_ops


def _keep_dims(keep_dims: bool | None, keepdims: bool | None) -> bool:
    """TensorFlow's deprecated_argument_lookup for ``keepdims`` / ``keep_dims``."""
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    value = keepdims if keepdims is not None else keep_dims
    return bool(value) if value is not None else False


def _axes_list(axes: Any) -> Any:
    # Python lists of axes become int32 constants, as TensorFlow converts them.
    if isinstance(axes, (list, tuple)):
        return np.asarray(axes, np.int32)
    return axes


def _with_type(x: Any, dtype: dtypes.DType) -> Output:
    return math_ops.cast(x, dtype) if x.dtype != dtype else x


def moments(x: Any, axes: Any, shift: Any = None, name: str | None = None,
            keep_dims: bool | None = None, keepdims: bool | None = None
            ) -> tuple[Output, Output]:
    """Mean and (biased) variance of ``x`` over ``axes`` (``tf.compat.v1.nn.moments``).

    ``mean = reduce_mean(x)``, ``variance = reduce_mean(squared_difference(x,
    stop_gradient(mean)))``; half precision is computed in float32 and cast back.

    Args:
        x: A floating tensor.
        axes: The axes to reduce (a list of ints or an int tensor).
        shift: Ignored, as in TensorFlow.
        name: Name scope (default ``moments``).
        keep_dims: Keep the reduced axes with length 1 (deprecated spelling).
        keepdims: Keep the reduced axes with length 1.

    Returns:
        ``(mean, variance)``.

    Raises:
        ValueError: an axis outside the rank of ``x`` ("Invalid reduction dimension").
    """
    del shift  # TensorFlow ignores it: the mean is computed first anyway.
    keep = _keep_dims(keep_dims, keepdims)
    with name_scope(name, "moments"):
        x = convert_to_tensor(x, name="x")
        y = math_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        axes_t = _axes_list(axes)
        mean = math_ops.reduce_mean(y, axes_t, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)),
            axes_t, keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: str | None = None,
                     keep_dims: bool | None = None, keepdims: bool | None = None
                     ) -> tuple[Output, Output]:
    """Frequency-weighted mean and variance (``tf.compat.v1.nn.weighted_moments``).

    ``mean = sum(w * x) / sum(w)``, ``variance = sum(w * (x - mean) ** 2) / sum(w)``, both
    ``div_no_nan`` (0 where the weights sum to 0); the weights broadcast against ``x``.

    Args:
        x: A floating tensor.
        axes: The axes to reduce.
        frequency_weights: Weights broadcastable to ``x`` (cast to its dtype).
        name: Name scope (default ``weighted_moments``).
        keep_dims: Keep the reduced axes (deprecated spelling).
        keepdims: Keep the reduced axes.

    Returns:
        ``(weighted_mean, weighted_variance)``.
    """
    keep = _keep_dims(keep_dims, keepdims)
    with name_scope(name, "weighted_moments"):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        frequency_weights = _with_type(frequency_weights, x.dtype)
        axes_t = _axes_list(axes)
        weighted_input_sum = math_ops.reduce_sum(
            frequency_weights * x, axes_t, name="weighted_input_sum", keepdims=True)
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(
            broadcasted_weights, axes_t, name="sum_of_weights", keepdims=True)
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = math_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean),
            axes_t, name="weighted_distsq", keepdims=True)
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


def sufficient_statistics(x: Any, axes: Sequence[int], shift: Any = None,
                          keep_dims: bool | None = None, name: str | None = None,
                          keepdims: bool | None = None) -> tuple[Any, Output, Output, Any]:
    """Count, sum and sum of squares of ``x`` over ``axes``, optionally shifted
    (``tf.compat.v1.nn.sufficient_statistics``).

    Args:
        x: A tensor.
        axes: Python ints, the axes to reduce (duplicates are dropped).
        shift: None, or a value subtracted from ``x`` first (for numerical stability).
        keep_dims: Keep the reduced axes (deprecated spelling).
        name: Name scope (default ``sufficient_statistics``).
        keepdims: Keep the reduced axes.

    Returns:
        ``(count, mean_ss, var_ss, shift)``: the count is a constant of ``x``'s dtype when
        the reduced dimensions are known when the graph is built, else computed from the
        shape; ``shift`` is returned as a tensor (or None).
    """
    axes = sorted(set(int(a) for a in axes))
    keep = _keep_dims(keep_dims, keepdims)
    with name_scope(name, "sufficient_statistics"):
        x = convert_to_tensor(x, name="x")
        shape = x.shape
        if shape.rank is not None and all(shape.dims[d] is not None for d in axes):
            counts = 1
            for d in axes:
                counts *= shape.dims[d]
            counts = array_ops.constant(counts, dtype=x.dtype)
        else:
            rank = array_ops.rank(x)
            positive_axes = [a + rank if a < 0 else a for a in axes]
            if all(isinstance(a, int) for a in positive_axes):
                positive_axes = np.asarray(positive_axes, np.int32)
            else:
                positive_axes = array_ops.stack(positive_axes)
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype), positive_axes)
            counts = math_ops.reduce_prod(x_dims, name="count")
        axes_t = np.asarray(axes, np.int32)
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes_t, keepdims=keep, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes_t, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any,
                      name: str | None = None) -> tuple[Output, Output]:
    """Mean and variance from sufficient statistics (``tf.nn.normalize_moments``).

    Args:
        counts: The number of elements summed.
        mean_ss: The (shifted) sum of the elements.
        variance_ss: The (shifted) sum of their squares.
        shift: The shift used for the sums, or None.
        name: Name scope (default ``normalize``).

    Returns:
        ``(mean, variance)``: ``mean_ss / counts (+ shift)`` and
        ``variance_ss / counts - (mean_ss / counts) ** 2``.
    """
    with name_scope(name, "normalize"):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     math_ops.square(shifted_mean), name="variance")
    return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: float, name: str | None = None) -> Output:
    """Normalises ``x`` with given statistics (``tf.nn.batch_normalization``).

    In TensorFlow's order, which is what makes it bit-exact: ``inv = rsqrt(variance +
    epsilon)``, ``inv *= scale`` (if given), then ``x * inv + (offset - mean * inv)`` (or
    ``+ (-mean * inv)`` without an offset).

    Args:
        x: A floating tensor.
        mean: The mean, broadcastable to ``x``.
        variance: The variance, broadcastable to ``x``.
        offset: The offset (beta), or None.
        scale: The scale (gamma), or None.
        variance_epsilon: A small float added to the variance.
        name: Name scope (default ``batchnorm``).

    Returns:
        The normalised tensor, of ``x``'s shape and dtype.
    """
    with name_scope(name, "batchnorm"):
        x = convert_to_tensor(x, name="x")
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(shift, x.dtype)


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> Output:
    """``x * rsqrt(max(sum(x ** 2, axis), epsilon))`` (``tf.math.l2_normalize``,
    ``tf.nn.l2_normalize``).

    Args:
        x: A floating tensor.
        axis: The axis or axes to normalise over (default: all).
        epsilon: Lower bound on the squared sum (so zero vectors stay zero).
        name: Name of the result op and its scope (default ``l2_normalize``).
        dim: Deprecated alias of ``axis``.

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        ValueError: both ``axis`` and ``dim`` given, or an axis outside the rank.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    axis = _axes_list(axis if axis is not None else dim)
    with op_scope(name, "l2_normalize") as (outer, base):
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        eps = np.asarray(epsilon, x.dtype.np_dtype)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, eps))
    return build_op(outer, "Mul", [x, x_inv_norm], name=base).outputs[0]


def zero_fraction(value: Any, name: str | None = None) -> Output:
    """The fraction of zeros in ``value``, a float32 scalar (``tf.math.zero_fraction``).

    TensorFlow counts in int32 under a ``cond`` when the size fits in int32 and in int64
    otherwise; tfmini builds only the int32 count (a tensor of more than 2**31 elements is
    far beyond what it runs).

    Args:
        value: A numeric tensor.
        name: Name scope (default ``zero_fraction``).

    Returns:
        ``(size - count_nonzero) / size`` as float32, named ``<scope>/fraction``.
    """
    with name_scope(name, "zero_fraction"):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        with name_scope("count_nonzero"):
            zero = array_ops.zeros([], dtype=value.dtype)
            nonzero = math_ops.reduce_sum(
                math_ops.cast(math_ops.not_equal(value, zero), dtypes.int32),
                name="nonzero_count")
        num_nonzero = math_ops.cast(nonzero, dtypes.int64)
        with name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            num_zero_float32 = math_ops.cast(num_zero, dtypes.float32)
            size_float32 = math_ops.cast(size, dtypes.float32)
            zero_fraction_float32 = num_zero_float32 / size_float32
        return array_ops.identity(zero_fraction_float32, "fraction")


def swish(features: Any, beta: Any = 1.0) -> Output:
    """``features * sigmoid(beta * features)`` (``tf.nn.swish``, ``tf.nn.silu``).

    TensorFlow wraps this in a custom gradient (to recompute the sigmoid instead of keeping
    it); tfmini differentiates the same expression directly, which gives the same values.

    Args:
        features: A floating tensor.
        beta: The slope inside the sigmoid (a number or a scalar tensor).

    Returns:
        A tensor of the shape and dtype of ``features``.
    """
    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, name="beta")
    beta = _with_type(beta, features.dtype)
    return features * math_ops.sigmoid(beta * features)


silu = swish


def crelu(features: Any, name: str | None = None, axis: int = -1) -> Output:
    """``relu(concat([features, -features], axis))`` (``tf.compat.v1.nn.crelu``): the
    result has twice the size along ``axis``.

    Args:
        features: A real tensor.
        name: Name of the concatenation and scope of the Relu (default ``CRelu``).
        axis: The axis along which the two halves are joined.

    Returns:
        ``<scope>/Relu``, of the dtype of ``features``.
    """
    with op_scope(name, "CRelu") as (outer, base):
        features = convert_to_tensor(features, name="features")
        neg = math_ops.negative(features)
        axis_t = np.asarray(axis, np.int32)
        c = build_op(outer, "ConcatV2", [[features, neg], axis_t], name=base).outputs[0]
        return nn_ops.relu(c)


def _linear(x: Any, weights: Any, biases: Any, bias_op: str, default: str,
            name: str | None) -> Output:
    with op_scope(name, default) as (outer, base):
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        mm = math_ops.matmul(x, weights)
    return build_op(outer, bias_op, [mm, biases], name=base).outputs[0]


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Output:
    """``matmul(x, weights) + biases`` (``tf.compat.v1.nn.xw_plus_b``): MatMul, BiasAdd.

    Args:
        x: A 2-D tensor ``[batch, in]``.
        weights: A 2-D tensor ``[in, out]``.
        biases: A 1-D tensor ``[out]``.
        name: Name of the BiasAdd and scope of the MatMul (default ``xw_plus_b``).

    Returns:
        A ``[batch, out]`` tensor.
    """
    return _linear(x, weights, biases, "BiasAdd", "xw_plus_b", name)


def relu_layer(x: Any, weights: Any, biases: Any, name: str | None = None) -> Output:
    """``relu(matmul(x, weights) + biases)`` (``tf.compat.v1.nn.relu_layer``).

    Args:
        x: A 2-D tensor ``[batch, in]``.
        weights: A 2-D tensor ``[in, out]``.
        biases: A 1-D tensor ``[out]``.
        name: Name of the Relu and scope of the others (default ``relu_layer``).

    Returns:
        A ``[batch, out]`` tensor.
    """
    with op_scope(name, "relu_layer") as (outer, base):
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        pre = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
    return build_op(outer, "Relu", [pre], name=base).outputs[0]


def weighted_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                       pos_weight: Any = None, name: str | None = None,
                                       targets: Any = None) -> Output:
    """Sigmoid cross entropy with the positive term weighted by ``pos_weight``
    (``tf.compat.v1.nn.weighted_cross_entropy_with_logits``).

    Computed as TensorFlow does, stably: ``(1 - z) * x + (1 + (q - 1) * z) *
    (log1p(exp(-|x|)) + relu(-x))`` for logits x, labels z and pos_weight q.

    Args:
        labels: Targets, the shape and dtype of ``logits``.
        logits: A float32/float64 tensor.
        pos_weight: The weight of the positive examples.
        name: Name of the final Add and its scope (default ``logistic_loss``).
        targets: Deprecated alias of ``labels``.

    Returns:
        The elementwise loss, shaped like ``logits``.

    Raises:
        ValueError: both ``labels`` and ``targets`` given, or shapes that differ.
    """
    if labels is not None and targets is not None:
        raise ValueError("Cannot specify both 'labels' and 'targets'")
    labels = labels if labels is not None else targets
    with op_scope(name, "logistic_loss") as (outer, base):
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError("`logits` and `labels` must have the same shape, received "
                             f"({logits.shape} vs {labels.shape}).")
        log_weight = 1 + (pos_weight - 1) * labels
        first = (1 - labels) * logits
        second = log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
                               + nn_ops.relu(-logits))
    return build_op(outer, "AddV2", [first, second], name=base).outputs[0]


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: str | None = None) -> Output:
    """Negative log-likelihood of ``targets`` under a Poisson of rate ``exp(log_input)``,
    less the constant ``log(z!)`` unless ``compute_full_loss`` (``tf.nn.log_poisson_loss``).

    ``exp(c) - z * c``, plus, with ``compute_full_loss``, Stirling's approximation
    ``z * log(z) - z + 0.5 * log(2 * pi * z)`` where ``z > 1`` (0 for ``0 <= z <= 1``).

    Args:
        targets: The counts z, the shape and dtype of ``log_input``.
        log_input: c = log of the predicted rate (float32/float64).
        compute_full_loss: Add the Stirling term.
        name: Name scope (default ``log_poisson_loss``).

    Returns:
        The elementwise loss.

    Raises:
        ValueError: ``targets`` and ``log_input`` differ in shape.
    """
    with name_scope(name, "log_poisson_loss"):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError("`log_input` and `targets` must have the same shape, received "
                             f"({log_input.shape} vs {targets.shape}).")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            np_dtype = targets.dtype.np_dtype
            point_five = array_ops.constant(np.asarray(0.5, np_dtype))
            two_pi = array_ops.constant(np.asarray(2 * math.pi, np_dtype))
            stirling_approx = (targets * math_ops.log(targets)) - targets + (
                point_five * math_ops.log(two_pi * targets))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += math_ops.where(cond, zeros, stirling_approx)
        return result


__all__ = [
    "batch_normalization",
    "crelu",
    "l2_normalize",
    "log_poisson_loss",
    "moments",
    "normalize_moments",
    "relu_layer",
    "silu",
    "sufficient_statistics",
    "swish",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "xw_plus_b",
    "zero_fraction",
]
