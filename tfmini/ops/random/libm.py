"""glibc's ``logf`` and ``sincosf`` bit for bit, vectorised in NumPy (and ``log``/``sincos``).

TensorFlow's CPU Box-Muller (``BoxMullerFloat`` in ``tensorflow/core/lib/random/
random_distributions.h``) calls the C library's scalar ``logf`` and, on Linux, ``sincosf``.
glibc (2.28 and later) computes these with the ARM optimized-routines algorithms
(``sysdeps/ieee754/flt-32/e_logf.c``, ``s_sinf.c``, ``s_cosf.c``, ``sincosf_poly.h``): a small
table and a polynomial evaluated in double precision, rounded to float once at the end. They are
not correctly rounded, so neither NumPy's float32 ufuncs nor ``float(log(double(x)))`` give the
same bits (they differ in about 1% of the samples).

This module evaluates the same algorithm on arrays. glibc's x86-64 build may fuse multiplies
and adds (its FMA variants), which changes the last bits of the double result; those bits only
matter when the double result lies within a hair of a float rounding boundary. Such elements
(about one in 30 000) are detected and recomputed by calling the C library itself through
ctypes, so the results equal the local libm's whichever variant it selected. Where no C math
library can be loaded the port's own rounding is used. Other C libraries (macOS, Windows) have
other algorithms, hence other bits; docs/random.md has the details.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

__all__: list[str] = []

# e_logf_data.c: 16 subintervals (invc, logc), ln2 and the log1p polynomial.
_LOGF_INVC = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
    "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
    "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
    "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([float.fromhex(h) for h in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
    "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
    "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
    "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (float.fromhex(h) for h in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))

# s_sincosf_data.c (x86-64 has no TOINT_INTRINSICS: 2/pi is pre-scaled by 2**24).
_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")
_HPI = float.fromhex("0x1.921FB54442D18p0")
# pi/2 split so that n * _HPI_HI and x - n * _HPI_HI are exact for the quadrants used here.
_HPI_HI = float((np.array([_HPI]).view(np.uint64) & np.uint64(0xFFFFFFFFF0000000))
                .view(np.float64)[0])
_HPI_LO = _HPI - _HPI_HI
_C0, _C1, _C2, _C3, _C4 = (float.fromhex(h) for h in (
    "0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10",
    "0x1.99343027bf8c3p-16"))
_S1, _S2, _S3 = (float.fromhex(h) for h in (
    "-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13"))
_ABSTOP_PIO4 = (int(np.float32(float.fromhex("0x1.921FB6p-1")).view(np.uint32)) >> 20) & 0x7FF
_ABSTOP_TINY = (int(np.float32(2.0 ** -12).view(np.uint32)) >> 20) & 0x7FF
_ABSTOP_120 = (int(np.float32(120.0).view(np.uint32)) >> 20) & 0x7FF



def _load_libm():
    name = ctypes.util.find_library("m")
    try:
        lib = ctypes.CDLL(name or "libm.so.6")
    except OSError:
        return None
    fns = {}
    for fname in ("logf", "sinf", "cosf", "log1pf", "expm1f", "powf"):
        fn = getattr(lib, fname, None)
        if fn is None:
            return None
        fn.argtypes = [ctypes.c_float] * (2 if fname == "powf" else 1)
        fn.restype = ctypes.c_float
        fns[fname] = fn
    return fns


_LIBM = _load_libm()


def c_libm_available() -> bool:
    """Whether the C library's ``logf``/``sinf``/``cosf`` could be loaded (for the rare
    elements the port leaves to it)."""
    return _LIBM is not None


def c_call(fname: str, x: np.ndarray) -> np.ndarray:
    """The C library's ``fname`` (``logf``, ``sinf``, ``cosf``, ``log1pf`` or ``expm1f``)
    element by element: slow, for checks, for the few elements :func:`logf`/:func:`sincosf`
    cannot decide, and for the short arrays of :func:`log1pf`/:func:`expm1f`."""
    fn = _LIBM[fname]
    return np.array([fn(float(v)) for v in np.asarray(x, np.float32).ravel()],
                    np.float32).reshape(np.shape(x))


def _near_boundary(y: np.ndarray) -> np.ndarray:
    """Where the double ``y`` is too close to a float rounding boundary (a value halfway
    between two floats: the 29 mantissa bits a float drops are 1000...0) for its last bits to
    be trusted: within 2**13 units of the last place, about 2**-40 relative."""
    low = y.view(np.uint64) & np.uint64(0x1FFFFFFF)
    return (low - np.uint64(0x10000000 - 0x2000)) < np.uint64(0x4000)


def _settle(y: np.ndarray, x: np.ndarray, fname: str, force=None) -> np.ndarray:
    f = y.astype(np.float32)
    if _LIBM is not None:
        near = np.flatnonzero(_near_boundary(y))
        if force is not None and force.size:
            near = np.union1d(near, force)
        if near.size:
            f[near] = c_call(fname, x[near])
    return f


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` of a float32 array (1-D)."""
    x = np.ascontiguousarray(x, np.float32).reshape(-1)
    ix = x.view(np.uint32)
    odd = (ix - np.uint32(0x00800000)) >= np.uint32(0x7F800000 - 0x00800000)
    tmp = ix - np.uint32(0x3F330000)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = tmp.view(np.int32) >> np.int32(23)
    iz = ix - (tmp & np.uint32(0x1FF << 23))
    z = iz.view(np.float32).astype(np.float64)
    r = z * _LOGF_INVC[i] - 1.0
    y0 = _LOGF_LOGC[i] + k * _LN2
    r2 = r * r
    y = _A1 * r + _A2
    y = _A0 * r2 + y
    y = y * r2 + (y0 + r)
    odd = np.flatnonzero(odd)
    if odd.size:  # zero, subnormal, negative, inf, nan: left to the C library (or numpy)
        y[odd] = np.log(x[odd].astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return _settle(y, x, "logf", odd)


def _sin_poly(x: np.ndarray, x2: np.ndarray) -> np.ndarray:
    x3 = x * x2
    s1 = _S2 + x2 * _S3
    x7 = x3 * x2
    s = x + x3 * _S1
    return s + x7 * s1


def _cos_poly(x2: np.ndarray) -> np.ndarray:
    x4 = x2 * x2
    c2 = _C3 + x2 * _C4
    c1 = _C0 + x2 * _C1
    x6 = x4 * x2
    c = c1 + x4 * _C2
    return c + x6 * c2


def sincosf(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` (equal to ``sinf`` and ``cosf``) of a float32 array (1-D); values of
    magnitude 120 or more go to the C library."""
    v = np.ascontiguousarray(v, np.float32).reshape(-1)
    top = (v.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    x = v.astype(np.float64)
    # Quadrant n and the reduced argument (glibc's reduce_fast; n is 0 below pi/4, so the
    # small-argument branch needs no case of its own). x - n * pi/2 is formed exactly, as
    # glibc's fused multiply-subtract does.
    n = ((x * _HPI_INV).astype(np.int32) + np.int32(0x800000)) >> np.int32(24)
    nf = n.astype(np.float64)
    xr = x - nf * _HPI_HI
    xr -= nf * _HPI_LO
    x2 = xr * xr
    odd = (n & 1).astype(bool)
    # sign[n & 3] = 1, -1, -1, 1 applies to the sine polynomial's argument; quadrants 2 and 3
    # use the negated cosine polynomial.
    xr *= (1 - 2 * (((n + 1) >> 1) & 1)).astype(np.float64)
    sp = _sin_poly(xr, x2)
    cp = _cos_poly(x2)
    cp *= (1 - (n & 2)).astype(np.float64)
    s = np.where(odd, cp, sp)
    c = np.where(odd, sp, cp)
    tiny = np.flatnonzero(top < _ABSTOP_TINY)
    if tiny.size:
        s[tiny] = x[tiny]
        c[tiny] = 1.0
    big = np.flatnonzero(top >= _ABSTOP_120)
    if big.size:
        s[big] = np.sin(x[big])
        c[big] = np.cos(x[big])
    sf = _settle(s, v, "sinf")
    cf = _settle(c, v, "cosf")
    if big.size and _LIBM is not None:
        sf[big] = c_call("sinf", v[big])
        cf[big] = c_call("cosf", v[big])
    return sf, cf


_PY_LOG = np.frompyfunc(math.log, 1, 1)


def log(x: np.ndarray) -> np.ndarray:
    """The C library's double ``log`` (through Python's ``math.log``, which calls it): NumPy's
    own float64 log differs from glibc's in about 0.3% of the last bits."""
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy()
    return _PY_LOG(x).astype(np.float64)


def sincos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Double sine and cosine (NumPy's agree with glibc's on TensorFlow's Box-Muller angles)."""
    return np.sin(x), np.cos(x)


def _scalar_fallback(fn, x: np.ndarray) -> np.ndarray:
    # No C library: the double result rounded once (correctly rounded, which glibc's float
    # functions are not always; documented in docs/random.md).
    return np.array([fn(float(v)) for v in x.ravel()], np.float64).astype(
        np.float32).reshape(x.shape)


def log1pf(x: np.ndarray) -> np.ndarray:
    """glibc's float ``log1pf`` of a float32 array, element by element through ctypes.

    TensorFlow's candidate samplers call it (``std::log1p`` of a float) for a few values per
    run (``tensorflow/core/kernels/range_sampler.cc``), so a per-element call is cheap enough.
    """
    x = np.asarray(x, np.float32)
    if _LIBM is None:
        return _scalar_fallback(math.log1p, x)
    return c_call("log1pf", x)


def expm1f(x: np.ndarray) -> np.ndarray:
    """glibc's float ``expm1f`` of a float32 array (see :func:`log1pf`)."""
    x = np.asarray(x, np.float32)
    if _LIBM is None:
        return _scalar_fallback(math.expm1, x)
    return c_call("expm1f", x)


def powf(x: np.ndarray, y: float) -> np.ndarray:
    """glibc's float ``powf(x, y)`` of a float32 array and one float32 exponent."""
    x = np.asarray(x, np.float32)
    y32 = float(np.float32(y))
    if _LIBM is None:
        return np.array([float(v) ** y32 for v in x.ravel()], np.float64).astype(
            np.float32).reshape(x.shape)
    fn = _LIBM["powf"]
    return np.array([fn(float(v), y32) for v in x.ravel()], np.float32).reshape(x.shape)



def _c_double_fn(name: str, nargs: int, fallback):
    """The C library's double function ``name`` through ctypes (``fallback`` where there is
    no C library); Python's ``math`` functions would raise where C returns inf or nan."""
    try:
        fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
    except (OSError, AttributeError):
        return fallback
    fn.argtypes = [ctypes.c_double] * nargs
    fn.restype = ctypes.c_double
    return fn


def _elementwise(fn, nargs: int = 1):
    ufunc = np.frompyfunc(fn, nargs, 1)

    def apply(*xs: np.ndarray) -> np.ndarray:
        xs = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in xs))
        if xs[0].size == 0:
            return xs[0].astype(np.float64)
        return np.asarray(ufunc(*xs), np.float64)
    return apply


# Elementwise calls into the C library, for the samplers whose accept/reject decisions and
# results depend on its last bits (gamma, Poisson). math.lgamma is CPython's own algorithm.
exp = _elementwise(_c_double_fn("exp", 1, math.exp))
log1p = _elementwise(_c_double_fn("log1p", 1, math.log1p))
lgamma = _elementwise(_c_double_fn("lgamma", 1, math.lgamma))
pow_ = _elementwise(_c_double_fn("pow", 2, math.pow), 2)


def unique_apply(fn, x: np.ndarray) -> np.ndarray:
    """``fn(x)`` computed once per distinct value (for the per-parameter constants the
    samplers need for every output)."""
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy()
    values, inverse = np.unique(x, return_inverse=True)
    return fn(values)[inverse.reshape(x.shape)]


def _c_float_fn(name: str, fallback):
    try:
        fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
    except (OSError, AttributeError):
        return fallback
    fn.argtypes = [ctypes.c_float]
    fn.restype = ctypes.c_float
    return fn


_EXPF = np.frompyfunc(_c_float_fn("expf", math.exp), 1, 1)


def c_expf(x: np.ndarray) -> np.ndarray:
    """The C library's float ``expf``, element by element (slow)."""
    x = np.asarray(x, np.float32)
    if x.size == 0:
        return x.copy()
    with np.errstate(over="ignore"):
        return np.asarray(_EXPF(x.astype(np.float64)), np.float64).astype(np.float32)


_MIN_NORMAL32 = float(np.finfo(np.float32).tiny)
_MAX32 = float(np.finfo(np.float32).max)


def expf(x: np.ndarray) -> np.ndarray:
    """glibc's ``expf``, fast: the double exponential rounded to float, except where that
    double lies within 1/128 of a float ulp of a rounding midpoint (or the result is not a
    normal float), which go to the C library. glibc's expf (e_expf.c) is within 0.502 ulp of
    the true value, so away from midpoints it must return the nearest float, as rounding a
    double accurate to about 1e-16 does."""
    x = np.asarray(x, np.float32)
    if x.size == 0:
        return x.copy()
    with np.errstate(over="ignore", under="ignore"):
        y = np.exp(x.astype(np.float64))
        out = y.astype(np.float32)
    low = y.view(np.uint64) & np.uint64(0x1FFFFFFF)
    near = (low - np.uint64(0x10000000 - (1 << 22))) < np.uint64(1 << 23)
    odd = near | ~((y >= _MIN_NORMAL32) & (y <= _MAX32))
    idx = np.flatnonzero(odd)
    if idx.size:
        out.reshape(-1)[idx] = c_expf(x.reshape(-1)[idx])
    return out
