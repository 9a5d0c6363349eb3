"""Helpers of the distributed tests."""

from __future__ import annotations


def sub_cluster(workers, ps):
    """The ClusterSpec of just these servers (a device setter then places on them only)."""
    import tfmini as tm

    return tm.train.ClusterSpec({"worker": [w.target[len("grpc://"):] for w in workers],
                                 "ps": [p.target[len("grpc://"):] for p in ps]})


def destroy_token_queue(target, device="/job:ps/task:0", dtype=None):
    """Destroys SyncReplicasOptimizer's token queue (``shared_name="sync_token_q"``) on
    ``device``: a chief's queue runner closes it when it stops (as TensorFlow's), and a
    later test's optimizer would find it closed."""
    import tfmini as tm

    with tm.Graph().as_default() as g, tm.device(device):
        q = tm.FIFOQueue(-1, dtype or tm.int64, shapes=(), name="sync_token_q",
                         shared_name="sync_token_q")
        destroy = tm.raw_ops.DestroyResourceOp(resource=q.queue_ref, ignore_lookup_error=True)
    with tm.Session(target, graph=g) as sess:
        sess.run(destroy)


def destroy_resources(graph, target):
    """Destroys, on their tasks, the shared resources (variables, queues, accumulators,
    mutexes) ``graph`` made: a task's resources outlive the sessions (as TensorFlow's do),
    so a test frees their names for the tests after it. Ops are added to ``graph`` even if
    it was finalized (a Supervisor finalizes it; these ops are the test's)."""
    import tfmini as tm

    graph._finalized = False
    with graph.as_default():
        destroy = []
        for op in graph.get_operations():
            if "shared_name" not in op.attrs:
                continue
            for out in op.outputs:
                if out.dtype == tm.resource:
                    with tm.device(op.device):
                        destroy.append(tm.raw_ops.DestroyResourceOp(
                            resource=out, ignore_lookup_error=True))
    with tm.Session(target, graph=graph) as sess:
        sess.run(destroy)
