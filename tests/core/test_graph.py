"""Graph, Operation and Output: TensorFlow's naming, lookups, collections, finalize."""

from __future__ import annotations

import types

import numpy as np
import pytest

import tfmini as tm


def _add(a, b, name=None):
    return tm.raw_ops.Add(x=a, y=b, name=name)


@pytest.fixture
def ab(graph):
    return tm.constant(1.0, name="a"), tm.constant(2.0, name="b")


# -- naming -------------------------------------------------------------------------------


def test_default_names_count_up(graph, ab):
    names = [_add(*ab).op.name for _ in range(3)]
    assert names == ["Add", "Add_1", "Add_2"]


def test_explicit_name_is_uniquified(graph):
    assert [tm.constant(1.0, name="W").op.name for _ in range(3)] == ["W", "W_1", "W_2"]


def test_explicitly_taken_name_is_never_handed_out(graph, ab):
    # The user took "Add_1": automatic naming skips it, as TensorFlow's unique_name does.
    assert _add(*ab, name="Add_1").op.name == "Add_1"
    assert _add(*ab).op.name == "Add"
    assert _add(*ab).op.name == "Add_2"
    assert _add(*ab).op.name == "Add_3"


def test_name_of_a_uniquified_name_is_uniquified_again(graph):
    assert tm.constant(1, name="W").op.name == "W"
    assert tm.constant(1, name="W").op.name == "W_1"
    assert tm.constant(1, name="W_1").op.name == "W_1_1"


def test_names_collide_case_insensitively(graph):
    assert tm.constant(1, name="foo").op.name == "foo"
    assert tm.constant(1, name="Foo").op.name == "Foo_1"
    assert tm.constant(1, name="FOO").op.name == "FOO_2"


def test_nested_name_scopes(graph, ab):
    with tm.name_scope("outer") as outer:
        assert outer == "outer/"
        assert tm.get_name_scope() == "outer"
        with tm.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            assert _add(*ab).op.name == "outer/inner/Add"
            assert _add(*ab).op.name == "outer/inner/Add_1"
        assert _add(*ab).op.name == "outer/Add"
    assert tm.get_name_scope() == ""
    assert _add(*ab).op.name == "Add"


def test_reentering_a_scope_name_makes_a_new_scope(graph, ab):
    with tm.name_scope("outer"):
        _add(*ab)
    with tm.name_scope("outer") as again:
        assert again == "outer_1/"
        assert _add(*ab).op.name == "outer_1/Add"


def test_trailing_slash_reenters_the_exact_scope(graph, ab):
    with tm.name_scope("outer") as outer:
        _add(*ab)
    with tm.name_scope("inner"):
        with tm.name_scope(outer) as scope:  # absolute, not nested under "inner"
            assert scope == "outer/"
            assert _add(*ab).op.name == "outer/Add_1"


def test_name_scope_none_or_empty_returns_to_the_root(graph, ab):
    with tm.name_scope("outer"):
        with tm.name_scope(None) as root:
            assert root == ""
            assert _add(*ab).op.name == "Add"
        with tm.name_scope("") as root:
            assert root == ""
            assert _add(*ab).op.name == "Add_1"
        assert _add(*ab).op.name == "outer/Add"


def test_name_scope_default_name(graph):
    with tm.name_scope(None, default_name="dflt") as s:
        assert s == "dflt/"
    with tm.name_scope(None, default_name="dflt") as s:
        assert s == "dflt_1/"


def test_scope_names_and_op_names_share_one_namespace(graph):
    with tm.name_scope("block"):
        assert tm.constant(1.0, name="block").op.name == "block/block"
    assert tm.constant(1.0, name="block").op.name == "block_1"
    tm.constant(1.0, name="layer")
    with tm.name_scope("layer") as s:
        assert s == "layer_1/"


def test_scope_name_may_contain_slashes_as_tensorflow(graph):
    with tm.name_scope("a/b") as s:
        assert s == "a/b/"
        assert tm.constant(0, name="c").op.name == "a/b/c"


def test_nested_scope_names_follow_tf_patterns(graph):
    with tm.name_scope("outer"):
        with tm.name_scope("_private") as s:  # allowed below the root (TF's scope regex)
            assert s == "outer/_private/"
    with pytest.raises(ValueError, match="'_private' is not a valid scope name"):
        with tm.name_scope("_private"):
            pass


def test_trailing_slash_in_op_name_means_that_exact_name(graph, ab):
    with tm.name_scope("ignored"):
        op = _add(*ab, name="exact/").op
    assert op.name == "exact"
    with pytest.raises(ValueError, match="Duplicate node name in graph: 'exact'"):
        _add(*ab, name="exact/")
    assert _add(*ab, name="exact").op.name == "exact_1"


def test_name_from_a_name_scope_names_the_op_exactly(graph, ab):
    # TensorFlow's idiom: `with tf.name_scope("blk") as scope: ... tf.identity(y, name=scope)`.
    with tm.name_scope("blk") as scope:
        inner = _add(*ab)
        out = tm.identity(inner, name=scope)
    assert inner.op.name == "blk/Add"
    assert out.op.name == "blk"


@pytest.mark.parametrize("bad", ["-x", "a b", "_x", "", "x:0", "ü"])
def test_invalid_op_names_quote_the_name_and_the_pattern(graph, bad):
    with pytest.raises(ValueError) as info:
        tm.constant(1.0, name=bad)
    msg = str(info.value)
    assert f"'{bad}'" in msg
    assert "[A-Za-z0-9.][A-Za-z0-9_.\\-/>]*" in msg


@pytest.mark.parametrize("bad", ["-x", "a b", "a:b"])
def test_invalid_scope_names(graph, bad):
    with pytest.raises(ValueError) as info:
        with tm.name_scope(bad):
            pass
    assert f"'{bad}' is not a valid scope name" in str(info.value)
    assert "[A-Za-z0-9.]" in str(info.value)


def test_non_string_scope_name_is_a_type_error(graph):
    with pytest.raises(TypeError):
        with tm.name_scope(3):
            pass


def test_unique_name_without_marking(graph):
    assert graph.unique_name("n", mark_as_used=False) == "n"
    assert graph.unique_name("n", mark_as_used=False) == "n"
    assert graph.unique_name("n") == "n"
    assert graph.unique_name("n", mark_as_used=False) == "n_1"
    assert graph.unique_name("n") == "n_1"


# -- lookups ------------------------------------------------------------------------------


def test_get_operation_and_tensor_by_name(graph, ab):
    a, _ = ab
    assert graph.get_operation_by_name("a") is a.op
    assert graph.get_tensor_by_name("a:0") is a
    assert "a" in graph and "zz" not in graph


def test_lookup_errors_say_what_is_wrong(graph, ab):
    with pytest.raises(KeyError, match="The name 'nope' refers to an Operation not in the graph"):
        graph.get_operation_by_name("nope")
    with pytest.raises(ValueError, match="looks like an Operation name, not a Tensor name"):
        graph.get_tensor_by_name("a")
    with pytest.raises(KeyError, match="refers to a Tensor which does not exist"):
        graph.get_tensor_by_name("a:1")
    with pytest.raises(KeyError, match="refers to an Operation not in the graph"):
        graph.get_tensor_by_name("nope:0")
    with pytest.raises(TypeError, match="Operation names are strings"):
        graph.get_operation_by_name(3)
    with pytest.raises(TypeError, match="Tensor names are strings"):
        graph.get_tensor_by_name(None)


def test_as_graph_element(graph, ab):
    a, _ = ab
    assert graph.as_graph_element("a:0") is a
    assert graph.as_graph_element("a") is a.op
    assert graph.as_graph_element(a) is a
    assert graph.as_graph_element(a.op) is a.op
    with pytest.raises(ValueError, match="looks like an Operation name"):
        graph.as_graph_element("a", allow_operation=False)
    with pytest.raises(ValueError, match="'a:0' appears to refer to a Tensor, not a Operation"):
        graph.as_graph_element("a:0", allow_tensor=False)
    with pytest.raises(TypeError, match="Can not convert a Tensor into a Operation"):
        graph.as_graph_element(a, allow_tensor=False)
    with pytest.raises(TypeError, match="Can not convert a Operation into a Tensor"):
        graph.as_graph_element(a.op, allow_operation=False)
    with pytest.raises(TypeError, match="Can not convert a int into a graph element"):
        graph.as_graph_element(3)
    other = tm.Graph()
    with other.as_default():
        c = tm.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        graph.as_graph_element(c)


# -- operations and outputs ---------------------------------------------------------------


def test_operations_in_creation_order(graph, ab):
    a, b = ab
    s = _add(a, b)
    assert graph.get_operations() == [a.op, b.op, s.op]
    assert graph.operations == [a.op, b.op, s.op]
    assert [op._id for op in graph.get_operations()] == [0, 1, 2]
    assert graph.version == 3


def test_operation_and_output_properties(graph, ab):
    a, b = ab
    s = _add(a, b, name="s")
    op = s.op
    assert op.type == "Add" and op.name == "s" and op.graph is graph
    assert op.inputs == (a, b)
    assert op.outputs == (s,) and op.values() == (s,) and op.output(0) is s
    assert op.num_outputs == 1
    assert op.get_attr("T") is tm.float32
    assert s.name == "s:0" and s.value_index == 0 and s.dtype is tm.float32
    assert s.graph is graph and s.shape == [] and s.get_shape() == []
    assert s.ndim == 0
    assert a.consumers() == [op]
    assert repr(s) == "<tm.Tensor 's:0' shape=() dtype=float32>"
    assert repr(op) == "<tm.Operation 's' type=Add>"


def test_attrs_are_frozen(graph, ab):
    op = _add(*ab).op
    assert isinstance(op.attrs, types.MappingProxyType)
    with pytest.raises(TypeError):
        op.attrs["T"] = tm.int32
    with pytest.raises(ValueError, match="Operation 'Add' has no attr named 'nope'"):
        op.get_attr("nope")


def test_outputs_are_identities_usable_as_dict_keys(graph):
    a = tm.constant(1.0)
    b = tm.constant(1.0)
    assert (a == a) is True
    assert {a: 1, b: 2}[a] == 1


def test_symbolic_outputs_refuse_python_truth_iteration_and_len(graph):
    x = tm.placeholder(tm.float32, shape=[3])
    with pytest.raises(TypeError, match="as a Python `bool`"):
        bool(x)
    with pytest.raises(TypeError, match="not iterable"):
        iter(x)
    with pytest.raises(TypeError, match="len is not well defined"):
        len(x)


def test_set_shape_merges_and_refuses_incompatible_shapes(graph):
    x = tm.placeholder(tm.float32, shape=[None, 3])
    x.set_shape([2, None])
    assert x.shape == [2, 3]
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([4, 3])


def test_as_output_of_multi_output_op_is_a_type_error(graph):
    a = tm.constant(1.0)
    op = tm.raw_ops.IdentityN(input=[a, a])[0].op
    with pytest.raises(TypeError, match="has 2 outputs"):
        op.as_output()
    assert tm.no_op().outputs == ()


def test_add_control_input(graph):
    a = tm.no_op(name="a")
    b = tm.no_op(name="b")
    b._add_control_input(a)
    b._add_control_inputs([a])
    assert b.control_inputs == (a,)
    other = tm.Graph()
    with other.as_default():
        c = tm.no_op()
    with pytest.raises(ValueError, match="different graph"):
        b._add_control_input(c)


# -- collections --------------------------------------------------------------------------


def test_collections(graph):
    a = tm.constant(1.0, name="scope1/a")
    b = tm.constant(1.0, name="scope2/b")
    graph.add_to_collection("things", a)
    graph.add_to_collections(["things", "more"], b)
    graph.add_to_collections("more", "no name")
    assert graph.get_collection("things") == [a, b]
    assert graph.get_collection("more") == [b, "no name"]
    assert graph.get_collection("missing") == []
    assert sorted(graph.get_all_collection_keys()) == ["more", "things"]


def test_get_collection_returns_a_copy_and_ref_is_live(graph):
    graph.add_to_collection("c", 1)
    copy = graph.get_collection("c")
    copy.append(2)
    assert graph.get_collection("c") == [1]
    ref = graph.get_collection_ref("c")
    ref.append(3)
    assert graph.get_collection("c") == [1, 3]
    assert graph.get_collection_ref("new") == []
    graph.clear_collection("c")
    assert graph.get_collection("c") == []


def test_get_collection_scope_filter_matches_names_by_regex(graph):
    a = tm.constant(1.0, name="scope1/a")
    b = tm.constant(1.0, name="scope2/b")
    for item in (a, b, "unnamed", 42):
        graph.add_to_collection("c", item)
    assert graph.get_collection("c", scope="scope1") == [a]
    assert graph.get_collection("c", scope="scope") == [a, b]
    # Items without a name never match a scope filter, even one matching everything (TF).
    assert graph.get_collection("c", scope=".*") == [a, b]


# -- finalize and the default graph -------------------------------------------------------


def test_finalize_refuses_new_ops_and_reserves_no_name(graph):
    tm.constant(1.0, name="before")
    graph.finalize()
    assert graph.finalized
    with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified"):
        tm.constant(2.0, name="after")
    assert [op.name for op in graph.get_operations()] == ["before"]
    assert graph.unique_name("after", mark_as_used=False) == "after"


def test_default_graph(graph):
    assert tm.get_default_graph() is graph
    g2 = tm.Graph()
    with g2.as_default() as entered:
        assert entered is g2
        assert tm.get_default_graph() is g2
        c = tm.constant(1.0)
    assert c.graph is g2
    assert tm.get_default_graph() is graph


def test_reset_default_graph():
    before = tm.get_default_graph()
    tm.reset_default_graph()
    after = tm.get_default_graph()
    assert after is not before and after.get_operations() == []
    with after.as_default():
        with pytest.raises(AssertionError, match="nested graphs"):
            tm.reset_default_graph()


def test_graph_repr_and_identity_hash():
    g = tm.Graph()
    assert repr(g).startswith("<tm.Graph with 0 ops")
    assert g != tm.Graph()
    assert {g: 1}[g] == 1


def test_const_values_are_read_only(graph):
    c = tm.constant(np.arange(3, dtype=np.float32))
    value = c.op.get_attr("value")
    assert not value.flags.writeable


def test_a_scope_named_op_keeps_the_scope_count(graph, ab):
    # TF's library idiom `with name_scope(None, "x") as n: ...; op(name=n)` called repeatedly
    # names the ops x, x_1, x_2 (TensorFlow 2.21); the exact name must not count twice.
    names = []
    for _ in range(3):
        with tm.name_scope(None, "x", list(ab)) as n:
            names.append(tm.identity(ab[0], name=n).op.name)
    assert names == ["x", "x_1", "x_2"]
