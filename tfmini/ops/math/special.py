"""More elementwise math: rounding, trigonometric and hyperbolic functions, special functions
(erf, lgamma, digamma, polygamma, zeta), safe products (xlogy, xdivy), truncating division,
and the float classifiers IsFinite/IsNan/IsInf.

Kernels are NumPy ufuncs where NumPy's semantics equal TensorFlow's (``cwise_op_*.cc``); the
special functions NumPy lacks are evaluated in float64 by series (digamma, Hurwitz zeta) or
Python's ``math`` (erf, erfc, lgamma), then rounded once to the input's dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output, operand_pair
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import COMPLEX_TYPES, FLOAT_TYPES
from tfmini.ops.math.elementwise import binary_op, unary_op

_SIGNED_INT = "int8, int16, int32, int64"


def _in_double(fn):
    """A kernel computing ``fn`` elementwise in float64 and rounding once to the input dtype."""
    vec = np.vectorize(fn, otypes=[np.float64])

    def kernel(x):
        x = np.asarray(x)
        return vec(x.astype(np.float64)).astype(x.dtype) if x.size else x.copy()

    kernel.__name__ = f"{fn.__name__}_kernel"
    return kernel


def _lgamma(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # poles at 0, -1, -2, ...
        return math.inf


def _digamma(v: float) -> float:
    if math.isnan(v):
        return math.nan
    if v <= 0 and v == math.floor(v):
        return math.nan
    result = 0.0
    if v < 0.5:  # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
        result -= math.pi / math.tan(math.pi * v)
        v = 1.0 - v
    while v < 10.0:
        result -= 1.0 / v
        v += 1.0
    inv2 = 1.0 / (v * v)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 * (1 / 132)))))
    return result + math.log(v) - 0.5 / v - series


# Bernoulli numbers B2, B4, ..., B18 for the Euler-Maclaurin tail of the Hurwitz zeta.
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)


def _zeta(s: float, q: float) -> float:
    """Hurwitz zeta sum_{k>=0} (q + k)^-s, as Cephes' ``zeta`` (which TensorFlow's Eigen
    follows): s == 1 is inf, s < 1 or q <= 0 at an integer is NaN or inf."""
    if math.isnan(s) or math.isnan(q):
        return math.nan
    if s == 1.0:
        return math.inf
    if s < 1.0:
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if s != math.floor(s):
            return math.nan
    n = 12
    total = sum((q + k) ** -s for k in range(n))
    a = q + n
    total += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    fact = 1.0
    rising = s
    power = a ** (-s - 1.0)
    for j, b in enumerate(_B2K, start=1):
        fact *= (2 * j - 1) * (2 * j) if j > 1 else 2
        term = b / fact * rising * power
        total += term
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        power /= a * a
    return total


def _polygamma(n: float, x: float) -> float:
    if n != math.floor(n) or n < 0:
        return math.nan
    if n == 0:
        return _digamma(x)
    sign = 1.0 if int(n) % 2 else -1.0
    return sign * math.gamma(n + 1.0) * _zeta(n + 1.0, x)


_SQRT2 = math.sqrt(2.0)


def _ndtri_array(p: np.ndarray) -> np.ndarray:
    """Phi^-1(p) in float64: a logit-based start, then Newton steps on Phi (computed with
    erfc, accurate in the tails) until they stop moving."""
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    p = np.asarray(p, np.float64)
    out = np.full(p.shape, np.nan)
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    inside = (p > 0) & (p < 1)
    q = p[inside]
    # Start: sign(q - 1/2) * sqrt(-2 log(min(q, 1 - q))) corrected, good to ~1e-2.
    t = np.sqrt(-2.0 * np.log(np.minimum(q, 1.0 - q)))
    z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (
        1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3)
    z = np.where(q < 0.5, -z, z)
    for _ in range(60):
        phi = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        # Phi(z) - q, from whichever tail keeps precision.
        lower = 0.5 * erfc(-z / _SQRT2)
        upper = 0.5 * erfc(z / _SQRT2)
        diff = np.where(z < 0, lower - q, (1.0 - q) - upper)
        step = diff / phi
        z = z - step
        if np.all(np.abs(step) <= 1e-15 * np.maximum(1.0, np.abs(z))):
            break
    out[inside] = z
    return out


def _ndtri(x):
    x = np.asarray(x)
    return _ndtri_array(x.astype(np.float64)).astype(x.dtype)


def _erfinv(x):
    # erfinv(x) = ndtri((x + 1) / 2) / sqrt(2); |x| > 1 is NaN, +-1 is +-inf.
    x = np.asarray(x)
    w = x.astype(np.float64)
    return (_ndtri_array((w + 1.0) / 2.0) / _SQRT2).astype(x.dtype)


def _binary_in_double(fn):
    vec = np.vectorize(fn, otypes=[np.float64])

    def kernel(x, y):
        x, y = np.asarray(x), np.asarray(y)
        return vec(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)

    kernel.__name__ = f"{fn.__name__}_kernel"
    return kernel


def _round(x):
    # Banker's rounding (half to even), as TensorFlow's Round; integers are unchanged.
    return np.rint(x) if x.dtype.kind == "f" else x.copy()


def _reciprocal(x):
    if x.dtype.kind in "iu":
        if not np.all(x):
            raise invalid_argument("Integer division by zero")
        return np.where(np.abs(x) == 1, x, np.zeros((), x.dtype)).astype(x.dtype)
    return np.reciprocal(x)


def _truncate_div(x, y):
    if x.dtype.kind in "iu":
        if not np.all(y):
            # TensorFlow's CPU kernel reports integer division by zero this way.
            raise errors.InternalError(
                None, None,
                "Unexpected error in binary operator (only integer div and mod should have "
                "errors)")
        q = np.floor_divide(np.abs(x), np.abs(y))
        return np.where((x < 0) ^ (y < 0), -q, q).astype(x.dtype)
    return np.trunc(np.true_divide(x, y))


def _truncate_mod(x, y):
    if x.dtype.kind in "iu" and not np.all(y):
        raise invalid_argument("Integer division by zero")
    return np.fmod(x, y)


def _xlogy(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log(y)).astype(x.dtype)


def _xlog1py(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log1p(y)).astype(x.dtype)


def _xdivy(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), x / y).astype(x.dtype)


def _div_no_nan(x, y):
    safe = np.where(y == 0, np.ones((), y.dtype), y)
    return np.where(y == 0, np.zeros((), x.dtype), x / safe).astype(x.dtype)


def _squared_difference(x, y):
    d = np.subtract(x, y)
    return np.multiply(d, d)


unary_op("Erf", _in_double(math.erf), FLOAT_TYPES, doc="The error function.")
unary_op("Erfc", _in_double(math.erfc), FLOAT_TYPES, doc="1 - erf(x).")
unary_op("Lgamma", _in_double(_lgamma), FLOAT_TYPES, doc="log |Gamma(x)|.")
unary_op("Digamma", _in_double(_digamma), FLOAT_TYPES, doc="d/dx log Gamma(x).")
unary_op("Erfinv", _erfinv, FLOAT_TYPES, doc="The inverse of erf.")
unary_op("Ndtri", _ndtri, FLOAT_TYPES, doc="The inverse of the standard normal CDF.")
unary_op("Floor", np.floor, FLOAT_TYPES, doc="Largest integer <= x.")
unary_op("Ceil", np.ceil, FLOAT_TYPES, doc="Smallest integer >= x.")
unary_op("Round", _round, f"{FLOAT_TYPES}, {_SIGNED_INT}", doc="Round half to even.")
unary_op("Rint", np.rint, FLOAT_TYPES, doc="Nearest integer, half to even.")
unary_op("Reciprocal", _reciprocal, f"{FLOAT_TYPES}, {_SIGNED_INT}, {COMPLEX_TYPES}",
         doc="1 / x.")
unary_op("Inv", _reciprocal, f"{FLOAT_TYPES}, {_SIGNED_INT}, {COMPLEX_TYPES}",
         doc="1 / x (old name).")
unary_op("Expm1", np.expm1, FLOAT_TYPES, doc="exp(x) - 1.")
unary_op("Tan", np.tan, FLOAT_TYPES, doc="Tangent.")
unary_op("Asin", np.arcsin, FLOAT_TYPES, doc="Inverse sine.")
unary_op("Acos", np.arccos, FLOAT_TYPES, doc="Inverse cosine.")
unary_op("Atan", np.arctan, FLOAT_TYPES, doc="Inverse tangent.")
unary_op("Sinh", np.sinh, FLOAT_TYPES, doc="Hyperbolic sine.")
unary_op("Cosh", np.cosh, FLOAT_TYPES, doc="Hyperbolic cosine.")
unary_op("Asinh", np.arcsinh, FLOAT_TYPES, doc="Inverse hyperbolic sine.")
unary_op("Acosh", np.arccosh, FLOAT_TYPES, doc="Inverse hyperbolic cosine.")
unary_op("Atanh", np.arctanh, FLOAT_TYPES, doc="Inverse hyperbolic tangent.")

register_op("Atan2", inputs=["y: T", "x: T"], outputs=["z: T"], attrs=[f"T: {{{FLOAT_TYPES}}}"],
            shape_fn=shape_fns.broadcast_binary,
            doc="atan(y / x) in the quadrant of (x, y).")(np.arctan2)
binary_op("SquaredDifference", _squared_difference,
          f"{FLOAT_TYPES}, int32, int64, {COMPLEX_TYPES}",
          doc="(x - y)^2.")
binary_op("Xlogy", _xlogy, FLOAT_TYPES, doc="x * log(y), 0 where x == 0.")
binary_op("Xlog1py", _xlog1py, FLOAT_TYPES, doc="x * log1p(y), 0 where x == 0.")
binary_op("Xdivy", _xdivy, FLOAT_TYPES, doc="x / y, 0 where x == 0.")
binary_op("TruncateDiv", _truncate_div, f"{FLOAT_TYPES}, uint8, int8, int16, int32, int64",
          doc="x / y rounded toward zero.")
binary_op("TruncateMod", _truncate_mod, f"int32, int64, {FLOAT_TYPES}",
          doc="Remainder of truncating division (C's fmod).")
binary_op("DivNoNan", _div_no_nan, f"{FLOAT_TYPES}, {COMPLEX_TYPES}",
          doc="x / y, 0 where y == 0.")
register_op("Zeta", inputs=["x: T", "q: T"], outputs=["z: T"], attrs=["T: {float, double}"],
            shape_fn=shape_fns.broadcast_binary,
            doc="Hurwitz zeta(x, q).")(_binary_in_double(_zeta))
register_op("Polygamma", inputs=["a: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"],
            shape_fn=shape_fns.broadcast_binary,
            doc="The a-th derivative of digamma.")(_binary_in_double(_polygamma))


register_op("NextAfter", inputs=["x1: T", "x2: T"], outputs=["output: T"],
            attrs=["T: {double, float} = DT_FLOAT"], shape_fn=shape_fns.broadcast_binary,
            doc="The next representable value after x1 toward x2.")(np.nextafter)
binary_op("Mod", _truncate_mod, f"int32, int64, {FLOAT_TYPES}",
          doc="Remainder of truncating division (C semantics).")


def _approximate_equal(x, y, *, tolerance):
    if np.shape(x) != np.shape(y):
        raise invalid_argument(
            f"x and y must be of the same shape. x shape: {list(np.shape(x))}. y shape: "
            f"{list(np.shape(y))}")
    return np.less(np.abs(np.subtract(x, y)), np.asarray(tolerance, np.asarray(x).dtype))


register_op("ApproximateEqual", inputs=["x: T", "y: T"], outputs=["z: bool"],
            attrs=[f"T: {{{FLOAT_TYPES}, int8, int16, int32, int64, uint8}}",
                   "tolerance: float = 1e-05"],
            shape_fn=shape_fns.merge_both_inputs,
            doc="|x - y| < tolerance, elementwise (same shapes).")(_approximate_equal)


def _classifier(op_type: str, fn, doc: str) -> None:
    register_op(op_type, inputs=["x: T"], outputs=["y: bool"], attrs=[f"T: {{{FLOAT_TYPES}}}"],
                shape_fn=shape_fns.unchanged, doc=doc)(fn)


_classifier("IsFinite", np.isfinite, "Neither inf nor NaN.")
_classifier("IsNan", np.isnan, "NaN.")
_classifier("IsInf", np.isinf, "+inf or -inf.")


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _unary(op_type: str, public: str, doc: str):
    def fn(x: Any, name: str | None = None) -> Output:
        return build_output(op_type, [x], name=name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} (``tf.math.{public}``, op ``{op_type}``).\n\nArgs:\n"
                  "    x: A tensor.\n    name: Optional op name.\n\nReturns:\n"
                  "    A tensor of x's shape.\n")
    return fn


def _binary(op_type: str, public: str, doc: str, names=("x", "y"),
            default_name: str | None = None):
    # default_name: the name TensorFlow's Python function gives the op, where it is not the
    # op type (tf.math.divide_no_nan builds "div_no_nan").
    def fn(x: Any, y: Any, name: str | None = None) -> Output:
        return build_output(op_type, list(operand_pair(x, y)), name=name or default_name)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} (``tf.math.{public}``, op ``{op_type}``).\n\nArgs:\n"
                  f"    {names[0]}: A tensor.\n    {names[1]}: A tensor of the same dtype.\n"
                  "    name: Optional op name.\n\nReturns:\n    The broadcast result.\n")
    return fn


erf = _unary("Erf", "erf", "The error function")
erfc = _unary("Erfc", "erfc", "The complementary error function")
lgamma = _unary("Lgamma", "lgamma", "log |Gamma(x)|")
digamma = _unary("Digamma", "digamma", "The digamma function")
erfinv = _unary("Erfinv", "erfinv", "The inverse error function")
ndtri = _unary("Ndtri", "ndtri", "The inverse of the standard normal CDF")
floor = _unary("Floor", "floor", "Largest integer not above x")
ceil = _unary("Ceil", "ceil", "Smallest integer not below x")
rint = _unary("Rint", "rint", "Nearest integer, half to even")
reciprocal = _unary("Reciprocal", "reciprocal", "1 / x")
expm1 = _unary("Expm1", "expm1", "exp(x) - 1")
tan = _unary("Tan", "tan", "Tangent")
asin = _unary("Asin", "asin", "Inverse sine")
acos = _unary("Acos", "acos", "Inverse cosine")
atan = _unary("Atan", "atan", "Inverse tangent")
sinh = _unary("Sinh", "sinh", "Hyperbolic sine")
cosh = _unary("Cosh", "cosh", "Hyperbolic cosine")
asinh = _unary("Asinh", "asinh", "Inverse hyperbolic sine")
acosh = _unary("Acosh", "acosh", "Inverse hyperbolic cosine")
atanh = _unary("Atanh", "atanh", "Inverse hyperbolic tangent")
is_finite = _unary("IsFinite", "is_finite", "Whether x is finite")
is_nan = _unary("IsNan", "is_nan", "Whether x is NaN")
is_inf = _unary("IsInf", "is_inf", "Whether x is infinite")
squared_difference = _binary("SquaredDifference", "squared_difference", "(x - y)^2")
xlogy = _binary("Xlogy", "xlogy", "x * log(y), 0 where x is 0")
xlog1py = _binary("Xlog1py", "xlog1py", "x * log1p(y), 0 where x is 0")
xdivy = _binary("Xdivy", "xdivy", "x / y, 0 where x is 0")
divide_no_nan = _binary("DivNoNan", "divide_no_nan", "x / y, 0 where y is 0",
                        default_name="div_no_nan")
div_no_nan = divide_no_nan
truncatediv = _binary("TruncateDiv", "truncatediv", "x / y rounded toward zero")
truncatemod = _binary("TruncateMod", "truncatemod", "Remainder of truncating division")
zeta = _binary("Zeta", "zeta", "Hurwitz zeta", ("x", "q"))
polygamma = _binary("Polygamma", "polygamma", "The a-th derivative of digamma", ("a", "x"))


nextafter = _binary("NextAfter", "nextafter", "The next float after x1 toward x2", ("x1", "x2"))


def atan2(y: Any, x: Any, name: str | None = None) -> Output:
    """atan(y / x) in the quadrant of (x, y) (``tf.math.atan2``, op ``Atan2``)."""
    return build_output("Atan2", list(operand_pair(y, x)), name=name)


def round(x: Any, name: str | None = None) -> Output:  # noqa: A001  (tf.round)
    """Rounds half to even (``tf.math.round``); an integer tensor is returned as is."""
    x = as_operand(x)
    if x.dtype.is_integer:
        return x
    return build_output("Round", [x], name=name)


def log_sigmoid(x: Any, name: str | None = None) -> Output:
    """log(sigmoid(x)) = -softplus(-x) (``tf.math.log_sigmoid``), as TensorFlow builds it."""
    from tfmini.core.scope import name_scope

    with name_scope(name, "LogSigmoid", [x]):
        x = as_operand(x)
        return build_output("Neg", [build_output("Softplus", [build_output("Neg", [x])])])


__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "cosh", "digamma",
    "div_no_nan", "divide_no_nan", "erfinv", "ndtri",
    "erf", "erfc", "expm1", "floor", "is_finite", "is_inf", "is_nan", "lgamma", "log_sigmoid",
    "polygamma", "reciprocal", "rint", "round", "sinh", "squared_difference", "tan",
    "truncatediv", "truncatemod", "xdivy", "xlog1py", "xlogy", "zeta",
]
