"""Ray, imported only when a cluster is asked for (it is the ``dist`` extra)."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

# Ray namespace of the task actors, each named actor_name(job, task).
NAMESPACE = "tfmini"

INSTALL_HINT = ("tfmini's distributed runtime runs on Ray, which is not installed: "
                "pip install 'tfmini[dist]' (Ray 2.60: a ~79 MB wheel, ~250 MB installed)")


# Arguments and results up to this size travel inline in Ray's calls (its default, 100 KB,
# sends larger ones through the object store: on one machine that adds ~1.3 ms to a call,
# while inline costs less up to about 1 MB; bench/bench_dist.py, docs/distributed.md).
# Applies to a Ray instance this process starts; a joined cluster keeps its own setting.
INLINE_BYTES = 1 << 20


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ImportError: Ray is not installed (the message says what to install).
    """
    try:
        import ray
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return ray


def keep_on_loopback() -> None:
    """Makes a Ray instance this process starts use 127.0.0.1, not the machine's network
    address. Effective only before Ray is imported: Ray reads the variable then, and
    resolves an explicit ``_node_ip_address="127.0.0.1"`` to the network address otherwise
    (ray/_private/services.py ``resolve_ip_for_localhost``)."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def ensure_ray(address: str | None = None) -> Any:
    """Ray, initialised: joined at ``address`` ("auto" or a Ray address), or a new local
    instance on 127.0.0.1 when ``address`` is None or "local" and this process has none yet
    (None joins ``TFMINI_RAY_ADDRESS`` instead when it is set)."""
    if address is None:
        address = os.environ.get("TFMINI_RAY_ADDRESS") or None
    if address in (None, "local") and "ray" not in sys.modules:
        keep_on_loopback()
    ray = import_ray()
    if ray.is_initialized():
        return ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address in (None, "local"):
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1",
                 log_to_driver=False, configure_logging=False,
                 _system_config={"max_direct_call_object_size": INLINE_BYTES})
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    return ray


def actor_name(job: str, task: int) -> str:
    """The Ray actor name of ``/job:<job>/task:<task>`` (in :data:`NAMESPACE`)."""
    return f"tfmini/{job}/{task}"


def kill_processes(pids) -> None:
    """Ends the processes ``pids`` (task actors a cluster started) with SIGKILL, by PID;
    those already gone are skipped. Ray's own shutdown leaves an actor process that is
    blocked in a call running, so whoever started a cluster ends its processes this way."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
