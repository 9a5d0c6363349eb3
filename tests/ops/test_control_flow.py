"""Functional control flow: If/While ops, tm.cond, tm.while_loop, tm.group, tm.tuple."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.helpers import run_in_thread, wait_for
from tfmini.core.function import FuncGraph


def variable(value, name):
    """A float32 scalar resource variable: (handle, initializer, read function)."""
    handle = tm.raw_ops.VarHandleOp(dtype=tm.float32, shape=[], shared_name=name)
    init = tm.raw_ops.AssignVariableOp(resource=handle, value=np.float32(value))
    return handle, init, lambda: tm.raw_ops.ReadVariableOp(resource=handle, dtype=tm.float32)


def assign_add(handle, value):
    return tm.raw_ops.AssignAddVariableOp(resource=handle, value=np.float32(value))


def if_op(result):
    return result.op.inputs[0].op


# ----------------------------------------------------------------------------------------
# cond


def test_cond_builds_stateless_if_named_as_tensorflow(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant(1.0, name="x")
    r = tm.cond(p, lambda: x + 1.0, lambda: x + 2.0)
    op = if_op(r)
    assert (op.type, op.name, r.name, r.op.type) == ("StatelessIf", "cond", "cond/Identity:0",
                                                       "Identity")
    then_fn, else_fn = op.get_attr("then_branch"), op.get_attr("else_branch")
    assert then_fn.name.startswith("cond_true_") and else_fn.name.startswith("cond_false_")
    assert graph.functions[then_fn.name] is then_fn and graph.functions[else_fn.name] is else_fn
    assert op.get_attr("Tout") == (tm.float32,) and op.get_attr("Tin") == (tm.float32,)
    assert list(op.inputs) == [p, x]
    r2 = tm.cond(p, lambda: x, lambda: x, name="mine")
    assert (if_op(r2).name, r2.name) == ("mine", "mine/Identity:0")
    assert if_op(tm.cond(p, lambda: x, lambda: x)).name == "cond_1"


def test_cond_pred_placeholder_fed_true_and_false_in_one_session(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant(3.0)
    r = tm.cond(p, lambda: x + 1.0, lambda: x + 10.0)
    with tm.Session() as sess:
        assert sess.run(r, {p: True}) == 4.0
        assert sess.run(r, {p: False}) == 13.0
        assert sess.run(r, {p: True}) == 4.0
        assert len(sess._plans) == 1  # one plan for the signature, both branches behind it


def test_only_the_taken_branch_runs_an_op_that_would_fail(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant(1.0)

    def explode():
        # An unfed placeholder inside the branch: running this branch must fail.
        return x + tm.placeholder(tm.float32, [], name="never_fed")

    r = tm.cond(p, lambda: x + 1.0, explode)
    with tm.Session() as sess:
        assert sess.run(r, {p: True}) == 2.0
        with pytest.raises(tm.errors.InvalidArgumentError, match="never_fed") as info:
            sess.run(r, {p: False})
    failed = info.value.op
    assert failed.type == "Placeholder" and failed.name == "never_fed"
    assert failed.graph is if_op(r).get_attr("else_branch")
    assert "Placeholder 'never_fed'" in str(info.value)


def test_an_unfed_outer_placeholder_captured_by_the_untaken_branch_still_fails(graph):
    # As in TensorFlow: the If op takes every captured value as an input, so it is computed
    # before the op runs, whichever branch is taken.
    p = tm.placeholder(tm.bool, [], name="p")
    u = tm.placeholder(tm.float32, [], name="u")
    x = tm.constant(1.0)
    r = tm.cond(p, lambda: x + 1.0, lambda: u + 2.0)
    assert list(if_op(r).inputs) == [p, x, u]
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="placeholder tensor 'u'"):
            sess.run(r, {p: True})
        assert sess.run(r, {p: True, u: 5.0}) == 2.0
        assert sess.run(r, {p: False, u: 5.0}) == 7.0


def test_stateful_op_in_a_branch_runs_only_when_taken(graph):
    handle, init, read = variable(10.0, "v")
    p = tm.placeholder(tm.bool, [], name="p")

    def bump():
        with tm.control_dependencies([assign_add(handle, 1.0)]):
            return read()

    r = tm.cond(p, bump, read)
    assert if_op(r).type == "If"
    then_fn = if_op(r).get_attr("then_branch")
    assert "AssignAddVariableOp" in [op.type for op in then_fn.control_outputs]
    with tm.Session() as sess:
        sess.run(init)
        assert sess.run(r, {p: False}) == 10.0
        assert sess.run(r, {p: True}) == 11.0
        assert sess.run(r, {p: False}) == 11.0
        assert sess.run(r, {p: True}) == 12.0


def test_branches_returning_operations_give_the_if_op(graph):
    handle, init, read = variable(0.0, "counter")
    p = tm.placeholder(tm.bool, [], name="p")
    op = tm.cond(p, lambda: assign_add(handle, 5.0), lambda: tm.no_op())
    assert isinstance(op, tm.Operation) and op.type == "If" and not op.outputs
    x = tm.constant(1.0)
    mixed = tm.cond(p, lambda: [tm.no_op(), x + 1.0], lambda: [tm.no_op(), x])
    assert mixed[0] is if_op(mixed[1]) and mixed[0].type == "StatelessIf"
    with tm.Session() as sess:
        sess.run(init)
        sess.run(op, {p: False})
        assert sess.run(read()) == 0.0
        sess.run(op, {p: True})
        assert sess.run(read()) == 5.0
        assert sess.run(mixed[1], {p: True}) == 2.0


def test_python_bool_pred_calls_the_taken_function_only(graph):
    x = tm.constant(1.0)
    calls = []
    r = tm.cond(True, lambda: calls.append("t") or x, lambda: calls.append("f") or x + 1.0)
    assert r is x and calls == ["t"]
    assert tm.cond(False, lambda: 1, lambda: (2, 3)) == (2, 3)
    assert not [op for op in graph.get_operations() if op.type in ("If", "StatelessIf")]


def test_captures_are_aligned_across_branches(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    a, b, c = tm.constant(1.0, name="a"), tm.constant(2.0, name="b"), tm.constant(4.0, name="c")
    r = tm.cond(p, lambda: a + c, lambda: b + c + c)
    op = if_op(r)
    assert list(op.inputs) == [p, a, c, b]
    for fn in (op.get_attr("then_branch"), op.get_attr("else_branch")):
        assert len(fn.inputs) == 3 and list(fn.captures) == [a, c, b]
        assert [t.dtype for t in fn.inputs] == [tm.float32] * 3
    with tm.Session() as sess:
        assert sess.run(r, {p: True}) == 5.0
        assert sess.run(r, {p: False}) == 10.0


def test_branch_returning_an_outer_tensor_or_literal(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant([1.0, 2.0])
    r = tm.cond(p, lambda: x, lambda: np.array([7.0, 8.0], np.float32))
    assert r.shape == tm.TensorShape([2])
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(r, {p: True}), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(r, {p: False}), [7.0, 8.0])


def test_nested_cond_captures_from_two_levels_out(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    q = tm.placeholder(tm.bool, [], name="q")
    x, y = tm.constant(1.0, name="x"), tm.constant(100.0, name="y")

    def outer_true():
        return tm.cond(q, lambda: x + 1.0, lambda: y + 2.0)

    r = tm.cond(p, outer_true, lambda: x + y)
    outer = if_op(r)
    inner = [op for op in outer.get_attr("then_branch").get_operations()
             if op.type == "StatelessIf"][0]
    # The inner If takes the outer branch's captured arguments, not the root tensors.
    assert all(t.graph is outer.get_attr("then_branch") for t in inner.inputs)
    assert set(outer.inputs[1:]) == {q, x, y}
    expected = {(True, True): 2.0, (True, False): 102.0, (False, True): 101.0,
                (False, False): 101.0}
    with tm.Session() as sess:
        for (pv, qv), want in expected.items():
            assert sess.run(r, {p: pv, q: qv}) == want


def test_output_shapes_are_the_most_specific_compatible(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    a = tm.placeholder(tm.float32, [2, 3])
    b = tm.placeholder(tm.float32, [2, 4])
    c = tm.placeholder(tm.float32, [3])
    r = tm.cond(p, lambda: (a, a, a), lambda: (b, c, a))
    assert [t.shape for t in r] == [tm.TensorShape([2, None]), tm.TensorShape(None),
                                    tm.TensorShape([2, 3])]
    op = if_op(r[0])
    assert op.get_attr("output_shapes") == tuple(t.shape for t in r)


Pair = collections.namedtuple("Pair", "first second")


def test_cond_structures(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant(1.0)
    i = tm.constant(5)
    r = tm.cond(p, lambda: {"b": (x, i), "a": Pair(x, [x])},
                lambda: {"a": Pair(x + 1.0, [x + 2.0]), "b": (x + 3.0, i + 1)})
    assert set(r) == {"a", "b"} and isinstance(r["a"], Pair) and isinstance(r["b"], tuple)
    assert isinstance(r["a"].second, list) and r["b"][1].dtype == tm.int32
    one = tm.cond(p, lambda: [x], lambda: [x])
    assert isinstance(one, list) and len(one) == 1  # as cond_v2: strict or not
    assert tm.cond(p, lambda: None, lambda: None) is None
    with tm.Session() as sess:
        out = sess.run(r, {p: False})
    assert out == {"a": Pair(2.0, [3.0]), "b": (4.0, 6)}


@pytest.mark.parametrize(
    "true_fn, false_fn, detail",
    [
        (lambda x: (x, x), lambda x: x, "sequence"),
        (lambda x: [x, x], lambda x: [x], "number of elements"),
        (lambda x: (x, x), lambda x: [x, x], "different types"),
        (lambda x: {"a": x}, lambda x: {"b": x}, "same set of keys"),
        (lambda x: x, lambda x: tm.constant(1), "have different types"),
        (lambda x: 1, lambda x: 2.0, "have different types"),
        (lambda x: Pair(x, x), lambda x: (x, x), "different types"),
        (lambda x: x, lambda x: tm.no_op(), "not both"),
        (lambda x: None, lambda x: x, "not both"),
    ],
)
def test_cond_branch_mismatch_is_a_type_error(graph, true_fn, false_fn, detail):
    x = tm.constant(1.0)
    with pytest.raises(TypeError, match="true_fn and false_fn arguments to tf.cond must have the "
                       "same number, type, and overall structure of return values") as info:
        tm.cond(tm.constant(True), lambda: true_fn(x), lambda: false_fn(x))
    assert detail in str(info.value)


def test_cond_argument_errors(graph):
    x = tm.constant(1.0)
    p = tm.constant(True)
    with pytest.raises(TypeError, match="'true_fn' argument required"):
        tm.cond(p, false_fn=lambda: x)
    with pytest.raises(TypeError, match="'false_fn' argument required"):
        tm.cond(p, lambda: x)
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        tm.cond(p, 3, lambda: x)
    with pytest.raises(TypeError, match="'false_fn' must be callable"):
        tm.cond(True, lambda: x, x)
    with pytest.raises(TypeError, match="may not be set simultaneously"):
        tm.cond(p, lambda: x, lambda: x, fn1=lambda: x)
    assert tm.cond(p, fn1=lambda: x, fn2=lambda: x).dtype == tm.float32
    with pytest.raises(ValueError, match="not a valid node name"):
        tm.cond(p, lambda: x, lambda: x, name="bad name!")


def test_cond_under_control_dependencies_and_name_scope(graph):
    x = tm.constant(1.0)
    gate = tm.no_op(name="gate")
    with tm.name_scope("outer"), tm.control_dependencies([gate]):
        r = tm.cond(tm.constant(True), lambda: x, lambda: x)
    op = if_op(r)
    assert op.name == "outer/cond" and r.name == "outer/cond/Identity:0"
    assert gate in op.control_inputs
    assert op.get_attr("then_branch").name.startswith("outer_cond_true_")


def test_non_bool_preds_follow_tensorflow_truthiness(graph):
    x = tm.constant(1.0)
    p = tm.placeholder(tm.float32, [], name="p")
    r = tm.cond(p, lambda: x + 1.0, lambda: x)
    s = tm.placeholder(tm.string, [], name="s")
    rs = tm.cond(s, lambda: x + 1.0, lambda: x)
    with tm.Session() as sess:
        assert sess.run(r, {p: 0.5}) == 2.0
        assert sess.run(r, {p: 0.0}) == 1.0
        assert sess.run(rs, {s: "yes"}) == 2.0
        assert sess.run(rs, {s: ""}) == 1.0


# ----------------------------------------------------------------------------------------
# Raw If / While with hand-built functions


def make_function(graph, name, arg_specs, body):
    """A FuncGraph taking ``arg_specs`` [(dtype, shape)] and returning ``body(*args)``."""
    fn = FuncGraph(name=name, outer_graph=graph)
    with fn.as_default():
        args = [fn.add_argument(dt, shape) for dt, shape in arg_specs]
        outs = body(*args)
    fn.finalize_function(list(outs))
    graph._register_function(fn)
    return fn


@pytest.mark.parametrize(
    "cond_value, taken",
    [
        (np.int32(3), "then"), (np.int32(0), "else"), (np.float64(0.0), "else"),
        (np.array([0, 0], np.int32), "then"), (np.zeros((0,), np.float32), "else"),
        (np.array([[False]]), "then"), (np.bool_(False), "else"),
    ],
)
def test_raw_if_truthiness(graph, cond_value, taken):
    spec = [(tm.float32, [])]
    then_fn = make_function(graph, "then", spec, lambda a: [a + 1.0])
    else_fn = make_function(graph, "else", spec, lambda a: [a])
    out = tm.raw_ops.If(cond=cond_value, input=[np.float32(1.0)], Tout=[tm.float32],
                        then_branch=then_fn, else_branch=else_fn)
    assert out[0].shape == tm.TensorShape(None)  # no output_shapes given
    with tm.Session() as sess:
        assert sess.run(out[0]) == (2.0 if taken == "then" else 1.0)


def test_raw_if_with_a_mismatched_function_is_an_invalid_argument(graph):
    then_fn = make_function(graph, "two_args", [(tm.float32, [])] * 2, lambda a, b: [a])
    out = tm.raw_ops.StatelessIf(cond=True, input=[np.float32(1.0)], Tout=[tm.float32],
                                 then_branch=then_fn, else_branch=then_fn)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="takes 2 argument"):
            sess.run(out)
    with pytest.raises(ValueError, match="`output_shapes` must be the same length"):
        tm.raw_ops.If(cond=True, input=[], Tout=[tm.float32], then_branch=then_fn,
                      else_branch=then_fn, output_shapes=[[], []])


def test_raw_while_with_resource_and_no_output_shapes(graph):
    spec = [(tm.int32, []), (tm.float32, [2])]
    cond_fn = make_function(graph, "c", spec, lambda i, v: [tm.less(i, 4)])
    body_fn = make_function(graph, "b", spec, lambda i, v: [i + 1, v + v])
    i, v = tm.raw_ops.StatelessWhile(input=[np.int32(0), np.ones(2, np.float32)],
                                     cond=cond_fn, body=body_fn)
    assert (i.shape, v.shape) == (tm.TensorShape([]), tm.TensorShape([2]))
    with tm.Session() as sess:
        iv, vv = sess.run([i, v])
    assert iv == 4 and vv.tolist() == [16.0, 16.0]


def test_a_resource_pred_cannot_be_a_boolean(graph):
    handle, _, _ = variable(0.0, "h")
    spec = [(tm.float32, [])]
    fn = make_function(graph, "f", spec, lambda a: [a])
    out = tm.raw_ops.If(cond=handle, input=[np.float32(1.0)], Tout=[tm.float32],
                        then_branch=fn, else_branch=fn)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="resource cannot be converted to a boolean"):
            sess.run(out)


# ----------------------------------------------------------------------------------------
# while_loop


def test_while_loop_layout_with_captures(graph):
    c = tm.constant(2.0, name="c")
    d = tm.constant(0.5, name="d")
    i0, v0 = tm.constant(0, name="i0"), tm.constant(1.0, name="v0")
    i, v = tm.while_loop(lambda i, v: tm.less(v, d + 50.0),
                         lambda i, v: (i + 1, v + v + c), [i0, v0])
    op = i.op.inputs[0].op
    assert op.type == "StatelessWhile" and op.name == "while"
    assert (i.name, v.name) == ("while/Identity:0", "while/Identity_1:0")
    assert list(op.inputs) == [i0, v0, d, c]  # loop vars, then cond's and body's captures
    assert [o.dtype for o in op.outputs] == [tm.int32, tm.float32, tm.float32, tm.float32]
    cond_fn, body_fn = op.get_attr("cond"), op.get_attr("body")
    assert cond_fn.name.startswith("while_cond_") and body_fn.name.startswith("while_body_")
    assert len(cond_fn.inputs) == len(body_fn.inputs) == 4
    assert body_fn.outputs[2:] == body_fn.inputs[2:]  # captures pass through unchanged
    with tm.Session() as sess:
        assert sess.run([i, v]) == [5, 94.0]  # 1 -> 4 -> 10 -> 22 -> 46 -> 94


def test_while_loop_single_value_forms(graph):
    x = tm.constant(0.0)
    body = lambda v: v + 1.0  # noqa: E731
    cond = lambda v: tm.less(v, 3.0)  # noqa: E731
    bare = tm.while_loop(cond, body, x)
    one = tm.while_loop(cond, body, [x])
    same = tm.while_loop(cond, lambda v: (v + 1.0,), (x,), return_same_structure=True)
    literal = tm.while_loop(cond, body, [0.0])
    assert isinstance(bare, tm.Tensor) and isinstance(one, tm.Tensor)
    assert isinstance(same, tuple) and len(same) == 1
    with tm.Session() as sess:
        assert sess.run([bare, one, same[0], literal]) == [3.0, 3.0, 3.0, 3.0]


def test_while_loop_structures(graph):
    State = collections.namedtuple("State", "step total")
    start = State(tm.constant(0), {"x": tm.constant(1.0), "y": [tm.constant(2.0)]})

    def body(step, total):
        return State(step + 1, {"x": total["x"] + total["y"][0], "y": [total["y"][0]]})

    out = tm.while_loop(lambda step, total: tm.less(step, 3), body, start)
    assert isinstance(out, State) and isinstance(out.total, dict)
    assert isinstance(out.total["y"], list)
    as_dict = tm.while_loop(lambda d: tm.less(d["n"], 4), lambda d: {"n": d["n"] + 1},
                            {"n": tm.constant(0)}, return_same_structure=True)
    with tm.Session() as sess:
        got = sess.run(out)
        assert sess.run(as_dict) == {"n": 4}
    assert got == State(3, {"x": 7.0, "y": [2.0]})


def test_while_body_literals_take_the_loop_var_dtype(graph):
    x = tm.constant(0.0, dtype=tm.float64)
    r = tm.while_loop(lambda v: tm.less(v, 1.0), lambda v: 5, [x])
    assert r.dtype == tm.float64
    with tm.Session() as sess:
        assert sess.run(r) == 5.0


def test_while_with_a_stateful_body_runs_it_every_iteration(graph):
    handle, init, read = variable(0.0, "acc")

    def body(i):
        with tm.control_dependencies([assign_add(handle, 2.0)]):
            return i + 1

    r = tm.while_loop(lambda i: tm.less(i, 5), body, [tm.constant(0)])
    assert r.op.inputs[0].op.type == "While"
    with tm.Session() as sess:
        sess.run(init)
        assert sess.run(r) == 5
        assert sess.run(read()) == 10.0


def test_cond_in_while_body(graph):
    limit = tm.constant(3, name="limit")

    def body(i, v):
        return i + 1, tm.cond(tm.less(i, limit), lambda: v + 1.0, lambda: v + 10.0)

    _, v = tm.while_loop(lambda i, v: tm.less(i, 5), body, [tm.constant(0), tm.constant(0.0)])
    op = v.op.inputs[0].op
    assert op.inputs[2] is limit  # captured by the cond inside the body
    with tm.Session() as sess:
        assert sess.run(v) == 23.0  # 1 + 1 + 1 + 10 + 10


def test_while_in_cond_branch_captures_from_the_root(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    step = tm.constant(2.0, name="step")

    def loop():
        return tm.while_loop(lambda v: tm.less(v, 7.0), lambda v: v + step, [tm.constant(0.0)])

    r = tm.cond(p, loop, lambda: step)
    branch = if_op(r).get_attr("then_branch")
    inner = [op for op in branch.get_operations() if op.type == "StatelessWhile"][0]
    assert inner.inputs[1].graph is branch and not [
        op for op in branch.get_operations() if op.type == "Identity"
    ]  # no output identities inside a function, as while_v2
    with tm.Session() as sess:
        assert sess.run(r, {p: True}) == 8.0
        assert sess.run(r, {p: False}) == 2.0


def test_kernel_error_inside_a_loop_body_names_the_inner_op(graph):
    def body(v):
        return v + tm.placeholder(tm.float32, [], name="inner_hole")

    r = tm.while_loop(lambda v: tm.less(v, 1.0), body, [tm.constant(0.0)])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(r)
    assert info.value.op.name == "inner_hole"
    assert "Placeholder 'inner_hole'" in str(info.value)


def test_maximum_iterations(graph):
    r = tm.while_loop(lambda v: tm.less(v, 100.0), lambda v: v + 1.0, [tm.constant(0.0)],
                      maximum_iterations=7)
    op = r.op.inputs[0].op
    assert [t.name for t in op.inputs] == ["while/loop_counter:0", "while/maximum_iterations:0",
                                           "Const:0"]
    assert op.get_attr("T") == (tm.int32, tm.int32, tm.float32)
    assert r.name == "while/Identity_2:0"
    limit = tm.placeholder(tm.int32, [], name="limit")
    fed = tm.while_loop(lambda v: tm.less(v, 5.0), lambda v: v + 1.0, [tm.constant(0.0)],
                        maximum_iterations=limit)
    with tm.Session() as sess:
        assert sess.run(r) == 7.0
        assert sess.run(fed, {limit: 2}) == 2.0
        assert sess.run(fed, {limit: 50}) == 5.0
    with pytest.raises(ValueError, match="'maximum_iterations' must be a scalar"):
        tm.while_loop(lambda v: tm.less(v, 1.0), lambda v: v, [0.0], maximum_iterations=[3])


def test_shape_change_without_invariant_is_tensorflows_value_error(graph):
    i0 = tm.constant(0, name="i0")
    x = tm.constant(0.0, name="x")
    with pytest.raises(ValueError) as info:
        tm.while_loop(lambda i, v: tm.less(i, 3), lambda i, v: (i + 1, v + [1.0, 1.0]), [i0, x])
    assert str(info.value) == (
        "Input tensor `x:0` enters the loop with shape (), but has shape (2,) after one "
        "iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
        "argument of tf.while_loop to specify a less-specific shape."
    )


def test_shape_invariants_relax_the_loop_var_shapes(graph):
    i0 = tm.constant(0, name="i0")
    x = tm.constant(0.0, name="x")
    i, v = tm.while_loop(lambda i, v: tm.less(i, 3), lambda i, v: (i + 1, v + [1.0, 1.0]), [i0, x],
                         shape_invariants=[i0.shape, tm.TensorShape(None)])
    op = v.op.inputs[0].op
    body = op.get_attr("body")
    assert body.inputs[1].shape == tm.TensorShape(None)
    assert v.shape == tm.TensorShape(None) and i.shape == tm.TensorShape([])
    assert op.get_attr("output_shapes") == (tm.TensorShape([]), tm.TensorShape(None))
    with tm.Session() as sess:
        assert sess.run(v).tolist() == [3.0, 3.0]


def test_shape_invariant_errors(graph):
    x = tm.constant([1.0, 2.0], name="x")
    cond = lambda v: tm.constant(False)  # noqa: E731
    with pytest.raises(ValueError, match="is not compatible with the initial shape"):
        tm.while_loop(cond, lambda v: v, [x], shape_invariants=[tm.TensorShape([3])])
    with pytest.raises(TypeError, match="'shape' must be one of TypeSpec, TensorShape or None"):
        tm.while_loop(cond, lambda v: v, x, shape_invariants="(2,)")
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tm.while_loop(cond, lambda v: v, [x], shape_invariants=[[None]])
    # A less specific shape after one iteration needs an invariant too.
    p = tm.placeholder(tm.float32, [None])
    with pytest.raises(ValueError, match="enters the loop with shape \\(2,\\), but has shape "
                       "\\(None,\\)"):
        tm.while_loop(cond, lambda v: p, [x])
    r = tm.while_loop(cond, lambda v: p, [x], shape_invariants=[tm.TensorShape([None])])
    assert r.shape == tm.TensorShape([None])


def test_while_loop_errors(graph):
    x = tm.constant(0.0, name="x")
    cond = lambda *a: tm.constant(False)  # noqa: E731
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tm.while_loop(3, lambda v: v, [x])
    with pytest.raises(TypeError, match="'body' must be callable"):
        tm.while_loop(cond, None, [x])
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
        tm.while_loop(cond, lambda v: v, [x], parallel_iterations=0)
    with pytest.raises(TypeError, match="Loop var x:0 enters the loop with type <dtype: "
                       "'float32'> but has type <dtype: 'int32'> after 1 iteration"):
        tm.while_loop(cond, lambda v: tm.constant(1), [x])
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        tm.while_loop(cond, lambda a, b: (a, b, b), [x, x])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tm.while_loop(cond, lambda a, b: a, [x, x])


def test_while_loop_names_and_options(graph):
    x = tm.constant(1.0)
    r = tm.while_loop(lambda v: tm.less(v, 2.0), lambda v: v + 1.0, [x], name="loop",
                      parallel_iterations=3, back_prop=False)
    assert r.op.type == "StopGradient" and r.op.inputs[0].name == "loop/Identity:0"
    op = r.op.inputs[0].op.inputs[0].op
    assert op.name == "loop" and op.get_attr("parallel_iterations") == 3
    assert op.get_attr("body").name.startswith("loop_body_")


def test_an_endless_loop_stops_at_the_run_deadline(graph):
    r = tm.while_loop(lambda v: True, lambda v: v + 1.0, [tm.constant(0.0)])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.DeadlineExceededError, match="while loop 'while'"):
            sess.run(r, options=tm.RunOptions(timeout_in_ms=50))


def test_traced_runs_give_the_same_results(graph):
    p = tm.placeholder(tm.bool, [], name="p")
    x = tm.constant(1.0)
    pair = tm.cond(p, lambda: (x + 1.0, x), lambda: (x, x))
    op = tm.cond(p, lambda: tm.no_op(), lambda: tm.no_op())
    loop = tm.while_loop(lambda i, v: tm.less(i, 3), lambda i, v: (i + 1, v * 2.0), [0, x])
    fetches = [pair, op, loop]
    meta = tm.RunMetadata()
    options = tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE)
    with tm.Session() as sess:
        plain = sess.run(fetches, {p: True})
        traced = sess.run(fetches, {p: True}, options=options, run_metadata=meta)
    assert plain == traced == [(2.0, 1.0), None, [3, 8.0]]
    names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
    assert {"cond", "cond_1", "while"} <= set(names)


def test_closing_the_session_cancels_a_running_loop(graph):
    handle, init, read = variable(0.0, "spins")

    def body(v):
        with tm.control_dependencies([assign_add(handle, 1.0)]):
            return v + 1.0

    r = tm.while_loop(lambda v: True, body, [tm.constant(0.0)])
    value = read()
    sess = tm.Session()
    sess.run(init)
    worker = run_in_thread(sess.run, r)
    wait_for(lambda: sess.run(value) >= 3, timeout=10, message="the loop to spin 3 times")
    sess.close()
    caught = worker.exception(10)
    assert not worker.is_alive()
    assert isinstance(caught, tm.errors.CancelledError)


# ----------------------------------------------------------------------------------------
# group, tuple


def test_group_is_a_noop_waiting_for_its_inputs(graph):
    handle, init, read = variable(0.0, "g")
    a = assign_add(handle, 1.0)
    b = assign_add(handle, 2.0)
    x = tm.constant(1.0)
    g = tm.group(a, [b, [x]])
    assert g.type == "NoOp" and g.name == "group_deps" and not g.inputs
    assert list(g.control_inputs) == [a, b, x.op]
    assert tm.group(name="nothing").name == "nothing"
    assert tm.group().name == "group_deps_1"
    with tm.Session() as sess:
        sess.run(init)
        assert sess.run(g) is None
        assert sess.run(read()) == 3.0


def test_group_across_devices_makes_one_noop_per_device(graph):
    with tm.device("/device:CPU:0"):
        a = tm.constant(1.0, name="a")
    b = tm.constant(2.0, name="b")
    g = tm.group(a, b, name="both")
    inner = list(g.control_inputs)
    assert g.name == "both" and [op.name for op in inner] == ["both/NoOp", "both/NoOp_1"]
    assert [list(op.control_inputs) for op in inner] == [[b.op], [a.op]]
    assert inner[1].device == "/device:CPU:0"


def test_group_errors(graph):
    with pytest.raises(TypeError, match="'inputs' should be zero or more \\(nested\\) Tensors"):
        tm.group(3)
    with pytest.raises(ValueError, match="Unknown keyword arguments: foo"):
        tm.group(tm.constant(1.0), foo=1)


def test_tuple_gates_every_tensor_on_all_of_them(graph):
    handle, init, read = variable(0.0, "t")
    bump = assign_add(handle, 1.0)
    x = tm.constant(1.0, name="x")
    y = tm.constant(2.0, name="y")
    out = tm.tuple([x, None, y, bump])
    assert out[1] is None
    assert [t.name for t in (out[0], out[2])] == ["tuple/control_dependency:0",
                                                  "tuple/control_dependency_1:0"]
    gate = out[0].op.control_inputs[0]
    assert gate.name == "tuple/group_deps" and set(gate.control_inputs) == {x.op, y.op, bump}
    assert out[3].type == "NoOp" and gate in out[3].control_inputs
    with tm.Session() as sess:
        sess.run(init)
        assert sess.run(out[0]) == 1.0
        assert sess.run(read()) == 1.0  # fetching one tensor ran the assignment too
    with pytest.raises(ValueError, match="'tensors' must have at least one Tensor"):
        tm.tuple([None])
    with pytest.raises(TypeError, match="'control_inputs' must only contain Operation or Tensor"):
        tm.tuple([x], control_inputs=[3])
    extra = tm.tuple([x], control_inputs=[bump], name="gated")
    assert extra[0].name == "gated/control_dependency:0"
    assert bump in extra[0].op.control_inputs[0].control_inputs


# ----------------------------------------------------------------------------------------
# TensorFlow's results (tests/goldens/control_flow.npz, tools/record_goldens_control_flow.py)


@pytest.fixture(scope="module")
def cf_golden():
    return load_golden("control_flow")


def test_golden_newton_sqrt(graph, cf_golden):
    a = tm.placeholder(tm.float32, [None], name="a")
    _, x = tm.while_loop(lambda i, x: i < 6, lambda i, x: (i + 1, (x + a / x) * 0.5),
                         [tm.constant(0), a])
    with tm.Session() as sess:
        got = sess.run(x, {a: cf_golden["newton_sqrt/a"]})
    np.testing.assert_array_equal(got, cf_golden["newton_sqrt/x"])


def test_golden_collatz_with_cond_in_body(graph, cf_golden):
    n0 = tm.placeholder(tm.int32, [], name="n0")

    def body(n, steps):
        n = tm.cond(tm.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    n, steps = tm.while_loop(lambda n, steps: tm.not_equal(n, 1), body, [n0, 0])
    with tm.Session() as sess:
        got = [sess.run([n, steps], {n0: s}) for s in cf_golden["collatz/n0"]]
    assert [g[0] for g in got] == cf_golden["collatz/n"].tolist()
    assert [g[1] for g in got] == cf_golden["collatz/steps"].tolist()


def test_golden_fibonacci_maximum_iterations(graph, cf_golden):
    limit = tm.placeholder(tm.int32, [], name="limit")
    a, b = tm.while_loop(lambda a, b: a < 1000000, lambda a, b: (b, a + b),
                         [tm.constant(0), tm.constant(1)], maximum_iterations=limit)
    with tm.Session() as sess:
        got = [sess.run([a, b], {limit: m}) for m in cf_golden["fibonacci/limit"]]
    assert [g[0] for g in got] == cf_golden["fibonacci/a"].tolist()
    assert [g[1] for g in got] == cf_golden["fibonacci/b"].tolist()


def test_golden_float32_accumulation_rounds_per_iteration(graph, cf_golden):
    step = tm.constant(0.1, tm.float32)
    _, total, prod = tm.while_loop(
        lambda i, t, p: i < 1000,
        lambda i, t, p: (i + 1, t + step, p * tm.constant(1.001, tm.float32)),
        [0, tm.constant(0.0), tm.constant(1.0)],
    )
    with tm.Session() as sess:
        t, p = sess.run([total, prod])
    assert t == cf_golden["accumulate/total"] and p == cf_golden["accumulate/product"]


def test_golden_nested_loops_capture_two_levels_out(graph, cf_golden):
    n = tm.placeholder(tm.int32, [], name="n")
    scale = tm.placeholder(tm.float32, [], name="scale")

    def outer_body(i, acc):
        def inner_body(j, inner):
            return j + 1, inner + tm.cast(i * j, tm.float32) + scale

        _, inner = tm.while_loop(lambda j, inner: j < i, inner_body, [0, 0.0])
        return i + 1, acc + inner

    _, total = tm.while_loop(lambda i, acc: i < n, outer_body, [0, 0.0])
    with tm.Session() as sess:
        got = [sess.run(total, {n: k, scale: s})
               for k, s in zip(cf_golden["nested/n"], cf_golden["nested/scale"])]
    np.testing.assert_array_equal(np.array(got, np.float32), cf_golden["nested/total"])
