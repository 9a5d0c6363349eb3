"""``tm.train.ClusterSpec``: the jobs and tasks of a cluster.

As tensorflow/python/training/server_lib.py.

A cluster is a dict from job name to its tasks' network addresses: a list (task ``i`` at
index ``i``) or a dict from task index to address (sparse jobs). The servers that run the
tasks are in :mod:`tfmini.distribute`.
"""

from __future__ import annotations

from typing import Any

_BAD_CLUSTER = ("`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer")


class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks with network addresses.

    Example::

        cluster = tm.train.ClusterSpec({"worker": ["127.0.0.1:2222", "127.0.0.1:2223"],
                                        "ps": ["127.0.0.1:2224"]})
        cluster.num_tasks("worker")   # 2
    """

    def __init__(self, cluster: Any):
        if isinstance(cluster, ClusterSpec):
            jobs = {job: dict(tasks) for job, tasks in cluster._jobs.items()}
        elif isinstance(cluster, dict):
            jobs = {}
            for job, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    jobs[job] = {i: addr for i, addr in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    # TensorFlow converts the indices with int(), so "1" is task 1 and "a"
                    # raises int()'s ValueError.
                    jobs[job] = {int(i): addr for i, addr in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job '{job}' must be a list or a dictionary "
                                    "from integers to strings.")
        elif hasattr(cluster, "job") and not isinstance(cluster, (str, list, tuple)):
            jobs = {j.name: dict(j.tasks) for j in cluster.job}  # a ClusterDef message
        else:
            raise TypeError(_BAD_CLUSTER)
        self._jobs: dict[str, dict[int, str]] = jobs

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, as TensorFlow's

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"

    @property
    def jobs(self) -> list[str]:
        """The job names."""
        return list(self._jobs)

    def _job(self, job_name: str) -> dict[int, str]:
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks in ``job_name``.

        Raises:
            ValueError: no such job.
        """
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        """The task indices of ``job_name``, sorted."""
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of one task.

        Raises:
            ValueError: no such job, or no such task in it.
        """
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list[str | None]:
        """The addresses of ``job_name``'s tasks by index, None for missing indices."""
        job = self._job(job_name)
        out: list[str | None] = [None] * (max(job) + 1 if job else 0)
        for i, addr in job.items():
            out[i] = addr
        return out

    def as_dict(self) -> dict[str, list[str] | dict[int, str]]:
        """Job name to a list of addresses, or to a dict where the indices are sparse."""
        out: dict[str, Any] = {}
        for job, tasks in self._jobs.items():
            indices = sorted(tasks)
            if indices == list(range(len(indices))):
                out[job] = [tasks[i] for i in indices]
            else:
                out[job] = {i: tasks[i] for i in indices}
        return out

    def as_cluster_def(self) -> Any:
        """TensorFlow's ``ClusterDef`` message (``job { name tasks {key value} }``)."""
        from tfmini.ops import io

        cluster_def = io.protos.ClusterDef()
        for job in sorted(self._jobs):
            job_def = cluster_def.job.add(name=job)
            for i, addr in sorted(self._jobs[job].items()):
                job_def.tasks[i] = addr
        return cluster_def


__all__ = ["ClusterSpec"]
