"""The import validator: every malformed graph_def is refused before anything is built, with
the node named, in bounded time and memory (issue 16's reproducers)."""

from __future__ import annotations

import copy
import resource
import time

import numpy as np
import pytest

import tfmini as tm
from tfmini.core.graph_def_validation import validate_graph_def
from tfmini.core.limits import MAX_FUNCTION_DEPTH, MAX_OUTPUTS_PER_OP


def _const(name, value, dtype="float32", attr_dtype=None):
    arr = np.asarray(value)
    return {"name": name, "op": "Const", "attr": {
        "dtype": {"type": attr_dtype or dtype},
        "value": {"tensor": {"dtype": dtype, "shape": list(arr.shape),
                             "values": arr.ravel().tolist()}}}}


def _refused(gd, cls, match):
    g = tm.Graph()
    with g.as_default():
        with pytest.raises(cls, match=match):
            tm.import_graph_def(gd, name="")
        assert g.get_operations() == []


def test_const_value_of_another_dtype_is_refused_on_import():
    # TensorFlow's ConstantOp: "Type mismatch between value (float) and dtype (int32)".
    gd = {"node": [_const("c", 1.5, "float32", attr_dtype="int32")]}
    _refused(gd, tm.errors.InvalidArgumentError,
             r"Type mismatch between value \(float\) and dtype \(int32\) for node 'c'")


def test_const_of_dtype_resource_is_refused_on_import():
    gd = {"node": [_const("c", 1.5, "float32", attr_dtype="resource")]}
    _refused(gd, tm.errors.InvalidArgumentError, r"and dtype \(resource\) for node 'c'")


def test_input_given_as_a_string_is_refused_not_split_into_characters():
    gd = {"node": [_const("x", 1.5), _const("y", 1.5),
                   {"name": "a", "op": "AddV2", "input": "xy", "attr": {"T": {"type": "float32"}}}]}
    _refused(gd, ValueError, r"node 'a' of graph_def: 'input' must be a list of tensor names")


@pytest.mark.parametrize("ref", ["x:", "x:-1", "^", "^x:1", "", 3, None, "x:01", ["x"]])
def test_malformed_input_names_are_refused_naming_the_node(ref):
    node = {"name": "a", "op": "Identity", "input": [ref], "attr": {"T": {"type": "float32"}}}
    gd = {"node": [_const("x", 1.5), node]}
    _refused(gd, ValueError, r"node 'a' of graph_def: input .* is not a tensor name")


@pytest.mark.parametrize("field, value, match", [
    ("attr", [1, 2], r"node 'a' of graph_def: 'attr' must be a dict"),
    ("op", 7, r"node 'a' of graph_def: 'op' must be an op type string"),
    ("device", 7, r"node 'a' of graph_def: 'device' must be a string"),
])
def test_malformed_node_fields_name_the_node(field, value, match):
    node = {"name": "a", "op": "Identity", "input": ["x"], "attr": {"T": {"type": "float32"}}}
    node[field] = value
    _refused({"node": [_const("x", 1.5), node]}, ValueError, match)


@pytest.mark.parametrize("value, match", [
    ({"type": "float33"}, "must be a known dtype"),
    ("float32", r'must be \{"type": name\}'),
    (2**70, "must be"),
])
def test_attr_values_are_type_checked_against_the_op_def(value, match):
    gd = {"node": [_const("x", 1.5),
                   {"name": "a", "op": "Identity", "input": ["x"], "attr": {"T": value}}]}
    _refused(gd, ValueError, "node 'a' of graph_def: attr 'T' " + match)


def test_unknown_attr_names_are_refused():
    gd = {"node": [_const("x", 1.5), {"name": "a", "op": "Identity", "input": ["x"],
                                      "attr": {"T": {"type": "float32"}, "Q": 1}}]}
    _refused(gd, ValueError, r"node 'a' of graph_def: Identity has no attr 'Q'")


def test_int_attrs_beyond_int64_are_refused():
    for n in (2**63, 2**64, -(2**63) - 1):
        gd = {"node": [_const("x", [1.0, 2.0]), _const("d", 0, "int32"),
                       {"name": "s", "op": "Split", "input": ["d", "x"],
                        "attr": {"T": {"type": "float32"}, "num_split": n}}]}
        _refused(gd, ValueError, r"node 's' of graph_def: attr 'num_split' must be an int64")


@pytest.mark.parametrize("op, attr", [("Split", "num_split"), ("Unpack", "num")])
@pytest.mark.parametrize("count", [10**6, 10**9])
def test_output_counts_are_bounded_before_anything_is_allocated(op, attr, count):
    # The reproducer: a 486-byte def asking for a million outputs cost 237 MB and 3 s.
    if op == "Split":
        node = {"name": "s", "op": "Split", "input": ["d", "x"],
                "attr": {"T": {"type": "float32"}, attr: count}}
    else:
        node = {"name": "s", "op": "Unpack", "input": ["x"],
                "attr": {"T": {"type": "float32"}, attr: count, "axis": 0}}
    gd = {"node": [_const("x", [1.0, 2.0, 3.0, 4.0]), node, _const("d", 0, "int32")]}
    start = time.perf_counter()
    _refused(gd, ValueError, rf"node 's' of graph_def: {op} would have {count} outputs, more "
                             rf"than the limit of {MAX_OUTPUTS_PER_OP}")
    assert time.perf_counter() - start < 1.0


def test_output_count_limit_also_applies_to_raw_ops(graph):
    with pytest.raises(ValueError, match=r"Split 'Split' would have 1000000 outputs"):
        tm.raw_ops.Split(split_dim=0, value=[1.0, 2.0], num_split=10**6)
    assert graph.get_operations() == []


def test_input_index_beyond_the_sources_outputs_is_refused():
    gd = {"node": [_const("x", 1.5), {"name": "a", "op": "Identity", "input": ["x:3"],
                                      "attr": {"T": {"type": "float32"}}}]}
    _refused(gd, ValueError, r"node 'a' of graph_def: input 'x:3' does not exist: node 'x' has "
                             r"1 output")


def test_attrs_nested_50k_deep_fail_clearly_without_recursion():
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    gd = {"node": [_const("x", 1.5), {"name": "a", "op": "Identity", "input": ["x"],
                                      "attr": {"T": deep}}]}
    _refused(gd, ValueError, r"node 'a' of graph_def: attr 'T' nests lists or dicts more than")


def _call_node(name, fname, inputs=()):
    return {"name": name, "op": "StatelessIf", "input": ["p", *inputs],
            "attr": {"Tcond": {"type": "bool"}, "Tin": [], "Tout": [],
                     "then_branch": {"func": fname}, "else_branch": {"func": fname},
                     "output_shapes": []}}


def _function(name, nodes):
    return {"name": name, "node": nodes, "inputs": [], "outputs": [], "control_outputs": []}


def _pred(name="p"):
    return {"name": name, "op": "Const", "attr": {
        "dtype": {"type": "bool"},
        "value": {"tensor": {"dtype": "bool", "shape": [], "values": [True]}}}}


def test_a_2000_deep_chain_of_functions_is_refused_by_its_depth():
    n = 2000
    funcs = [_function(f"f{i}", [_pred(), _call_node("c", f"f{i + 1}")]) for i in range(n)]
    funcs.append(_function(f"f{n}", []))
    gd = {"node": [_pred(), _call_node("top", "f0")], "library": {"function": funcs}}
    _refused(gd, ValueError, rf"library functions nest {n + 1} deep, more than the limit of "
                             rf"{MAX_FUNCTION_DEPTH}")


def test_functions_referring_to_themselves_are_refused():
    funcs = [_function("a", [_pred(), _call_node("c", "b")]),
             _function("b", [_pred(), _call_node("c", "a")])]
    gd = {"node": [_pred(), _call_node("top", "a")], "library": {"function": funcs}}
    _refused(gd, ValueError, r"refer to themselves through a cycle \(among 'a', 'b'\)")


def test_a_missing_function_is_refused_naming_it():
    gd = {"node": [_pred(), _call_node("top", "nope")]}
    _refused(gd, ValueError, r"refers to function 'nope' which its library lacks")


def test_bad_base64_in_a_string_tensor_is_a_value_error_naming_the_node():
    node = {"name": "s", "op": "Const", "attr": {
        "dtype": {"type": "string"},
        "value": {"tensor": {"dtype": "string", "shape": [1], "values": [{"bytes": "!!notb64"}]}}}}
    _refused({"node": [node]}, ValueError, r"bad base64.*attr 'value' of node 's'")


def test_unknown_op_type_is_not_found_naming_the_node():
    # tm.import_graph_def lists every unknown op type with its nodes in one error (the io
    # family's front end); the validator on its own names the node too.
    _refused({"node": [{"name": "z", "op": "NoSuchOp"}]}, tm.errors.NotFoundError,
             r"NoSuchOp \(nodes: z\)")
    with pytest.raises(tm.errors.NotFoundError, match=r"NoSuchOp.*node 'z' of graph_def"):
        validate_graph_def({"node": [{"name": "z", "op": "NoSuchOp"}]})


def test_validate_graph_def_is_callable_on_its_own():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [2])
        tm.split(x * 2.0, 2)
    gd = g.as_graph_def()
    validate_graph_def(gd)  # a real graph passes
    bad = copy.deepcopy(gd)
    bad["node"][-1]["input"] = "mul"
    with pytest.raises(ValueError, match=r"node 'split' of graph_def"):
        validate_graph_def(bad)
    with pytest.raises(TypeError, match="graph_def must be a dict"):
        validate_graph_def([gd])


def test_small_hostile_defs_stay_within_bounded_memory():
    # Each def is under 1 kB; none may grow the process by more than a few MB.
    defs = []
    for count in (10**6, 10**9, 2**62):
        node = {"name": "s", "op": "Unpack", "input": ["x"],
                "attr": {"T": {"type": "float32"}, "num": count}}
        defs.append({"node": [_const("x", [1.0]), node]})
    defs.append({"node": [{"name": "c", "op": "Const", "attr": {
        "dtype": {"type": "float32"},
        "value": {"tensor": {"dtype": "float32", "shape": [10**9], "values": [1.0]}}}}]})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for gd in defs:
        g = tm.Graph()
        with g.as_default():
            try:
                tm.import_graph_def(gd, name="")
            except ValueError:
                pass
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 20_000
