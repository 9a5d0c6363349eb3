"""Regularized incomplete gamma and beta functions: Igamma, Igammac, IgammaGradA, Betainc
(``tf.math.igamma``, ``igammac``, ``betainc``).

TensorFlow evaluates them with Eigen's Cephes ports (``unsupported/Eigen/src/
SpecialFunctions/SpecialFunctionsImpl.h``); tfmini evaluates the same series and continued
fractions in float64, without SciPy, and rounds once to the input dtype:

* P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)) when x <= 1 or x <= a,
  else 1 - Q(a, x) with Q's continued fraction (Legendre's, evaluated as in Cephes' igamc);
* IgammaGradA, dP/da, carries the derivative with respect to a through the same recurrences
  (forward-mode differentiation, as Eigen's ``igamma_series_impl`` in DERIVATIVE mode);
* I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / ...)) (Lentz's method),
  through I_x(a, b) = 1 - I_{1-x}(b, a) when x > (a + 1) / (a + b + 2).

Out-of-domain arguments (a <= 0, x < 0, or x outside [0, 1] for Betainc) give NaN, as
TensorFlow's kernels do. Igamma/Igammac broadcast their inputs; Betainc's inputs must have
equal shapes or be scalars (``tensorflow/core/kernels/betainc_op.cc``). TensorFlow also
allows bfloat16 for Igamma/Igammac; tfmini has no bfloat16.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output, operand_pair
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import FLOAT_TYPES

_EPS = 2.0 ** -53  # the float64 machine epsilon Cephes uses (MACHEP)
_MAXLOG = math.log(np.finfo(np.float64).max)
_BIG = 2.0 ** 52
_MAX_ITER = 100_000


def _digamma(v: float) -> float:
    # Asymptotic series after shifting v above 10; only used for a > 0 here.
    result = 0.0
    while v < 10.0:
        result -= 1.0 / v
        v += 1.0
    inv2 = 1.0 / (v * v)
    return result + math.log(v) - 0.5 / v - inv2 * (
        1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))


def _igamma_series(a: float, x: float, ax: float, dax: float) -> tuple[float, float]:
    """P(a, x) and dP/da by the power series (x <= 1 or x <= a)."""
    r, c, ans = a, 1.0, 1.0
    dc, dans = 0.0, 0.0
    for _ in range(_MAX_ITER):
        r += 1.0
        dc = (dc - c / r) * x / r  # d/da of c * x / r, where dr/da = 1
        c *= x / r
        ans += c
        dans += dc
        if c <= ans * _EPS and abs(dc) <= abs(dans) * 1e-15:
            break
    scale = math.exp(ax) / a
    return ans * scale, scale * (dans + ans * dax - ans / a)


def _igammac_cf(a: float, x: float, ax: float, dax: float) -> tuple[float, float]:
    """Q(a, x) and dQ/da by the continued fraction (x > 1 and x > a)."""
    y, z, c = 1.0 - a, x + 2.0 - a, 0.0
    pkm2, qkm2, pkm1, qkm1 = 1.0, x, x + 1.0, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = 0.0, 0.0, 0.0, -x  # derivatives with respect to a
    ans, dans = pkm1 / qkm1, -(x + 1.0) * -x / (qkm1 * qkm1)
    for _ in range(_MAX_ITER):
        c += 1.0
        y += 1.0
        z += 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c  # dz/da = dy/da = -1
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        if qk != 0.0:
            r = pk / qk
            dr = (dpk - r * dqk) / qk
            t, dt = abs((ans - r) / r), abs(dans - dr)
            ans, dans = r, dr
        else:
            t, dt = 1.0, 1.0
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
        if abs(pk) > _BIG:  # rescale: the ratios are what matter
            pkm2, pkm1, qkm2, qkm1 = (v / _BIG for v in (pkm2, pkm1, qkm2, qkm1))
            dpkm2, dpkm1, dqkm2, dqkm1 = (v / _BIG for v in (dpkm2, dpkm1, dqkm2, dqkm1))
        if t <= _EPS and dt <= abs(dans) * 1e-15 + 1e-300:
            break
    scale = math.exp(ax)
    return ans * scale, scale * (dans + ans * dax)


def _igamma_parts(a: float, x: float) -> tuple[float, float, float] | None:
    """(P, Q, dP/da) for a > 0, 0 < x < inf; None outside that (handled by the callers)."""
    ax = a * math.log(x) - x - math.lgamma(a)
    if ax < -_MAXLOG:  # underflow: P is 0 or 1 to double precision
        return (0.0, 1.0, 0.0) if x < a else (1.0, 0.0, 0.0)
    dax = math.log(x) - _digamma(a)
    if x <= 1.0 or x <= a:
        p, dp = _igamma_series(a, x, ax, dax)
        return p, 1.0 - p, dp
    q, dq = _igammac_cf(a, x, ax, dax)
    return 1.0 - q, q, -dq


def _edge(a: float, x: float) -> tuple[float, float, float] | None:
    if math.isnan(a) or math.isnan(x) or a <= 0.0 or x < 0.0:
        return math.nan, math.nan, math.nan
    if x == 0.0:
        return 0.0, 1.0, 0.0
    if math.isinf(x):
        return 1.0, 0.0, -0.0
    if math.isinf(a):
        return 0.0, 1.0, 0.0
    return None


def _igamma(a: float, x: float) -> float:
    parts = _edge(a, x) or _igamma_parts(a, x)
    return parts[0]


def _igammac(a: float, x: float) -> float:
    parts = _edge(a, x) or _igamma_parts(a, x)
    return parts[1]


def _igamma_grad_a(a: float, x: float) -> float:
    parts = _edge(a, x) or _igamma_parts(a, x)
    return parts[2]


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) >= tiny else tiny)
    h = d
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) >= tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) >= tiny else tiny
            delta = d * c
            h *= delta
        if abs(delta - 1.0) <= _EPS:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if (math.isnan(a) or math.isnan(b) or math.isnan(x) or a <= 0.0 or b <= 0.0
            or x < 0.0 or x > 1.0):
        return math.nan
    if x == 0.0 or x == 1.0:
        return x
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _betainc(b, a, 1.0 - x)
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                 + b * math.log1p(-x))
    return math.exp(log_front) * _betacf(a, b, x) / a


def _elementwise(fn, *arrays: np.ndarray) -> np.ndarray:
    """``fn`` on float64 scalars over the broadcast inputs, rounded once to their dtype."""
    dtype = arrays[0].dtype
    wide = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in arrays))
    out = np.empty(wide[0].shape, np.float64)
    for idx in np.ndindex(out.shape):
        out[idx] = fn(*(float(w[idx]) for w in wide))
    return out.astype(dtype)


def _igamma_kernel(fn):
    def kernel(a, x):
        a, x = np.asarray(a), np.asarray(x)
        return _elementwise(fn, a, x)

    kernel.__name__ = f"{fn.__name__}_kernel"
    return kernel


register_op(
    "Igamma", inputs=["a: T", "x: T"], outputs=["z: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"], shape_fn=shape_fns.broadcast_binary,
    doc="The lower regularized incomplete gamma function P(a, x).",
)(_igamma_kernel(_igamma))
register_op(
    "Igammac", inputs=["a: T", "x: T"], outputs=["z: T"],
    attrs=[f"T: {{{FLOAT_TYPES}}}"], shape_fn=shape_fns.broadcast_binary,
    doc="The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x).",
)(_igamma_kernel(_igammac))
register_op(
    "IgammaGradA", inputs=["a: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"],
    shape_fn=shape_fns.broadcast_binary,
    doc="The derivative of P(a, x) with respect to a.",
)(_igamma_kernel(_igamma_grad_a))


def _betainc_shape(ic) -> list[TensorShape]:
    # Non-scalar inputs must have one shape (merged); all scalars give a scalar.
    out = None
    for i in range(3):
        s = ic.input_shape(i)
        if s.rank == 0:
            continue
        out = s if out is None else shape_fns.merge_shapes(out, s)
    if out is None:
        known = all(ic.input_shape(i).rank is not None for i in range(3))
        return [TensorShape([]) if known else TensorShape(None)]
    return [out]


@register_op(
    "Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"],
    attrs=["T: {float, double}"], shape_fn=_betainc_shape,
    doc="The regularized incomplete beta function I_x(a, b).",
)
def betainc_kernel(a, b, x):
    """I_x(a, b) elementwise; non-scalar inputs must share one shape."""
    arrays = {"a": np.asarray(a), "b": np.asarray(b), "x": np.asarray(x)}
    first = None
    for name, v in arrays.items():
        if v.ndim == 0:
            continue
        if first is None:
            first = (name, v)
        elif v.shape != first[1].shape:
            raise invalid_argument(f"Shapes of {first[0]} and {name} are inconsistent: "
                                   f"{dims_str(first[1].shape)} vs. {dims_str(v.shape)}")
    return _elementwise(_betainc, arrays["a"], arrays["b"], arrays["x"])


def igamma(a: Any, x: Any, name: str | None = None) -> Output:
    """The lower regularized incomplete gamma function P(a, x) (``tf.math.igamma``).

    Args:
        a: A float tensor of shape parameters (a > 0).
        x: A tensor of ``a``'s dtype (x >= 0), broadcastable with ``a``.
        name: Optional op name.

    Returns:
        The broadcast result; NaN where the arguments are outside the domain.
    """
    return build_output("Igamma", list(operand_pair(a, x)), name=name)


def igammac(a: Any, x: Any, name: str | None = None) -> Output:
    """The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x)
    (``tf.math.igammac``); see :func:`igamma`."""
    return build_output("Igammac", list(operand_pair(a, x)), name=name)


def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> Output:
    """The regularized incomplete beta function I_x(a, b) (``tf.math.betainc``).

    Args:
        a: A float32/float64 tensor (a > 0).
        b: A tensor of ``a``'s dtype (b > 0).
        x: A tensor of ``a``'s dtype in [0, 1].
        name: Optional op name.

    Returns:
        A tensor of the non-scalar inputs' common shape.

    Raises:
        ValueError: the static shapes of non-scalar inputs differ.
    """
    a = as_operand(a)
    return build_output("Betainc", [a, as_operand(b, a.dtype), as_operand(x, a.dtype)],
                        name=name)


__all__ = ["betainc", "igamma", "igammac"]
