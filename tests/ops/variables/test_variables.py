"""The Variable API (tfmini/ops/variables/variables.py), checked against tf.compat.v1 with resource
variables (TensorFlow 2.21): op names, collections, initializers, scopes, errors."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import hammer


def ops_since(graph, start):
    return [(op.name, op.type) for op in graph.get_operations()[start:]]


# ----------------------------------------------------------------------------------------
# Creation and naming


def test_ops_are_named_as_tensorflow_names_them(graph):
    w = tm.Variable(np.ones(3, np.float32), name="w")
    assert ops_since(graph, 0) == [
        ("w/Initializer/initial_value", "Const"),
        ("w", "VarHandleOp"),
        ("w/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp"),
        ("w/Assign", "AssignVariableOp"),
        ("w/Read/ReadVariableOp", "ReadVariableOp"),
    ]
    handle_op = graph.get_operation_by_name("w")
    assert handle_op.get_attr("shared_name") == "w"
    assert handle_op.get_attr("shape") == tm.TensorShape([3])
    assert handle_op.get_attr("dtype") == tm.float32
    assert w.initializer is graph.get_operation_by_name("w/Assign")
    assert w.initializer.get_attr("validate_shape") is False
    assert [i.name for i in w.initializer.inputs] == ["w:0", "w/Initializer/initial_value:0"]
    assert w._as_graph_element().name == "w/Read/ReadVariableOp:0"
    assert w.initial_value.name == "w/Initializer/initial_value:0"


def test_names_are_made_unique_and_follow_name_scopes(graph):
    assert tm.Variable(1.0, name="w").name == "w:0"
    assert tm.Variable(1.0, name="w").name == "w_1:0"
    assert tm.Variable(1.0).name == "Variable:0"
    assert tm.Variable(1.0).name == "Variable_1:0"
    with tm.name_scope("outer"):
        v = tm.Variable(1.0, name="v")
    assert v.name == "outer/v:0"
    assert v.initializer.name == "outer/v/Assign"


def test_tensor_and_callable_initial_values(graph):
    c = tm.constant([1.0, 2.0])
    u = tm.Variable(c, name="u")
    assert u.initial_value is c
    assert u.initializer.inputs[1] is c
    v = tm.Variable(lambda: tm.constant([0.0, 0.0], name="zeros"), name="v")
    assert v.initial_value.name == "v/Initializer/zeros:0"
    assert v.shape == tm.TensorShape([2])


def test_variable_creation_ignores_ambient_control_dependencies(graph):
    x = tm.constant(1.0)
    with tm.control_dependencies([x]):
        v = tm.Variable(2.0, name="v")
        y = tm.identity(v)
    created = [op for op in graph.get_operations() if op.name.startswith("v")]
    assert created and all(not op.control_inputs for op in created)
    assert y.op.inputs[0].op.control_inputs == (x.op,)  # the read made inside does wait


def test_variable_takes_the_ambient_device(graph):
    with tm.device("/device:CPU:0"):
        v = tm.Variable(1.0, name="v")
    assert v.device == "/device:CPU:0"
    assert v.op.device == "/device:CPU:0"


def test_dtype_conversion_of_the_initial_value(graph):
    assert tm.Variable(1).dtype == tm.int32
    assert tm.Variable(1, dtype=tm.float32).dtype == tm.float32
    assert tm.Variable(np.array([1.0])).dtype == tm.float64
    assert tm.Variable(lambda: 1, dtype=tm.float64).dtype == tm.float64
    with pytest.raises(TypeError):
        tm.Variable(1.5, dtype=tm.int32)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        tm.Variable(tm.constant(1), dtype=tm.float32)


def test_creation_errors(graph):
    with pytest.raises(ValueError, match="The `initial_value` arg to `tf.Variable` must be "
                                         "specified"):
        tm.Variable(name="v")
    with pytest.raises(ValueError, match="'a b' is not a valid root scope name"):
        tm.Variable(1.0, name="a b")
    with pytest.raises(ValueError, match=r"initial value's shape \(\(2,\)\) is not compatible "
                                         r"with the explicitly supplied `shape` argument"):
        tm.Variable([1.0, 2.0], shape=[3])
    with pytest.raises(ValueError, match="constraint"):
        tm.Variable(1.0, constraint=3)
    with pytest.raises(ValueError, match="collections argument to Variable constructor must be"):
        tm.Variable(1.0, collections="variables")


def test_properties_and_repr(graph):
    def clip(t):
        return t

    w = tm.Variable(np.zeros((2, 3), np.float32), name="w", constraint=clip)
    assert repr(w) == "<tm.Variable 'w:0' shape=(2, 3) dtype=float32>"
    assert w.shape == w.get_shape() == tm.TensorShape([2, 3])
    assert w.dtype == tm.float32 and w.handle.dtype == tm.resource
    assert w.op.type == "VarHandleOp" and w.graph is graph and w.device == ""
    assert w.trainable and w.constraint is clip
    assert w.synchronization is tm.VariableSynchronization.AUTO
    assert w.aggregation is tm.VariableAggregation.NONE
    with pytest.raises(TypeError):
        bool(w)
    with pytest.raises(TypeError):
        iter(w)
    assert (w == 1) is False  # identity, as tensors and variables in TF1 graph mode
    assert len({w, w}) == 1


def test_partial_shape_allows_assignments_of_other_lengths(graph):
    v = tm.Variable([1.0, 2.0], shape=[None], name="v")
    assert v.shape == tm.TensorShape([None])
    grow = v.assign([1.0, 2.0, 3.0])
    with tm.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(grow), [1, 2, 3])


# ----------------------------------------------------------------------------------------
# Initializing


def test_global_variables_initializer(graph):
    a = tm.Variable(1.0, name="a")
    b = tm.Variable([2, 3], name="b")
    init = tm.global_variables_initializer()
    assert init.type == "NoOp" and init.name == "init"
    assert set(init.control_inputs) == {a.initializer, b.initializer}
    assert tm.global_variables_initializer().name == "init_1"
    empty = tm.variables_initializer([])
    assert empty.type == "NoOp" and not empty.control_inputs
    with tm.Session() as sess:
        assert sess.run(init) is None
        va, vb = sess.run([a, b])
    assert va == 1.0 and vb.tolist() == [2, 3]


def test_variables_initializer_and_is_variable_initialized(graph):
    a = tm.Variable(1.0, name="a")
    b = tm.Variable(2.0, name="b")
    loc = tm.Variable(3.0, name="loc", collections=[tm.GraphKeys.LOCAL_VARIABLES])
    init_a = tm.variables_initializer([a], name="init_a")
    assert init_a.name == "init_a"
    is_a, is_b = tm.is_variable_initialized(a), tm.is_variable_initialized(b)
    assert is_a.op.type == "VarIsInitializedOp" and is_a.dtype == tm.bool
    with tm.Session() as sess:
        sess.run(init_a)
        assert sess.run([is_a, is_b]) == [True, False]
        sess.run(tm.local_variables_initializer())
        assert sess.run(loc) == 3.0


def test_reading_before_initialization_names_the_variable(graph):
    w = tm.Variable(np.zeros(3, np.float32), name="stale_counter")
    y = w + 1.0
    with tm.Session() as sess:
        for fetch in (w, y, w.read_value()):
            with pytest.raises(tm.errors.FailedPreconditionError,
                               match="Could not find variable stale_counter"):
                sess.run(fetch)
        with pytest.raises(tm.errors.NotFoundError):  # as TensorFlow: not a plain read
            sess.run(w.assign_add([1.0, 1.0, 1.0]))


def test_initialized_value(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    iv = w.initialized_value()
    set_w = w.assign([5.0, 6.0])
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(iv), [1, 2])
        sess.run(set_w)
        np.testing.assert_array_equal(sess.run(iv), [5, 6])


# ----------------------------------------------------------------------------------------
# Reading and writing


def test_value_and_read_value_build_fresh_reads(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    start = len(graph.get_operations())
    w.value()
    w.read_value()
    with tm.name_scope("s"):
        w.value()
    assert ops_since(graph, start) == [
        ("ReadVariableOp", "ReadVariableOp"),
        ("Read/ReadVariableOp", "ReadVariableOp"),
        ("Identity", "Identity"),
        ("s/ReadVariableOp", "ReadVariableOp"),
    ]


def test_assign_family_returns_the_updated_value(graph):
    w = tm.Variable([1.0, 2.0, 3.0], name="w")
    a = w.assign([2.0, 3.0, 4.0])
    assert repr(a) == "<tm.Variable 'AssignVariableOp' shape=(3,) dtype=float32>"
    assert a.op.type == "AssignVariableOp" and a.op.get_attr("validate_shape") is True
    b = w.assign_add([1.0, 1.0, 1.0])
    c = w.assign_sub([0.5, 0.5, 0.5], name="mysub")
    assert c.name == "mysub" and c.op.type == "AssignSubVariableOp"
    d = w.assign([0.0, 0.0, 0.0], read_value=False)
    assert isinstance(d, tm.Operation)
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(a), [2, 3, 4])
        np.testing.assert_array_equal(sess.run(b), [3, 4, 5])
        np.testing.assert_array_equal(sess.run(c), [2.5, 3.5, 4.5])
        assert sess.run(d) is None
        np.testing.assert_array_equal(sess.run(w), [0, 0, 0])
        np.testing.assert_array_equal(sess.run(w.assign([7.0] * 3).assign_add([1.0] * 3)),
                                      [8, 8, 8])
        np.testing.assert_array_equal(sess.run(tm.assign(w, [1.0, 1.0, 1.0])), [1, 1, 1])
        np.testing.assert_array_equal(sess.run(tm.assign_add(w, [1.0, 1.0, 1.0])), [2, 2, 2])
        np.testing.assert_array_equal(sess.run(tm.assign_sub(w, [2.0, 2.0, 2.0])), [0, 0, 0])


def test_integer_counter(graph):
    counter = tm.Variable(5, name="counter")
    inc = counter.assign_add(1)
    with tm.Session() as sess:
        sess.run(counter.initializer)
        assert sess.run(inc) == 6 and sess.run(inc) == 7
        assert sess.run(counter).dtype == np.int32


def test_assign_errors(graph):
    w = tm.Variable([1.0, 2.0], name="q")
    with pytest.raises(ValueError, match="Cannot assign value to variable ' q:0': Shape "
                                         "mismatch"):
        w.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32"):
        w.assign(tm.constant([1, 2]))
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        w.assign_add([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 1 and 0"):
        w.assign_sub(1.0)
    with pytest.raises(TypeError):
        tm.Variable([1, 2]).assign_add([0.5, 0.5])


def test_scatter_methods(graph):
    w = tm.Variable([1.0, 2.0, 3.0], name="w")
    delta = SimpleNamespace(indices=tm.constant([0, 0]), values=tm.constant([1.0, 2.0]))
    add = w.scatter_add(delta)
    assert add.op.type == "ResourceScatterAdd"
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(add), [4, 2, 3])
        np.testing.assert_array_equal(
            sess.run(w.scatter_sub(SimpleNamespace(indices=[2], values=[3.0]))), [4, 2, 0])
        np.testing.assert_array_equal(
            sess.run(w.scatter_update(SimpleNamespace(indices=[1], values=[9.0]))), [4, 9, 0])
        np.testing.assert_array_equal(sess.run(tm.scatter_add(w, [1], [1.0])), [4, 10, 0])
        np.testing.assert_array_equal(sess.run(tm.scatter_sub(w, [1], [1.0])), [4, 9, 0])
        np.testing.assert_array_equal(sess.run(tm.scatter_update(w, [0], [0.0])), [0, 9, 0])
        np.testing.assert_array_equal(
            sess.run(w.scatter_max(SimpleNamespace(indices=[0, 1], values=[5.0, 5.0]))),
            [5, 9, 0])
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        w.scatter_add(5)


def test_sparse_read(graph):
    w = tm.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    start = len(graph.get_operations())
    rows = w.sparse_read([2, 0])
    assert ops_since(graph, start) == [("Gather/indices", "Const"), ("Gather", "ResourceGather")]
    assert rows.shape == tm.TensorShape([2, 2])
    named = w.sparse_read(tm.constant([1]), name="sr")
    assert named.name == "sr:0"
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(rows), [[4, 5], [0, 1]])
        np.testing.assert_array_equal(sess.run(named), [[2, 3]])


def test_load_and_eval(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    with tm.Session() as sess:
        sess.run(w.initializer)
        w.load([7.0, 8.0], sess)
        np.testing.assert_array_equal(w.eval(sess), [7, 8])
        with sess.as_default():
            w.load([3.0, 4.0])
            np.testing.assert_array_equal(w.eval(), [3, 4])
    with pytest.raises(ValueError, match="Either session argument should be provided"):
        w.load([1.0, 1.0])


# ----------------------------------------------------------------------------------------
# Variables wherever tensors go


def test_variable_as_op_input(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    with tm.name_scope("outer"):
        y = tm.identity(w)
    assert y.op.inputs[0].op.type == "ReadVariableOp"
    assert y.op.inputs[0].op.name.startswith("outer/")
    start = len(graph.get_operations())
    read = tm.raw_ops.ReadVariableOp(resource=w, dtype=tm.float32)  # a resource input: the handle
    assert read.op.inputs[0] is w.handle
    assert ops_since(graph, start) == [("ReadVariableOp", "ReadVariableOp")]  # no stray read
    assert tm.convert_to_tensor(w, dtype=tm.resource) is w.handle
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type "
                                         "'int32' for variable of type 'float32'"):
        tm.convert_to_tensor(w, dtype=tm.int32)
    with tm.Session() as sess:
        sess.run(w.initializer)
        assert sess.run([y, read])[1].tolist() == [1.0, 2.0]


BINARY = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
          "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
          "__rpow__", "__lt__", "__le__", "__gt__", "__ge__"]


@pytest.mark.parametrize("dunder", BINARY)
def test_binary_operators_read_the_variable(graph, dunder):
    w = tm.Variable(np.array([1.0, 2.0, 4.0]), name="w")
    other = np.array([2.0, 2.0, 2.0])
    expr = getattr(w, dunder)(other)
    reads = [i.op for i in expr.op.inputs if i.op.type == "ReadVariableOp"]
    assert reads and reads[0].inputs[0] is w.handle
    with tm.Session() as sess:
        sess.run(w.initializer)
        got = sess.run(expr)
    want = getattr(np.array([1.0, 2.0, 4.0]), dunder)(other)
    np.testing.assert_allclose(got, want)


def test_unary_matmul_and_python_scalars(graph):
    m = tm.Variable(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32), name="m")
    with tm.Session() as sess:
        sess.run(m.initializer)
        neg, ab, mm, scaled, rscaled = sess.run([-m, abs(m), m @ m, m * 2.0, 2.0 * m])
    a = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_allclose(neg, -a)
    np.testing.assert_allclose(ab, abs(a))
    np.testing.assert_allclose(mm, a @ a)
    np.testing.assert_allclose(scaled, a * 2)
    np.testing.assert_allclose(rscaled, 2 * a)


def test_indexing(graph):
    w = tm.Variable(np.arange(6.0).reshape(2, 3), name="w")
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w[1]), [3, 4, 5])


def test_reads_inside_control_dependencies_wait_for_them(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    with tm.control_dependencies([w.assign([7.0, 7.0])]):
        after = tm.identity(w)
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(after), [7, 7])


# ----------------------------------------------------------------------------------------
# Fetching and feeding


def test_fetching_variables(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    v = tm.Variable(3, name="v")
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        out = sess.run({"w": w, "both": [w, v]})
        np.testing.assert_array_equal(out["w"], [1, 2])
        assert out["both"][1] == 3
        got = sess.run(w)
        got[0] = 100.0  # the caller's copy
        np.testing.assert_array_equal(sess.run(w), [1, 2])


def test_feeding_the_value_assigned(graph):
    w = tm.Variable(np.zeros(2, np.float32), name="w")
    x = tm.placeholder(tm.float32, [2])
    set_w = w.assign(x)
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(set_w, {x: [4.0, 5.0]}), [4, 5])
        # Feeding the graph element replaces what fetching the variable returns, as in TF.
        fed = sess.run(w, {w._as_graph_element(): [9.0, 9.0]})
        np.testing.assert_array_equal(fed, [9, 9])
        np.testing.assert_array_equal(sess.run(w), [4, 5])


def test_feeding_a_variable_feeds_its_graph_element(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w, {w: [5.0, 5.0]}), [5, 5])


# ----------------------------------------------------------------------------------------
# Threads and failures


def test_eight_threads_assign_add_in_one_session(graph):
    w = tm.Variable(np.zeros(3), name="w")  # float64: every partial sum is exact
    inc = w.assign_add(np.array([0.5, 0.25, 1.0]), read_value=False)
    with tm.Session() as sess:
        sess.run(w.initializer)
        errors_seen = hammer(lambda: sess.run(inc), threads=8, times=200)
        assert not errors_seen
        np.testing.assert_array_equal(sess.run(w), [800.0, 400.0, 1600.0])


def test_failed_run_leaves_the_variable_as_it_was(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    assign = w.assign([9.0, 9.0], read_value=False)
    with tm.control_dependencies([assign]):
        step = w.assign_add([1.0, 1.0], read_value=False)
    with tm.control_dependencies([step]):
        unfed = tm.placeholder(tm.float32, [], name="unfed")
    with tm.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tm.errors.InvalidArgumentError, match="unfed"):
            sess.run(unfed)
        np.testing.assert_array_equal(sess.run(w), [1, 2])
        sess.run(step)  # the session is still usable
        np.testing.assert_array_equal(sess.run(w), [10, 10])


def test_failed_initialization_leaves_the_variable_uninitialized(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    with tm.control_dependencies([tm.global_variables_initializer()]):
        unfed = tm.placeholder(tm.float32, [])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(unfed)
        assert not sess.run(tm.is_variable_initialized(w))


# ----------------------------------------------------------------------------------------
# Collections


def test_graph_keys():
    assert tm.GraphKeys.GLOBAL_VARIABLES == tm.GraphKeys.VARIABLES == "variables"
    assert tm.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"
    assert tm.GraphKeys.LOCAL_VARIABLES == "local_variables"
    assert tm.GraphKeys.MODEL_VARIABLES == "model_variables"
    assert tm.GraphKeys.GLOBAL_STEP == "global_step"
    assert tm.GraphKeys.TRAIN_OP == "train_op"
    assert tm.GraphKeys.UPDATE_OPS == "update_ops"
    assert tm.GraphKeys.TRAINABLE_RESOURCE_VARIABLES == "trainable_resource_variables"
    assert tm.GraphKeys.TABLE_INITIALIZERS == "table_initializer"


def test_variable_collections(graph):
    a = tm.Variable(1.0, name="a")
    with tm.name_scope("layer"):
        b = tm.Variable(1.0, name="b", trainable=False)
    c = tm.Variable(1.0, name="c", collections=[tm.GraphKeys.LOCAL_VARIABLES])
    d = tm.Variable(1.0, name="d", collections=[tm.GraphKeys.MODEL_VARIABLES,
                                                 tm.GraphKeys.GLOBAL_VARIABLES])
    assert tm.global_variables() == [a, b, d]
    assert tm.trainable_variables() == [a, c, d]
    assert tm.local_variables() == [c]
    assert tm.model_variables() == [d]
    assert tm.global_variables(scope="layer") == [b]
    assert tm.get_collection(tm.GraphKeys.TRAINABLE_RESOURCE_VARIABLES) == []  # as TF 2.21


def test_collection_functions_use_the_default_graph(graph):
    tm.add_to_collection("things", 1)
    tm.add_to_collections(["things", "more"], 2)
    assert tm.get_collection("things") == [1, 2]
    ref = tm.get_collection_ref("more")
    ref.append(3)
    assert graph.get_collection("more") == [2, 3]
    other = tm.Graph()
    with other.as_default():
        assert tm.get_collection("things") == []


# ----------------------------------------------------------------------------------------
# get_variable and variable_scope


def test_get_variable_names_and_reuse_errors(graph):
    a = tm.get_variable("stale_counter", shape=[3], initializer=tm.zeros_initializer())
    assert a.name == "stale_counter:0"
    assert ops_since(graph, 0)[0] == ("stale_counter/Initializer/zeros", "Const")
    with pytest.raises(ValueError) as info:
        tm.get_variable("stale_counter", shape=[3])
    assert str(info.value) == (
        "Variable stale_counter already exists, disallowed. Did you mean to set reuse=True or "
        "reuse=tf.AUTO_REUSE in VarScope?")


def test_variable_scopes(graph):
    with tm.variable_scope("foo") as vs:
        assert vs.name == "foo" and tm.get_variable_scope() is vs
        w = tm.get_variable("w", [3])
        with tm.variable_scope("bar"):
            x = tm.get_variable("x", [1])
    assert (w.name, x.name) == ("foo/w:0", "foo/bar/x:0")
    assert tm.get_variable_scope().name == ""
    with tm.variable_scope("foo", reuse=True):
        assert tm.get_variable("w", [3]) is w
        with tm.variable_scope("bar"):  # reuse is inherited
            assert tm.get_variable("x") is x
        with pytest.raises(ValueError, match="Variable foo/zz does not exist, or was not created "
                                             "with tf.get_variable"):
            tm.get_variable("zz", [3])
        with pytest.raises(ValueError, match=r"Trying to share variable foo/w, but specified "
                                             r"shape \(4,\) and found shape \(3,\)."):
            tm.get_variable("w", [4])
        with pytest.raises(ValueError, match="Trying to share variable foo/w, but specified "
                                             "dtype int32 and found dtype float32."):
            tm.get_variable("w", [3], dtype=tm.int32)
    with tm.variable_scope("foo", reuse=tm.AUTO_REUSE):
        assert tm.get_variable("w") is w
        assert tm.get_variable("q", [2]).name == "foo/q:0"
    with tm.variable_scope(vs, reuse=True):
        assert tm.get_variable("w") is w


def test_variable_scope_opens_a_unique_name_scope(graph):
    with tm.variable_scope("foo"):
        c1 = tm.constant(1.0)
    with tm.variable_scope("foo"):
        c2 = tm.constant(1.0)
        v = tm.get_variable("v", [1])
    assert (c1.name, c2.name, v.name) == ("foo/Const:0", "foo_1/Const:0", "foo/v:0")
    with tm.variable_scope(None, default_name="dense"):
        d1 = tm.get_variable("k", [1])
    with tm.variable_scope(None, default_name="dense"):
        d2 = tm.get_variable("k", [1])
    assert (d1.name, d2.name) == ("dense/k:0", "dense_1/k:0")
    with pytest.raises(TypeError):
        tm.variable_scope(None)


def test_reuse_variables_and_scope_defaults(graph):
    with tm.variable_scope("s", initializer=tm.ones_initializer(), dtype=tm.float64) as vs:
        v = tm.get_variable("v", [2])
        vs.reuse_variables()
        assert tm.get_variable("v", [2]) is v
    assert v.dtype == tm.float64
    with tm.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(v), [1, 1])


def test_get_variable_initializers(graph):
    b = tm.get_variable("b", shape=[2], initializer=tm.ones_initializer(), dtype=tm.int32)
    c = tm.get_variable("c", initializer=tm.constant([1.0, 2.0]))
    c2 = tm.get_variable("c2", initializer=np.array([1.0, 2.0]))
    d = tm.get_variable("d", shape=[2], initializer=tm.constant_initializer(3.0))
    e = tm.get_variable("e", shape=[2, 2], initializer=tm.zeros_initializer)  # a class works too
    n = tm.get_variable("n", shape=[3], dtype=tm.int64)  # ints default to zeros
    g = tm.get_variable("g", shape=[4, 6])  # floats default to Glorot uniform
    assert b.initial_value.name == "b/Initializer/ones:0"
    assert d.initial_value.name == "d/Initializer/Const:0"
    assert g.initial_value.name == "g/Initializer/random_uniform:0"
    assert c2.dtype == tm.float64
    with tm.Session() as sess:
        sess.run(tm.global_variables_initializer())
        vb, vc, vd, ve, vn, vg = sess.run([b, c, d, e, n, g])
    assert vb.tolist() == [1, 1] and vb.dtype == np.int32
    assert vc.tolist() == [1.0, 2.0] and vd.tolist() == [3.0, 3.0]
    assert ve.tolist() == [[0, 0], [0, 0]] and vn.tolist() == [0, 0, 0]
    limit = np.sqrt(6.0 / (4 + 6))
    assert vg.shape == (4, 6) and np.all(np.abs(vg) <= limit) and np.std(vg) > 0


def test_get_variable_errors(graph):
    with pytest.raises(ValueError, match="Variable e did not get an initializer, so its `shape` "
                                         "argument must be specified."):
        tm.get_variable("e")
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        tm.get_variable("e", shape=[3], initializer=tm.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="must be fully defined"):
        tm.get_variable("e", shape=[None, 2])
    with pytest.raises(ValueError, match="An initializer for variable s of string is required"):
        tm.get_variable("s", shape=[1], dtype=tm.string)


def test_get_variable_collections_regularizer_and_custom_getter(graph):
    loc = tm.get_variable("loc", [1], collections=[tm.GraphKeys.LOCAL_VARIABLES],
                          trainable=False)
    assert tm.local_variables() == [loc] and loc not in tm.trainable_variables()
    reg = tm.get_variable("r", [2], regularizer=lambda v: tm.identity(v))
    assert len(tm.get_collection(tm.GraphKeys.REGULARIZATION_LOSSES)) == 1
    assert reg in tm.global_variables()
    calls = []

    def getter(next_getter, name, *args, **kwargs):
        calls.append(name)
        return next_getter(name, *args, **kwargs)

    with tm.variable_scope("cg", custom_getter=getter):
        v = tm.get_variable("v", [1])
    assert calls == ["cg/v"] and v.name == "cg/v:0"


# ----------------------------------------------------------------------------------------
# Initializers


def _value(init, shape, dtype=None):
    g = tm.Graph()
    with g.as_default():
        out = init(shape, dtype=dtype) if dtype is not None else init(shape)
        with tm.Session() as sess:
            return out, sess.run(out)


def test_constant_initializers():
    out, v = _value(tm.zeros_initializer(), [2, 3])
    assert out.op.name == "zeros" and v.dtype == np.float32 and not v.any()
    out, v = _value(tm.ones_initializer(dtype=tm.int64), [2])
    assert out.op.name == "ones" and v.tolist() == [1, 1] and v.dtype == np.int64
    _, v = _value(tm.constant_initializer(7), [3], tm.int32)
    assert v.tolist() == [7, 7, 7] and v.dtype == np.int32
    _, v = _value(tm.constant_initializer([1.0, 2.0, 3.0, 4.0]), [2, 2])
    assert v.tolist() == [[1, 2], [3, 4]]
    assert tm.constant_initializer(2.0).get_config()["value"] == 2.0


def test_random_initializers_with_a_seed_are_reproducible():
    for init in (tm.random_normal_initializer(seed=3), tm.random_uniform_initializer(seed=3),
                 tm.truncated_normal_initializer(seed=3), tm.glorot_uniform_initializer(seed=3),
                 tm.glorot_normal_initializer(seed=3)):
        _, a = _value(init, [20, 30])
        _, b = _value(init, [20, 30])
        np.testing.assert_array_equal(a, b)
        assert a.dtype == np.float32 and a.shape == (20, 30)
    _, v = _value(tm.truncated_normal_initializer(mean=1.0, stddev=0.5, seed=1), [1000])
    assert np.all(np.abs(v - 1.0) <= 1.0)
    _, v = _value(tm.random_uniform_initializer(-2.0, 3.0, seed=1), [1000])
    assert v.min() >= -2.0 and v.max() < 3.0
    _, v = _value(tm.random_normal_initializer(mean=5.0, stddev=0.1, seed=1), [4000])
    assert abs(v.mean() - 5.0) < 0.01
    limit = np.sqrt(6.0 / (20 + 30))
    _, v = _value(tm.glorot_uniform_initializer(seed=2), [20, 30])
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.8 * limit


def test_variance_scaling_fans():
    _, v = _value(tm.variance_scaling_initializer(2.0, "fan_in", "uniform", seed=0), [3, 3, 8, 4])
    limit = np.sqrt(3.0 * 2.0 / (3 * 3 * 8))
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.8 * limit
    with pytest.raises(ValueError, match="Invalid `mode` argument"):
        tm.variance_scaling_initializer(mode="fan_what")
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        _value(tm.random_uniform_initializer(), [2], tm.int32)


# ----------------------------------------------------------------------------------------
# Round trip through the variable_def form


def test_to_proto_from_proto(graph):
    w = tm.Variable([1.0, 2.0], name="w")
    proto = w.to_proto()
    assert proto["variable_name"] == "w:0" and proto["initializer_name"] == "w/Assign"
    again = tm.Variable.from_proto(proto)
    assert again.handle is w.handle and again.initializer is w.initializer
    assert again.dtype == tm.float32 and again.shape == tm.TensorShape([2])
    with tm.Session() as sess:
        sess.run(again.initializer)
        np.testing.assert_array_equal(sess.run(again), [1, 2])
