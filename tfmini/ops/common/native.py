"""Fused loops compiled on first use, with NumPy as the fallback.

An update such as Adam's is a dozen NumPy passes over the variable (each ufunc call is one
pass, each with its own temporaries), where one loop reading every input once would do.
This module compiles such loops from a small C source with the machine's C compiler the
first time a kernel asks for them, keeps the shared library in a per-user cache keyed by
the source, the flags and the CPU's instruction-set flags, and loads it with ``ctypes``
(whose calls release the GIL, as NumPy's loops do).

Each family keeps its own C source next to its kernels and gets its library from
:func:`library` (one library per source, compiled once per process and cached across
processes); the optimizer loops below are the first such source: Adam into spare buffers,
Adam and gradient descent written over the variable (for updates applied once their run has
succeeded: ``runtime/late_updates.py``). Every compiled loop keeps a NumPy path that gives
the same results, and a test that the two agree (docs/internals.md).

The loops do TensorFlow's arithmetic in TensorFlow's order, one IEEE operation at a time:
no fused multiply-add (``-ffp-contract=off``), no reassociation (no ``-ffast-math``), the
square root and division correctly rounded. So they give the same bits as the NumPy
passes they replace (tested, special values included), at any vector width.

The cache directory (``TFMINI_NATIVE_DIR``, else ``$XDG_CACHE_HOME/tfmini/native``, else
``~/.cache/tfmini/native``) is used only if it belongs to this user and no one else may
write to it. When no compiler is found, compiling fails, the cache is not private, or
``TFMINI_NATIVE=0`` is set, :func:`library` returns None (and :func:`adam` False) and the
kernels run their NumPy passes: results are the same either way.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

import numpy as np

__all__: list[str] = []  # shared helpers, imported by name (not part of tm.*)

_ADAM_SOURCE = r"""
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static int overlap(const void *p, const void *q, size_t bytes) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + bytes && b < a + bytes;
}

/* The loop over Adam's elements in TensorFlow's order of operations, reading x, m, v and g
   at i and writing the new m, v and x to NM[i], NV[i] and OUT[i]; PRAGMA before the loop.
   Nesterov's numerator (a * b1 + g * c1) * alpha replaces a * alpha. */
#define ADAM_ELEMENTS(T, SQRT, NESTEROV_NUM, PRAGMA, NM, NV, OUT)                      \
    PRAGMA                                                                             \
    for (ptrdiff_t i = 0; i < n; ++i) {                                                \
        T gi = g[i], mi = m[i], vi = v[i];                                             \
        T a = (gi - mi) * c1 + mi;                                                     \
        T b = (gi * gi - vi) * c2 + vi;                                                \
        T num = NESTEROV_NUM ? (a * b1 + gi * c1) * alpha : a * alpha;                 \
        T o = x[i] - num / (SQRT(b) + eps);                                            \
        NM[i] = a;                                                                     \
        NV[i] = b;                                                                     \
        OUT[i] = o;                                                                    \
    }

/* Both loops of an update (the test of nesterov hoisted out of them). */
#define ADAM_BOTH(T, SQRT, PRAGMA, NM, NV, OUT)                                        \
    if (nesterov) {                                                                    \
        ADAM_ELEMENTS(T, SQRT, 1, PRAGMA, NM, NV, OUT)                                 \
    } else {                                                                           \
        ADAM_ELEMENTS(T, SQRT, 0, PRAGMA, NM, NV, OUT)                                 \
    }

/* restrict: the outputs overlap nothing (checked by the caller), so the loop vectorizes. */
#define ADAM_LOOP(NAME, T, SQRT, R)                                                     \
static void NAME(const T *R x, const T *R m, const T *R v, const T *R g, T *R nm,      \
                 T *R nv, T *R out, ptrdiff_t n, T c1, T c2, T alpha, T b1, T eps,     \
                 int nesterov) {                                                       \
    ADAM_BOTH(T, SQRT, , nm, nv, out)                                                  \
}

#define ADAM(NAME, T, SQRT)                                                            \
ADAM_LOOP(NAME##_restrict, T, SQRT, restrict)                                          \
ADAM_LOOP(NAME##_plain, T, SQRT, )                                                     \
void NAME(const T *x, const T *m, const T *v, const T *g, T *nm, T *nv, T *out,        \
          ptrdiff_t n, T c1, T c2, T alpha, T b1, T eps, int nesterov) {                \
    size_t bytes = (size_t)n * sizeof(T);                                              \
    const void *ins[4] = {x, m, v, g};                                                 \
    void *outs[3] = {nm, nv, out};                                                     \
    int aliased = 0;                                                                   \
    for (int j = 0; j < 3; ++j) {                                                      \
        for (int k = 0; k < 4; ++k) aliased |= overlap(outs[j], ins[k], bytes);        \
        for (int k = j + 1; k < 3; ++k) aliased |= overlap(outs[j], outs[k], bytes);   \
    }                                                                                  \
    if (aliased)                                                                       \
        NAME##_plain(x, m, v, g, nm, nv, out, n, c1, c2, alpha, b1, eps, nesterov);    \
    else                                                                               \
        NAME##_restrict(x, m, v, g, nm, nv, out, n, c1, c2, alpha, b1, eps, nesterov); \
}

ADAM(tfmini_adam_f32, float, sqrtf)
ADAM(tfmini_adam_f64, double, sqrt)

/* In place: x, m, v are read and then written at the same index, so iterations are
   independent (ivdep) and the loop touches 4 arrays instead of 7. g overlaps none of them
   (checked by the caller). */
#define ADAM_INPLACE(NAME, T, SQRT)                                                    \
void NAME(T *x, T *m, T *v, const T *g, ptrdiff_t n, T c1, T c2, T alpha, T b1, T eps,  \
          int nesterov) {                                                              \
    ADAM_BOTH(T, SQRT, _Pragma("GCC ivdep"), m, v, x)                                  \
}

ADAM_INPLACE(tfmini_adam_inplace_f32, float, sqrtf)
ADAM_INPLACE(tfmini_adam_inplace_f64, double, sqrt)

/* Gradient descent in place: x - d * alpha, TensorFlow's two roundings (no FMA). */
#define GD_INPLACE(NAME, T)                                                            \
void NAME(T *x, const T *d, ptrdiff_t n, T alpha) {                                    \
    _Pragma("GCC ivdep")                                                               \
    for (ptrdiff_t i = 0; i < n; ++i) x[i] = x[i] - d[i] * alpha;                      \
}

GD_INPLACE(tfmini_gd_inplace_f32, float)
GD_INPLACE(tfmini_gd_inplace_f64, double)
"""

# -march=native: the library is compiled where it runs (the cache key holds the CPU's
# flags). No -ffast-math: it would reassociate and flush denormals to zero.
_FLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fno-math-errno", "-shared",
          "-fPIC")
_FALLBACK_FLAGS = ("-O3", "-ffp-contract=off", "-fno-math-errno", "-shared", "-fPIC")

_lock = threading.Lock()
_libraries: dict[str, ctypes.CDLL | None] = {}  # by source: None where it did not build
_NOT_TRIED = object()
# The update loops of _ADAM_SOURCE: pointers, scalars of the dtype, and a trailing int flag.
_UPDATE_SIGNATURES = {"adam": (7, 5, True), "adam_inplace": (4, 5, True),
                      "gd_inplace": (2, 1, False)}
_SCALARS = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double}
_update_fns: dict = {}


def _cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return line
    except OSError:
        pass
    return ""


def _cache_dir() -> str:
    base = os.environ.get("TFMINI_NATIVE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
        base = os.path.join(xdg, "tfmini", "native")
    return base


def _private_dir(path: str) -> bool:
    """Makes ``path`` (mode 0700) if missing; whether it is a directory of this user that no
    one else may write. A shared library is loaded from the cache only then: whoever can
    write there could put code in this process."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _compile(cc: str, flags: tuple[str, ...], path: str, source: str) -> bool:
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=os.path.dirname(path))
    os.close(fd)
    try:
        proc = subprocess.run([cc, *flags, "-x", "c", "-", "-o", tmp, "-lm"],
                              input=source.encode(), capture_output=True, timeout=60)
        if proc.returncode != 0:
            return False
        os.replace(tmp, path)  # atomic: a concurrent process loads a whole file or none
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _load(source: str = _ADAM_SOURCE) -> ctypes.CDLL | None:
    """Compiles ``source`` (or finds it in the cache) and loads it; None when it cannot."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc or not sys.platform.startswith("linux"):
        return None
    if not _private_dir(_cache_dir()):
        return None
    for flags in (_FLAGS, _FALLBACK_FLAGS):
        key = hashlib.sha256("\0".join((source, cc, *flags, _cpu_flags())).encode())
        path = os.path.join(_cache_dir(), f"kernels-{key.hexdigest()[:20]}.so")
        try:
            if os.path.exists(path) or _compile(cc, flags, path, source):
                return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def library(source: str) -> ctypes.CDLL | None:
    """The compiled library of the C ``source``, built on the first call in this process
    (then cached on disk); None when compiled loops are off (``TFMINI_NATIVE=0``) or cannot
    be built here, and the caller runs its NumPy path. Declare each function's
    ``argtypes``/``restype`` once after getting it."""
    lib = _libraries.get(source, _NOT_TRIED)
    if lib is _NOT_TRIED:
        with _lock:
            if source not in _libraries:
                _libraries[source] = (_load(source)
                                      if os.environ.get("TFMINI_NATIVE", "1") != "0"
                                      else None)
            lib = _libraries[source]
    return lib


# The suffix of a loop's symbol for each dtype the loops are compiled for.
FLOAT_SUFFIXES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_typed: dict = {}


def typed_function(source: str, kind: str, dtype: np.dtype, restype, argtypes):
    """The compiled loop ``tfmini_<kind>_<f32|f64>`` of ``source`` for ``dtype`` (float32
    or float64), its ctypes signature set on first use; None for another dtype or when
    ``source`` cannot be compiled here (the caller then runs its NumPy path)."""
    key = (source, kind, dtype)
    fn = _typed.get(key)
    if fn is None:
        suffix = FLOAT_SUFFIXES.get(dtype)
        lib = library(source) if suffix else None
        if lib is None:
            return None
        fn = getattr(lib, f"tfmini_{kind}_{suffix}")
        fn.restype = restype
        fn.argtypes = argtypes
        _typed[key] = fn
    return fn


def available() -> bool:
    """Whether the compiled loops are in use (compiling Adam's if not tried yet)."""
    return library(_ADAM_SOURCE) is not None


def _update_fn(kind: str, dtype: np.dtype):
    """The update loop ``kind`` of _ADAM_SOURCE for ``dtype``, or None."""
    fn = _update_fns.get((kind, dtype))
    if fn is None:
        scalar = _SCALARS.get(dtype)
        if scalar is None:
            return None
        pointers, scalars, flag = _UPDATE_SIGNATURES[kind]
        argtypes = ([ctypes.c_void_p] * pointers + [ctypes.c_ssize_t] + [scalar] * scalars
                    + [ctypes.c_int] * flag)
        fn = typed_function(_ADAM_SOURCE, kind, dtype, None, argtypes)
        if fn is not None:
            _update_fns[(kind, dtype)] = fn
    return fn


def adam_inplace_ok(x, m, v, grad) -> bool:
    """Whether :func:`adam_inplace` can update these arrays: the loop is compiled, all are
    C-contiguous arrays of one float dtype and size, ``x``, ``m``, ``v`` writeable and
    ``grad`` sharing no memory with them."""
    dtype = x.dtype
    if _update_fn("adam_inplace", dtype) is None:
        return False
    n = x.size
    for a in (x, m, v, grad):
        if a.dtype != dtype or a.size != n or not a.flags.c_contiguous:
            return False
    if not (x.flags.writeable and m.flags.writeable and v.flags.writeable):
        return False
    return not any(np.may_share_memory(grad, a) for a in (x, m, v))


def adam_inplace(x, m, v, grad, c1, c2, alpha, b1, eps, nesterov) -> None:
    """Adam's update written over ``x``, ``m``, ``v`` (the same operations as :func:`adam`,
    so the same bits), for arrays :func:`adam_inplace_ok` accepted (or matching slices of
    them)."""
    fn = _update_fns["adam_inplace", x.dtype]
    fn(x.ctypes.data, m.ctypes.data, v.ctypes.data, grad.ctypes.data, x.size, float(c1),
       float(c2), float(alpha), float(b1), float(eps), 1 if nesterov else 0)


def gd_inplace_ok(x, delta) -> bool:
    """Whether :func:`gd_inplace` can update ``x``: the loop is compiled, both are
    C-contiguous arrays of one float dtype and size, ``x`` writeable and ``delta`` sharing
    no memory with it."""
    dtype = x.dtype
    if _update_fn("gd_inplace", dtype) is None:
        return False
    return (delta.dtype == dtype and delta.size == x.size and x.flags.c_contiguous
            and delta.flags.c_contiguous and x.flags.writeable
            and not np.may_share_memory(x, delta))


def gd_inplace(x, delta, alpha) -> None:
    """``x -= delta * alpha`` in one pass, rounded as ``x - (delta * alpha)`` in NumPy (the
    same bits), for arrays :func:`gd_inplace_ok` accepted (or matching slices of them)."""
    _update_fns["gd_inplace", x.dtype](x.ctypes.data, delta.ctypes.data, x.size, float(alpha))


def adam(x, m, v, grad, new_m, new_v, out, c1, c2, alpha, b1, eps, nesterov) -> bool:
    """Adam's update in one loop, as ``training_ops._adam_slice`` computes it in NumPy
    passes: ``new_m = (grad - m) * c1 + m``, ``new_v = (grad * grad - v) * c2 + v``,
    ``out = x - (new_m * alpha) / (sqrt(new_v) + eps)`` (Nesterov: ``new_m * alpha``
    replaced by ``(new_m * b1 + grad * c1) * alpha``).

    Returns False, having done nothing, when the loop is not compiled or the arrays are
    not all C-contiguous float32 (or all float64) arrays of one size.
    """
    dtype = x.dtype
    fn = _update_fns.get(("adam", dtype)) or _update_fn("adam", dtype)
    if fn is None:
        return False
    arrays = (x, m, v, grad, new_m, new_v, out)
    n = x.size
    for a in arrays:
        if a.dtype != dtype or a.size != n or not a.flags.c_contiguous:
            return False
    if not (new_m.flags.writeable and new_v.flags.writeable and out.flags.writeable):
        return False
    fn(*[a.ctypes.data for a in arrays], n, float(c1), float(c2), float(alpha), float(b1),
       float(eps), 1 if nesterov else 0)
    return True
