"""Conditional accumulators (tfmini/ops/data_flow/) with TensorFlow's semantics.

The first sections mirror TensorFlow's conditional_accumulator_test.py and
sparse_conditional_accumulator_test.py; the rest pins down the state machine of
tensorflow/core/kernels/conditional_accumulator_base.cc (and the sparse accumulator's) and tfmini's
failure atomicity. Messages and classes were checked against TensorFlow 2.21 (tf.compat.v1 graph
mode). Contention and blocking are in test_accumulators_stress.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import join_all, run_in_thread, wait_for
from tfmini.ops.data_flow.accumulator_state import DenseAccumulator, SparseAccumulator

R = tm.raw_ops
FLOATS = [tm.float16, tm.float32, tm.float64]


def resource(sess, name, container=""):
    """The accumulator object a session holds under ``name`` (to watch its queue)."""
    return sess._device("CPU").resource_manager.lookup(container, name)


def takers(acc, n):
    """Waits until ``n`` takes are queued on the accumulator ``acc`` (blocked in their wait)."""
    wait_for(lambda: len(acc.takers) == n,
             message=lambda: f"{n} queued take(s) ({len(acc.takers)} queued)")


# ----------------------------------------------------------------------------------------
# conditional_accumulator_test.py


def test_constructor(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q")
    op = q.accumulator_ref.op
    assert op.type == "ResourceConditionalAccumulator"  # TF 2.21 builds the resource variant
    assert q.accumulator_ref.dtype == tm.resource
    assert op.name == "Q" and q.name == "Q"
    assert op.get_attr("dtype") == tm.float32
    assert op.get_attr("shape").dims is None
    assert op.get_attr("container") == "" and op.get_attr("shared_name") == ""
    assert op.get_attr("reduction_type") == "MEAN"
    assert q.dtype == tm.float32 and q.handle is q.accumulator_ref


def test_constructor_with_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=tm.TensorShape([1, 5, 2, 8]),
                                  reduction_type="SUM", shared_name="shared")
    op = q.accumulator_ref.op
    assert op.get_attr("shape").dims == (1, 5, 2, 8)
    assert op.get_attr("shared_name") == "shared" and op.get_attr("reduction_type") == "SUM"


@pytest.mark.parametrize("cls", [tm.ConditionalAccumulator, tm.SparseConditionalAccumulator])
def test_invalid_reduction_type(graph, cls):
    with pytest.raises(ValueError, match="Attr 'reduction_type' .*passed string 'Invalid' "
                                         "not in: \"MEAN\", \"SUM\""):
        cls(tm.float32, name="Q", reduction_type="Invalid")


def test_size_empty(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q")
    with tm.Session() as sess:
        assert sess.run(q.num_accumulated()) == 0
    assert q.num_accumulated().op.name == "Q_NumAccumulated_1"


def test_set_global_step_and_apply_float32(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[1])
    with tm.Session() as sess:
        assert sess.run(q.set_global_step(1)) is None
        sess.run(q.apply_grad((10.0,), local_step=1))
        assert sess.run(q.num_accumulated()) == 1


@pytest.mark.parametrize("dtype", FLOATS)
def test_dtypes(graph, dtype):
    q = tm.ConditionalAccumulator(dtype, name="Q", shape=[1])
    elems = np.arange(10).astype(dtype.np_dtype)
    applies = [q.apply_grad((e,)) for e in elems]
    take = q.take_grad(1)
    with tm.Session() as sess:
        for a in applies:
            sess.run(a)
        result = sess.run(take)
    assert result.dtype == dtype.np_dtype
    np.testing.assert_array_equal(result, [np.mean(elems)])


def test_half_mean_is_4_5():
    with tm.Graph().as_default():
        q = tm.ConditionalAccumulator(tm.float16, shape=[])
        applies = [q.apply_grad(np.float16(i)) for i in range(10)]
        take = q.take_grad(10)
        with tm.Session() as sess:
            for a in applies:
                sess.run(a)
            out = sess.run(take)
    assert out.dtype == np.float16 and out == np.float16(4.5)


def test_multiple_accumulators(graph):
    qs = [tm.ConditionalAccumulator(tm.float16 if i < 2 else tm.float32, name="Q", shape=[1])
          for i in range(4)]
    assert [q.name for q in qs] == ["Q", "Q_1", "Q_2", "Q_3"]
    with tm.Session() as sess:
        for i, q in enumerate(qs):
            sess.run(q.apply_grad((i + 10.0,)))
        for i, q in enumerate(qs):
            assert sess.run(q.take_grad(1)) == i + 10.0


def test_apply_and_take_with_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=(3, 2))
    elems = [np.arange(6, dtype=np.float32).reshape(3, 2) * k for k in (1, 10)]
    with tm.Session() as sess:
        for e in elems:
            sess.run(q.apply_grad(e))
        assert sess.run(q.num_accumulated()) == 2
        take = q.take_grad(1)
        assert take.shape == tm.TensorShape([3, 2])  # take_grad sets the declared shape
        np.testing.assert_array_equal(sess.run(take), (elems[0] + elems[1]) / 2)


def test_apply_with_wrong_static_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=(3, 2))
    with pytest.raises(ValueError, match=r"Shapes \(2, 2\) and \(3, 2\) are incompatible"):
        q.apply_grad(np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"Shapes \(3, 1\) and \(3, 2\) are incompatible"):
        q.apply_grad(np.ones((3, 1), np.float32))


def test_dynamic_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=None)
    x = tm.placeholder(tm.float32)
    apply = q.apply_grad(x)
    elems = [np.arange(6, dtype=np.float32).reshape(3, 2), np.full((3, 2), 7, np.float32)]
    with tm.Session() as sess:
        for e in elems:
            sess.run(apply, feed_dict={x: e})
        np.testing.assert_array_equal(sess.run(q.take_grad(2)), (elems[0] + elems[1]) / 2)


def test_wrong_dynamic_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=None)
    x = tm.placeholder(tm.float32)
    apply = q.apply_grad(x)
    with tm.Session() as sess:
        sess.run(apply, feed_dict={x: np.ones((3, 2), np.float32)})
        for bad in ((2, 2), (3, 1)):
            got = rf"\[{bad[0]},{bad[1]}\]"
            with pytest.raises(tm.errors.InvalidArgumentError,
                               match=rf"Shape mismatch: expected \[3,2\], got {got}"):
                sess.run(apply, feed_dict={x: np.ones(bad, np.float32)})
        assert sess.run(q.num_accumulated()) == 1  # the failed applies changed nothing


def test_size_after_apply(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=(1,))
    apply = q.apply_grad((10.0,))
    with tm.Session() as sess:
        assert sess.run(q.num_accumulated()) == 0
        sess.run(apply)
        assert sess.run(q.num_accumulated()) == 1
        sess.run(apply)
        assert sess.run(q.num_accumulated()) == 2


def test_size_after_apply_and_take(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=(1,))
    apply0 = q.apply_grad((10.0,))
    apply1 = q.apply_grad((10.0,), local_step=1)
    size = q.num_accumulated()
    with tm.Session() as sess:
        sess.run(apply0)
        sess.run(apply0)
        assert sess.run(size) == 2
        sess.run(q.take_grad(2))
        assert sess.run(size) == 0
        for _ in range(4):
            sess.run(apply1)
        assert sess.run(size) == 4
        sess.run(q.take_grad(2))  # all four are taken, not two
        assert sess.run(size) == 0


@pytest.mark.parametrize("reduction,expected", [("MEAN", (15.0, 25.0)), ("SUM", (30.0, 50.0))])
def test_take_mean_and_sum_repeated(graph, reduction, expected):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=(), reduction_type=reduction)
    x = tm.placeholder(tm.float32, [])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    take = q.take_grad(1)
    with tm.Session() as sess:
        for round_, elems in enumerate(([10.0, 20.0], [20.0, 30.0])):
            for e in elems:
                sess.run(apply, feed_dict={x: e, step: round_})
            assert sess.run(take) == expected[round_]


def test_take_mean_same_twice(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    with tm.Session() as sess:
        for step in (0, 1):
            for e in (10.0, 20.0):
                sess.run(q.apply_grad(e, local_step=step))
            assert sess.run(q.take_grad(1)) == 15.0


@pytest.mark.parametrize("n", [-1, 0, -7])
def test_invalid_take(graph, n):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    with tm.Session() as sess:
        sess.run(q.apply_grad(1.0))
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=f"Argument num_required must be positive, but was {n}"):
            sess.run(q.take_grad(n))
        assert sess.run(q.num_accumulated()) == 1


def test_increment_global_step_from_variable(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    v = tm.Variable(0, dtype=tm.int64, name="v")
    inc = v.assign_add(1)
    set_step = q.set_global_step(v)
    with tm.Session() as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(set_step)
            sess.run(inc)


def test_set_global_step_prevents_accumulation(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    local_steps = range(1000, 1005)
    x = tm.placeholder(tm.float32, [])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    new_step = tm.placeholder(tm.int64, [])
    set_step = q.set_global_step(new_step)
    take = q.take_grad(1)
    with tm.Session() as sess:
        for ls in local_steps:
            sess.run(set_step, feed_dict={new_step: ls})
            for s in local_steps:
                sess.run(apply, feed_dict={x: float(s), step: s})
            fresh = [s for s in local_steps if s >= ls]
            assert sess.run(take) == pytest.approx(np.mean(fresh))


def test_parallel_apply(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    applies = [q.apply_grad(float(x)) for x in range(10, 101, 10)]
    take = q.take_grad(1)
    with tm.Session() as sess:
        join_all([run_in_thread(sess.run, a) for a in applies])
        assert sess.run(take) == 55.0


def test_parallel_take(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    x = tm.placeholder(tm.float32, [])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    take = q.take_grad(1)
    with tm.Session() as sess:
        sess.run(q.num_accumulated())
        acc = resource(sess, "Q")
        threads = [run_in_thread(sess.run, take) for _ in range(10)]
        takers(acc, 10)
        for e in range(10):
            sess.run(apply, feed_dict={x: float(e), step: e})  # each take moves the step on
        results = join_all(threads, 5)
    assert sorted(results) == list(range(10))


def test_apply_and_blocking_take(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    applies = [q.apply_grad(float(x)) for x in (10.0, 20.0, 30.0)]
    take = q.take_grad(3)
    with tm.Session() as sess:
        sess.run(q.num_accumulated())
        acc = resource(sess, "Q")
        t = run_in_thread(sess.run, take)
        takers(acc, 1)
        for a in applies[:2]:
            sess.run(a)
            assert t.is_alive()  # still waiting: 1 or 2 of 3
        sess.run(applies[2])
        value = t.result(5)
    assert value == 20.0


def test_cancel_on_close(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=())
    take = q.take_grad(1)
    sess = tm.Session()
    sess.run(q.num_accumulated())
    acc = resource(sess, "Q")
    t = run_in_thread(sess.run, take)
    takers(acc, 1)
    sess.close()
    error = t.exception(5)
    assert isinstance(error, tm.errors.CancelledError)
    assert "TakeGrad operation was cancelled" in str(error)
    assert not acc.takers


# ----------------------------------------------------------------------------------------
# sparse_conditional_accumulator_test.py


def test_sparse_constructor(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q")
    op = q.accumulator_ref.op
    assert op.type == "SparseConditionalAccumulator"  # still the ref variant in TF 2.21
    assert q.accumulator_ref.dtype == tm.string
    assert op.get_attr("dtype") == tm.float32 and op.get_attr("shape").dims is None
    assert op.get_attr("container") == "" and op.get_attr("shared_name") == ""
    assert op.get_attr("reduction_type") == "MEAN"
    assert q.num_accumulated().op.type == "AccumulatorNumAccumulated"
    assert q.set_global_step(1).type == "AccumulatorSetGlobalStep"


def test_sparse_constructor_with_shape(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=tm.TensorShape([1, 5, 2, 8]))
    assert q.accumulator_ref.op.get_attr("shape").dims == (1, 5, 2, 8)


def test_sparse_size_empty_set_step_and_apply(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q")
    with tm.Session() as sess:
        assert sess.run(q.num_accumulated()) == 0
        sess.run(q.set_global_step(1))
        grad = tm.IndexedSlices(indices=[0, 2], values=np.array([[0, 0, 1], [3, 0, 4]],
                                                                np.float32))
        sess.run(q.apply_indexed_slices_grad(grad, local_step=1))
        assert sess.run(q.num_accumulated()) == 1


@pytest.mark.parametrize("dtype", FLOATS)
def test_sparse_dtypes(graph, dtype):
    q = tm.SparseConditionalAccumulator(dtype, name="Q", shape=[3, 3, 3])
    np_t = dtype.np_dtype
    # Two gradients touching one element each: rows 0 and 1 at different places.
    e1 = np.zeros((1, 3, 3), np_t)
    e1[0, 1, 2] = 5
    e2 = np.zeros((1, 3, 3), np_t)
    e2[0, 0, 1] = 3
    with tm.Session() as sess:
        sess.run(q.apply_grad([0], e1, [3, 3, 3]))
        sess.run(q.apply_grad([1], e2, [3, 3, 3]))
        indices, values, shape = sess.run(q.take_grad(1))
    assert values.dtype == np_t
    np.testing.assert_array_equal(indices, [0, 1])
    np.testing.assert_array_equal(values, np.concatenate([e1, e2]))  # each row counted once
    np.testing.assert_array_equal(shape, [3, 3, 3])


def test_sparse_multiple_accumulators(graph):
    qs = [tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2]) for _ in range(4)]
    with tm.Session() as sess:
        for i, q in enumerate(qs):
            sess.run(q.apply_grad([i % 2], np.full((1, 2), i + 10.0, np.float32)))
        for i, q in enumerate(qs):
            got = sess.run(q.take_indexed_slices_grad(1))
            np.testing.assert_array_equal(got.indices, [i % 2])
            np.testing.assert_array_equal(got.values, [[i + 10.0] * 2])


def test_sparse_take_and_repeated_take(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=())
    step = tm.placeholder(tm.int64, [])
    scale = tm.placeholder(tm.float32, [])
    g1 = q.apply_grad([0, 1], np.array([[1, 0], [0, 2]], np.float32) * scale, local_step=step)
    g2 = q.apply_grad([0, 2], np.array([[0, 1], [3, 0]], np.float32) * scale, local_step=step)
    take = q.take_indexed_slices_grad(1)
    with tm.Session() as sess:
        for round_, k in enumerate((1.0, 10.0)):
            sess.run(g1, feed_dict={step: round_, scale: k})
            sess.run(g2, feed_dict={step: round_, scale: k})
            got = sess.run(take)
            np.testing.assert_array_equal(got.indices, [0, 1, 2])
            np.testing.assert_array_equal(got.values, np.array([[0.5, 0.5], [0, 2], [3, 0]]) * k)
            np.testing.assert_array_equal(got.dense_shape, [-1, 2])


def test_sparse_sum(graph):
    q = tm.SparseConditionalAccumulator(tm.float64, shape=[4, 2], reduction_type="SUM")
    with tm.Session() as sess:
        sess.run(q.apply_grad([0, 1], np.array([[1, 0], [0, 2]], np.float64)))
        sess.run(q.apply_grad([0, 2], np.array([[0, 1], [3, 0]], np.float64)))
        indices, values, shape = sess.run(q.take_grad(2))
    np.testing.assert_array_equal(indices, [0, 1, 2])
    np.testing.assert_array_equal(values, [[1, 1], [0, 2], [3, 0]])
    np.testing.assert_array_equal(shape, [4, 2])


def test_sparse_parallel_apply(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 1],
                                        reduction_type="SUM")
    applies = [q.apply_grad([x % 2], np.array([[float(x)]], np.float32))
               for x in range(10, 101, 10)]
    take = q.take_indexed_slices_grad(1)
    with tm.Session() as sess:
        join_all([run_in_thread(sess.run, a) for a in applies])
        got = sess.run(take)
    np.testing.assert_array_equal(got.indices, [0])
    np.testing.assert_array_equal(got.values, [[550.0]])


def test_sparse_parallel_take(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2])
    step = tm.placeholder(tm.int64, [])
    x = tm.placeholder(tm.float32, [])
    apply = q.apply_grad([0], tm.reshape(tm.stack([x, x]), [1, 2]), local_step=step)
    take = q.take_indexed_slices_grad(1)
    with tm.Session() as sess:
        sess.run(q.num_accumulated())
        acc = resource(sess, "Q")
        threads = [run_in_thread(sess.run, take) for _ in range(10)]
        takers(acc, 10)
        for e in range(10):
            sess.run(apply, feed_dict={x: float(e), step: e})
        results = [float(got.values[0, 0]) for got in join_all(threads, 5)]
    assert sorted(results) == list(range(10))


def test_sparse_apply_and_blocking_take(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2])
    applies = [q.apply_grad([0], np.full((1, 2), v, np.float32)) for v in (10.0, 20.0, 30.0)]
    take = q.take_indexed_slices_grad(3)
    with tm.Session() as sess:
        sess.run(q.num_accumulated())
        acc = resource(sess, "Q")
        t = run_in_thread(sess.run, take)
        takers(acc, 1)
        for a in applies:
            sess.run(a)
        got = t.result(5)
    np.testing.assert_array_equal(got.values, [[20.0, 20.0]])


def test_sparse_cancel_on_close(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2])
    take = q.take_indexed_slices_grad(1)
    sess = tm.Session()
    sess.run(q.num_accumulated())
    acc = resource(sess, "Q")
    t = run_in_thread(sess.run, take)
    takers(acc, 1)
    sess.close()
    error = t.exception(5)
    assert isinstance(error, tm.errors.CancelledError)
    assert "TakeGrad operation was cancelled" in str(error)


@pytest.mark.parametrize("indices,values,message", [
    ([[0]], np.ones((1, 3), np.float32), r"Input indices should be vector but received shape: "
                                          r"\[1,1\]"),
    ([0], np.float32(1), "Values cannot be 0-dimensional."),
    ([0, 1], np.ones((1, 3), np.float32), "Expected 2 non-empty input values, got 1"),
])
@pytest.mark.parametrize("dynamic", [False, True])
def test_sparse_input_checks(graph, indices, values, message, dynamic):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[3, 3])
    feeds = {}
    if dynamic:
        pi, pv = tm.placeholder(tm.int64), tm.placeholder(tm.float32)
        feeds = {pi: np.array(indices, np.int64), pv: values}
        apply = q.apply_grad(pi, pv)
    else:
        apply = q.apply_grad(indices, values)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match=message):
            sess.run(apply, feed_dict=feeds)
        assert sess.run(q.num_accumulated()) == 0


def test_sparse_empty_shape_apply(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="Values cannot be 0-dim"):
            sess.run(q.apply_grad([0], np.float32(1.0)))
        sess.run(q.apply_grad([0], np.array([1.0], np.float32)))
        assert sess.run(q.num_accumulated()) == 1
        indices, values, shape = sess.run(q.take_grad(1))
    np.testing.assert_array_equal(indices, [0])
    np.testing.assert_array_equal(values, [1.0])
    np.testing.assert_array_equal(shape, [-1])  # declared rank 0: dim 0 unknown


def test_sparse_validate_shape(graph):
    """TensorFlow's testValidateShape walk, with the messages TF 2.21 prints."""
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[2, 2, None])
    ind = tm.placeholder(tm.int64)
    val = tm.placeholder(tm.float32)
    shp = tm.placeholder(tm.int64)
    step = tm.placeholder(tm.int64, [])
    with_shape = q.apply_grad(ind, val, shp, local_step=step)
    no_shape = q.apply_grad(ind, val, local_step=step)
    take = q.take_grad(1, name="take")
    size = q.num_accumulated()

    def apply(indices, values, shape=None, local_step=0):
        feed = {ind: indices, val: np.ones(values, np.float32), step: local_step}
        if shape is None:
            return sess.run(no_shape, feed_dict=feed)
        feed[shp] = shape
        return sess.run(with_shape, feed_dict=feed)

    def fails(message, *args, **kw):
        with pytest.raises(tm.errors.InvalidArgumentError, match=message):
            apply(*args, **kw)

    with tm.Session() as sess:
        fails(r"Shape mismatch: expected shape rank at least 3, got 2", [0], (1, 2, 2), [2, 2])
        fails(r"Shape mismatch: expected shape dim 0 to be 2, got 3", [0], (1, 2, 2), [3, 2, 2])
        fails(r"Shape mismatch: expected shape dim 1 to be 2, got 3", [0], (1, 2, 2), [2, 3, 2])
        fails(r"Shape mismatch: index of slice 0 exceeded limits of shape; index is 2 "
              r"exceeded 2", [2], (1, 2, 2), [2, 2, 2])
        fails(r"Shape mismatch: index of slice 1 exceeded limits of shape; index is 5 "
              r"exceeded 2", [0, 5], (2, 2, 2))
        fails(r"Shape mismatch: expected values rank at least 3, got 2", [0], (1, 2))
        fails(r"Shape mismatch: expected values dim 1 to be 2, got 3", [0], (1, 3, 2))
        assert sess.run(size) == 0
        apply([0], (1, 2, 2, 3))  # the first gradient fixes rank 4 and the trailing dims
        fails(r"Shape mismatch: expected values dim 2 to be 2, got 3", [0], (1, 2, 3, 3))
        fails(r"Shape mismatch: expected values dim 3 to be 3, got 2", [0], (1, 2, 2, 2))
        fails(r"Shape mismatch: expected values rank 4, got 3", [0], (1, 2, 2))
        apply([1], (1, 2, 2, 3))
        apply([-1], (1, 2, 2, 3), [2, 2, 2, 3])  # negative indices are not rejected
        assert sess.run(size) == 3
        indices, _, shape = sess.run(take)
        np.testing.assert_array_equal(indices, [-1, 0, 1])
        np.testing.assert_array_equal(shape, [2, 2, 2, 3])
        apply([0], (1, 2, 2, 3, 1), local_step=1)  # a take removes the constraints
        fails(r"Shape mismatch: expected values rank 5, got 3", [1], (1, 2, 2), local_step=1)
        assert sess.run(size) == 1


@pytest.mark.parametrize("declared,values_shape,expected", [
    ([2, None], (1, 2, 2, 2), [2, 2, 2, 2]),
    ([None, 2], (1, 2, 2, 3), [-1, 2, 2, 3]),
    (None, (1, 4), [-1, 4]),
])
def test_sparse_return_shape(graph, declared, values_shape, expected):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=declared)
    with tm.Session() as sess:
        sess.run(q.apply_grad([0], np.ones(values_shape, np.float32)))
        got = sess.run(q.take_indexed_slices_grad(1))
    np.testing.assert_array_equal(got.dense_shape, expected)
    assert got.dense_shape.dtype == np.int64 and got.indices.dtype == np.int64


def test_sparse_int32_indices_and_shape(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[3, 2])
    a = q.apply_grad(np.array([0, 2], np.int32), np.array([[1, 2], [3, 4]], np.float32),
                     grad_shape=np.array([3, 2], np.int32))
    b = q.apply_grad(np.array([0, 2], np.int32), np.array([[1, 2], [3, 4]], np.float32),
                     grad_shape=np.array([3, 2], np.int32))
    with tm.Session() as sess:
        sess.run(a)
        sess.run(b)
        assert sess.run(q.num_accumulated()) == 2
        got = sess.run(q.take_indexed_slices_grad(2))
    np.testing.assert_array_equal(got.indices, [0, 2])
    np.testing.assert_array_equal(got.values, [[1, 2], [3, 4]])


# ----------------------------------------------------------------------------------------
# The state machine (tensorflow/core/kernels/conditional_accumulator_base.cc)


def test_stale_gradient_is_dropped_before_validation(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[2])
    x = tm.placeholder(tm.float32)
    stale = q.apply_grad(x, local_step=0)
    with tm.Session() as sess:
        sess.run(q.set_global_step(5))
        sess.run(stale, feed_dict={x: np.ones((7, 7), np.float32)})  # wrong shape, no error
        assert sess.run(q.num_accumulated()) == 0


def test_sparse_stale_gradient_is_dropped_before_validation(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[2, 2])
    with tm.Session() as sess:
        sess.run(q.set_global_step(3))
        sess.run(q.apply_grad([[0]], np.float32(1.0), local_step=2))  # every check would fail
        sess.run(q.apply_grad([5], np.ones((1, 2), np.float32), local_step=1))
        assert sess.run(q.num_accumulated()) == 0
        sess.run(q.apply_grad([1], np.ones((1, 2), np.float32), local_step=3))
        assert sess.run(q.num_accumulated()) == 1


def test_local_step_is_truncated_to_int64(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[])
    with tm.Session() as sess:
        sess.run(q.set_global_step(10))
        sess.run(q.apply_grad(1.0, local_step=9.9))  # 9: stale
        assert sess.run(q.num_accumulated()) == 0
        sess.run(q.apply_grad(1.0, local_step=10.7))  # 10: accepted
        assert sess.run(q.num_accumulated()) == 1


def test_take_increments_global_step(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[])
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(2.0, local_step=step)
    with tm.Session() as sess:
        sess.run(apply, feed_dict={step: 0})
        sess.run(q.take_grad(1))
        sess.run(apply, feed_dict={step: 0})  # now stale
        assert sess.run(q.num_accumulated()) == 0
        sess.run(apply, feed_dict={step: 1})
        assert sess.run(q.num_accumulated()) == 1


def test_set_global_step_lower_only_warns(graph, caplog):
    q = tm.ConditionalAccumulator(tm.float32, shape=[])
    new_step = tm.placeholder(tm.int64, [])
    set_step = q.set_global_step(new_step)
    apply = q.apply_grad(1.0, local_step=3)
    with tm.Session() as sess:
        sess.run(set_step, feed_dict={new_step: 10})
        sess.run(apply)
        assert sess.run(q.num_accumulated()) == 0
        with caplog.at_level("WARNING", logger="tfmini"):
            sess.run(set_step, feed_dict={new_step: 2})  # lower: allowed, logged
        assert "Attempt to set current_global_step_ to smaller value" in caplog.text
        sess.run(apply)
        assert sess.run(q.num_accumulated()) == 1


def test_first_gradient_fixes_shape_until_take(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=None)
    x = tm.placeholder(tm.float32)
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(x, local_step=step)
    with tm.Session() as sess:
        sess.run(apply, feed_dict={x: np.ones(3, np.float32), step: 0})
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Shape mismatch: expected \[3\], got \[3,3\]"):
            sess.run(apply, feed_dict={x: np.ones((3, 3), np.float32), step: 0})
        sess.run(q.take_grad(1))
        sess.run(apply, feed_dict={x: np.full((3, 3), 4, np.float32), step: 1})  # any shape now
        np.testing.assert_array_equal(sess.run(q.take_grad(1)), np.full((3, 3), 4))


def test_partial_declared_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[None, 2])
    x = tm.placeholder(tm.float32)
    apply = q.apply_grad(x)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Shape mismatch: expected \[\?,2\], got \[3,3\]"):
            sess.run(apply, feed_dict={x: np.ones((3, 3), np.float32)})
        sess.run(apply, feed_dict={x: np.ones((4, 2), np.float32)})
        assert sess.run(q.num_accumulated()) == 1


def test_scalar_shape(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[])
    with tm.Session() as sess:
        sess.run(q.apply_grad(3.0))
        sess.run(q.apply_grad(4.0))
        assert sess.run(q.take_grad(1)) == 3.5


def test_take_consumes_all_and_next_round_starts_fresh(graph):
    q = tm.ConditionalAccumulator(tm.float64, shape=[], reduction_type="SUM")
    with tm.Session() as sess:
        for v in (1.0, 2.0, 3.0, 4.0):
            sess.run(q.apply_grad(v))
        assert sess.run(q.take_grad(2)) == 10.0
        sess.run(q.apply_grad(100.0, local_step=1))
        assert sess.run(q.take_grad(1)) == 100.0  # nothing of the first round is left


def test_shared_name_shares_and_existing_wins(graph):
    a = tm.ConditionalAccumulator(tm.float32, shape=[3, 2], shared_name="acc", name="a")
    b = tm.ConditionalAccumulator(tm.float32, shape=[2, 2], shared_name="acc", name="b")
    c = tm.ConditionalAccumulator(tm.float32, shape=[2, 2], name="c")
    x = tm.placeholder(tm.float32)
    via_b = R.ResourceAccumulatorApplyGradient(handle=b.handle, local_step=np.int64(0),
                                               gradient=x)
    with tm.Session() as sess:
        sess.run(a.handle)  # a is created first: its declared shape [3,2] wins
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Shape mismatch: expected \[3,2\], got \[2,2\]"):
            sess.run(via_b, feed_dict={x: np.ones((2, 2), np.float32)})
        sess.run(via_b, feed_dict={x: np.ones((3, 2), np.float32)})
        assert sess.run(a.num_accumulated()) == 1
        assert sess.run(c.num_accumulated()) == 0


def test_container_separates_accumulators(graph):
    h1 = R.ResourceConditionalAccumulator(dtype=tm.float32, shape=[], shared_name="x")
    h2 = R.ResourceConditionalAccumulator(dtype=tm.float32, shape=[], shared_name="x",
                                          container="other")
    apply = R.ResourceAccumulatorApplyGradient(handle=h1, local_step=np.int64(0),
                                               gradient=np.float32(1))
    with tm.Session() as sess:
        sess.run(apply)
        assert sess.run(R.ResourceAccumulatorNumAccumulated(handle=h1)) == 1
        assert sess.run(R.ResourceAccumulatorNumAccumulated(handle=h2)) == 0


@pytest.mark.parametrize("op_type", ["ResourceConditionalAccumulator", "ConditionalAccumulator",
                                     "SparseConditionalAccumulator"])
@pytest.mark.parametrize("dtype", [tm.int32, tm.int64, tm.uint8])
def test_no_kernel_for_non_float_dtypes(graph, op_type, dtype):
    h = getattr(R, op_type)(dtype=dtype, shape=[2])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=f"No OpKernel was registered to support Op '{op_type}'.*"
                                 r"DT_DOUBLE.*DT_FLOAT.*DT_HALF"):
            sess.run(h)


def test_non_numeric_dtype_refused_at_build(graph):
    with pytest.raises(TypeError, match="allowed values: half, float, double"):
        tm.ConditionalAccumulator(tm.string)


def test_apply_with_integer_gradient_has_no_kernel(graph):
    q = R.ResourceConditionalAccumulator(dtype=tm.float32, shape=[2])
    apply = R.ResourceAccumulatorApplyGradient(handle=q, local_step=np.int64(0),
                                               gradient=np.ones(2, np.int32))
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="No OpKernel was registered to support Op "
                                 "'ResourceAccumulatorApplyGradient'"):
            sess.run(apply)


def test_signature_mismatch_is_an_error_not_a_crash(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[2])
    apply = R.ResourceAccumulatorApplyGradient(handle=q.handle, local_step=np.int64(0),
                                               gradient=np.ones(2, np.float64))
    take = R.ResourceAccumulatorTakeGradient(handle=q.handle, num_required=1, dtype=tm.float64)
    ref = R.ConditionalAccumulator(dtype=tm.float16, shape=[2])
    ref_apply = R.AccumulatorApplyGradient(handle=ref, local_step=np.int64(0),
                                           gradient=np.ones(2, np.float32))
    sp = tm.SparseConditionalAccumulator(tm.float32, shape=[2])
    sp_take = R.SparseAccumulatorTakeGradient(handle=sp.handle, num_required=1,
                                              dtype=tm.float64)
    with tm.Session() as sess:
        for op, message in [
            (apply, "Signature mismatch, have: resource, int64, double-> expected: resource, "
                    "int64, float->"),
            (take, "Signature mismatch, have: resource, int32->double expected: resource, "
                   "int32->float"),
            (ref_apply, "Signature mismatch, have: string_ref, int64, float-> expected: "
                        "string_ref, int64, half->"),
            (sp_take, "Signature mismatch, have: string_ref, int32->int64, double, int64 "
                      "expected: string_ref, int32->int64, float, int64"),
        ]:
            with pytest.raises(tm.errors.InvalidArgumentError, match=message):
                sess.run(op)
        assert sess.run(q.num_accumulated()) == 0


def test_rank0_arguments_checked_at_build(graph):
    h = R.ConditionalAccumulator(dtype=tm.float32, shape=[2])
    s = R.SparseConditionalAccumulator(dtype=tm.float32, shape=[2])
    rank1 = np.array([1], np.int64)
    for build in (
        lambda: R.AccumulatorTakeGradient(handle=h, num_required=[1], dtype=tm.float32),
        lambda: R.AccumulatorApplyGradient(handle=h, local_step=rank1,
                                           gradient=np.ones(2, np.float32)),
        lambda: R.AccumulatorSetGlobalStep(handle=h, new_global_step=rank1),
        lambda: R.SparseAccumulatorApplyGradient(
            handle=s, local_step=rank1, gradient_indices=np.array([0], np.int64),
            gradient_values=np.ones((1,), np.float32), gradient_shape=np.zeros(0, np.int64),
            has_known_shape=False),
        lambda: R.SparseAccumulatorTakeGradient(handle=s, num_required=[1], dtype=tm.float32),
    ):
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            build()


def test_rank0_arguments_checked_at_run_time(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[2])
    n = tm.placeholder(tm.int32)
    step = tm.placeholder(tm.int64)
    take = q.take_grad(n)
    apply = R.ResourceAccumulatorApplyGradient(handle=q.handle, local_step=step,
                                               gradient=np.ones(2, np.float32))
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Argument num_required must be scalar, but had bad shape \[1\]"):
            sess.run(take, feed_dict={n: [1]})
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match=r"Argument local_step must be scalar, but had bad shape \[2\]"):
            sess.run(apply, feed_dict={step: [0, 0]})


def test_handle_kinds_are_checked_at_build(graph):
    res = R.ResourceConditionalAccumulator(dtype=tm.float32, shape=[2])
    ref = R.ConditionalAccumulator(dtype=tm.float32, shape=[2])
    assert res.dtype == tm.resource and ref.dtype == tm.string
    assert res.shape == tm.TensorShape([2]) and ref.shape == tm.TensorShape([2])  # TF's [2]
    with pytest.raises(TypeError, match="has type resource that does not match expected type "
                                        "of string"):
        R.AccumulatorNumAccumulated(handle=res)
    with pytest.raises(TypeError, match="has type string that does not match expected type "
                                        "of resource"):
        R.ResourceAccumulatorNumAccumulated(handle=ref)


def test_dense_op_on_sparse_accumulator_is_refused(graph):
    s = R.SparseConditionalAccumulator(dtype=tm.float32, shape=[2], shared_name="s")
    dense_take = R.AccumulatorTakeGradient(handle=s, num_required=1, dtype=tm.float32)
    again = R.ConditionalAccumulator(dtype=tm.float32, shape=[2], shared_name="s")
    with tm.Session() as sess:
        assert sess.run(R.AccumulatorNumAccumulated(handle=s)) == 0  # shared base op: fine
        with pytest.raises(tm.errors.InvalidArgumentError,
                           match="as a ConditionalAccumulator, but it holds a "
                                 "SparseConditionalAccumulator"):
            sess.run(dense_take)
        with pytest.raises(tm.errors.InvalidArgumentError, match="as a ConditionalAccumulator"):
            sess.run(again)


def test_ref_and_resource_spellings_share_one_state(graph):
    ref = R.ConditionalAccumulator(dtype=tm.float64, shape=[2], shared_name="acc")
    res = R.ResourceConditionalAccumulator(dtype=tm.float64, shape=[2], shared_name="acc")
    with tm.Session() as sess:
        sess.run(R.AccumulatorApplyGradient(handle=ref, local_step=np.int64(0),
                                            gradient=np.array([1.0, 2.0])))
        sess.run(R.ResourceAccumulatorApplyGradient(handle=res, local_step=np.int64(0),
                                                    gradient=np.array([3.0, 4.0])))
        out = sess.run(R.AccumulatorTakeGradient(handle=ref, num_required=2, dtype=tm.float64))
        np.testing.assert_array_equal(out, [2.0, 3.0])
        # Fetched, or fed to a plain input, the ref is TensorFlow's two strings.
        np.testing.assert_array_equal(sess.run(ref), ["localhost", "acc"])
        np.testing.assert_array_equal(sess.run(tm.identity(ref)), ["localhost", "acc"])
        assert sess.run(res).name == "acc"


def test_java_style_wrapper(graph):
    scope = tm.Scope(graph)
    h = tm.ops.ResourceConditionalAccumulator.create(scope, dtype=tm.float32, shape=[2])
    tm.ops.ResourceAccumulatorApplyGradient.create(scope, h.as_output(), np.int64(0),
                                                   np.array([1.0, 3.0], np.float32))
    take = tm.ops.ResourceAccumulatorTakeGradient.create(scope, h.as_output(), 1,
                                                         dtype=tm.float32)
    assert take.average() is take.as_output()
    apply = graph.get_operation_by_name("ResourceAccumulatorApplyGradient")
    with tm.Session() as sess:
        sess.run(apply)
        np.testing.assert_array_equal(sess.run(take.average()), [1.0, 3.0])


def test_sparse_merge_mirrors_tensorflow_artefacts(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[None, 1], reduction_type="SUM")
    with tm.Session() as sess:
        sess.run(q.apply_grad([2, 0], np.array([[1.0], [2.0]], np.float32)))
        sess.run(q.apply_grad([0], np.array([[4.0]], np.float32)))
        indices, values, _ = sess.run(q.take_grad(1))
    # TensorFlow's two-pointer merge assumes sorted indices: unsorted ones are not combined.
    np.testing.assert_array_equal(indices, [0, 2, 0])
    np.testing.assert_array_equal(values, [[4.0], [1.0], [2.0]])


def test_sparse_duplicates_stay_separate_rows(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[None, 1], reduction_type="SUM")
    with tm.Session() as sess:
        sess.run(q.apply_grad([1, 1], np.array([[1.0], [2.0]], np.float32)))
        indices, values, _ = sess.run(q.take_grad(1))
    np.testing.assert_array_equal(indices, [1, 1])
    np.testing.assert_array_equal(values, [[1.0], [2.0]])


def test_sparse_mean_divides_each_row_by_its_own_count(graph):
    q = tm.SparseConditionalAccumulator(tm.float64, shape=[None, 1])
    with tm.Session() as sess:
        sess.run(q.apply_grad([0, 1, 3], np.array([[3.0], [6.0], [9.0]])))
        sess.run(q.apply_grad([1, 3], np.array([[6.0], [3.0]])))
        sess.run(q.apply_grad([3, 4], np.array([[3.0], [8.0]])))
        indices, values, shape = sess.run(q.take_grad(3))
    np.testing.assert_array_equal(indices, [0, 1, 3, 4])
    np.testing.assert_array_equal(values, [[3.0], [6.0], [5.0], [8.0]])  # not divided by 3
    np.testing.assert_array_equal(shape, [-1, 1])


def test_sparse_empty_gradient_counts(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, shape=[3, 2])
    with tm.Session() as sess:
        sess.run(q.apply_grad(np.zeros(0, np.int64), np.zeros((0, 2), np.float32)))
        assert sess.run(q.num_accumulated()) == 1
        indices, values, shape = sess.run(q.take_grad(1))
    assert indices.shape == (0,) and values.shape == (0, 2)
    np.testing.assert_array_equal(shape, [3, 2])


def test_sparse_half_mean(graph):
    q = tm.SparseConditionalAccumulator(tm.float16, shape=[2, 1])
    with tm.Session() as sess:
        for v in range(10):
            sess.run(q.apply_grad([0], np.array([[v]], np.float16)))
        _, values, _ = sess.run(q.take_grad(1))
    assert values.dtype == np.float16 and values[0, 0] == np.float16(4.5)


# ----------------------------------------------------------------------------------------
# Failure atomicity: a failed run leaves accumulators as they were


def _failing_after(*ops):
    """An op that runs after ``ops`` and fails (a take of 0 gradients)."""
    bad = R.ResourceConditionalAccumulator(dtype=tm.float32, shape=[], shared_name="bad")
    with tm.control_dependencies(list(ops)):
        return R.ResourceAccumulatorTakeGradient(handle=bad, num_required=0, dtype=tm.float32)


def test_failed_run_undoes_its_applies(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[2], reduction_type="SUM")
    first = q.apply_grad(np.array([1.0, 2.0], np.float32))
    second = q.apply_grad(np.array([10.0, 20.0], np.float32))
    fail = _failing_after(second)
    with tm.Session() as sess:
        sess.run(first)
        with pytest.raises(tm.errors.InvalidArgumentError, match="must be positive"):
            sess.run(fail)
        assert sess.run(q.num_accumulated()) == 1
        np.testing.assert_array_equal(sess.run(q.take_grad(1)), [1.0, 2.0])


def test_failed_run_gives_back_a_completed_take(graph):
    q = tm.ConditionalAccumulator(tm.float32, name="Q", shape=[], reduction_type="SUM")
    step = tm.placeholder(tm.int64, [])
    apply = q.apply_grad(5.0, local_step=step)
    take = q.take_grad(2)
    fail = _failing_after(take)
    with tm.Session() as sess:
        sess.run(apply, feed_dict={step: 0})
        sess.run(apply, feed_dict={step: 0})
        with pytest.raises(tm.errors.InvalidArgumentError, match="must be positive"):
            sess.run([take, fail])
        assert sess.run(q.num_accumulated()) == 2  # the gradients are back ...
        sess.run(apply, feed_dict={step: 0})  # ... and so is global step 0 (not stale)
        assert sess.run(q.num_accumulated()) == 3
        assert sess.run(take) == 15.0


def test_failed_run_undoes_set_global_step(graph):
    q = tm.ConditionalAccumulator(tm.float32, shape=[])
    fail = _failing_after(q.set_global_step(7))
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(fail)
        sess.run(q.apply_grad(1.0, local_step=0))  # step is 0 again: accepted
        assert sess.run(q.num_accumulated()) == 1


def test_failed_run_undoes_sparse_apply(graph):
    q = tm.SparseConditionalAccumulator(tm.float32, name="Q", shape=[4, 1])
    first = q.apply_grad([0], np.array([[1.0]], np.float32))
    second = q.apply_grad([0, 3], np.array([[5.0], [7.0]], np.float32))
    fail = _failing_after(second)
    with tm.Session() as sess:
        sess.run(first)
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(fail)
        assert sess.run(q.num_accumulated()) == 1
        indices, values, _ = sess.run(q.take_grad(1))
    np.testing.assert_array_equal(indices, [0])
    np.testing.assert_array_equal(values, [[1.0]])


def test_undo_after_other_applies_subtracts_the_gradient(graph):
    """A dense apply undone after other runs applied takes only its own gradient back out."""
    from tfmini.runtime.kernel_context import KernelContext, RunState
    from tfmini.runtime.resources import ResourceManager

    class _Session:  # the least a RunState needs
        closed = False

        def _wake_waiters(self):
            pass

    acc = DenseAccumulator(tm.float64, tm.TensorShape([2]), "SUM", "acc")
    runs = [RunState(_Session(), None, None) for _ in range(3)]
    ctxs = [KernelContext(r, "/device:CPU:0", "CPU", ResourceManager("cpu")) for r in runs]
    acc.apply(ctxs[0], 0, np.array([1.0, 1.0]))
    acc.apply(ctxs[1], 0, np.array([10.0, 10.0]))
    acc.apply(ctxs[2], 0, np.array([100.0, 100.0]))
    runs[1].rollback()  # not the newest change: subtract
    assert acc.counter == 2
    np.testing.assert_array_equal(acc.sum, [101.0, 101.0])
    runs[2].rollback()
    runs[0].rollback()
    assert acc.counter == 0 and acc.sum is None


def test_undo_after_a_take_leaves_the_taken_gradient(graph):
    from tfmini.runtime.kernel_context import KernelContext, RunState
    from tfmini.runtime.resources import ResourceManager

    class _Session:
        closed = False

        def _wake_waiters(self):
            pass

    acc = SparseAccumulator(tm.float32, tm.TensorShape([2, 1]), "SUM", "acc")
    runs = [RunState(_Session(), None, None) for _ in range(2)]
    ctxs = [KernelContext(r, "/device:CPU:0", "CPU", ResourceManager("cpu")) for r in runs]
    acc.apply(ctxs[0], 0, np.array([1]), np.ones((1, 1), np.float32), np.zeros(0), False)
    taken = acc.take(ctxs[1], 1)
    np.testing.assert_array_equal(taken[1], [[1.0]])
    runs[0].rollback()  # the gradient went to a successful take: it stays taken
    assert acc.counter == 0 and acc.global_step == 1


# ----------------------------------------------------------------------------------------
# TensorFlow 2.21 goldens (tools/record_goldens_accumulators.py)


def _recorder():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "tools" / "record_goldens_accumulators.py"
    spec = importlib.util.spec_from_file_location("record_goldens_accumulators", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _recorder()


@pytest.mark.parametrize("case", sorted(RECORDER.CASES))
def test_matches_tensorflow_goldens(golden, case):
    want = {k: v for k, v in golden("accumulators").items() if k.split("/")[0] == case}
    with tm.Graph().as_default():
        got = RECORDER.flatten(case, RECORDER.CASES[case](tm))
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        value = got[key]
        if expected.dtype.kind == "U":  # "<ErrorClass>: <TensorFlow's kernel message>"
            cls, _, message = str(expected).partition(": ")
            assert str(value).startswith(cls + ":"), (key, str(value))
            assert message in str(value), (key, str(value))
        else:
            assert value.dtype == expected.dtype, key
            np.testing.assert_array_equal(value, expected, err_msg=key)
