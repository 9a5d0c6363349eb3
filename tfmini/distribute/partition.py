"""Splitting a run's ops by task into the stages a distributed session runs.

Every op runs on the task its device names (``/job:<job>/task:<i>``, task 0 when only the job
is named); an op without a job runs where its resource input lives (a read beside its
variable, as TensorFlow's placer colocates resource ops) or else on the session's own task.
The ops are ordered topologically, preferring the current task's ready ops so consecutive ops
share a task; each maximal run of one task's ops is a stage, shipped as a graph_def in which
the tensors other stages (or the client's feeds) produce are Placeholders (TensorFlow's _Recv)
and the tensors later stages need are fetched (its _Send). Stages run one after another, so
control edges between stages are met by that order and dropped from the parts.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tfmini import errors
from tfmini.core.devices import DeviceSpec
from tfmini.core.dtypes import resource
from tfmini.core.graph import Graph, Operation, Output
from tfmini.ops.array import placeholder

RECV_PREFIX = "tm_recv"


class Stage:
    """One task's consecutive ops of a run: what it receives, computes and sends."""

    def __init__(self, task: tuple[str, int]):
        self.task = task
        self.ops: list[Operation] = []
        self.recvs: list[Output] = []   # fed into the part (from other stages or the client)
        self.sends: list[Output] = []   # fetched from the part (needed later or by the client)
        self.graph_def: dict = {}
        self.key = ""


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
              cluster_spec: Any, default_task: tuple[str, int]) -> list[Stage]:
    """The stages that compute ``outputs`` and run ``targets`` from ``feeds``."""
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

    # Topological order (Kahn), ops of the current task first.
    indegree = {op: 0 for op in needed}
    users: dict[Operation, list[Operation]] = {op: [] for op in needed}
    for op in needed:
        for d in deps(op):
            indegree[op] += 1
            users[d].append(op)
    task_of: dict[Operation, tuple[str, int]] = {}
    ready = sorted((op for op, n in indegree.items() if n == 0), key=lambda o: o._id)
    order: list[Operation] = []
    current = None
    while ready:
        for op in ready:
            if op not in task_of:
                task_of[op] = _place(op, cluster_spec, default_task, task_of, fed)
        pick = next((op for op in ready if task_of[op] == current), ready[0])
        ready.remove(pick)
        order.append(pick)
        current = task_of[pick]
        for u in users[pick]:
            indegree[u] -= 1
            if indegree[u] == 0:
                ready.append(u)
        ready.sort(key=lambda o: o._id)
    if len(order) != len(needed):
        raise errors.InvalidArgumentError(None, None, "The graph of this run has a cycle")

    stages: list[Stage] = []
    stage_of: dict[Operation, Stage] = {}
    for op in order:
        if not stages or stages[-1].task != task_of[op]:
            stages.append(Stage(task_of[op]))
        stages[-1].ops.append(op)
        stage_of[op] = stages[-1]
    wanted = set(outputs)
    for stage in stages:
        ins = [i for op in stage.ops for i in op.inputs if i in fed or stage_of[i.op] is not stage]
        stage.recvs = list(dict.fromkeys(ins))
    for stage in stages:
        later = {i for s in stages if s is not stage for i in s.recvs if i.op in stage.ops}
        mine = [o for op in stage.ops for o in op.outputs if o in later or o in wanted]
        stage.sends = mine
    for stage in stages:
        for r in stage.recvs:
            if r.dtype == resource and r not in fed and stage_of[r.op].task != stage.task:
                raise errors.InvalidArgumentError(
                    None, None,
                    f"{r.name} is a resource handle of /job:{stage_of[r.op].task[0]}/task:"
                    f"{stage_of[r.op].task[1]} used by an op placed on /job:{stage.task[0]}/"
                    f"task:{stage.task[1]}; place the op with its resource")
        stage.graph_def = _part_graph_def(stage, stage_of)
        text = json.dumps(stage.graph_def, sort_keys=True, default=str)
        stage.key = hashlib.sha1(text.encode()).hexdigest()
    return stages


def _place(op: Operation, cluster_spec: Any, default_task: tuple[str, int],
           task_of: dict, fed: set) -> tuple[str, int]:
    task = _task_of_device(op, cluster_spec)
    if task is not None:
        return task
    for i in op.inputs:
        if i.dtype == resource and i not in fed and i.op in task_of:
            return task_of[i.op]
    return default_task


def recv_name(t: Output) -> str:
    return f"{RECV_PREFIX}/{t.op.name}/{t.value_index}"


def _part_graph_def(stage: Stage, stage_of: dict) -> dict:
    graph = stage.ops[0].graph
    full = graph.as_graph_def()
    nodes = {n["name"]: n for n in full["node"]}
    recv_of = {f"{t.op.name}:{t.value_index}": t for t in stage.recvs}
    recv_of.update({t.op.name: t for t in stage.recvs if t.value_index == 0})
    out_nodes = []
    if stage.recvs:
        scratch = Graph()
        with scratch.as_default():
            for t in stage.recvs:
                placeholder(t.dtype, t.shape, name=recv_name(t))
        for node in scratch.as_graph_def()["node"]:
            node.pop("defined_at", None)
            out_nodes.append(node)
    members = {op.name for op in stage.ops}
    for op in stage.ops:
        node = dict(nodes[op.name])
        inputs = []
        for name in node.get("input", []):
            if name.startswith("^"):
                if name[1:] in members:
                    inputs.append(name)
                continue  # met by the order of the stages
            t = recv_of.get(name)
            inputs.append(recv_name(t) if t is not None else name)
        node["input"] = inputs
        node.pop("defined_at", None)
        out_nodes.append(node)
    return {"versions": full.get("versions", {}), "node": out_nodes,
            "library": full.get("library", {})}
