"""The nn helpers against TensorFlow 2.21: moments, batch normalisation, l2_normalize, LRN,
top_k / in_top_k, swish, crelu, xw_plus_b, the weighted and Poisson losses, zero_fraction.

The cases are in tests/ops/nn/nn_kit_cases.py; tools/record_goldens_nn_kit.py ran them under
TensorFlow into tests/goldens/nn_kit.npz (values, gradients, tensor names, error messages).
The ``bn_test/`` cases port TensorFlow's nn_batchnorm_test.py and are also checked against
that file's NumPy formulas.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.nn import nn_kit_cases as cases

G = load_golden("nn_kit")
VALUE_CASES = cases.value_cases(tm)
BUILD_ERRORS = cases.build_error_cases(tm)
RUN_ERRORS = cases.run_error_cases(tm)

# Per dtype. float32 sums in TensorFlow use Eigen's tree reduction, tfmini NumPy's pairwise
# one: a few ulps apart. Half precision: tfmini rounds once from float32.
TOL = {
    "float16": dict(rtol=4e-3, atol=4e-3),
    "float32": dict(rtol=2e-5, atol=2e-5),
    "float64": dict(rtol=1e-10, atol=1e-12),
}

# Fetches whose tensor name differs from TensorFlow's, with why.
NAME_DIFFERS = {
    # TensorFlow wraps swish in a custom gradient, whose result is an IdentityN.
    "act/swish/y", "act/silu/y", "act/swish_beta/y",
    # TensorFlow reshapes the loss to logits' outer shape even for rank-2 logits
    # (<scope>/Reshape_2); tfmini's softmax_cross_entropy_with_logits_v2 skips that no-op.
    "softmax_xent_v2/-1/loss", "softmax_xent_v2/0/loss",
}


def _run(name):
    g = tm.Graph()
    with g.as_default():
        fetches, feeds = VALUE_CASES[name]()
        with tm.Session(graph=g) as sess:
            return fetches, sess.run(fetches, feeds)


def _expected(name, key):
    return G[f"value/{name}/{key}"]


def test_every_case_was_recorded():
    recorded = {k.split("/", 1)[1].rsplit("/", 1)[0] for k in G if k.startswith("value/")}
    missing = set(VALUE_CASES) - {n for n in VALUE_CASES if any(
        r == n or r.startswith(n + "/") for r in recorded)}
    assert not missing


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_and_gradients_match_tensorflow(name):
    fetches, values = _run(name)
    prefix = f"value/{name}/"
    recorded = {k[len(prefix):] for k in G if k.startswith(prefix)}
    # The same outputs and the same gradients exist (None where TF's gradient is None).
    assert set(values) == recorded
    for key, got in values.items():
        want = _expected(name, key)
        got = np.asarray(got)
        assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
        assert got.shape == want.shape, (key, got.shape, want.shape)
        if name == "top_k/unsorted":
            # TensorFlow leaves the order unspecified with sorted=False (its CPU kernel
            # returns heap order); the entries are the same.
            got, want = np.sort(got, axis=-1), np.sort(want, axis=-1)
        if got.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=key)
        else:
            np.testing.assert_allclose(got, want, err_msg=key, **TOL[got.dtype.name])


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_tensor_names_match_tensorflow(name):
    g = tm.Graph()
    with g.as_default():
        fetches, _ = VALUE_CASES[name]()
    for key, t in fetches.items():
        if key.startswith("grad/") or f"{name}/{key}" in NAME_DIFFERS:
            continue
        assert t.name == str(G[f"name/{name}/{key}"]), key


def test_tf_semantics_vectors():
    # Hand-checked values from TF 2.21 (tensorflow/python/ops/nn_impl.py, lrn_op.cc).
    _, v = _run("moments/vector")
    np.testing.assert_array_equal(v["mean"], [2.5, 5.25])
    np.testing.assert_array_equal(v["variance"], [1.25, 6.6875])
    _, v = _run("batch_normalization/vector")
    np.testing.assert_array_equal(v["y"], np.float32([-0.5, 0.5, 1.5]))
    _, v = _run("lrn/vector")
    np.testing.assert_allclose(v["y"].ravel(), [0.40824828, 0.51639777, 0.80178368], rtol=1e-6)
    _, v = _run("l2_normalize/tiny")
    np.testing.assert_allclose(v["y"], [[0.1, 0.0], [0.0, 0.0], [0.6, 0.8]], rtol=1e-6)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_batch_normalization_is_bit_exact_in_tensorflows_order(dt):
    # TF's order (rsqrt, * scale, x * inv + (offset - mean * inv)) reproduces its bits.
    _, v = _run(f"bn_test/batch_norm/{dt}/True/True")
    np.testing.assert_array_equal(v["y"], _expected(f"bn_test/batch_norm/{dt}/True/True", "y"))


# ------------------------------------------------------------------------------------------
# nn_batchnorm_test.py's own NumPy checks


def _np_batch_norm(x, m, v, beta, gamma, epsilon, shift_after_norm, scale_after_norm):
    y = (x - m) / np.sqrt(v + epsilon)
    y = y * gamma if scale_after_norm else y
    return y + beta if shift_after_norm else y


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("offset_on", [True, False])
@pytest.mark.parametrize("scale_on", [True, False])
def test_batch_norm_against_numpy(dt, offset_on, scale_on):
    _, v = _run(f"bn_test/batch_norm/{dt}/{offset_on}/{scale_on}")
    c = cases
    want = _np_batch_norm(c.BN_X.astype(dt), c.BN_M.astype(dt), c.BN_V.astype(dt),
                          c.BN_BETA.astype(dt), c.BN_GAMMA.astype(dt), 0.001, offset_on,
                          scale_on)
    np.testing.assert_allclose(v["y"], want, rtol=1e-5 if dt == "float32" else 1e-12,
                               atol=1e-5 if dt == "float32" else 1e-12)


@pytest.mark.parametrize("shift", [None, 0.5])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("has_shape", [True, False])
def test_sufficient_statistics_against_numpy(shift, keep, has_shape):
    _, v = _run(f"bn_test/suff_stats/{shift}/{keep}/{has_shape}")
    x = cases.X2354[:, :, :, :3].astype(np.float64)
    xs = x - (shift or 0.0)
    assert v["count"] == 2 * 3 * 5
    np.testing.assert_allclose(v["mean_ss"], xs.sum(axis=(0, 1, 2), keepdims=keep), rtol=1e-5)
    np.testing.assert_allclose(v["var_ss"], (xs ** 2).sum(axis=(0, 1, 2), keepdims=keep),
                               rtol=1e-5)


@pytest.mark.parametrize("shift", [None, 0.3])
def test_normalize_moments_against_numpy(shift):
    _, v = _run(f"bn_test/normalize_moments/{shift}")
    m_ss, v_ss = np.array([4.0, 5.5, -2.0]), np.array([10.0, 20.0, 3.0])
    shifted_mean = m_ss / 24
    np.testing.assert_allclose(v["mean"], shifted_mean + (shift or 0.0), rtol=1e-6)
    np.testing.assert_allclose(v["variance"], v_ss / 24 - shifted_mean ** 2, rtol=1e-5)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("axes", [[0, 1, 2], [0], [1, 2, 3]])
@pytest.mark.parametrize("keep", [False, True])
def test_moments_against_numpy(dt, axes, keep):
    _, v = _run(f"bn_test/moments/{dt}/{''.join(map(str, axes))}/{keep}")
    x = cases.X2354.astype(dt).astype(np.float64)
    ax = tuple(axes)
    mean = x.mean(axis=ax, keepdims=keep)
    var = (x * x).mean(axis=ax, keepdims=keep) - mean * mean
    tol = TOL[dt] if dt != "float64" else dict(rtol=1e-9, atol=1e-12)
    assert v["mean"].dtype == np.dtype(dt)
    np.testing.assert_allclose(v["mean"], mean, **tol)
    np.testing.assert_allclose(v["variance"], var, **tol)


# ------------------------------------------------------------------------------------------
# Errors: TensorFlow's classes and messages; a failed run loses nothing


@pytest.mark.parametrize("name", sorted(BUILD_ERRORS))
def test_build_errors_match_tensorflow(name):
    want = str(G[f"build_error/{name}"])
    cls, _, message = want.partition(": ")
    g = tm.Graph()
    with g.as_default():
        with pytest.raises(getattr(__builtins__, cls, None) or ValueError) as info:
            BUILD_ERRORS[name]()
    assert type(info.value).__name__ == cls
    assert message in str(info.value)


@pytest.mark.parametrize("name", sorted(RUN_ERRORS))
def test_run_errors_match_tensorflow_and_lose_nothing(name):
    want = str(G[f"run_error/{name}"])
    cls, _, message = want.partition(": ")
    g = tm.Graph()
    with g.as_default():
        fetch, feeds = RUN_ERRORS[name]()
        ok = tm.constant(np.float32(3)) * 2
        with tm.Session(graph=g) as sess:
            with pytest.raises(getattr(tm.errors, cls)) as info:
                sess.run(fetch, feeds)
            assert message in str(info.value)
            # The session is still usable.
            assert sess.run(ok) == 6


def test_top_k_error_names_the_op():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=[None, None])
        values, _ = tm.nn.top_k(x, 5, name="best")
        with tm.Session(graph=g) as sess:
            with pytest.raises(tm.errors.InvalidArgumentError, match="best"):
                sess.run(values, {x: np.ones((2, 3), np.float32)})


def test_in_top_k_out_of_range_target_is_false_not_an_error():
    # TensorFlow's in_topk_op.h: a target outside [0, classes) is never in the top k.
    _, v = _run("in_top_k/6/int64")
    assert v["precision"].tolist() == [True, True, False, True]


def test_top_k_static_shapes():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=[None, 4, 9])
        values, indices = tm.nn.top_k(x, 3)
        assert values.shape.as_list() == [None, 4, 3]
        assert indices.dtype == tm.int32
        k = tm.placeholder(tm.int32, shape=[])
        assert tm.nn.top_k(x, k)[0].shape.as_list() == [None, 4, None]
