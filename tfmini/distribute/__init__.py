"""``tm.distribute``: TF1's between-graph replication on Ray (the ``dist`` extra).

``RayCluster`` runs each task of a ClusterSpec as a threaded Ray actor owning a runtime
resource manager; ``Server`` (``tm.train.Server``) is one task; ``tm.Session(server.target)``
runs a graph's ops on the tasks their devices name (docs/distributed.md). Ray is imported
only when a cluster is created: without it the rest of tfmini works and a cluster request
says what to install.
"""

from __future__ import annotations

from tfmini.distribute.cluster import RayCluster
from tfmini.distribute.server import Server, create_local_cluster
from tfmini.distribute.session import DistributedSession

__all__ = ["RayCluster", "Server", "create_local_cluster", "DistributedSession"]
