"""tm.TensorArray and the TensorArrayV3 ops: build-time behaviour, per-step lifetime,
replay under gradients, and the while_loop integration dynamic_rnn relies on. (Values,
gradients and errors against TensorFlow are in test_functional_goldens.py.)"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tfmini as tm


def test_element_shape_is_inferred_from_writes_and_conflicts_at_build(graph):
    ta = tm.TensorArray(tm.float32, size=3)
    assert ta.element_shape.rank is None
    w = ta.write(0, [1.0, 2.0])
    assert w.element_shape == tm.TensorShape([2])
    assert w.read(0).shape == tm.TensorShape([2])
    assert w.stack().shape.as_list() == [3, 2]  # a fixed size: known, as in TensorFlow
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
        w.write(1, [1.0, 2.0, 3.0])


def test_infer_shape_false_allows_different_element_shapes(graph):
    ta = tm.TensorArray(tm.float32, size=2, infer_shape=False)
    ta = ta.write(0, [[1.0]]).write(1, [[2.0], [3.0]])
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(ta.concat()), [[1.0], [2.0], [3.0]])


def test_handle_arguments_are_checked(graph):
    ta = tm.TensorArray(tm.float32, size=2)
    with pytest.raises(ValueError, match="Argument `size` must be provided"):
        tm.TensorArray(tm.float32)
    with pytest.raises(ValueError, match="flow must not be None"):
        tm.TensorArray(tm.float32, handle=ta.handle)
    with pytest.raises(ValueError, match="Cannot provide both `handle` and `size`"):
        tm.TensorArray(tm.float32, size=2, handle=ta.handle, flow=ta.flow)
    same = tm.TensorArray(tm.float32, handle=ta.handle, flow=ta.write(0, 5.0).flow)
    with tm.Session() as sess:
        assert sess.run(same.read(0)) == 5.0


def test_op_attrs_follow_the_constructor(graph):
    ta = tm.TensorArray(tm.int32, size=4, dynamic_size=True, clear_after_read=False,
                        element_shape=[2, None], tensor_array_name="frames")
    op = ta.handle.op
    assert op.type == "TensorArrayV3"
    assert op.get_attr("dtype") == tm.int32
    assert op.get_attr("dynamic_size") is True
    assert op.get_attr("clear_after_read") is False
    assert op.get_attr("identical_element_shapes") is True
    assert op.get_attr("tensor_array_name") == "frames"
    assert op.get_attr("element_shape").as_list() == [2, None]
    assert ta.size().op.type == "TensorArraySizeV3"  # dynamic: the op, not a constant


def test_each_run_gets_a_fresh_array(graph):
    # A TensorArray lives for one step: the second run writes index 0 again without error.
    value = tm.placeholder(tm.float32, [])
    out = tm.TensorArray(tm.float32, size=1).write(0, value).stack()
    with tm.Session() as sess:
        assert sess.run(out, {value: 1.0}).tolist() == [1.0]
        assert sess.run(out, {value: 2.0}).tolist() == [2.0]


def test_a_failed_run_leaves_the_session_usable(graph):
    fail = tm.placeholder(tm.bool, [])
    ta = tm.TensorArray(tm.float32, size=2).write(0, 1.0)
    bad = tm.cond(fail, lambda: ta.write(0, 2.0).flow, lambda: ta.write(1, 2.0).flow)
    out = tm.TensorArray(tm.float32, handle=ta.handle, flow=bad).stack()
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="already been written to"):
            sess.run(out, {fail: True})
        np.testing.assert_array_equal(sess.run(out, {fail: False}), [1.0, 2.0])


def test_close_makes_later_ops_fail(graph):
    ta = tm.TensorArray(tm.float32, size=2).write(0, 1.0)
    close = ta.close()
    with tm.control_dependencies([close]):
        flow = tm.identity(ta.flow)
    read = tm.TensorArray(tm.float32, handle=ta.handle, flow=flow).read(0)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="has already been closed"):
            sess.run(read)


def test_gradient_arrays_add_repeated_reads(graph):
    x = tm.constant([1.0, 2.0])
    ta = tm.TensorArray(tm.float32, size=1, clear_after_read=False).write(0, x)
    y = ta.read(0) * 3.0 + ta.read(0) * ta.read(0)
    (gx,) = tm.gradients(tm.reduce_sum(y), [x])
    with tm.Session() as sess:
        np.testing.assert_allclose(sess.run(gx), 3.0 + 2.0 * np.array([1.0, 2.0]))


def test_two_gradient_calls_use_two_gradient_arrays(graph):
    x = tm.constant([1.0, 2.0])
    ta = tm.TensorArray(tm.float32, size=1, clear_after_read=False).write(0, x)
    y = tm.reduce_sum(ta.read(0) * ta.read(0))
    (g1,) = tm.gradients(y, [x])
    (g2,) = tm.gradients(y * 10.0, [x])
    with tm.Session() as sess:
        a, b = sess.run([g1, g2])
    np.testing.assert_allclose(a, [2.0, 4.0])
    np.testing.assert_allclose(b, [20.0, 40.0])


def _rnn(steps, batch, units, masked=True):
    rng = np.random.default_rng(3)
    xs = tm.constant(rng.normal(size=(steps, batch, units)).astype(np.float32) * 0.3)
    w = tm.Variable(rng.normal(size=(units, units)).astype(np.float32) * 0.1, name="w")
    lengths = tm.constant(rng.integers(steps // 2, steps + 1, size=batch).astype(np.int32))
    in_ta = tm.TensorArray(tm.float32, size=steps).unstack(xs)
    out_ta = tm.TensorArray(tm.float32, size=steps)

    def body(t, h, out):
        new_h = tm.tanh(in_ta.read(t) + tm.matmul(h, w))
        if masked:
            keep = tm.tile(tm.reshape(t < lengths, [batch, 1]), [1, units])
            new_h = tm.where(keep, new_h, h)
        return t + 1, new_h, out.write(t, new_h)

    _, h, out = tm.while_loop(lambda t, *_: t < steps, body,
                              (tm.constant(0), tm.zeros([batch, units]), out_ta),
                              maximum_iterations=steps)
    loss = tm.reduce_sum(out.stack()) + tm.reduce_sum(h * h)
    return xs, w, loss


def test_rnn_loop_gradients_agree_with_finite_differences(graph):
    xs, w, loss = _rnn(6, 3, 4)
    gx, gw = tm.gradients(loss, [xs, w])
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        gx_v, gw_v, w0 = sess.run([gx, gw, w])
        eps = 1e-2
        for idx in [(0, 0), (1, 3), (3, 2)]:
            delta = np.zeros_like(w0)
            delta[idx] = eps
            w.load(w0 + delta, sess)
            up = sess.run(loss)
            w.load(w0 - delta, sess)
            down = sess.run(loss)
            np.testing.assert_allclose((up - down) / (2 * eps), gw_v[idx], rtol=2e-2, atol=2e-3)
        w.load(w0, sess)
    assert gx_v.shape == (6, 3, 4)


def test_py_func_tokens_are_released_with_their_graph():
    from tfmini.ops.data_flow import script_ops

    def build():
        g = tm.Graph()
        with g.as_default():
            tm.py_func(lambda a: a, [tm.constant(1.0)], tm.float32)
        return g

    gc.collect()
    before = script_ops.registry.size()
    g = build()
    assert script_ops.registry.size() == before + 1
    del g
    gc.collect()
    assert script_ops.registry.size() == before


def test_the_gradient_uses_the_iterations_the_forward_loop_kept(graph, monkeypatch):
    # The While differentiated in a step keeps its iterations, so its WhileGrad does not run
    # the loop body again (only the body's gradient function, once per iteration).
    xs, w, loss = _rnn(5, 2, 3)
    gw = tm.gradients(loss, w)[0]
    calls = []
    original = tm.Session._call_function

    def counting(self, function, args, run):
        calls.append(function.name)
        return original(self, function, args, run)

    monkeypatch.setattr(tm.Session, "_call_function", counting)
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        sess.run(gw)
    bodies = [n for n in calls if "_body_" in n and "_grad_" not in n]
    grads = [n for n in calls if "_grad_" in n]
    assert len(bodies) == 5 and len(grads) == 5
