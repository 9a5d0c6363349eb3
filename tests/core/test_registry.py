"""The op registry: registration, lookup, attr and argument specs, kernels, gradients."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry
from tfmini.core.opdef import NO_DEFAULT, ArgDef, AttrDef, Kernel, attr_from_python, parse_attr
from tfmini.runtime.kernel_context import KernelContext


@pytest.fixture
def register():
    """``tm.register_op`` that unregisters the op types again when the test ends.

    This module's own copy of the fixture in tests/core/conftest.py: an op type's
    ``defined_at`` is the line that called ``tm.register_op``, which must be in this file.
    """
    names: list[str] = []

    def reg(op_type, *args, **kwargs):
        names.append(op_type)
        return tm.register_op(op_type, *args, **kwargs)

    reg.names = names  # for tests that call tm.register_op themselves (their own line)
    yield reg
    for name in names:
        if registry.lookup(name) is not None:
            registry.unregister(name)


def _run(fetch, feed=None):
    with tm.Session(graph=fetch.graph) as sess:
        return sess.run(fetch, feed)


# -- register and look up -----------------------------------------------------------------


def test_register_and_lookup(register):
    @register("RegTestScale", inputs=["x: T"], outputs=["y: T"],
              attrs=["T: {float, double}", "factor: float = 2.0"])
    def scale(x, *, factor):
        """Multiplies by a factor."""
        return x * x.dtype.type(factor)

    op_def = registry.get("RegTestScale")
    assert registry.lookup("RegTestScale") is op_def
    assert "RegTestScale" in registry.registered_ops()
    assert op_def.name == "RegTestScale"
    assert op_def.inputs == (ArgDef("x", type_attr="T"),)
    assert op_def.outputs == (ArgDef("y", type_attr="T"),)
    assert op_def.attr("factor") == AttrDef("factor", "float", 2.0)
    assert op_def.attr("T").allowed_values == (tm.float32, tm.float64)
    assert op_def.attr_names == ("T", "factor")
    assert op_def.inferred_attr_names == frozenset({"T"})
    assert op_def.doc == "Multiplies by a factor."
    assert op_def.kernels["CPU"].fn is scale
    assert op_def.defined_at.filename == __file__
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestScale(x=np.float32([1, 2]), factor=3.0)
    np.testing.assert_array_equal(_run(y), np.float32([3, 6]))


def test_lookup_of_a_missing_op_is_none():
    assert registry.lookup("RegTestNoSuchOp") is None


def test_unregister(register):
    register("RegTestGone", outputs=["y: float"])(lambda: np.float32(0))
    registry.unregister("RegTestGone")
    assert registry.lookup("RegTestGone") is None
    with pytest.raises(tm.errors.NotFoundError):
        registry.unregister("RegTestGone")


def test_duplicate_registration_says_where_the_first_was(register):
    register.names.append("RegTestDup")
    tm.register_op("RegTestDup", outputs=["y: float"])(None)
    line = sys._getframe().f_lineno - 1
    with pytest.raises(tm.errors.AlreadyExistsError) as info:
        tm.register_op("RegTestDup", outputs=["y: float"])(None)
    assert "'RegTestDup' is already registered" in str(info.value)
    assert f"first registered at test_registry.py:{line}" in str(info.value)
    assert registry.get("RegTestDup").defined_at.lineno == line


def test_unknown_op_lists_close_matches():
    with pytest.raises(tm.errors.NotFoundError) as info:
        registry.get("Identty")
    assert "Op type not registered 'Identty'" in str(info.value)
    assert "Did you mean" in str(info.value) and "'Identity'" in str(info.value)
    with pytest.raises(tm.errors.NotFoundError) as info:
        registry.get("Qwzxv")
    assert "Did you mean" not in str(info.value)
    with pytest.raises(TypeError, match="must be a string"):
        registry.get(["Add"])


@pytest.mark.parametrize("bad", ["bad name", "lowercase", "1Lead", "", "Has-Dash", 3])
def test_op_type_must_be_camel_case(register, bad):
    with pytest.raises(ValueError, match="Did you use CamelCase"):
        register(bad, outputs=["y: float"])(None)
    if isinstance(bad, str):
        assert registry.lookup(bad) is None


def test_internal_underscore_names_are_allowed(register):
    register("_RegTestInternal", outputs=["y: float"])(None)
    assert registry.lookup("_RegTestInternal") is not None


def test_failed_registration_leaves_nothing_behind(register):
    with pytest.raises(ValueError, match="neither a dtype nor a type attr"):
        register("RegTestBadArg", inputs=["x: T"])(None)
    with pytest.raises(ValueError, match="duplicate input names"):
        register("RegTestBadArg", inputs=["x: float", "x: float"])(None)
    with pytest.raises(ValueError, match="attr 'a' declared twice"):
        register("RegTestBadArg", attrs=["a: int", "a: int"])(None)
    assert registry.lookup("RegTestBadArg") is None


# -- attr specs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, type_, default, allowed, minimum",
    [
        ("T: type", "type", NO_DEFAULT, None, None),
        ("T: {float, double}", "type", NO_DEFAULT, (tm.float32, tm.float64), None),
        ("T: {half, int32} = DT_INT32", "type", tm.int32, (tm.float16, tm.int32), None),
        ("dt: type = DT_FLOAT", "type", tm.float32, None, None),
        ("dt: type = float", "type", tm.float32, None, None),
        ("N: int >= 1", "int", NO_DEFAULT, None, 1),
        ("N: int >= -2 = -1", "int", -1, None, -2),
        # Float attrs are 32-bit in TensorFlow (AttrValue.f).
        ("eps: float = 0.0001", "float", float(np.float32(0.0001)), None, None),
        ("f: float = 1", "float", 1.0, None, None),
        ("fmt: {'NHWC', 'NCHW'} = 'NHWC'", "string", "NHWC", ("NHWC", "NCHW"), None),
        ('s: string = "a=b"', "string", "a=b", None, None),
        ("s: string = ''", "string", "", None, None),
        ("b: bool = true", "bool", True, None, None),
        ("b: bool = false", "bool", False, None, None),
        ("l: list(int) = [1, 2]", "list(int)", (1, 2), None, None),
        ("l: list(int) >= 2", "list(int)", NO_DEFAULT, None, 2),
        ("l: list(shape) = []", "list(shape)", (), None, None),
        ("Ts: list(type)", "list(type)", NO_DEFAULT, None, None),
        ("Ts: list({int32, float}) >= 1", "list(type)", NO_DEFAULT, (tm.int32, tm.float32), 1),
        ("t: tensor", "tensor", NO_DEFAULT, None, None),
        ("f: func", "func", NO_DEFAULT, None, None),
    ],
)
def test_attr_spec_parsing(spec, type_, default, allowed, minimum):
    a = parse_attr(spec)
    assert a.type == type_
    assert a.default == default and type(a.default) is type(default)
    assert a.allowed_values == allowed
    assert a.minimum == minimum
    assert a.has_default is (default is not NO_DEFAULT)


def test_shape_defaults():
    unknown = parse_attr("shape: shape = {unknown_rank: true}")
    assert unknown.default == tm.TensorShape(None)
    assert unknown.default.rank is None
    assert parse_attr("shape: shape = [2, None]").default == tm.TensorShape([2, None])
    assert parse_attr("shape: shape = []").default == tm.TensorShape([])


@pytest.mark.parametrize(
    "spec, error, match",
    [
        ("x: badtype", ValueError, "unknown attr type 'badtype'"),
        ("x float", ValueError, "Cannot parse attr spec"),
        ("1x: int", ValueError, "Cannot parse attr spec"),
        ("x: int = 'a'", TypeError, "expected int"),
        ("i: int = 1.5", TypeError, "expected int"),
        ("x: {float, nope}", TypeError, "Cannot convert 'nope'"),
        # A default must itself be a legal value (TensorFlow's OpDef validation).
        ("T: {float, double} = DT_INT32", TypeError, "not in the list of allowed values"),
        ("fmt: {'NHWC', 'NCHW'} = 'XX'", ValueError, "not in"),
        ("n: int >= 2 = 1", ValueError, "less than minimum 2"),
        ("l: list(int) >= 2 = [1]", ValueError, "less than minimum 2"),
    ],
)
def test_invalid_attr_specs(spec, error, match):
    with pytest.raises(error, match=match):
        parse_attr(spec)


def test_attr_dict_form():
    assert attr_from_python("T", "type") == AttrDef("T", "type")
    assert attr_from_python("beta", ("float", 1)) == AttrDef("beta", "float", 1.0)
    assert attr_from_python("T", "{float, double}").allowed_values == (tm.float32, tm.float64)
    same = AttrDef("k", "int")
    assert attr_from_python("k", same) is same
    with pytest.raises(TypeError, match="expected float"):
        attr_from_python("beta", ("float", "x"))
    with pytest.raises(ValueError, match="cannot understand 3"):
        attr_from_python("beta", 3)


def test_argument_specs(register):
    register(
        "RegTestArgs",
        inputs=["x: T", "values: N * T", "h: resource", "r: Ref(string)", "comps: Tcomponents"],
        outputs=["y: float"],
        attrs=["T: type", "Tcomponents: list(type)"],
    )(None)
    op_def = registry.get("RegTestArgs")
    x, values, h, r, comps = op_def.inputs
    assert x == ArgDef("x", type_attr="T") and not x.is_list
    assert values == ArgDef("values", type_attr="T", number_attr="N") and values.is_list
    assert h == ArgDef("h", dtype=tm.resource)
    assert r == ArgDef("r", dtype=tm.string, is_ref=True)
    assert comps == ArgDef("comps", type_list_attr="Tcomponents") and comps.is_list
    assert [a.spec() for a in op_def.inputs] == [
        "x: T", "values: N * T", "h: resource", "r: Ref(string)", "comps: Tcomponents"
    ]
    # A length attr the spec did not declare is added, as "N: int >= 0".
    assert op_def.attr("N") == AttrDef("N", "int", NO_DEFAULT, None, 0)
    assert op_def.inferred_attr_names == frozenset({"T", "N", "Tcomponents"})


# -- kernels ------------------------------------------------------------------------------


def _plain(x):
    return x


def _with_ctx(ctx, x):
    return x


def _with_attrs(x, *, a, b):
    return x


def _with_kwargs(x, **kwargs):
    return x


def _with_node(ctx, x, *, node):
    return x


@pytest.mark.parametrize(
    "fn, takes_ctx, attr_names",
    [
        (_plain, False, ()),
        (_with_ctx, True, ()),
        (_with_attrs, False, ("a", "b")),
        (_with_kwargs, False, None),
        (_with_node, True, ("node",)),
        (np.add, False, ()),  # a ufunc takes inputs only, whatever NumPy's signature says
    ],
)
def test_kernel_signature_inspection(fn, takes_ctx, attr_names):
    k = Kernel.wrap(fn)
    assert k.fn is fn
    assert k.takes_ctx is takes_ctx
    assert k.attr_names == attr_names


def test_kernels_receive_ctx_node_and_only_the_attrs_they_name(register):
    seen = {}

    @register("RegTestSees", inputs=["x: T"], outputs=["y: T"],
              attrs=["T: type", "k: int = 7", "s: string = 'hi'"])
    def sees(ctx, x, *, k, node):
        seen.update(ctx=ctx, k=k, node=node)
        return x

    @register("RegTestSeesAll", inputs=["x: T"], outputs=["y: T"],
              attrs=["T: type", "k: int = 7", "s: string = 'hi'"])
    def sees_all(x, **attrs):
        seen["all"] = attrs
        return x

    g = tm.Graph()
    with g.as_default():
        a = tm.raw_ops.RegTestSees(x=np.float32(1), k=3, name="seer")
        b = tm.raw_ops.RegTestSeesAll(x=np.float32(1))
    _run(a)
    assert isinstance(seen["ctx"], KernelContext)
    assert seen["ctx"].device == "/device:CPU:0"
    assert seen["k"] == 3 and seen["node"] is a.op
    _run(b)
    assert seen["all"] == {"T": tm.float32, "k": 7, "s": "hi"}


def test_ufunc_kernel_with_an_attr_named_like_a_ufunc_keyword(register):
    # NumPy 2 ufuncs accept dtype=...; binding the op's "dtype" attr to it would break.
    register("RegTestNeg", inputs=["x: T"], outputs=["y: T"],
             attrs=["T: type", "dtype: type = DT_FLOAT"])(np.negative)
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestNeg(x=np.int32([1, 2]), dtype=tm.float64)
    out = _run(y)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [-1, -2])


def test_register_kernel_for_another_device(register):
    register("RegTestWhere", outputs=["y: string"])(lambda: np.array("cpu", dtype=object))

    @tm.register_kernel("RegTestWhere", device="TPU")
    def on_tpu():
        return np.array("tpu", dtype=object)

    assert set(registry.get("RegTestWhere").kernels) == {"CPU", "TPU"}
    g = tm.Graph()
    with g.as_default():
        cpu = tm.raw_ops.RegTestWhere()
        with tm.device("/device:TPU:0"):
            tpu = tm.raw_ops.RegTestWhere()
        with tm.device("/device:GPU:0"):
            fallback = tm.raw_ops.RegTestWhere()  # CPU is the fallback
    with tm.Session(graph=g) as sess:
        assert sess.run([cpu, tpu, fallback]) == ["cpu", "tpu", "cpu"]


def test_register_kernel_for_an_unknown_op_is_not_found():
    with pytest.raises(tm.errors.NotFoundError):
        tm.register_kernel("RegTestNoSuchOp")(lambda: None)


def test_op_without_a_kernel_for_its_device_fails_at_run(register):
    register("RegTestTpuOnly", outputs=["y: float"], device="TPU")(lambda: np.float32(1))
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestTpuOnly(name="needs_tpu")
    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        _run(y)
    assert "No OpKernel was registered to support Op 'RegTestTpuOnly'" in str(info.value)
    assert "needs_tpu" in str(info.value) and "TPU" in str(info.value)


def test_only_devices_places_the_op(register):
    register("RegTestPinned", outputs=["y: float"], device="TPU",
             only_devices=["TPU"])(lambda: np.float32(5))
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestPinned()
    assert y.device == "/device:TPU:0"
    assert _run(y) == 5


def test_set_shape_fn(register):
    register("RegTestShaped", outputs=["y: float"])(lambda: np.zeros((2, 5), np.float32))
    registry.set_shape_fn("RegTestShaped", lambda ic: [[2, 5]])
    g = tm.Graph()
    with g.as_default():
        assert tm.raw_ops.RegTestShaped().shape == [2, 5]


# -- gradients ----------------------------------------------------------------------------


def test_register_gradient(register):
    register("RegTestGrad", inputs=["x: float"], outputs=["y: float"])(_plain)

    @tm.RegisterGradient("RegTestGrad")
    def _grad(op, grad):
        return grad

    assert registry.get_gradient_function("RegTestGrad") is _grad
    assert registry.get("RegTestGrad").kernels["CPU"].fn is _plain  # the rest is kept


def test_register_gradient_twice_is_a_key_error(register):
    register("RegTestGrad2", inputs=["x: float"], outputs=["y: float"])(_plain)
    tm.RegisterGradient("RegTestGrad2")(_plain)
    with pytest.raises(KeyError) as info:
        tm.RegisterGradient("RegTestGrad2")(_with_ctx)
    msg = str(info.value)
    assert "Registering two gradient with name 'RegTestGrad2'!" in msg
    assert "_plain" in msg and "test_registry.py" in msg  # where the first one came from
    assert registry.get_gradient_function("RegTestGrad2") is _plain
    with pytest.raises(KeyError, match="Registering two gradient"):
        tm.no_gradient("RegTestGrad2")


def test_no_gradient(register):
    register("RegTestNoGrad", inputs=["x: float"], outputs=["y: float"])(_plain)
    tm.no_gradient("RegTestNoGrad")
    assert registry.get("RegTestNoGrad").no_gradient
    assert registry.get_gradient_function("RegTestNoGrad") is None
    with pytest.raises(KeyError, match="Registering two gradient"):
        tm.RegisterGradient("RegTestNoGrad")(_plain)
    with pytest.raises(KeyError, match="Registering two gradient"):
        tm.no_gradient("RegTestNoGrad")  # as tf.no_gradient twice


def test_not_differentiable_is_no_gradient():
    assert tm.NotDifferentiable is tm.no_gradient


def test_gradient_under_a_name_that_is_no_op_type():
    # As TensorFlow: any name may hold a gradient, for Graph.gradient_override_map; it is not
    # an op type's gradient, and a name holds one gradient only.
    tm.RegisterGradient("RegTestNoSuchOp")(_plain)
    assert registry.named_gradient("RegTestNoSuchOp") is _plain
    assert registry.lookup("RegTestNoSuchOp") is None
    with pytest.raises(KeyError, match="Registering two gradient with name 'RegTestNoSuchOp'"):
        tm.RegisterGradient("RegTestNoSuchOp")(_plain)
    with pytest.raises(TypeError):
        tm.RegisterGradient(3)


# -- one truth per op: schema pinned at build, behaviour looked up live ----------------------


def test_kernels_and_gradients_registered_after_building_apply(register):
    @register("RegTestLive", inputs=["x: float"], outputs=["y: float"])
    def first(x):
        return x + np.float32(1)

    g = tm.Graph()
    with g.as_default():
        x = tm.constant(np.float32([1, 2]))
        y = tm.raw_ops.RegTestLive(x=x)
    built_with = y.op.op_def
    with pytest.raises(LookupError, match="RegTestLive"):
        tm.gradients(y, x)  # no gradient yet

    tm.register_kernel("RegTestLive")(lambda x: x * np.float32(10))
    tm.RegisterGradient("RegTestLive")(lambda op, dy: dy * 10.0)

    np.testing.assert_array_equal(_run(y), np.float32([10, 20]))  # the new kernel
    with g.as_default():
        (dx,) = tm.gradients(y, x)
    np.testing.assert_array_equal(_run(dx), np.float32([10, 10]))  # the new gradient
    assert y.op.op_def is built_with  # the op's schema stays the one it was built with


def test_a_later_shape_function_does_not_change_a_built_op(register):
    register("RegTestShape", inputs=["x: float"], outputs=["y: float"],
             shape_fn=lambda ic: [ic.input_shape(0)])(lambda x: x)
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestShape(x=np.zeros((2, 3), np.float32))
        registry.set_shape_fn("RegTestShape", lambda ic: [tm.TensorShape([7])])
        z = tm.raw_ops.RegTestShape(x=np.zeros((2, 3), np.float32))
    assert y.shape.as_list() == [2, 3] and z.shape.as_list() == [7]
    assert y.op.op_def.shape_fn is not z.op.op_def.shape_fn


def test_an_unregistered_type_keeps_running_as_built(register):
    register("RegTestOrphan", inputs=["x: float"], outputs=["y: float"])(
        lambda x: x * np.float32(3))
    g = tm.Graph()
    with g.as_default():
        y = tm.raw_ops.RegTestOrphan(x=np.float32([1]))
    registry.unregister("RegTestOrphan")
    assert registry.behaviour_of(y.op) is y.op.op_def
    np.testing.assert_array_equal(_run(y), np.float32([3]))


@pytest.mark.parametrize("kernel, match", [
    (lambda x: x, r"takes 1 positional input\(s\), but the op has 2 input argument\(s\) \(a, b\)"),
    (lambda ctx, a: a, r"takes 1 positional input"),
    (lambda a, b, c: a, r"takes 3 positional input"),
    (lambda a, b, *, facter: a, r"requires keyword\(s\) \['facter'\] that are not attrs"),
])
def test_a_kernel_that_cannot_be_called_as_its_op_def_says_is_refused(register, kernel, match):
    with pytest.raises(TypeError, match=match):
        register("RegTestArity", inputs=["a: float", "b: float"], outputs=["y: float"],
                 attrs=["factor: float = 1.0"])(kernel)
    assert registry.lookup("RegTestArity") is None  # nothing registered
    register("RegTestArity2", inputs=["a: float", "b: float"], outputs=["y: float"],
             attrs=["factor: float = 1.0"])(lambda a, b, *, factor: a)
    with pytest.raises(TypeError, match=match.replace("RegTestArity", "RegTestArity2")):
        tm.register_kernel("RegTestArity2")(kernel)


@pytest.mark.parametrize("kernel", [
    lambda a, b: a,
    lambda ctx, a, b, *, factor, node: a,
    lambda *inputs: inputs[0],
    lambda a, b, **attrs: a,
    lambda a, b, c=None, *, unused=None: a,
    np.add,
])
def test_kernels_of_the_right_arity_are_accepted(register, kernel):
    register("RegTestArityOk", inputs=["a: float", "b: float"], outputs=["y: float"],
             attrs=["factor: float = 1.0"])(kernel)
