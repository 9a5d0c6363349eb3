"""Plan analysis: which ops one ``Session.run`` signature runs, in what order, with what.

``analyze`` walks back from the fetches and targets, stops at feeds, follows control
inputs, orders the ops topologically (ties by creation order, so a plan is the same on
every build), binds each op to its kernel (``steps.Step``), gives every value an integer
slot, and records where each value dies. The result, a ``Schedule``, is plain data that
code generation (``codegen``) and the executors (``executors``) read; nothing here runs a
kernel or generates code.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from tfmini import errors
from tfmini.core import registry
from tfmini.core.devices import device_type_of
from tfmini.core.function import FuncGraph
from tfmini.core.graph import Operation, Output
from tfmini.runtime import shape_memo
from tfmini.runtime.graph_rewrite import Passes, Rewriter, prune
from tfmini.runtime.steps import Step, bind_kernel, input_groups

# Accumulator takes wait for gradients applied to their accumulator, and for nothing else.
_TAKES = frozenset({
    "AccumulatorTakeGradient", "ResourceAccumulatorTakeGradient",
    "SparseAccumulatorTakeGradient",
})
# Stateful op types that cannot apply a gradient to an accumulator: variables and their
# updates, and the accumulators' own handles and bookkeeping.
_CANNOT_APPLY = frozenset({
    "VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "VarIsInitializedOp",
    "IsVariableInitialized", "Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
    "AssignAddVariableOp", "AssignSubVariableOp",
    "ConditionalAccumulator", "ResourceConditionalAccumulator", "SparseConditionalAccumulator",
    "AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated",
    "AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep",
})
_OPTIMIZER_UPDATES = ("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply")


def _takes_served_elsewhere(steps: Sequence[Step]) -> bool:
    """Whether every blocking step is an accumulator take that no step of the plan can serve:
    no other stateful step could apply a gradient (variables, optimizer updates and the
    accumulators' bookkeeping only) and no step calls a function. Such takes wait for other
    runs whatever order they run in, so waiting for them in turn, in plan order, ends when
    waiting for all at once would (a synchronous round's chief: each take would otherwise
    cost two thread hand-offs). One difference: a take that fails at once (a bad
    ``num_required``) is seen only after the takes before it in plan order are served."""
    for step in steps:
        op_def = step.op.op_def
        if step.blocking:
            if step.op.type not in _TAKES:
                return False
        elif op_def.is_stateful and step.op.type not in _CANNOT_APPLY and not (
                step.op.type.startswith(_OPTIMIZER_UPDATES)):
            return False
        if any(a.type in ("func", "list(func)") for a in op_def.attrs):
            return False
    return True


class Schedule:
    """What one (fetches, feeds, targets) signature runs.

    Attributes:
        fetches: The fetched Outputs, in order.
        feeds: The fed Outputs, in order; feed ``i`` is in slot ``i``.
        targets: The target Operations.
        steps: The steps in execution order (topological, ties by creation order).
        devices: ``(device name, device type)`` per device the steps use; a step's
            ``device_index`` points here, and an executor gets one kernel context per entry.
        num_slots: How many value slots the steps use (feeds first).
        fetch_slots: The slot of each fetch.
        last_use: Per slot that some step reads, the index of the last step reading it.
        has_blocking: Whether a step may wait (then the dataflow executor runs the plan).
    """

    __slots__ = ("fetches", "feeds", "targets", "steps", "devices", "num_slots", "fetch_slots",
                 "last_use", "has_blocking")

    def __init__(self, fetches: list[Output], feeds: list[Output], targets: list[Operation]):
        self.fetches = fetches
        self.feeds = feeds
        self.targets = targets
        self.steps: list[Step] = []
        self.devices: list[tuple[str, str]] = []
        self.num_slots = len(feeds)
        self.fetch_slots: list[int] = []
        self.last_use: dict[int, int] = {}
        self.has_blocking = False


def analyze(
    fetches: Sequence[Output], feeds: Sequence[Output], targets: Sequence[Operation],
    optimize: Passes | None = None, inline_waits: frozenset[str] = frozenset(),
) -> Schedule:
    """Prunes, orders and binds the ops that ``fetches`` and ``targets`` need given ``feeds``.

    With ``optimize`` (the ``graph_rewrite.Passes`` to run), the plan-time rewrites
    (common subexpressions, arithmetic identities, constant folding, then dead steps) shape
    what is bound. ``inline_waits`` names op types whose waits may run inline, in plan
    order: when every blocking step is of one of these types, none counts as blocking and
    the compiled executor runs the plan (a partitioned part whose ``_Recv`` ops its
    partitioner ordered so that waiting in turn cannot deadlock; see
    tfmini/distribute/sequencing.py). So it does, too, when every blocking step is an
    accumulator take that only other runs can serve (``_takes_served_elsewhere``).

    Raises:
        tm.errors.InvalidArgumentError: the needed ops hold a cycle, or an op has no kernel
            for its device.
    """
    schedule = Schedule(list(fetches), list(feeds), list(targets))
    feed_set = set(schedule.feeds)
    order = _toposort(_needed_ops(schedule, feed_set), feed_set)
    rewriter = None
    if optimize is not None and optimize.any:
        rewriter = Rewriter(schedule.fetches, feed_set, schedule.targets, optimize)
    _bind_steps(schedule, order, feed_set, rewriter)
    if inline_waits and schedule.has_blocking and all(
            s.op.type in inline_waits for s in schedule.steps if s.blocking):
        for step in schedule.steps:
            step.blocking = False
        schedule.has_blocking = False
    elif schedule.has_blocking and _takes_served_elsewhere(schedule.steps):
        for step in schedule.steps:
            step.blocking = False
        schedule.has_blocking = False
    if rewriter is not None and (rewriter.changed or rewriter.control_only):
        # Dropping what only a control edge asks for keeps the order of what runs only
        # when the steps run in order (graph_rewrite.prune).
        control_only = rewriter.control_only and not schedule.has_blocking
        schedule.steps = prune(schedule.steps, schedule.fetches, schedule.targets,
                               control_only)
    if rewriter is not None and optimize.constant_folding and not schedule.has_blocking:
        schedule.steps = shape_memo.memoize(schedule.steps, schedule.fetch_slots)
    for si, step in enumerate(schedule.steps):
        for s in step.inputs:
            for slot in s if isinstance(s, list) else (s,):
                schedule.last_use[slot] = si
    return schedule


def dependencies(schedule: Schedule) -> tuple[list[int], list[list[int]], list[int]]:
    """Each step's number of predecessors (data and control), each step's successors, and how
    many step inputs read each slot: what the dataflow executor schedules by."""
    producer: dict[int, int] = {}
    for si, step in enumerate(schedule.steps):
        for slot in step.outputs:
            if slot >= 0:
                producer[slot] = si
    index_of = {step.op: si for si, step in enumerate(schedule.steps)}
    num_preds: list[int] = []
    successors: list[list[int]] = [[] for _ in schedule.steps]
    num_reads = [0] * schedule.num_slots
    for si, step in enumerate(schedule.steps):
        preds = set()
        for s in step.inputs:
            for slot in s if isinstance(s, list) else (s,):
                num_reads[slot] += 1
                if slot in producer:
                    preds.add(producer[slot])
        for c in step.op._control_inputs:
            if c in index_of:
                preds.add(index_of[c])
        num_preds.append(len(preds))
        for q in preds:
            successors[q].append(si)
    return num_preds, successors, num_reads


def _needed_ops(schedule: Schedule, feed_set: set[Output]) -> set[Operation]:
    needed: set[Operation] = set()
    work: list[Operation] = [o.op for o in schedule.fetches if o not in feed_set]
    work += schedule.targets
    while work:
        op = work.pop()
        if op in needed:
            continue
        needed.add(op)
        for inp in op.inputs:
            if inp not in feed_set and inp.op not in needed:
                work.append(inp.op)
        for c in op._control_inputs:
            # An op whose every output is fed is replaced by its feeds, as in TensorFlow:
            # a control dependency on it is met without running it.
            if c not in needed and not (c.outputs and all(o in feed_set for o in c.outputs)):
                work.append(c)
    return needed


def _toposort(ops: set[Operation], feed_set: set[Output]) -> list[Operation]:
    indegree: dict[Operation, int] = {}
    succ: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in ops:
        preds = set()
        for inp in op.inputs:
            if inp not in feed_set and inp.op in ops:
                preds.add(inp.op)
        for c in op._control_inputs:
            if c in ops:
                preds.add(c)
        indegree[op] = len(preds)
        for p in preds:
            succ[p].append(op)
    heap = [(op._id, op) for op, d in indegree.items() if d == 0]
    heapq.heapify(heap)
    order: list[Operation] = []
    while heap:
        _, op = heapq.heappop(heap)
        order.append(op)
        for s in succ[op]:
            indegree[s] -= 1
            if indegree[s] == 0:
                heapq.heappush(heap, (s._id, s))
    if len(order) != len(ops):
        # _find_cycle walks against the edges; reversed, the arrows follow the data.
        cycle = _find_cycle(ops - set(order), feed_set)[::-1]
        names = " -> ".join(op.name for op in cycle + cycle[:1])
        first = cycle[0] if cycle else None
        where = f" (defined at {first.defined_at})" if first is not None else ""
        raise errors.InvalidArgumentError(
            None,
            first,
            f"Graph contains a cycle and cannot be executed ({len(cycle)} nodes): "
            f"{names}{where}",
        )
    return order


def _find_cycle(ops: set[Operation], feeds: set[Output]) -> list[Operation]:
    """One cycle among ``ops`` (for the error message)."""
    color: dict[Operation, int] = {}
    stack_path: list[Operation] = []

    def preds(op):
        for inp in op.inputs:
            if inp not in feeds and inp.op in ops:
                yield inp.op
        for c in op._control_inputs:
            if c in ops:
                yield c

    # Creation order makes the reported cycle the same on every run.
    for start in sorted(ops, key=lambda op: op._id):
        if start in color:
            continue
        work = [(start, iter(preds(start)))]
        color[start] = 1
        stack_path.append(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                stack_path.pop()
                color[node] = 2
            elif color.get(nxt) == 1:
                i = stack_path.index(nxt)
                return stack_path[i:]
            elif nxt not in color:
                color[nxt] = 1
                stack_path.append(nxt)
                work.append((nxt, iter(preds(nxt))))
    return []


def _device_index(schedule: Schedule, device: str) -> int:
    key = (device or "/device:CPU:0", device_type_of(device))
    if key not in schedule.devices:
        schedule.devices.append(key)
    return schedule.devices.index(key)


def _bind_steps(schedule: Schedule, order: list[Operation], feed_set: set[Output],
                rewriter: Rewriter | None = None) -> None:
    slot_of: dict[Output, int] = {f: i for i, f in enumerate(schedule.feeds)}
    nslots = len(schedule.feeds)
    needed_outputs: set[Output] = set(schedule.fetches)
    for op in order:
        needed_outputs.update(op.inputs)
    blocking_memo: dict[FuncGraph, bool] = {}
    for op in order:
        if rewriter is not None:
            aliases = rewriter.alias(op, slot_of, needed_outputs)
            if aliases is not None:  # its values are already in these slots: no step
                for o, slot in zip(op.outputs, aliases):
                    if slot >= 0:
                        slot_of[o] = slot
                continue
        op_def = registry.behaviour_of(op)  # kernels: looked up live (core/registry.py)
        kernel = op_def.kernel_for(device_type_of(op.device))
        if kernel is None:
            raise _no_kernel_error(op, op_def)
        inputs: list = []
        for g in input_groups(op):
            if isinstance(g, slice):
                inputs.append([slot_of[o] for o in op.inputs[g]])
            else:
                inputs.append(slot_of[op.inputs[g]])
        outputs = []
        for o in op.outputs:
            if o in feed_set:
                outputs.append(-1)  # the fed value wins; the computed one is dropped
            elif o in needed_outputs:
                slot_of[o] = nslots
                outputs.append(nslots)
                nslots += 1
            else:
                outputs.append(-1)
        index = _device_index(schedule, op.device)
        blocking = _may_block(op, blocking_memo)
        schedule.has_blocking |= blocking
        if rewriter is not None:
            inputs = rewriter.rewire(op, inputs, slot_of)
        step = Step(op, bind_kernel(op, kernel), kernel.takes_ctx, inputs, outputs, index,
                    schedule.devices[index][0], blocking)
        if rewriter is not None:
            step = rewriter.fuse(op, step, slot_of) or rewriter.fold(op, step) or step
        schedule.steps.append(step)
    schedule.num_slots = nslots
    schedule.fetch_slots = [slot_of[o] for o in schedule.fetches]


def _no_kernel_error(op: Operation, op_def) -> errors.InvalidArgumentError:
    dtype = device_type_of(op.device)
    have = ", ".join(sorted(op_def.kernels)) or "none"
    hint = ""
    if op_def.only_devices:
        places = " or ".join(f"/device:{d}:0" for d in op_def.only_devices)
        hint = f"; it runs only on {places}: place it there or leave its device unset"
    return errors.InvalidArgumentError(
        None,
        op,
        f"No OpKernel was registered to support Op '{op.type}' used by node "
        f"{op.name} on device {dtype} (registered devices: {have}){hint} "
        f"(defined at {op.defined_at})",
    )


def may_block(op: Operation, memo: dict[FuncGraph, bool] | None = None) -> bool:
    """Whether running ``op`` may wait (see ``_may_block``); ``memo`` caches functions."""
    return _may_block(op, {} if memo is None else memo)


def _may_block(op: Operation, memo: dict[FuncGraph, bool]) -> bool:
    """Whether running ``op`` may wait: it is a blocking op, or it calls a function (a cond
    branch, a loop body) that holds one, at any depth. Such a step runs on its own thread, as
    TensorFlow runs If/While asynchronously: the steps that satisfy the wait keep running."""
    if op.op_def.is_blocking:  # a flag of the schema, pinned at build (core/registry.py)
        return True
    for value in op.attrs.values():
        for fn in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(fn, FuncGraph):
                hit = memo.get(fn)
                if hit is None:
                    memo[fn] = False  # a function that (somehow) calls itself
                    hit = memo[fn] = any(_may_block(o, memo) for o in fn.get_operations())
                if hit:
                    return True
    return False
