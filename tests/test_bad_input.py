"""The foundation issue's bad-input checklist, in one place.

Each case checks the error class TensorFlow users expect, that the message names what is at
fault (op, tensor, values, and where the op was defined), and that nothing is lost: variables
keep their values and the Session stays usable.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry

THIS_FILE = "test_bad_input.py"


@pytest.fixture
def model():
    """A graph with a variable, an update of it, and a placeholder-fed computation."""
    g = tm.Graph()
    with g.as_default():
        w = tm.Variable(np.array([1.0, 2.0], np.float32), name="w")
        x = tm.placeholder(tm.float32, shape=(None, 2), name="x")
        y = tm.reduce_sum(x * w, axis=1, name="y")
        bump = w.assign_add([10.0, 10.0])
        init = tm.global_variables_initializer()
    sess = tm.Session(graph=g)
    sess.run(init)
    yield g, sess, w, x, y, bump
    sess.close()


def _still_fine(sess, w, x, y):
    """The variable kept its value and the session still runs."""
    np.testing.assert_array_equal(sess.run(w), [1.0, 2.0])
    np.testing.assert_array_equal(sess.run(y, {x: [[1.0, 1.0]]}), [3.0])


def test_missing_feed(model):
    g, sess, w, x, y, bump = model
    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        sess.run([bump, y])  # the update is in the same run, before the failing placeholder
    msg = str(info.value)
    assert "You must feed a value for placeholder tensor 'x'" in msg
    assert "shape [?,2]" in msg and f"(defined at {THIS_FILE}:" in msg
    assert info.value.op is x.op
    _still_fine(sess, w, x, y)


def test_wrong_feed_shape(model):
    g, sess, w, x, y, bump = model
    with pytest.raises(ValueError, match=re.escape("Cannot feed value of shape (2, 3)")) as info:
        sess.run(y, {x: np.ones((2, 3))})
    assert "x:0" in str(info.value)
    _still_fine(sess, w, x, y)


def test_wrong_feed_dtype(model):
    g, sess, w, x, y, bump = model
    with pytest.raises((TypeError, ValueError)) as info:
        sess.run(y, {x: [["a", "b"]]})
    assert "x:0" in str(info.value)
    _still_fine(sess, w, x, y)


def test_unknown_op_type(model):
    g, sess, w, x, y, bump = model
    before = len(g.get_operations())
    with pytest.raises(tm.errors.NotFoundError, match="Op type not registered 'AdV2'") as info:
        registry.get("AdV2")
    assert "'AddV2'" in str(info.value)  # close matches are suggested
    with pytest.raises(AttributeError, match="AddV3"):
        tm.raw_ops.AddV3(x=x, y=x)
    assert len(g.get_operations()) == before
    _still_fine(sess, w, x, y)


def test_invalid_attr_value(model):
    g, sess, w, x, y, bump = model
    before = len(g.get_operations())
    with g.as_default():
        with pytest.raises(ValueError, match="data_format") as info:
            tm.raw_ops.BiasAdd(value=x, bias=[1.0, 2.0], data_format="NWHC")
        assert "NWHC" in str(info.value)
        with pytest.raises(TypeError, match="keep_dims"):
            tm.raw_ops.Sum(input=x, axis=0, keep_dims="yes")
    assert len(g.get_operations()) == before, "a failed build leaves nothing behind"
    _still_fine(sess, w, x, y)


def test_invalid_name(model):
    g, sess, w, x, y, bump = model
    with g.as_default():
        with pytest.raises(ValueError, match=re.escape("'bad name'")) as info:
            tm.identity(x, name="bad name")
        assert "regular expression" in str(info.value)
    with pytest.raises(ValueError, match="invalid name: 'a b'"):
        tm.Scope(g).with_sub_scope("a b")
    _still_fine(sess, w, x, y)


def test_cycle(model):
    g, sess, w, x, y, bump = model
    with g.as_default():
        a = tm.identity(tm.constant(1.0), name="a")
        b = tm.identity(a, name="b")
    a.op.inputs[0].op._add_control_input(b.op)  # a's Const now waits for b: a cycle
    with pytest.raises(tm.errors.InvalidArgumentError, match="cycle") as info:
        sess.run(b)
    assert "a" in str(info.value) and "b" in str(info.value)
    _still_fine(sess, w, x, y)


def test_wrong_input_count(model):
    g, sess, w, x, y, bump = model
    with pytest.raises(TypeError, match=r"AddV2 takes 2 input\(s\) \(x, y\), got 3"):
        tm.ops.AddV2.create(tm.Scope(g), x, x, x)
    with pytest.raises(TypeError, match="missing required input"):
        with g.as_default():
            tm.raw_ops.AddV2(x=x)
    _still_fine(sess, w, x, y)


def test_kernel_failure_rolls_back_the_run(model):
    g, sess, w, x, y, bump = model
    with g.as_default():
        # Shapes are unknown until run time, so the mismatch is found by the kernel.
        p = tm.placeholder(tm.float32, name="p")
        q = tm.placeholder(tm.float32, name="q")
        with tm.control_dependencies([bump]):
            bad = tm.add(p, q, name="bad_add")
    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        sess.run(bad, {p: np.ones(3), q: np.ones(4)})
    msg = str(info.value)
    assert "AddV2 'bad_add'" in msg and "float32[3]" in msg and "float32[4]" in msg
    assert f"(defined at {THIS_FILE}:" in msg
    assert isinstance(info.value.__cause__, ValueError)  # chained to NumPy's error
    _still_fine(sess, w, x, y)  # the assign_add that ran first was undone


def test_uninitialised_variable():
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable([1.0, 2.0], name="weights")
        doubled = v * 2.0
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.FailedPreconditionError, match="weights") as info:
            sess.run(doubled)
        assert "uninitialized" in str(info.value)
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0])
