"""Plan-time graph rewrites (tfmini/runtime/graph_rewrite.py) and their ConfigProto switch."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden
from tests.test_porting import SCRIPTS, run_script
from tfmini.runtime.options import RewriterConfig

OFF = tm.ConfigProto(graph_options=tm.GraphOptions(
    rewrite_options=RewriterConfig(disable_meta_optimizer=True)))


def _plan_types(sess, fetches, feed_dict=None):
    sess.run(fetches, feed_dict)
    (plan,) = sess._plans.values()
    return [step.op.type for step in plan.steps]


def _both(fetches_fn, feed_fn=None):
    """(step types with rewrites, without, values with, without) for a fresh graph."""
    out = []
    for config in (None, OFF):
        g = tm.Graph()
        with g.as_default():
            fetches, feeds = fetches_fn()
        with tm.Session(graph=g, config=config) as sess:
            types = _plan_types(sess, fetches, feeds)
            out.append((types, sess.run(fetches, feeds)))
    (t_on, v_on), (t_off, v_off) = out
    return t_on, t_off, v_on, v_off


def test_common_subexpressions_run_once():
    def build():
        x = tm.placeholder(tm.float32, [3])
        a = tm.exp(x)
        b = tm.exp(x)  # the same op again
        return a + b, {x: np.array([0.0, 1.0, 2.0], np.float32)}

    on, off, v_on, v_off = _both(build)
    assert on.count("Exp") == 1 and off.count("Exp") == 2
    np.testing.assert_array_equal(v_on, v_off)


def test_stateful_ops_are_never_merged():
    def build():
        a = tm.random.uniform([4], seed=1, name="u1")
        b = tm.random.uniform([4], seed=1, name="u2")
        return [a - b], None

    on, off, _, _ = _both(build)
    assert on == off


def test_arithmetic_identities_are_bypassed():
    def build():
        x = tm.placeholder(tm.float32, [2, 3])
        y = x * tm.constant(1.0) + tm.constant(np.zeros((2, 3), np.float32))
        z = tm.transpose(tm.transpose(y, [1, 0]), [1, 0])
        r = tm.reshape(tm.reshape(z, [3, 2]), [6])
        return tm.tanh(r), {x: np.arange(6, dtype=np.float32).reshape(2, 3)}

    on, off, v_on, v_off = _both(build)
    assert "Mul" in off and "Mul" not in on
    assert "AddV2" in off and "AddV2" not in on
    assert off.count("Transpose") == 2 and on.count("Transpose") == 0
    assert off.count("Reshape") == 2 and on.count("Reshape") == 1
    np.testing.assert_array_equal(v_on, v_off)


def test_a_broadcasting_one_is_not_an_identity():
    def build():
        x = tm.placeholder(tm.float32, [3])
        return x * tm.constant(np.ones((2, 3), np.float32)), {x: np.ones(3, np.float32)}

    on, _, v_on, v_off = _both(build)
    assert "Mul" in on and v_on.shape == (2, 3)
    np.testing.assert_array_equal(v_on, v_off)


def test_shape_arithmetic_is_folded():
    def build():
        x = tm.placeholder(tm.float32, [4, 6])
        n = tm.reduce_prod(tm.shape(tm.zeros([2, 3])))  # 6, known before any run
        return tm.reshape(x, tm.stack([4 * n])), {x: np.ones((4, 6), np.float32)}

    on, off, v_on, v_off = _both(build)
    assert len(on) < len(off)
    assert "Prod" in off and "Prod" not in on
    np.testing.assert_array_equal(v_on, v_off)


def test_a_failing_op_is_not_folded_and_fails_when_run():
    g = tm.Graph()
    with g.as_default():
        # Constant inputs, but the shape comes through ops the builder does not evaluate.
        shape = tm.raw_ops.Mul(x=tm.raw_ops.Identity(input=tm.constant([2])),
                               y=tm.constant([1]))
        bad = tm.raw_ops.Reshape(tensor=tm.constant([1, 2, 3]), shape=shape)
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="Reshape 'Reshape'"):
            sess.run(bad)
        (plan,) = sess._plans.values()
        assert "Reshape" in [s.op.type for s in plan.steps]


def test_a_stateless_op_only_a_control_edge_asks_for_is_not_run():
    """As Grappler's dependency optimizer: grouped with an assign, a Reshape that would fail
    is not run, and the assign happens (TensorFlow 2.21's results in goldens/perf.npz)."""
    gold = load_golden("perf")

    def run(config):
        g = tm.Graph()
        with g.as_default():
            x = tm.placeholder(tm.float32, [2])
            var = tm.Variable(1.0)
            bad = tm.reshape(x, tm.placeholder_with_default(np.int32([3]), [1]))
            step = tm.group(var.assign_add(1.0), bad)
        with tm.Session(graph=g, config=config) as sess:
            sess.run(var.initializer)
            try:
                sess.run(step, {x: [1.0, 2.0]})
                raised = 0
            except tm.errors.InvalidArgumentError:
                raised = 1
            return raised, sess.run(var)

    assert run(None) == (int(gold["control_only/raised"]), float(gold["control_only/var"]))
    no_dependency = tm.ConfigProto(graph_options=tm.GraphOptions(
        rewrite_options=RewriterConfig(dependency_optimization=RewriterConfig.OFF)))
    assert run(no_dependency) == (1, 1.0)  # run, it fails; the failed run changed nothing
    assert run(OFF) == (1, 1.0)


def test_gated_first_layer_input_gradient_is_not_computed():
    """An optimizer's gate_gradients groups each MatMul's two gradients; the one for the
    fed input is read by nobody, so only the weight gradient's product runs."""
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [4, 3])
        w = tm.Variable(np.ones((3, 2), np.float32))
        loss = tm.reduce_sum(tm.matmul(x, w))
        train = tm.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: np.arange(12, dtype=np.float32).reshape(4, 3)}
    counts = []
    for config in (None, OFF):
        with tm.Session(graph=g, config=config) as sess:
            sess.run(w.initializer)
            sess.run(train, feed)
            types = [[s.op.type for s in p.steps] for p in sess._plans.values()]
            counts.append(max(t.count("MatMul") for t in types))
            np.testing.assert_allclose(sess.run(w), 1 - 0.1 * feed[x].sum(0)[:, None] *
                                       np.ones((1, 2)))
    # With the rewrites only the weight gradient's product runs (the forward product was
    # read only for its static shape, folded); without them, the forward and input's too.
    assert counts == [1, 3]


def test_fetched_and_fed_values_are_left_alone():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [2])
        one = x * tm.constant(1.0)
        again = x * tm.constant(1.0)
    with tm.Session(graph=g) as sess:
        a, b = sess.run([one, again], {x: np.ones(2, np.float32)})
        assert a is not b  # two fetches, two arrays
        assert sess.run(one, {one: np.full(2, 5.0, np.float32)}).tolist() == [5.0, 5.0]


REMAP_OFF = tm.ConfigProto(graph_options=tm.GraphOptions(
    rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF)))


def _bias_relu_inputs():
    xs = np.random.default_rng(2).standard_normal((2, 3, 4, 3)).astype(np.float32)
    xs[0, 0, 0] = [-0.0, np.nan, -np.inf]
    xs[0, 0, 1] = [np.inf, -1e-30, 2.0]
    return xs, np.array([0.0, -1.0, np.inf], np.float32)


def test_bias_add_then_relu_runs_as_one_step():
    """Relu of AddV2 or of an NHWC BiasAdd with a bias vector: one step (the add is not
    run), the same bits as the two ops (remapping off), special values included."""
    xs, bs = _bias_relu_inputs()

    def build():
        x = tm.placeholder(tm.float32, [None, 3, 4, 3])
        b = tm.constant(bs)
        return [tm.nn.relu(x + b), tm.nn.relu(tm.nn.bias_add(x, b))], {x: xs}

    on, off, v_on, v_off = _both(build)
    assert "AddV2" not in on and "BiasAdd" not in on and on.count("Relu") == 2
    assert "AddV2" in off and "BiasAdd" in off
    g = tm.Graph()
    with g.as_default():
        fetches, feeds = build()
    with tm.Session(graph=g, config=REMAP_OFF) as sess:
        assert "AddV2" in _plan_types(sess, fetches, feeds)
    with tm.Session(graph=g) as sess:
        source = sess.plan_source(fetches, feeds)
    assert "# Relu 'Relu' (fused with AddV2 'add')" in source
    assert "(fused with BiasAdd 'BiasAdd')" in source
    for a, b in zip(v_on, v_off):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
    assert np.isnan(v_on[0]).any() and np.isposinf(v_on[0]).any()


@pytest.mark.parametrize("case", ["add_fetched", "two_readers", "unknown_bias_size",
                                  "unknown_channels", "nchw", "half", "bias_first"])
def test_bias_add_then_relu_is_left_alone(case):
    """Not fused: the add's value is fetched or read elsewhere, the static shapes do not
    promise the add succeeds, another layout or dtype, the bias on the left."""
    xs, bs = _bias_relu_inputs()
    g = tm.Graph()
    with g.as_default():
        dtype = tm.float16 if case == "half" else tm.float32
        shape = [None, 3, 4, None] if case == "unknown_channels" else [None, 3, 4, 3]
        x = tm.placeholder(dtype, shape)
        b = tm.placeholder(dtype, [None] if case == "unknown_bias_size" else [3])
        if case == "nchw":  # channels on axis 1 (also 3 long)
            add = tm.nn.bias_add(x, b, data_format="NCHW")
        else:
            add = b + x if case == "bias_first" else x + b
        fetches = [tm.nn.relu(add)]
        if case == "add_fetched":
            fetches.append(add)
        elif case == "two_readers":
            fetches.append(tm.exp(add))
        feeds = {x: xs.astype(dtype.as_numpy_dtype), b: bs.astype(dtype.as_numpy_dtype)}
    with tm.Session(graph=g) as sess:
        types = _plan_types(sess, fetches, feeds)
        got = sess.run(fetches[0], feeds)
    assert add.op.type in types
    with np.errstate(invalid="ignore"):
        want = np.maximum(_numpy_add(xs, bs, case, dtype), 0)
    np.testing.assert_array_equal(got, want)


def _numpy_add(xs, bs, case, dtype):
    xs, bs = xs.astype(dtype.as_numpy_dtype), bs.astype(dtype.as_numpy_dtype)
    if case == "nchw":
        return xs + bs.reshape(-1, 1, 1)
    return bs + xs if case == "bias_first" else xs + bs


@pytest.mark.parametrize("config", [
    OFF,
    tm.ConfigProto(graph_options=tm.GraphOptions(
        optimizer_options=tm.OptimizerOptions(opt_level=tm.OptimizerOptions.L0))),
    tm.ConfigProto(graph_options=tm.GraphOptions(
        optimizer_options=tm.OptimizerOptions(do_common_subexpression_elimination=False,
                                              do_constant_folding=False),
        rewrite_options=RewriterConfig(arithmetic_optimization=RewriterConfig.OFF))),
])
def test_config_turns_the_rewrites_off(config):
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [3])
        y = tm.exp(x) + tm.exp(x) * tm.constant(1.0)
    with tm.Session(graph=g, config=config) as sess:
        assert _plan_types(sess, y, {x: np.zeros(3, np.float32)}).count("Exp") == 2


class _RewritesOff:
    """``tfmini`` as a module whose Session has the rewrites off."""

    def __getattr__(self, name):
        if name == "Session":
            def session(*args, **kwargs):
                kwargs.setdefault("config", OFF)
                return tm.Session(*args, **kwargs)
            return session
        return getattr(tm, name)


# monitored_training makes its sessions inside MonitoredTrainingSession (not through the
# module's Session), and its FileWriter thread outlives the test: the others run both ways.
@pytest.mark.parametrize("name", sorted(set(SCRIPTS) - {"monitored_training"}))
def test_porting_programs_give_the_same_numbers_both_ways(name):
    with_rewrites = run_script(name, tm)
    without = run_script(name, _RewritesOff())
    _assert_same(with_rewrites, without, name)


def _assert_same(a, b, path):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, str) or (isinstance(a, list) and a and isinstance(a[0], str)):
        assert a == b, path
    else:
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                   rtol=1e-6, atol=1e-7, err_msg=path)


def test_a_fused_step_failure_names_both_ops_and_its_own_inputs():
    """A fused step reads the fused op's inputs: an error lists those values (not the
    consumer's argument names) and names the op run inside it."""
    from tfmini.runtime.steps import wrap_kernel_error

    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 3])
        b = tm.constant(np.zeros(3, np.float32))
        y = tm.nn.relu(x + b)
    with tm.Session(graph=g) as sess:
        sess.run(y, {x: np.ones((2, 3), np.float32)})
        (plan,) = sess._plans.values()
    (step,) = [s for s in plan.steps if s.op is y.op]
    assert step.fused is x.consumers()[0] and len(step.inputs) == 2
    err = wrap_kernel_error(MemoryError("no room"), step,
                            [np.ones((2, 3), np.float32), np.zeros(3, np.float32)])
    assert isinstance(err, tm.errors.ResourceExhaustedError)
    assert "Relu 'Relu'" in err.message and "(fused with AddV2 'add')" in err.message
    assert "[inputs: float32[2,3], float32[3]]" in err.message


def test_a_kernel_registered_by_the_user_is_not_fused_away(monkeypatch):
    # A Relu kernel from tm.register_kernel (a capped one here) must run: the fused step
    # would call the built-in Relu instead.
    from tfmini.core import registry

    monkeypatch.setattr(registry, "_own_kernels", set())
    builtin = registry.get("Relu")
    try:
        @tm.register_kernel("Relu")
        def capped_relu(features):
            return np.minimum(np.maximum(features, 0), np.asarray(6, features.dtype))

        g = tm.Graph()
        with g.as_default():
            x = tm.placeholder(tm.float32, [None, 4])
            y = tm.nn.relu(tm.nn.bias_add(x, tm.constant(np.full(4, 5.0, np.float32))))
        with tm.Session(graph=g) as sess:
            assert sess.run(y, {x: np.full((1, 4), 3.0, np.float32)}).tolist() == [[6.0] * 4]
            assert "BiasAdd" in _plan_types(sess, y, {x: np.zeros((1, 4), np.float32)})
    finally:
        registry._replace(builtin)


def test_a_fused_bias_add_checks_the_shapes_it_gets():
    # A py_func's output whose static shape was set wrongly: the fused step fails as BiasAdd
    # would ([2, 1] + a 4-vector), instead of broadcasting to [2, 4].
    g = tm.Graph()
    with g.as_default():
        v = tm.py_func(lambda: np.ones((2, 1), np.float32), [], tm.float32)
        v.set_shape([2, 4])
        y = tm.nn.relu(tm.nn.bias_add(v, tm.constant(np.ones(4, np.float32))))
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="as many biases"):
            sess.run(y)


def test_a_bias_gradients_sum_and_reshape_run_as_one_step():
    """The gradient of ``x + b`` for a bias vector sums over the batch and reshapes to
    ``b``'s shape: one step, the same bits; a reshape to a shape known only at run time is
    left to its own kernel (and fails as Reshape)."""
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((6, 3)).astype(np.float32)

    def build():
        x = tm.placeholder(tm.float32, [None, 3])
        b = tm.constant(np.float32([1.0, -2.0, 0.5]))
        (gb,) = tm.gradients(tm.reduce_sum(tm.square(x + b)), [b])
        return [gb * 1.5], {x: xs}

    on, off, v_on, v_off = _both(build)
    assert "Sum" not in on and "Reshape" in on and "Sum" in off
    np.testing.assert_array_equal(v_on[0].view(np.uint32), v_off[0].view(np.uint32))
    np.testing.assert_allclose(v_on[0], 1.5 * (2 * (xs + [1.0, -2.0, 0.5])).sum(0), rtol=1e-6)

    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 3])
        shape = tm.placeholder_with_default(np.int32([3]), [1])
        out = tm.reshape(tm.reduce_sum(x, [0], keepdims=True), shape) * 2.0
    with tm.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(out, {x: xs}), 2 * xs.sum(0), rtol=1e-6)
        assert "Sum" in [s.op.type for p in sess._plans.values() for s in p.steps]
        with pytest.raises(tm.errors.InvalidArgumentError, match="Reshape"):
            sess.run(out, {x: xs, shape: np.int32([4])})
