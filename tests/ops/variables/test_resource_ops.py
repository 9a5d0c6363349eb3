"""Resource variable ops (tfmini/ops/variables/resource_ops.py) through raw ops, with TensorFlow's
semantics.

Messages and classes were checked against TensorFlow 2.21 (tf.compat.v1 graph mode).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import hammer, join_all, run_in_thread
from tfmini.core import registry
from tfmini.ops.variables.resource_ops import ResourceHandle, VariableResource, freeze
from tfmini.runtime.kernel_context import KernelContext, RunState
from tfmini.runtime.resources import ResourceManager

R = tm.raw_ops


def handle(name="w", dtype=tm.float32, shape=(3,), **kw):
    return R.VarHandleOp(dtype=dtype, shape=shape, shared_name=name, name=name, **kw)


def run(*fetches, setup=(), feed_dict=None):
    with tm.Session() as sess:
        for s in setup:
            sess.run(s)
        return sess.run(list(fetches) if len(fetches) > 1 else fetches[0], feed_dict=feed_dict)


# ----------------------------------------------------------------------------------------
# VarHandleOp


def test_handle_value_names_the_variable(graph):
    h = handle("w", shape=(2, 3))
    assert h.dtype == tm.resource and h.shape == tm.TensorShape(())
    value = run(h)
    assert isinstance(value, ResourceHandle)
    assert (value.name, value.container, value.device) == ("w", "", "/device:CPU:0")
    assert value.dtype == tm.float32 and value.shape == tm.TensorShape((2, 3))


def test_empty_shared_name_uses_the_op_name(graph):
    h = R.VarHandleOp(dtype=tm.int32, shape=[], name="counter")
    assert run(h).name == "counter"


def test_handle_op_signature_matches_tensorflow():
    op_def = registry.get("VarHandleOp")
    defaults = {a.name: a.default for a in op_def.attrs if a.has_default}
    assert defaults == {"container": "", "shared_name": "", "debug_name": "",
                        "allowed_devices": ()}
    assert [a.name for a in registry.get("ResourceGather").attrs] == [
        "batch_dims", "validate_indices", "dtype", "Tindices"]
    assert registry.get("AssignVariableOp").attr("validate_shape").default is False
    assert all(registry.get(t).is_stateful for t in ("VarHandleOp", "ReadVariableOp"))


def test_two_handles_with_one_shared_name_share_the_variable(graph):
    a, b = handle("w"), R.VarHandleOp(dtype=tm.float32, shape=[3], shared_name="w", name="b")
    init = R.AssignVariableOp(resource=a, value=[1.0, 2.0, 3.0])
    np.testing.assert_array_equal(run(R.ReadVariableOp(resource=b, dtype=tm.float32),
                                      setup=[init]), [1, 2, 3])


# ----------------------------------------------------------------------------------------
# ReadVariableOp / AssignVariableOp


def test_read_before_assign_is_failed_precondition_naming_the_variable(graph):
    read = R.ReadVariableOp(resource=handle("stale_counter"), dtype=tm.float32)
    with pytest.raises(tm.errors.FailedPreconditionError) as info:
        run(read)
    assert "Could not find variable stale_counter" in str(info.value)
    assert "it can also mean the variable is uninitialized" in str(info.value)
    assert info.value.op is read.op


def test_assign_then_read(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=np.array([1, 2, 3], np.float32))
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    assert read.shape == tm.TensorShape([3])
    out = run(read, setup=[init])
    np.testing.assert_array_equal(out, [1, 2, 3])
    out[0] = 99  # what the user gets is theirs to modify
    assert out.flags.writeable


def test_reads_hand_out_the_stored_read_only_array(graph):
    seen = []

    @tm.register_op("_ProbeStateInput", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                    stateful=True)
    def probe(x):
        seen.append(x)
        return x

    try:
        h = handle()
        init = R.AssignVariableOp(resource=h, value=np.ones(3, np.float32))
        r1 = R._ProbeStateInput(x=R.ReadVariableOp(resource=h, dtype=tm.float32))
        r2 = R._ProbeStateInput(x=R.ReadVariableOp(resource=h, dtype=tm.float32))
        run(r1, r2, setup=[init])
    finally:
        registry.unregister("_ProbeStateInput")
    assert seen[0] is seen[1]  # no copy per read
    assert not seen[0].flags.writeable


def test_fed_value_is_copied_so_the_user_cannot_change_the_variable(graph):
    h = handle()
    x = tm.placeholder(tm.float32, [3])
    assign = R.AssignVariableOp(resource=h, value=x)
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    mine = np.array([1.0, 2.0, 3.0], np.float32)
    with tm.Session() as sess:
        sess.run(assign, {x: mine})
        mine[:] = -1
        np.testing.assert_array_equal(sess.run(read), [1, 2, 3])


def test_freeze_shares_only_what_nobody_can_write():
    owned = np.arange(3, dtype=np.float32)
    owned.flags.writeable = False
    assert freeze(owned, tm.float32) is owned
    assert freeze(owned.reshape(1, 3), tm.float32).base is owned  # a read-only view of it too
    user = np.arange(3, dtype=np.float32)
    for value in (user, np.broadcast_to(user, (2, 3)), user.tolist(), np.float32(2.0)):
        frozen = freeze(value, tm.float32)
        assert not frozen.flags.writeable and not np.shares_memory(frozen, user)
    assert freeze(user, tm.float64).dtype == np.float64


def test_read_with_wrong_dtype_is_refused_when_building(graph):
    with pytest.raises(ValueError, match="Trying to read variable with wrong dtype. "
                                         "Expected float got int32"):
        R.ReadVariableOp(resource=handle(), dtype=tm.int32)


def test_read_with_wrong_dtype_at_run_time_is_invalid_argument(graph):
    init = R.AssignVariableOp(resource=handle("w"), value=[1.0, 2.0, 3.0])
    read = R.ReadVariableOp(resource=handle("w", dtype=tm.int32), dtype=tm.int32)
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="Trying to read variable with wrong dtype. Expected int32 got float"):
        run(read, setup=[init])


def test_assign_with_wrong_dtype_at_run_time_is_invalid_argument(graph):
    init = R.AssignVariableOp(resource=handle("w"), value=[1.0, 2.0, 3.0])
    bad = R.AssignVariableOp(resource=handle("w", dtype=tm.int32), value=[1, 2, 3])
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="Trying to assign variable with wrong dtype. Expected float got "
                             "int32"):
        run(bad, setup=[init])


def test_assign_shape_is_checked_against_the_handle_when_building(graph):
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 3 "
                                         r"and 2. Shapes are \[3\] and \[2\]"):
        R.AssignVariableOp(resource=handle(), value=[1.0, 2.0])


def test_assign_validate_shape_at_run_time(graph):
    h = handle(shape=None)
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    strict = R.AssignVariableOp(resource=h, value=[1.0, 2.0], validate_shape=True)
    loose = R.AssignVariableOp(resource=h, value=[5.0, 6.0])
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"wrong shape. Expected \[3\] got \[2\]"):
            sess.run(strict)
        np.testing.assert_array_equal(sess.run(read), [1, 2, 3])
        sess.run(loose)
        np.testing.assert_array_equal(sess.run(read), [5, 6])


def test_string_variable(graph):
    h = handle(dtype=tm.string, shape=[2])
    init = R.AssignVariableOp(resource=h, value=np.array([b"a", b"b"], object))
    out = run(R.ReadVariableOp(resource=h, dtype=tm.string), setup=[init])
    assert list(out) == [b"a", b"b"]


def test_each_session_has_its_own_variables(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    with tm.Session() as s1, tm.Session() as s2:
        s1.run(init)
        np.testing.assert_array_equal(s1.run(read), [1, 2, 3])
        with pytest.raises(tm.errors.FailedPreconditionError):
            s2.run(read)


def test_handle_can_be_fetched_and_fed(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[4.0, 5.0, 6.0])
    ph = tm.placeholder(tm.resource, [])
    read = R.ReadVariableOp(resource=ph, dtype=tm.float32)
    assert read.shape.dims is None  # nothing is known about a fed handle
    with tm.Session() as sess:
        sess.run(init)
        value = sess.run(h)
        np.testing.assert_array_equal(sess.run(read, {ph: value}), [4, 5, 6])


def test_a_value_that_is_no_handle_is_refused(graph):
    ph = tm.placeholder(tm.resource, [])
    read = R.ReadVariableOp(resource=ph, dtype=tm.float32)
    with pytest.raises(tm.errors.InvalidArgumentError, match="Expected a resource handle"):
        run(read, feed_dict={ph: "not a handle"})


# ----------------------------------------------------------------------------------------
# AssignAddVariableOp / AssignSubVariableOp


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
def test_assign_add_and_sub(graph, dtype):
    h = handle(dtype=tm.as_dtype(dtype))
    init = R.AssignVariableOp(resource=h, value=np.array([10, 20, 30], dtype))
    add = R.AssignAddVariableOp(resource=h, value=np.array([1, 2, 3], dtype))
    sub = R.AssignSubVariableOp(resource=h, value=np.array([5, 5, 5], dtype))
    read = R.ReadVariableOp(resource=h, dtype=tm.as_dtype(dtype))
    with tm.Session() as sess:
        sess.run(init)
        sess.run(add)
        sess.run(add)
        sess.run(sub)
        out = sess.run(read)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.array([7, 19, 31], dtype))


def test_assign_add_on_a_scalar_variable(graph):
    h = handle(dtype=tm.int64, shape=[])
    init = R.AssignVariableOp(resource=h, value=np.int64(5))
    add = R.AssignAddVariableOp(resource=h, value=np.int64(2))
    out = run(R.ReadVariableOp(resource=h, dtype=tm.int64), setup=[init, add])
    assert out == 7 and out.dtype == np.int64


def test_assign_add_shape_mismatch_at_run_time(graph):
    h = handle(shape=None)  # unknown shape: nothing to check when building
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0])
    add = R.AssignAddVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    sub = R.AssignSubVariableOp(resource=h, value=1.0)
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Cannot update variable with shape \[2\] using a Tensor with "
                                 r"shape \[3\], shapes must be equal."):
            sess.run(add)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"shape \[2\] using a Tensor with shape \[\]"):
            sess.run(sub)


def test_assign_add_shape_mismatch_when_building(graph):
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 1 and 0"):
        R.AssignAddVariableOp(resource=handle(), value=1.0)
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        R.AssignSubVariableOp(resource=handle("v"), value=[1.0])


def test_assign_add_on_uninitialized_variable_is_not_found(graph):
    # TensorFlow: NotFoundError for every access but ReadVariableOp.
    with pytest.raises(tm.errors.NotFoundError, match="localhost/w"):
        run(R.AssignAddVariableOp(resource=handle(), value=[1.0, 2.0, 3.0]))


def test_assign_add_with_wrong_dtype_at_run_time(graph):
    init = R.AssignVariableOp(resource=handle("w"), value=[1.0, 2.0, 3.0])
    add = R.AssignAddVariableOp(resource=handle("w", dtype=tm.int32), value=[1, 2, 3])
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="DType of variable handle and value does not match."):
        run(add, setup=[init])


def test_assign_add_needs_a_numeric_type(graph):
    h = handle(dtype=tm.bool, shape=[1])
    init = R.AssignVariableOp(resource=h, value=[True])
    with pytest.raises(tm.errors.InvalidArgumentError, match="AssignAddVariableOp"):
        run(R.AssignAddVariableOp(resource=h, value=[True]), setup=[init])


def test_updates_swap_in_a_new_array_instead_of_writing(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=np.zeros(3, np.float32))
    add = R.AssignAddVariableOp(resource=h, value=np.ones(3, np.float32))
    with tm.Session() as sess:
        sess.run(init)
        res = sess._device("CPU").resource_manager.lookup("", "w")
        before = res.value
        sess.run(add)
        assert res.value is not before
        np.testing.assert_array_equal(before, [0, 0, 0])
        assert not res.value.flags.writeable


# ----------------------------------------------------------------------------------------
# ResourceGather


@pytest.fixture
def matrix(graph):
    h = handle("m", shape=(4, 2))
    init = R.AssignVariableOp(resource=h, value=np.arange(8, dtype=np.float32).reshape(4, 2))
    return h, init


def test_gather(matrix):
    h, init = matrix
    rows = R.ResourceGather(resource=h, indices=[[3, 0], [1, 1]], dtype=tm.float32)
    one = R.ResourceGather(resource=h, indices=np.int64(2), dtype=tm.float32)
    assert rows.shape == tm.TensorShape([2, 2, 2]) and one.shape == tm.TensorShape([2])
    got_rows, got_one = run(rows, one, setup=[init])
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(got_rows, m[[[3, 0], [1, 1]]])
    np.testing.assert_array_equal(got_one, m[2])


def test_gather_batch_dims(matrix):
    h, init = matrix
    out = R.ResourceGather(resource=h, indices=[[1], [0], [1], [0]], batch_dims=1,
                           dtype=tm.float32)
    assert out.shape == tm.TensorShape([4, 1])
    np.testing.assert_array_equal(run(out, setup=[init]), [[1], [2], [5], [6]])


@pytest.mark.parametrize("indices, message", [
    ([0, 5], r"indices\[1\] = 5 is not in \[0, 4\)"),
    ([0, -1], r"indices\[1\] = -1 is not in \[0, 4\)"),
    (np.array([[0, 1], [2, 7]], np.int64), r"indices\[1,1\] = 7 is not in \[0, 4\)"),
])
def test_gather_index_out_of_range(matrix, indices, message):
    h, init = matrix
    with pytest.raises(tm.errors.InvalidArgumentError, match=message):
        run(R.ResourceGather(resource=h, indices=indices, dtype=tm.float32), setup=[init])


def test_gather_errors(graph):
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        R.ResourceGather(resource=handle("s", shape=[]), indices=[0], dtype=tm.float32)
    with pytest.raises(ValueError, match="Trying to read variable with wrong dtype"):
        R.ResourceGather(resource=handle("f"), indices=[0], dtype=tm.int32)
    with pytest.raises(tm.errors.NotFoundError):
        run(R.ResourceGather(resource=handle("u"), indices=[0], dtype=tm.float32))
    scalar = handle("t", shape=None)
    init = R.AssignVariableOp(resource=scalar, value=1.0)
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="params must be at least 1 dimensional"):
        run(R.ResourceGather(resource=scalar, indices=[0], dtype=tm.float32), setup=[init])


# ----------------------------------------------------------------------------------------
# ResourceScatterAdd and siblings


def test_scatter_add_accumulates_duplicates(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    add = R.ResourceScatterAdd(resource=h, indices=[0, 0, 2], updates=[1.0, 1.0, 5.0])
    out = run(R.ReadVariableOp(resource=h, dtype=tm.float32), setup=[init, add])
    np.testing.assert_array_equal(out, [3, 2, 8])


def test_scatter_add_rows_and_scalar_updates(graph):
    h = handle(shape=(3, 2))
    init = R.AssignVariableOp(resource=h, value=np.zeros((3, 2), np.float32))
    rows = R.ResourceScatterAdd(resource=h, indices=[[0], [0]], updates=np.ones((2, 1, 2),
                                                                                 np.float32))
    scalar = R.ResourceScatterAdd(resource=h, indices=[1, 2], updates=5.0)
    out = run(R.ReadVariableOp(resource=h, dtype=tm.float32), setup=[init, rows, scalar])
    np.testing.assert_array_equal(out, [[2, 2], [5, 5], [5, 5]])


def test_scatter_add_with_no_indices_changes_nothing(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    add = R.ResourceScatterAdd(resource=h, indices=np.zeros([0], np.int32),
                               updates=np.zeros([0], np.float32))
    out = run(R.ReadVariableOp(resource=h, dtype=tm.float32), setup=[init, add])
    np.testing.assert_array_equal(out, [1, 2, 3])


def test_scatter_add_out_of_range_changes_nothing(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    add = R.ResourceScatterAdd(resource=h, indices=[0, 3], updates=[1.0, 1.0])
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"indices\[1\] = 3 is not in \[0, 3\)"):
            sess.run(add)
        np.testing.assert_array_equal(sess.run(read), [1, 2, 3])


def test_scatter_add_shape_errors(graph):
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 3 "
                                         "and 2"):
        R.ResourceScatterAdd(resource=handle("a"), indices=[0, 1], updates=[1.0, 1.0, 3.0])
    h = handle("b", shape=None)
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    prefix = R.ResourceScatterAdd(resource=h, indices=[0, 1], updates=[1.0, 1.0, 3.0])
    rank = R.ResourceScatterAdd(resource=h, indices=[0, 1], updates=[[1.0], [1.0]])
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"The shape of indices \(\[2\]\) must be a prefix of the shape "
                                 r"of updates \(\[3\]\)"):
            sess.run(prefix)
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Must have updates.shape = indices.shape \+ params.shape\[1:\] "
                                 r"or updates.shape = \[\], got updates.shape \[2,1\]"):
            sess.run(rank)


def test_scatter_add_errors_at_run_time(graph):
    with pytest.raises(tm.errors.NotFoundError):
        run(R.ResourceScatterAdd(resource=handle("u"), indices=[0], updates=[1.0]))
    init = R.AssignVariableOp(resource=handle("w"), value=[1.0, 2.0, 3.0])
    bad = R.ResourceScatterAdd(resource=handle("w", dtype=tm.int32), indices=[0], updates=[1])
    with pytest.raises(tm.errors.InvalidArgumentError,
                       match="DType of scatter resource and updates does not match."):
        run(bad, setup=[init])


@pytest.mark.parametrize("op_type, expect", [
    ("ResourceScatterSub", [-2.0, 2.0, 0.0, 4.0]),
    ("ResourceScatterMul", [2.0, 2.0, 9.0, 4.0]),
    ("ResourceScatterDiv", [0.5, 2.0, 1.0, 4.0]),
    ("ResourceScatterMin", [1.0, 2.0, 3.0, 4.0]),
    ("ResourceScatterMax", [2.0, 2.0, 3.0, 4.0]),
    ("ResourceScatterUpdate", [2.0, 2.0, 3.0, 4.0]),
])
def test_other_scatters(graph, op_type, expect):
    h = handle(shape=[4])
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0, 4.0])
    op = getattr(R, op_type)(resource=h, indices=[0, 2, 0], updates=[1.0, 3.0, 2.0])
    if op_type == "ResourceScatterDiv":
        op = R.ResourceScatterDiv(resource=h, indices=[0, 2], updates=[2.0, 3.0])
    out = run(R.ReadVariableOp(resource=h, dtype=tm.float32), setup=[init, op])
    np.testing.assert_array_equal(out, expect)


# ----------------------------------------------------------------------------------------
# VarIsInitializedOp, DestroyResourceOp, VariableShape


def test_is_initialized_and_destroy(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    is_init = R.VarIsInitializedOp(resource=h)
    destroy = R.DestroyResourceOp(resource=h)
    strict = R.DestroyResourceOp(resource=h, ignore_lookup_error=False)
    with tm.Session() as sess:
        assert sess.run(is_init) is np.False_
        sess.run(init)
        assert sess.run(is_init) is np.True_
        sess.run(destroy)
        assert sess.run(is_init) is np.False_
        sess.run(destroy)  # ignore_lookup_error=True by default
        with pytest.raises(tm.errors.NotFoundError, match="localhost/w"):
            sess.run(strict)


def test_variable_shape(graph):
    h = handle(shape=None)
    init = R.AssignVariableOp(resource=h, value=np.zeros((2, 5), np.float32))
    shape = R.VariableShape(input=h)
    assert shape.dtype == tm.int32
    np.testing.assert_array_equal(run(shape, setup=[init]), [2, 5])
    assert R.VariableShape(input=handle("k", shape=(4, 1, 2))).shape == tm.TensorShape([3])


# ----------------------------------------------------------------------------------------
# A failed run leaves every variable as it was


def _failing_after(*ops):
    """A Placeholder, left unfed, that runs after ``ops``: fetching it fails the run."""
    with tm.control_dependencies(ops):
        return tm.placeholder(tm.float32, [], name="unfed")


def test_failed_run_undoes_assign_add_and_scatter_and_session_stays_usable(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    read = R.ReadVariableOp(resource=h, dtype=tm.float32)
    add = R.AssignAddVariableOp(resource=h, value=[10.0, 10.0, 10.0])
    with tm.control_dependencies([add]):
        assign = R.AssignVariableOp(resource=h, value=[0.0, 0.0, 0.0])
    with tm.control_dependencies([assign]):
        scatter = R.ResourceScatterAdd(resource=h, indices=[0], updates=[100.0])
    fail = _failing_after(scatter)
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError, match="You must feed"):
            sess.run(fail)
        np.testing.assert_array_equal(sess.run(read), [1, 2, 3])
        sess.run(add)  # still usable
        np.testing.assert_array_equal(sess.run(read), [11, 12, 13])


def test_failed_run_undoes_the_first_assignment(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    fail = _failing_after(init)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(fail)
        assert not sess.run(R.VarIsInitializedOp(resource=h))
        sess.run(init)
        assert sess.run(R.VarIsInitializedOp(resource=h))


def test_failed_run_undoes_destroy(graph):
    h = handle()
    init = R.AssignVariableOp(resource=h, value=[1.0, 2.0, 3.0])
    fail = _failing_after(R.DestroyResourceOp(resource=h))
    with tm.Session() as sess:
        sess.run(init)
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(fail)
        np.testing.assert_array_equal(
            sess.run(R.ReadVariableOp(resource=h, dtype=tm.float32)), [1, 2, 3])


class _FakeSession:
    def _device(self, device_type):
        raise AssertionError("not used")


def test_undo_keeps_a_value_stored_by_a_later_run():
    res = VariableResource(tm.float32)
    res.value = old = np.zeros(2, np.float32)
    manager = ResourceManager("/device:CPU:0")
    failing, later = RunState(_FakeSession(), None, None), RunState(_FakeSession(), None, None)
    ctx_failing = KernelContext(failing, "/device:CPU:0", "CPU", manager)
    ctx_later = KernelContext(later, "/device:CPU:0", "CPU", manager)
    first, second = np.ones(2, np.float32), np.full(2, 2.0, np.float32)
    with res.lock:
        res.replace(ctx_failing, first)
    with res.lock:
        res.replace(ctx_later, second)
    failing.rollback()
    assert res.value is second  # the failed run's undo must not clobber a newer value
    res2 = VariableResource(tm.float32)
    res2.value = old
    with res2.lock:
        res2.replace(ctx_failing, first)
    failing.rollback()
    assert res2.value is old


# ----------------------------------------------------------------------------------------
# Many threads, one variable


def test_concurrent_assign_add_loses_nothing(graph):
    h = handle(dtype=tm.float64, shape=[2])
    init = R.AssignVariableOp(resource=h, value=np.zeros(2))
    add = R.AssignAddVariableOp(resource=h, value=np.array([0.5, 1.0]))
    read = R.ReadVariableOp(resource=h, dtype=tm.float64)
    with tm.Session() as sess:
        sess.run(init)
        errors_seen = hammer(lambda: sess.run(add), threads=8, times=200)
        assert not errors_seen
        np.testing.assert_array_equal(sess.run(read), [800.0, 1600.0])


def test_concurrent_readers_never_see_a_half_written_value(graph):
    h = handle(dtype=tm.int64, shape=[256])
    x = tm.placeholder(tm.int64, [256])
    assign = R.AssignVariableOp(resource=h, value=x)
    read = R.ReadVariableOp(resource=h, dtype=tm.int64)
    torn = []
    with tm.Session() as sess:
        sess.run(assign, {x: np.zeros(256, np.int64)})
        stop = threading.Event()

        def reader():
            while not stop.is_set():
                v = sess.run(read)
                if not (v == v[0]).all():
                    torn.append(v)

        readers = [run_in_thread(reader) for _ in range(3)]
        try:
            for k in range(300):
                sess.run(assign, {x: np.full(256, k, np.int64)})
        finally:
            stop.set()
        join_all(readers)
    assert not torn
