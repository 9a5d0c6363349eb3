"""Complex numbers and bfloat16 against TensorFlow 2.21 (tests/goldens/sparse_complex.npz,
recorded by tools/record_goldens_sparse.py from tests/ops/math/complex_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.composite_replay import assert_matches, split_none
from tests.ops.math import complex_cases

GOLDEN = load_golden("sparse_complex")
VALUE_CASES = complex_cases.value_cases(tm)
BUILD_ERRORS = complex_cases.build_error_cases(tm)
RUN_ERRORS = complex_cases.run_error_cases(tm)


@pytest.mark.parametrize("case", sorted(VALUE_CASES))
def test_values_and_gradients_match_tensorflow(case):
    g = tm.Graph()
    with g.as_default():
        fetches, feeds = VALUE_CASES[case]()
        fetches = split_none(GOLDEN, case, fetches)
        with tm.Session() as sess:
            values = sess.run(fetches, feeds)
    assert_matches(tm, GOLDEN, case, fetches, values, rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(case):
    want = str(GOLDEN[f"build_error/{case}"])
    cls, _, message = want.partition(": ")
    with tm.Graph().as_default(), pytest.raises((TypeError, ValueError)) as info:
        BUILD_ERRORS[case]()
    assert type(info.value).__name__ == cls
    # TensorFlow lists types tfmini lacks (uint16, ...) and spells dtypes "tf."; the part
    # that names the fault must agree.
    head = message.split(" not in list of allowed values")[0].replace("tf.", "tm.")
    assert head.split("(Tensor(")[0] in str(info.value).replace("tf.", "tm."), (
        str(info.value), want)


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_errors_match_tensorflow(case):
    want = str(GOLDEN[f"run_error/{case}"])
    cls, _, message = want.partition(": ")
    with tm.Graph().as_default():
        fetch, feeds = RUN_ERRORS[case]()
        with tm.Session() as sess:
            with pytest.raises(getattr(tm.errors, cls)) as info:
                sess.run(fetch, feeds)
            # The session stays usable after the failure.
            assert sess.run(tm.constant(1.0) + 1.0) == 2.0
    assert message.split(" used by {{node")[0].split(" with these attrs")[0] in str(info.value) \
        or cls == "InvalidArgumentError" and "No OpKernel" in message


def test_dtype_properties():
    assert tm.complex64.is_complex and tm.complex128.is_complex
    assert not tm.complex64.is_floating and not tm.float32.is_complex
    assert tm.complex64.real_dtype == tm.float32 and tm.complex128.real_dtype == tm.float64
    assert tm.float32.real_dtype == tm.float32
    assert tm.as_dtype("complex64") is tm.complex64 and tm.as_dtype(np.complex128) is tm.complex128
    assert tm.as_dtype(8) is tm.complex64 and tm.as_dtype(18) is tm.complex128
    assert tm.bfloat16.is_floating and tm.as_dtype("bfloat16") is tm.bfloat16
    assert tm.as_dtype(14) is tm.bfloat16 and tm.bfloat16.max == pytest.approx(3.3895e38, 1e-4)


def test_complex_feed_and_fetch_keep_dtype():
    with tm.Graph().as_default():
        z = tm.placeholder(tm.complex128, [None])
        y = tm.conj(z) * z
        with tm.Session() as sess:
            out = sess.run(y, {z: np.array([1 + 2j, 3j])})
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, [5, 9])


def test_complex_and_bfloat16_resource_variables_update():
    # TensorFlow 2.21 runs assign_add on complex64 and bfloat16 resource variables
    # ([1+2j] + [1j] = [1+3j], [1.5] + [1] = [2.5]).
    with tm.Graph().as_default():
        v = tm.get_variable("v", initializer=tm.constant([1 + 2j], tm.complex64),
                            use_resource=True)
        b = tm.get_variable("b", initializer=tm.constant([1.5], tm.bfloat16), use_resource=True)
        ops = [v.assign_add(tm.constant([1j], tm.complex64)),
               b.assign_add(tm.constant([1.0], tm.bfloat16))]
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            cv, bv = sess.run(ops)
    assert cv.dtype == np.complex64 and cv.tolist() == [1 + 3j]
    assert bv.dtype.name == "bfloat16" and bv.astype(np.float32).tolist() == [2.5]


_FD_UNARY = ["sqrt", "exp", "log", "square", "reciprocal", "tanh", "sigmoid", "sin", "cos",
             "rsqrt", "log1p", "conj", "real", "imag", "angle", "abs", "sign", "negative"]
_FD_BINARY = {"mul": lambda x, y: x * y, "div": lambda x, y: x / y,
              "pow": tm.pow, "sub": lambda x, y: x - y, "matmul": tm.matmul,
              "complex_of_parts": lambda x, y: tm.complex(tm.real(x), tm.imag(y)),
              "sum_prod": lambda x, y: tm.reduce_prod(x, 1) + tm.reduce_mean(y, 0)}
_Z0 = np.array([[0.7 + 0.4j, -0.3 + 1.1j], [1.2 - 0.6j, 0.5 + 0.2j]])
_Z1 = np.array([[0.9 - 0.2j, 0.4 + 0.8j], [-0.6 + 0.5j, 1.3 + 0.1j]])


def _real_loss(y):
    # A real function of y with distinct weights: sum(Re(w * y)) (real y: sum(w_r * y)).
    w = np.arange(1, y.shape.num_elements() + 1).reshape(y.shape.as_list()) * (0.3 - 0.2j)
    if y.dtype.is_complex:
        return tm.reduce_sum(tm.real(y * tm.constant(w.astype(np.complex128))))
    return tm.reduce_sum(y * tm.constant(w.real))


def _fd_grad(loss_of, zs, i, eps=1e-6):
    # TensorFlow's convention for a real loss L of complex z: dL/dRe(z) + 1j * dL/dIm(z).
    out = np.zeros_like(zs[i])
    for k in np.ndindex(zs[i].shape):
        parts = []
        for step in (eps, 1j * eps):
            hi = [z.copy() for z in zs]
            lo = [z.copy() for z in zs]
            hi[i][k] += step
            lo[i][k] -= step
            parts.append((loss_of(hi) - loss_of(lo)) / (2 * eps))
        out[k] = parts[0] + 1j * parts[1]
    return out


def _check_fd(build, zs):
    with tm.Graph().as_default():
        phs = [tm.placeholder(tm.complex128, z.shape) for z in zs]
        loss = _real_loss(build(*phs))
        grads = tm.gradients(loss, phs)
        with tm.Session() as sess:
            def loss_of(values):
                return sess.run(loss, dict(zip(phs, values)))

            got = sess.run(grads, dict(zip(phs, zs)))
            for i in range(len(zs)):
                np.testing.assert_allclose(got[i], _fd_grad(loss_of, zs, i), rtol=1e-5,
                                           atol=1e-6)


@pytest.mark.parametrize("fn", _FD_UNARY)
def test_complex_unary_gradients_match_finite_differences(fn):
    _check_fd(getattr(tm, fn), [_Z0])


@pytest.mark.parametrize("fn", sorted(_FD_BINARY))
def test_complex_binary_gradients_match_finite_differences(fn):
    _check_fd(_FD_BINARY[fn], [_Z0, _Z1])
