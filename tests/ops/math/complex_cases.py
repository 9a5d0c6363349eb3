"""Cases for complex numbers and bfloat16 (complex_ops, Cast, elementwise math, reductions,
matmul and their gradients), shared by tools/record_goldens_sparse.py and
tests/ops/math/test_complex.py.

Each case is a function of the module under test (``tensorflow.compat.v1`` when recording,
``tfmini`` when testing), which spell these calls the same way. A value case returns
``(fetches, feeds)``: a dict of named tensors (outputs and ``tf.gradients``) and a feed dict.
Error cases return a thunk that raises (build errors) or ``(fetch, feeds)`` that fails when
run. This module never imports TensorFlow.
"""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(12_2026)


def _cplx(shape, dtype=np.complex64):
    return (_RNG.normal(size=shape) + 1j * _RNG.normal(size=shape)).astype(dtype)


Z23 = _cplx((2, 3))
W23 = _cplx((2, 3))
Z3 = _cplx((3,))
Z34 = _cplx((3, 4), np.complex128)
Z243 = _cplx((2, 4, 3), np.complex128)
Z234 = _cplx((2, 3, 4), np.complex128)
R23 = _RNG.normal(size=(2, 3)).astype(np.float32)
I23 = _RNG.normal(size=(2, 3)).astype(np.float32)
CAST_Z = np.array([1.7 + 2.0j, -3.2 - 1.0j, 0.0 + 1.0j, 0.0 + 0.0j, 300.6 - 0.5j], np.complex64)
BF = np.array([1.0, 2.7, -3.14159, 1e-3, 65504.0, 3.0e38], np.float32)


def _grad_ys(tf, y):
    """Fixed weights for ``y`` (TensorFlow requires grad_ys for complex ys)."""
    if not y.dtype.is_complex:
        return None
    rng = np.random.default_rng(7)
    shape = y.shape.as_list()
    w = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    return tf.constant(w.astype(y.dtype.as_numpy_dtype))


def _grads(tf, y, xs: dict) -> dict:
    """``grad/<name>`` of ``y`` for each named input, with :func:`_grad_ys` weights."""
    names = list(xs)
    gs = tf.gradients(y, [xs[n] for n in names], grad_ys=_grad_ys(tf, y))
    return {f"grad/{n}": g for n, g in zip(names, gs)}


def _unary(fn_name, data=Z23):
    def case(tf):
        x = tf.constant(data)
        y = getattr(tf, fn_name)(x)
        return {"y": y, **_grads(tf, y, {"x": x})}, {}

    return case


def _binary(fn, x_data=Z23, y_data=Z3):
    def case(tf):
        x, y = tf.constant(x_data), tf.constant(y_data)
        z = fn(tf, x, y)
        return {"z": z, **_grads(tf, z, {"x": x, "y": y})}, {}

    return case


def _parts(tf):
    z = tf.constant(Z23)
    outs = {"real": tf.real(z), "imag": tf.imag(z), "angle": tf.angle(z), "abs": tf.abs(z),
            "conj": tf.conj(z)}
    # Each part's gradient alone, and of their weighted sum.
    for k in list(outs):
        outs[f"grad/{k}"] = tf.gradients(outs[k], z, grad_ys=_grad_ys(tf, outs[k]))[0]
    total = (tf.reduce_sum(outs["real"] * 2.0) + tf.reduce_sum(outs["imag"] * -3.0)
             + tf.reduce_sum(outs["angle"]) + tf.reduce_sum(outs["abs"] * 0.5))
    outs["grad/total"] = tf.gradients(total, z)[0]
    return outs, {}


def _complex_from_parts(tf):
    re, im = tf.constant(R23), tf.constant(I23[0])
    z = tf.complex(re, im)
    loss = tf.reduce_sum(tf.abs(z * z))
    return {"z": z, "loss": loss, **_grads(tf, loss, {"re": re, "im": im})}, {}


def _real_inputs(tf):
    f = tf.constant(np.array([1.5, -2.0, 0.0], np.float32))
    return {"real": tf.real(f), "imag": tf.imag(f), "angle": tf.angle(f), "conj": tf.conj(f),
            "abs": tf.abs(f)}, {}


def _casts(tf):
    z = tf.constant(CAST_Z)
    out = {dt: tf.cast(z, getattr(tf, dt)) for dt in
           ("float32", "float64", "int32", "int64", "uint8", "bool", "complex128", "bfloat16")}
    f = tf.constant(np.array([1.5, -2.0], np.float64))
    out["f64_to_c64"] = tf.cast(f, tf.complex64)
    out["i32_to_c128"] = tf.cast(tf.constant([3, -4]), tf.complex128)
    out["bool_to_c64"] = tf.cast(tf.constant([True, False]), tf.complex64)
    # Gradients through complex <-> real casts (TensorFlow casts the gradient back).
    fz = tf.cast(f, tf.complex128)
    loss = tf.reduce_sum(tf.real(fz * fz) + tf.imag(fz * tf.constant([1j, 2j])))
    out["grad/f"] = tf.gradients(loss, f)[0]
    zz = tf.constant(Z3)
    out["grad/z"] = tf.gradients(tf.reduce_sum(tf.cast(zz, tf.float32) * 3.0), zz)[0]
    return out, {}


def _reductions(tf):
    x = tf.constant(Z34)
    outs = {"sum": tf.reduce_sum(x, 0), "prod": tf.reduce_prod(x, 1),
            "mean": tf.reduce_mean(x), "sum_keep": tf.reduce_sum(x, [1], keepdims=True)}
    for k in ("sum", "prod", "mean"):
        outs[f"grad/{k}"] = tf.gradients(outs[k], x, grad_ys=_grad_ys(tf, outs[k]))[0]
    return outs, {}


def _matmuls(tf):
    a, b = tf.constant(Z34), tf.constant(Z34[:, :3].T.copy())
    x, y = tf.constant(Z243), tf.constant(Z234)
    outs = {"mm": tf.matmul(a, b, transpose_a=True, transpose_b=True),
            "mm_adj": tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
            "bmm": tf.matmul(x, y), "bmm_adj": tf.matmul(x, y, adjoint_a=True, adjoint_b=True),
            "bmm_t": tf.matmul(x, tf.constant(Z243), transpose_a=True)}
    for k in ("mm", "mm_adj"):
        ga, gb = tf.gradients(outs[k], [a, b], grad_ys=_grad_ys(tf, outs[k]))
        outs[f"grad/{k}/a"], outs[f"grad/{k}/b"] = ga, gb
    for k in ("bmm", "bmm_adj"):
        gx, gy = tf.gradients(outs[k], [x, y], grad_ys=_grad_ys(tf, outs[k]))
        outs[f"grad/{k}/x"], outs[f"grad/{k}/y"] = gx, gy
    return outs, {}


def _bfloat16(tf):
    x = tf.constant(BF)
    b = tf.cast(x, tf.bfloat16)
    t = tf.cast(x, tf.bfloat16, name="t")
    c = tf.constant(np.array([[1.5, -2.25], [0.125, 4.0]], np.float32))
    cb = tf.cast(c, tf.bfloat16)
    outs = {"cast": b, "back": tf.cast(b, tf.float32), "sum": b + b, "mul": b * b,
            "sub": b - tf.cast(tf.constant(1.0), tf.bfloat16), "neg": -b, "sqrt": tf.sqrt(cb),
            "reduce": tf.reduce_sum(cb), "mm": tf.matmul(cb, cb), "to_int": tf.cast(b, tf.int32),
            "trunc": tf.raw_ops.Cast(x=x, DstT=tf.bfloat16, Truncate=True), "t": t}
    loss = tf.reduce_sum(tf.cast(cb * cb, tf.float32))
    outs["grad/c"] = tf.gradients(loss, c)[0]
    return outs, {}


def value_cases(tf) -> dict:
    """Named cases: each a thunk returning ``(fetches, feeds)``."""
    c = {
        "parts": lambda: _parts(tf),
        "complex_from_parts": lambda: _complex_from_parts(tf),
        "real_inputs": lambda: _real_inputs(tf),
        "casts": lambda: _casts(tf),
        "reductions": lambda: _reductions(tf),
        "matmuls": lambda: _matmuls(tf),
        "bfloat16": lambda: _bfloat16(tf),
    }
    for fn in ("negative", "square", "sqrt", "exp", "log", "reciprocal", "sign", "tanh",
               "sigmoid", "sin", "cos", "rsqrt", "log1p"):
        c[f"unary/{fn}"] = (lambda f: lambda: _unary(f)(tf))(fn)
    binaries = {
        "add": lambda t, x, y: t.add(x, y),
        "sub": lambda t, x, y: t.subtract(x, y),
        "mul": lambda t, x, y: t.multiply(x, y),
        "div": lambda t, x, y: t.divide(x, y),
        "realdiv": lambda t, x, y: t.realdiv(x, y),
        "pow": lambda t, x, y: t.pow(x, y),
        "div_no_nan": lambda t, x, y: t.div_no_nan(x, y),
        "equal": lambda t, x, y: t.equal(x, y),
    }
    for k, fn in binaries.items():
        c[f"binary/{k}"] = (lambda f: lambda: _binary(f)(tf))(fn)
    c["binary/mul_same_shape"] = lambda: _binary(lambda t, x, y: x * y, Z23, W23)(tf)
    c["add_n"] = lambda: ({"s": tf.add_n([tf.constant(Z23), tf.constant(W23)])}, {})
    return c


def build_error_cases(tf) -> dict:
    """Thunks that raise TypeError/ValueError while building."""
    z = lambda: tf.constant(Z23)  # noqa: E731
    return {
        "complex_mixed": lambda: tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64)),
        "complex_ints": lambda: tf.complex(tf.constant(1), tf.constant(2)),
        "conj_string": lambda: tf.conj(tf.constant("a")),
        "real_string": lambda: tf.real(tf.constant("a")),
        "maximum_complex": lambda: tf.maximum(z(), z()),
        "raw_abs_complex": lambda: tf.raw_ops.Abs(x=z()),
        "less_complex": lambda: tf.less(z(), z()),
        "floormod_complex": lambda: tf.floormod(z(), z()),
        "raw_real_float": lambda: tf.raw_ops.Real(input=tf.constant(1.0)),
        "gradients_complex_no_grad_ys": lambda: tf.gradients(tf.square(z()), z()),
    }


def run_error_cases(tf) -> dict:
    """Thunks returning ``(fetch, feeds)`` that fail when run."""
    z = lambda: tf.constant(Z23)  # noqa: E731
    return {
        "cast_string_to_complex": lambda: (tf.cast(tf.constant(["1"]), tf.complex64), {}),
        "floordiv_complex": lambda: (tf.raw_ops.FloorDiv(x=z(), y=z()), {}),
    }
