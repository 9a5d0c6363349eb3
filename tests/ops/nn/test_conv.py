"""Convolution and pooling against TensorFlow 2.21 (tests/goldens/conv.npz, written by
tools/record_goldens_conv.py from the shared cases in conv_cases.py): forward values, gradients
(``tm.gradients``, so the backprop ops and their own gradients), the TF1 functions, and the
error classes and messages of bad input."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.ops.nn import conv_cases

G = load_golden("conv")

# TensorFlow sums in float32 in its own order (oneDNN); tfmini's BLAS order differs.
TOL = dict(rtol=1e-5, atol=2e-5)


# TensorFlow 2.21's oneDNN depthwise backprops give, for dilated filters, gradients that
# disagree with central differences of its own (matching) forward op; tfmini's agree with
# them (test_dilated_depthwise_gradients_match_finite_differences).
TF_WRONG = {"depthwise/same_d2/NHWC": {"d_w", "d_x"}, "depthwise/same_d2/NCHW": {"d_w", "d_x"}}


def _recorded(name: str) -> bool:
    return f"{name}/not_recorded" not in G


@pytest.mark.parametrize("name", sorted(conv_cases.CASES))
def test_case_matches_tensorflow(name):
    _check_case(name)


_CONV_CASES = sorted(n for n in conv_cases.CASES
                     if n.startswith(("conv2d", "conv3d", "fn/conv", "fn/atrous")))


@pytest.mark.parametrize("name", _CONV_CASES)
def test_large_kernel_paths_match_tensorflow(name, monkeypatch):
    """Conv2D, Conv3D and their backprops as they run on large inputs, forced here on the small
    cases: the batch split into (up to 3 uneven) parts on the kernel helper threads, the patch
    matrix built in chunks of one image, and the stride-1 input gradient taken as the
    convolution of dy with the flipped filter whatever the channel count."""
    from tfmini.ops.common import parallel
    from tfmini.ops.nn import batch_split, conv_kernels

    monkeypatch.setattr(batch_split, "MIN_PART_MACS", 1)
    monkeypatch.setattr(parallel, "_width", 3)
    monkeypatch.setattr(parallel, "_blas_threads", 1)
    monkeypatch.setattr(conv_kernels, "_CHUNK_BYTES", 1)
    monkeypatch.setattr(conv_kernels, "_MIN_TRANSPOSED_CHANNELS", 1)
    _check_case(name)


def _check_case(name):
    if not _recorded(name):
        pytest.skip(f"TensorFlow (oneDNN) could not run it: {G[f'{name}/not_recorded']}")
    inputs = conv_cases.make_inputs(name)
    _, fn = conv_cases.CASES[name]
    g = tm.Graph()
    with g.as_default():
        fetches = fn(tm, inputs)
        with tm.Session(graph=g) as sess:
            values = sess.run(fetches)
    keys = sorted(k.rsplit("/", 1)[1] for k in G if k.rsplit("/", 1)[0] == name)
    assert sorted(values) == keys
    for k, v in values.items():
        if k in TF_WRONG.get(name, ()):
            continue
        want = G[f"{name}/{k}"]
        assert np.shape(v) == want.shape, k
        assert fetches[k].shape.is_compatible_with(want.shape), k  # the shape function
        if want.dtype.kind in "iu":
            np.testing.assert_array_equal(v, want, err_msg=k)
        else:
            np.testing.assert_allclose(v, want, **TOL, err_msg=f"{name}/{k}")


# TensorFlow's oneDNN kernel aborts on this mismatch ("could not create a primitive
# descriptor"); its plain kernel and tfmini report it as InvalidArgumentError.
CLASS_OVERRIDE = {"backprop_input_mismatch": "InvalidArgumentError"}


@pytest.mark.parametrize("name", sorted(conv_cases.ERROR_CASES))
def test_error_matches_tensorflow(name):
    want_class = CLASS_OVERRIDE.get(name, str(G[f"error/{name}/class"]))
    want_message = str(G[f"error/{name}/message"])
    g = tm.Graph()
    with pytest.raises(Exception) as info:
        with g.as_default():
            t = conv_cases.ERROR_CASES[name](tm)
            with tm.Session(graph=g) as sess:
                sess.run(t)
    assert type(info.value).__name__ == want_class, str(info.value)
    if name not in CLASS_OVERRIDE:
        assert want_message in str(info.value)


def test_failed_run_keeps_session_usable():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, None, None, 3])
        w = tm.Variable(np.ones((2, 2, 3, 4), np.float32))
        y = tm.nn.conv2d(x, w, 1, "VALID")
        init = tm.global_variables_initializer()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError, match="Negative dimension"):
            sess.run(y, {x: np.ones((1, 1, 1, 3), np.float32)})
        out = sess.run(y, {x: np.ones((1, 3, 3, 3), np.float32)})
        np.testing.assert_allclose(out, np.full((1, 2, 2, 4), 12.0))


def test_depthwise_channel_order():
    # Output channel c*M + m is channel c times filter[..., c, m] (x = (1, 10)).
    with tm.Graph().as_default():
        x = tm.constant(np.array([1.0, 10.0], np.float32).reshape(1, 1, 1, 2))
        w = tm.constant(np.array([[1, 2, 3], [1, 2, 3]], np.float32).reshape(1, 1, 2, 3))
        y = tm.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID")
        with tm.Session() as sess:
            np.testing.assert_array_equal(sess.run(y).ravel(), [1, 2, 3, 10, 20, 30])


def test_max_pool_skips_nan_and_ties_take_the_first():
    x = np.array([1, np.nan, 3, 2], np.float32).reshape(1, 2, 2, 1)
    t = np.array([5, 5, 5, 5], np.float32).reshape(1, 2, 2, 1)
    with tm.Graph().as_default():
        y = tm.nn.max_pool(x, 2, 2, "VALID")
        _, arg = tm.nn.max_pool_with_argmax(t, 2, 2, "VALID")
        with tm.Session() as sess:
            assert sess.run(y).ravel().tolist() == [3.0]
            assert sess.run(arg).ravel().tolist() == [0]


@pytest.mark.parametrize("which", [0, 1])
def test_dilated_depthwise_gradients_match_finite_differences(which):
    rng = np.random.default_rng(0)
    values = [rng.normal(size=(1, 7, 6, 2)), rng.normal(size=(3, 2, 2, 2))]
    with tm.Graph().as_default():
        ps = [tm.placeholder(tm.float64, v.shape) for v in values]
        y = tm.raw_ops.DepthwiseConv2dNative(input=ps[0], filter=ps[1],
                                             strides=[1, 1, 1, 1], padding="SAME",
                                             dilations=[1, 2, 2, 1])
        s = tm.reduce_sum(y * y)
        (g,) = tm.gradients(s, [ps[which]])
        with tm.Session() as sess:
            feed = dict(zip(ps, values))
            got = sess.run(g, feed)
            fd = np.zeros_like(values[which])
            for i in np.ndindex(fd.shape):
                plus, minus = values[which].copy(), values[which].copy()
                plus[i] += 1e-6
                minus[i] -= 1e-6
                fd[i] = (sess.run(s, {**feed, ps[which]: plus})
                         - sess.run(s, {**feed, ps[which]: minus})) / 2e-6
    np.testing.assert_allclose(got, fd, atol=1e-5)


@pytest.mark.parametrize("pool", [p for p in conv_cases._POOL])
def test_max_pool_grad_grad_nchw_matches_tensorflow_nhwc_transposed(pool):
    # TensorFlow's CPU MaxPoolGradGrad refuses NCHW, so the recorded NHWC result (TF's
    # numbers) is the reference: tfmini's NCHW kernel on the transposed inputs must give it,
    # transposed (within TOL: the upstream gradient is a float32 cos, 1 ulp apart from TF's),
    # and exactly what tfmini's NHWC kernel gives on the same inputs (a pure selection).
    name, padding, ksize, strides = pool
    case_name = f"max_pool/{name}/NHWC"
    inputs = conv_cases.make_inputs(case_name)
    _, fn = conv_cases.CASES[case_name]
    to_nchw, to_nhwc = [0, 3, 1, 2], [0, 2, 3, 1]
    g = tm.Graph()
    with g.as_default():
        fetches = fn(tm, inputs)
        y = fetches["y"]
        dx = fetches["d_mx"]
        ddx = conv_cases._upstream(tm, dx) * 2.0
        mx = g.get_tensor_by_name("mx:0")
        dd_nchw = tm.raw_ops.MaxPoolGradGrad(
            orig_input=tm.transpose(mx, to_nchw), orig_output=tm.transpose(y, to_nchw),
            grad=tm.transpose(ddx, to_nchw), ksize=[1, 1, *ksize], strides=[1, 1, *strides],
            padding=padding, data_format="NCHW")
        with tm.Session(graph=g) as sess:
            got, nhwc = sess.run([tm.transpose(dd_nchw, to_nhwc), fetches["dd"]])
    np.testing.assert_allclose(got, G[f"{case_name}/dd"], **TOL)
    np.testing.assert_array_equal(got, nhwc)
