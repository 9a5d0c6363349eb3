"""Splitting a run's ops by task into one part per task, joined by _Send/_Recv pairs.

An op with a resource input runs where that resource lives (a read beside its variable, as
TensorFlow's placer colocates resource ops, over the op's own device); every other op runs
on the task its device names (``/job:<job>/task:<i>``, task 0 when only the job is named), or
else on the session's own task. An op whose resource inputs live on two tasks is an
InvalidArgumentError with TensorFlow's placer message.
Each task's ops form one part, shipped as a graph_def, as TensorFlow's graph partitioner does
(tensorflow/core/graph/graph_partition.cc): a tensor one task produces and another consumes
becomes a ``_Send`` in the producer's part and a ``_Recv`` in the consumer's, a control edge
across tasks a ``_Send`` of a token that the dependent op waits for, and the client's feeds are
Placeholders of the parts that read them. All parts of a step then run at once, one call per
task, the ``_Recv`` ops waiting for their values (tfmini/distribute/rendezvous.py); a part
whose ``_Recv`` ops can wait in turn is ordered so and marked ``sequential``
(tfmini/distribute/sequencing.py).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.devices import DeviceSpec
from tfmini.core.dtypes import int32, resource
from tfmini.core.graph import Graph, Operation, Output
from tfmini.core.scope import current_scope
from tfmini.distribute.sequencing import RECV, sequence
from tfmini.ops.array import placeholder
from tfmini.runtime.analysis import may_block

RECV_PREFIX = "tm_recv"
CONST_PREFIX = "tm_const"
FEED_PREFIX = "tm_feed"
# Every part's _Send/_Recv pairs carry this incarnation (one per partitioning is enough: the
# step id in the rendezvous keeps runs apart).
INCARNATION = 1
# Whether parts whose _Recv ops can wait in turn run compiled (sequencing.py); False runs
# every part holding a _Recv in the dataflow executor (bench/bench_dist.py compares both).
SEQUENCE_PARTS = True


def task_device(task: tuple[str, int]) -> str:
    return f"/job:{task[0]}/replica:0/task:{task[1]}/device:CPU:0"


class Part:
    """One task's ops of a run: what it is fed, computes, fetches and sends."""

    def __init__(self, task: tuple[str, int]):
        self.task = task
        self.ops: list[Operation] = []
        self.feeds: list[Output] = []     # client feeds this part reads
        self.fetches: list[Output] = []   # client fetches this part produces
        self.targets: list[str] = []      # op names to run (targets, _Send ops)
        self.graph_def: dict = {}
        self.key = ""
        self.sequential = False  # its ops run in order, its waits inline (sequencing.py)
        self.inline_waits: tuple[str, ...] = ()  # the op types that then wait inline


def _task_of_device(op: Operation, cluster_spec: Any) -> tuple[str, int] | None:
    spec = DeviceSpec.from_string(op.device) if op.device else DeviceSpec()
    if spec.job is None:
        return None
    task = spec.task if spec.task is not None else 0
    if spec.job not in cluster_spec.jobs or task not in cluster_spec.task_indices(spec.job):
        raise errors.InvalidArgumentError(
            None, None,
            f"Cannot place {op.type} '{op.name}' on '{op.device}': the cluster has no task "
            f"/job:{spec.job}/task:{task} (jobs: {sorted(cluster_spec.jobs)})")
    return (spec.job, task)


def partition(outputs: list[Output], feeds: tuple, targets: list[Operation],
              cluster_spec: Any, default_task: tuple[str, int],
              soft_placement: bool = False) -> list[Part]:
    """The per-task parts that compute ``outputs`` and run ``targets`` from ``feeds``.

    ``soft_placement`` (the session's ``allow_soft_placement``) lets an op built under
    ``colocate_with`` run beside its resource when the two are on different tasks; without
    it that is an InvalidArgumentError, as in TensorFlow.
    """
    fed = set(feeds)
    needed: dict[Operation, None] = {}
    stack = [o.op for o in outputs if o not in fed] + list(targets)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed[op] = None
        stack.extend(i.op for i in op.inputs if i not in fed)
        stack.extend(op.control_inputs)

    def deps(op: Operation) -> list[Operation]:
        return [i.op for i in op.inputs if i not in fed] + list(op.control_inputs)

    # Topological order (Kahn), so an op's resource input is placed before the op.
    indegree = {op: 0 for op in needed}
    users: dict[Operation, list[Operation]] = {op: [] for op in needed}
    for op in needed:
        for d in deps(op):
            indegree[op] += 1
            users[d].append(op)
    task_of: dict[Operation, tuple[str, int]] = {}
    ready = sorted((op for op, n in indegree.items() if n == 0), key=lambda o: o._id)
    order: list[Operation] = []
    while ready:
        pick = ready.pop(0)
        task_of[pick] = _place(pick, cluster_spec, default_task, task_of, fed, soft_placement)
        order.append(pick)
        for u in users[pick]:
            indegree[u] -= 1
            if indegree[u] == 0:
                ready.append(u)
        ready.sort(key=lambda o: o._id)
    if len(order) != len(needed):
        raise errors.InvalidArgumentError(None, None, "The graph of this run has a cycle")

    parts: dict[tuple[str, int], Part] = {}
    for op in order:
        parts.setdefault(task_of[op], Part(task_of[op])).ops.append(op)
    wanted = list(dict.fromkeys(outputs))
    for o in wanted:
        if o not in fed:
            parts[task_of[o.op]].fetches.append(o)
    target_set = set(targets)
    for part in parts.values():
        part.targets = [op.name for op in part.ops if op in target_set]
        for op in part.ops:
            for i in op.inputs:
                if i in fed:
                    part.feeds.append(i)
                elif i.dtype == resource and task_of[i.op] != part.task:
                    raise errors.InvalidArgumentError(
                        None, None,
                        f"{i.name} is a resource handle of /job:{task_of[i.op][0]}/task:"
                        f"{task_of[i.op][1]} used by {op.type} '{op.name}' placed on "
                        f"/job:{part.task[0]}/task:{part.task[1]}; place the op with its "
                        "resource")
        part.feeds = list(dict.fromkeys(part.feeds))
    for part in parts.values():
        part.graph_def = _part_graph_def(part, task_of, fed, parts)
    memo: dict = {}
    if SEQUENCE_PARTS:
        sequence(list(parts.values()), {
            task: {op.name: op.op_def.is_blocking for op in part.ops
                   if op.type != RECV and may_block(op, memo)}
            for task, part in parts.items()})
    for part in parts.values():
        text = json.dumps([part.graph_def, part.inline_waits], sort_keys=True, default=str)
        part.key = hashlib.sha1(text.encode()).hexdigest()
    return list(parts.values())


def _place(op: Operation, cluster_spec: Any, default_task: tuple[str, int],
           task_of: dict, fed: set, soft_placement: bool = False) -> tuple[str, int]:
    """``op``'s task: that of its resource inputs, else its device's, else the session's.

    As TensorFlow's placer (tensorflow/core/common_runtime/colocation_graph.cc), a resource
    edge colocates an op with its resource, over the op's own device (recorded from TF
    2.21 by tools/record_goldens_dist_runtime.py): a read pinned to another task runs where
    its variable lives.

    Raises:
        InvalidArgumentError: the op's device names no task of the cluster, its resource
            inputs live on two tasks (TensorFlow's placer message, then the resources), or,
            without soft placement, it is colocated with an op of another task than its
            resource's.
    """
    task = _task_of_device(op, cluster_spec)
    first: Output | None = None
    for i in op.inputs:
        if i.dtype != resource or i in fed or i.op not in task_of:
            continue
        if first is None:
            first = i
        elif task_of[i.op] != task_of[first.op]:
            raise errors.InvalidArgumentError(
                None, op,
                "Cannot place the graph because a reference or resource edge connects "
                "colocation groups with incompatible resource devices: "
                f"{_resource_device(i, task_of)} vs {_resource_device(first, task_of)}. "
                f"The edge src node is name='{i.op.name}' (op='{i.op.type}'), and the dst "
                f"node is name='{op.name}' (op='{op.type}').\n"
                f"{op.type} '{op.name}' uses the resources {first.name} of "
                f"/job:{task_of[first.op][0]}/task:{task_of[first.op][1]} and {i.name} of "
                f"/job:{task_of[i.op][0]}/task:{task_of[i.op][1]}: an op runs on one task, "
                "so its resources must live on the same task.")
    if first is None:
        return task if task is not None else default_task
    coloc = op.colocation_op
    if coloc is not None and not soft_placement:
        coloc_task = _task_of_device(coloc, cluster_spec)
        if coloc_task is not None and coloc_task != task_of[first.op]:
            # TensorFlow names a node of the other colocation group (its first); this is
            # the op colocate_with was given, a node of that group.
            raise errors.InvalidArgumentError(
                None, op,
                f"Cannot colocate nodes {{{{colocation_node {op.name}}}}} and "
                f"{{{{colocation_node {coloc.name}}}}}: Cannot merge devices with "
                f"incompatible tasks: '{_resource_device(first, task_of)}' and "
                f"'{coloc.device}'\n"
                f"{op.type} '{op.name}' uses the resource {first.name} of "
                f"/job:{task_of[first.op][0]}/task:{task_of[first.op][1]} and was built under "
                f"colocate_with({coloc.name}) of /job:{coloc_task[0]}/task:{coloc_task[1]}; "
                "allow_soft_placement runs it beside its resource.")
    return task_of[first.op]


def _resource_device(t: Output, task_of: dict) -> str:
    # The device the graph asked for, as TensorFlow's message shows it; else the task.
    if t.op.device:
        return t.op.device
    job, index = task_of[t.op]
    return f"/job:{job}/task:{index}"


def feed_name(t: Output) -> str:
    """The Placeholder a part reads the client's feed of ``t`` from."""
    return f"{FEED_PREFIX}/{t.op.name}/{t.value_index}"


def _tensor_key(t: Output) -> str:
    return f"{t.op.name}:{t.value_index}"


def _short(task: tuple[str, int]) -> str:
    return f"{task[0]}_{task[1]}"


def _part_graph_def(part: Part, task_of: dict, fed: set, parts: dict) -> dict:
    """``part``'s graph_def: its ops, Placeholders for its feeds, _Recv for tensors and
    control edges from other tasks, and _Send for what other tasks need from it."""
    graph = part.ops[0].graph
    full = graph.as_graph_def()
    nodes = {n["name"]: n for n in full["node"]}
    me = task_device(part.task)
    members = set(part.ops)
    scratch = Graph()
    renamed: dict[str, str] = {}      # input string in the full graph -> in the part
    ctrl_recv: dict[str, str] = {}    # producer op name -> token _Recv in this part
    sends: list[str] = []
    consts: list[dict] = []           # constants of other tasks copied into this part
    with scratch.as_default():
        for t in part.feeds:
            p = placeholder(t.dtype.base_dtype, t.shape, name=feed_name(t))
            renamed[_tensor_key(t)] = p.op.name
            if t.value_index == 0:
                renamed[t.op.name] = p.op.name
        for op in part.ops:
            for i in op.inputs:
                if i in fed or task_of[i.op] == part.task or _tensor_key(i) in renamed:
                    continue
                if _copyable(i):
                    # A constant from another task is copied here, not sent every step (a
                    # learning rate built on the worker and used by the ps's update).
                    copy = dict(nodes[i.op.name], name=f"{CONST_PREFIX}/{i.op.name}",
                                device="")
                    consts.append(_clean(copy))
                    renamed[_tensor_key(i)] = renamed[i.op.name] = copy["name"]
                    continue
                src = task_device(task_of[i.op])
                r = _recv(i.dtype.base_dtype, _tensor_key(i), src, me,
                          f"{RECV_PREFIX}/{i.op.name}/{i.value_index}")
                renamed[_tensor_key(i)] = r
                if i.value_index == 0:
                    renamed[i.op.name] = r
            for c in op.control_inputs:
                if task_of[c] != part.task and c.name not in ctrl_recv:
                    ctrl_recv[c.name] = _recv(int32, f"^{c.name}", task_device(task_of[c]),
                                              me, f"{RECV_PREFIX}/ctrl/{c.name}")
        # What other parts receive from this one.
        for other in parts.values():
            if other is part:
                continue
            dst = task_device(other.task)
            seen: set[str] = set()
            for op in other.ops:
                for i in op.inputs:
                    k = _tensor_key(i)
                    if i in fed or task_of[i.op] != part.task or k in seen or _copyable(i):
                        continue
                    seen.add(k)
                    sends.append(("data", i, dst, other.task))
                for c in op.control_inputs:
                    if task_of[c] == part.task and "^" + c.name not in seen:
                        seen.add("^" + c.name)
                        sends.append(("ctrl", c, dst, other.task))
    out_nodes = [_clean(n) for n in scratch.as_graph_def()["node"]] + consts
    for op in part.ops:
        node = dict(nodes[op.name])
        inputs = []
        for name in node.get("input", []):
            if name.startswith("^"):
                inputs.append("^" + ctrl_recv.get(name[1:], name[1:]))
                continue
            inputs.append(renamed.get(name, name))
        node["input"] = inputs
        out_nodes.append(_clean(node))
    for kind, src, dst, dst_task in sends:
        base = f"tm_send/{_short(dst_task)}/"
        if kind == "data":
            tname = _tensor_key(src)
            name = base + f"{src.op.name}/{src.value_index}"
            value_in = src.op.name if src.value_index == 0 else tname
            dtype = src.dtype.base_dtype.name
        else:
            tname = "^" + src.name
            name = base + f"ctrl/{src.name}"
            token = {"name": name + "/token", "op": "Const", "input": ["^" + src.name],
                     "device": "", "attr": {"dtype": {"type": "int32"}, "value": {"tensor": {
                         "dtype": "int32", "shape": [], "values": [0]}}}}
            out_nodes.append(token)
            value_in = token["name"]
            dtype = "int32"
        out_nodes.append({"name": name, "op": "_Send", "input": [value_in], "device": "",
                          "attr": {"T": {"type": dtype}, "tensor_name": tname,
                                   "send_device": me, "send_device_incarnation": INCARNATION,
                                   "recv_device": dst, "client_terminated": False}})
        part.targets.append(name)
    del members
    return {"versions": full.get("versions", {}), "node": out_nodes,
            "library": _library_for_part(full.get("library", {}), out_nodes, renamed)}


def _names_in(value: Any, names: set[str]) -> set[str]:
    # The function names an attr value mentions (a branch, a body, nested lists and dicts).
    if isinstance(value, str):
        return {value} & names
    if isinstance(value, dict):
        return set().union(set(), *(_names_in(v, names) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(set(), *(_names_in(v, names) for v in value))
    return set()


def _library_for_part(library: Any, nodes: list[dict], renamed: dict[str, str]) -> Any:
    # Only the functions this part's nodes use (the importer rebuilds every library function,
    # and one capturing another task's variable cannot be rebuilt here). A function names
    # the outer tensors it captures; one that now comes from a _Recv or a feed in this part
    # is renamed as the op inputs are.
    if not isinstance(library, dict) or not isinstance(library.get("function"), list):
        return library
    by_name = {fd.get("name"): fd for fd in library["function"]}
    names = set(by_name)
    used: set[str] = set()
    todo = [n.get("attr", {}) for n in nodes]
    while todo:
        for fname in _names_in(todo.pop(), names) - used:
            used.add(fname)
            todo.extend(n.get("attr", {}) for n in by_name[fname].get("node", []))
    functions = []
    for fd in library["function"]:
        if fd.get("name") not in used:
            continue
        caps = fd.get("captures")
        if caps:
            fd = dict(fd)
            fd["captures"] = [[renamed.get(outer, outer), inner] for outer, inner in caps]
        functions.append(fd)
    return {**library, "function": functions}


def _copyable(t: Output) -> bool:
    """Whether ``t`` is a constant a consumer on another task may copy instead of receive:
    a Const without control inputs (its value is in its node)."""
    return t.op.type == "Const" and not t.op.control_inputs


def _recv(dtype: Any, tensor_name: str, send_device: str, recv_device: str, name: str) -> str:
    op = build_op(current_scope(), "_Recv", [], {
        "tensor_type": dtype, "tensor_name": tensor_name, "send_device": send_device,
        "send_device_incarnation": INCARNATION, "recv_device": recv_device}, name=name)
    return op.name


def _clean(node: dict) -> dict:
    node = dict(node)
    node.pop("defined_at", None)
    return node
