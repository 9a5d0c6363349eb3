"""Plan-time graph rewrites: the useful core of TensorFlow's Grappler.

``analyze`` asks a ``Rewriter`` about each op, in execution order, before binding it. The
rewriter may answer that the op needs no step of its own because its outputs are values the
plan already has:

* **common subexpressions**: an op of the same type, device, attrs, inputs and control
  inputs as an earlier one (both stateless) gives the same values;
* **arithmetic identities**: ``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``,
  ``x - 0`` (a constant of ones or zeros that changes neither shape nor dtype) are ``x``;
  a transpose of a transpose whose permutations compose to the identity is the original;
  a reshape of a value whose static shape is fully known to that same constant shape is
  the value;
* **constant folding**: a stateless op whose inputs are all constants (Const ops, earlier
  folded values, and ``Shape``/``Size``/``Rank`` of a fully known static shape) is run once
  when the plan is built; its step then hands out the stored values.

It may also rewire an input: a ``Reshape`` of a ``Reshape`` reads the inner one's input.
And it may **fuse** two ops into one step, as Grappler's remapper does (tensorflow/core/
grappler/optimizers/remapper.cc): an op whose first input is the only read output of an
op it has a fusion with (``registry.register_fusion``: a bias add then Relu, for one) runs
a kernel that computes both, with the same bits, reading the producer's inputs; the
producer is then unread and pruned.

After binding, ``prune`` drops steps nobody reads any more (stateless, not fetched, not a
target), so a folded chain or a bypassed op costs nothing. Like Grappler's dependency
optimizer (tensorflow/core/grappler/optimizers/dependency_optimizer.cc, which turns such an
op into a NoOp), it also drops a stateless op with outputs that only a control edge still
asks for: the input gradient of a network's first layer, computed only because
``gate_gradients`` groups it with the weight gradient. Only in plans run in order (without
blocking steps), so the control dependents still run after everything the dropped op
waited for. Nothing is rewritten across a fed or fetched value, a reference read, a stateful
or blocking op, or an op with control inputs (for the identities and folding). The values a
plan returns are the same with and without the rewrites (within float rounding for
``x + 0`` on ``-0.0``, which gives ``0.0`` un-rewritten); ``ConfigProto`` turns them off as
TensorFlow's does (``graph_options.rewrite_options.disable_meta_optimizer``, or
``graph_options.optimizer_options.opt_level = L0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from attrs import frozen

from tfmini.core import registry
from tfmini.core.devices import device_type_of
from tfmini.core.graph import Operation, Output
from tfmini.runtime.steps import Step, input_groups, reads_reference

# Folding targets shape arithmetic (gradients' Shape -> BroadcastGradientArgs -> Reshape
# chains); a plan keeps each folded value, and a big constant is better computed per run.
_FOLD_MAX_ELEMENTS = 64
_ONE_ARGS = {"Mul": "one", "RealDiv": "one_right", "Div": "one_right",
             "AddV2": "zero", "Add": "zero", "Sub": "zero_right"}
_SHAPE_OPS = {"Shape", "Size", "Rank"}
_NO_REWRITE = {"Placeholder", "PlaceholderWithDefault", "Const", "NoOp"}
# Kept for a control edge although stateless (Grappler's do_not_rewrite_ops): their effect
# is the error they may raise.
_RUN_FOR_CONTROL = {"Assert", "CheckNumerics", "ControlTrigger"}


@frozen
class Passes:
    """Which rewrites run (all by default, as TensorFlow's Grappler runs them).

    Attributes:
        cse: Common-subexpression elimination.
        arithmetic: Arithmetic identities (x * 1, x + 0, double transpose, reshape chains).
        constant_folding: Constant folding, with static shapes materialized.
        dependency: Stateless ops that only a control edge asks for are not run.
        remapping: Pairs of ops with a registered fusion run as one step.
    """

    cse: bool = True
    arithmetic: bool = True
    constant_folding: bool = True
    dependency: bool = True
    remapping: bool = True

    @property
    def any(self) -> bool:
        """Whether any rewrite runs."""
        return (self.cse or self.arithmetic or self.constant_folding or self.dependency
                or self.remapping)


def _attr_key(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        if value.size > 1024:
            raise TypeError("large array attr")
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_attr_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _attr_key(v)) for k, v in value.items()))
    hash(value)  # TypeError for what cannot key a dict
    return value


class Rewriter:
    """Decides, op by op, what ``analyze`` binds (see the module docstring).

    Args:
        fetches: The plan's fetched Outputs (never rewritten away).
        feed_set: The fed Outputs (never folded or aliased).
        targets: The plan's target Operations (always run).
    """

    def __init__(self, fetches: list[Output], feed_set: set[Output],
                 targets: list[Operation], passes: Passes | None = None):
        self.passes = passes if passes is not None else Passes()
        self._fetched = set(fetches)
        self._feeds = feed_set
        self._targets = set(targets)
        self._seen: dict[tuple, Any] = {}  # an Operation, or a list of them
        self._makes_refs: dict[int, bool] = {}  # per OpDef id: has a reference output
        self.constants: dict[Output, np.ndarray] = {}  # values known at plan time
        self._pure_memo: dict[Operation, bool] = {}
        self.changed = False  # whether any op was aliased, rewired or folded
        # Whether a stateless op with outputs is some op's control input (prune may drop it).
        self.control_only = False

    # -- what may be touched ---------------------------------------------------------------
    def _pure(self, op: Operation) -> bool:
        pure = self._pure_memo.get(op)
        if pure is None:
            d = op.op_def
            pure = self._pure_memo[op] = not (d.is_stateful or d.is_blocking
                                              or op.type in _NO_REWRITE
                                              or self._reads_reference(op))
        return pure

    def _reads_reference(self, op: Operation) -> bool:
        for i in op.inputs:  # only a producer with a reference output can hand one over
            d = i.op.op_def
            refs = self._makes_refs.get(id(d))  # OpDefs live in the registry: ids are stable
            if refs is None:
                refs = self._makes_refs[id(d)] = any(a.is_ref for a in d.outputs)
            if refs:
                return reads_reference(op)
        return any(arg.is_ref for arg in op.op_def.inputs)

    def _replaceable(self, op: Operation) -> bool:
        return (op not in self._targets and not any(o in self._fetched or o in self._feeds
                                                    for o in op.outputs))

    # -- the decisions ----------------------------------------------------------------------
    def alias(self, op: Operation, slot_of: dict[Output, int],
              needed: set[Output]) -> list[int] | None:
        """Slots holding the values of ``op``'s needed outputs already, or None (bind it).

        ``slot_of`` maps the Outputs bound so far to their slots; an answer gives a slot
        for every output in ``needed`` (outputs nobody needs get -1).
        """
        self._note_constant(op)
        if op._control_inputs and self.passes.dependency and not self.control_only:
            self.control_only = any(c.outputs and self._pure(c) for c in op._control_inputs)
        if not self._pure(op) or not self._replaceable(op):
            return None
        if self.passes.arithmetic and not op._control_inputs:
            hit = self._identity(op)
            if hit is not None and hit in slot_of:
                self.changed = True
                return [slot_of[hit]]
        if not self.passes.cse:
            return None
        # Cheap key first (type and input slots); attrs and control inputs are compared
        # only between ops that share it, which in most graphs none do.
        try:
            key = (op.type, tuple([slot_of[i] for i in op.inputs]))
        except KeyError:
            return None
        earlier = self._seen.get(key)
        if earlier is None:
            self._seen[key] = op  # a list only once a second op shares the key
            return None
        if not isinstance(earlier, list):
            earlier = self._seen[key] = [earlier]
        first = next((e for e in earlier if self._same_op(e, op)), None)
        if first is None:
            earlier.append(op)
            return None
        slots = []
        for mine, theirs in zip(op.outputs, first.outputs):
            if mine in needed:
                if theirs not in slot_of:
                    return None  # the earlier op's copy of this output was not kept
                slots.append(slot_of[theirs])
            else:
                slots.append(-1)
        self.changed = True
        return slots

    def rewire(self, op: Operation, inputs: list, slot_of: dict[Output, int]) -> list:
        """``inputs`` (the step's input slots), with a Reshape of a Reshape reading the
        inner Reshape's input instead (the inner one is pruned if nobody else reads it)."""
        if (not self.passes.arithmetic or op.type != "Reshape" or op._control_inputs
                or not inputs):
            return inputs
        inner = op.inputs[0].op
        if (inner.type == "Reshape" and not inner._control_inputs and self._pure(inner)
                and op.inputs[0] not in self._feeds and inner.inputs[0] in slot_of):
            self.changed = True
            return [slot_of[inner.inputs[0]]] + list(inputs[1:])
        return inputs

    def fuse(self, op: Operation, step: Step, slot_of: dict[Output, int]) -> Step | None:
        """A step running ``op`` together with the producer of its first input, when the two
        types have a registered fusion and nothing else reads that value; else None."""
        if not self.passes.remapping or not op.inputs or step.takes_ctx:
            return None
        first = op.inputs[0]
        producer = first.op
        build = registry.fusion(op.type, producer.type, device_type_of(op.device))
        if build is None or op._control_inputs or producer._control_inputs:
            return None
        if (first in self._feeds or not self._pure(op) or not self._pure(producer)
                or not self._replaceable(producer) or producer.device != op.device):
            return None
        if any(c is not op for o in producer.outputs for c in o.consumers()):
            return None
        built = build(op, producer)
        if built is None:
            return None
        fn, inputs = built
        try:
            slots = [slot_of[i] for i in inputs]
        except KeyError:
            return None
        self.changed = True
        fused = Step(op, fn, False, slots, step.outputs, step.device_index, step.device,
                     step.blocking)
        fused.fused = producer
        return fused

    def fold(self, op: Operation, step: Step) -> Step | None:
        """A step handing out ``op``'s values computed now, when all its inputs are known
        constants; None when it cannot be folded."""
        if not self.passes.constant_folding or step.takes_ctx or not op.inputs:
            return None
        if self.constants.get(op.inputs[0]) is None:  # the common case: not foldable
            return None
        if not self._pure(op) or not self._replaceable(op) or op._control_inputs:
            return None
        values = []
        for inp in op.inputs:
            v = self.constants.get(inp)
            if v is None:
                return None
            values.append(v)
        args = [values[g] if isinstance(g, slice) else values[g] for g in input_groups(op)]
        try:
            with np.errstate(all="ignore"):  # as every run computes: silently
                results = step.call(args)
        except Exception:  # left to fail (or not) when it runs, with the usual message
            return None
        for v in results:
            if not isinstance(v, (np.ndarray, np.generic)) or np.size(v) > _FOLD_MAX_ELEMENTS:
                return None
        for o, v in zip(op.outputs, results):
            self.constants[o] = v
        # The return form the plan's line unpacks: a sequence for multi-output kernels.
        raw = tuple(results) if step.sequence else results[0]

        def folded():
            return raw

        self.changed = True
        return Step(op, folded, False, [], step.outputs, step.device_index, step.device,
                    step.blocking)

    # -- helpers ----------------------------------------------------------------------------
    def _note_constant(self, op: Operation) -> None:
        """Records values known before anything runs: Const values, static shapes."""
        out = op.outputs[0] if len(op.outputs) == 1 else None
        if out is None or out in self._feeds:
            return
        if op.type == "Const":
            value = op.attrs.get("value")
            if isinstance(value, np.ndarray) and value.size <= _FOLD_MAX_ELEMENTS:
                self.constants[out] = value
        elif op.type in _SHAPE_OPS and op.inputs and not op._control_inputs:
            src = op.inputs[0]
            if src.op.type in _NO_REWRITE and src.op.type != "Const":
                return  # an unfed placeholder must still fail when it runs
            dims = src.shape.dims if src.shape is not None else None
            if dims is None or any(d is None for d in dims) or src.dtype.name in ("resource",
                                                                                 "variant"):
                return
            dtype = out.dtype.as_numpy_dtype
            if op.type == "Shape":
                self.constants[out] = np.array(dims, dtype)
            elif op.type == "Size":
                self.constants[out] = np.array(int(np.prod(dims, dtype=np.int64)), dtype)
            else:
                self.constants[out] = np.array(len(dims), dtype)

    def _identity(self, op: Operation) -> Output | None:
        """The input ``op`` returns unchanged (x * 1, x + 0, double transpose), or None."""
        kind = _ONE_ARGS.get(op.type)
        out = op.outputs[0] if op.outputs else None
        if kind is not None and len(op.inputs) == 2:
            x, y = op.inputs
            candidates = [(x, y)] if kind.endswith("_right") else [(x, y), (y, x)]
            want = 1 if kind.startswith("one") else 0
            for keep, const in candidates:
                c = self.constants.get(const)
                if (c is not None and c.dtype == keep.dtype.as_numpy_dtype
                        and _same_static_shape(keep, out) and c.size >= 1
                        and c.ndim <= len(keep.shape.dims) and np.all(c == want)):
                    return keep
        if op.type == "Reshape" and len(op.inputs) == 2 and _same_static_shape(op.inputs[0], out):
            # A reshape to the shape its value already has (Grappler's arithmetic optimizer
            # drops these too: RemoveRedundantReshapeOrBroadcastTo). Only to a constant
            # shape: static inference also gives [2] for a reshape of a [2] value to a
            # shape known only at run time, which may be [3] and must then fail.
            target = self.constants.get(op.inputs[1])
            dims = op.inputs[0].shape.dims
            if (target is not None and target.ndim == 1 and target.size == len(dims)
                    and all(int(t) == d for t, d in zip(target, dims))):
                return op.inputs[0]
        if op.type == "Transpose" and len(op.inputs) == 2:
            inner = op.inputs[0].op
            if inner.type == "Transpose" and len(inner.inputs) == 2 and not inner._control_inputs:
                p2, p1 = self.constants.get(op.inputs[1]), self.constants.get(inner.inputs[1])
                if p1 is not None and p2 is not None and p1.shape == p2.shape:
                    if all(int(p1[int(p2[i])]) == i for i in range(p1.size)):
                        return inner.inputs[0]
        return None

    @staticmethod
    def _same_op(a: Operation, b: Operation) -> bool:
        """Same device, attrs and control inputs (type and inputs are already equal)."""
        if a.device != b.device or set(a._control_inputs) != set(b._control_inputs):
            return False
        try:
            return _attr_key(dict(a.attrs)) == _attr_key(dict(b.attrs))
        except TypeError:  # an attr that cannot be compared by value: never merged
            return False


def _same_static_shape(a: Output, b: Output | None) -> bool:
    if b is None or a.shape is None or b.shape is None:
        return False
    da, db = a.shape.dims, b.shape.dims
    return (da is not None and db is not None and all(d is not None for d in da)
            and tuple(da) == tuple(db) and a.dtype == b.dtype)


def prune(steps: list[Step], fetches: list[Output], targets: list[Operation],
          control_only: bool = False) -> list[Step]:
    """``steps`` without the stateless ones whose values nobody reads any more; with
    ``control_only``, also those that only a control edge asks for (a plan run in order)."""
    readers: dict[int, int] = {}
    for step in steps:
        for s in step.inputs:
            for slot in s if isinstance(s, list) else (s,):
                readers[slot] = readers.get(slot, 0) + 1
    must_keep = set(targets) | {o.op for o in fetches}
    controlled: set[Operation] = set()  # control inputs of kept steps
    kept: list[Step] = []
    for step in reversed(steps):
        op = step.op
        d = op.op_def
        removable = (op not in must_keep and not d.is_stateful and not d.is_blocking
                     and op.type != "Placeholder"
                     and all(slot < 0 or not readers.get(slot) for slot in step.outputs)
                     and (op not in controlled
                          or (control_only and op.outputs and op.type not in _RUN_FOR_CONTROL
                              and not any(a.is_ref for a in d.inputs))))
        if removable:
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    readers[slot] -= 1
            continue
        controlled.update(op._control_inputs)
        kept.append(step)
    kept.reverse()
    return kept


def rewrite_passes(config: Any) -> Passes | None:
    """The rewrites a session's ``ConfigProto`` asks for (None: none), read as TensorFlow
    reads ``graph_options``: ``rewrite_options.disable_meta_optimizer`` or
    ``optimizer_options.opt_level = L0`` turn all off; each pass has its own switch."""
    graph_options = getattr(config, "graph_options", None)
    if graph_options is None:
        return Passes()
    opt, rw = graph_options.optimizer_options, graph_options.rewrite_options
    if rw.disable_meta_optimizer or opt.opt_level < 0:
        return None
    off = 2  # RewriterConfig.OFF
    passes = Passes(
        cse=opt.do_common_subexpression_elimination and rw.common_subgraph_elimination != off,
        arithmetic=rw.arithmetic_optimization != off,
        constant_folding=opt.do_constant_folding and rw.constant_folding != off,
        dependency=rw.dependency_optimization != off,
        remapping=rw.remapping != off,
    )
    return passes if passes.any else None
