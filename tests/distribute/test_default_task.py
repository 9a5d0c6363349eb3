"""Ops without a device, in a session on a cluster task, run on that session's task, as in
TensorFlow 2.21 (tests/goldens/dist_runtime.json, recorded by
tools/record_goldens_dist_runtime.py): two workers' sessions that enqueue into a FIFOQueue
shared by name each get a queue of their own task. (TensorFlow 1.15 put such ops on the
cluster's first device; tests/distribute/test_drop_stale_cluster.py explains what that
changes for its tests.)

On the package's shared cluster (tests/distribute/conftest.py); the queues are destroyed
afterwards. Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import json

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR

pytest.importorskip("ray")

GOLDEN = json.loads((GOLDEN_DIR / "dist_runtime.json").read_text())["default_task"]
OPTIONS = tm.RunOptions(timeout_in_ms=20_000)


def _queue():
    return tm.FIFOQueue(10, tm.float32, shapes=(), shared_name="default_task_q")


def _task_of(device: str) -> int:
    return tm.DeviceSpec.from_string(device).task


def test_device_less_ops_run_on_the_sessions_task(ray_cluster):
    workers, _ = ray_cluster
    sizes = []
    try:
        for task, times in ((0, 1), (1, 2)):
            with tm.Graph().as_default() as g:
                q = _queue()
                enqueue, size = q.enqueue(1.0), q.size()
            with tm.Session(workers[task].target, graph=g) as sess:
                for _ in range(times):
                    sess.run(enqueue, options=OPTIONS)
                sizes.append(int(sess.run(size, options=OPTIONS)))
        assert sizes == GOLDEN["sizes"]
        # Each enqueue ran on its session's task: worker 0, reading the queue of the task
        # TensorFlow recorded for each session's enqueue, sees that session's count.
        with tm.Graph().as_default() as g:
            placed = []
            for devices in GOLDEN["enqueue_devices"]:
                (device,) = devices
                with tm.device(f"/job:worker/task:{_task_of(device)}"):
                    placed.append(_queue().size())
        with tm.Session(workers[0].target, graph=g) as sess:
            assert [int(v) for v in sess.run(placed, options=OPTIONS)] == GOLDEN["sizes"]
    finally:
        with tm.Graph().as_default() as g:
            destroy = []
            for task in (0, 1):
                with tm.device(f"/job:worker/task:{task}"):
                    destroy.append(tm.raw_ops.DestroyResourceOp(
                        resource=_queue().queue_ref, ignore_lookup_error=True))
        with tm.Session(workers[0].target, graph=g) as sess:
            sess.run(destroy, options=OPTIONS)
