"""Gradients through tm.cond and tm.while_loop (tfmini/control_flow_grad.py).

Values are checked against TensorFlow (tests/goldens/control_flow_grad.npz, written by
tools/record_goldens_control_flow_grad.py, which builds the same graphs) and against finite
differences (float64).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm


@pytest.fixture
def gold(golden):
    return golden("control_flow_grad")


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


def _fd_error(xs, y, init):
    """The largest difference between the symbolic and the numeric Jacobian of y (float64;
    a small step, so the check is tight)."""
    with tm.Session() as sess:
        return tm.test.compute_gradient_error(
            xs, [list(v.shape) for v in init], y, y.shape.as_list(), x_init_value=init,
            delta=1e-5, session=sess)


# ----------------------------------------------------------------------------------------
# cond


def test_cond_gradients_with_captures_and_a_variable_follow_the_fed_predicate(graph, gold):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.placeholder(tm.float64, [3], name="x")
    c = tm.constant(gold["cond_capture/c"])
    w = tm.Variable(gold["cond_capture/w"])
    y = tm.cond(p, lambda: tm.sin(x) * c * w, lambda: tm.square(x) * c)
    grads = tm.gradients(y, [x, c, w], grad_ys=tm.constant(gold["cond_capture/dy"]))
    assert all(g is not None for g in grads)
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        for name, taken in [("true", True), ("false", False), ("true", True)]:
            values = sess.run(grads, {p: taken, x: gold["cond_capture/x"]})
            for key, v in zip(["x", "c", "w"], values):
                _close(v, gold[f"cond_capture/{name}/d_{key}"])


def test_cond_gradient_is_an_if_on_the_same_predicate(graph):
    p = tm.placeholder(tm.bool, [])
    x = tm.placeholder(tm.float64, [3])
    y = tm.cond(p, lambda: x * x, lambda: tm.sin(x))
    (dx,) = tm.gradients(y, [x])
    forward_if = y.op.inputs[0].op
    grad_ifs = [op for op in graph.get_operations() if op.type == "StatelessIf"
                and op is not forward_if]
    assert len(grad_ifs) == 1 and grad_ifs[0].name.startswith("gradients/")
    assert grad_ifs[0].inputs[0] is forward_if.inputs[0]
    assert dx.shape.as_list() == [3]
    with tm.Session() as sess:
        xv = np.array([0.1, 0.2, 0.3])
        _close(sess.run(dx, {p: True, x: xv}), 2 * xv)
        _close(sess.run(dx, {p: False, x: xv}), np.cos(xv))


def test_nested_cond_matches_tensorflow_for_every_branch(graph, gold):
    p1 = tm.placeholder(tm.bool, [])
    p2 = tm.placeholder(tm.bool, [])
    x = tm.placeholder(tm.float64, [4])
    k = tm.placeholder(tm.float64, [4])
    y = tm.cond(p1, lambda: tm.cond(p2, lambda: x * k, lambda: tm.sin(x) * x),
                lambda: tm.square(x) + k)
    grads = tm.gradients(y, [x, k], grad_ys=tm.constant(gold["nested_cond/dy"]))
    with tm.Session() as sess:
        for b1 in (True, False):
            for b2 in (True, False):
                values = sess.run(grads, {p1: b1, p2: b2, x: gold["nested_cond/x"],
                                          k: gold["nested_cond/k"]})
                for key, v in zip(["x", "k"], values):
                    _close(v, gold[f"nested_cond/{int(b1)}{int(b2)}/d_{key}"])


@pytest.mark.parametrize("taken", [True, False])
def test_nested_cond_finite_differences(graph, taken):
    x = tm.placeholder(tm.float64, [4])
    k = tm.placeholder(tm.float64, [4])
    y = tm.cond(tm.constant(taken), lambda: tm.cond(x[0] < 5.0, lambda: tm.sin(x) * k * x,
                                                    lambda: x),
                lambda: tm.square(x) * k)
    init = [np.array([0.3, -0.2, 0.7, 0.1]), np.array([1.5, -0.5, 0.25, 2.0])]
    assert _fd_error([x, k], y, init) < 1e-7


def test_cond_branch_returning_a_captured_tensor_passes_its_gradient(graph):
    p = tm.placeholder(tm.bool, [])
    x = tm.placeholder(tm.float64, [2])
    a, b = tm.cond(p, lambda: (x, x * 3.0), lambda: (x * x, x))
    (dx,) = tm.gradients([a, b], [x])
    with tm.Session() as sess:
        xv = np.array([1.0, -2.0])
        _close(sess.run(dx, {p: True, x: xv}), [4.0, 4.0])
        _close(sess.run(dx, {p: False, x: xv}), 2 * xv + 1)


def test_cond_with_integer_outputs_and_inputs(graph):
    p = tm.placeholder(tm.bool, [])
    x = tm.placeholder(tm.float64, [])
    n = tm.placeholder(tm.int32, [])
    y, m = tm.cond(p, lambda: (x * x, n + 1), lambda: (x, n))
    dx, dn = tm.gradients([y], [x, n])
    assert dn is None
    assert tm.gradients(m, [x, n]) == [None, None]
    with tm.Session() as sess:
        assert sess.run(dx, {p: True, x: 3.0, n: 1}) == 6.0


def test_cond_side_effect_outside_the_outputs_runs_once_per_step(graph):
    counter = tm.Variable(0.0, dtype=tm.float64)
    x = tm.placeholder(tm.float64, [])

    def true_fn():
        return x * x, counter.assign_add(1.0).op

    def false_fn():
        return x, tm.no_op()

    y, _ = tm.cond(x > 0.0, true_fn, false_fn)
    (dx,) = tm.gradients(y, [x])
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        assert sess.run([y, dx], {x: 2.0}) == [4.0, 4.0]
        assert sess.run(counter.read_value()) == 1.0  # the gradient did not assign again


def test_cond_output_computed_from_an_assignment_is_refused(graph):
    v = tm.Variable(1.0, dtype=tm.float64)
    x = tm.placeholder(tm.float64, [])
    y = tm.cond(x > 0.0, lambda: v.assign_add(x) * x, lambda: x)
    with pytest.raises(NotImplementedError, match=r"repeat its side effects"):
        tm.gradients(y, [x])


# ----------------------------------------------------------------------------------------
# while_loop


def test_power_by_repeated_multiplication(graph, gold):
    x = tm.placeholder(tm.float64, [3])
    _, y = tm.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x),
                         [tm.constant(0), tm.ones([3], tm.float64)])
    (dx,) = tm.gradients(y, [x], grad_ys=tm.constant(gold["pow_loop/dy"]))
    assert dx.op.type == "WhileGrad" and dx.shape.as_list() == [3]
    with tm.Session() as sess:
        _close(sess.run(dx, {x: gold["pow_loop/x"]}), gold["pow_loop/d_x"])
    assert _fd_error([x], y, [gold["pow_loop/x"]]) < 1e-7


def test_rnn_like_recurrence_with_captured_weights_and_a_gathered_input(graph, gold):
    names = ["h0", "w", "u", "b", "seq"]
    h0, w, u, b, seq = inputs = [tm.placeholder(tm.float64, gold[f"rnn/{k}"].shape)
                                 for k in names]

    def body(i, h):
        x = tm.gather(seq, i)  # its gradient is IndexedSlices inside the body
        return i + 1, tm.tanh(tm.matmul(h, w) + tm.matmul(x, u) + b)

    _, h = tm.while_loop(lambda i, h: i < 6, body, [tm.constant(0), h0])
    grads = tm.gradients(h, inputs, grad_ys=tm.constant(gold["rnn/dy"]))
    values = [gold[f"rnn/{k}"] for k in names]
    with tm.Session() as sess:
        for key, v in zip(names, sess.run(grads, dict(zip(inputs, values)))):
            _close(v, gold[f"rnn/d_{key}"])
    assert _fd_error(inputs, h, values) < 1e-7


def test_maximum_iterations(graph, gold):
    x = tm.placeholder(tm.float64, [3])
    a0 = tm.placeholder(tm.float64, [3])
    y = tm.while_loop(lambda a: tm.reduce_sum(a) < 1e6, lambda a: a * x + tm.sin(a), [a0],
                      maximum_iterations=4)
    grads = tm.gradients(y, [x, a0], grad_ys=tm.constant(gold["max_iterations/dy"]))
    with tm.Session() as sess:
        values = sess.run(grads, {x: gold["max_iterations/x"], a0: gold["max_iterations/a0"]})
    for key, v in zip(["x", "a0"], values):
        _close(v, gold[f"max_iterations/d_{key}"])


@pytest.mark.parametrize("case", ["some", "none"])
def test_trip_count_depends_on_the_data(graph, gold, case):
    a0 = tm.placeholder(tm.float64, [3])
    c = tm.placeholder(tm.float64, [3])
    y = tm.while_loop(lambda a: tm.reduce_sum(a) < 10.0, lambda a: a * 1.5 + c, [a0])
    grads = tm.gradients(y, [a0, c], grad_ys=tm.constant(gold["data_dependent/dy"]))
    feeds = {a0: gold[f"data_dependent/{case}/a0"], c: gold["data_dependent/c"]}
    with tm.Session() as sess:
        d_a0, d_c, y_value = sess.run(grads + [y], feeds)
    _close(y_value, gold[f"data_dependent/{case}/y"])
    _close(d_a0, gold[f"data_dependent/{case}/d_a0"])
    _close(d_c, gold[f"data_dependent/{case}/d_c"])
    if case == "some":
        init = [gold[f"data_dependent/{case}/a0"], gold["data_dependent/c"]]
        assert _fd_error([a0, c], y, init) < 1e-7


def test_cond_inside_while(graph, gold):
    x = tm.placeholder(tm.float64, [3])
    a0 = tm.placeholder(tm.float64, [3])

    def body(i, a):
        return i + 1, tm.cond(i < 2, lambda: a * x, lambda: tm.sin(a) + x)

    _, y = tm.while_loop(lambda i, a: i < 5, body, [tm.constant(0), a0])
    grads = tm.gradients(y, [x, a0], grad_ys=tm.constant(gold["cond_in_while/dy"]))
    with tm.Session() as sess:
        values = sess.run(grads, {x: gold["cond_in_while/x"], a0: gold["cond_in_while/a0"]})
    for key, v in zip(["x", "a0"], values):
        _close(v, gold[f"cond_in_while/d_{key}"])
    assert _fd_error([x, a0], y, [gold["cond_in_while/x"], gold["cond_in_while/a0"]]) < 1e-7


def test_variable_read_inside_the_body(graph, gold):
    h0 = tm.placeholder(tm.float64, [2, 4])
    w = tm.Variable(gold["variable_in_while/w"])
    _, h = tm.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tm.tanh(tm.matmul(h, w))),
                         [tm.constant(0), h0])
    grads = tm.gradients(h, [h0, w], grad_ys=tm.constant(gold["variable_in_while/dy"]))
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        values = sess.run(grads, {h0: gold["variable_in_while/h0"]})
    for key, v in zip(["h0", "w"], values):
        _close(v, gold[f"variable_in_while/d_{key}"])


def test_nested_while_and_swapped_loop_variables(graph):
    x = tm.placeholder(tm.float64, [2])

    def inner(a):
        _, r = tm.while_loop(lambda j, r: j < 2, lambda j, r: (j + 1, tm.sin(r) * x),
                             [tm.constant(0), a])
        return r

    # a and b trade places each step; only b's final value is differentiated.
    _, a, b = tm.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, b, inner(a)),
                            [tm.constant(0), x, x * 2.0])
    assert _fd_error([x], b, [np.array([0.4, -0.3])]) < 1e-7
    assert _fd_error([x], a + b, [np.array([0.4, -0.3])]) < 1e-7


def test_integer_loop_variables_and_counters_get_no_gradient(graph):
    x = tm.placeholder(tm.float64, [])
    i, n, y = tm.while_loop(lambda i, n, y: i < 4, lambda i, n, y: (i + 1, n * 2, y * x),
                            [tm.constant(0), tm.constant(1), tm.constant(1.0, tm.float64)],
                            maximum_iterations=10)
    assert tm.gradients([i, n], [x]) == [None]
    dx, dn = tm.gradients([y], [x, n])
    assert dn is None
    with tm.Session() as sess:
        assert sess.run(dx, {x: 2.0}) == pytest.approx(4 * 2.0**3)


def test_loop_invariant_tensor_unused_by_the_body_keeps_its_outer_gradient(graph):
    x = tm.placeholder(tm.float64, [])
    c = tm.placeholder(tm.float64, [])
    _, y = tm.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, c])
    dx, dc = tm.gradients(y, [x, c])
    with tm.Session() as sess:
        assert sess.run([dx, dc], {x: 2.0, c: 5.0}) == [pytest.approx(5 * 3 * 4.0), 8.0]


def test_stateful_body_is_refused(graph):
    v = tm.Variable(0.0, dtype=tm.float64)
    x = tm.placeholder(tm.float64, [])

    def body(i, y):
        with tm.control_dependencies([v.assign_add(1.0)]):
            return i + 1, y * x

    _, y = tm.while_loop(lambda i, y: i < 3, body, [0, x])
    assert y.op.inputs[0].op.type == "While"
    with pytest.raises(NotImplementedError, match=r"AssignAddVariableOp.*side effects"):
        tm.gradients(y, [x])


def test_while_inside_cond_and_second_order_through_cond(graph):
    x = tm.placeholder(tm.float64, [2])
    p = tm.placeholder(tm.bool, [])
    y = tm.cond(p, lambda: tm.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x),
                                         [0, x])[1],
                lambda: tm.sin(x))
    (dy,) = tm.gradients(y, [x])
    z = tm.cond(p, lambda: x * x * x, lambda: tm.sin(x))
    (dz,) = tm.gradients(z, [x])
    (ddz,) = tm.gradients(dz, [x])
    xv = np.array([0.5, 2.0])
    with tm.Session() as sess:
        _close(sess.run(dy, {x: xv, p: True}), 4 * xv**3)
        _close(sess.run(dy, {x: xv, p: False}), np.cos(xv))
        _close(sess.run(ddz, {x: xv, p: True}), 6 * xv)
        _close(sess.run(ddz, {x: xv, p: False}), -np.sin(xv))


def test_second_order_through_a_loop_is_refused(graph):
    x = tm.placeholder(tm.float64, [])
    _, y = tm.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])
    (dx,) = tm.gradients(y, [x])
    with pytest.raises(NotImplementedError, match="no second-order gradients through while"):
        tm.gradients(dx, [x])


def test_loop_gradient_survives_a_graph_def_round_trip(graph):
    x = tm.placeholder(tm.float64, [3], name="x")
    _, y = tm.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tm.sin(a) * x), [0, x])
    (dx,) = tm.gradients(y, [x])
    xv = np.array([0.1, -0.5, 0.9])
    with tm.Session() as sess:
        expected = sess.run(dx, {x: xv})
    g2 = tm.Graph()
    with g2.as_default():
        tm.import_graph_def(graph.as_graph_def(), name="")
        with tm.Session() as sess:
            _close(sess.run(dx.name, {"x:0": xv}), expected)
