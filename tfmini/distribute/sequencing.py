"""Which parts of a partitioned step may run in order, their waits (``_Recv``) inline.

A part holding a ``_Recv`` is a plan with a blocking step, which the runtime's dataflow
executor runs with the wait on a thread of its own (about 0.3 ms a part, against ~0.015 ms
for the compiled straight-line plan). Waiting inline is safe when the part's ops run in an
order in which every ``_Recv`` comes after each op of the same part that its value depends
on, through any other task: then no part ever waits for something it would do later.

The partitioner knows the whole step, so it decides here. The step's dependency graph joins
every part's data and control edges, each ``_Send`` to its ``_Recv``, and, for a blocking op
other than ``_Recv`` (a dequeue, an accumulator take: they wait for state other ops change),
an edge from every op of its part that is not downstream of it, as the dataflow executor
would have run those while it waited. A part qualifies when, besides its ``_Recv`` ops, it
holds at most one blocking op, one that waits by itself (the token dequeue of a
SyncReplicas worker's step on its ps; not an If or While calling a function that waits); a
part with no blocking op qualifies as it is. Its order is topological over its own edges
plus "every op of this part among a wait's ancestors comes before the wait", each wait as
late as it can be. The orders are then checked together: the step graph with each
sequenced part's order added as a chain must stay acyclic, or no part is sequenced. Parts
that do not qualify run in the dataflow executor as before. The chosen order becomes the
order of the part's graph_def nodes, which the task's runtime keeps (its plans order ops
topologically, ties by creation order).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable

RECV = "_Recv"
SEND = "_Send"
_INDEX = re.compile(r":\d+$")


def _source(name: str) -> str:
    """The node an input string names (``^a``, ``a``, ``a:1`` -> ``a``)."""
    return _INDEX.sub("", name[1:] if name.startswith("^") else name)


def _pair_key(node: dict) -> tuple:
    attr = node.get("attr", {})
    return (attr.get("send_device"), attr.get("recv_device"), attr.get("tensor_name"))


def sequence(parts: list, blocking: dict) -> None:
    """Reorders the graph_def of every part that may run in order and sets its
    ``sequential`` flag (see module doc).

    Args:
        parts: The step's parts (``task``, ``graph_def``, ``sequential``,
            ``inline_waits``).
        blocking: Per task, its part's blocking ops other than ``_Recv``: name -> whether
            the op itself waits (False: it calls a function holding a wait).
    """
    nodes: dict[tuple, dict] = {}
    preds: dict[tuple, set[tuple]] = {}
    index: dict[tuple, int] = {}
    by_task: dict[tuple, list[tuple]] = {}
    sends: dict[tuple, tuple] = {}
    recvs: dict[tuple, tuple] = {}
    for part in parts:
        members = by_task[part.task] = []
        for i, node in enumerate(part.graph_def["node"]):
            key = (part.task, node["name"])
            nodes[key] = node
            index[key] = i
            members.append(key)
            preds[key] = {(part.task, _source(s)) for s in node.get("input", [])}
            if node["op"] == SEND:
                sends[_pair_key(node)] = key
            elif node["op"] == RECV:
                recvs[_pair_key(node)] = key
    for k, recv in recvs.items():
        if k in sends:
            preds[recv].add(sends[k])
    for p in preds.values():
        p.intersection_update(nodes)  # a name from outside the part (none expected)
    succs = _successors(preds)
    for part in parts:
        waits = blocking.get(part.task, {})
        for name in waits:
            b = (part.task, name)
            if b not in nodes:
                continue
            after = _reach([b], succs)
            # (Not the part's other blocking ops: two waits need not wait for each other.)
            preds[b].update(m for m in by_task[part.task]
                            if m not in after and m[1] not in waits)
    succs = _successors(preds)

    orders: dict[tuple, list[tuple]] = {}
    for part in parts:
        members = by_task[part.task]
        others = blocking.get(part.task, {})
        if len(others) > 1 or not all(others.values()):
            continue  # several waits of their own, or waits inside a function: dataflow
        waits = {m for m in members if nodes[m]["op"] == RECV or m[1] in others}
        if not waits:
            part.sequential = True  # never waits: runs compiled; its sends go together
            continue
        order = _part_order(members, preds, waits, index)
        if order is not None:
            orders[part.task] = order
    if not orders:
        return
    chained = {k: set(v) for k, v in preds.items()}
    for order in orders.values():
        for a, b in zip(order, order[1:]):
            chained[b].add(a)
    if not _acyclic(chained):
        return
    for part in parts:
        order = orders.get(part.task)
        if order is not None:
            part.graph_def = {**part.graph_def, "node": [nodes[k] for k in order]}
            part.sequential = True
            part.inline_waits = tuple(sorted(
                {RECV} | {nodes[(part.task, n)]["op"] for n in blocking.get(part.task, {})}))


def _successors(preds: dict[tuple, set[tuple]]) -> dict[tuple, list[tuple]]:
    succs: dict[tuple, list[tuple]] = {k: [] for k in preds}
    for k, ps in preds.items():
        for p in ps:
            succs[p].append(k)
    return succs


def _reach(start: Iterable[tuple], edges: dict[tuple, Iterable[tuple]]) -> set[tuple]:
    seen: set[tuple] = set()
    stack = list(start)
    while stack:
        k = stack.pop()
        if k in seen:
            continue
        seen.add(k)
        stack.extend(edges[k])
    return seen


def _part_order(members: list[tuple], preds: dict, waits: set,
                index: dict) -> list[tuple] | None:
    """A topological order of one part in which each wait (``_Recv``, or the part's one
    other blocking op) follows every op of the part among its ancestors (through any task),
    other ops as early as they can; None if there is none."""
    mine = set(members)
    local = {m: {p for p in preds[m] if p in mine} for m in members}
    for m in members:
        if m in waits:
            ancestors = _reach(preds[m], preds) & mine
            if m in ancestors:
                return None
            local[m] |= ancestors
    indegree = {m: len(local[m]) for m in members}
    users: dict[tuple, list[tuple]] = {m: [] for m in members}
    for m in members:
        for p in local[m]:
            users[p].append(m)
    # A wait goes after every other op that can run (ties by def order).
    ready = [(m in waits, index[m], m) for m in members if indegree[m] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, m = heapq.heappop(ready)
        order.append(m)
        for u in users[m]:
            indegree[u] -= 1
            if indegree[u] == 0:
                heapq.heappush(ready, (u in waits, index[u], u))
    return order if len(order) == len(members) else None


def _acyclic(preds: dict[tuple, set[tuple]]) -> bool:
    indegree = {k: len(v) for k, v in preds.items()}
    succs = _successors(preds)
    ready = [k for k, n in indegree.items() if n == 0]
    seen = 0
    while ready:
        k = ready.pop()
        seen += 1
        for s in succs[k]:
            indegree[s] -= 1
            if indegree[s] == 0:
                ready.append(s)
    return seen == len(preds)
