"""The nn family against TensorFlow: recorded values (tests/goldens/nn.npz, written by
tools/record_goldens_nn.py), OpDef signatures, shape inference, errors, stability, names."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.core import registry
from tfmini.ops import math as math_ops
from tfmini.ops.nn import nn_ops as nn_ops

G = load_golden("nn")

# Tolerances per dtype. Half precision is computed in float32 by tfmini and rounded once,
# TensorFlow rounds each Eigen step, so the two may differ by a couple of half ulps.
TOL = {
    "float16": dict(rtol=4e-3, atol=2e-3),
    "float32": dict(rtol=2e-5, atol=1e-6),
    "float64": dict(rtol=1e-12, atol=1e-14),
}
EXACT = dict(rtol=0, atol=0)


def tol(dtype) -> dict:
    return TOL.get(np.dtype(dtype).name, EXACT)


# ------------------------------------------------------------------------------------------
# Stand-ins for the few array/math ops that the multi-op nn functions build (Transpose,
# Reshape, Cast, Shape, Slice). They are registered only while a family has not registered
# the real op yet, with TensorFlow's signatures, and removed after this module.

_STAND_INS = {
    "Transpose": (["x: T", "perm: Tperm"], ["y: T"],
                  ["T: type", "Tperm: {int32, int64} = DT_INT32"],
                  lambda x, perm: np.transpose(x, perm)),
    "Reshape": (["tensor: T", "shape: Tshape"], ["output: T"],
                ["T: type", "Tshape: {int32, int64} = DT_INT32"],
                lambda tensor, shape: np.reshape(tensor, shape)),
    "Shape": (["input: T"], ["output: out_type"],
              ["T: type", "out_type: {int32, int64} = DT_INT32"],
              lambda x, *, out_type: np.array(x.shape, out_type.np_dtype)),
    "Slice": (["input: T", "begin: Index", "size: Index"], ["output: T"],
              ["T: type", "Index: {int32, int64}"],
              lambda x, begin, size: x[tuple(slice(b, None if s == -1 else b + s)
                                             for b, s in zip(begin, size))]),
    "Cast": (["x: SrcT"], ["y: DstT"], ["SrcT: type", "DstT: type", "Truncate: bool = false"],
             lambda x, *, DstT: x.astype(DstT.np_dtype)),
}


@pytest.fixture(scope="module", autouse=True)
def _stand_ins():
    added = []
    for op_type, (inputs, outputs, attrs, kernel) in _STAND_INS.items():
        if registry.lookup(op_type) is None:
            tm.register_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)(kernel)
            added.append(op_type)
    yield
    for op_type in added:
        registry.unregister(op_type)


# ------------------------------------------------------------------------------------------
# Helpers.


def run(build, feeds=None):
    """Builds ``build()`` in a fresh graph and runs what it returns."""
    g = tm.Graph()
    with g.as_default():
        fetches = build()
        feed_dict = {} if feeds is None else feeds()
    with tm.Session(graph=g) as sess:
        return sess.run(fetches, feed_dict=feed_dict)


def run_raw(op_type, out_names, /, **kwargs):
    """Runs ``tm.raw_ops.<op_type>(**kwargs)`` and returns the named outputs as a tuple."""
    def build():
        out = getattr(tm.raw_ops, op_type)(**kwargs)
        return [getattr(out, o) for o in out_names] if len(out_names) > 1 else [out]
    return tuple(run(build))


def golden_inputs(case, names):
    return {n: G[f"{case}/{n}"] for n in names}


def check(actual, expected):
    actual = np.asarray(actual)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype}, TensorFlow {expected.dtype}"
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, **tol(expected.dtype))


def cases(prefix):
    """The golden case names ``<prefix>/...`` (the keys without their argument part)."""
    found = sorted({k.rsplit("/", 1)[0] for k in G if k.startswith(prefix + "/")})
    assert found, f"no golden cases under {prefix}"
    return found


# ------------------------------------------------------------------------------------------
# OpDef signatures: names, order, allowed types and defaults as in TensorFlow 2.21.

SIGNATURES = {
    # op: (inputs, outputs, {attr: default or None})
    "Relu": (["features"], ["activations"], {"T": None}),
    "Relu6": (["features"], ["activations"], {"T": None}),
    "Elu": (["features"], ["activations"], {"T": None}),
    "Selu": (["features"], ["activations"], {"T": None}),
    "Softplus": (["features"], ["activations"], {"T": None}),
    "Softsign": (["features"], ["activations"], {"T": None}),
    "LeakyRelu": (["features"], ["activations"], {"alpha": 0.2, "T": tm.float32}),
    "ReluGrad": (["gradients", "features"], ["backprops"], {"T": None}),
    "Relu6Grad": (["gradients", "features"], ["backprops"], {"T": None}),
    "EluGrad": (["gradients", "outputs"], ["backprops"], {"T": None}),
    "SeluGrad": (["gradients", "outputs"], ["backprops"], {"T": None}),
    "SoftplusGrad": (["gradients", "features"], ["backprops"], {"T": None}),
    "SoftsignGrad": (["gradients", "features"], ["backprops"], {"T": None}),
    "LeakyReluGrad": (["gradients", "features"], ["backprops"], {"alpha": 0.2, "T": tm.float32}),
    "Softmax": (["logits"], ["softmax"], {"T": None}),
    "LogSoftmax": (["logits"], ["logsoftmax"], {"T": None}),
    "BiasAdd": (["value", "bias"], ["output"], {"T": None, "data_format": "NHWC"}),
    "BiasAddV1": (["value", "bias"], ["output"], {"T": None}),
    "BiasAddGrad": (["out_backprop"], ["output"], {"T": None, "data_format": "NHWC"}),
    "SoftmaxCrossEntropyWithLogits": (["features", "labels"], ["loss", "backprop"], {"T": None}),
    "SparseSoftmaxCrossEntropyWithLogits": (["features", "labels"], ["loss", "backprop"],
                                            {"T": None, "Tlabels": tm.int64}),
    "L2Loss": (["t"], ["output"], {"T": None}),
}
HALF_FLOAT_DOUBLE = (tm.float16, tm.float32, tm.float64)
REAL = (tm.float32, tm.float64, tm.int32, tm.uint8, tm.int16, tm.int8, tm.int64, tm.float16)
ALLOWED_T = {op: HALF_FLOAT_DOUBLE for op in SIGNATURES}
ALLOWED_T.update({op: REAL for op in ("Relu", "Relu6", "ReluGrad", "Relu6Grad", "BiasAdd",
                                       "BiasAddV1", "BiasAddGrad")})


@pytest.mark.parametrize("op_type", sorted(SIGNATURES))
def test_opdef_matches_tensorflow(op_type):
    op_def = registry.get(op_type)
    inputs, outputs, attrs = SIGNATURES[op_type]
    assert [a.name for a in op_def.inputs] == inputs
    assert [a.name for a in op_def.outputs] == outputs
    assert sorted(op_def.attr_names) == sorted(attrs)
    for name, default in attrs.items():
        attr = op_def.attr(name)
        if default is None:
            assert not attr.has_default
        elif isinstance(default, float):
            # Float attrs are 32-bit in TensorFlow; the recorded default is the decimal text.
            assert attr.default == float(np.float32(default))
        else:
            assert attr.default == default
    assert tuple(op_def.attr("T").allowed_values) == ALLOWED_T[op_type]
    assert op_def.kernel_for("CPU") is not None
    assert not op_def.is_stateful


def test_every_nn_op_is_checked_here():
    mine = {name for name, d in registry.registered_ops().items()
            if d.defined_at.filename.endswith("tfmini/ops/nn/nn_ops.py")}
    assert mine == set(SIGNATURES)


# ------------------------------------------------------------------------------------------
# Values against TensorFlow.

ACTIVATION_CASES = [c for op in ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign",
                                 "LeakyRelu") for c in cases(op)]


@pytest.mark.parametrize("case", ACTIVATION_CASES)
def test_activation_matches_tensorflow(case):
    op_type = case.split("/")[0]
    attrs = {"alpha": 0.01} if case.endswith("alpha0.01") else {}
    (out,) = run_raw(op_type, ["activations"], features=G[f"{case}/features"], **attrs)
    check(out, G[f"{case}/activations"])


GRAD_CASES = [c for op in ("ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad",
                           "SoftsignGrad", "LeakyReluGrad") for c in cases(op)]


@pytest.mark.parametrize("case", GRAD_CASES)
def test_activation_grad_matches_tensorflow(case):
    op_type = case.split("/")[0]
    second = "outputs" if op_type in ("EluGrad", "SeluGrad") else "features"
    attrs = {"alpha": 0.3} if case.endswith("alpha0.3") else {}
    (out,) = run_raw(op_type, ["backprops"], **golden_inputs(case, ["gradients", second]),
                     **attrs)
    check(out, G[f"{case}/backprops"])


@pytest.mark.parametrize("case", cases("Softmax") + cases("LogSoftmax"))
def test_softmax_matches_tensorflow(case):
    op_type = case.split("/")[0]
    out_name = "softmax" if op_type == "Softmax" else "logsoftmax"
    (out,) = run_raw(op_type, [out_name], logits=G[f"{case}/logits"])
    check(out, G[f"{case}/{out_name}"])


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [0, 1, -2])
def test_softmax_functions_over_other_axes(fn, axis):
    x = G[f"fn/softmax/axis{axis}/logits"]
    out = run(lambda: getattr(tm.nn, fn)(x, axis=axis))
    check(out, G[f"fn/{fn}/axis{axis}/output"])


@pytest.mark.parametrize("case", cases("BiasAdd") + cases("BiasAddV1"))
def test_bias_add_matches_tensorflow(case):
    op_type = case.split("/")[0]
    attrs = {"data_format": case.split("/")[1]} if op_type == "BiasAdd" else {}
    (out,) = run_raw(op_type, ["output"], **golden_inputs(case, ["value", "bias"]), **attrs)
    check(out, G[f"{case}/output"])


@pytest.mark.parametrize("case", cases("BiasAddGrad"))
def test_bias_add_grad_matches_tensorflow(case):
    fmt = case.split("/")[1]
    attrs = {"data_format": fmt} if fmt in ("NHWC", "NCHW") else {}
    (out,) = run_raw("BiasAddGrad", ["output"], out_backprop=G[f"{case}/out_backprop"], **attrs)
    check(out, G[f"{case}/output"])


@pytest.mark.parametrize("case", cases("SoftmaxCrossEntropyWithLogits")
                         + cases("SparseSoftmaxCrossEntropyWithLogits"))
def test_cross_entropy_ops_match_tensorflow(case):
    op_type = case.split("/")[0]
    loss, backprop = run_raw(op_type, ["loss", "backprop"],
                             **golden_inputs(case, ["features", "labels"]))
    check(loss, G[f"{case}/loss"])
    check(backprop, G[f"{case}/backprop"])
    # Finite wherever TensorFlow is (float16 losses of 2 * 6e4 overflow in both).
    np.testing.assert_array_equal(np.isfinite(loss), np.isfinite(G[f"{case}/loss"]))


@pytest.mark.parametrize("case", cases("L2Loss"))
def test_l2_loss_matches_tensorflow(case):
    out = run(lambda: tm.nn.l2_loss(G[f"{case}/t"]))
    assert np.ndim(out) == 0
    check(np.asarray(out), G[f"{case}/output"])


def test_bias_add_function_both_formats():
    for case, fmt in [("BiasAdd/NHWC/rank4/float32", "N...C"),
                      ("BiasAdd/NCHW/rank4/float32", "NCHW"),
                      ("BiasAdd/NCHW/rank3/float64", "NCW")]:
        out = run(lambda c=case, f=fmt: tm.nn.bias_add(G[f"{c}/value"], G[f"{c}/bias"],
                                                       data_format=f))
        check(out, G[f"{case}/output"])
    out = run(lambda: tm.nn.bias_add(G["BiasAdd/NHWC/rank2/int32/value"],
                                     G["BiasAdd/NHWC/rank2/int32/bias"]))
    check(out, G["BiasAdd/NHWC/rank2/int32/output"])


def test_sparse_cross_entropy_function_rank3_and_float16():
    for case in ("rank3", "float16"):
        labels, logits = G[f"fn/sparse_xent/{case}/labels"], G[f"fn/sparse_xent/{case}/logits"]
        out = run(lambda y=labels, x=logits: tm.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=x))
        check(out, G[f"fn/sparse_xent/{case}/loss"])


def test_sparse_cross_entropy_function_rank2_matches_raw_op():
    case = "SparseSoftmaxCrossEntropyWithLogits/float32/int32"
    out = run(lambda: tm.nn.sparse_softmax_cross_entropy_with_logits(
        G[f"{case}/labels"], G[f"{case}/features"]))  # positional, as TF 2.21's compat.v1
    check(out, G[f"{case}/loss"])


def test_softmax_cross_entropy_functions():
    logits3 = G["fn/sparse_xent/rank3/logits"]
    out = run(lambda: tm.nn.softmax_cross_entropy_with_logits_v2(
        labels=G["fn/xent_v2/axis1/labels"], logits=G["fn/xent_v2/axis1/logits"], axis=1))
    check(out, G["fn/xent_v2/axis1/loss"])
    out = run(lambda: tm.nn.softmax_cross_entropy_with_logits_v2(
        labels=G["fn/xent_v2/rank3/labels"], logits=logits3))
    check(out, G["fn/xent_v2/rank3/loss"])
    out = run(lambda: tm.nn.softmax_cross_entropy_with_logits(
        labels=G["fn/xent_v2/rank3/labels"], logits=logits3))
    check(out, G["fn/xent_v1/loss"])
    out = run(lambda: tm.nn.softmax_cross_entropy_with_logits_v2(
        labels=G["fn/xent_v2/float16/labels"], logits=G["fn/xent_v2/float16/logits"]))
    check(out, G["fn/xent_v2/float16/loss"])


def test_softmax_cross_entropy_with_unknown_batch():
    logits3 = G["fn/sparse_xent/rank3/logits"]
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(None, 3, 5))
        loss = tm.nn.softmax_cross_entropy_with_logits_v2(
            labels=G["fn/xent_v2/rank3/labels"], logits=x)
        assert loss.shape.as_list() == [None, 3]
    with tm.Session(graph=g) as sess:
        check(sess.run(loss, {x: logits3}), G["fn/xent_v2/rank3/loss"])


def test_leaky_relu_function_casts_integers_to_float32():
    out = run(lambda: tm.nn.leaky_relu(G["fn/leaky_relu/int32/features"]))
    check(out, G["fn/leaky_relu/int32/output"])


# ------------------------------------------------------------------------------------------
# Numerical stability: no overflow, no NaN, no NumPy warnings on huge inputs.


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_large_logits_stay_finite(dtype):
    big = np.finfo(dtype).max / 4  # logits 2 * big apart still fit in the dtype
    logits = np.array([[big, 0, -big], [-big, -big, -big], [big, big, 0]], dtype)
    labels = np.array([2, 0, 1], np.int64)
    dist = np.array([[0, 0, 1], [1, 0, 0], [0.5, 0.5, 0]], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow in a kernel would warn here
        sm, lsm, sp, (sl, sb), (xl, xb) = run(lambda: [
            tm.nn.softmax(logits), tm.nn.log_softmax(logits), tm.nn.softplus(logits),
            list(tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)),
            list(tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=dist)),
        ])
    for v in (sm, lsm, sp, sl, sb, xl, xb):
        assert v.dtype == dtype
        assert np.all(np.isfinite(v)), v
    np.testing.assert_allclose(sm[0], [1, 0, 0])
    np.testing.assert_allclose(sm[1], [1 / 3] * 3, rtol=1e-3)
    np.testing.assert_allclose(sp[0], [big, np.log(2), 0], rtol=1e-3)
    # The label's logit is 2 * big below the maximum: the loss is that gap.
    np.testing.assert_allclose(sl[0], 2 * np.float64(big), rtol=1e-3)
    np.testing.assert_allclose(xl[0], 2 * np.float64(big), rtol=1e-3)
    np.testing.assert_allclose(sl[1], np.log(3), rtol=1e-3)


def test_softplus_extremes_are_exact_limits():
    x = np.array([-1e30, -50, 0, 50, 1e30], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run(lambda: tm.nn.softplus(x))
    np.testing.assert_allclose(out, [0, np.exp(-50.0), np.log(2), 50, 1e30], rtol=1e-6)


# ------------------------------------------------------------------------------------------
# Dtypes.


@pytest.mark.parametrize("fn", [tm.nn.relu, tm.nn.relu6, tm.nn.elu, tm.nn.selu, tm.nn.softplus,
                                tm.nn.softsign, tm.nn.leaky_relu, tm.nn.softmax,
                                tm.nn.log_softmax])
@pytest.mark.parametrize("dtype", [tm.float16, tm.float32, tm.float64])
def test_float_outputs_keep_dtype(fn, dtype):
    x = np.array([[-2.0, 0.5, 3.0]], dtype.np_dtype)
    g = tm.Graph()
    with g.as_default():
        out = fn(x)
        assert out.dtype == dtype and out.shape.as_list() == [1, 3]
    with tm.Session(graph=g) as sess:
        assert sess.run(out).dtype == dtype.np_dtype


@pytest.mark.parametrize("op_type", ["Elu", "Selu", "Softplus", "Softsign", "Softmax", "L2Loss"])
def test_float_only_ops_refuse_integers(graph, op_type):
    arg = registry.get(op_type).inputs[0].name
    with pytest.raises(TypeError, match="int32 not in list of allowed values"):
        getattr(tm.raw_ops, op_type)(**{arg: np.array([1, 2], np.int32)})


def test_sparse_labels_must_be_integers(graph):
    with pytest.raises(TypeError, match="Tlabels|labels"):
        tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=np.zeros((2, 3), np.float32), labels=np.array([0.0, 1.0], np.float32))


# ------------------------------------------------------------------------------------------
# Shape inference at build time.


def test_static_shapes(graph):
    x = tm.placeholder(tm.float32, shape=(None, 3, 4, 5))
    assert tm.nn.bias_add(x, np.zeros(5, np.float32)).shape.as_list() == [None, 3, 4, 5]
    assert tm.nn.bias_add(x, tm.placeholder(tm.float32, shape=(None,)),
                          data_format="NCHW").shape.as_list() == [None, 3, 4, 5]
    grad = tm.raw_ops.BiasAddGrad(out_backprop=x, data_format="NCHW")
    assert grad.shape.as_list() == [3]
    assert tm.raw_ops.BiasAddGrad(out_backprop=x).shape.as_list() == [5]
    logits = tm.placeholder(tm.float32, shape=(None, 7))
    labels = tm.placeholder(tm.int32, shape=(8,))
    out = tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
    assert out.loss.shape.as_list() == [8] and out.backprop.shape.as_list() == [8, 7]
    # TensorFlow's shape function would say a batch of 1 here (it merges None with 1), but
    # the kernel broadcasts the labels over any batch: tfmini leaves the batch unknown.
    xent = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits,
                                                   labels=np.ones((1, 7), np.float32))
    assert xent.loss.shape.as_list() == [None] and xent.backprop.shape.as_list() == [None, 7]
    xent = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=np.ones((3,), np.float32),
                                                   labels=tm.placeholder(tm.float32, (2, 3)))
    assert xent.loss.shape.as_list() == [2] and xent.backprop.shape.as_list() == [2, 3]
    xent = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits,
                                                   labels=tm.placeholder(tm.float32))
    assert xent.loss.shape.as_list() == [None] and xent.backprop.shape.as_list() == [None, 7]
    assert tm.nn.l2_loss(x).shape.as_list() == []
    assert tm.nn.softmax(x, axis=1).shape.as_list() == [None, 3, 4, 5]
    grads = tm.raw_ops.ReluGrad(gradients=tm.placeholder(tm.float32, shape=(None, 3)),
                                features=tm.placeholder(tm.float32, shape=(2, None)))
    assert grads.shape.as_list() == [2, 3]
    sparse = tm.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tm.placeholder(tm.int64, shape=(None, 4)),
        logits=tm.placeholder(tm.float32, shape=(None, 4, 6)))
    assert sparse.shape.as_list() == [None, 4]


@pytest.mark.parametrize("build, message", [
    (lambda: tm.raw_ops.BiasAdd(value=np.zeros((2, 3), np.float32),
                                bias=np.zeros(4, np.float32)),
     "Dimensions must be equal, but are 3 and 4"),
    (lambda: tm.raw_ops.BiasAdd(value=np.zeros((2, 3), np.float32),
                                bias=np.zeros(3, np.float32), data_format="NCHW"),
     "Shape must be at least rank 3 but is rank 2"),
    (lambda: tm.raw_ops.BiasAdd(value=np.zeros((2, 3), np.float32),
                                bias=np.zeros((1, 3), np.float32)),
     "Shape must be rank 1 but is rank 2"),
    (lambda: tm.raw_ops.Softmax(logits=np.float32(1)),
     "Shape must be at least rank 1 but is rank 0"),
    (lambda: tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
        features=np.zeros((2, 3), np.float32), labels=np.zeros(3, np.int64)),
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
        features=np.zeros((2, 3, 1), np.float32), labels=np.zeros(2, np.int64)),
     "Shape must be rank 2 but is rank 3"),
    (lambda: tm.raw_ops.SoftmaxCrossEntropyWithLogits(
        features=np.zeros((2, 3), np.float32), labels=np.zeros((2, 4), np.float32)),
     "Dimensions must be equal, but are 3 and 4"),
    (lambda: tm.raw_ops.SoftmaxCrossEntropyWithLogits(
        features=np.zeros((2, 3, 1), np.float32), labels=np.zeros((2, 3, 1), np.float32)),
     "Shape must be broadcasted with rank 2, but is rank 3"),
    (lambda: tm.raw_ops.ReluGrad(gradients=np.zeros(2, np.float32),
                                 features=np.zeros(3, np.float32)),
     r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2\] and \[3\]"),
    (lambda: tm.nn.sparse_softmax_cross_entropy_with_logits(
        labels=np.zeros((2, 2), np.int32), logits=np.zeros((2, 3), np.float32)),
     r"Rank mismatch: `labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
     r"labels.shape=\(2, 2\) of rank 2 and logits.shape=\(2, 3\) of rank 2"),
    (lambda: tm.nn.sparse_softmax_cross_entropy_with_logits(
        labels=np.zeros((2, 4), np.int32), logits=np.zeros((2, 3, 5), np.float32)),
     "`labels.shape` must equal `logits.shape` except for the last dimension"),
    (lambda: tm.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1]),
     "Both `labels` and `logits` must be provided"),
    (lambda: tm.nn.bias_add(np.zeros((2, 3), np.float32), np.zeros(3, np.float32),
                            data_format="HWC"),
     "`data_format` must be of the form `N...C` or `NC...`. Received: data_format=HWC"),
])
def test_build_time_errors(graph, build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_build_errors_name_the_op(graph):
    with pytest.raises(ValueError, match=r"\{\{node BiasAdd\}\} = BiasAdd"):
        tm.raw_ops.BiasAdd(value=np.zeros((2, 3), np.float32), bias=np.zeros(4, np.float32))


def test_softmax_axis_spellings():
    x = G["fn/softmax/axis1/logits"]
    want = G["fn/softmax/axis1/output"]
    check(run(lambda: tm.nn.softmax(x, dim=1)), want)
    check(run(lambda: tm.nn.softmax(x, axis=np.int64(1))), want)
    check(run(lambda: tm.nn.softmax(x, axis=tm.constant(1))), want)
    check(run(lambda: tm.nn.log_softmax(x, axis=tm.constant(-2))),
          G["fn/log_softmax/axis-2/output"])
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dim'"):
        run(lambda: tm.nn.softmax(x, axis=1, dim=1))
    with pytest.raises(ValueError, match="needs the axis known"):
        run(lambda: tm.nn.softmax(x, axis=tm.placeholder(tm.int32, shape=())))


def test_softmax_axis_out_of_range(graph):
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"`dim` must be in the range \[-3, 3\) where 3 is the number of "
                             r"dimensions in the input. Received: dim=3"):
        tm.nn.softmax(np.zeros((2, 3, 4), np.float32), axis=3)


# ------------------------------------------------------------------------------------------
# Run-time errors: the kernel's message is TensorFlow's, inside tfmini's report that names
# the op. Unknown-shape placeholders get the bad inputs past the build-time shape checks.

ERROR_CASES = {
    "sparse_label_too_large": ("SparseSoftmaxCrossEntropyWithLogits", ["features", "labels"]),
    "sparse_label_negative": ("SparseSoftmaxCrossEntropyWithLogits", ["features", "labels"]),
    "sparse_no_classes": ("SparseSoftmaxCrossEntropyWithLogits", ["features", "labels"]),
    "xent_not_broadcastable": ("SoftmaxCrossEntropyWithLogits", ["features", "labels"]),
    "xent_rank3": ("SoftmaxCrossEntropyWithLogits", ["features", "labels"]),
    "bias_mismatch": ("BiasAdd", ["value", "bias"]),
    "bias_mismatch_nchw": ("BiasAdd", ["value", "bias"]),
    "bias_value_rank1": ("BiasAdd", ["value", "bias"]),
    "bias_not_vector": ("BiasAdd", ["value", "bias"]),
    "bias_grad_rank1": ("BiasAddGrad", ["out_backprop"]),
    "log_softmax_scalar": ("LogSoftmax", ["logits"]),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_runtime_errors_carry_tensorflow_message(case):
    op_type, names = ERROR_CASES[case]
    values = {n: G[f"error/{case}/{n}"] for n in names}
    attrs = {}
    if f"error/{case}/data_format" in G:
        attrs["data_format"] = str(G[f"error/{case}/data_format"])
    g = tm.Graph()
    with g.as_default():
        phs = {n: tm.placeholder(tm.as_dtype(v.dtype), shape=None) for n, v in values.items()}
        out = getattr(tm.raw_ops, op_type)(**phs, **attrs, name="culprit")
        fetch = out[0] if isinstance(out, tuple) else out
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(fetch, {phs[n]: v for n, v in values.items()})
    text = str(info.value)
    assert str(G[f"error/{case}/message"]) in text
    assert op_type in text and "culprit" in text


def test_label_out_of_range_through_the_function():
    def build():
        return tm.nn.sparse_softmax_cross_entropy_with_logits(
            labels=np.array([0, 5], np.int32), logits=np.zeros((2, 3), np.float32))
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match=r"Received a label value of 5 which is outside the valid range of "
                             r"\[0, 3\)\.  Label values: 0 5"):
        run(build)


@pytest.mark.parametrize("op_type", ["ReluGrad", "EluGrad", "SoftplusGrad", "LeakyReluGrad"])
def test_grad_ops_need_equal_shapes_at_run_time(op_type):
    second = "outputs" if op_type == "EluGrad" else "features"
    g = tm.Graph()
    with g.as_default():
        a, b = tm.placeholder(tm.float32), tm.placeholder(tm.float32)
        out = getattr(tm.raw_ops, op_type)(**{"gradients": a, second: b}, name="g")
    with tm.Session(graph=g) as sess, pytest.raises(
            tm.errors.InvalidArgumentError,
            match=rf"Inputs to operation g of type {op_type} must have the same size and "
                  r"shape.  Input 0: \[2\] != input 1: \[3\]"):
        sess.run(out, {a: np.ones(2, np.float32), b: np.ones(3, np.float32)})


def test_empty_inputs():
    (sm,) = run_raw("Softmax", ["softmax"], logits=np.zeros((2, 0), np.float32))
    assert sm.shape == (2, 0)
    loss, backprop = run_raw("SoftmaxCrossEntropyWithLogits", ["loss", "backprop"],
                             features=np.zeros((2, 0), np.float32),
                             labels=np.zeros((2, 0), np.float32))
    np.testing.assert_array_equal(loss, [0, 0])
    assert backprop.shape == (2, 0)
    loss, backprop = run_raw("SparseSoftmaxCrossEntropyWithLogits", ["loss", "backprop"],
                             features=np.zeros((0, 3), np.float32),
                             labels=np.zeros(0, np.int64))
    assert loss.shape == (0,) and backprop.shape == (0, 3)


def test_kernels_do_not_modify_their_inputs():
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]], np.float32)
    labels = np.array([2, 0], np.int32)
    kept = x.copy()
    run(lambda: [tm.nn.softmax(x), tm.nn.relu(x), tm.nn.bias_add(x, [1.0, 2.0, 3.0]),
                 tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=labels)[1]])
    np.testing.assert_array_equal(x, kept)


# ------------------------------------------------------------------------------------------
# Names, as TensorFlow gives them.


def test_default_names(graph):
    x = np.ones((2, 3), np.float32)
    assert tm.nn.relu(x).op.name == "Relu"
    assert tm.nn.relu6(x).op.name == "Relu6"
    assert tm.nn.softmax(x).op.name == "Softmax"
    assert tm.nn.softmax(x, name="probs").op.name == "probs"
    b = tm.nn.bias_add(x, [1.0, 2.0, 3.0])
    assert b.op.name == "BiasAdd"
    assert [i.op.name for i in b.op.inputs] == ["BiasAdd/input", "BiasAdd/bias"]
    assert tm.nn.bias_add(x, [1.0, 2.0, 3.0]).op.name == "BiasAdd_1"
    assert tm.nn.bias_add(x, [1.0, 2.0, 3.0], name="layer").op.name == "layer"
    sparse = tm.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=x)
    assert sparse.name == ("SparseSoftmaxCrossEntropyWithLogits/"
                           "SparseSoftmaxCrossEntropyWithLogits:0")
    dense = tm.nn.softmax_cross_entropy_with_logits_v2(labels=x / 3, logits=x)
    assert dense.name == "softmax_cross_entropy_with_logits:0"
    sg = tm.nn.softmax_cross_entropy_with_logits(labels=x / 3, logits=x)
    assert sg.op.name == "softmax_cross_entropy_with_logits_sg"
    stop = sg.op.inputs[1].op
    assert stop.type == "StopGradient"
    assert stop.name == "softmax_cross_entropy_with_logits_sg/labels_stop_gradient"
    with tm.name_scope("outer"):
        assert tm.nn.bias_add(x, [1.0, 2.0, 3.0]).op.name == "outer/BiasAdd"
        assert tm.nn.l2_loss(x).op.name == "outer/L2Loss"
    graph.as_graph_def()  # every op built here serialises


# ------------------------------------------------------------------------------------------
# The tm.nn namespace.


def test_namespace_reexports_every_function():
    for name in nn_ops.__all__:
        assert getattr(tm.nn, name) is getattr(nn_ops, name)
    assert set(nn_ops.__all__) <= set(tm.nn.__all__)
    assert "relu" in dir(tm.nn)


@pytest.mark.parametrize("name", ["sigmoid", "tanh"])
def test_math_aliases(name):
    if hasattr(math_ops, name):
        assert getattr(tm.nn, name) is getattr(math_ops, name)
    else:  # the math family has not added it yet: a clean AttributeError, not a crash
        with pytest.raises(AttributeError, match=name):
            getattr(tm.nn, name)
    with pytest.raises(AttributeError, match="no attribute 'no_such_fn'"):
        tm.nn.no_such_fn  # noqa: B018
