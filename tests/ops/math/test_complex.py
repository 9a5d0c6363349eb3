"""Complex numbers and bfloat16 against TensorFlow 2.21 (tests/goldens/sparse_complex.npz,
recorded by tools/record_goldens_sparse.py from tests/ops/math/complex_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.golden_replay import assert_matches, split_none
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
