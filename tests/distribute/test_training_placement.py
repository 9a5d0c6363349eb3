"""Where the training helpers put their ops on a cluster, and what a part's graph_def
carries (no Ray needed: placement and partitioning only)."""

from __future__ import annotations

import numpy as np

import tfmini as tm
from tfmini.distribute.partition import partition
from tfmini.train.monitored_session import report_uninitialized_variables

SPEC = tm.train.ClusterSpec({"worker": ["w0:1", "w1:1"], "ps": ["p0:1", "p1:1"]})


def test_uninitialized_report_checks_each_variable_on_its_task():
    with tm.Graph().as_default() as g:
        with tm.device(tm.train.replica_device_setter(cluster=SPEC)):
            tm.Variable(1.0, name="a")
            tm.Variable(2.0, name="b")
        report = report_uninitialized_variables()
        checks = {op.inputs[0].op.name: op.device for op in g.get_operations()
                  if op.type == "VarIsInitializedOp"}
        assert checks == {"a": "/job:ps/task:0", "b": "/job:ps/task:1"}
        tasks = {p.task for p in partition([report], (), [], SPEC, ("worker", 0))}
        assert tasks == {("worker", 0), ("ps", 0), ("ps", 1)}


def test_drop_stale_check_and_apply_live_with_the_global_step():
    with tm.Graph().as_default() as g:
        with tm.device("/job:ps/task:1"):
            w = tm.Variable(np.zeros([2], np.float32), name="w")
            gs = tm.train.get_or_create_global_step()
        with tm.device(tm.train.replica_device_setter(cluster=SPEC,
                                                      worker_device="/job:worker/task:1")):
            loss = tm.reduce_sum(w * [1.0, 2.0])
            opt = tm.contrib.opt.DropStaleGradientOptimizer(
                tm.train.GradientDescentOptimizer(1.0), staleness=2)
            train = opt.minimize(loss, global_step=gs)
        by_type = {}
        for op in g.get_operations():
            by_type.setdefault(op.type, set()).add(op.device)
        for t in ("MutexV2", "MutexLock", "If"):
            assert by_type[t] == {"/job:ps/task:1"}, t
        parts = {p.task: p for p in partition([train], (), [], SPEC, ("worker", 1))}
        # The gradient is computed on the worker; the stale counter is on ps 0 (the setter).
        assert set(parts) == {("worker", 1), ("ps", 0), ("ps", 1)}
        for task, part in parts.items():
            names = {fd["name"] for fd in part.graph_def["library"].get("function", [])}
            nodes = {n["name"] for n in part.graph_def["node"]}
            if task == ("ps", 1):
                assert names  # the cond's branches
                for fd in part.graph_def["library"]["function"]:
                    # Each captured outer tensor is a node of this part (a _Recv if remote).
                    assert all(outer.split(":")[0] in nodes for outer, _ in fd["captures"])
            else:
                assert not names
