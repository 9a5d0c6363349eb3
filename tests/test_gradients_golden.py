"""Gradients of composite graphs against TensorFlow 2.21 (tests/goldens/gradients.npz, recorded
by tools/record_goldens_gradients.py, which builds the same graphs with tf.compat.v1).

Checked within 1e-4 relative: an MLP (matmul, bias add, relu, sigmoid, dense and sparse softmax
cross entropy) w.r.t. its variables and input; embedding lookups through tm.gather (the
IndexedSlices exactly as TensorFlow gives it, and densified); a reshape/transpose/slicing
chain; broadcasting math with several ys, grad_ys, stop_gradients and unconnected xs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tfmini as tm

GOLDENS = np.load(Path(__file__).parent / "goldens" / "gradients.npz")
RTOL = 1e-4


def _in(case: str, name: str) -> np.ndarray:
    return GOLDENS[f"{case}/in/{name}"]


def _close(got, want, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, TensorFlow {want.shape}"
    # Relative to the array's scale, so entries near zero do not demand exact agreement.
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-30)
    error = float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0)) / scale
    assert error <= RTOL, f"{what}: relative error {error:.3g}\ngot {got!r}\nTensorFlow {want!r}"


def _check(case: str, grads: dict, sess, feeds: dict | None = None) -> None:
    """Compares each named gradient (Output, IndexedSlices or None) with TensorFlow's."""
    nones = set(GOLDENS[f"{case}/none"].tolist())
    assert {n for n, g in grads.items() if g is None} == nones, case
    for name, g in grads.items():
        if g is None:
            continue
        key = f"{case}/grad/{name}"
        if isinstance(g, tm.IndexedSlices):
            assert f"{key}/values" in GOLDENS, f"{key}: TensorFlow gave a dense gradient"
            value = sess.run(g, feeds)
            _close(value.values, GOLDENS[f"{key}/values"], f"{key}/values")
            for part in ("indices", "dense_shape"):
                want = GOLDENS[f"{key}/{part}"]
                got = np.asarray(getattr(value, part))
                assert got.dtype == want.dtype, f"{key}/{part}: {got.dtype}, TF {want.dtype}"
                np.testing.assert_array_equal(got, want, err_msg=f"{key}/{part}")
            _close(sess.run(tm.convert_to_tensor(g), feeds), GOLDENS[f"{key}/dense"],
                   f"{key} densified")
        else:
            assert key in GOLDENS, f"{key}: TensorFlow gave IndexedSlices, tfmini a dense tensor"
            _close(sess.run(g, feeds), GOLDENS[key], key)


@pytest.mark.parametrize("case", ["mlp_dense", "mlp_sparse"])
def test_mlp(case):
    sparse = case == "mlp_sparse"
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 5], name="x")
        v = {k: tm.Variable(_in(case, k), name=k) for k in ("w1", "b1", "w2", "b2", "w3", "b3")}
        h1 = tm.nn.relu(tm.nn.bias_add(tm.matmul(x, v["w1"]), v["b1"]))
        h2 = tm.sigmoid(tm.matmul(h1, v["w2"]) + v["b2"])
        logits = tm.nn.bias_add(tm.matmul(h2, v["w3"]), v["b3"])
        labels = tm.constant(_in(case, "labels"))
        if sparse:
            xent = tm.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        else:
            xent = tm.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
        loss = tm.reduce_mean(xent)
        names = [*v, "x"]
        grads = tm.gradients(loss, [v[k] for k in v] + [x])
        with tm.Session(graph=g) as sess:
            sess.run(tm.global_variables_initializer())
            feeds = {x: _in(case, "x")}
            _close(sess.run(loss, feeds), GOLDENS[f"{case}/loss"], f"{case}/loss")
            _check(case, dict(zip(names, grads)), sess, feeds)


def test_embedding_lookups_give_indexed_slices_as_tensorflow():
    case = "embedding"
    g = tm.Graph()
    with g.as_default():
        table = tm.Variable(_in(case, "table"), name="table")
        dense = tm.placeholder(tm.float64, [5, 4], name="dense")
        e1 = tm.reduce_mean(tm.gather(table, _in(case, "ids1")), axis=1)
        e2 = tm.gather(table, _in(case, "ids2"))
        e3 = tm.gather(dense, [4, 0, 4])
        y = (tm.reduce_sum(tm.tanh(e1) * _in(case, "w")) + tm.reduce_sum(tm.square(e2))
             + tm.reduce_sum(e3 * e2))
        single = tm.reduce_sum(tm.gather(table, _in(case, "ids1")) * 2.0)
        d_table, d_dense = tm.gradients(y, [table, dense])
        (d_single,) = tm.gradients(single, [table])
        assert isinstance(d_table, tm.IndexedSlices) and isinstance(d_single, tm.IndexedSlices)
        with tm.Session(graph=g) as sess:
            sess.run(tm.global_variables_initializer())
            feeds = {dense: _in(case, "dense")}
            _check(case, {"table": d_table, "dense": d_dense}, sess, feeds)
            _check("embedding_single", {"table": d_single}, sess, feeds)


def test_reshape_transpose_and_slicing_chain():
    case = "shapes"
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float64, [2, 3, 4], name="x")
        t = tm.reshape(tm.transpose(x, [2, 0, 1]), [4, 6])
        s = t[1:, ::2]
        r = t[::-1, tm.newaxis, 5]
        c = tm.concat([s, tm.tile(tm.squeeze(r, 1)[:3, None], [1, 1])], axis=1)
        z = tm.expand_dims(tm.slice(x, [1, 0, 1], [1, 3, 3]), 0)[0, 0]
        y = tm.reduce_sum(c * _in(case, "w")) + tm.reduce_sum(z * c[:, 1:])
        grads = tm.gradients(y, [x])
        with tm.Session(graph=g) as sess:
            _check(case, {"x": grads[0]}, sess, {x: _in(case, "x")})


@pytest.fixture(scope="module")
def math_graph():
    g = tm.Graph()
    with g.as_default():
        ph = {k: tm.placeholder(tm.float64, _in("math", k).shape, name=k) for k in "xyzw"}
        x, y, z, w = ph["x"], ph["y"], ph["z"], ph["w"]
        unused = tm.placeholder(tm.float64, [4], name="unused")
        f = x * y + z / w
        p = tm.pow(tm.square(f) + 1.0, 0.5 * w)
        e = tm.log(tm.exp(0.5 * x) + tm.square(z))
        s = tm.reduce_sum(f, axis=1, keepdims=True) * tm.reduce_mean(p, axis=0, keep_dims=True)
        m = tm.reduce_max(e * y, axis=0, keepdims=True) - tm.reduce_prod(w, keepdims=True)
        y1 = s + e
        y2 = m * tm.reduce_sum(p, axis=0, keepdims=True)
        parts = {"xs": [x, y, z, w, unused], "y1": y1, "y2": y2, "f": f, "e": e,
                 "feeds": {ph[k]: _in("math", k) for k in "xyzw"}}
    return g, parts


@pytest.mark.parametrize("case", ["y1", "sum", "grad_ys", "stop", "zero"])
def test_math_chain(math_graph, case):
    g, parts = math_graph
    y1, y2 = parts["y1"], parts["y2"]
    with g.as_default():
        if case == "y1":
            grads = tm.gradients(y1, parts["xs"])
        elif case == "sum":
            grads = tm.gradients([y1, y2], parts["xs"])
        elif case == "grad_ys":
            grads = tm.gradients([y1, y2], parts["xs"],
                                 grad_ys=[_in("math", "gy1"), _in("math", "gy2")])
        elif case == "stop":
            grads = tm.gradients([y1, y2], parts["xs"], stop_gradients=[parts["f"], parts["e"]])
        else:
            grads = tm.gradients(y2, parts["xs"], unconnected_gradients="zero")
        with tm.Session(graph=g) as sess:
            _check(f"math/{case}", dict(zip(["x", "y", "z", "w", "unused"], grads)), sess,
                   parts["feeds"])
