"""One process per task: how TF1-style task processes find one Ray instance.

TensorFlow 1 programs are launched as one command line per task (``--job_name=ps
--task_index=0 ...``), each creating its own ``tf.train.Server``; the processes know each
other only through the ClusterSpec. Here every task is a Ray actor, so the processes must
share one Ray instance. The scheme, derived from the ClusterSpec alone:

* The cluster's Ray head lives at the address of its *head task*: the lowest task index of
  the first job in name order (``/job:ps/task:0`` for TensorFlow's ps/worker clusters). Its
  host is the head's node; its port is the head's GCS port (Ray's ``RAY_GCS_SERVER_PORT``).
* The head task's process starts that head (a new local Ray instance, as ``ray.init``
  starts one) and owns it: the head ends when that process ends (Ray's atexit and SIGTERM
  handlers stop the processes it started). So launch the head task as the task that lives
  longest; in TensorFlow's layout it is the ps task, which serves until it is killed.
* Every other task's process waits, bounded by ``TFMINI_RAY_WAIT_S`` seconds (120 by
  default), for the head's port to accept connections, then joins it.
* A loopback host (``localhost``, ``127.x.x.x``, ``::1``) keeps Ray on 127.0.0.1
  (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, set before Ray is imported); usage stats are off.
  Joining processes use token authentication, as the head does by default: the token is
  Ray's (``~/.ray/auth_token`` or ``RAY_AUTH_TOKEN``), so processes of one user on one
  machine share it.
* An explicit address (``Server(..., address=...)`` or ``TFMINI_RAY_ADDRESS``) skips all of
  this: the process joins that Ray instance (for example one started by ``ray start
  --head``), which nobody here stops.

On several machines, every machine but the head's must join the Ray cluster first (``ray
start --address=<head host>:<port>``, Ray's own way), since a Ray driver needs a Ray node
on its machine; this is not tested here (one machine).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import time
from typing import Any

from tfmini import errors
from tfmini.distribute.ray_support import ensure_ray, import_ray, keep_on_loopback
from tfmini.train.server_lib import ClusterSpec

# How long a task process waits for the head task's process to start the Ray head.
DEFAULT_WAIT_S = 120.0


def head_task(spec: ClusterSpec) -> tuple[str, int]:
    """The task whose process starts the cluster's Ray head: the lowest task index of the
    first job in name order."""
    job = sorted(spec.jobs)[0]
    return job, spec.task_indices(job)[0]


def head_address(spec: ClusterSpec) -> tuple[str, int]:
    """``(host, port)`` of the cluster's Ray head: the head task's address.

    Raises:
        ValueError: the head task's address is not ``host:port``.
    """
    job, task = head_task(spec)
    address = spec.task_address(job, task)
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"The address of /job:{job}/task:{task} must be host:port to place "
                         f"the cluster's Ray head there, got {address!r}")
    return host.strip("[]"), int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect(spec: ClusterSpec, job: str, task: int, address: str | None = None) -> Any:
    """Ray for the process of ``/job:<job>/task:<task>``, joined or started as the module
    doc says; a no-op when this process already has Ray.

    Args:
        spec: The cluster.
        job, task: This process's task.
        address: A Ray address to join instead (else ``TFMINI_RAY_ADDRESS``, else the head
            task's address).

    Returns:
        The ``ray`` module, initialised.

    Raises:
        UnknownError: this is the head task and its port is taken.
        UnavailableError: the head did not come up within ``TFMINI_RAY_WAIT_S``, or its
            host does not resolve.
    """
    address = address or os.environ.get("TFMINI_RAY_ADDRESS")
    if address:
        return ensure_ray(address)
    if "ray" in sys.modules and import_ray().is_initialized():
        return import_ray()  # this process's Ray (a local cluster, or a test's instance)
    host, port = head_address(spec)
    head = head_task(spec)
    # Both read when Ray is imported. On a loopback host, Ray's own address detection then
    # answers 127.0.0.1. A joining process authenticates with the token the head uses (a
    # new local Ray instance enables token authentication by default).
    if is_loopback(host):
        keep_on_loopback()
    if (job, task) != head:
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    ray = import_ray()
    if ray.is_initialized():
        return ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        ip = "127.0.0.1" if is_loopback(host) else socket.gethostbyname(host)
    except OSError as e:
        raise errors.UnavailableError(
            None, None, f"Cannot resolve {host!r}, the host of /job:{head[0]}/task:{head[1]} "
                        f"where the cluster's Ray head runs: {e}") from None
    if (job, task) == head:
        _start_head(ray, ip, port, head)
    else:
        _join_head(ray, ip, port, head)
    return ray


def _start_head(ray: Any, ip: str, port: int, head: tuple[str, int]) -> None:
    if _accepts(ip, port):
        raise errors.UnknownError(
            None, None, f"Could not start the Ray head of /job:{head[0]}/task:{head[1]} at "
                        f"{ip}:{port}: the port is in use (another process of this task?)")
    saved = os.environ.get("RAY_GCS_SERVER_PORT")
    os.environ["RAY_GCS_SERVER_PORT"] = str(port)  # Ray's GCS listens on the task's port
    try:
        ray.init(address="local", include_dashboard=False, _node_ip_address=ip,
                 log_to_driver=False, configure_logging=False)
    finally:
        if saved is None:
            os.environ.pop("RAY_GCS_SERVER_PORT", None)
        else:
            os.environ["RAY_GCS_SERVER_PORT"] = saved


def _join_head(ray: Any, ip: str, port: int, head: tuple[str, int]) -> None:
    wait_s = float(os.environ.get("TFMINI_RAY_WAIT_S", DEFAULT_WAIT_S))
    deadline = time.monotonic() + wait_s
    while not _accepts(ip, port):
        if time.monotonic() >= deadline:
            raise errors.UnavailableError(
                None, None, f"No Ray head at {ip}:{port} after {wait_s:g} s: the process of "
                            f"/job:{head[0]}/task:{head[1]} starts it (is it running? A process "
                            "creating the Servers of several tasks creates that one first, or "
                            "passes address='local')")
        time.sleep(0.2)
    ray.init(address=f"{ip}:{port}", log_to_driver=False, configure_logging=False)


def _accepts(ip: str, port: int) -> bool:
    # Whether something listens at ip:port (the head's GCS, once it is up).
    try:
        with socket.create_connection((ip, port), timeout=1.0):
            return True
    except OSError:
        return False
