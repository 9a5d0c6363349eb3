"""Local response normalisation: the LRN and LRNGrad ops and ``tm.nn.lrn``.

As TensorFlow's ``core/kernels/lrn_op.cc``: over the channels (the last axis of a 4-D NHWC
input), ``sqr_sum[c] = sum(input[c - r .. c + r] ** 2)`` with the window clipped to the
existing channels, and ``output = input / (bias + alpha * sqr_sum) ** beta``. Alpha is not
divided by the window size. The window sums are taken in float64 (float32 for half inputs is
not enough) and rounded once, within a few ulps of TensorFlow's Eigen contraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument

# TensorFlow's T is {half, bfloat16, float} (default float); tfmini has no bfloat16.
_LRN_ATTRS = [
    "depth_radius: int = 5",
    "bias: float = 1.0",
    "alpha: float = 1.0",
    "beta: float = 0.5",
    "T: {half, float} = DT_FLOAT",
]


def _window_sum(v: np.ndarray, radius: int) -> np.ndarray:
    """``sum(v[..., c - radius .. c + radius])`` for every channel c, clipped at both ends."""
    depth = v.shape[-1]
    cs = np.zeros(v.shape[:-1] + (depth + 1,), np.float64)
    np.cumsum(v, axis=-1, out=cs[..., 1:])
    c = np.arange(depth)
    hi = np.minimum(c + radius + 1, depth)
    lo = np.maximum(c - radius, 0)
    return cs[..., hi] - cs[..., lo]


def _check_radius(depth_radius: int) -> None:
    # TensorFlow casts the attr to int and refuses what does not fit (so any negative value).
    if depth_radius < 0:
        raise invalid_argument(f"depth_radius = {depth_radius} larger than int max")


def _norm(x: np.ndarray, depth_radius: int, bias: float, alpha: float) -> np.ndarray:
    """bias + alpha * the windowed sum of squares, in float64."""
    x64 = x.astype(np.float64)
    return np.float64(np.float32(bias)) + np.float64(np.float32(alpha)) * _window_sum(
        x64 * x64, depth_radius)


def _lrn_shape(ic) -> list[TensorShape]:
    return [shape_fns.with_rank(ic.input_shape(0), 4)]


@register_op(
    "LRN",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_LRN_ATTRS,
    shape_fn=_lrn_shape,
)
def lrn_kernel(input, *, depth_radius, bias, alpha, beta):  # noqa: A002  (TF's arg name)
    """input / (bias + alpha * sqr_sum) ** beta over a channel window of ``depth_radius``."""
    if input.ndim != 4:
        raise invalid_argument("in must be 4-dimensional")
    _check_radius(depth_radius)
    norm = _norm(input, depth_radius, bias, alpha)
    b = np.float64(np.float32(beta))
    scale = 1.0 / np.sqrt(norm) if b == 0.5 else np.power(norm, -b)
    return (input.astype(np.float64) * scale).astype(input.dtype)


def _lrn_grad_shape(ic) -> list[TensorShape]:
    s = shape_fns.with_rank(ic.input_shape(0), 4)
    s = shape_fns.merge_shapes(s, shape_fns.with_rank(ic.input_shape(1), 4))
    return [shape_fns.merge_shapes(s, shape_fns.with_rank(ic.input_shape(2), 4))]


@register_op(
    "LRNGrad",
    inputs=["input_grads: T", "input_image: T", "output_image: T"],
    outputs=["output: T"],
    attrs=_LRN_ATTRS,
    shape_fn=_lrn_grad_shape,
)
def lrn_grad_kernel(input_grads, input_image, output_image, *, depth_radius, bias, alpha,
                    beta):
    """The gradient of LRN with respect to its input, given its input and output.

    For channel k: ``g[k] * norm[k] ** -beta - 2 * alpha * beta * x[k] *
    sum_j(g[j] * y[j] / norm[j])`` over the channels j whose window holds k (TensorFlow's
    LRNGradOp, which reads the given output image rather than recomputing it).
    """
    if input_grads.ndim != 4 or input_image.ndim != 4 or output_image.ndim != 4:
        raise invalid_argument("inputs must be 4-dimensional")
    if not input_grads.shape == input_image.shape == output_image.shape:
        raise invalid_argument(
            "input_grads, input_image, and out_image should have the same shape")
    _check_radius(depth_radius)
    norm = _norm(input_image, depth_radius, bias, alpha)
    g = input_grads.astype(np.float64)
    a = np.float64(np.float32(alpha))
    b = np.float64(np.float32(beta))
    direct = g * np.power(norm, -b)
    spread = _window_sum(g * output_image.astype(np.float64) / norm, depth_radius)
    out = direct - 2.0 * a * b * input_image.astype(np.float64) * spread
    return out.astype(input_grads.dtype)


def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1.0,  # noqa: A002
                                 alpha: float = 1.0, beta: float = 0.5,
                                 name: str | None = None) -> Output:
    """Local response normalisation over the last axis (``tf.nn.local_response_normalization``,
    also ``tf.nn.lrn``): one ``LRN`` op.

    Args:
        input: A 4-D half or float32 tensor (NHWC).
        depth_radius: Half-width of the channel window.
        bias: Offset added to the scaled sum (usually positive, to avoid dividing by 0).
        alpha: Scale of the sum of squares (not divided by the window size).
        beta: Exponent.
        name: Name of the op.

    Returns:
        A tensor of the shape and dtype of ``input``.

    Raises:
        ValueError: ``input`` is not 4-D (when the graph is built).
        InvalidArgumentError: a negative ``depth_radius`` (when it runs).
    """
    return build_op(current_scope(), "LRN", [input], {
        "depth_radius": depth_radius, "bias": bias, "alpha": alpha, "beta": beta},
        name=name).outputs[0]


lrn = local_response_normalization

__all__ = ["local_response_normalization", "lrn"]
