"""Shape-derived values memoized by run-time shapes (tfmini/runtime/shape_memo.py), and the
reshape to a value's own shape that the plan drops (graph_rewrite.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tfmini.runtime import shape_memo
from tfmini.runtime.options import RewriterConfig

OFF = tm.ConfigProto(graph_options=tm.GraphOptions(
    rewrite_options=RewriterConfig(disable_meta_optimizer=True)))
NO_FOLDING = tm.ConfigProto(graph_options=tm.GraphOptions(
    rewrite_options=RewriterConfig(constant_folding=RewriterConfig.OFF)))


def _mean_loss_graph():
    """A softmax cross-entropy mean over a batch the graph does not know, and its
    gradients: TensorFlow's mean gradient reads the batch size at run time."""
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 5], name="x")
        y = tm.placeholder(tm.int64, [None], name="y")
        w = tm.constant(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
        logits = tm.matmul(x, w)
        loss = tm.reduce_mean(
            tm.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        (grad,) = tm.gradients(loss, [logits])
    return g, x, y, loss, grad


def _batch(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 5)).astype(np.float32), rng.integers(0, 3, n)


def _memo_steps(sess):
    return [s for plan in sess._plans.values() for s in plan.steps
            if isinstance(s.fn, shape_memo.ShapeMemo)]


def test_the_mean_gradient_chain_runs_as_one_memo_step_with_the_same_values():
    g, x, y, loss, grad = _mean_loss_graph()
    batches = [_batch(n, seed) for seed, n in enumerate([8, 3, 8, 1, 3])]
    results = {}
    for name, config in (("memo", None), ("off", OFF), ("no folding", NO_FOLDING)):
        with tm.Session(graph=g, config=config) as sess:
            results[name] = [sess.run([loss, grad], {x: xs, y: ys}) for xs, ys in batches]
            memos = _memo_steps(sess)
            types = [s.op.type for p in sess._plans.values() for s in p.steps]
            source = sess.plan_source([loss, grad], {x: batches[0][0], y: batches[0][1]})
        if name == "memo":
            (memo,) = memos
            # Three batch sizes seen: three shape sets, each computed once.
            assert len(memo.fn.cache) == 3
            assert "memoized by shape: 7 steps" in source
            assert not {"Tile", "GatherV2", "Prod", "ExpandDims"} & set(types)
        else:
            assert memos == []
            assert {"Tile", "GatherV2", "Prod"} <= set(types)
    for got, want in zip(results["memo"], results["off"]):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    for got, want in zip(results["no folding"], results["off"]):
        np.testing.assert_array_equal(got[1], want[1])
    # A batch of 8 averages over 8: each row's gradient sums to 0 and is 1/8 of softmax - 1.
    xs, ys = batches[0]
    logits = xs @ np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(8), ys] -= 1
    np.testing.assert_allclose(results["memo"][0][1], p / 8, rtol=1e-5, atol=1e-7)


def test_memoized_values_are_shared_but_not_changed_by_their_readers():
    g, x, y, loss, grad = _mean_loss_graph()
    with tm.Session(graph=g) as sess:
        xs, ys = _batch(4, 0)
        first = sess.run(grad, {x: xs, y: ys})
        first[:] = 99.0  # the caller owns what a run returns
        again = sess.run(grad, {x: xs, y: ys})
        (memo,) = _memo_steps(sess)
        (values,) = memo.fn.cache.values()
        assert all(not np.shares_memory(v, again) for v in values if isinstance(v, np.ndarray))
    with tm.Session(graph=g, config=OFF) as sess:
        np.testing.assert_array_equal(again, sess.run(grad, {x: xs, y: ys}))


def test_a_fetched_shape_value_comes_from_the_memo_as_the_callers_own_array():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, None])
        dims = tm.shape(x) * 1
        n = tm.cast(tm.reduce_prod(dims), tm.float32)
        scaled = x / n
    with tm.Session(graph=g) as sess:
        for shape in [(2, 3), (4, 1), (2, 3)]:
            xs = np.ones(shape, np.float32)
            got_dims, got_n, got = sess.run([dims, n, scaled], {x: xs})
            np.testing.assert_array_equal(got_dims, shape)
            assert got_n == np.float32(np.prod(shape))
            np.testing.assert_array_equal(got, xs / np.float32(np.prod(shape)))
            got_dims[:] = -1  # the caller may change what a run returns
        (memo,) = _memo_steps(sess)
        assert len(memo.fn.cache) == 2
        np.testing.assert_array_equal(sess.run(dims, {x: np.ones((2, 3), np.float32)}), [2, 3])


def test_a_failing_kernel_in_a_group_raises_its_own_error_and_the_session_goes_on():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32)
        rank_index = tm.placeholder_with_default(np.int32(1), [])
        pick = tm.gather(tm.shape(x), tm.constant(2), name="pick")  # rank 2: index 2 fails
        out = tm.cast(pick, tm.float32) * 2.0
        ok = tm.cast(tm.gather(tm.shape(x), rank_index), tm.float32)
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match=r"GatherV2 'pick'"):
            sess.run(out, {x: np.zeros((2, 3), np.float32)})
        assert sess.run(out, {x: np.zeros((2, 3, 5), np.float32)}) == 10.0
        assert sess.run(ok, {x: np.zeros((2, 3), np.float32)}) == 3.0


def test_stateful_ops_and_control_inputs_are_not_memoized():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None])
        var = tm.Variable(0.0)
        shape = tm.shape(x)
        noisy = tm.random.uniform(shape, seed=1)  # stateful: new numbers every run
        with tm.control_dependencies([var.assign_add(1.0)]):
            gated = tm.identity(tm.size(x))  # waits for the assign: not a shape value
        out = noisy * tm.cast(gated, tm.float32)
    with tm.Session(graph=g) as sess:
        sess.run(var.initializer)
        a = sess.run(out, {x: np.zeros(3, np.float32)})
        b = sess.run(out, {x: np.zeros(3, np.float32)})
        assert not np.array_equal(a, b)
        assert sess.run(var) == 2.0
        memos = _memo_steps(sess)
        kinds = {s.op.type for m in memos for s in m.fn.steps}
        assert "RandomUniform" not in kinds and "Identity" not in kinds


def test_a_group_whose_value_is_read_before_its_last_shape_is_known_is_left_alone():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, None])
        s = tm.shape(x)
        y = tm.reshape(tm.reverse(x, [0]), s)  # reads s before y exists
        out = tm.cast(tm.shape(y) + s, tm.float32)  # one group: roots x and y
    with tm.Session(graph=g) as sess:
        xs = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(sess.run(out, {x: xs}), [4.0, 6.0])
        assert _memo_steps(sess) == []


def test_values_too_large_to_keep_are_computed_every_run(monkeypatch):
    monkeypatch.setattr(shape_memo, "MAX_ELEMENTS", 0)
    g, x, y, loss, grad = _mean_loss_graph()
    with tm.Session(graph=g) as sess:
        xs, ys = _batch(6, 1)
        got = [sess.run(grad, {x: xs, y: ys}) for _ in range(2)]
        (memo,) = _memo_steps(sess)
        assert memo.fn.cache == {}
    with tm.Session(graph=g, config=OFF) as sess:
        want = sess.run(grad, {x: xs, y: ys})
    for v in got:
        np.testing.assert_array_equal(v, want)


def test_a_traced_run_gives_the_same_values():
    g, x, y, loss, grad = _mean_loss_graph()
    xs, ys = _batch(5, 2)
    with tm.Session(graph=g) as sess:
        meta = tm.RunMetadata()
        traced = sess.run(grad, {x: xs, y: ys},
                          options=tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE),
                          run_metadata=meta)
        plain = sess.run(grad, {x: xs, y: ys})
    np.testing.assert_array_equal(traced, plain)
    assert meta.step_stats.dev_stats


def test_a_reshape_to_the_constant_shape_a_value_has_is_dropped():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [2, 3])
        # Each read by another op: a fetched value is never rewritten away.
        same = tm.reshape(tm.exp(x), [2, 3]) * 2.0
        other = tm.reshape(tm.exp(x), [3, 2]) * 2.0
        fed_shape = tm.placeholder_with_default(np.int32([2, 3]), [2])
        dynamic = tm.reshape(tm.exp(x), fed_shape) * 2.0
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tm.Session(graph=g) as sess:
        a, b, c = sess.run([same, other, dynamic], {x: xs})
        types = [s.op.type for p in sess._plans.values() for s in p.steps]
        assert types.count("Reshape") == 2  # [3, 2] and the run-time shape stay
        with pytest.raises(tm.errors.InvalidArgumentError, match="Reshape"):
            sess.run(dynamic, {x: xs, fed_shape: np.int32([3, 3])})
    with tm.Session(graph=g, config=OFF) as sess:
        want = sess.run([same, other, dynamic], {x: xs})
    for got, w in zip([a, b, c], want):
        np.testing.assert_array_equal(got, w)
    assert a.shape == c.shape == (2, 3) and b.shape == (3, 2)
