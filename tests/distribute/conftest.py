"""One local Ray cluster (127.0.0.1 only) for every test module of this package.

Ray cannot start again in a process that shut it down, so the modules share one instance
and one cluster of 3 worker and 2 ps tasks; each module takes the tasks it needs
(``tests.distribute.cluster_util.sub_cluster``). Every actor process ends, by its PID,
when the package's tests end.
"""

from __future__ import annotations

import os

import pytest

# Before any test module imports Ray: Ray reads it at import, and only then keeps a local
# instance on 127.0.0.1 (tfmini.distribute.ray_support.keep_on_loopback).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


@pytest.fixture(scope="package")
def ray_cluster(tmp_path_factory):
    """``(workers, ps)``: the :class:`tm.train.Server` lists of the shared cluster."""
    ray = pytest.importorskip("ray")
    import tfmini as tm
    from tfmini.distribute.ray_support import kill_processes

    home = tmp_path_factory.mktemp("ray_home")
    env = {"RAY_USAGE_STATS_ENABLED": "0", "HOME": str(home)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    was_up = ray.is_initialized()
    if not was_up:
        # Short temp path: Ray's socket paths must stay under 107 characters.
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1",
                 num_cpus=2, log_to_driver=False, _temp_dir=f"/tmp/tmray{os.getpid()}")
    workers, ps = tm.test.create_local_cluster(3, 2)
    c = workers[0]._cluster
    pids = [ray.get(c.actor(s._job, s._task).pid.remote()) for s in workers + ps]
    yield workers, ps
    c.shutdown()
    if not was_up:
        ray.shutdown()
    kill_processes(pids)  # every actor process ends (by its PID) with the cluster
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
