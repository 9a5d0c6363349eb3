"""The one op builder: inference, conversion, checking, naming, placement, failure cleanup."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry
from tfmini.core.builder import build_op, group_outputs, static_value
from tfmini.core.scope import current_scope


def _op_names(g):
    return [op.name for op in g.get_operations()]


# -- type attrs and literals --------------------------------------------------------------


def test_type_attr_is_inferred_from_the_first_tensor(graph):
    x = tm.placeholder(tm.float64)
    s = tm.raw_ops.Add(x=1, y=x)  # the literal comes first but the tensor fixes T
    assert s.dtype is tm.float64
    assert s.op.get_attr("T") is tm.float64
    assert s.op.inputs[0].dtype is tm.float64


def test_literals_use_the_inferred_dtype(graph):
    x = tm.placeholder(tm.float32)
    assert (x + 1).dtype is tm.float32
    assert (1 + x).dtype is tm.float32
    i = tm.placeholder(tm.int64)
    assert (i + 1).dtype is tm.int64


def test_literals_alone_use_tensorflow_defaults(graph):
    assert tm.raw_ops.Add(x=1.0, y=2).dtype is tm.float32
    assert tm.raw_ops.Add(x=1, y=2).dtype is tm.int32


def test_literal_that_cannot_take_the_dtype_is_a_type_error(graph):
    i = tm.placeholder(tm.int32)
    with pytest.raises(TypeError) as info:
        i + 1.5
    assert "Expected int32 passed to parameter 'y' of op 'AddV2', got 1.5 of type 'float'" in (
        str(info.value)
    )
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op 'Add'"):
        tm.raw_ops.Add(x=1, y=2.5)


def test_mismatched_input_dtypes(graph):
    f = tm.placeholder(tm.float32, name="f")
    i = tm.placeholder(tm.int32, name="i")
    with pytest.raises(TypeError) as info:
        tm.raw_ops.Add(x=f, y=i)
    assert str(info.value) == (
        "Input 'y' of 'Add' Op has type int32 that does not match type float32 of argument 'x'."
    )
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type int32"):
        f + i


def test_explicit_type_attr_must_match_the_inputs(graph):
    f = tm.placeholder(tm.float32)
    with pytest.raises(TypeError, match="Input 'x' of 'Add' Op has type float32 that does not "
                                        "match the attr T=int32"):
        tm.raw_ops.Add(x=f, y=f, T=tm.int32)
    assert tm.raw_ops.Add(x=1, y=2, T=tm.float64).dtype is tm.float64


def test_type_not_allowed_by_the_attr(graph):
    s = tm.constant("a")
    with pytest.raises(TypeError) as info:
        tm.raw_ops.AddV2(x=s, y=s)  # (Add, as in TF, concatenates strings)
    assert "Value passed to parameter 'x' has DataType string not in list of allowed values" in (
        str(info.value)
    )
    assert "float32" in str(info.value)


def test_fixed_dtype_argument(graph, register):
    register("BldTestFloatOnly", inputs=["x: float"], outputs=["y: float"])(lambda x: x)
    i = tm.placeholder(tm.int32)
    with pytest.raises(TypeError, match="Input 'x' of 'BldTestFloatOnly' Op has type int32 that "
                                        "does not match expected type of float32"):
        tm.raw_ops.BldTestFloatOnly(x=i)
    assert tm.raw_ops.BldTestFloatOnly(x=3).dtype is tm.float32  # literals take the dtype


# -- inputs and attrs ---------------------------------------------------------------------


def test_wrong_number_of_inputs(graph):
    a = tm.constant(1.0)
    with pytest.raises(TypeError, match=r"Add takes 2 input\(s\) \(x, y\), got 1"):
        build_op(current_scope(), "Add", [a])
    with pytest.raises(TypeError, match="Add missing required input"):
        tm.raw_ops.Add(x=a)
    with pytest.raises(TypeError, match=r"Add takes 2 input\(s\)"):
        tm.ops.Add.create(tm.Scope(graph), a, a, a)


def test_unknown_attr(graph):
    a = tm.constant(1.0)
    with pytest.raises(TypeError, match=r"Add got an unexpected attr 'foo' \(its attrs: T\)"):
        tm.raw_ops.Add(x=a, y=a, foo=1)


def test_missing_required_attr(graph):
    with pytest.raises(TypeError, match="No argument found for attr dtype for Placeholder"):
        tm.raw_ops.Placeholder()


def test_attr_value_checks(graph, register):
    register(
        "BldTestAttrs",
        inputs=["x: T"],
        outputs=["y: T"],
        attrs=["T: type", "fmt: {'NHWC', 'NCHW'} = 'NHWC'", "k: int >= 2 = 2",
               "ks: list(int) >= 1 = [1]", "rate: float = 0.5"],
    )(lambda x: x)
    x = tm.placeholder(tm.float32)
    op = tm.raw_ops.BldTestAttrs(x=x, fmt="NCHW", k=np.int64(3), ks=[4, 5]).op
    assert (op.get_attr("fmt"), op.get_attr("k"), op.get_attr("ks")) == ("NCHW", 3, (4, 5))
    assert type(op.get_attr("k")) is int
    assert op.get_attr("rate") == 0.5
    with pytest.raises(ValueError) as info:
        tm.raw_ops.BldTestAttrs(x=x, fmt="NDHWC")
    assert str(info.value) == (
        "Attr 'fmt' of 'BldTestAttrs' Op passed string 'NDHWC' not in: \"NHWC\", \"NCHW\"."
    )
    with pytest.raises(ValueError, match="Attr 'k' of 'BldTestAttrs' Op passed 1 less than "
                                         "minimum 2."):
        tm.raw_ops.BldTestAttrs(x=x, k=1)
    with pytest.raises(ValueError, match="passed list of length 0 less than minimum 1"):
        tm.raw_ops.BldTestAttrs(x=x, ks=[])
    with pytest.raises(TypeError, match="Attr 'k' of 'BldTestAttrs' Op expected int, got 2.5"):
        tm.raw_ops.BldTestAttrs(x=x, k=2.5)
    with pytest.raises(TypeError, match="expected int"):
        tm.raw_ops.BldTestAttrs(x=x, k=True)  # a bool is not an int attr
    with pytest.raises(TypeError, match="expected string"):
        tm.raw_ops.BldTestAttrs(x=x, fmt=3)
    with pytest.raises(TypeError, match="expected list"):
        tm.raw_ops.BldTestAttrs(x=x, ks=3)


@pytest.fixture
def add_n(register):
    def kernel(inputs):
        return np.sum(inputs, axis=0).astype(inputs[0].dtype)

    register("BldTestAddN", inputs=["inputs: N * T"], outputs=["sum: T"],
             attrs=["T: type", "N: int >= 1"])(kernel)


def test_list_inputs_infer_n_and_t(graph, add_n):
    x = tm.placeholder(tm.float32, name="x")
    s = tm.raw_ops.BldTestAddN(inputs=[x, 1, 2.5])  # literals take T from the tensor
    assert s.op.get_attr("N") == 3 and s.op.get_attr("T") is tm.float32
    assert [i.dtype for i in s.op.inputs] == [tm.float32] * 3
    with tm.Session(graph=graph) as sess:
        assert sess.run(s, {x: 1.0}) == np.float32(4.5)


def test_list_input_checks(graph, add_n):
    x = tm.placeholder(tm.float32)
    i = tm.placeholder(tm.int32)
    with pytest.raises(ValueError, match="List argument 'inputs' to 'BldTestAddN' Op with length "
                                         "0 shorter than minimum length 1."):
        tm.raw_ops.BldTestAddN(inputs=[])
    with pytest.raises(TypeError, match="Expected list for 'inputs' argument"):
        tm.raw_ops.BldTestAddN(inputs=x)
    with pytest.raises(TypeError, match="Input 'inputs' of 'BldTestAddN' Op has type int32"):
        tm.raw_ops.BldTestAddN(inputs=[x, i])
    with pytest.raises(ValueError, match="with length 2 must match length 3"):
        tm.raw_ops.BldTestAddN(inputs=[x, x], N=3)


def test_type_list_inputs(graph):
    a = tm.constant(1.0)
    b = tm.constant(1)
    outs = tm.raw_ops.IdentityN(input=[a, b, "s"])
    assert [o.dtype for o in outs] == [tm.float32, tm.int32, tm.string]
    assert outs[0].op.get_attr("T") == (tm.float32, tm.int32, tm.string)
    # The inferred list(type) attr is checked like an explicit one: "T: list(type) >= 1".
    with pytest.raises(ValueError, match="Attr 'T' of 'IdentityN' Op passed list of length 0 "
                                         "less than minimum 1."):
        tm.raw_ops.IdentityN(input=[])


def test_group_outputs(graph, register):
    register("BldTestSplit", inputs=["x: T"], outputs=["first: T", "rest: N * T"],
             attrs=["T: type", "N: int"])(None)
    op = tm.raw_ops.BldTestSplit(x=1.0, N=2).first.op
    assert group_outputs(op) == [op.outputs[0], [op.outputs[1], op.outputs[2]]]


# -- shape functions ----------------------------------------------------------------------


def _needs_matrix(ic):
    shape = ic.input_shape("x")
    if shape.rank is not None and shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {shape.rank}")
    return [shape]


@pytest.fixture
def matrix_op(register):
    register("BldTestMatrix", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
             shape_fn=_needs_matrix)(lambda x: x)


def test_shape_error_is_a_value_error_at_the_users_line(graph, matrix_op):
    x = tm.placeholder(tm.float32, shape=[3], name="x")
    with pytest.raises(ValueError) as info:
        tm.raw_ops.BldTestMatrix(x=x, name="mm")
    line = sys._getframe().f_lineno - 1
    msg = str(info.value)
    assert msg.startswith("Shape must be rank 2 but is rank 1")
    assert "{{node mm}} = BldTestMatrix" in msg
    assert "with input shapes: [3]" in msg
    assert f"(defined at {os.path.basename(__file__)}:{line})" in msg
    assert isinstance(info.value.__cause__, ValueError)
    assert str(info.value.__cause__) == "Shape must be rank 2 but is rank 1"


def test_shape_function_result_is_used(graph, matrix_op):
    x = tm.placeholder(tm.float32, shape=[None, 4])
    assert tm.raw_ops.BldTestMatrix(x=x).shape == [None, 4]


def test_shape_function_returning_the_wrong_count(graph, register):
    register("BldTestBadShapeFn", outputs=["y: float"], shape_fn=lambda ic: [[], []])(None)
    with pytest.raises(ValueError, match="returned 2 shapes for 1 outputs"):
        tm.raw_ops.BldTestBadShapeFn()


def test_no_shape_function_gives_unknown_shapes(graph, register):
    register("BldTestNoShape", outputs=["y: float"])(None)
    assert tm.raw_ops.BldTestNoShape().shape.rank is None


def test_inference_context(graph, register):
    seen = {}

    def shape_fn(ic):
        seen.update(
            name=ic.name, op_type=ic.op_type, n=ic.num_inputs,
            shape=ic.input_shape("shape"), dtype=ic.input_dtype(1),
            value=ic.input_value("shape"), other=ic.input_value("x"), attr=ic.attr("T"),
        )
        value = ic.input_value("shape")
        return [[None] * 2 if value is None else list(value)]

    register("BldTestReshapeLike", inputs=["x: T", "shape: int32"], outputs=["y: T"],
             attrs=["T: type"], shape_fn=shape_fn)(None)
    x = tm.placeholder(tm.float32)
    y = tm.raw_ops.BldTestReshapeLike(x=x, shape=tm.identity([2, 3]), name="r")
    assert y.shape == [2, 3]  # the value is known at build time, through the Identity
    assert seen["name"] == "r" and seen["op_type"] == "BldTestReshapeLike" and seen["n"] == 2
    assert seen["shape"] == [2] and seen["dtype"] is tm.int32
    np.testing.assert_array_equal(seen["value"], [2, 3])
    assert seen["other"] is None and seen["attr"] is tm.float32
    assert static_value(x) is None


# -- failed builds leave nothing behind ---------------------------------------------------


def test_failed_literal_conversion_removes_the_consts_it_made(graph):
    before = _op_names(graph)
    with pytest.raises(TypeError):
        # x becomes a float32 Const, then y cannot: the Const must not stay behind.
        tm.raw_ops.Add(x=[1.0, 2.0], y="not a number")
    assert _op_names(graph) == before
    assert tm.constant(1.0).op.name == "Const"
    assert tm.raw_ops.Add(x=1.0, y=2.0).op.name == "Add"


def test_failed_build_restores_name_counters_it_bumped(graph, matrix_op):
    tm.constant(0.0)
    with pytest.raises(ValueError):
        tm.raw_ops.BldTestMatrix(x=[1.0])  # the literal takes Const_1, then the build fails
    assert tm.constant(1.0).op.name == "Const_1"
    assert tm.constant(1.0).op.name == "Const_2"
    with pytest.raises(ValueError):
        with tm.name_scope("blk"):  # entered outside the build: keeps its name
            tm.raw_ops.BldTestMatrix(x=[1.0])
    with tm.name_scope("blk") as s:
        assert s == "blk_1/"
    # The undo journal only lives during a build: it does not grow with the graph.
    assert graph._name_log == [] and graph._build_depth == 0


def test_failed_shape_function_removes_consts_and_names(graph, matrix_op):
    with pytest.raises(ValueError, match="Shape must be rank 2"):
        tm.raw_ops.BldTestMatrix(x=[1.0, 2.0, 3.0], name="mm")
    assert _op_names(graph) == []
    ok = tm.raw_ops.BldTestMatrix(x=[[1.0]], name="mm")
    assert ok.op.name == "mm"
    assert _op_names(graph) == ["mm/x", "mm"]  # TF names literal inputs <op>/<arg>
    assert graph.get_operation_by_name("mm").inputs[0].consumers() == [ok.op]


def test_failed_build_unlinks_consumers(graph, matrix_op):
    x = tm.placeholder(tm.float32, shape=[3])
    with pytest.raises(ValueError):
        tm.raw_ops.BldTestMatrix(x=x)
    assert x.consumers() == []


def test_invalid_name_is_refused_before_anything_is_built(graph):
    with pytest.raises(ValueError, match="'-x' is not a valid node name"):
        tm.raw_ops.Add(x=1.0, y=2.0, name="-x")
    assert _op_names(graph) == []


# -- scope: control dependencies, devices, graphs -----------------------------------------


def test_control_dependencies_and_device_come_from_the_scope(graph):
    a = tm.constant(1.0, name="a")
    gate = tm.no_op(name="gate")
    scope = tm.Scope(graph).with_control_dependencies([a, gate]).with_device("/device:TPU:0")
    s = tm.ops.Add.create(scope, a, a)
    assert s.op.control_inputs == (gate,)  # a is already a data input
    assert s.op.device == "/device:TPU:0"


def test_literals_are_built_in_the_ops_scope(graph):
    scope = tm.Scope(graph).with_sub_scope("blk").with_device("/cpu:0")
    s = tm.ops.Add.create(scope, 1.0, 2.0)
    const = s.op.inputs[0].op
    assert const.name.startswith("blk/") and const.device == "/device:CPU:0"


def test_inputs_from_another_graph_are_refused(graph):
    other = tm.Graph()
    with other.as_default():
        foreign = tm.constant(1.0)
    mine = tm.constant(1.0)
    with pytest.raises(ValueError, match="must be from the same graph"):
        tm.raw_ops.Add(x=mine, y=foreign)
    with pytest.raises(ValueError, match="must be from the same graph"):
        tm.ops.Add.create(tm.Scope(graph), foreign, foreign)
    assert _op_names(graph) == ["Const"]


def test_unknown_op_type(graph):
    with pytest.raises(tm.errors.NotFoundError, match="Op type not registered 'Adx'"):
        build_op(current_scope(), "Adx", [])


def test_build_op_accepts_an_op_def(graph):
    op = build_op(current_scope(), registry.get("NoOp"), [], name="n")
    assert op.type == "NoOp" and op.name == "n" and op.outputs == ()


def test_failed_build_in_a_function_graph_forgets_its_capture(matrix_op):
    from tfmini.core.function import FuncGraph
    from tfmini.core.scope import Scope, scope_context

    g = tm.Graph()
    with g.as_default():
        outer = tm.constant([1.0, 2.0])
    fg = FuncGraph(name="body", outer_graph=g)
    with scope_context(Scope(fg)):
        with pytest.raises(ValueError, match="Shape must be rank 2"):
            tm.raw_ops.BldTestMatrix(x=outer)  # captures outer, then fails
        assert fg.captures == {} and fg.inputs == [] and fg.get_operations() == []
        y = tm.identity(outer)
    assert list(fg.captures) == [outer]
    assert fg.inputs == [y.op.inputs[0]] and y.op.inputs[0].op.name == "capture"


def test_empty_list_literal_takes_the_type_attr_default(graph):
    # TensorFlow: Sum(axis=[]) gets an int32 axis (the Tidx default), not a float32 [].
    x = tm.constant([[1.0, 2.0]])
    s = tm.raw_ops.Sum(input=x, axis=[])
    assert s.op.inputs[1].dtype == tm.int32
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(s), [[1.0, 2.0]])
