"""graph_def: arrays as JSON, Graph.as_graph_def(), and import_graph_def back into a graph."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.test_op_contract import BUILTIN, SAMPLES
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.function import FuncGraph
from tfmini.core.registry import register_op, unregister
from tfmini.core.scope import current_scope
from tfmini.core.serialize import (
    graph_to_dict,
    import_graph_def,
    node_to_dict,
)
from tfmini.core.tensor_json import array_from_json, array_to_json


def _json(obj):
    """Through strict JSON text and back, as a graph_def travels between processes."""
    return json.loads(json.dumps(obj, allow_nan=False))


def _without_locations(graph_def):
    """The def minus ``defined_at`` (an imported op is defined where it was imported)."""

    def nodes(ns):
        return [{k: v for k, v in n.items() if k != "defined_at"} for n in ns]

    out = dict(graph_def)
    out["node"] = nodes(graph_def["node"])
    out["library"] = {
        "function": [
            dict(f, node=nodes(f["node"])) for f in graph_def["library"]["function"]
        ]
    }
    return out


def _import_copy(g):
    """A new graph holding the JSON round trip of ``g`` under the same names."""
    g2 = tm.Graph()
    with g2.as_default():
        assert import_graph_def(_json(g.as_graph_def()), name="") is None
    return g2


# ----------------------------------------------------------------------------------------
# Arrays


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.bool_],
)
def test_array_round_trip_is_bit_exact(dtype):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        # Random bit patterns cover subnormals, extremes and every mantissa digit.
        nbytes = np.dtype(dtype).itemsize
        bits = rng.integers(0, 256, size=(5, 7 * nbytes), dtype=np.uint8)
        arr = bits.view(dtype).reshape(5, 7)
        arr[np.isnan(arr)] = 0
        arr.flat[:4] = [np.inf, -np.inf, -0.0, np.finfo(dtype).tiny]
    elif dtype is np.bool_:
        arr = rng.integers(0, 2, size=(3, 4)).astype(bool)
    else:
        info = np.iinfo(dtype)
        arr = rng.integers(info.min, info.max, size=(3, 4), dtype=dtype, endpoint=True)
        arr.flat[:2] = [info.min, info.max]
    data = _json(array_to_json(arr))
    assert data["dtype"] == tm.as_dtype(dtype).name
    assert data["shape"] == list(arr.shape)
    back = array_from_json(data)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == arr.tobytes()
    assert not back.flags.writeable


def test_array_nan_and_infinities_are_strict_json():
    arr = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    data = array_to_json(arr)
    assert data["values"] == ["nan", "inf", "-inf", 1.5]
    json.dumps(data, allow_nan=False)
    back = array_from_json(_json(data))
    np.testing.assert_array_equal(back, arr)


def test_array_scalar_and_empty():
    for arr in (np.float64(2.5), np.array(7, np.int64), np.zeros((0, 3), np.float32),
                np.zeros((2, 0), np.bool_)):
        arr = np.asarray(arr)
        back = array_from_json(_json(array_to_json(arr)))
        assert back.shape == arr.shape and back.dtype == arr.dtype
        np.testing.assert_array_equal(back, arr)


def test_array_strings_str_and_bytes():
    arr = np.array([["héllo", b"\xff\x00raw"], ["", b""]], dtype=object)
    data = _json(array_to_json(arr))
    assert data["dtype"] == "string"
    assert data["values"][0] == "héllo"
    back = array_from_json(data)
    assert back.dtype == object and back.shape == (2, 2)
    assert back.tolist() == arr.tolist()
    assert [type(v) for v in back.ravel()] == [str, bytes, str, bytes]


def test_array_errors():
    with pytest.raises(TypeError, match="str and bytes"):
        array_to_json(np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="needs 6 values, got 5"):
        array_from_json({"dtype": "int32", "shape": [2, 3], "values": [1, 2, 3, 4, 5]})
    with pytest.raises(ValueError, match="non-integer"):
        array_from_json({"dtype": "int32", "shape": [1], "values": [1.5]})
    with pytest.raises(ValueError, match="do not fit in uint8"):
        array_from_json({"dtype": "uint8", "shape": [1], "values": [256]})
    with pytest.raises(ValueError, match="missing the key 'values'"):
        array_from_json({"dtype": "int32", "shape": [1]})
    with pytest.raises(ValueError, match="not a number"):
        array_from_json({"dtype": "float32", "shape": [1], "values": ["one"]})
    with pytest.raises(TypeError):
        array_from_json({"dtype": "complex32", "shape": [1], "values": [1]})
    with pytest.raises(ValueError, match=r"\[real, imag\] pairs"):
        array_from_json({"dtype": "complex64", "shape": [1], "values": [1]})


def test_complex_and_bfloat16_round_trip():
    for arr in (np.array([1 + 2j, float("nan") - 1j], np.complex64),
                np.array([[0.5j]], np.complex128), np.array([1.5, -2.0], "bfloat16")):
        back = array_from_json(json.loads(json.dumps(array_to_json(arr))))
        assert back.dtype == arr.dtype and back.shape == arr.shape
        np.testing.assert_array_equal(back.astype(np.complex128), arr.astype(np.complex128))


# ----------------------------------------------------------------------------------------
# as_graph_def


def _small_graph():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (None, 3), name="x")
        c = tm.constant(np.arange(3, dtype=np.float32), name="c")
        pair = tm.identity_n([x, c], name="pair")
        y = tm.raw_ops.AddV2(x=pair[0], y=pair[1], name="y")
        with tm.control_dependencies([y]):
            tm.no_op(name="train")
    return g


def test_graph_def_format():
    g = _small_graph()
    gd = g.as_graph_def()
    assert gd["versions"] == {"producer": 1}
    assert gd["library"] == {"function": []}
    assert [n["name"] for n in gd["node"]] == ["x", "c", "pair", "y", "train"]
    by = {n["name"]: n for n in gd["node"]}
    assert by["y"] == {
        "name": "y",
        "op": "AddV2",
        "input": ["pair", "pair:1"],
        "device": "",
        "attr": {"T": {"type": "float32"}},
        "defined_at": str(g.get_operation_by_name("y").defined_at),
    }
    assert by["train"]["input"] == ["^y"]
    assert by["x"]["attr"] == {"dtype": {"type": "float32"}, "shape": {"shape": [None, 3]}}
    assert by["c"]["attr"]["value"] == {
        "tensor": {"dtype": "float32", "shape": [3], "values": [0.0, 1.0, 2.0]}
    }
    assert by["pair"]["attr"]["T"] == [{"type": "float32"}, {"type": "float32"}]
    assert by["x"]["defined_at"].startswith("test_serialize.py:")
    assert json.loads(json.dumps(gd, allow_nan=False)) == gd
    assert g.get_operation_by_name("y").node_def == node_to_dict(g.get_operation_by_name("y"))


def test_attr_without_json_form_is_refused():
    register_op("_SerAny", outputs=["y: float"], attrs=["payload: any"],
                shape_fn=lambda ic: [()])(lambda *, payload: np.float32(0))
    try:
        g = tm.Graph()
        with g.as_default():
            tm.raw_ops._SerAny(payload=object(), name="bad")
        with pytest.raises(TypeError, match="Attr 'payload' of node 'bad' holds a object"):
            g.as_graph_def()
    finally:
        unregister("_SerAny")


def test_float_attrs_that_are_not_finite():
    register_op("_SerScale", inputs=["x: float"], outputs=["y: float"],
                attrs=["factor: float", "clip: list(float) = []"],
                shape_fn=lambda ic: [ic.input_shape(0)])(
        lambda x, *, factor, clip: np.minimum(x * np.float32(factor), np.float32(clip[0])))
    try:
        g = tm.Graph()
        with g.as_default():
            tm.raw_ops._SerScale(x=np.ones(2, np.float32), factor=-np.inf,
                                 clip=[np.nan, 1.0], name="s")
        gd = g.as_graph_def()
        attr = gd["node"][-1]["attr"]
        assert attr == {"clip": ["nan", 1.0], "factor": "-inf"}
        g2 = _import_copy(g)
        op = g2.get_operation_by_name("s")
        assert op.get_attr("factor") == -np.inf
        assert np.isnan(op.get_attr("clip")[0]) and op.get_attr("clip")[1] == 1.0
    finally:
        unregister("_SerScale")


# ----------------------------------------------------------------------------------------
# Round trips: every op family, through the contract samples


def _run_all(g, op, setup_names, feeds):
    with tm.Session(graph=g) as sess:
        for name in setup_names:
            sess.run(g.get_operation_by_name(name))
        target = g.get_operation_by_name(op)
        if not target.outputs:
            return sess.run(target, feed_dict=feeds)
        return sess.run(list(target.outputs), feed_dict=feeds)


@pytest.mark.parametrize("op_type", [op for op in BUILTIN if op in SAMPLES])
def test_every_builtin_op_round_trips(op_type):
    """Build a sample of the op, JSON round trip, import: same def, shapes and values."""
    g = tm.Graph()
    feeds = {}
    with g.as_default():
        sample = SAMPLES[op_type]
        if sample == "feed":
            op = tm.placeholder(tm.float32, shape=(2, None), name="p").op
            feeds = {"p:0": np.ones((2, 3), np.float32)}
            setup = []
        else:
            built = sample()
            setup = [s.name for s in (built[2] if len(built) > 2 else [])]
            setup = [getattr(s, "name", s) for s in setup]
            op = build_op(current_scope(), op_type, built[0], built[1])
    gd = g.as_graph_def()
    g2 = _import_copy(g)
    assert _without_locations(g2.as_graph_def()) == _without_locations(gd)
    op2 = g2.get_operation_by_name(op.name)
    assert op2.type == op.type
    assert [(o.dtype, o.shape) for o in op2.outputs] == [(o.dtype, o.shape) for o in op.outputs]
    if registry.get(op_type).is_stateful and not op.outputs:
        return  # a side effect only; running it is covered by the family's own tests
    setup = [s.rpartition(":")[0] if ":" in s else s for s in setup]
    before = _run_all(g, op.name, setup, feeds)
    after = _run_all(g2, op.name, setup, feeds)
    if before is None:
        assert after is None
        return
    for out, a, b in zip(op.outputs, before, after):
        if out.dtype.name in ("resource", "variant"):
            continue  # handles name per-session state
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_small_graph_round_trip_values():
    g = _small_graph()
    g2 = _import_copy(g)
    assert [op.name for op in g2.get_operations()] == [op.name for op in g.get_operations()]
    assert [c.name for c in g2.get_operation_by_name("train").control_inputs] == ["y"]
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        a = s1.run("y:0", {"x:0": feed})
        b = s2.run("y:0", {"x:0": feed})
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, feed + np.arange(3))


def test_strings_devices_and_readonly_tensors_round_trip():
    g = tm.Graph()
    with g.as_default():
        with tm.device("/device:CPU:0"):
            s = tm.constant(np.array(["héllo", b"\xff"], dtype=object), dtype=tm.string,
                            name="s")
        tm.identity(s, name="out")
    g2 = _import_copy(g)
    assert g2.get_operation_by_name("s").device == "/device:CPU:0"
    assert g2.get_operation_by_name("out").device == ""
    value = g2.get_operation_by_name("s").get_attr("value")
    assert not value.flags.writeable
    with tm.Session(graph=g2) as sess:
        assert sess.run("out:0").tolist() == ["héllo", b"\xff"]


# ----------------------------------------------------------------------------------------
# import_graph_def options


def test_default_name_scope_is_import_and_unique():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        import_graph_def(gd)
        import_graph_def(gd)
        with tm.name_scope("outer"):
            import_graph_def(gd, name="sub")
    names = [op.name for op in g.get_operations()]
    assert names[:5] == ["import/x", "import/c", "import/pair", "import/y", "import/train"]
    assert names[5:10] == [f"import_1/{n}" for n in ["x", "c", "pair", "y", "train"]]
    assert names[10] == "outer/sub/x"
    assert [c.name for c in g.get_operation_by_name("import_1/train").control_inputs] == [
        "import_1/y"
    ]


def test_exact_names_refused_when_taken():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        import_graph_def(gd, name="")
        before = len(g.get_operations())
        with pytest.raises(ValueError, match="'x' of graph_def as 'x': that name is already used"):
            import_graph_def(gd, name="")
        assert len(g.get_operations()) == before  # checked before anything was built


def test_input_map_replaces_inputs_and_keeps_the_node():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        fed = tm.constant(np.ones((1, 3), np.float32), name="fed")
        (y,) = import_graph_def(gd, input_map={"x:0": fed}, return_elements=["y:0"])
        (y2,) = import_graph_def(gd, input_map={"x": fed}, return_elements=["y:0"])
    assert "import/x" in g  # the replaced placeholder is still imported
    pair = g.get_operation_by_name("import/pair")
    assert pair.inputs[0] is fed
    assert y.shape.as_list() == [1, 3]  # shape functions re-ran on the mapped input
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y), [[1.0, 2.0, 3.0]])
        np.testing.assert_array_equal(sess.run(y2), [[1.0, 2.0, 3.0]])


def test_input_map_errors():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        fed = tm.constant(np.ones((1, 3), np.float32))
        with pytest.raises(ValueError, match=r"not found in graph_def: \[nope:0\]"):
            import_graph_def(gd, input_map={"nope:0": fed})
        with pytest.raises(ValueError, match=r"not found in graph_def: \[x:3\]"):
            import_graph_def(gd, input_map={"x:3": fed})
        wrong = tm.constant(np.ones((1, 3), np.int32))
        with pytest.raises(TypeError, match="while importing node 'pair'"):
            import_graph_def(gd, input_map={"x:0": wrong}, name="bad")
        with pytest.raises(TypeError, match="must be a Tensor"):
            import_graph_def(gd, input_map={"x:0": 3.0})


def test_input_map_of_control_inputs():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        gate = tm.no_op(name="gate")
        (train,) = import_graph_def(gd, input_map={"^y": gate}, return_elements=["train"])
    assert train.control_inputs == (gate,)


def test_return_elements():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        y, train, second = import_graph_def(
            gd, return_elements=["y:0", "train", "pair:1"], name="m"
        )
    assert isinstance(y, tm.Output) and y.name == "m/y:0"
    assert isinstance(train, tm.Operation) and train.name == "m/train"
    assert second.name == "m/pair:1" and second.shape.as_list() == [3]
    with g.as_default():
        with pytest.raises(ValueError, match="Requested return_element 'zz:0' not found"):
            import_graph_def(gd, return_elements=["zz:0"])
        with pytest.raises(ValueError, match=r"'pair:5' does not exist; node 'pair'"):
            import_graph_def(gd, return_elements=["pair:5"])


def test_ambient_control_dependencies_reach_root_nodes():
    gd = _json(_small_graph().as_graph_def())
    g = tm.Graph()
    with g.as_default():
        first = tm.no_op(name="first")
        with tm.control_dependencies([first]):
            import_graph_def(gd)
    assert g.get_operation_by_name("import/x").control_inputs == (first,)
    assert g.get_operation_by_name("import/c").control_inputs == (first,)
    assert g.get_operation_by_name("import/y").control_inputs == ()


def test_unknown_op_type_names_close_matches():
    gd = _json(_small_graph().as_graph_def())
    gd["node"][3]["op"] = "AddV3"
    g = tm.Graph()
    with g.as_default():
        with pytest.raises(tm.errors.NotFoundError) as info:
            import_graph_def(gd)
    assert "Op type not registered 'AddV3'" in str(info.value)
    assert "'AddV2'" in str(info.value)  # the registry's close matches
    assert "node 'y'" in str(info.value)
    assert g.get_operations() == []  # found before anything was built


def test_control_edge_cycle_imports_then_fails_to_run():
    gd = _json(_small_graph().as_graph_def())
    by = {n["name"]: n for n in gd["node"]}
    by["pair"]["input"].append("^train")  # pair -> y -> train -> (control) pair
    g = tm.Graph()
    with g.as_default():
        y, train = import_graph_def(gd, return_elements=["y:0", "train"], name="")
    assert g.get_operation_by_name("train") in g.get_operation_by_name("pair").control_inputs
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run("c:0"), [0.0, 1.0, 2.0])  # outside the cycle
        with pytest.raises(tm.errors.InvalidArgumentError, match="Graph contains a cycle"):
            sess.run(train, feed_dict={"x:0": np.zeros((1, 3), np.float32)})


def test_bad_defs_fail_clearly_and_leave_the_graph_as_it_was():
    base = _json(_small_graph().as_graph_def())

    def imported(mutate):
        gd = json.loads(json.dumps(base))
        mutate({n["name"]: n for n in gd["node"]}, gd)
        g = tm.Graph()
        with g.as_default():
            kept = tm.no_op(name="kept")
            try:
                import_graph_def(gd)
            finally:
                assert g.get_operations() == [kept]
                assert kept.control_inputs == ()
                # Names too: the next import gets "import", not "import_1".
                import_graph_def(base)
                assert "import/y" in g

    def data_cycle(by, gd):
        by["x"]["input"] = ["y"]
        by["x"]["op"] = "Identity"
        by["x"]["attr"] = {"T": {"type": "float32"}}

    with pytest.raises(ValueError, match="cycle through data inputs"):
        imported(data_cycle)

    def bad_shape(by, gd):
        by["c"]["attr"]["value"]["tensor"] = {"dtype": "float32", "shape": [4],
                                              "values": [1.0, 2.0, 3.0, 4.0]}

    with pytest.raises(ValueError, match=r"Dimensions must be equal.*import/y.*while importing"):
        imported(bad_shape)

    def dangling(by, gd):
        by["y"]["input"] = ["pair", "ghost:1"]

    with pytest.raises(ValueError, match="input from unknown node 'ghost'"):
        imported(dangling)

    def duplicate(by, gd):
        gd["node"].append(dict(by["c"]))

    with pytest.raises(ValueError, match="duplicate node name 'c'"):
        imported(duplicate)

    def wrong_type(by, gd):
        by["y"]["attr"]["T"] = {"type": "int32"}

    with pytest.raises(TypeError, match="node 'y'"):
        imported(wrong_type)

    def missing_output(by, gd):
        by["y"]["input"] = ["pair", "c:4"]

    with pytest.raises(ValueError, match="'c:4' does not exist"):
        imported(missing_output)

    g = tm.Graph()
    with g.as_default():
        fed = tm.constant(np.ones((1, 3), np.float32), name="fed")
        with pytest.raises(ValueError, match="'y:1' does not exist"):
            import_graph_def(base, input_map={"x": fed}, return_elements=["y:1"])
        assert g.get_operations() == [fed.op] and fed.consumers() == []

    with pytest.raises(TypeError, match="graph_def must be a dict"):
        import_graph_def(json.dumps(base))


# ----------------------------------------------------------------------------------------
# Function library


@pytest.fixture
def call_op():
    """``_SerCall``: runs its func attr on its inputs (a stand-in for cond/while)."""

    def shape(ic):
        return [o.shape for o in ic.attrs["f"].outputs]

    @register_op("_SerCall", inputs=["args: Tin"], outputs=["out: Tout"],
                 attrs=["Tin: list(type)", "Tout: list(type)", "f: func"], shape_fn=shape)
    def call(ctx, args, *, f):
        # A list output is returned as a sequence, even when it holds one tensor.
        return ctx.call_function(f, args)

    yield "_SerCall"
    unregister("_SerCall")


def _function(outer, name, body):
    fn = FuncGraph(name=name, outer_graph=outer)
    with fn.as_default():
        arg = fn.add_argument(tm.float32, (2,), name="arg")
        out = body(arg)
    fn.finalize_function([out])
    outer._register_function(fn)
    return fn


def _call(fn, args, name):
    return tm.raw_ops._SerCall(args=args, Tout=[o.dtype for o in fn.outputs], f=fn, name=name)


def test_function_library_round_trip(call_op):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (2,), name="x")

        def outer_body(arg):
            # A function calling a function: the library holds both, nested first.
            inner = _function(tm.get_default_graph(), "double",
                              lambda a: tm.raw_ops.AddV2(x=a, y=a, name="twice"))
            (r,) = _call(inner, [arg], "call_inner")
            return tm.identity(r + np.float32(1), name="result")

        outer = _function(g, "double_plus_one", outer_body)
        (y,) = _call(outer, [x], "call")
    gd = _json(g.as_graph_def())
    lib = gd["library"]["function"]
    assert [f["name"] for f in lib] == ["double", "double_plus_one"]
    assert lib[0]["inputs"] == ["arg"] and lib[0]["outputs"] == ["twice"]
    assert lib[1]["outputs"] == ["result"]
    assert lib[1]["control_outputs"] == []
    call = next(n for n in gd["node"] if n["name"] == "call")
    assert call["attr"]["f"] == {"func": "double_plus_one"}

    g2 = tm.Graph()
    with g2.as_default():
        (y2,) = import_graph_def(gd, return_elements=["call:0"], name="")
    f2 = g2.get_operation_by_name("call").get_attr("f")
    assert isinstance(f2, FuncGraph) and f2.name == "double_plus_one"
    assert f2.outer_graph is g2 and g2.functions["double_plus_one"] is f2
    inner2 = f2.get_operation_by_name("call_inner").get_attr("f")
    assert inner2.outer_graph is f2 and inner2.name == "double"
    assert [o.name for o in f2.inputs] == ["arg:0"]
    assert _without_locations(g2.as_graph_def()) == _without_locations(gd)
    feed = np.array([1.0, -2.0], np.float32)
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        np.testing.assert_array_equal(s1.run(y, {x: feed}), [3.0, -3.0])
        np.testing.assert_array_equal(s2.run(y2, {"x:0": feed}), [3.0, -3.0])

    # Importing the same def again must not alias or overwrite the first functions.
    with g2.as_default():
        (y3,) = import_graph_def(gd, return_elements=["call:0"])
    f3 = g2.get_operation_by_name("import/call").get_attr("f")
    assert f3 is not f2 and f3.name == "double_plus_one_1"
    assert g2.functions["double_plus_one"] is f2
    names = [f["name"] for f in g2.as_graph_def()["library"]["function"]]
    assert len(names) == len(set(names)) == 4
    with tm.Session(graph=g2) as s2:
        np.testing.assert_array_equal(s2.run(y3, {"import/x:0": feed}), [3.0, -3.0])


def test_function_library_errors(call_op):
    g = tm.Graph()
    with g.as_default():
        fn = _function(g, "ident", lambda a: tm.identity(a, name="out"))
        _call(fn, [tm.placeholder(tm.float32, (2,), name="x")], "call")
    base = _json(g.as_graph_def())

    gd = json.loads(json.dumps(base))
    gd["node"][-1]["attr"]["Tin"] = [{"type": "int32"}]  # fails after the function is built
    g4 = tm.Graph()
    with g4.as_default():
        with pytest.raises(TypeError, match="while importing node 'call'"):
            import_graph_def(gd)
    assert g4.get_operations() == [] and dict(g4.functions) == {}

    gd = json.loads(json.dumps(base))
    gd["library"]["function"] = []
    with tm.Graph().as_default():
        with pytest.raises(ValueError, match="function 'ident' which its library lacks"):
            import_graph_def(gd)

    gd = json.loads(json.dumps(base))
    gd["library"]["function"][0]["node"][1]["op"] = "Identiti"
    with tm.Graph().as_default() as g3:
        with pytest.raises(tm.errors.NotFoundError, match="'Identity'.*function 'ident'"):
            import_graph_def(gd)
        assert g3.get_operations() == []


def test_cond_round_trip():
    g = tm.Graph()
    with g.as_default():
        p = tm.placeholder(tm.bool, (), name="p")
        x = tm.placeholder(tm.float32, (2,), name="x")
        y = tm.cond(p, lambda: x + x, lambda: tm.identity(x), name="c")
    gd = _json(g.as_graph_def())
    assert len(gd["library"]["function"]) >= 2
    g2 = tm.Graph()
    with g2.as_default():
        (y2,) = import_graph_def(gd, return_elements=[y.name], name="")
    assert _without_locations(g2.as_graph_def()) == _without_locations(gd)
    feed = np.array([1.0, 2.0], np.float32)
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        for flag in (True, False):
            a = s1.run(y, {p: flag, x: feed})
            b = s2.run(y2, {"p:0": flag, "x:0": feed})
            np.testing.assert_array_equal(a, b)


def test_graph_to_dict_refuses_two_functions_with_one_name(call_op):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (2,), name="x")
        a = _function(g, "same", lambda a: tm.identity(a))
        _call(a, [x], "c1")
        b = FuncGraph(name="same", outer_graph=g)
        with b.as_default():
            arg = b.add_argument(tm.float32, (2,))
        b.finalize_function([arg])
        _call(b, [x], "c2")
    with pytest.raises(ValueError, match="Two different functions are named 'same'"):
        graph_to_dict(g)


def test_captures_and_loops_round_trip():
    """A cond capturing a variable handle and a while loop: the functions keep their captures,
    so shape functions inside still see the variable's dtype and shape."""
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable(np.arange(3, dtype=np.float32), name="v")
        p = tm.placeholder(tm.bool, (), name="p")
        y = tm.cond(p, lambda: v.read_value() * 2.0, lambda: tm.identity(v.read_value()),
                    name="c")
        _, acc = tm.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + a),
                               [tm.constant(0), tm.constant(np.ones(2, np.float32))])
        init = tm.global_variables_initializer()
    gd = _json(g.as_graph_def())
    captured = [f for f in gd["library"]["function"] if f["captures"]]
    assert captured and all(f["captures"] == [["v", "capture"]] for f in captured)
    g2 = tm.Graph()
    with g2.as_default():
        y2, acc2, init2 = import_graph_def(gd, return_elements=[y.name, acc.name, init.name],
                                           name="")
    assert _without_locations(g2.as_graph_def()) == _without_locations(gd)
    for f in captured:
        fn = g2.functions[f["name"]]
        ((outer, inner),) = fn.captures.items()
        assert outer is g2.get_tensor_by_name("v:0") and inner.op.name == "capture"
        reads = [op for op in fn.get_operations() if op.type == "ReadVariableOp"]
        assert [r.outputs[0].shape.as_list() for r in reads] == [[3]]
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        s1.run(init)
        s2.run(init2)
        for flag in (True, False):
            a = s1.run([y, acc], {p: flag})
            b = s2.run([y2, acc2], {"p:0": flag})
            for u, w in zip(a, b):
                np.testing.assert_array_equal(u, w)


def test_cond_after_import_keeps_function_names_unique():
    import tfmini.ops.control_flow as control_flow

    g0 = tm.Graph()
    with g0.as_default():
        p = tm.placeholder(tm.bool, (), name="p")
        tm.cond(p, lambda: tm.constant(1.0), lambda: tm.constant(2.0), name="c")
    text = json.dumps(g0.as_graph_def())
    # Another process would number its functions from 1 again; emulate the meeting names.
    uid = next(control_flow._uids)
    for fn in g0.functions.values():
        kind = "true" if "_true_" in fn.name else "false"
        text = text.replace(f'"{fn.name}"', f'"c_{kind}_{uid + (1 if kind == "true" else 2)}"')
    g = tm.Graph()
    with g.as_default():
        import_graph_def(json.loads(text))
        q = tm.placeholder(tm.bool, (), name="q")
        tm.cond(q, lambda: tm.constant(3.0), lambda: tm.constant(4.0), name="c")
    assert len(g.functions) == 4
    graph_to_dict(g)


def test_small_model_round_trip():
    """Families together: variables, matmul, nn, reductions, cond and a loop, via JSON text."""
    rng = np.random.default_rng(1)
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (None, 4), name="x")
        labels = tm.placeholder(tm.int32, (None,), name="labels")
        training = tm.placeholder(tm.bool, (), name="training")
        w = tm.Variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        b = tm.Variable(np.zeros(3, np.float32), name="b")
        with tm.name_scope("layer"):
            logits = tm.nn.bias_add(tm.matmul(x, w), b)
            hidden = tm.cond(training, lambda: tm.nn.relu(logits), lambda: logits * 0.5)
        loss = tm.reduce_mean(
            tm.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=hidden),
            name="loss",
        )
        _, powered = tm.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 1.5),
                                   [tm.constant(0), loss])
        init = tm.global_variables_initializer()
    text = json.dumps(g.as_graph_def(), allow_nan=False)
    g2 = tm.Graph()
    with g2.as_default():
        loss2, powered2, init2 = import_graph_def(
            json.loads(text), return_elements=[loss.name, powered.name, init.name], name="m"
        )
    assert loss2.name == "m/" + loss.name and loss2.shape.as_list() == []
    assert {op.name.removeprefix("m/") for op in g2.get_operations()} == {
        op.name for op in g.get_operations()
    }
    feed = {"x:0": rng.standard_normal((5, 4)).astype(np.float32),
            "labels:0": rng.integers(0, 3, 5).astype(np.int32)}
    with tm.Session(graph=g) as s1, tm.Session(graph=g2) as s2:
        s1.run(init)
        s2.run(init2)
        for flag in (True, False):
            a = s1.run([loss, powered], {**feed, "training:0": flag})
            b = s2.run([loss2, powered2],
                       {"m/" + k: v for k, v in {**feed, "training:0": flag}.items()})
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(a[1], b[1])
            np.testing.assert_allclose(a[1], a[0] * 1.5**3, rtol=1e-6)


def test_import_inside_a_cond_branch_captures_mapped_inputs():
    sub = tm.Graph()
    with sub.as_default():
        a = tm.placeholder(tm.float32, (2,), name="a")
        tm.identity(a * 3.0, name="out")
    gd = _json(sub.as_graph_def())
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (2,), name="x")
        p = tm.placeholder(tm.bool, (), name="p")

        def true_fn():
            (o,) = import_graph_def(gd, input_map={"a:0": x}, return_elements=["out:0"],
                                    name="sub")
            assert isinstance(o.graph, FuncGraph) and o.name == "sub/out:0"
            return o

        y = tm.cond(p, true_fn, lambda: tm.identity(x))
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0], p: True}), [3.0, 6.0])
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0], p: False}), [1.0, 2.0])
