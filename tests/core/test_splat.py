"""Splat constants: ``tm.constant(1.0, shape=[10**9])`` stores one value, as TensorFlow's
TensorProto does, and every reader (graph_def, static_value, folding, kernels) copes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tfmini.core.builder import static_value
from tfmini.core.splat import is_splat, splat, splat_element
from tfmini.core.tensor_json import array_from_json, array_to_json


def test_a_huge_broadcast_constant_keeps_one_element(graph):
    c = tm.constant(1.0, shape=[10**9])
    value = c.op.get_attr("value")
    assert value.shape == (10**9,) and value.dtype == np.float32
    assert is_splat(value) and not value.flags.writeable
    assert value.base.nbytes == 4  # the one stored element
    assert c.shape.as_list() == [10**9]


def test_splat_does_not_alias_the_callers_array(graph):
    src = np.array([2.5], np.float32)
    c = tm.constant(src, shape=[3, 2])
    src[0] = -1.0
    with tm.Session() as sess:
        np.testing.assert_array_equal(sess.run(c), np.full((3, 2), 2.5, np.float32))


def test_splat_runs_and_computes_like_the_full_array(graph):
    c = tm.constant(3, tm.int64, shape=[2, 3])
    y = c * tm.constant(np.arange(6, dtype=np.int64).reshape(2, 3))
    with tm.Session() as sess:
        out, got = sess.run([c, y])
    np.testing.assert_array_equal(out, np.full((2, 3), 3, np.int64))
    np.testing.assert_array_equal(got, 3 * np.arange(6).reshape(2, 3))
    out[0, 0] = 7  # a fetched splat is the caller's own writable array
    assert out.flags.writeable


def test_graph_def_writes_one_value_and_reads_it_back(graph):
    tm.constant(-0.5, shape=[1000, 1000], name="big")
    gd = json.loads(json.dumps(graph.as_graph_def()))
    (node,) = gd["node"]
    assert node["attr"]["value"]["tensor"] == {"dtype": "float32", "shape": [1000, 1000],
                                               "values": [-0.5]}
    g2 = tm.Graph()
    with g2.as_default():
        tm.import_graph_def(gd, name="")
        value = g2.get_operation_by_name("big").get_attr("value")
        assert is_splat(value) and value.shape == (1000, 1000)
        with tm.Session() as sess:
            np.testing.assert_array_equal(sess.run("big:0"), np.full((1000, 1000), -0.5,
                                                                   np.float32))


def test_static_value_and_folding_see_the_splat(graph):
    c = tm.constant(2, shape=[3])
    np.testing.assert_array_equal(static_value(c), [2, 2, 2])
    # A shape input that is a splat folds like any constant (Identity folds at build time).
    r = tm.reshape(tm.zeros([4]), tm.identity(tm.constant(2, shape=[2])))
    assert r.shape.as_list() == [2, 2]
    z = tm.fill(tm.constant(2, shape=[2]), 1.0)
    assert z.shape.as_list() == [2, 2]


@pytest.mark.parametrize("dtype, value", [("float32", 1.5), ("int64", -3), ("bool", True),
                                          ("string", "ab"), ("float64", "nan")])
def test_tensor_json_round_trip_of_splats(dtype, value):
    arr = array_from_json({"dtype": dtype, "shape": [4, 5], "values": [value]})
    assert is_splat(arr) and arr.shape == (4, 5)
    back = array_to_json(arr)
    assert back["shape"] == [4, 5] and len(back["values"]) == 1
    again = array_from_json(back)
    np.testing.assert_array_equal(np.array(again, dtype=object) if dtype == "string"
                                  else again, arr)


def test_splat_helpers():
    s = splat(np.array([[7]]), (2, 0, 3))
    assert s.shape == (2, 0, 3) and not is_splat(s)  # empty: nothing to share
    s = splat(7, (2, 3))
    assert is_splat(s) and splat_element(s) == 7 and not s.flags.writeable
    assert not is_splat(np.ones(3))
