"""Reference variables (tfmini/ops/variables/ref_variables.py): VariableV2 and its ops, RefVariable,
with TensorFlow 2.21's results and messages (tf.compat.v1, use_resource=False)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import join_all, run_in_thread
from tfmini.ops.variables.ref_variables import RefStorage, RefVariable

R = tm.raw_ops
F = np.float32


@pytest.fixture
def graph():
    g = tm.Graph()
    with g.as_default():
        yield g


def test_use_resource_false_gives_a_ref_variable_built_as_tensorflow_builds_it(graph):
    w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
    assert isinstance(w, RefVariable) and isinstance(w, tm.Variable)
    assert w.op.type == "VariableV2" and w.name == "w:0"
    assert w.initializer.type == "Assign" and w.initializer.name == "w/Assign"
    assert w.value().name == "w/read:0" and w.value().op.type == "Identity"
    assert w.dtype == tm.float32 and w.shape == (2,)
    assert not hasattr(w, "handle")
    assert w in tm.global_variables() and w in tm.trainable_variables()
    assert w.to_proto()["is_resource"] is False
    assert type(tm.Variable([1.0], name="r")) is tm.Variable  # resource stays the default


def test_read_assign_and_update(graph):
    w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
    y = w + 1
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(y), [2, 3])
        np.testing.assert_array_equal(sess.run(tm.identity(w.assign_add([1.0, 1.0]))), [2, 3])
        np.testing.assert_array_equal(sess.run(tm.identity(w.assign_sub([0.5, 0.5]))),
                                      [1.5, 2.5])
        assert sess.run(w.assign([5.0, 6.0], read_value=False)) is None
        np.testing.assert_array_equal(sess.run(w), [5, 6])
        sess.run(tm.identity(w.scatter_add(tm.IndexedSlices(tm.constant([1.0, 1.0]),
                                                            tm.constant([1, 1])))))
        np.testing.assert_array_equal(sess.run(w), [5, 8])  # duplicates accumulate
        sess.run(tm.identity(w.scatter_sub(tm.IndexedSlices(tm.constant([5.0]),
                                                            tm.constant([0])))))
        np.testing.assert_array_equal(sess.run(w.read_value()), [0, 8])
        w.load([7.0, 7.0], sess)
        np.testing.assert_array_equal(sess.run(w), [7, 7])


def test_uninitialized_use_fails_precondition_with_tensorflows_message(graph):
    w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
    init = tm.is_variable_initialized(w)
    assert init.op.type == "IsVariableInitialized"
    with tm.Session() as sess:
        assert not sess.run(init)
        for fetch in (w + 1, tm.identity(w.assign_add([1.0, 1.0]))):
            with pytest.raises(tm.errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value w"):
                sess.run(fetch)
        sess.run(w.initializer)
        assert sess.run(init)


def test_assign_validates_shapes_unless_told_not_to(graph):
    ref = R.VariableV2(dtype=tm.float32, shape=[2], name="w")
    value = tm.placeholder(tm.float32, shape=None)
    strict = R.Assign(ref=ref, value=value)
    loose = R.Assign(ref=ref, value=value, validate_shape=False)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Assign requires shapes of both tensors to match. lhs shape= "
                                 r"\[2\] rhs shape= \[3\]"):
            sess.run(strict, {value: np.ones(3, F)})
        np.testing.assert_array_equal(sess.run(tm.identity(loose), {value: np.ones(3, F)}),
                                      [1, 1, 1])


def test_update_errors(graph):
    ref = R.VariableV2(dtype=tm.float32, shape=None, name="w")
    init = R.Assign(ref=ref, value=np.ones(2, F), validate_shape=False)
    delta = tm.placeholder(tm.float32, shape=None)
    add = R.AssignAdd(ref=ref, value=delta)
    scatter = R.ScatterAdd(ref=ref, indices=np.array([3], np.int32), updates=np.ones(1, F))
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="Parameters and update must be the same size"):
            sess.run(add, {delta: np.ones(3, F)})
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"indices\[0\] = 3 is not in "
                                                                 r"\[0, 2\)"):
            sess.run(scatter)


def test_int_updates_work_but_training_kernels_are_float_only(graph):
    w = tm.Variable(np.array([1, 2], np.int32), use_resource=False, name="w")
    sub = R.AssignSub(ref=w, value=np.array([1, 1], np.int32))
    gd = R.ApplyGradientDescent(var=w, alpha=np.int32(1), delta=np.array([1, 1], np.int32))
    with tm.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(tm.identity(sub)), [0, 1])
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="No OpKernel was registered to support Op "
                                 "'ApplyGradientDescent'"):
            sess.run(gd)


def test_shared_name_shares_the_storage(graph):
    a = R.VariableV2(dtype=tm.float32, shape=[2], shared_name="s", name="a")
    b = R.VariableV2(dtype=tm.float32, shape=[2], shared_name="s", name="b")
    with tm.Session() as sess:
        sess.run(R.Assign(ref=a, value=np.array([3, 4], F)))
        np.testing.assert_array_equal(sess.run(tm.identity(b)), [3, 4])
        fetched = sess.run(a)  # a fetched reference gives its value, as in TensorFlow
        assert not isinstance(fetched, RefStorage)
        np.testing.assert_array_equal(fetched, [3, 4])


def test_failed_run_rolls_back_ref_updates(graph):
    w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
    add = w.assign_add([1.0, 1.0])
    with tm.control_dependencies([add]):
        bad = tm.reshape(tm.placeholder_with_default(np.ones(3, F), shape=None), [2])
    with tm.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(bad)
        np.testing.assert_array_equal(sess.run(w), [1, 2])


def test_concurrent_assign_add_on_a_ref_loses_nothing(graph):
    w = tm.Variable(np.zeros(3), use_resource=False, name="w")
    add = R.AssignAdd(ref=w, value=np.ones(3), use_locking=True)
    with tm.Session() as sess:
        sess.run(w.initializer)
        join_all([run_in_thread(lambda: [sess.run(add.op) for _ in range(200)])
                  for _ in range(8)])
        np.testing.assert_array_equal(sess.run(w), [1600, 1600, 1600])


def test_fetching_a_ref_output_gives_its_value():
    g = tm.Graph()
    with g.as_default():
        v = tm.Variable([1.0, 2.0], use_resource=False, name="w")
        bumped = tm.raw_ops.AssignAdd(ref=v, value=[1.0, 1.0])
    with tm.Session(graph=g) as sess:
        sess.run(v.initializer)
        out = sess.run(bumped)
        assert isinstance(out, np.ndarray) and out.flags.writeable
        np.testing.assert_array_equal(out, [2.0, 3.0])
