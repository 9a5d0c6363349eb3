"""Gradients of the nn family: finite differences (tm.test.compute_gradient_error), the
gradients TensorFlow computes (tests/goldens/nn_grad.npz, written by
tools/record_goldens_nn_grad.py with tf.gradients in graph mode), and registry marks.

Some cases differentiate through ops of other families (Mul, Sum, MatMul, Sigmoid, ...): those
are skipped, naming the missing gradient, until that family registers it.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tfmini.core import registry
from tfmini.ops.nn import nn_ops as nn_ops

G = load_golden("nn_grad")

# Golden agreement: 1e-4 relative; the absolute floor covers entries that are ~0 (float32
# noise in TensorFlow's and tfmini's differently ordered sums).
GOLDEN_TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-4, atol=1e-9)}

# Finite differences with tm.test's central step 1e-3: the truncation error is about
# delta^2 / 6 times the third derivative (2e-6 for softsign's second derivative) in float64;
# float32 adds rounding of ~eps / delta.
FD_TOL = {np.float64: 1e-5, np.float32: 2e-3}
FLOAT_DTYPES = (np.float64, np.float32)


def needs_gradients(*op_types: str) -> None:
    """Fails clearly when an op type of another family that the test relies on has no
    gradient (rather than failing deep inside tm.gradients)."""
    missing = [t for t in op_types
               if registry.lookup(t) is None
               or (registry.lookup(t).grad_fn is None and not registry.lookup(t).no_gradient)]
    if missing:
        pytest.fail(f"no gradient registered for {', '.join(missing)} (other families)")


def away_from_kinks(shape, dtype, scale: float = 2.0, seed: int = 0) -> np.ndarray:
    """Values with |x| in [0.2, scale + 0.2], none within 0.2 of relu6's kink at 6, so a
    central difference never straddles a kink."""
    rng = np.random.default_rng(seed)
    mag = rng.uniform(0.2, scale + 0.2, size=shape)
    x = np.where(rng.random(size=shape) < 0.5, -mag, mag)
    x = np.where(np.abs(x - 6) < 0.2, x + 0.5, x)
    return x.astype(dtype)


def normal(shape, dtype=np.float64, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def distributions(shape, dtype=np.float64, seed: int = 2) -> np.ndarray:
    p = np.random.default_rng(seed).random(size=shape) + 0.1
    return (p / p.sum(axis=-1, keepdims=True)).astype(dtype)


def fd_error(build, inputs: dict, wrt: list[str], dtype) -> float:
    """compute_gradient_error of ``build(**placeholders)`` w.r.t. the inputs named in wrt.

    ``inputs`` maps names to values; every input becomes a placeholder of its exact shape
    (the differentiated ones at their values, the others fed).
    """
    g = tm.Graph()
    with g.as_default():
        phs = {k: tm.placeholder(tm.as_dtype(v.dtype), shape=v.shape, name=k)
               for k, v in inputs.items()}
        y = build(**phs)
        xs = [phs[k] for k in wrt]
        feeds = {phs[k]: v for k, v in inputs.items() if k not in wrt}
        with tm.Session(graph=g):
            err = tm.test.compute_gradient_error(
                xs, [inputs[k].shape for k in wrt], y, y.shape.as_list(),
                x_init_value=[inputs[k] for k in wrt], extra_feed_dict=feeds)
    assert np.isfinite(err)
    assert err < FD_TOL[dtype], f"gradient error {err} for {wrt}"
    return err


# ------------------------------------------------------------------------------------------
# Registry: every op of the nn family is differentiable or explicitly marked.


def _nn_ops() -> list[str]:
    return sorted(name for name, op_def in registry.registered_ops().items()
                  if op_def.defined_at.filename == nn_ops.__file__)


def test_every_nn_op_has_a_gradient_or_a_no_gradient_mark():
    ops = _nn_ops()
    assert "SparseSoftmaxCrossEntropyWithLogits" in ops and "BiasAddGrad" in ops
    unmarked = [t for t in ops
                if registry.get(t).grad_fn is None and not registry.get(t).no_gradient]
    assert not unmarked


def test_registering_a_second_gradient_is_refused():
    with pytest.raises(KeyError, match="Registering two gradient with name 'Relu'"):
        tm.RegisterGradient("Relu")(lambda op, grad: grad)


# ------------------------------------------------------------------------------------------
# Finite differences, first order.

ACTIVATIONS = {
    "relu": tm.nn.relu,
    "relu6": tm.nn.relu6,
    "elu": tm.nn.elu,
    "selu": tm.nn.selu,
    "softplus": tm.nn.softplus,
    "softsign": tm.nn.softsign,
    "leaky_relu": lambda x: tm.nn.leaky_relu(x, alpha=0.3),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_finite_differences(name, dtype):
    x = away_from_kinks((3, 4), dtype, 7.0 if name == "relu6" else 2.0)
    fd_error(lambda x: ACTIVATIONS[name](x), {"x": x}, ["x"], dtype)


def test_relu6_values_above_six_get_no_gradient():
    # The finite-difference test would pass with a wrong zero too if no value were above 6.
    x = away_from_kinks((3, 4), np.float64, 7.0)
    assert (x > 6).any() and (x < 0).any() and ((x > 0) & (x < 6)).any()
    g = tm.Graph()
    with g.as_default():
        xt = tm.constant(x)
        (dx,) = tm.gradients(tm.nn.relu6(xt), [xt])
        with tm.Session(graph=g) as sess:
            np.testing.assert_array_equal(sess.run(dx), ((x > 0) & (x < 6)).astype(x.dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("fn", [tm.nn.softmax, tm.nn.log_softmax], ids=["softmax", "log_softmax"])
def test_softmax_finite_differences(fn, dtype):
    fd_error(lambda x: fn(x), {"x": normal((3, 5), dtype)}, ["x"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2)),
                                       ("NCHW", (2, 3, 4))])
def test_bias_add_finite_differences(fmt, shape, dtype):
    channels = shape[-1] if fmt == "NHWC" else shape[1]
    fd_error(lambda value, bias: tm.nn.bias_add(value, bias, data_format=fmt),
             {"value": normal(shape, dtype), "bias": normal(channels, dtype, seed=3)},
             ["value", "bias"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_bias_add_v1_finite_differences(dtype):
    fd_error(lambda value, bias: tm.raw_ops.BiasAddV1(value=value, bias=bias),
             {"value": normal((2, 3, 4), dtype), "bias": normal(4, dtype, seed=3)},
             ["value", "bias"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_cross_entropy_finite_differences(dtype):
    def loss(logits, labels):
        return tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels).loss

    # Labels need not be distributions for the derivative: perturbing them is fine.
    fd_error(loss, {"logits": normal((3, 5), dtype), "labels": distributions((3, 5), dtype)},
             ["logits", "labels"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sparse_softmax_cross_entropy_finite_differences(dtype):
    def loss(logits, labels):
        return tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits,
                                                              labels=labels).loss

    fd_error(loss, {"logits": normal((4, 5), dtype), "labels": np.array([0, 4, 2, 2], np.int32)},
             ["logits"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_l2_loss_finite_differences(dtype):
    fd_error(lambda t: tm.nn.l2_loss(t), {"t": normal((3, 4), dtype)}, ["t"], dtype)


# ------------------------------------------------------------------------------------------
# Finite differences of the *Grad ops (their registered gradients are the second order).

GRAD_OPS = {
    "ReluGrad": ("features", None, {}),
    "Relu6Grad": ("features", None, {}),
    "LeakyReluGrad": ("features", None, {"alpha": 0.3}),
    "SoftplusGrad": ("features", None, {}),
    "SoftsignGrad": ("features", None, {}),
    "EluGrad": ("outputs", nn_ops._elu, {}),
    "SeluGrad": ("outputs", nn_ops._selu, {}),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op_type", list(GRAD_OPS))
def test_grad_op_finite_differences(op_type, dtype):
    second, forward, attrs = GRAD_OPS[op_type]
    other = away_from_kinks((3, 4), dtype, 7.0 if op_type == "Relu6Grad" else 2.0, seed=4)
    if forward is not None:
        other = forward(other)  # EluGrad and SeluGrad take the activation's outputs
    fd_error(lambda gradients, other: getattr(tm.raw_ops, op_type)(
        gradients=gradients, **{second: other}, **attrs),
        {"gradients": normal((3, 4), dtype), "other": other}, ["gradients", "other"], dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))])
def test_bias_add_grad_finite_differences(fmt, shape, dtype):
    fd_error(lambda out_backprop: tm.raw_ops.BiasAddGrad(out_backprop=out_backprop,
                                                         data_format=fmt),
             {"out_backprop": normal(shape, dtype)}, ["out_backprop"], dtype)


# ------------------------------------------------------------------------------------------
# Finite differences of first-order gradients built by tm.gradients (true second order).

SECOND_NEEDS = {
    "softplus": ("Mul", "Sigmoid"),
    "softsign": (),
    "softmax": ("Mul", "Sub", "Sum"),
    "log_softmax": ("Mul", "Sub", "Sum", "Exp"),
}


@pytest.mark.parametrize("name", [*ACTIVATIONS, "softmax", "log_softmax"])
def test_second_order_finite_differences(name):
    needs_gradients(*SECOND_NEEDS.get(name, ()))
    fn = ACTIVATIONS.get(name) or getattr(tm.nn, name)
    shape = (3, 5) if "softmax" in name else (3, 4)
    x = normal(shape) if "softmax" in name else away_from_kinks(
        shape, np.float64, 7.0 if name == "relu6" else 2.0)

    def dx(x, dy):
        return tm.gradients(fn(x), [x], grad_ys=dy)[0]

    fd_error(dx, {"x": x, "dy": normal(shape, seed=5)}, ["x", "dy"], np.float64)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_cross_entropy_second_order_finite_differences(sparse):
    needs_gradients("Mul", "ExpandDims")
    op = (tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits if sparse
          else tm.raw_ops.SoftmaxCrossEntropyWithLogits)
    labels = np.array([1, 0, 4], np.int32) if sparse else distributions((3, 5))

    def dlogits(logits, labels, dy):
        loss = op(features=logits, labels=labels).loss
        return tm.gradients(loss, [logits], grad_ys=dy)[0]

    fd_error(dlogits, {"logits": normal((3, 5)), "labels": labels, "dy": normal(3, seed=5)},
             ["logits", "dy"], np.float64)


def test_l2_loss_second_order_finite_differences():
    needs_gradients("Mul")

    def dt(t, dy):
        return tm.gradients(tm.nn.l2_loss(t), [t], grad_ys=dy)[0]

    fd_error(dt, {"t": normal((3, 4)), "dy": np.asarray(0.7)}, ["t", "dy"], np.float64)


# ------------------------------------------------------------------------------------------
# TensorFlow's gradients (goldens).


def golden_case(case: str, build, names: list[str]) -> None:
    """Rebuilds ``case`` from its recorded inputs (constants named as in the recorder) and
    compares what ``build`` returns with TensorFlow's arrays."""
    g = tm.Graph()
    with g.as_default():
        consts = {n: tm.constant(G[f"{case}/{n}"], name=n) for n in names}
        fetches = build(**consts)
        with tm.Session(graph=g) as sess:
            values = sess.run(fetches)
    assert values, case
    for key, value in values.items():
        expected = G[f"{case}/{key}"]
        assert value.dtype == expected.dtype, key
        assert value.shape == expected.shape, key
        np.testing.assert_allclose(value, expected, **GOLDEN_TOL[expected.dtype.name],
                                   err_msg=f"{case}/{key}")


def grads(ys, xs: dict, grad_ys=None) -> dict:
    names = list(xs)
    out = tm.gradients(ys, [xs[n] for n in names], grad_ys=grad_ys)
    assert all(o is not None for o in out), names
    return {f"grad_{n}": o for n, o in zip(names, out)}


FIRST = {
    **{name: (["x", "dy"], lambda x, dy, fn=fn: grads(fn(x), {"x": x}, dy))
       for name, fn in {**ACTIVATIONS, "softmax": tm.nn.softmax,
                        "log_softmax": tm.nn.log_softmax}.items()},
    "bias_add_nhwc": (["value", "bias", "dy"], lambda value, bias, dy: grads(
        tm.nn.bias_add(value, bias), {"value": value, "bias": bias}, dy)),
    "bias_add_nchw": (["value", "bias", "dy"], lambda value, bias, dy: grads(
        tm.nn.bias_add(value, bias, data_format="NCHW"), {"value": value, "bias": bias}, dy)),
    "bias_add_v1": (["value", "bias", "dy"], lambda value, bias, dy: grads(
        tm.raw_ops.BiasAddV1(value=value, bias=bias), {"value": value, "bias": bias}, dy)),
    "xent": (["logits", "labels", "dy"], lambda logits, labels, dy: grads(
        tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels).loss,
        {"logits": logits, "labels": labels}, dy)),
    "sparse_xent": (["logits", "labels", "dy"], lambda logits, labels, dy: grads(
        tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels).loss,
        {"logits": logits}, dy)),
    "l2_loss": (["x", "dy"], lambda x, dy: grads(tm.nn.l2_loss(x), {"x": x}, dy)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(FIRST))
def test_first_order_matches_tensorflow(name, dtype):
    names, build = FIRST[name]
    golden_case(f"first/{name}/{dtype}", build, names)


@pytest.mark.parametrize("op_type", ["ReluGrad", "Relu6Grad", "LeakyReluGrad", "SoftplusGrad",
                                     "EluGrad", "SeluGrad"])
def test_grad_op_gradient_matches_tensorflow(op_type):
    second, _, attrs = GRAD_OPS[op_type]

    def build(gradients, other, dy):
        y = getattr(tm.raw_ops, op_type)(gradients=gradients, **{second: other}, **attrs)
        return grads(y, {"gradients": gradients, "other": other}, dy)

    golden_case(f"gradop/{op_type}", build, ["gradients", "other", "dy"])


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_bias_add_grad_gradient_matches_tensorflow(fmt):
    golden_case(f"gradop/BiasAddGrad/{fmt}", lambda out_backprop, dy: grads(
        tm.raw_ops.BiasAddGrad(out_backprop=out_backprop, data_format=fmt),
        {"out_backprop": out_backprop}, dy), ["out_backprop", "dy"])


@pytest.mark.parametrize("name", [n for n in [*ACTIVATIONS, "softmax", "log_softmax"]
                                  if n != "softsign"])
def test_second_order_matches_tensorflow(name):
    needs_gradients(*SECOND_NEEDS.get(name, ()))
    fn = ACTIVATIONS.get(name) or getattr(tm.nn, name)

    def build(x, dy, ddx):
        (dx,) = tm.gradients(fn(x), [x], grad_ys=dy)
        return grads(dx, {"x": x, "dy": dy}, ddx)

    golden_case(f"second/{name}", build, ["x", "dy", "ddx"])


def test_cross_entropy_second_order_matches_tensorflow():
    needs_gradients("Mul", "ExpandDims")

    def build(logits, labels, dy, ddx):
        loss = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels).loss
        (dlogits,) = tm.gradients(loss, [logits], grad_ys=dy)
        return grads(dlogits, {"logits": logits, "labels": labels, "dy": dy}, ddx)

    golden_case("second/xent", build, ["logits", "labels", "dy", "ddx"])
    # TensorFlow's labels gradient ignores the gradient of the backprop output, so through
    # the first-order gradient it is zero (the true value is -ddx * dy); tfmini does the same.
    assert not G["second/xent/grad_labels"].any()


def test_sparse_cross_entropy_second_order_matches_tensorflow():
    needs_gradients("Mul", "ExpandDims")

    def build(logits, labels, dy, ddx):
        loss = tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits,
                                                              labels=labels).loss
        (dlogits,) = tm.gradients(loss, [logits], grad_ys=dy)
        return grads(dlogits, {"logits": logits, "dy": dy}, ddx)

    golden_case("second/sparse_xent", build, ["logits", "labels", "dy", "ddx"])


def test_l2_loss_second_order_matches_tensorflow():
    needs_gradients("Mul")

    def build(x, dy, ddx):
        (dx,) = tm.gradients(tm.nn.l2_loss(x), [x], grad_ys=dy)
        return grads(dx, {"x": x, "dy": dy}, ddx)

    golden_case("second/l2_loss", build, ["x", "dy", "ddx"])


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_bias_add_second_order_matches_tensorflow(fmt):
    def build(value, bias, dy, ddb):
        (db,) = tm.gradients(tm.nn.bias_add(value, bias, data_format=fmt), [bias], grad_ys=dy)
        return grads(db, {"dy": dy}, ddb)

    golden_case(f"second/bias_add/{fmt}", build, ["value", "bias", "dy", "ddb"])


def test_dense_relu_sparse_cross_entropy_matches_tensorflow():
    needs_gradients("MatMul", "Mean")

    def build(x, w, b, labels):
        logits = tm.nn.relu(tm.nn.bias_add(tm.matmul(x, w), b))
        loss = tm.reduce_mean(
            tm.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return {"loss": loss, **grads(loss, {"x": x, "w": w, "b": b})}

    golden_case("composite/dense_relu_sparse_xent", build, ["x", "w", "b", "labels"])


def test_sigmoid_tanh_layers_match_tensorflow():
    needs_gradients("MatMul", "Sigmoid", "Tanh", "Sum", "AddV2")

    def build(x, w1, b1, w2, b2, labels):
        h = tm.sigmoid(tm.nn.bias_add(tm.matmul(x, w1), b1))
        o = tm.tanh(tm.nn.bias_add(tm.matmul(h, w2), b2))
        xent = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=o, labels=labels).loss
        loss = tm.reduce_sum(xent) + tm.nn.l2_loss(o)
        return {"loss": loss, **grads(loss, {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2})}

    golden_case("composite/sigmoid_tanh_layers", build, ["x", "w1", "b1", "w2", "b2", "labels"])


# ------------------------------------------------------------------------------------------
# Errors and the graphs the gradient functions build.


def test_sparse_cross_entropy_has_no_gradient_for_labels():
    g = tm.Graph()
    with g.as_default():
        logits = tm.constant(normal((3, 4)))
        labels = tm.constant(np.array([0, 3, 1], np.int32))
        loss = tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits,
                                                              labels=labels).loss
        d_labels, d_logits = tm.gradients(loss, [labels, logits])
    assert d_labels is None
    assert d_logits is not None


def test_sparse_cross_entropy_gradient_function_returns_none_for_labels():
    # Direct: the function itself gives None, not merely tm.gradients dropping integer paths.
    g = tm.Graph()
    with g.as_default():
        loss, backprop = tm.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=tm.constant(normal((3, 4))), labels=tm.constant(np.array([0, 3, 1])))
        fn = registry.get_gradient_function("SparseSoftmaxCrossEntropyWithLogits")
        result = fn(loss.op, tm.ones_like(loss), tm.zeros_like(backprop))
    assert len(result) == 2 and result[1] is None


def _op_types(g) -> list[str]:
    return [op.type for op in g.get_operations()]


def test_activation_gradients_use_the_grad_ops_and_names_of_tensorflow():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(2, 3), name="x")
        ys = [tm.nn.relu(x), tm.nn.relu6(x), tm.nn.elu(x), tm.nn.selu(x), tm.nn.softsign(x),
              tm.nn.leaky_relu(x, alpha=0.25)]
        tm.gradients(ys, [x])
    types = _op_types(g)
    for op_type in ("ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftsignGrad",
                    "LeakyReluGrad"):
        assert op_type in types
    relu_grad = g.get_operation_by_name("gradients/Relu_grad/ReluGrad")
    # TensorFlow passes the activation's output (not its input) to ReluGrad.
    assert relu_grad.inputs[1] is ys[0]
    leaky = next(op for op in g.get_operations() if op.type == "LeakyReluGrad")
    assert leaky.get_attr("alpha") == pytest.approx(0.25)
    assert leaky.inputs[1] is x


def test_softplus_gradient_is_a_sigmoid_as_in_tensorflow():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float64, shape=(2, 3), name="x")
        tm.gradients(tm.nn.softplus(x), [x])
    types = _op_types(g)
    assert "Sigmoid" in types and "SoftplusGrad" not in types


def test_bias_add_gradient_keeps_the_data_format():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(2, 3, 4, 5))
        b = tm.placeholder(tm.float32, shape=(3,))
        _, db = tm.gradients(tm.nn.bias_add(x, b, data_format="NCHW"), [x, b])
    assert db.op.type == "BiasAddGrad"
    assert db.op.get_attr("data_format") == "NCHW"
    assert db.shape.as_list() == [3]


def test_bias_add_gradients_with_unknown_shapes():
    # BiasAddGrad's gradient reads the shapes at run time (Shape, not folded constants).
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float64, shape=(None, 3, None))
        b = tm.placeholder(tm.float64, shape=(3,))
        dy = tm.placeholder(tm.float64, shape=(None, 3, None))
        (db,) = tm.gradients(tm.nn.bias_add(x, b, data_format="NCHW"), [b], grad_ys=dy)
        ddb = tm.constant(np.array([1.0, 2.0, 3.0]))
        (d_dy,) = tm.gradients(db, [dy], grad_ys=ddb)
        (dv1,) = tm.gradients(tm.raw_ops.BiasAddV1(value=dy, bias=b), [b], grad_ys=dy)
        with tm.Session(graph=g) as sess:
            value = np.ones((2, 3, 4))
            dy_value = normal((2, 3, 4))
            got, got_v1 = sess.run([d_dy, dv1], {x: value, b: np.zeros(3), dy: dy_value})
    np.testing.assert_array_equal(got, np.broadcast_to(np.array([1.0, 2.0, 3.0])[:, None],
                                                       (2, 3, 4)))
    np.testing.assert_allclose(got_v1, dy_value.sum(axis=(0, 1)))


def test_cross_entropy_first_order_skips_the_second_order_term():
    # With nothing flowing into the backprop output the gradient is backprop * grad_loss
    # alone: no Softmax or BatchMatMulV2 is built for it, as in TF 2.21 graph mode.
    g = tm.Graph()
    with g.as_default():
        logits = tm.placeholder(tm.float32, shape=(2, 3))
        labels = tm.placeholder(tm.float32, shape=(2, 3))
        loss = tm.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels).loss
        tm.gradients(loss, [logits, labels])
    types = _op_types(g)
    assert "Softmax" not in types and "BatchMatMulV2" not in types
    assert "LogSoftmax" in types  # the labels' gradient


def test_softsign_second_order_is_defined_unlike_tensorflow():
    # TensorFlow has no gradient for SoftsignGrad; tfmini's is exact (checked by finite
    # differences above). Here: its value at one point against the closed form.
    g = tm.Graph()
    with g.as_default():
        gr = tm.constant(np.array([0.5, -1.5]))
        x = tm.constant(np.array([-2.0, 0.5]))
        y = tm.raw_ops.SoftsignGrad(gradients=gr, features=x)
        d_g, d_x = tm.gradients(y, [gr, x])
        with tm.Session(graph=g) as sess:
            got_g, got_x = sess.run([d_g, d_x])
    xv, gv = np.array([-2.0, 0.5]), np.array([0.5, -1.5])
    np.testing.assert_allclose(got_g, 1 / (1 + np.abs(xv)) ** 2)
    np.testing.assert_allclose(got_x, -2 * gv * np.sign(xv) / (1 + np.abs(xv)) ** 3)
