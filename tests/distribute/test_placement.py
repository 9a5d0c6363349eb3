"""Placement under replica_device_setter, device functions and colocate_with, and the
ClusterSpec/DeviceSpec API, against TensorFlow 2.21 (tests/goldens/dist.json, recorded by
tools/record_goldens_dist.py from the cases in placement_cases.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR
from tests.distribute.placement_cases import CASES

GOLDEN = json.loads((GOLDEN_DIR / "dist.json").read_text())


def _jsonable(value):
    return json.loads(json.dumps(value, sort_keys=True))


def _is_placement(result) -> bool:
    return all(isinstance(v, list) and len(v) == 2 for v in result.values())


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_tensorflow(name):
    with tm.Graph().as_default():
        got = _jsonable(CASES[name](tm))
    want = GOLDEN[name]
    if not _is_placement(want):
        assert got == want
        return
    # Every op both graphs name alike sits on the same device. A few helper ops are named
    # differently by tfmini (reads converted outside an op's name scope, reduction-index
    # constants), so the whole graph is compared as a multiset of (type, device) as well.
    common = set(got) & set(want)
    assert {n: got[n] for n in common} == {n: want[n] for n in common}
    assert sorted(map(tuple, got.values())) == sorted(map(tuple, want.values()))


def test_every_case_recorded():
    assert set(GOLDEN) == set(CASES)


def test_greedy_load_balancing_puts_each_variable_on_the_lightest_task():
    # TF 1.15's contrib strategy (TensorFlow 2 no longer ships it): argmin of the loads so far,
    # ties to the lowest index, the load being the variable's byte size.
    strategy = tm.train.GreedyLoadBalancingStrategy(3, tm.train.byte_size_load_fn)
    with tm.Graph().as_default() as g:
        with tm.device(tm.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
            sizes = {"big": (100, 10), "small0": (10,), "small1": (10,), "mid": (50, 10),
                     "small2": (20,)}
            for name, shape in sizes.items():
                tm.Variable(np.zeros(shape, np.float32), name=name)
        devices = {n: g.get_operation_by_name(n).device for n in sizes}
    # loads: big->0 (4000); small0->1 (40); small1->2 (40); mid->1 (2040); small2->2 (120).
    assert devices == {"big": "/job:ps/task:0", "small0": "/job:ps/task:1",
                       "small1": "/job:ps/task:2", "mid": "/job:ps/task:1",
                       "small2": "/job:ps/task:2"}


def test_byte_size_load_fn_needs_a_known_shape():
    with tm.Graph().as_default():
        ph = tm.placeholder(tm.float32, [None, 3])
        with pytest.raises(ValueError, match="unknown shape"):
            tm.train.byte_size_load_fn(tm.identity(ph).op)


def test_ps_strategy_must_be_callable():
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tm.train.replica_device_setter(ps_tasks=2, ps_strategy=3)


def test_cluster_spec_round_trips_through_its_cluster_def():
    c = tm.train.ClusterSpec({"worker": ["a:1", "b:2"], "ps": {1: "c:3"}})
    assert tm.train.ClusterSpec(c.as_cluster_def()) == c
    assert c != tm.train.ClusterSpec({"worker": ["a:1"]})


def test_device_function_result_is_canonical():
    with tm.Graph().as_default():
        with tm.device(lambda op: "job:worker/cpu:0"):
            c = tm.constant(1.0)
        assert c.op.device == "/job:worker/device:CPU:0"


def test_placed_graph_still_runs_in_one_process():
    with tm.Graph().as_default():
        with tm.device(tm.train.replica_device_setter(ps_tasks=2)):
            w = tm.Variable([1.0, 2.0], name="w")
            y = tm.reduce_sum(w * 3.0)
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            assert sess.run(y) == pytest.approx(9.0)


def test_a_tpu_only_op_under_a_task_device_keeps_its_device_type():
    # TensorFlow's placer gives an op placed on a task ("/job:worker") the task's device that
    # has its kernel; an op whose only kernel is on the TPU gets the task's TPU.
    spec = tm.train.ClusterSpec({"ps": ["a:1", "a:2"], "worker": ["b:1"]})
    g = tm.Graph()
    with g.as_default():
        with tm.device(tm.train.replica_device_setter(cluster=spec)):
            tpu = tm.raw_ops.ConfigureTPUEmbedding(config="")
            cpu = tm.constant(1.0)
        with tm.device("/job:ps/task:1"):
            shard = tm.raw_ops.ConfigureTPUEmbedding(config="")
    assert (tpu.device, cpu.device) == ("/job:worker/device:TPU:0", "/job:worker")
    assert shard.device == "/job:ps/task:1/device:TPU:0"
