"""Scope is immutable; the TF1 ambient conveniences keep a current scope per thread."""

from __future__ import annotations

import os
import sys
import threading

import attrs
import numpy as np
import pytest

import tfmini as tm
from tfmini.core.devices import DeviceSpec, canonical_device, device_type_of
from tfmini.core.source import SourceLocation, user_location

# -- the immutable Scope ------------------------------------------------------------------


def test_with_methods_return_new_scopes_and_leave_the_original_alone():
    g = tm.Graph()
    with g.as_default():
        a = tm.constant(1.0, name="a")
    root = tm.Scope(g)
    derived = [
        root.with_sub_scope("layer"),
        root.with_name("op"),
        root.with_control_dependencies([a]),
        root.with_device("/cpu:0"),
    ]
    for d in derived:
        assert d is not root
        assert d.graph is g
    assert root == tm.Scope(g)
    assert (root.name_prefix, root.op_name, root.control_dependencies, root.device) == (
        "", None, (), ""
    )
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        root.device = "/cpu:0"


def test_sub_scopes_are_made_unique():
    g = tm.Graph()
    s = tm.Scope(g)
    first = s.with_sub_scope("layer1")
    second = s.with_sub_scope("layer1")
    assert (first.name_prefix, second.name_prefix) == ("layer1", "layer1_1")
    assert first.with_sub_scope("inner").name_prefix == "layer1/inner"
    a = tm.ops.Const.create(first, value=np.float32(1.0), dtype=tm.float32)
    b = tm.ops.Const.create(first, value=np.float32(1.0), dtype=tm.float32)
    assert (a.op.name, b.op.name) == ("layer1/Const", "layer1/Const_1")
    assert tm.ops.Add.create(second, a, b).op.name == "layer1_1/Add"


def test_with_name_names_the_next_op():
    g = tm.Graph()
    s = tm.Scope(g).with_sub_scope("sp")
    named = s.with_name("cst")
    assert named.op_name == "cst" and s.op_name is None
    assert tm.ops.Const.create(named, value=np.float32(1.0), dtype=tm.float32).op.name == "sp/cst"
    assert tm.ops.Const.create(named, value=np.float32(1.0), dtype=tm.float32).op.name == "sp/cst_1"
    assert tm.ops.Const.create(s, value=np.float32(1.0), dtype=tm.float32).op.name == "sp/Const"


def test_sub_scope_of_a_named_scope_takes_the_op_name():
    # TensorFlow Java's NameScope.withSubScope: an op name set by withName overrides.
    s = tm.Scope(tm.Graph()).with_name("picked").with_sub_scope("ignored")
    assert s.name_prefix == "picked" and s.op_name is None


@pytest.mark.parametrize("bad", ["a b", "-x", "a/b", "", "_x"])
def test_invalid_scope_and_op_names(bad):
    s = tm.Scope(tm.Graph())
    for make in (s.with_name, s.with_sub_scope):
        with pytest.raises(ValueError) as info:
            make(bad)
        assert f"'{bad}'" in str(info.value)
        assert "[A-Za-z0-9.][A-Za-z0-9_.\\-]*" in str(info.value)


def test_with_name_none_is_refused():
    with pytest.raises(ValueError, match="Names cannot be None"):
        tm.Scope(tm.Graph()).with_name(None)


def test_with_control_dependencies_accumulates_without_duplicates():
    g = tm.Graph()
    with g.as_default():
        a = tm.constant(1.0, name="a")
        b = tm.no_op(name="b")
    s = tm.Scope(g).with_control_dependencies([a]).with_control_dependencies([b, a.op])
    assert s.control_dependencies == (a.op, b)
    assert s.without_control_dependencies().control_dependencies == ()
    c = tm.ops.Const.create(s, value=np.float32(1.0), dtype=tm.float32)
    assert c.op.control_inputs == (a.op, b)
    with pytest.raises(TypeError, match="Control dependency must be an Operation or Tensor"):
        tm.Scope(g).with_control_dependencies([3])


def test_with_device_canonicalises_and_none_clears():
    s = tm.Scope(tm.Graph())
    assert s.with_device("/cpu:0").device == "/device:CPU:0"
    assert s.with_device("TPU:1").device == "/device:TPU:1"
    assert s.with_device("/cpu:0").with_device(None).device == ""
    with pytest.raises(ValueError, match="Unknown attribute 'bogus' is encountered"):
        s.with_device("/bogus:1")


# -- TF1 ambient conveniences -------------------------------------------------------------


def test_as_default_nests_and_restores():
    g1, g2 = tm.Graph(), tm.Graph()
    with g1.as_default():
        with g2.as_default():
            assert tm.get_default_graph() is g2
            with g1.as_default():
                assert tm.get_default_graph() is g1
            assert tm.get_default_graph() is g2
        assert tm.get_default_graph() is g1


def test_reentering_a_graph_keeps_its_name_scope_and_control_dependencies():
    # TensorFlow keeps these per graph: `with sess:` inside a name scope stays in it.
    g = tm.Graph()
    with g.as_default():
        a = tm.no_op(name="a")
        with tm.name_scope("train"), tm.control_dependencies([a]):
            with g.as_default():
                c = tm.constant(1.0)
            with tm.Session(graph=g):
                d = tm.constant(1.0)
            with tm.Graph().as_default():
                fresh = tm.constant(1.0)
    assert c.op.name == "train/Const" and c.op.control_inputs == (a,)
    assert d.op.name == "train/Const_1"
    assert fresh.op.name == "Const" and fresh.op.control_inputs == ()


def test_default_graph_is_per_thread():
    g = tm.Graph()
    seen = {}
    built = {}
    barrier = threading.Barrier(2)

    def worker():
        seen["default"] = tm.get_default_graph()
        own = tm.Graph()
        with own.as_default():
            barrier.wait()  # the main thread is inside g.as_default() now
            built["op"] = tm.constant(1.0)
            barrier.wait()

    with g.as_default():
        t = threading.Thread(target=worker)
        t.start()
        barrier.wait()
        assert tm.get_default_graph() is g  # the worker's as_default does not leak here
        mine = tm.constant(1.0)
        barrier.wait()
        t.join()
    # A new thread starts on the process-wide default graph, not on this thread's.
    assert seen["default"] is not g and seen["default"] is tm.get_default_graph()
    assert built["op"].graph is not g
    assert mine.graph is g


def test_control_dependencies_accumulate_and_none_clears(graph):
    a = tm.constant(1.0, name="a")
    b = tm.constant(2.0, name="b")
    with tm.control_dependencies([a]):
        with tm.control_dependencies([b.op]):
            both = tm.constant(3.0, name="both")
            # A control input that is already a data input's producer is left out (TF).
            uses_a = tm.identity(a, name="uses_a")
            with tm.control_dependencies(None):
                cleared = tm.constant(3.0, name="cleared")
                with tm.control_dependencies([both]):
                    only_both = tm.constant(3.0, name="only_both")
    assert both.op.control_inputs == (a.op, b.op)
    assert uses_a.op.control_inputs == (b.op,)
    assert cleared.op.control_inputs == ()
    assert only_both.op.control_inputs == (both.op,)
    assert tm.constant(0.0).op.control_inputs == ()


def test_control_dependency_from_another_graph_is_refused(graph):
    with tm.Graph().as_default():
        far = tm.no_op(name="far")
    # Silently dropping it would let the op run unordered.
    with pytest.raises(ValueError, match="Control dependency far is not an element of this graph"):
        with tm.control_dependencies([far]):
            pass
    with pytest.raises(ValueError, match="not an element of this graph"):
        tm.Scope(graph).with_control_dependencies([far])


@pytest.mark.parametrize(
    "outer, inner, merged",
    [
        ("/job:w/task:1", "/device:GPU:0", "/job:w/task:1/device:GPU:0"),
        ("/job:w/task:1/device:GPU:0", "/cpu:1", "/job:w/task:1/device:CPU:1"),
        ("/job:w/task:1/device:GPU:0", "/job:ps", "/job:ps/task:1/device:GPU:0"),
        ("/device:GPU:0", "/replica:2", "/replica:2/device:GPU:0"),
        ("/device:TPU:0", "", "/device:TPU:0"),
        # Field by field, as TF's DeviceSpec.make_merged_spec: the index is kept.
        ("/device:GPU:1", "/device:CPU", "/device:CPU:1"),
        ("/device:GPU:1", "/cpu:*", "/device:CPU:1"),
        ("/job:w", "/device:TPU", "/job:w/device:TPU:*"),
    ],
)
def test_device_scopes_merge_as_tf_device_spec(graph, outer, inner, merged):
    with tm.device(outer):
        with tm.device(inner):
            c = tm.constant(1.0)
    assert c.device == merged


def test_device_accepts_a_device_spec(graph):
    with tm.device(DeviceSpec(device_type="TPU", device_index=0)):
        assert tm.constant(1.0).device == "/device:TPU:0"
    assert tm.Scope(graph).with_device(DeviceSpec(job="w")).device == "/job:w"


def test_name_scope_with_values_builds_in_their_graph(graph):
    other = tm.Graph()
    with other.as_default():
        x = tm.constant(1.0)
    # TF1's name_scope(name, default_name, values) enters the values' graph.
    with tm.name_scope(None, "Lib", [x]) as scope:
        assert tm.get_default_graph() is other
        y = tm.identity(x)
    assert scope == "Lib/" and y.op.name == "Lib/Identity" and y.graph is other
    assert tm.get_default_graph() is graph
    with tm.name_scope("same", values=[tm.constant(2.0), 3]) as scope:
        assert tm.get_default_graph() is graph and scope == "same/"


def test_device_none_clears_and_scopes_restore(graph):
    with tm.device("/device:TPU:0"):
        with tm.device(None):
            cleared = tm.constant(1.0)
        placed = tm.constant(1.0)
    assert cleared.device == ""
    assert placed.device == "/device:TPU:0"
    assert tm.constant(1.0).device == ""


def test_device_spec_parsing():
    spec = DeviceSpec.from_string("/job:w/replica:0/task:1/device:GPU:2")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == (
        "w", 0, 1, "GPU", 2
    )
    assert spec.to_string() == "/job:w/replica:0/task:1/device:GPU:2"
    assert DeviceSpec.from_string("/cpu:0").to_string() == "/device:CPU:0"
    assert DeviceSpec.from_string("gpu:*").to_string() == "/device:GPU:*"
    assert DeviceSpec.from_string("").to_string() == ""
    assert canonical_device(None) == ""
    assert device_type_of("") == "CPU" and device_type_of("/job:w") == "CPU"
    assert device_type_of("/device:TPU:3") == "TPU"
    with pytest.raises(ValueError, match="while parsing the device spec"):
        DeviceSpec.from_string("/task:x")
    with pytest.raises(TypeError):
        DeviceSpec.from_string(3)


def test_defined_at_points_at_the_users_line(graph):
    c = tm.constant(1.0)
    line = sys._getframe().f_lineno - 1
    loc = c.op.defined_at
    assert loc == SourceLocation(__file__, line)
    assert str(loc) == f"{os.path.basename(__file__)}:{line}"


def test_defined_at_of_ops_made_inside_tfmini_is_the_users_line(graph):
    x = tm.placeholder(tm.float32)
    y = x + 1.0
    line = sys._getframe().f_lineno - 1
    const = y.op.inputs[1].op  # the literal became a Const inside the builder
    assert const.type == "Const"
    assert const.defined_at.lineno == line and y.op.defined_at.lineno == line


def test_user_location_skips_tfmini_frames():
    loc = user_location()
    line = sys._getframe().f_lineno - 1
    assert loc.filename == __file__ and loc.lineno == line
