"""``tm.train.Server`` and ``tm.test.create_local_cluster`` on :class:`RayCluster`.

As tensorflow/python/training/server_lib.py: a Server is one task of a cluster; its
``target`` (``grpc://<address>``) is what ``tm.Session(target)`` connects to. Here the task runs
in a Ray actor rather than in the calling process. A process without Ray that creates a
Server joins, or for the cluster's head task starts, the cluster's Ray instance
(:mod:`tfmini.distribute.launch`), so one process per task works as in TensorFlow 1.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from tfmini.distribute import launch
from tfmini.distribute.cluster import RayCluster, target_of
from tfmini.train.server_lib import ClusterSpec

_clusters: dict[int, RayCluster] = {}
_clusters_lock = threading.Lock()


def _cluster_for(spec: ClusterSpec, address: str | None) -> RayCluster:
    # One RayCluster per distinct cluster in this process (Servers of one cluster share it).
    key = hash(repr(sorted((j, tuple(spec.job_tasks(j))) for j in spec.jobs)))
    with _clusters_lock:
        c = _clusters.get(key)
        if c is None:
            c = _clusters[key] = RayCluster(spec, address=address, start=False)
        return c


class Server:
    """One task of a cluster (``tf.distribute.Server``).

    Args:
        server_or_cluster_def: A ClusterSpec or its dict.
        job_name: This task's job (may be omitted when the cluster has one job).
        task_index: This task's index (default 0).
        protocol, config: Accepted for compatibility.
        start: Start the task now.
        address: Ray address to join. None: this process's Ray if it has one, else
            ``TFMINI_RAY_ADDRESS``, else the cluster's own Ray head at its head task's
            address, started by the head task's process and joined by the others
            (:mod:`tfmini.distribute.launch`). ``"local"``: a new Ray instance of this
            process alone (``create_local_server``, ``create_local_cluster``).
    """

    def __init__(self, server_or_cluster_def: Any, job_name: str | None = None,
                 task_index: int | None = None, protocol: str | None = None,
                 config: Any = None, start: bool = True, address: str | None = None):
        del protocol, config
        spec = (server_or_cluster_def if isinstance(server_or_cluster_def, ClusterSpec)
                else ClusterSpec(server_or_cluster_def))
        if job_name is None:
            if len(spec.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = spec.jobs[0]
        if task_index is None:
            indices = spec.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = indices[0]
        spec.task_address(job_name, task_index)  # ValueError for an unknown task
        self._spec = spec
        self._job = job_name
        self._task = task_index
        if address is None:  # one process per task: find the cluster's Ray by its spec
            launch.connect(spec, job_name, task_index)
        self._cluster = _cluster_for(spec, address)
        if start:
            self.start()

    def start(self) -> None:
        """Starts the task's actor (idempotent)."""
        self._cluster.start_task(self._job, self._task)

    def join(self) -> None:
        """Blocks while the task's actor lives (a ps task's main loop): until the actor or
        the cluster's Ray ends."""
        ray = self._cluster._ray
        actor = self._cluster.actor(self._job, self._task)
        while True:
            try:
                ray.get(actor.ping.remote(), timeout=30)
            except Exception:
                return
            threading.Event().wait(1.0)

    @property
    def target(self) -> str:
        """``grpc://<this task's address>``, for ``tm.Session(target)``."""
        return target_of(self._spec, self._job, self._task)

    @property
    def server_def(self) -> dict:
        return {"cluster": self._spec.as_dict(), "job_name": self._job,
                "task_index": self._task, "protocol": "grpc"}

    @staticmethod
    def create_local_server(config: Any = None, start: bool = True) -> Server:
        """A one-task cluster on a free localhost port (``grpc://localhost:<port>``)."""
        return Server({"localhost": [f"localhost:{_free_port()}"]}, job_name="localhost",
                      task_index=0, config=config, start=start, address="local")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_local_cluster(num_workers: int, num_ps: int, protocol: str = "grpc",
                         worker_config: Any = None, ps_config: Any = None):
    """Servers for ``num_workers`` workers and ``num_ps`` ps tasks on 127.0.0.1
    (``tf.test.create_local_cluster``).

    Returns:
        ``(workers, ps_servers)``: lists of :class:`Server`.
    """
    del protocol, worker_config, ps_config
    spec = ClusterSpec({
        "worker": [f"127.0.0.1:{_free_port()}" for _ in range(num_workers)],
        "ps": [f"127.0.0.1:{_free_port()}" for _ in range(num_ps)],
    })
    workers = [Server(spec, job_name="worker", task_index=i, address="local")
               for i in range(num_workers)]
    ps = [Server(spec, job_name="ps", task_index=i, address="local") for i in range(num_ps)]
    return workers, ps
