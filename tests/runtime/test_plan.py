"""Plans: pruning, topological order (ties by creation order), generated code, freed values."""

from __future__ import annotations

import re
import weakref

import numpy as np
import pytest

import tfmini as tm
from tfmini.core import registry
from tfmini.runtime.plan import Plan

PROBES: dict = {}


def _make_big():
    big = np.ones(1000, np.float32)
    PROBES["big"] = weakref.ref(big)
    return big


def _shrink(big, other):
    return np.float32(big[0] + other)


def _probe(x):
    # Runs after the big value's last consumer: is the big value still alive?
    PROBES["alive_at_probe"] = PROBES["big"]() is not None
    return x


@pytest.fixture
def probe_ops():
    tm.register_op("PlanTestBig", outputs=["y: float"])(_make_big)
    tm.register_op("PlanTestShrink", inputs=["big: float", "other: float"],
                   outputs=["y: float"])(_shrink)
    tm.register_op("PlanTestProbe", inputs=["x: float"], outputs=["y: float"])(_probe)
    yield
    for name in ("PlanTestBig", "PlanTestShrink", "PlanTestProbe"):
        registry.unregister(name)


def _locals(plan: Plan) -> set[str]:
    return set(re.findall(r"\br\d+\b", plan.source))


def _step_names(plan: Plan) -> list[str]:
    return [step.op.name for step in plan.steps]


def _run(plan: Plan, feeds=()):
    # One CPU context stand-in per device of the plan: these kernels never look at it.
    return plan.run([None] * len(plan.devices), list(feeds))


def test_long_chain_uses_a_bounded_number_of_locals(graph):
    x = tm.placeholder(tm.float32, name="x")
    y = x
    for _ in range(200):
        y = tm.identity(y)
    plan = Plan([y], [x], [])
    assert len(plan.steps) == 200
    assert _locals(plan) == {"r0"}  # each value dies at its consumer: its register is reused
    assert _run(plan, [np.float32(2)]) == (np.float32(2),)


def test_wide_graph_reuses_registers_of_dead_values(graph):
    # ten independent chains summed pairwise: at most a few values are ever live together
    a = tm.constant(1.0)
    total = a
    for _ in range(50):
        total = tm.raw_ops.Add(x=total, y=tm.identity(a))
    plan = Plan([total], [], [])
    assert len(_locals(plan)) <= 3
    assert _run(plan) == (np.float32(51),)


def test_dead_value_is_released_before_later_steps_run(graph, probe_ops):
    big = tm.raw_ops.PlanTestBig()
    small = tm.raw_ops.PlanTestShrink(big=big, other=tm.constant(1.0))
    out = tm.raw_ops.PlanTestProbe(x=small)
    plan = Plan([out], [], [])
    assert _run(plan) == (np.float32(2),)
    # Shrink took big's register for nothing (its output took the other's), so without an
    # explicit release the 1000-element array would live until the plan returned.
    assert PROBES["alive_at_probe"] is False
    assert "del " in plan.source


def test_fetched_values_are_never_released(graph, probe_ops):
    big = tm.raw_ops.PlanTestBig()
    small = tm.raw_ops.PlanTestShrink(big=big, other=tm.constant(1.0))
    out = tm.raw_ops.PlanTestProbe(x=small)
    plan = Plan([out, big], [], [])
    got_out, got_big = _run(plan)
    assert PROBES["alive_at_probe"] is True
    assert got_big.shape == (1000,)


def test_unused_outputs_of_multi_output_ops_are_dropped(graph):
    a = tm.constant(1.0)
    outs = tm.raw_ops.IdentityN(input=[a, a, a])
    plan = Plan([outs[1]], [], [])
    line = plan.source.splitlines()[plan.steps[-1].lineno - 1]
    assert re.match(r"\s+_, r\d+, _, = k1\(", line)
    assert "del" in line and "_" in line.split("del")[1]
    assert _run(plan) == (np.float32(1),)


def test_topological_order_breaks_ties_by_creation_order(graph):
    a1 = tm.constant(1.0, name="a1")
    b1 = tm.constant(2.0, name="b1")
    a2 = tm.identity(a1, name="a2")
    c1 = tm.constant(3.0, name="c1")
    b2 = tm.identity(b1, name="b2")
    s = tm.raw_ops.Add(x=b2, y=a2, name="s")
    t = tm.raw_ops.Add(x=s, y=c1, name="t")
    plan = Plan([t], [], [])
    assert _step_names(plan) == ["a1", "b1", "a2", "c1", "b2", "s", "t"]
    again = Plan([t], [], [])
    assert again.source == plan.source  # deterministic, whatever the set iteration order


def test_control_inputs_added_later_are_ordered_before(graph):
    first = tm.no_op(name="first")
    second = tm.no_op(name="second")
    third = tm.no_op(name="third")
    first._add_control_input(third)  # created last, must now run first
    plan = Plan([], [], [first, second])
    assert _step_names(plan) == ["second", "third", "first"]


def test_pruning_stops_at_feeds_and_follows_control_inputs(graph):
    x = tm.placeholder(tm.float32, name="x")
    y = tm.identity(x, name="y")
    gate = tm.no_op(name="gate")
    with tm.control_dependencies([gate]):
        z = tm.identity(y, name="z")
    tm.identity(z, name="not_needed")
    plan = Plan([z], [y], [])
    assert _step_names(plan) == ["gate", "z"]
    assert plan.feeds == [y] and plan.fetches == [z]
    assert _run(plan, [np.float32(4)]) == (np.float32(4),)


def test_fetching_a_feed_runs_nothing(graph):
    x = tm.placeholder(tm.float32, name="x")
    plan = Plan([x], [x], [])
    assert plan.steps == []
    assert _run(plan, [np.float32(9)]) == (np.float32(9),)


def test_targets_only_return_nothing(graph):
    plan = Plan([], [], [tm.no_op(name="n")])
    assert _run(plan) == ()


def test_stepwise_and_compiled_runs_agree(graph):
    x = tm.placeholder(tm.float32, name="x")
    outs = tm.raw_ops.IdentityN(input=[x, x + 1.0])
    y = tm.raw_ops.Add(x=outs[0], y=outs[1])
    plan = Plan([y, outs[1]], [x], [])
    feeds = [np.float32([1, 2])]
    fast = _run(plan, feeds)
    stats: list = []
    slow = plan.run_stepwise([None] * len(plan.devices), feeds, stats)
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)
    assert [step.op.name for step, *_ in stats] == _step_names(plan)


def test_devices_are_collected_per_plan(graph):
    a = tm.constant(1.0)
    with tm.device("/device:TPU:0"):
        b = tm.identity(a)
    plan = Plan([b], [], [])
    assert plan.devices == [("/device:CPU:0", "CPU"), ("/device:TPU:0", "TPU")]
    assert [s.device_index for s in plan.steps] == [0, 1]


@pytest.mark.parametrize("returned, error", [
    (lambda x: [x, x, x], "too many values to unpack \\(expected 2\\)"),
    (lambda x: [x], "not enough values to unpack \\(expected 2, got 1\\)"),
    (lambda x: None, "cannot unpack non-iterable NoneType object"),
])
def test_wrong_number_of_kernel_results_fails_alike_traced_or_not(graph, returned, error):
    tm.register_op("PlanTestPair", inputs=["x: float"], outputs=["a: float", "b: float"])(
        returned
    )
    try:
        pair = tm.raw_ops.PlanTestPair(x=[1.0, 2.0])
        with tm.Session(graph=graph) as sess:
            for opts in (None, tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE)):
                with pytest.raises(tm.errors.InvalidArgumentError, match=error):
                    sess.run(pair.a, options=opts, run_metadata=tm.RunMetadata())
    finally:
        registry.unregister("PlanTestPair")


def test_control_dependency_on_a_fed_placeholder_does_not_run_it():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(2,), name="x")
        with tm.control_dependencies([x.op]):
            y = tm.identity(tm.constant([1.0, 2.0]))
    with tm.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [0.0, 0.0]}), [1.0, 2.0])
        with pytest.raises(tm.errors.InvalidArgumentError, match="must feed a value"):
            sess.run(y)  # not fed: the placeholder runs, and complains
