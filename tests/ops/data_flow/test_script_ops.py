"""tm.py_func / numpy_function / py_function: op types, shapes, gradients (overrides),
threads and serialization. (Values and error classes against TensorFlow are in
test_functional_goldens.py.)"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm


def test_op_types_follow_the_stateful_flag_and_shapes_are_unknown(graph):
    x = tm.constant([1.0, 2.0])
    a = tm.py_func(lambda v: v, [x], tm.float32)
    b = tm.py_func(lambda v: v, [x], tm.float32, stateful=False)
    c = tm.numpy_function(lambda v: v, [x], tm.float32)
    d, e = tm.py_function(lambda v: (v, v), [x], [tm.float32, tm.float32])
    assert [t.op.type for t in (a, b, c, d)] == ["PyFunc", "PyFuncStateless", "PyFunc",
                                                 "EagerPyFunc"]
    assert a.op.op_def.is_stateful and not b.op.op_def.is_stateful
    assert all(t.shape.rank is None for t in (a, b, c, d, e))
    assert list(a.op.get_attr("Tin")) == [tm.float32]
    assert list(a.op.get_attr("Tout")) == [tm.float32]
    assert a.op.get_attr("token").startswith("pyfunc_")


def test_py_func_has_no_gradient_unless_overridden(graph):
    x = tm.constant([1.0, 2.0, 3.0])
    y = tm.py_func(lambda v: v[::-1].copy(), [x], tm.float32)
    assert tm.gradients(tm.reduce_sum(y), x) == [None]

    @tm.RegisterGradient("ScriptOpsTestReverseGrad")
    def _reverse_grad(op, dy):
        return [tm.gather(dy, [2, 1, 0])]

    with graph.gradient_override_map({"PyFunc": "ScriptOpsTestReverseGrad"}):
        z = tm.py_func(lambda v: v[::-1].copy(), [x], tm.float32)
    z.set_shape([3])
    (gx,) = tm.gradients(tm.reduce_sum(z * tm.constant([1.0, 2.0, 3.0])), x)
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx), [3.0, 2.0, 1.0])


def test_an_override_naming_no_gradient_fails_clearly(graph):
    x = tm.constant(1.0)
    with graph.gradient_override_map({"PyFunc": "ScriptOpsTestMissing"}):
        y = tm.py_func(lambda v: v, [x], tm.float32)
    with pytest.raises(LookupError, match="no entry for: ScriptOpsTestMissing"):
        tm.gradients(y, x)


def test_runs_in_the_thread_of_the_step_and_sees_numpy(graph):
    seen = []

    def record(v, s):
        seen.append((threading.get_ident(), type(v), s.tolist()))
        return v

    out = tm.py_func(record, [tm.constant([1, 2]), tm.constant(["a", "bc"])], tm.int32)
    with tm.Session() as sess:
        sess.run(out)
    assert seen == [(threading.get_ident(), np.ndarray, [b"a", b"bc"])]


def test_py_function_inputs_offer_numpy(graph):
    out = tm.py_function(lambda v: v.numpy() * 2, [tm.constant([1.0, 2.0])], tm.float32)
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [2.0, 4.0])


def test_errors_name_the_op_and_keep_the_exception(graph):
    def boom(v):
        raise ValueError("bad input 7")

    out = tm.py_func(boom, [tm.constant(1.0)], tm.float32, name="my_func")
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="my_func.*bad input 7") as info:
            sess.run(out)
        causes = []
        err = info.value
        while err is not None:
            causes.append(type(err))
            err = err.__cause__
        assert ValueError in causes
        assert sess.run(tm.constant(2.0)) == 2.0  # the session is still usable


def test_a_graph_def_keeps_only_the_token(graph):
    tm.py_func(lambda v: v + 1.0, [tm.constant(1.0)], tm.float32, name="f")
    graph_def = graph.as_graph_def()
    node = next(n for n in graph_def["node"] if n["name"] == "f")
    assert node["op"] == "PyFunc"
    token = graph.get_operation_by_name("f").get_attr("token")
    g2 = tm.Graph()
    with g2.as_default():
        tm.import_graph_def(graph_def, name="")
        out = g2.get_tensor_by_name("f:0")
        from tfmini.ops.data_flow import script_ops

        script_ops.registry._funcs.pop(token)  # as in a process that never built it
        with tm.Session() as sess:
            with pytest.raises(tm.errors.InvalidArgumentError,
                               match="cannot be serialized with the graph"):
                sess.run(out)


def test_func_must_be_callable(graph):
    with pytest.raises(TypeError, match="Expected func to be callable"):
        tm.py_func(3, [], tm.float32)
