"""Shape-derived values, computed once per set of run-time shapes.

A gradient through a reduction over a dimension the graph does not know (the batch of a
``[None, 784]`` placeholder) reads that dimension when it runs. TensorFlow's mean gradient
(tensorflow/python/ops/math_grad.py, ``_MeanGrad``) builds ``Shape -> GatherV2 -> Prod ->
Cast`` to count the reduced elements, and a ``Tile`` of the upstream gradient to the input's
shape; the sparse cross-entropy gradient then ``ExpandDims`` the result. Constant folding
cannot take them (the shape is known only at run time), so every training step ran those
seven small kernels again, each 4-13 us inside a plan whose products keep evicting the
interpreter's working set from the caches, for values that change only when the batch
size does.

:func:`memoize` finds such values at plan time: a step is *shape-derived* when its op is a
``Shape``, ``Size`` or ``Rank`` (its value a function of its input's shape alone), or a
stateless op whose inputs are all shape-derived or produced by input-free steps (``Const``
ops and folded values: the same value every run), and at least one is shape-derived. Each
connected group of such steps becomes one step, :class:`ShapeMemo`, that reads the
inputs of the group's ``Shape`` ops and the constants it uses, and gives the group's values
that other steps read. It keys on the shapes of those ``Shape`` inputs: a hit hands out the
values computed the first time; a miss runs the group's kernels in plan order, as the
plan would have, and keeps their values (up to ``MAX_ENTRIES`` shape sets, each value at
most ``MAX_ELEMENTS`` elements, else they are computed every time).

The values are exactly the ones the kernels give for those shapes: a stateless kernel's
result depends only on its inputs, and the group's inputs are shapes and constants. What
is not taken: ops with control inputs, stateful or blocking ops, ops that read a variable's
reference, call functions, take a kernel context or run fused with another, and plans
holding blocking steps (the dataflow executor runs those). Kept values are read-only, as
constants are: a fetch hands out a copy, and no kernel can write into one. A kernel
failing inside a group raises its own op's error, as it would have; a group is placed
where its first value is read, after everything it reads. Like the other plan-time
rewrites it is off when ``ConfigProto`` turns constant folding off
(``graph_rewrite.rewrite_passes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini.runtime.steps import Step, raise_kernel_error, reads_reference

_SHAPE_OPS = frozenset({"Shape", "Size", "Rank"})
_NOT_CONSTANT = frozenset({"Placeholder", "PlaceholderWithDefault"})
MAX_ENTRIES = 16  # shape sets remembered per group (a training loop has one or two)
MAX_ELEMENTS = 1 << 16  # a value larger than this is computed every time


class ShapeMemo:
    """The kernel of a memo step: ``memo(*shape_inputs, *constants) -> values``.

    Args:
        steps: The group's steps, in plan order.
        roots: How many leading arguments are ``Shape``/``Size``/``Rank`` inputs (the key).
        input_slots: The plan slot of each argument (roots first, then constants).
        output_slots: The plan slots of the values the memo returns, in order.
    """

    def __init__(self, steps: Sequence[Step], roots: int, input_slots: Sequence[int],
                 output_slots: Sequence[int]):
        self.steps = tuple(steps)
        self.roots = roots
        self.input_slots = tuple(input_slots)
        self.output_slots = tuple(output_slots)
        self.cache: dict[tuple, tuple] = {}

    def __call__(self, *args: Any) -> tuple:
        try:
            key = tuple([a.shape for a in args[:self.roots]])
        except AttributeError:  # a value with no shape: run the kernels, keep nothing
            return self._compute(args)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        values = self._compute(args)
        if len(self.cache) < MAX_ENTRIES and all(
                isinstance(v, (np.ndarray, np.generic)) and np.size(v) <= MAX_ELEMENTS
                for v in values):
            for v in values:
                if isinstance(v, np.ndarray):
                    # Shared by every later run: read-only, as constants are, so a fetch
                    # hands out a copy (session._finish) and no kernel writes into it.
                    v.flags.writeable = False
            self.cache[key] = values  # another thread may store the same values: harmless
        return values

    def _compute(self, args: Sequence[Any]) -> tuple:
        values = dict(zip(self.input_slots, args))
        for step in self.steps:
            inputs = step.arguments((), values)
            try:
                results = step.call(inputs)
            except Exception as e:
                raise_kernel_error(e, step, step.input_values(inputs))
            step.store(results, values)
        return tuple(values[s] for s in self.output_slots)


def _eligible(step: Step) -> bool:
    op = step.op
    d = op.op_def
    return not (step.takes_ctx or step.blocking or d.is_stateful or d.is_blocking
                or op._control_inputs or op.type in _NOT_CONSTANT or step.fused is not None
                or any(a.type in ("func", "list(func)") for a in d.attrs)
                or reads_reference(op))


def _slots(step: Step) -> list[int]:
    return [x for s in step.inputs for x in (s if isinstance(s, list) else (s,))]


def memoize(steps: list[Step], fetch_slots: Sequence[int]) -> list[Step]:
    """``steps`` with each group of shape-derived steps replaced by one ``ShapeMemo`` step
    (see the module docstring); the list itself when there is none."""
    producer: dict[int, int] = {}
    constant: set[int] = set()  # slots that input-free steps fill with the same value
    derived: dict[int, int] = {}  # slot -> the index of the shape-derived step filling it
    parent: dict[int, int] = {}
    members: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for si, step in enumerate(steps):
        ins = _slots(step)
        outs = [s for s in step.outputs if s >= 0]
        for s in outs:
            producer[s] = si
        if not _eligible(step):
            continue
        if not ins:  # a Const, a folded value: the same every run
            constant.update(outs)
            continue
        if step.op.type in _SHAPE_OPS:
            if len(ins) != 1 or step.op.inputs[0].dtype.name in ("resource", "variant"):
                continue
        elif not (all(s in derived or s in constant for s in ins)
                  and any(s in derived for s in ins)):
            continue
        parent[si] = si
        for s in ins:
            if s in derived:
                parent[find(derived[s])] = si
        for s in outs:
            derived[s] = si
        members.append(si)
    if not members:
        return steps

    groups: dict[int, list[int]] = {}
    for si in members:
        groups.setdefault(find(si), []).append(si)
    readers: dict[int, list[int]] = {}
    for si, step in enumerate(steps):
        for s in _slots(step):
            readers.setdefault(s, []).append(si)
    fetched = set(fetch_slots)
    removed: set[int] = set()
    placed: dict[int, list[Step]] = {}  # step index -> memo steps that go just before it
    for group in groups.values():
        inside = set(group)
        roots: list[int] = []
        consts: list[int] = []
        outputs: list[int] = []
        first_read = len(steps)
        for si in group:
            step = steps[si]
            for s in _slots(step):
                if s in derived:  # a value of the group itself (a reader joins its group)
                    continue
                if step.op.type in _SHAPE_OPS:
                    if s not in roots:
                        roots.append(s)
                elif s not in consts:
                    consts.append(s)
            for s in step.outputs:
                if s < 0:
                    continue
                outside = [r for r in readers.get(s, ()) if r not in inside]
                if outside or s in fetched:
                    outputs.append(s)
                    first_read = min([first_read, *outside])
        if not outputs:
            continue
        # Everything the group reads must be there before its first value is read; the
        # memo takes the place of the group's first step after that, or of none before
        # the first reader.
        ready = max((producer.get(s, -1) for s in roots + consts), default=-1)
        if ready >= first_read:
            continue
        place = next((si for si in group if ready < si < first_read), first_read)
        head = steps[group[0]]
        memo = Step(head.op,
                    ShapeMemo([steps[si] for si in group], len(roots), roots + consts, outputs),
                    False, roots + consts, outputs, head.device_index, head.device)
        memo.sequence = True
        memo.note = f"memoized by shape: {len(group)} steps from here"
        removed.update(group)
        placed.setdefault(place, []).append(memo)
    if not placed:
        return steps
    out: list[Step] = []
    for si, step in enumerate(steps):
        out.extend(placed.get(si, ()))
        if si not in removed:
            out.append(step)
    out.extend(placed.get(len(steps), ()))
    return out
