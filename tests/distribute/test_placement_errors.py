"""Ops whose resources live on two tasks, and ops pinned away from their resource, placed as
TensorFlow 2.21's placer does (tests/goldens/dist_runtime.json, recorded by
tools/record_goldens_dist_runtime.py on a cluster of one worker and two ps tasks):

* a kernel reading resource handles of /job:ps/task:0 and /job:ps/task:1 fails at session
  run with InvalidArgumentError and the placer's message, whatever its own device and with
  or without soft placement; nothing runs, and the session stays usable;
* a read whose device names another task than its variable's runs beside the variable.

On the package's shared cluster (tests/distribute/conftest.py); the variables the tests
initialise are destroyed afterwards. Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import json

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR
from tfmini.distribute import partition

pytest.importorskip("ray")

GOLDEN = json.loads((GOLDEN_DIR / "dist_runtime.json").read_text())["placement"]
OPTIONS = tm.RunOptions(timeout_in_ms=20_000)


def _variables(a="a", b="b"):
    with tm.device("/job:ps/task:0"):
        va = tm.Variable(1.0, name=a)
    with tm.device("/job:ps/task:1"):
        vb = tm.Variable(2.0, name=b)
    return va, vb


def _apply(va, vb):
    return tm.raw_ops.ResourceApplyAdagrad(var=va.handle, accum=vb.handle, lr=0.1, grad=1.0,
                                           name="apply")


@pytest.mark.parametrize("on_worker", [False, True])
@pytest.mark.parametrize("soft", [False, True])
def test_op_with_resources_of_two_tasks_is_tensorflows_placer_error(ray_cluster, on_worker,
                                                                    soft):
    want = GOLDEN[f"two_resources{'_on_worker' if on_worker else ''}/soft={soft}"]
    workers, _ = ray_cluster
    with tm.Graph().as_default() as g:
        va, vb = _variables()
        if on_worker:
            with tm.device("/job:worker/task:0"):
                apply = _apply(va, vb)
        else:
            apply = _apply(va, vb)
        total = tm.add(tm.constant(1.0), 2.0)
    config = tm.ConfigProto(allow_soft_placement=soft)
    with tm.Session(workers[0].target, graph=g, config=config) as sess:
        with pytest.raises(getattr(tm.errors, want["error"])) as e:
            sess.run(apply, options=OPTIONS)
        first, detail = str(e.value.message).split("\n")
        assert first == want["message"]
        # Then the op, both resources and both tasks, in words.
        assert detail.startswith("ResourceApplyAdagrad 'apply' uses the resources a:0 of "
                                 "/job:ps/task:0 and b:0 of /job:ps/task:1")
        assert e.value.op is apply
        # Nothing ran; the session still runs what can be placed.
        assert sess.run(total, options=OPTIONS) == 3.0


def _part_task(fetch, workers, ps, soft=False):
    spec = tm.train.ClusterSpec({"worker": [w.target[len("grpc://"):] for w in workers],
                                 "ps": [p.target[len("grpc://"):] for p in ps]})
    (part,) = [p for p in partition.partition([fetch], (), [], spec, ("worker", 0),
                                                   soft_placement=soft)
               if any(op is fetch.op for op in p.ops)]
    return part.task


@pytest.mark.parametrize("soft", [False, True])
def test_read_pinned_to_another_task_runs_beside_its_variable(ray_cluster, soft):
    (device,) = GOLDEN[f"read_pinned_elsewhere/soft={soft}"]["ran_on"]
    want = tm.DeviceSpec.from_string(device)
    workers, ps = ray_cluster
    with tm.Graph().as_default() as g:
        va, vb = _variables("placement_read_a", "placement_read_b")
        with tm.device("/job:ps/task:1"):
            read = tm.raw_ops.ReadVariableOp(resource=va.handle, dtype=tm.float32, name="read")
        init = tm.global_variables_initializer()
        destroy = [tm.raw_ops.DestroyResourceOp(resource=v.handle, ignore_lookup_error=True)
                   for v in (va, vb)]
    assert _part_task(read, workers, ps, soft) == (want.job, want.task)
    config = tm.ConfigProto(allow_soft_placement=soft)
    with tm.Session(workers[0].target, graph=g, config=config) as sess:
        try:
            sess.run(init, options=OPTIONS)
            assert sess.run(read, options=OPTIONS) == 1.0  # a's value, read on a's task
        finally:
            sess.run(destroy, options=OPTIONS)


@pytest.mark.parametrize("soft", [False, True])
def test_read_colocated_with_another_tasks_op(ray_cluster, soft):
    # Without soft placement TensorFlow's placer refuses to merge the colocation group of b
    # (ps:1) with the read's resource device (ps:0); with it, the read runs beside a.
    want = GOLDEN[f"read_colocated_elsewhere/soft={soft}"]
    workers, ps = ray_cluster
    with tm.Graph().as_default() as g:
        va, vb = _variables("placement_coloc_a", "placement_coloc_b")
        with tm.colocate_with(vb.op):
            read = tm.raw_ops.ReadVariableOp(resource=va.handle, dtype=tm.float32, name="read")
        init = tm.global_variables_initializer()
        destroy = [tm.raw_ops.DestroyResourceOp(resource=v.handle, ignore_lookup_error=True)
                   for v in (va, vb)]
    config = tm.ConfigProto(allow_soft_placement=soft)
    with tm.Session(workers[0].target, graph=g, config=config) as sess:
        try:
            sess.run(init, options=OPTIONS)
            if "error" in want:
                with pytest.raises(getattr(tm.errors, want["error"])) as e:
                    sess.run(read, options=OPTIONS)
                first, detail = e.value.message.split("\n")
                # TensorFlow names the first node of b's group (its initial value); tfmini
                # the op colocate_with was given. The rest is TensorFlow's words.
                head, tail = want["message"].split(" and {{colocation_node ")
                assert first.startswith(head + " and {{colocation_node placement_coloc_b}}")
                assert first.endswith(tail.split("}}", 1)[1])
                assert "colocate_with(placement_coloc_b) of /job:ps/task:1" in detail
            else:
                (device,) = want["ran_on"]
                spec = tm.DeviceSpec.from_string(device)
                assert _part_task(read, workers, ps, soft) == (spec.job, spec.task)
                assert sess.run(read, options=OPTIONS) == 1.0
        finally:
            sess.run(destroy, options=OPTIONS)
