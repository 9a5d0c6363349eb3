"""Helpers of the distributed tests."""

from __future__ import annotations


def sub_cluster(workers, ps):
    """The ClusterSpec of just these servers (a device setter then places on them only)."""
    import tfmini as tm

    return tm.train.ClusterSpec({"worker": [w.target[len("grpc://"):] for w in workers],
                                 "ps": [p.target[len("grpc://"):] for p in ps]})
