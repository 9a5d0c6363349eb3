"""The fused batch norm family against TensorFlow: recorded values (tests/goldens/
fused_batch_norm.npz, written by tools/record_goldens_fused_batch_norm.py), OpDefs, shape
inference, errors, gradients (against TensorFlow and against finite differences), the
blocked/threaded kernel paths, and ``tm.nn.fused_batch_norm``."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.core import registry
from tfmini.ops.nn import fused_batch_norm_grad as fbn_grad
from tfmini.ops.nn import fused_batch_norm_kernels as fbn_kernels
from tfmini.ops.nn import fused_batch_norm_ops as fbn

G = load_golden("fused_batch_norm")
EPS = 0.001

# TensorFlow's own tests compare float32 with atol 1e-3; half results are rounded from float32
# once here and after each Eigen step there, so they may differ by a half ulp or two.
TOL = {"float32": dict(rtol=1e-4, atol=1e-3), "float16": dict(rtol=4e-3, atol=4e-3)}


def tol(dtype) -> dict:
    return TOL[np.dtype(dtype).name]


def check(actual, expected, dtype=np.float32):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               equal_nan=True, **tol(dtype))


def bases() -> list[str]:
    return sorted({k[len("fwd/"):-len("/x")] for k in G if k.startswith("fwd/") and
                   k.endswith("/x")})


def cases(prefix: str, suffix: str) -> list[str]:
    """The ``<base>/<mode>`` parts of keys ``<prefix>/<base>/<mode>/<suffix>``."""
    return sorted(k[len(prefix) + 1:-len(suffix) - 1] for k in G
                  if k.startswith(prefix + "/") and k.endswith("/" + suffix)
                  and k.count("/") >= 5)


def split(case: str):
    """``2x3x4x5/NHWC/float32/train`` -> (base, data format, dtype, mode)."""
    base, mode = case.rsplit("/", 1)
    _, fmt, dname = base.split("/")
    return base, fmt, np.dtype(dname), mode


MODE_ATTRS = {"train": dict(is_training=True, exponential_avg_factor=1.0),
              "ema": dict(is_training=True, exponential_avg_factor=0.5),
              "infer": dict(is_training=False, exponential_avg_factor=1.0)}


def run(build, feeds=None):
    g = tm.Graph()
    with g.as_default():
        fetches = build()
    with tm.Session(graph=g) as sess:
        return sess.run(fetches, feed_dict=feeds or {})


# ------------------------------------------------------------------------------------------
# OpDefs


SIGNATURES = {
    "FusedBatchNorm": (["x", "scale", "offset", "mean", "variance"],
                       ["y", "batch_mean", "batch_variance", "reserve_space_1",
                        "reserve_space_2"]),
    "FusedBatchNormV2": (["x", "scale", "offset", "mean", "variance"],
                         ["y", "batch_mean", "batch_variance", "reserve_space_1",
                          "reserve_space_2"]),
    "FusedBatchNormV3": (["x", "scale", "offset", "mean", "variance"],
                         ["y", "batch_mean", "batch_variance", "reserve_space_1",
                          "reserve_space_2", "reserve_space_3"]),
    "FusedBatchNormGrad": (["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2"],
                           ["x_backprop", "scale_backprop", "offset_backprop",
                            "reserve_space_3", "reserve_space_4"]),
    "FusedBatchNormGradV2": (["y_backprop", "x", "scale", "reserve_space_1",
                              "reserve_space_2"],
                             ["x_backprop", "scale_backprop", "offset_backprop",
                              "reserve_space_3", "reserve_space_4"]),
    "FusedBatchNormGradV3": (["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2",
                              "reserve_space_3"],
                             ["x_backprop", "scale_backprop", "offset_backprop",
                              "reserve_space_4", "reserve_space_5"]),
}


@pytest.mark.parametrize("op_type", sorted(SIGNATURES))
def test_opdef_matches_tensorflow(op_type):
    op_def = registry.get(op_type)
    inputs, outputs = SIGNATURES[op_type]
    assert [a.name for a in op_def.inputs] == inputs
    assert [a.name for a in op_def.outputs] == outputs
    attrs = {a.name: a for a in op_def.attrs}
    assert attrs["epsilon"].default == pytest.approx(1e-4)
    assert attrs["is_training"].default is True
    assert attrs["data_format"].default == "NHWC"
    formats = {"NHWC", "NCHW"} | ({"NDHWC", "NCDHW"} if op_type.endswith("V3") else set())
    assert set(attrs["data_format"].allowed_values) == formats
    forward = "Grad" not in op_type
    assert ("exponential_avg_factor" in attrs) == forward
    if forward:
        assert attrs["exponential_avg_factor"].default == 1.0
    v1 = op_type in ("FusedBatchNorm", "FusedBatchNormGrad")
    assert set(attrs["T"].allowed_values) == ({tm.float32} if v1 else {tm.float16, tm.float32})
    assert ("U" in attrs) != v1
    if not v1:
        assert set(attrs["U"].allowed_values) == {tm.float32}
        by_name = {a.name: a for a in op_def.inputs}
        if "Grad" in op_type:  # the grad ops' scale is always float, whatever U
            assert by_name["scale"].dtype == tm.float32
        assert all(a.type_attr == "U" for a in op_def.outputs[1:])


# ------------------------------------------------------------------------------------------
# Forward against TensorFlow (FusedBatchNormV3 through tm.raw_ops)


def _forward(base: str, mode: str, op_type="FusedBatchNormV3"):
    _, fmt, _ = base.split("/")
    x = G[f"fwd/{base}/x"]
    scale, offset, mean, variance = G[f"fwd/{base}/vectors"]

    def build():
        out = getattr(tm.raw_ops, op_type)(
            x=x, scale=scale, offset=offset, mean=mean, variance=variance, epsilon=EPS,
            data_format=fmt, name="bn", **MODE_ATTRS[mode])
        return out

    return run(build)


@pytest.mark.parametrize("case", cases("fwd", "y"))
def test_forward_matches_tensorflow(case):
    base, fmt, dtype, mode = split(case)
    out = _forward(base, mode)
    check(out.y, G[f"fwd/{case}/y"], dtype)
    stats = G[f"fwd/{case}/stats"]
    check(out.batch_mean, stats[0])
    check(out.batch_variance, stats[1])
    if not np.isnan(stats[2:]).all():  # reserve spaces TensorFlow's CPU kernel defines
        check(out.reserve_space_1, stats[2])
        check(out.reserve_space_2, stats[3])
    assert np.shape(out.reserve_space_3) == G[f"fwd/{mode}/reserve_space_3"].shape
    if mode == "infer":  # TensorFlow leaves them unspecified; tfmini echoes mean/variance
        _, _, mean, variance = G[f"fwd/{base}/vectors"]
        np.testing.assert_array_equal(out.reserve_space_1, mean)
        np.testing.assert_array_equal(out.reserve_space_2, variance)


def test_forward_cases_cover_what_tensorflow_tests():
    shapes = {b.split("/")[0] for b in bases()}
    assert {"1x1x6x1", "1x1x6x2", "1x2x1x6", "2x3x4x5", "0x3x4x2", "1x1x1x1",
            "1x2x6x1x3"} <= shapes
    formats = {b.split("/")[1] for b in bases()}
    assert formats == {"NHWC", "NCHW", "NDHWC", "NCDHW"}
    assert {c.rsplit("/", 1)[1] for c in cases("fwd", "y")} == {"train", "ema", "infer"}


def test_empty_batch_gives_nan_statistics():
    for mode in ("train", "ema", "infer"):
        out = _forward("0x3x4x2/NHWC/float32", mode)
        assert out.y.shape == (0, 3, 4, 2)
        assert np.isnan(out.batch_mean).all() and np.isnan(out.batch_variance).all()


def test_single_value_per_channel_gives_offset_and_zero_variance():
    out = _forward("1x1x1x1/NHWC/float32", "train")
    _, offset, _, _ = G["fwd/1x1x1x1/NHWC/float32/vectors"]
    np.testing.assert_allclose(out.y.reshape(-1), offset, rtol=1e-6)
    assert out.batch_variance[0] == 0


def test_channels_first_is_transposed_channels_last():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 5, 3)).astype(np.float32)
    scale, offset = rng.normal(size=(2, 3)).astype(np.float32)
    e = np.zeros(0, np.float32)
    last = run(lambda: tm.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=e,
                                                   variance=e, data_format="NHWC"))
    first = run(lambda: tm.raw_ops.FusedBatchNormV3(
        x=np.ascontiguousarray(x.transpose(0, 3, 1, 2)), scale=scale, offset=offset, mean=e,
        variance=e, data_format="NCHW"))
    np.testing.assert_allclose(first.y, last.y.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-6)
    for a, b in zip(first[1:5], last[1:5]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_factor_zero_returns_the_running_statistics():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    mean, variance = np.array([1, 2, 3, 4], np.float32), np.array([5, 6, 7, 8], np.float32)
    out = run(lambda: tm.raw_ops.FusedBatchNormV3(
        x=x, scale=np.ones(4, np.float32), offset=np.zeros(4, np.float32), mean=mean,
        variance=variance, exponential_avg_factor=0.0))
    np.testing.assert_array_equal(out.batch_mean, mean)
    np.testing.assert_array_equal(out.batch_variance, variance)
    np.testing.assert_allclose(out.reserve_space_1, x.reshape(-1, 4).mean(0))


# ------------------------------------------------------------------------------------------
# FusedBatchNormGradV3 against TensorFlow (the Java-style create form of API.md)


def _grad_inputs(case: str):
    base, fmt, dtype, mode = split(case)
    x, dy = G[f"fwd/{base}/x"], G[f"fwd/{base}/dy"]
    scale, _, mean, variance = G[f"fwd/{base}/vectors"]
    if mode == "train":
        stats = G[f"fwd/{case}/stats"]
        rs1, rs2 = stats[2], stats[3]
    else:
        rs1, rs2 = mean, variance
    return fmt, dtype, mode, dy, x, scale, rs1, rs2


@pytest.mark.parametrize("case", cases("grad", "x_backprop"))
def test_grad_op_matches_tensorflow(case):
    fmt, dtype, mode, dy, x, scale, rs1, rs2 = _grad_inputs(case)

    def build():
        scope = tm.Scope(tm.get_default_graph())
        bn = tm.ops.FusedBatchNormGradV3.create(
            scope, dy, x, scale, rs1, rs2, np.float32(0), epsilon=EPS,
            is_training=mode == "train", data_format=fmt)
        assert bn.OP_NAME == "FusedBatchNormGradV3"
        return [bn.x_backprop(), bn.scale_backprop(), bn.offset_backprop(),
                bn.reserve_space_4(), bn.reserve_space_5()]

    dx, dscale, doffset, rs4, rs5 = run(build)
    check(dx, G[f"grad/{case}/x_backprop"], dtype)
    dscale_tf, doffset_tf = G[f"grad/{case}/vectors"]
    check(dscale, dscale_tf)
    check(doffset, doffset_tf)
    check(rs4, G[f"grad/{mode}/reserve_space_4"])
    check(rs5, G[f"grad/{mode}/reserve_space_5"])


def test_grad_op_in_inference_accepts_channels_first():
    # TensorFlow's CPU kernel refuses this ("only support NHWC tensor format for now"); its
    # GPU kernel computes it. tfmini computes it: the transposed channels-last result.
    rng = np.random.default_rng(2)
    x, dy = rng.normal(size=(2, 2, 3, 4, 3)).astype(np.float32)
    scale, mean = rng.normal(size=(2, 3)).astype(np.float32)
    variance = rng.uniform(0.5, 2, 3).astype(np.float32)

    def grad(fmt, xv, dyv):
        return run(lambda: tm.raw_ops.FusedBatchNormGradV3(
            y_backprop=dyv, x=xv, scale=scale, reserve_space_1=mean, reserve_space_2=variance,
            reserve_space_3=np.float32(0), data_format=fmt, is_training=False))

    last = grad("NHWC", x, dy)
    first = grad("NCHW", np.ascontiguousarray(x.transpose(0, 3, 1, 2)),
                 np.ascontiguousarray(dy.transpose(0, 3, 1, 2)))
    np.testing.assert_allclose(first.x_backprop, last.x_backprop.transpose(0, 3, 1, 2),
                               rtol=1e-6)
    np.testing.assert_allclose(first.scale_backprop, last.scale_backprop, rtol=1e-5)
    np.testing.assert_allclose(first.offset_backprop, last.offset_backprop, rtol=1e-5)


def test_grad_of_empty_batch_is_zero():
    e = np.zeros((0, 3, 4, 2), np.float32)
    out = run(lambda: tm.raw_ops.FusedBatchNormGradV3(
        y_backprop=e, x=e, scale=np.ones(2, np.float32), reserve_space_1=np.zeros(2, np.float32),
        reserve_space_2=np.ones(2, np.float32), reserve_space_3=np.float32(0)))
    assert out.x_backprop.shape == (0, 3, 4, 2)
    np.testing.assert_array_equal(out.scale_backprop, [0, 0])
    np.testing.assert_array_equal(out.offset_backprop, [0, 0])


# ------------------------------------------------------------------------------------------
# tm.gradients of the forward op against TensorFlow's autodiff


@pytest.mark.parametrize("case", cases("autodiff", "d_x"))
def test_gradients_of_forward_op_match_tensorflow(case):
    base, fmt, dtype, mode = split(case)
    x, dy = G[f"fwd/{base}/x"], G[f"fwd/{base}/dy"]
    vectors = G[f"fwd/{base}/vectors"]

    def build():
        xt = tm.constant(x)
        vs = [tm.constant(v) for v in vectors]
        out = tm.raw_ops.FusedBatchNormV3(x=xt, scale=vs[0], offset=vs[1], mean=vs[2],
                                          variance=vs[3], epsilon=EPS, data_format=fmt,
                                          **MODE_ATTRS[mode])
        grads = tm.gradients(out.y, [xt, *vs], grad_ys=dy)
        assert grads[3] is None and grads[4] is None  # none for mean and variance, as TF
        return grads[:3]

    d_x, d_scale, d_offset = run(build)
    check(d_x, G[f"autodiff/{case}/d_x"], dtype)
    d_scale_tf, d_offset_tf = G[f"autodiff/{case}/vectors"]
    check(d_scale, d_scale_tf)
    check(d_offset, d_offset_tf)


@pytest.mark.parametrize("op_type", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
@pytest.mark.parametrize("mode", ["train", "infer"])
def test_gradient_function_builds_the_matching_grad_op(op_type, mode):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (2, 3, 4, 5))
        v = np.ones(3, np.float32)
        out = getattr(tm.raw_ops, op_type)(x=x, scale=v, offset=v, mean=v, variance=v,
                                           data_format="NCHW", **MODE_ATTRS[mode])
        (dx,) = tm.gradients(out[0], [x])
    types = [op.type for op in g.get_operations() if "_grad/" in op.name]
    assert fbn_grad._GRAD_OP[op_type] in types
    # Inference hands the grad op channels-last tensors, as TensorFlow's gradient does.
    grad_op = next(op for op in g.get_operations() if op.type == fbn_grad._GRAD_OP[op_type])
    assert grad_op.attrs["data_format"] == ("NCHW" if mode == "train" else "NHWC")
    assert ("Transpose" in types) == (mode == "infer")
    assert dx.shape.as_list() == [2, 3, 4, 5]


# ------------------------------------------------------------------------------------------
# Gradients against finite differences (tm.test.compute_gradient_error)


@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 2, 3, 2)), ("NCHW", (2, 2, 3, 2)),
                                       ("NCDHW", (1, 2, 2, 3, 2))])
@pytest.mark.parametrize("training", [True, False])
def test_first_order_gradients_match_finite_differences(fmt, shape, training):
    rng = np.random.default_rng(3)
    c = shape[1] if fmt[1] == "C" else shape[-1]
    x0 = rng.normal(size=shape)
    s0, o0 = rng.normal(size=(2, c))
    mean, variance = rng.normal(size=c), rng.uniform(0.5, 2, c)
    g = tm.Graph()
    with g.as_default(), tm.Session(graph=g) as sess:
        x = tm.placeholder(tm.float32, shape)
        s = tm.placeholder(tm.float32, (c,))
        o = tm.placeholder(tm.float32, (c,))
        y = tm.raw_ops.FusedBatchNormV3(x=x, scale=s, offset=o, mean=mean.astype(np.float32),
                                        variance=variance.astype(np.float32), epsilon=EPS,
                                        data_format=fmt, is_training=training).y
        err = tm.test.compute_gradient_error([x, s, o], [shape, (c,), (c,)], y, shape,
                                             x_init_value=[x0, s0, o0], delta=1e-2,
                                             session=sess)
    assert err < 1e-3


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_second_order_gradients_match_finite_differences(fmt, training):
    # x -> FusedBatchNormV3 -> tm.gradients (a FusedBatchNormGradV3 fed by the forward op) ->
    # dx: differentiating dx again runs the grad op's own gradient function.
    shape = (2, 2, 3, 2)
    rng = np.random.default_rng(4)
    c = 2
    x0 = rng.normal(size=shape)
    dy0 = rng.normal(size=shape).astype(np.float32)
    s0 = rng.normal(size=c)
    mean, variance = rng.normal(size=c), rng.uniform(0.5, 2, c)
    g = tm.Graph()
    with g.as_default(), tm.Session(graph=g) as sess:
        x = tm.placeholder(tm.float32, shape)
        s = tm.placeholder(tm.float32, (c,))
        dy = tm.placeholder(tm.float32, shape)
        y = tm.raw_ops.FusedBatchNormV3(x=x, scale=s, offset=np.zeros(c, np.float32),
                                        mean=mean.astype(np.float32),
                                        variance=variance.astype(np.float32), epsilon=EPS,
                                        data_format=fmt, is_training=training).y
        (dx,) = tm.gradients(y, [x], grad_ys=dy)
        assert dx.op.type == "FusedBatchNormGradV3" or not training
        err = tm.test.compute_gradient_error([x, s, dy], [shape, (c,), shape], dx, shape,
                                             x_init_value=[x0, s0, dy0], delta=1e-2,
                                             session=sess)
    assert err < 2e-3


@pytest.mark.parametrize("case", sorted({k.rsplit("/", 1)[0] for k in G
                                         if k.startswith("gradgrad/")}))
def test_second_order_gradients_match_tensorflow(case):
    _, shape, fmt, dname, mode = case.split("/")
    dtype = np.dtype(dname)
    d = {k: G[f"{case}/{k}"] for k in ("y_backprop", "x", "scale", "reserve_space_1",
                                       "reserve_space_2", "ggx", "ggs", "ggo")}

    def build():
        dy, x, scale = (tm.constant(d[k]) for k in ("y_backprop", "x", "scale"))
        out = tm.raw_ops.FusedBatchNormGradV3(
            y_backprop=dy, x=x, scale=scale, reserve_space_1=d["reserve_space_1"],
            reserve_space_2=d["reserve_space_2"], reserve_space_3=np.float32(0), epsilon=EPS,
            data_format=fmt, is_training=mode == "train")
        return tm.gradients([out.x_backprop, out.scale_backprop, out.offset_backprop],
                            [dy, x, scale], grad_ys=[d["ggx"], d["ggs"], d["ggo"]])

    d_dy, d_x, d_scale = run(build)
    check(d_dy, G[f"{case}/d_y_backprop"], dtype)
    check(d_x, G[f"{case}/d_x"], dtype)
    check(d_scale, G[f"{case}/d_scale"])


def test_reserve_space_inputs_of_grad_ops_get_no_gradient():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (1, 2, 2, 2))
        v = tm.placeholder(tm.float32, (2,))
        rs = tm.placeholder(tm.float32, (2,))
        out = tm.raw_ops.FusedBatchNormGradV3(y_backprop=x, x=x, scale=v, reserve_space_1=rs,
                                              reserve_space_2=rs, reserve_space_3=rs)
        grads = tm.gradients(out.x_backprop, [x, v, rs])
    assert grads[0] is not None and grads[1] is not None and grads[2] is None


# ------------------------------------------------------------------------------------------
# FusedBatchNorm (V1) and FusedBatchNormV2


@pytest.mark.parametrize("case", sorted({k.rsplit("/", 1)[0] for k in G
                                         if k.startswith("v1v2/")}))
def test_older_versions_match_tensorflow(case):
    _, op_type, fmt, dname, mode = case.split("/")
    dtype = np.dtype(dname)
    d = {k[len(case) + 1:]: G[k] for k in G if k.startswith(case + "/")}
    grad_op = {"FusedBatchNorm": "FusedBatchNormGrad",
               "FusedBatchNormV2": "FusedBatchNormGradV2"}[op_type]

    def build():
        out = getattr(tm.raw_ops, op_type)(
            x=d["x"], scale=d["scale"], offset=d["offset"], mean=d["mean"],
            variance=d["variance"], epsilon=EPS, data_format=fmt, is_training=mode == "train")
        g = getattr(tm.raw_ops, grad_op)(
            y_backprop=d["y_backprop"], x=d["grad_x"], scale=d["scale"],
            reserve_space_1=out.reserve_space_1 if mode == "train" else d["mean"],
            reserve_space_2=out.reserve_space_2 if mode == "train" else d["variance"],
            epsilon=EPS, data_format=str(d["grad_format"]), is_training=mode == "train")
        return out, g

    out, g = run(build)
    check(out.y, d["y"], dtype)
    check(out.batch_mean, d["batch_mean"])
    check(out.batch_variance, d["batch_variance"])
    if mode == "train":
        check(out.reserve_space_1, d["reserve_space_1"])
        check(out.reserve_space_2, d["reserve_space_2"])
    check(g.x_backprop, d["x_backprop"], dtype)
    for k in ("scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"):
        check(getattr(g, k), d[k])


# ------------------------------------------------------------------------------------------
# tm.nn.fused_batch_norm


FN_ARGS = {
    "train": {},
    "infer": dict(is_training=False, name="bn"),
    "ema": dict(exponential_avg_factor=0.25),
    "tiny_epsilon": dict(epsilon=1e-9),
    "nchw": dict(data_format="NCHW"),
}


@pytest.mark.parametrize("case", sorted(FN_ARGS))
def test_fused_batch_norm_function_matches_tensorflow(case):
    d = {k[len(f"fn/{case}/"):]: G[k] for k in G if k.startswith(f"fn/{case}/")}
    g = tm.Graph()
    with g.as_default():
        outs = tm.nn.fused_batch_norm(d["x"], d["scale"], d["offset"], d.get("mean"),
                                      d.get("variance"), **FN_ARGS[case])
        assert [op.name for op in g.get_operations()] == d["op_names"].tolist()
        assert outs[0].op.type == "FusedBatchNormV3"
        assert outs[0].op.attrs["epsilon"] == pytest.approx(float(d["epsilon"]), rel=1e-6)
        with tm.Session(graph=g) as sess:
            y, running_mean, running_var = sess.run(list(outs))
    check(y, d["y"])
    check(running_mean, d["running_mean"])
    np.testing.assert_allclose(running_var, d["running_var"], rtol=1e-3, atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(is_training=False), dict(exponential_avg_factor=0.5)])
def test_fused_batch_norm_function_needs_mean_and_variance(kwargs):
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="Both `mean` and `variance` must be a 1D tensor "
                                             "when `is_training` is False or "
                                             "`exponential_avg_factor` != 1.0"):
            tm.nn.fused_batch_norm(np.ones((1, 1, 1, 2), np.float32), np.ones(2, np.float32),
                                   np.zeros(2, np.float32), mean=np.zeros(2, np.float32),
                                   **kwargs)


def test_fused_batch_norm_is_in_tm_nn():
    assert tm.nn.fused_batch_norm is fbn.fused_batch_norm
    assert "fused_batch_norm" in fbn.__all__


# ------------------------------------------------------------------------------------------
# Errors: run time (InvalidArgumentError, TensorFlow's kernel messages) ...


F32 = np.float32
X = np.ones((2, 2, 1, 2), F32)
V2_, V3_, E = np.ones(2, F32), np.ones(3, F32), np.zeros(0, F32)
FWD = dict(x=X, scale=V2_, offset=V2_, mean=E, variance=E)
GRAD = dict(y_backprop=X, x=X, scale=V2_, reserve_space_1=V2_, reserve_space_2=V2_,
            reserve_space_3=E)
GRAD2 = {k: v for k, v in GRAD.items() if k != "reserve_space_3"}

ERRORS = {
    "rank3": ("FusedBatchNormV3", {**FWD, "x": X[0]}, {}),
    "rank6": ("FusedBatchNormV3", {**FWD, "x": X[None, None]}, {"data_format": "NDHWC"}),
    "scale_rank": ("FusedBatchNormV3", {**FWD, "scale": V2_[None]}, {}),
    "offset_rank": ("FusedBatchNormV3", {**FWD, "offset": V2_[None]}, {}),
    "mean_rank": ("FusedBatchNormV3", {**FWD, "mean": V2_[None]}, {}),
    "variance_rank": ("FusedBatchNormV3", {**FWD, "variance": V2_[None]}, {}),
    "scale_size": ("FusedBatchNormV3", {**FWD, "scale": V3_}, {}),
    "offset_size": ("FusedBatchNormV3", {**FWD, "offset": V3_}, {}),
    "infer_mean_size": ("FusedBatchNormV3", {**FWD, "variance": V2_}, {"is_training": False}),
    "infer_variance_size": ("FusedBatchNormV3", {**FWD, "mean": V2_}, {"is_training": False}),
    "ema_mean_size": ("FusedBatchNormV3", {**FWD, "variance": V2_},
                      {"exponential_avg_factor": 0.5}),
    "ema_variance_size": ("FusedBatchNormV3", {**FWD, "mean": V2_},
                          {"exponential_avg_factor": 0.5}),
    "v1_scale_size": ("FusedBatchNorm", {**FWD, "scale": V3_}, {}),
    "v2_infer_mean_size": ("FusedBatchNormV2", {**FWD, "variance": V2_}, {"is_training": False}),
    "grad_shape": ("FusedBatchNormGradV3", {**GRAD, "y_backprop": X[:1]}, {}),
    "grad_rank3": ("FusedBatchNormGradV3", {**GRAD, "y_backprop": X[0], "x": X[0]}, {}),
    "grad_scale_rank": ("FusedBatchNormGradV3", {**GRAD, "scale": V2_[None]}, {}),
    "grad_mean_rank": ("FusedBatchNormGradV3", {**GRAD, "reserve_space_1": V2_[None]}, {}),
    "grad_variance_rank": ("FusedBatchNormGradV3", {**GRAD, "reserve_space_2": V2_[None]}, {}),
    "grad_scale_size": ("FusedBatchNormGradV3", {**GRAD, "scale": V3_}, {}),
    "grad_rs1_size": ("FusedBatchNormGradV3", {**GRAD, "reserve_space_1": E}, {}),
    "grad_rs2_size": ("FusedBatchNormGradV3", {**GRAD, "reserve_space_2": E}, {}),
    "grad_v1_rs1_size": ("FusedBatchNormGrad", {**GRAD2, "reserve_space_1": E}, {}),
    "grad_v2_shape": ("FusedBatchNormGradV2", {**GRAD2, "y_backprop": X[:1]}, {}),
}


def test_every_recorded_error_is_checked():
    recorded = {k.split("/")[1] for k in G if k.startswith("error/")}
    assert recorded == set(ERRORS)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_run_time_errors_match_tensorflow(case):
    op_type, inputs, attrs = ERRORS[case]
    message = str(G[f"error/{case}/message"])
    g = tm.Graph()
    with g.as_default():
        # Placeholders of unknown shape: the shape function lets everything through, the
        # kernel's checks decide, as in TensorFlow's eager mode.
        phs = {k: tm.placeholder(tm.as_dtype(v.dtype), shape=None, name=k)
               for k, v in inputs.items()}
        out = getattr(tm.raw_ops, op_type)(**phs, **attrs)
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(out[0], {phs[k]: v for k, v in inputs.items()})
    assert message in str(info.value)
    assert info.value.op.type == op_type if info.value.op is not None else True


# ... and build time (ValueError from the shape functions, TensorFlow's wording).

S4 = dict(x=[2, 3, 4, 2], scale=[2], offset=[2], mean=[0], variance=[0])
GS = dict(y_backprop=[2, 3, 4, 2], x=[2, 3, 4, 2], scale=[2], reserve_space_1=[2],
          reserve_space_2=[2], reserve_space_3=[])
SHAPE_ERRORS = {
    "rank3": ("FusedBatchNormV3", {**S4, "x": [2, 3, 4]}, {}),
    "rank5_nhwc": ("FusedBatchNormV3", {**S4, "x": [2, 3, 4, 5, 2]}, {}),
    "rank4_ndhwc": ("FusedBatchNormV3", S4, {"data_format": "NDHWC"}),
    "scale_size": ("FusedBatchNormV3", {**S4, "scale": [3]}, {}),
    "scale_rank": ("FusedBatchNormV3", {**S4, "scale": [1, 2]}, {}),
    "infer_mean_size": ("FusedBatchNormV3", {**S4, "variance": [2]}, {"is_training": False}),
    "ema_mean_size": ("FusedBatchNormV3", {**S4, "variance": [2]},
                      {"exponential_avg_factor": 0.5}),
    "grad_rs1_size": ("FusedBatchNormGradV3", {**GS, "reserve_space_1": [0]}, {}),
    "grad_channels": ("FusedBatchNormGradV3", {**GS, "y_backprop": [2, 3, 4, 3]}, {}),
    "grad_rank3": ("FusedBatchNormGradV3", {**GS, "x": [3, 4, 2]}, {}),
}


def test_every_recorded_shape_error_is_checked():
    recorded = {k.split("/")[1] for k in G if k.startswith("shape_error/")}
    assert recorded == set(SHAPE_ERRORS)


@pytest.mark.parametrize("case", sorted(SHAPE_ERRORS))
def test_build_time_errors_match_tensorflow(case):
    op_type, shapes, attrs = SHAPE_ERRORS[case]
    message = str(G[f"shape_error/{case}/message"])
    with tm.Graph().as_default():
        phs = {k: tm.placeholder(tm.float32, s, name=k) for k, s in shapes.items()}
        with pytest.raises(ValueError, match=message.replace("[", r"\[")):
            getattr(tm.raw_ops, op_type)(**phs, **attrs)


def test_type_and_format_attrs_are_checked_when_building():
    x = np.ones((1, 1, 1, 2), np.float64)
    v = np.ones(2, np.float32)
    with tm.Graph().as_default():
        with pytest.raises(TypeError, match="parameter 'x' has DataType float64 not in list"):
            tm.raw_ops.FusedBatchNormV3(x=x, scale=v, offset=v, mean=v, variance=v)
        with pytest.raises(TypeError, match="parameter 'scale' has DataType float16"):
            h = v.astype(np.float16)
            tm.raw_ops.FusedBatchNormV3(x=x.astype(np.float32), scale=h, offset=h, mean=h,
                                        variance=h)
        with pytest.raises(ValueError, match="Attr 'data_format' of 'FusedBatchNormV3' Op "
                                             "passed string 'NWHC' not in"):
            tm.raw_ops.FusedBatchNormV3(x=x.astype(np.float32), scale=v, offset=v, mean=v,
                                        variance=v, data_format="NWHC")
        with pytest.raises(ValueError, match="'NDHWC' not in"):
            tm.raw_ops.FusedBatchNormV2(x=x.astype(np.float32), scale=v, offset=v, mean=v,
                                        variance=v, data_format="NDHWC")


# ------------------------------------------------------------------------------------------
# Shape inference (TensorFlow's FusedBatchNormShape / FusedBatchNormGradShape)


def test_shape_inference():
    with tm.Graph().as_default():
        x = tm.placeholder(tm.float32, None)
        c = tm.placeholder(tm.float32, [3])
        u = tm.placeholder(tm.float32, [None])
        out = tm.raw_ops.FusedBatchNormV3(x=x, scale=u, offset=c, mean=u, variance=u)
        assert out.y.shape.as_list() == [None, None, None, 3]
        assert out.batch_mean.shape.as_list() == [3]
        assert out.reserve_space_3.shape.rank is None
        x5 = tm.placeholder(tm.float32, [2, None, 4, 5, 6])
        out = tm.raw_ops.FusedBatchNormV3(x=x5, scale=u, offset=u, mean=u, variance=u,
                                          data_format="NCDHW")
        assert out.y.shape.as_list() == [2, None, 4, 5, 6]
        # In training with factor 1 mean and variance are not read: any shape is accepted.
        m = tm.placeholder(tm.float32, [1, 0])
        out = tm.raw_ops.FusedBatchNormV3(x=tm.placeholder(tm.float32, [2, 3, 4, 2]), scale=u,
                                          offset=u, mean=m, variance=m)
        assert out.batch_variance.shape.as_list() == [2]
        g = tm.raw_ops.FusedBatchNormGradV3(
            y_backprop=tm.placeholder(tm.float32, [1, 3, 4, None]),
            x=tm.placeholder(tm.float32, [2, 3, 4, None]), scale=u, reserve_space_1=c,
            reserve_space_2=u, reserve_space_3=m)
        # x_backprop takes y_backprop's shape (TensorFlow does not merge it with x's).
        assert g.x_backprop.shape.as_list() == [1, 3, 4, 3]
        assert g.scale_backprop.shape.as_list() == [3]
        assert g.reserve_space_4.shape.as_list() == [0]
    # ... and at run time the kernel still checks the mean's rank.
    out = None
    with pytest.raises(tm.errors.InvalidArgumentError, match="estimated_mean must be "
                                                             r"1-dimensional\[1,0\]"):
        run(lambda: tm.raw_ops.FusedBatchNormV3(
            x=np.ones((1, 1, 1, 2), np.float32), scale=np.ones(2, np.float32),
            offset=np.ones(2, np.float32), mean=np.zeros((1, 0), np.float32),
            variance=np.zeros(0, np.float32)))
    assert out is None


# ------------------------------------------------------------------------------------------
# The blocked and threaded kernel paths on tensors big enough to use them


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype,loc", [(np.float32, 100.0), (np.float32, 1.0),
                                       (np.float32, 0.25), (np.float16, 3.0)])
def test_large_tensors_match_a_float64_reference(fmt, dtype, loc):
    # 3*37*41*64 values: above the threading threshold, and 4551 rows of 64 channels do not
    # fill whole 16-pixel rows, so the remainder segment is used too. A mean 200 standard
    # deviations from 0 takes the centred paths and checks that the blocked variance does
    # not cancel; the others take the folded paths (see _can_fold). The batch moments come
    # from sums of squares only with a mean within one standard deviation (loc 0.25; the
    # others are 2 and more away: the centred moments).
    shape = (3, 37, 41, 64) if fmt == "NHWC" else (3, 64, 37, 41)
    assert np.prod(shape) >= fbn_kernels._PARALLEL_MIN_ELEMENTS
    rng = np.random.default_rng(5)
    axes = (0, 1, 2) if fmt == "NHWC" else (0, 2, 3)
    bshape = (1, 1, 1, 64) if fmt == "NHWC" else (1, 64, 1, 1)
    x = (rng.normal(size=shape) * 0.5 + loc).astype(dtype)
    dy = rng.normal(size=shape).astype(dtype)
    scale, offset = rng.normal(size=(2, 64)).astype(np.float32)
    e = np.zeros(0, np.float32)
    kw = dict(epsilon=EPS, data_format=fmt)
    r0 = 1 / np.sqrt(x.astype(np.float64).var() + EPS)
    assert fbn_kernels._can_fold(np.array([loc]), np.array([r0])) == (loc < 10)
    y, mean, var, rs1, rs2 = fbn_kernels.fused_batch_norm_forward(
        x, scale, offset, e, e, is_training=True, exponential_avg_factor=1.0, **kw)
    dx, ds, do, _, _ = fbn_kernels.fused_batch_norm_backward(
        dy, x, scale, rs1, rs2, is_training=True, **kw)
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    n = x.size // 64
    m64, v64 = x64.mean(axes), x64.var(axes)
    r = 1 / np.sqrt(v64 + np.float32(EPS))
    xhat = (x64 - m64.reshape(bshape)) * r.reshape(bshape)
    y64 = xhat * scale.reshape(bshape) + offset.reshape(bshape)
    ds64, do64 = (dy64 * xhat).sum(axes), dy64.sum(axes)
    dx64 = (scale * r).reshape(bshape) * (dy64 - (do64 / n).reshape(bshape)
                                          - xhat * (ds64 / n).reshape(bshape))
    tight = dtype == np.float32
    np.testing.assert_allclose(mean, m64, rtol=1e-6)
    np.testing.assert_allclose(rs2, v64, rtol=1e-4 if tight else 1e-3)
    np.testing.assert_allclose(var, v64 * n / (n - 1), rtol=1e-4 if tight else 1e-3)
    np.testing.assert_allclose(y, y64, atol=2e-3 if tight else 1e-2)
    np.testing.assert_allclose(ds, ds64, rtol=1e-3, atol=1e-2)
    np.testing.assert_allclose(do, do64, rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(dx, dx64, atol=2e-3 if tight else 1e-2)
    assert y.dtype == dx.dtype == dtype
    # Inference, through the same blocks.
    y_inf, *_ = fbn_kernels.fused_batch_norm_forward(x, scale, offset, rs1, rs2, is_training=False,
                                      exponential_avg_factor=1.0, **kw)
    np.testing.assert_allclose(y_inf, y, atol=2e-3 if tight else 1e-2)
    dx_inf, ds_inf, do_inf, _, _ = fbn_kernels.fused_batch_norm_backward(dy, x, scale, rs1, rs2,
                                                              is_training=False, **kw)
    np.testing.assert_allclose(dx_inf, dy64 * (scale * r).reshape(bshape),
                               atol=2e-3 if tight else 1e-2)
    np.testing.assert_allclose(ds_inf, ds64, rtol=1e-3, atol=1e-2)


def test_kernels_do_not_modify_their_inputs():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4, 8, 8, 16)).astype(np.float16)
    dy = rng.normal(size=x.shape).astype(np.float16)
    v = np.ones(16, np.float32)
    x0, dy0 = x.copy(), dy.copy()
    for training in (True, False):
        fbn_kernels.fused_batch_norm_forward(x, v, v, v, v, epsilon=EPS, exponential_avg_factor=0.5,
                              data_format="NHWC", is_training=training)
        fbn_kernels.fused_batch_norm_backward(dy, x, v, v, v, epsilon=EPS, data_format="NHWC",
                                   is_training=training)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(dy, dy0)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_results_do_not_depend_on_how_many_threads_share_the_blocks(fmt, monkeypatch):
    # The kernels use as many threads as the thread policy allows (parallel.width); each
    # block's partial sums have their own slot, so one thread or several give the same bits.
    shape = (3, 37, 41, 64) if fmt == "NHWC" else (3, 64, 37, 41)
    rng = np.random.default_rng(8)
    x = (rng.normal(size=shape) * 0.5).astype(np.float32)
    dy = rng.normal(size=shape).astype(np.float32)
    scale, offset = rng.normal(size=(2, 64)).astype(np.float32)
    e = np.zeros(0, np.float32)
    results = []
    for cores in (1, 2):
        monkeypatch.setattr(fbn_kernels.parallel, "_width", cores)
        fwd = fbn_kernels.fused_batch_norm_forward(
            x, scale, offset, e, e, epsilon=EPS, exponential_avg_factor=1.0, data_format=fmt,
            is_training=True)
        bwd = fbn_kernels.fused_batch_norm_backward(dy, x, scale, fwd[3], fwd[4], epsilon=EPS,
                                                    data_format=fmt, is_training=True)
        results.append(fwd[:3] + bwd[:3])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
