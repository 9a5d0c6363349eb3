"""RandomGammaGrad: the derivative of a Gamma(alpha, 1) sample with respect to alpha
(TensorFlow's ``random_gamma_grad``, ``tensorflow/core/kernels/cwise_op_random_grad.cc`` over
Eigen's ``gamma_sample_der_alpha``), used by RandomGamma's gradient.

The derivative is the implicit reparameterization one: a sample ``x`` is ``P^-1(alpha, u)`` for
a uniform ``u`` (``P`` the regularized lower incomplete gamma function), so
``dx/dalpha = -(dP/dalpha) / pdf(x)``. ``dP/dalpha`` comes from differentiating, term by term,
the power series of ``P`` (for ``x < alpha + 1``) or the continued fraction of ``1 - P``
(otherwise), as Moore's Algorithm AS 187 and Eigen do; the ratios to the pdf are formed
analytically, so nothing overflows. Computed in double; TensorFlow's float kernel evaluates
the series in float, so float results agree to rounding (about 1e-6 relative), not in every bit.
"""

from __future__ import annotations

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.random import libm

__all__: list[str] = []

_EPS = 1e-17


def digamma(a: np.ndarray) -> np.ndarray:
    """The digamma function for positive ``a`` (recurrence up to 6, then the asymptotic
    series)."""
    a = np.array(a, np.float64)
    acc = np.zeros_like(a)
    while True:
        small = a < 6
        if not small.any():
            break
        acc -= np.where(small, 1 / np.where(small, a, 1), 0)
        a = np.where(small, a + 1, a)
    inv2 = 1 / (a * a)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 * (1 / 132)))))
    return acc + np.log(a) - 0.5 / a - series


def _series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # P = x^a e^-x / Gamma(a+1) * S, S = sum_n t_n with t_n = prod_k x / (a + k); the result
    # -(dP/da) / pdf = -(x / a) * (S * (log x - digamma(a + 1)) + dS/da).
    s = np.ones_like(a)
    ds = np.zeros_like(a)
    t = np.ones_like(a)
    h = np.zeros_like(a)
    n = 0
    todo = np.ones(a.shape, bool)
    while todo.any() and n < 100_000:
        n += 1
        t = np.where(todo, t * x / (a + n), 0.0)
        h = h + 1 / (a + n)
        s = s + t
        ds = ds - t * h
        todo = (t > _EPS * s) | (t * h > _EPS * np.abs(ds))
    return -(x / a) * (s * (np.log(x) - digamma(a + 1)) + ds)


def _continued_fraction(a: np.ndarray, x: np.ndarray, depth: int) -> tuple[np.ndarray, ...]:
    # 1 - P = x^a e^-x / Gamma(a) * F, F = 1 / (x+1-a - 1(1-a) / (x+3-a - 2(2-a) / ...)),
    # evaluated from the bottom with its derivative in a.
    g = x + 2 * depth + 1 - a
    dg = -np.ones_like(a)
    for k in range(depth, 0, -1):
        c = k * (k - a)
        g, dg = (x + 2 * k - 1 - a) - c / g, -1 - (-k * g - c * dg) / (g * g)
    return 1 / g, -dg / (g * g)


def _upper(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # -(dP/da) / pdf = (d(1-P)/da) / pdf = x * (F * (log x - digamma(a)) + dF/da).
    depth = 32
    f, df = _continued_fraction(a, x, depth)
    while depth < 1 << 16:
        depth *= 2
        f2, df2 = _continued_fraction(a, x, depth)
        done = (np.abs(f2 - f) <= 1e-16 * np.abs(f2)) & (np.abs(df2 - df) <= 1e-15 * np.abs(df2))
        f, df = f2, df2
        if done.all():
            break
    return x * (f * (np.log(x) - digamma(a)) + df)


def gamma_sample_der_alpha(alpha, sample, dtype=np.float64) -> np.ndarray:
    """``d sample / d alpha`` for Gamma(alpha, 1) samples (double; broadcasts): 0 at 0, -0 at
    infinity, nan where alpha is not positive, the sample is negative, or either is nan.

    As Eigen, the result is 0 (-0 on the continued-fraction side) where
    ``x**a e**-x / Gamma(a)`` underflows ``dtype``: below ``1 / dtype's largest value``."""
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(sample, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == np.inf)] = -0.0
    mid = ok & (x > 0) & np.isfinite(x) & np.isfinite(a)
    with np.errstate(all="ignore"):
        logax = a * np.log(np.where(mid, x, 1.0)) - x - libm.lgamma(np.where(mid, a, 1.0))
    tiny = mid & (logax < -np.log(np.finfo(dtype).max))
    out[tiny & (x < a + 1)] = 0.0
    out[tiny & (x >= a + 1)] = -0.0
    mid &= ~tiny
    low = mid & (x < a + 1)
    high = mid & ~low
    with np.errstate(all="ignore"):
        if low.any():
            out[low] = _series(a[low], x[low])
        if high.any():
            out[high] = _upper(a[high], x[high])
    return out


@register_op(
    "RandomGammaGrad",
    inputs=["alpha: T", "sample: T"],
    outputs=["output: T"],
    attrs=["T: {float, double}"],
    shape_fn=shape_fns.broadcast_binary,
)
def random_gamma_grad_kernel(alpha, sample, *, T):  # noqa: N803
    """``d sample / d alpha`` of Gamma(alpha, 1) samples (broadcasting ``alpha`` and
    ``sample``)."""
    return gamma_sample_der_alpha(alpha, sample, T.np_dtype).astype(T.np_dtype)


no_gradient("RandomGammaGrad")
