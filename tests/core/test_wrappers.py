"""The generated namespaces: ``tm.ops.<Op>`` classes and ``tm.raw_ops.<Op>`` functions."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry
from tfmini.core.wrappers import OpWrapper


@pytest.fixture
def moments(register):
    def kernel(x):
        return np.mean(x).astype(x.dtype), np.var(x).astype(x.dtype)

    register("WrapTestMoments", inputs=["x: T"], outputs=["mean: T", "variance: T"],
             attrs=["T: {float, double}"])(kernel)


# -- tm.ops -------------------------------------------------------------------------------


def test_create_returns_a_wrapper_with_accessors(graph):
    scope = tm.Scope(graph)
    a = tm.constant(1.0)
    b = tm.constant(2.0)
    add = tm.ops.Add.create(scope, a, b)
    assert isinstance(add, OpWrapper)
    assert add.OP_NAME == "Add" and tm.ops.Add.OP_NAME == "Add"
    z = add.z()
    assert z.op is add.op and add.op.type == "Add"
    assert add.as_output() is z
    assert add.outputs == (z,)
    assert repr(add) == "<tm.ops.Add 'Add'>"
    # A wrapper is an operand: it can be the input of the next op.
    again = tm.ops.Add.create(scope, add, add)
    assert again.op.inputs == (z, z)


def test_create_takes_keyword_inputs_and_attrs(graph):
    scope = tm.Scope(graph)
    add = tm.ops.Add.create(scope, y=tm.constant(1), x=tm.constant(2))
    assert [i.op.name for i in add.op.inputs] == ["Const_1", "Const"]
    c = tm.ops.Const.create(scope, value=np.float32(3), dtype=tm.float32)
    assert c.output().dtype is tm.float32
    with pytest.raises(TypeError, match="multiple values for input 'x'"):
        tm.ops.Add.create(scope, 1, x=2)


def test_create_needs_a_scope(graph):
    with pytest.raises(TypeError, match="Add.create expects a tm.Scope as first argument"):
        tm.ops.Add.create(tm.constant(1.0), tm.constant(1.0))


def test_multi_output_wrapper(graph, moments):
    m = tm.ops.WrapTestMoments.create(tm.Scope(graph), [1.0, 2.0, 3.0])
    assert m.mean().name == "WrapTestMoments:0"
    assert m.variance().name == "WrapTestMoments:1"
    with pytest.raises(TypeError, match=r"has 2 outputs; use one of its accessors "
                                        r"\(mean\(\), variance\(\)\)"):
        m.as_output()
    with tm.Session(graph=graph) as sess:
        assert sess.run([m.mean(), m.variance()]) == [np.float32(2.0), np.float32(2 / 3)]


def test_list_output_accessor_returns_a_list(graph):
    n = tm.ops.IdentityN.create(tm.Scope(graph), [1.0, 2])
    out = n.output()
    assert isinstance(out, list) and [o.dtype for o in out] == [tm.float32, tm.int32]


def test_reserved_and_keyword_output_names_get_a_trailing_underscore(graph, register):
    register("WrapTestOddNames", outputs=["op: float", "lambda: float", "as_output: float"])(None)
    w = tm.ops.WrapTestOddNames.create(tm.Scope(graph))
    assert w.op_().value_index == 0
    assert w.lambda_().value_index == 1
    assert w.as_output_().value_index == 2
    assert w.op.type == "WrapTestOddNames"  # the Operation accessor is untouched


def test_no_output_wrapper(graph):
    n = tm.ops.NoOp.create(tm.Scope(graph))
    assert n.outputs == () and n.op.type == "NoOp"
    with pytest.raises(TypeError, match="has 0 outputs"):
        n.as_output()


def test_class_is_generated_once_and_documented():
    assert tm.ops.Add is tm.ops.Add
    assert issubclass(tm.ops.Add, OpWrapper)
    assert tm.ops.Add.__name__ == "Add" and tm.ops.Add.__module__ == "tfmini.ops"
    doc = tm.ops.Add.__doc__
    assert "Inputs: x: T, y: T" in doc and "Outputs: z: T" in doc and "Attrs: T: type" in doc


def test_unknown_names_are_attribute_errors():
    with pytest.raises(AttributeError, match="Op type not registered 'NoSuchOp'"):
        tm.ops.NoSuchOp  # noqa: B018
    with pytest.raises(AttributeError):
        tm.ops.lowercase_thing  # noqa: B018
    with pytest.raises(AttributeError) as info:
        tm.raw_ops.Identiy  # noqa: B018
    assert "Did you mean" in str(info.value) and "'Identity'" in str(info.value)
    assert not hasattr(tm.raw_ops, "NoSuchOp")


def test_custom_ops_appear_and_disappear(graph, register):
    register("WrapTestCustom", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"])(
        lambda x: x
    )
    assert "WrapTestCustom" in dir(tm.raw_ops) and "WrapTestCustom" in dir(tm.ops)
    assert tm.ops.WrapTestCustom.create(tm.Scope(graph), 1.0).y().dtype is tm.float32
    assert tm.raw_ops.WrapTestCustom(x=1).dtype is tm.int32
    registry.unregister("WrapTestCustom")
    with pytest.raises(AttributeError):
        tm.ops.WrapTestCustom  # noqa: B018
    with pytest.raises(AttributeError):
        tm.raw_ops.WrapTestCustom  # noqa: B018


def test_redefined_op_gets_a_new_class(graph, register):
    register("WrapTestRedefined", outputs=["a: float"])(None)
    first = tm.ops.WrapTestRedefined
    registry.unregister("WrapTestRedefined")
    register("WrapTestRedefined", outputs=["b: float", "c: float"])(None)
    second = tm.ops.WrapTestRedefined
    assert second is not first
    assert hasattr(second, "b") and not hasattr(second, "a")
    out = tm.raw_ops.WrapTestRedefined()
    assert out._fields == ("b", "c")


# -- tm.raw_ops ---------------------------------------------------------------------------


def test_raw_ops_are_keyword_only(graph):
    a = tm.constant(1.0)
    with pytest.raises(TypeError, match="tm.raw_ops.Add only accepts keyword arguments"):
        tm.raw_ops.Add(a, a)
    with pytest.raises(TypeError, match="Add missing required input"):
        tm.raw_ops.Add(x=a)


def test_raw_ops_build_in_the_current_scope_with_a_name(graph):
    a = tm.constant(1.0)
    with tm.name_scope("ns"), tm.device("/device:TPU:0"):
        s = tm.raw_ops.Add(x=a, y=a, name="plus")
    assert s.op.name == "ns/plus" and s.device == "/device:TPU:0"
    assert tm.raw_ops.Add(x=a, y=a).op.name == "Add"


def test_raw_ops_single_output_is_the_output(graph):
    out = tm.raw_ops.Identity(input=tm.constant(1.0))
    assert isinstance(out, tm.Output) and out.op.type == "Identity"


def test_raw_ops_multi_output_is_a_namedtuple(graph, moments):
    out = tm.raw_ops.WrapTestMoments(x=[1.0, 3.0])
    assert type(out).__name__ == "WrapTestMoments"
    assert out._fields == ("mean", "variance")
    mean, variance = out
    assert out.mean is mean and out.variance is variance and out[1] is variance
    assert mean.op is variance.op


def test_raw_ops_no_output_is_the_operation(graph):
    op = tm.raw_ops.NoOp(name="nothing")
    assert isinstance(op, tm.Operation) and op.name == "nothing"


def test_raw_ops_list_output_is_a_list(graph):
    out = tm.raw_ops.IdentityN(input=[1.0, 2.0])
    assert isinstance(out, list) and len(out) == 2


def test_raw_ops_function_is_documented():
    fn = tm.raw_ops.Placeholder
    assert fn.__name__ == "Placeholder"
    assert "Attrs: dtype: type, shape: shape = TensorShape(None)" in fn.__doc__


def test_required_attrs_may_follow_the_inputs_positionally():
    # TensorFlow's Java API: ResourceAccumulatorTakeGradient.create(scope, handle, n, dtype).
    g = tm.Graph()
    scope = tm.Scope(g)
    p = tm.ops.Placeholder.create(scope, tm.float32)  # Placeholder has no inputs: dtype first
    assert p.output().dtype == tm.float32
    c = tm.ops.Cast.create(scope.with_name("c"), p.output(), tm.int32)
    assert c.y().dtype == tm.int32
    with pytest.raises(TypeError, match="got multiple values for attr 'DstT'"):
        tm.ops.Cast.create(scope, p.output(), tm.int32, DstT=tm.int64)
    with pytest.raises(TypeError, match="and the attr"):
        tm.ops.Cast.create(scope, p.output(), tm.int32, True)  # Truncate has a default
