"""Session.run: fetches, feeds, pruning, plan cache, lifetime, results, tracing and failures."""

from __future__ import annotations

import collections
import os
import sys

import attrs
import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry

COUNTS: collections.Counter = collections.Counter()
STATE = {"value": 0}


def _count_kernel(x, *, node):
    COUNTS[node.name] += 1
    return x


_FAILURES = {
    "value": lambda: ValueError("bad value"),
    "index": lambda: IndexError("bad index"),
    "memory": lambda: MemoryError("out of memory"),
    "unimplemented": lambda: NotImplementedError("not done"),
    "runtime": lambda: RuntimeError("went wrong"),
    "out_of_range": lambda: tm.errors.OutOfRangeError(None, None, "End of sequence"),
    "none": lambda: None,
}


def _fail_kernel(x, *, kind):
    exc = _FAILURES[kind]()
    if exc is not None:
        raise exc
    return x


def _bump_kernel(ctx, x):
    old = STATE["value"]
    STATE["value"] = old + 1
    ctx.on_failure(lambda: STATE.__setitem__("value", old))
    return x


@pytest.fixture(autouse=True)
def custom_ops():
    """Test ops: a counter (side effect), a failing op, a stateful op with rollback."""
    COUNTS.clear()
    STATE["value"] = 0
    tm.register_op("SessTestCount", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                   stateful=True)(_count_kernel)
    tm.register_op("SessTestFail", inputs=["x: T"], outputs=["y: T"],
                   attrs=["T: type", "kind: string"])(_fail_kernel)
    tm.register_op("SessTestBump", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                   stateful=True)(_bump_kernel)
    yield
    for name in ("SessTestCount", "SessTestFail", "SessTestBump"):
        registry.unregister(name)


def count(x, name):
    return tm.raw_ops.SessTestCount(x=x, name=name)


@pytest.fixture
def net(graph):
    """x (placeholder) -> y = x + c -> z = identity(y); plus a NoOp and a scalar."""
    x = tm.placeholder(tm.float32, shape=(None, 3), name="x")
    c = tm.constant([1.0, 2.0, 3.0], name="c")
    y = tm.add(x, c, name="y")
    z = tm.identity(y, name="z")
    n = tm.no_op(name="n")
    s = tm.constant(3.0, name="s")
    return types_ns(graph=graph, x=x, c=c, y=y, z=z, n=n, s=s, feed={x: [[1.0, 2.0, 3.0]]})


def types_ns(**kw):
    return collections.namedtuple("Net", kw)(**kw)


@pytest.fixture
def sess(net):
    with tm.Session(graph=net.graph) as s:
        yield s


EXPECTED_Z = np.float32([[2.0, 4.0, 6.0]])

# -- fetches ------------------------------------------------------------------------------


def test_fetch_output_operation_and_names(net, sess):
    np.testing.assert_array_equal(sess.run(net.z, net.feed), EXPECTED_Z)
    assert sess.run(net.n) is None
    np.testing.assert_array_equal(sess.run("z:0", net.feed), EXPECTED_Z)
    assert sess.run("n") is None
    assert sess.run("z", net.feed) is None  # an op name fetches the Operation, as TF


def test_fetch_nested_structures(net, sess):
    Pair = collections.namedtuple("Pair", "value op")

    @attrs.define
    class Holder:
        value: object
        _private: object

    fetches = [net.z, (net.s, [net.n]), {"a": net.z, "b": Pair(net.s, net.n)},
               Holder(net.s, net.z)]
    out = sess.run(fetches, net.feed)
    assert isinstance(out, list) and isinstance(out[1], tuple) and isinstance(out[1][1], list)
    np.testing.assert_array_equal(out[0], EXPECTED_Z)
    assert out[1] == (np.float32(3.0), [None])
    assert set(out[2]) == {"a", "b"}
    np.testing.assert_array_equal(out[2]["a"], EXPECTED_Z)
    assert type(out[2]["b"]) is Pair and out[2]["b"] == Pair(np.float32(3.0), None)
    assert type(out[3]) is Holder and out[3].value == np.float32(3.0)
    np.testing.assert_array_equal(out[3]._private, EXPECTED_Z)


def test_fetch_duplicates_and_empty_structures(net, sess):
    a, b = sess.run([net.s, net.s])
    assert a == b == np.float32(3.0)
    assert sess.run([]) == [] and sess.run({}) == {} and sess.run(()) == ()


@pytest.mark.parametrize("bad, error, match", [
    (None, TypeError, "has invalid type"),
    (3, TypeError, "has invalid type"),
    ("nope:0", ValueError, "cannot be interpreted as a Tensor"),
    ([1.5], TypeError, "has invalid type"),
])
def test_invalid_fetches(net, sess, bad, error, match):
    with pytest.raises(error, match=match):
        sess.run(bad)


def test_fetch_from_another_graph(sess):
    with tm.Graph().as_default():
        foreign = tm.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this session's graph"):
        sess.run(foreign)


# -- feeds --------------------------------------------------------------------------------


def test_feed_by_output_and_by_name(net, sess):
    np.testing.assert_array_equal(sess.run(net.z, {"x:0": [[1, 2, 3]]}), EXPECTED_Z)
    with pytest.raises(ValueError, match="Cannot interpret feed_dict key 'x' as a Tensor"):
        sess.run(net.z, {"x": [[1, 2, 3]]})
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
        sess.run(net.z, {3: [[1, 2, 3]]})
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
        sess.run(net.z, {net.x.op: [[1, 2, 3]]})  # an Operation is not a Tensor
    wrapper = tm.ops.Identity.create(tm.Scope(net.graph), net.x)
    got = sess.run(wrapper, {wrapper: [[5.0, 5.0, 5.0]]})  # an operand feeds its tensor
    np.testing.assert_array_equal(got, [[5.0, 5.0, 5.0]])


def test_feeding_an_intermediate_prunes_its_producer(graph):
    x = tm.placeholder(tm.float32, name="x")  # never fed
    y = count(x, "producer")
    z = tm.identity(y, name="z")
    with tm.Session(graph=graph) as sess:
        assert sess.run(z, {y: 5.0}) == np.float32(5.0)
        assert COUNTS["producer"] == 0  # and the unfed placeholder did not complain
        assert sess.run(y, {y: 7.0}) == np.float32(7.0)
        assert sess.run(z, {x: 1.0}) == np.float32(1.0)
        assert COUNTS["producer"] == 1


def test_feeding_a_constant(net, sess):
    assert sess.run(net.s, {net.s: 10.0}) == np.float32(10.0)


def test_feed_values_are_converted_to_the_tensor_dtype(net, sess):
    out = sess.run(net.y, {net.x: np.array([[1, 2, 3]], dtype=np.int64)})
    assert out.dtype == np.float32
    out = sess.run(net.y, {net.x: [[1.5, 2.5, 3.5]]})
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[2.5, 4.5, 6.5]])


def test_feed_shape_is_checked(net, sess):
    with pytest.raises(ValueError) as info:
        sess.run(net.z, {net.x: [[1.0, 2.0]]})
    assert str(info.value) == (
        "Cannot feed value of shape (1, 2) for Tensor 'x:0', which has shape '(None, 3)'"
    )
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(net.z, {net.x: [1.0, 2.0, 3.0]})


def test_feed_value_that_cannot_be_converted(net, sess):
    with pytest.raises(TypeError, match="Cannot feed value .* to Tensor 'x:0' of dtype float32"):
        sess.run(net.z, {net.x: [["a", "b", "c"]]})


def test_feeding_a_tensor_is_a_type_error(net, sess, graph):
    with pytest.raises(TypeError, match="The value of a feed cannot be a tm.Tensor object"):
        sess.run(net.z, {net.x: net.c})
    text = tm.placeholder(tm.string, name="text")
    with pytest.raises(TypeError, match="cannot be a tm.Tensor"):
        sess.run(tm.identity(text), {text: net.c})  # object dtype would hold anything


def test_int_feed_that_does_not_fit_is_a_type_error(graph):
    i = tm.placeholder(tm.int32, name="i")
    u = tm.placeholder(tm.uint8, name="u")
    with tm.Session(graph=graph) as sess:
        with pytest.raises(TypeError, match="Type of feed value 1099511627776 with type "
                                            "<class 'int'> is not compatible with Tensor type"):
            sess.run(i, {i: 2**40})
        with pytest.raises(TypeError, match="larger type"):
            sess.run(u, {u: -1})
        assert sess.run(i, {i: 2**31 - 1}) == 2**31 - 1


def test_missing_feed_names_the_placeholder(net, sess):
    with pytest.raises(tm.errors.InvalidArgumentError) as info:
        sess.run(net.z)
    msg = str(info.value)
    assert "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]" in (
        msg
    )
    assert info.value.op is net.x.op


def test_feed_and_fetch_the_same_tensor(net, sess):
    out = sess.run(net.x, net.feed)
    np.testing.assert_array_equal(out, [[1.0, 2.0, 3.0]])


def test_feed_from_another_graph(sess):
    with tm.Graph().as_default():
        foreign = tm.placeholder(tm.float32)
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess.run([], {foreign: 1.0})


# -- pruning and the plan cache -----------------------------------------------------------


def test_ops_not_needed_are_not_run(graph):
    a = count(tm.constant(1.0), "a")
    b = count(tm.constant(2.0), "b")
    gate = count(tm.constant(3.0), "gate")
    with tm.control_dependencies([gate]):
        c = tm.identity(a, name="c")
    with tm.Session(graph=graph) as sess:
        sess.run(c)
        assert COUNTS == {"a": 1, "gate": 1}  # b is pruned; the control input is followed
        sess.run([b, b.op])
        assert COUNTS == {"a": 1, "gate": 1, "b": 1}


def test_same_signature_reuses_the_plan(net, sess):
    sess.run(net.z, net.feed)
    assert len(sess._plans) == 1
    plan = next(iter(sess._plans.values()))
    sess.run(net.z, {net.x: np.zeros((4, 3), np.float32)})
    sess.run([net.z], net.feed)  # the same outputs in a list: same signature
    assert len(sess._plans) == 1 and next(iter(sess._plans.values())) is plan
    sess.run(net.z, {net.y: [[0.0, 0.0, 0.0]]})
    sess.run([net.z, net.n], net.feed)
    assert len(sess._plans) == 3


def test_make_callable(net, sess):
    fn = sess.make_callable([net.z, net.n], feed_list=[net.x])
    out, none = fn([[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(out, EXPECTED_Z)
    assert none is None
    plans = len(sess._plans)
    fn(np.ones((2, 3), np.float32))
    assert len(sess._plans) == plans
    single = sess.make_callable(net.s)
    assert single() == np.float32(3.0)
    with pytest.raises(TypeError, match="Expected 1 feed values, got 0"):
        fn()
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        fn([1.0])


# -- lifetime and defaults ----------------------------------------------------------------


def test_close_then_run_is_a_runtime_error(net):
    sess = tm.Session(graph=net.graph)
    fn = sess.make_callable(net.s)
    sess.close()
    sess.close()  # closing twice is fine
    assert sess.closed
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
        sess.run(net.s)
    with pytest.raises(RuntimeError, match="closed Session"):
        fn()


def test_context_manager_sets_default_session_and_graph(net):
    assert tm.get_default_session() is None
    other = tm.Graph()
    with other.as_default():
        with tm.Session(graph=net.graph) as sess:
            assert tm.get_default_session() is sess
            assert tm.get_default_graph() is net.graph
            np.testing.assert_array_equal(net.z.eval(feed_dict=net.feed), EXPECTED_Z)
            counted = count(net.s, "run_me")
            assert counted.op.run() is None
            assert COUNTS["run_me"] == 1
        assert tm.get_default_graph() is other
    assert tm.get_default_session() is None
    assert sess.closed


def test_as_default_does_not_close(net):
    sess = tm.Session(graph=net.graph)
    with sess.as_default():
        assert tm.get_default_session() is sess
        assert net.s.eval() == np.float32(3.0)
        inner = tm.Session(graph=net.graph)
        with inner.as_default():
            assert tm.get_default_session() is inner
        assert tm.get_default_session() is sess
    assert tm.get_default_session() is None
    assert not sess.closed
    assert net.s.eval(session=sess) == np.float32(3.0)
    sess.close()
    inner.close()


def test_eval_without_a_session(net):
    with pytest.raises(ValueError, match="No default session is registered"):
        net.s.eval()
    with pytest.raises(ValueError, match="No default session is registered"):
        net.n.run()


def test_session_arguments(graph):
    with pytest.raises(TypeError, match="graph must be a tm.Graph"):
        tm.Session(graph="g")
    with pytest.raises(tm.errors.UnimplementedError, match="Remote session targets"):
        tm.Session("grpc://localhost:2222")
    with tm.Session() as sess:
        assert sess.graph is graph  # the default graph
        assert sess.list_devices() == ["/device:CPU:0"]


# -- results ------------------------------------------------------------------------------


def test_fetched_arrays_are_writeable_and_do_not_alias_constants(net, sess):
    first = sess.run(net.c)
    assert first.flags.writeable
    first[0] = 100.0
    np.testing.assert_array_equal(sess.run(net.c), [1.0, 2.0, 3.0])
    via_identity = sess.run(tm.identity(net.c))
    via_identity[1] = 100.0
    np.testing.assert_array_equal(sess.run(net.c), [1.0, 2.0, 3.0])


def test_rank_0_results_are_numpy_scalars(net, sess):
    s = sess.run(net.s)
    assert isinstance(s, np.float32) and not isinstance(s, np.ndarray)
    i = sess.run(tm.constant(7))
    assert isinstance(i, np.int32)


def test_full_trace_records_one_entry_per_executed_op(graph):
    x = tm.placeholder(tm.float32, name="x")
    y = count(x, "counted")
    z = tm.identity(y, name="z")
    tm.identity(z, name="unused")
    meta = tm.RunMetadata()
    opts = tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE)
    with tm.Session(graph=graph) as sess:
        out = sess.run(z, {x: [1.0, 2.0]}, options=opts, run_metadata=meta)
    np.testing.assert_array_equal(out, [1.0, 2.0])
    (dev,) = meta.step_stats.dev_stats
    assert dev.device == "/device:CPU:0"
    assert [s.node_name for s in dev.node_stats] == ["counted", "z"]
    assert [s.op_type for s in dev.node_stats] == ["SessTestCount", "Identity"]
    assert dev.node_stats[1].output_shapes == [[2]]
    assert all(s.all_end_rel_micros >= 0 for s in dev.node_stats)


def test_no_trace_leaves_metadata_empty(net, sess):
    meta = tm.RunMetadata()
    sess.run(net.s, run_metadata=meta)
    assert meta.step_stats.dev_stats == []


# -- kernel failures ----------------------------------------------------------------------


@pytest.mark.parametrize("kind, error, cause", [
    ("value", tm.errors.InvalidArgumentError, ValueError),
    ("index", tm.errors.InvalidArgumentError, IndexError),
    ("memory", tm.errors.ResourceExhaustedError, MemoryError),
    ("unimplemented", tm.errors.UnimplementedError, NotImplementedError),
    ("runtime", tm.errors.UnknownError, RuntimeError),
    ("out_of_range", tm.errors.OutOfRangeError, tm.errors.OutOfRangeError),
])
@pytest.mark.parametrize("traced", [False, True])
def test_kernel_failures_become_tf_errors_naming_the_op(graph, kind, error, cause, traced):
    x = tm.placeholder(tm.float32, name="x")
    bad = tm.raw_ops.SessTestFail(x=x, kind=kind, name="bad")
    line = sys._getframe().f_lineno - 1
    opts = tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE) if traced else None
    with tm.Session(graph=graph) as sess:
        with pytest.raises(error) as info:
            sess.run(bad, {x: np.ones((2, 3), np.float32)}, options=opts,
                     run_metadata=tm.RunMetadata())
        e = info.value
        assert type(e) is error
        assert e.op is bad.op
        msg = str(e)
        assert msg.startswith("SessTestFail 'bad' on /device:CPU:0: ")
        assert "[inputs: x: float32[2,3]]" in msg
        assert msg.endswith(f"(defined at {os.path.basename(__file__)}:{line})")
        assert type(e.__cause__) is cause
        assert str(e.__cause__.args[0]) in msg
        # The session is still usable, for this signature and others.
        assert sess.run(x, {x: 1.0}) == np.float32(1.0)
        with pytest.raises(error):
            sess.run(bad, {x: 1.0}, options=opts, run_metadata=tm.RunMetadata())


def test_failure_deep_in_a_chain_reports_the_failing_inputs(graph):
    # Values live in reused registers; the failing step must still find its own inputs.
    v = tm.constant(np.zeros((4, 5), np.float32))
    for i in range(5):
        v = tm.identity(v, name=f"i{i}")
    w = tm.raw_ops.AddV2(x=v, y=tm.constant(np.float32(1)))
    bad = tm.raw_ops.SessTestFail(x=w, kind="value", name="deep")
    with tm.Session(graph=graph) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"\[inputs: x: float32\[4,5\]\]"):
            sess.run(bad)


def test_cycle_is_reported_and_the_session_survives(graph):
    x = tm.placeholder(tm.float32, name="x")
    a = tm.identity(x, name="ca")
    b = tm.identity(a, name="cb")
    ok = tm.identity(x, name="ok")
    a.op._add_control_input(b.op)
    with tm.Session(graph=graph) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(b, {x: 1.0})
        msg = str(info.value)
        assert "Graph contains a cycle" in msg and "ca" in msg and "cb" in msg
        assert sess.run(ok, {x: 2.0}) == np.float32(2.0)
        assert sess.run(b, {a: 3.0}) == np.float32(3.0)  # feeding a breaks the cycle


def test_cycle_message_follows_the_edges_and_is_deterministic(graph):
    x = tm.placeholder(tm.float32, name="x")
    a = tm.identity(x, name="a")
    b = tm.identity(a, name="b")
    c = tm.identity(b, name="c")
    a.op._add_control_input(c.op)
    messages = set()
    for _ in range(3):
        with tm.Session(graph=graph) as sess:
            with pytest.raises(tm.errors.InvalidArgumentError) as info:
                sess.run(c, {x: 1.0})
        messages.add(str(info.value))
    (msg,) = messages
    assert "(3 nodes): b -> c -> a -> b" in msg


def test_failed_run_rolls_back_state(graph):
    x = tm.placeholder(tm.float32, name="x")
    bumped = tm.raw_ops.SessTestBump(x=x, name="bump")
    with tm.control_dependencies([bumped]):
        bad = tm.raw_ops.SessTestFail(x=x, kind="value", name="after_bump")
    with tm.Session(graph=graph) as sess:
        sess.run(bumped, {x: 1.0})
        assert STATE["value"] == 1
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run([bumped, bad], {x: 1.0})
        assert STATE["value"] == 1  # the bump of the failed run was undone
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(bad, {x: 1.0}, options=tm.RunOptions(trace_level=3),
                     run_metadata=tm.RunMetadata())
        assert STATE["value"] == 1
        sess.run(bumped, {x: 1.0})
        assert STATE["value"] == 2


def test_bad_feed_is_refused_before_anything_runs(graph):
    x = tm.placeholder(tm.float32, shape=[2], name="x")
    bumped = tm.raw_ops.SessTestBump(x=x)
    with tm.Session(graph=graph) as sess:
        with pytest.raises(ValueError):
            sess.run(bumped, {x: [1.0, 2.0, 3.0]})
    assert STATE["value"] == 0


@pytest.mark.parametrize("traced", [False, True])
def test_error_that_already_names_its_op_passes_through_unchanged(graph, traced):
    # A failure inside a function call arrives already naming the innermost op.
    inner = tm.no_op(name="inner")
    original = tm.errors.AbortedError(None, inner, "inner op failed")

    def raise_it(x):
        raise original

    tm.register_op("SessTestNested", inputs=["x: float"], outputs=["y: float"])(raise_it)
    try:
        outer = tm.raw_ops.SessTestNested(x=1.0)
        opts = tm.RunOptions(trace_level=3) if traced else None
        with tm.Session(graph=graph) as sess:
            with pytest.raises(tm.errors.AbortedError) as info:
                sess.run(outer, options=opts, run_metadata=tm.RunMetadata())
        assert info.value is original
        assert info.value.op is inner
        assert info.value.__cause__ is not info.value  # no self-referencing chain
    finally:
        registry.unregister("SessTestNested")


def test_fetched_feed_is_a_copy_of_the_callers_array():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(3,))
        y = tm.identity(x)
    fed = np.arange(3, dtype=np.float32)
    with tm.Session(graph=g) as sess:
        for value in (sess.run(x, {x: fed}), sess.run(y, {x: fed}),
                      sess.make_callable(y, feed_list=[x])(fed)):
            assert value is not fed and not np.shares_memory(value, fed)
            np.testing.assert_array_equal(value, [0, 1, 2])


def test_fetched_view_of_a_feed_is_a_copy():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(2, 3))
        flat = tm.reshape(x, [6])
    fed = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tm.Session(graph=g) as sess:
        value = sess.run(flat, {x: fed})
    assert not np.shares_memory(value, fed)
    np.testing.assert_array_equal(value, np.arange(6))
