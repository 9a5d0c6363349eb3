"""Placement cases run the same way under TensorFlow (the recorder) and tfmini (the tests).

Each case takes the module under test (``tensorflow.compat.v1`` or ``tfmini``) and builds one
graph under ``replica_device_setter`` / ``device`` / ``colocate_with``; it returns a dict of
results: ``{op name: [op type, device]}`` for every op of the graph, or values from the
ClusterSpec API, or ``"<ErrorClass>: <message>"`` for a call that raises. The recorder
(tools/record_goldens_dist.py) writes TensorFlow's results to tests/goldens/dist.json.
"""

from __future__ import annotations

import numpy as np


def _devices(tf) -> dict:
    return {op.name: [op.type, op.device] for op in tf.get_default_graph().get_operations()}


def _err(fn) -> str:
    try:
        fn()
    except Exception as e:  # the class and message are what the case records
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return "no error"


def _model(tf, n_vars: int = 3) -> None:
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    h = x
    for i in range(n_vars):
        w = tf.Variable(np.full((4, 4), 0.1 * (i + 1), np.float32), name=f"w{i}")
        h = tf.matmul(h, w)
    tf.reduce_sum(h, name="loss")


def round_robin(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        _model(tf, 3)
    return _devices(tf)


def cluster_worker_task(tf):
    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:2222", "127.0.0.1:2223"],
                                    "worker": ["127.0.0.1:2224", "127.0.0.1:2225"]})
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:1", cluster=cluster)):
        _model(tf, 3)
        tf.train.get_or_create_global_step()
    return _devices(tf)


def pinned_inside(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, worker_device="/job:worker/cpu:0")):
        v0 = tf.Variable(1.0, name="v0")
        with tf.device("/device:GPU:1"):
            v1 = tf.Variable(2.0, name="v1")
        with tf.device("/job:ps/task:2"):
            v2 = tf.Variable(3.0, name="v2")
        v3 = tf.Variable(4.0, name="v3")
        tf.add_n([v0, v1, v2, v3], name="total")
    return _devices(tf)


def outer_string(tf):
    with tf.device("/job:worker/task:3"):
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            a = tf.Variable(1.0, name="a")
            b = tf.Variable(2.0, name="b")
            tf.multiply(a, b, name="prod")
    return _devices(tf)


def no_merge(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)):
        tf.Variable(1.0, name="a")
        with tf.device("/job:foo/task:7"):
            tf.Variable(2.0, name="b")
            tf.constant(3.0, name="c")
        tf.constant(4.0, name="d")
    return _devices(tf)


def custom_ps_ops(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/job:param",
                                                  ps_ops=["VarHandleOp", "Const"])):
        a = tf.Variable(1.0, name="a")
        tf.add(a, 2.0, name="plus")
    return _devices(tf)


def custom_strategy(tf):
    # A ps_strategy is any callable from op to task; this one puts names with "b" on task 1.
    def strategy(op):
        return 1 if "b" in op.name else 0
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        tf.Variable(np.zeros((10,), np.float32), name="a")
        tf.Variable(np.zeros((10,), np.float32), name="b")
        tf.Variable(np.zeros((10,), np.float32), name="c")
    return _devices(tf)


def device_function(tf):
    def fn(op):
        return "/job:ps/task:0" if op.type == "Const" else "/job:worker/task:1"
    with tf.device(fn):
        a = tf.constant(1.0, name="a")
        with tf.device("/device:CPU:0"):
            b = tf.constant(2.0, name="b")
            tf.add(a, b, name="ab")
        with tf.device(None):
            tf.constant(5.0, name="free")
        tf.negative(a, name="neg")
    return _devices(tf)


def colocation(tf):
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1.0, name="a")
    with tf.device("/job:worker/task:0"):
        with tf.colocate_with(a):
            tf.add(a, 1.0, name="next_to_a")
            with tf.device("/device:CPU:0"):
                tf.add(a, 2.0, name="inner_device")
        tf.add(a, 3.0, name="outside")
    return _devices(tf)


def data_flow(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        acc = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="acc_shared")
        acc.apply_grad([1.0, 2.0], local_step=0, name="apply")
        acc.take_grad(1, name="take")
        gs = tf.train.get_or_create_global_step()
        tf.add(gs, 1, name="gs_plus")
    return _devices(tf)


def no_ps(tf):
    out = {"setter_none": str(tf.train.replica_device_setter(ps_tasks=0) is None)}
    cluster = tf.train.ClusterSpec({"worker": ["127.0.0.1:1"]})
    out["no_ps_job"] = str(tf.train.replica_device_setter(cluster=cluster) is None)
    return out


def cluster_spec_api(tf):
    c = tf.train.ClusterSpec({"worker": ["w0:1", "w1:2"], "ps": {1: "p1:3"}})
    out = {
        "jobs": sorted(c.jobs),
        "num_tasks": c.num_tasks("worker"),
        "task_indices": c.task_indices("ps"),
        "job_tasks": [str(t) for t in c.job_tasks("ps")],
        "task_address": c.task_address("worker", 1),
        "as_dict": {k: (v if isinstance(v, list) else {str(i): a for i, a in v.items()})
                    for k, v in c.as_dict().items()},
        "bool": bool(c),
        "empty_bool": bool(tf.train.ClusterSpec({})),
        "eq": c == tf.train.ClusterSpec({"worker": ["w0:1", "w1:2"], "ps": {1: "p1:3"}}),
        "err_task": _err(lambda: c.task_address("ps", 0)),
        "err_job": _err(lambda: c.num_tasks("chief")),
        "err_job_tasks": _err(lambda: c.job_tasks("chief")),
        "err_bad_spec": _err(lambda: tf.train.ClusterSpec(["a"])),
        "err_bad_job": _err(lambda: tf.train.ClusterSpec({"w": "x"})),
        "err_bad_index": _err(lambda: tf.train.ClusterSpec({"w": {"a": "x"}})),
        "from_cluster": sorted(tf.train.ClusterSpec(c).jobs),
        "def_jobs": [(j.name, sorted((int(k), v) for k, v in j.tasks.items()))
                     for j in c.as_cluster_def().job],
    }
    return out


def device_strings(tf):
    spellings = ["/cpu:0", "job:worker/task:1", "/job:ps/replica:0/task:1/device:CPU:0",
                 "/GPU:2", "/job:w/device:gpu:*", "/device:CPU:0", "/task:3/cpu:1"]
    out = {}
    for s in spellings:
        with tf.Graph().as_default():
            with tf.device(s):
                out[s] = tf.constant(1.0).op.device
    out["bad"] = _err(lambda: tf.DeviceSpec.from_string("/job:a/foo:1"))
    spec = tf.DeviceSpec.from_string("/job:ps/task:1/device:GPU:2")
    out["fields"] = [spec.job, spec.replica, spec.task, spec.device_type, spec.device_index]
    out["merged"] = spec.make_merged_spec(tf.DeviceSpec.from_string("/task:0/cpu:0")).to_string()
    out["replaced"] = spec.replace(job="worker").to_string()
    return out


def optimizer_slots(tf):
    # Slots are colocated with their variables (slot_creator's colocate_with_primary), while
    # the setter's round-robin still sees each slot variable: the devices of every variable.
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w0 = tf.Variable(np.full((4, 4), 0.1, np.float32), name="w0")
        w1 = tf.Variable(np.full((4, 1), 0.2, np.float32), name="w1")
        loss = tf.reduce_sum(tf.matmul(tf.matmul(x, w0), w1), name="loss")
        gs = tf.train.get_or_create_global_step()
        tf.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    kinds = ("VariableV2", "VarHandleOp")
    return {op.name: [op.type, op.device] for op in tf.get_default_graph().get_operations()
            if op.type in kinds}


CASES = {
    "optimizer_slots": optimizer_slots,
    "round_robin": round_robin,
    "cluster_worker_task": cluster_worker_task,
    "pinned_inside": pinned_inside,
    "outer_string": outer_string,
    "no_merge": no_merge,
    "custom_ps_ops": custom_ps_ops,
    "custom_strategy": custom_strategy,
    "device_function": device_function,
    "colocation": colocation,
    "data_flow": data_flow,
    "no_ps": no_ps,
    "cluster_spec_api": cluster_spec_api,
    "device_strings": device_strings,
}
