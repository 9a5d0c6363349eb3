"""Gradients of functional control flow: If/StatelessIf and While/StatelessWhile.

Where this lives, and why: differentiating a branch or a loop body means running
:func:`tfmini.gradients.gradients` on a copy of that sub-graph, so these gradient functions
belong to the gradients layer, next to ``tfmini/gradients.py``; ``tfmini/__init__.py`` imports
this module to register them. (The alternative, an ops-layer module calling ``gradients``
through a hook that ``gradients.py`` installs, would split one feature over two layers and
leave the ops layer holding gradient functions that fail until someone installs the hook.)

Design: tfmini keeps no intermediates of a forward If or While (TensorFlow rewrites the
forward op to output them); the gradient *recomputes* instead.

* ``If``: one gradient function per branch, taking (the If's inputs, the gradients of its
  outputs) and returning one gradient per differentiable input. Inside, the branch's ops are
  copied (recomputed) and ``gradients`` is called on the copies. The gradient op is an
  If/StatelessIf on the same predicate, so only the taken branch is differentiated.
* ``While``: a ``WhileGrad`` op re-runs the forward loop from the While's inputs, keeping
  each iteration's loop values (memory grows with the trip count, as TensorFlow's stacks do),
  then walks the iterations backwards through a body-gradient function built like a branch
  gradient. Loop-invariant values (captures, and any loop variable the body passes through)
  accumulate their gradient over the iterations.

Recomputing repeats what the recomputed ops do, so state may only be *read* there: a branch
whose outputs depend on an op with side effects (an assignment, a random op), or a loop whose
cond or body has one, is refused with NotImplementedError.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.function import FuncGraph, root_graph
from tfmini.core.graph import Operation, Output
from tfmini.core.opdef import OpDef, group_flat
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import Scope, current_scope, scope_context
from tfmini.core.shapes import as_shape, unknown_shape
from tfmini.gradients import gradients, is_trainable
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.control_flow import keep_iterations
from tfmini.ops.data_flow import TENSOR_ARRAY_OPS

# Stateful ops that only read state: recomputing them gives the values the forward pass saw
# (as long as nothing writes in between), so a recomputed branch or body may contain them.
_READ_ONLY_STATEFUL = frozenset({"ReadVariableOp", "VariableShape", "VarIsInitializedOp"})
# TensorArrays live for one step and their kernels replay safely (a replayed write of an
# element that holds a value is skipped, a replayed read sees a cleared value): see
# tfmini/ops/data_flow/tensor_array_ops.py.
_REPLAYABLE_STATEFUL = _READ_ONLY_STATEFUL | TENSOR_ARRAY_OPS

# Gradient functions are numbered process-wide, as TensorFlow's "<forward>_grad_<uid>".
_uids = itertools.count(1)


# ----------------------------------------------------------------------------------------
# Side effects


def _functions_of(op: Operation) -> list[FuncGraph]:
    return [v for v in op.attrs.values() if isinstance(v, FuncGraph)]


def _has_side_effects(op: Operation) -> bool:
    """Whether running ``op`` again would do more than read state."""
    if not op.op_def.is_stateful or op.type in _REPLAYABLE_STATEFUL:
        return False
    functions = _functions_of(op)
    # An If/While is stateful when its functions are; it is harmless when they only read.
    return not functions or any(_side_effect_in(fn.get_operations()) for fn in functions)


def _side_effect_in(ops: Iterable[Operation]) -> Operation | None:
    """The first op of ``ops`` (a nested function's ops included) that has side effects."""
    for op in ops:
        if _has_side_effects(op):
            return op
    return None


def _refuse(what: str, op: Operation, culprit: Operation) -> NotImplementedError:
    return NotImplementedError(
        f"Cannot differentiate {op.type} '{op.name}': tfmini recomputes its {what} to "
        f"compute the gradient, which would run '{culprit.name}' ({culprit.type}) again and "
        "repeat its side effects (only reading variables is allowed there). Move the stateful "
        "op out of the control flow, or tm.stop_gradient its result."
    )


# ----------------------------------------------------------------------------------------
# Copying a function's ops


def _ancestors(outputs: Sequence[Output], graph: Any) -> set[Operation]:
    """The ops of ``graph`` that ``outputs`` depend on (data and control inputs)."""
    found: set[Operation] = set()
    work = [o.op for o in outputs if o.graph is graph]
    while work:
        op = work.pop()
        if op in found:
            continue
        found.add(op)
        work.extend(i.op for i in op.inputs)
        work.extend(op.control_inputs)
    return found


def _group_inputs(op_def: OpDef, attrs: Mapping[str, Any], flat: list) -> list:
    """Splits flat inputs into one entry per input argument (a list for a list argument)."""
    return group_flat(op_def.inputs, attrs, flat)


def copy_ops(ops: Sequence[Operation], input_map: Mapping[Output, Output]) -> dict:
    """Copies ``ops`` into the current scope's graph through ``build_op``, in creation order.

    Args:
        ops: Operations of one graph, in creation order (so inputs come before consumers).
        input_map: Outputs of that graph to replace (a function's arguments); ops whose
            outputs are all mapped are not copied.

    Returns:
        A dict mapping each original Output (mapped or copied) to its counterpart.
    """
    mapping: dict[Output, Output] = dict(input_map)
    copied: dict[Operation, Operation] = {}
    scope = current_scope()
    for op in ops:
        if op.outputs and all(o in mapping for o in op.outputs):
            continue
        attrs = dict(op.attrs)
        inputs = _group_inputs(op.op_def, attrs, [mapping[i] for i in op.inputs])
        new = build_op(scope, op.type, inputs, attrs, name=op.name)
        new._add_control_inputs([copied[c] for c in op.control_inputs if c in copied])
        copied[op] = new
        mapping.update(zip(op.outputs, new.outputs))
    return mapping


# ----------------------------------------------------------------------------------------
# Shared helpers


@contextlib.contextmanager
def _building(fg: FuncGraph):
    """Builds into ``fg`` from its root scope, keeping the enclosing device."""
    with scope_context(Scope(fg, device=current_scope().device)):
        yield fg


def _dense(grad: Any) -> Any:
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


def _is_resource(t: Output) -> bool:
    return t.dtype.name == "resource"


def _zeros_for(t: Output, dtype: Any) -> Output:
    """Zeros shaped like the value of ``t`` (a variable's value when ``t`` is its handle)."""
    scope = current_scope()
    if not _is_resource(t):
        return build_op(scope, "ZerosLike", [t]).outputs[0]
    shape = build_op(scope, "VariableShape", [t]).outputs[0]
    zero = np.zeros((), dtype.np_dtype)
    return build_op(scope, "Fill", [shape, zero]).outputs[0]


def _real_grad(grad: Any) -> Any:
    """``grad`` dense, or None when it is no gradient (``gradients`` gives a resource output
    a ZerosLike of the handle itself, which is not a value's gradient)."""
    if grad is None:
        return None
    grad = _dense(grad)
    return None if _is_resource(grad) else grad


def _new_function(fwd: FuncGraph) -> FuncGraph:
    scope = current_scope()
    return FuncGraph(name=f"{fwd.name}_grad_{next(_uids)}", outer_graph=scope.graph,
                     outer_name_scope=scope.name_prefix, recomputes=True)


def _recompute(
    op: Operation, fwd: FuncGraph, fg: FuncGraph, outputs: Sequence[int]
) -> tuple[list, dict]:
    """Adds ``fwd``'s arguments to ``fg`` and copies the ops that ``fwd.outputs[outputs]``
    need; returns the new arguments and the original -> copy mapping.

    Raises:
        NotImplementedError: one of those ops has side effects (``op`` is the one being
            differentiated, for the message).
    """
    needed = _ancestors([fwd.outputs[i] for i in outputs], fwd)
    ops = [o for o in fwd.get_operations() if o in needed]
    culprit = _side_effect_in(ops)
    if culprit is not None:
        raise _refuse(f"function '{fwd.name}'", op, culprit)
    args = [fg.add_argument(t.dtype, t.shape, name=t.op.name) for t in fwd.inputs]
    return args, copy_ops(ops, dict(zip(fwd.inputs, args)))


def _finish(fg: FuncGraph, outputs: list[Output]) -> None:
    if fg.captures:
        # Everything in a gradient function derives from its arguments; a capture would be an
        # input the gradient op does not pass.
        names = ", ".join(o.name for o in fg.captures)
        raise ValueError(f"Gradient function '{fg.name}' uses outer tensors ({names})")
    fg.outputs = list(outputs)
    # Only the values are wanted: recomputed reads need not run unless an output uses them.
    fg.control_outputs = []
    root_graph(fg)._register_function(fg)


def _is_stateful(fns: Sequence[FuncGraph]) -> bool:
    return any(op.op_def.is_stateful for fn in fns for op in fn.get_operations())


# ----------------------------------------------------------------------------------------
# If, StatelessIf


def _branch_grads(
    op: Operation, fwd: FuncGraph, wrt: list[int], out_idx: list[int], out_grads: list
) -> tuple[FuncGraph, list, list]:
    """A gradient function of branch ``fwd`` of ``op`` (not finished): returns it, its
    arguments for the If's inputs and the gradients (or None) of the ``wrt`` inputs."""
    fg = _new_function(fwd)
    with _building(fg):
        args, mapping = _recompute(op, fwd, fg, out_idx)
        grad_args = [fg.add_argument(g.dtype, g.shape, name="grad") for g in out_grads]
        ys = [mapping[fwd.outputs[i]] for i in out_idx]
        grads = gradients(ys, [args[i] for i in wrt], grad_ys=grad_args)
    return fg, args, [_dense(g) for g in grads]


def _if_grad(op: Operation, *grads: Any) -> list:
    """Gradient of If/StatelessIf: an If on the same predicate over the branches' gradients."""
    then_fn, else_fn = op.get_attr("then_branch"), op.get_attr("else_branch")
    inputs = list(op.inputs[1:])
    wrt = [i for i, t in enumerate(inputs) if is_trainable(t)]
    out_idx = [i for i, g in enumerate(grads) if _real_grad(g) is not None]
    out_grads = [_real_grad(grads[i]) for i in out_idx]
    if not wrt or not out_idx:
        return [None] * len(op.inputs)
    branches = [_branch_grads(op, fn, wrt, out_idx, out_grads) for fn in (then_fn, else_fn)]
    # An input gets a gradient when either branch gives one; the other branch gives zeros.
    keep = [k for k in range(len(wrt)) if any(b[2][k] is not None for b in branches)]
    if not keep:
        return [None] * len(op.inputs)
    for k in keep:
        dtype = next(b[2][k].dtype for b in branches if b[2][k] is not None)
        for fg, args, branch_grads in branches:
            if branch_grads[k] is None:
                with _building(fg):
                    branch_grads[k] = _zeros_for(args[wrt[k]], dtype)
    for fg, _, branch_grads in branches:
        _finish(fg, [branch_grads[k] for k in keep])
    fns = [b[0] for b in branches]
    # A value's gradient has the value's shape; a variable's handle says nothing of it.
    shapes = [
        _compatible(*(fg.outputs[j].shape for fg in fns)) if _is_resource(inputs[wrt[k]])
        else inputs[wrt[k]].shape
        for j, k in enumerate(keep)
    ]
    grad_if = build_op(
        current_scope(),
        "If" if _is_stateful(fns) else "StatelessIf",
        [op.inputs[0], inputs + out_grads],
        {
            "Tout": [o.dtype for o in fns[0].outputs],
            "then_branch": fns[0],
            "else_branch": fns[1],
            "output_shapes": shapes,
        },
    )
    result: list = [None] * len(op.inputs)
    for j, k in enumerate(keep):
        result[1 + wrt[k]] = grad_if.outputs[j]
    return result  # the predicate has no gradient


def _compatible(a: Any, b: Any) -> Any:
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return unknown_shape()
    return [x if x == y else None for x, y in zip(a.dims, b.dims)]


RegisterGradient("If")(_if_grad)
RegisterGradient("StatelessIf")(_if_grad)


def _case_grad(op: Operation, *grads: Any) -> list:
    """Gradient of Case/StatelessCase: a Case on the same index over the branches' gradients
    (an index out of range picks the last gradient branch, as the forward op's last)."""
    fwd_fns = list(op.get_attr("branches"))
    inputs = list(op.inputs[1:])
    wrt = [i for i, t in enumerate(inputs) if is_trainable(t)]
    out_idx = [i for i, g in enumerate(grads) if _real_grad(g) is not None]
    out_grads = [_real_grad(grads[i]) for i in out_idx]
    if not wrt or not out_idx:
        return [None] * len(op.inputs)
    branches = [_branch_grads(op, fn, wrt, out_idx, out_grads) for fn in fwd_fns]
    keep = [k for k in range(len(wrt)) if any(b[2][k] is not None for b in branches)]
    if not keep:
        return [None] * len(op.inputs)
    for k in keep:
        dtype = next(b[2][k].dtype for b in branches if b[2][k] is not None)
        for fg, args, branch_grads in branches:
            if branch_grads[k] is None:
                with _building(fg):
                    branch_grads[k] = _zeros_for(args[wrt[k]], dtype)
    for fg, _, branch_grads in branches:
        _finish(fg, [branch_grads[k] for k in keep])
    fns = [b[0] for b in branches]
    shapes = []
    for j, k in enumerate(keep):
        if _is_resource(inputs[wrt[k]]):
            shape = fns[0].outputs[j].shape
            for fg in fns[1:]:
                shape = as_shape(_compatible(shape, fg.outputs[j].shape))
            shapes.append(shape)
        else:
            shapes.append(inputs[wrt[k]].shape)
    grad_case = build_op(
        current_scope(),
        "Case" if _is_stateful(fns) else "StatelessCase",
        [op.inputs[0], inputs + out_grads],
        {"Tout": [o.dtype for o in fns[0].outputs], "branches": fns, "output_shapes": shapes},
    )
    result: list = [None] * len(op.inputs)
    for j, k in enumerate(keep):
        result[1 + wrt[k]] = grad_case.outputs[j]
    return result  # the index has no gradient


RegisterGradient("Case")(_case_grad)
RegisterGradient("StatelessCase")(_case_grad)
no_gradient("Assert")  # as TensorFlow: an assertion has no gradient


# ----------------------------------------------------------------------------------------
# While, StatelessWhile


def _while_grad(op: Operation, *grads: Any) -> list:
    """Gradient of While/StatelessWhile: a ``WhileGrad`` op (registered with the While ops in
    tfmini/ops/control_flow.py)."""
    cond, body = op.get_attr("cond"), op.get_attr("body")
    for fn in (cond, body):
        # The forward loop is re-run whole, control outputs included.
        culprit = _side_effect_in(fn.get_operations())
        if culprit is not None:
            raise _refuse(f"loop function '{fn.name}'", op, culprit)
    n = len(op.inputs)
    passthrough = [body.outputs[i] is body.inputs[i] for i in range(n)]
    incoming = [_real_grad(g) for g in grads]
    # Loop variables the body changes carry their gradient back through each iteration;
    # values the body passes through accumulate theirs (a gradient of a resource is a value).
    carried = [
        i for i in range(n)
        if not passthrough[i] and is_trainable(op.inputs[i]) and not _is_resource(op.inputs[i])
    ]
    invariant = [i for i in range(n) if passthrough[i] and is_trainable(op.inputs[i])]
    result: list = [None] * n
    if not carried:
        # Nothing flows through the iterations: pass-through values keep their gradient.
        for i in invariant:
            result[i] = incoming[i]
        return result

    fg = _new_function(body)
    with _building(fg):
        args, mapping = _recompute(op, body, fg, carried)
        carried_args = [
            fg.add_argument(body.outputs[i].dtype, body.inputs[i].shape, name="grad")
            for i in carried
        ]
        ys = [mapping[body.outputs[i]] for i in carried]
        xs = [args[i] for i in carried + invariant]
        body_grads = [_dense(g) for g in gradients(ys, xs, grad_ys=carried_args)]
        outputs = [
            g if g is not None else build_op(current_scope(), "ZerosLike", [args[i]]).outputs[0]
            for i, g in zip(carried, body_grads)
        ]
        accumulated = []
        for i, g in zip(invariant, body_grads[len(carried):]):
            if g is None:
                result[i] = incoming[i]  # the loop adds nothing to it
                continue
            acc = fg.add_argument(g.dtype, g.shape, name="accumulator")
            outputs.append(build_op(current_scope(), "AddN", [[acc, g]]).outputs[0])
            accumulated.append((i, g.dtype))
    _finish(fg, outputs)

    scope = current_scope()
    init = []
    for i in carried:
        g = incoming[i]
        if g is None:
            g = build_op(scope, "ZerosLike", [op.outputs[i]]).outputs[0]
        init.append(g)
    for i, dtype in accumulated:
        g = incoming[i]
        init.append(g if g is not None else _zeros_for(op.inputs[i], dtype))
    shapes = [op.inputs[i].shape for i in carried]
    shapes += [unknown_shape() if _is_resource(op.inputs[i]) else op.inputs[i].shape
               for i, _ in accumulated]
    keep_iterations(body)
    grad_op = build_op(
        scope,
        "WhileGrad",
        [list(op.inputs), init],
        {"cond": cond, "body": body, "body_grad": fg, "output_shapes": shapes},
    )
    for i, out in zip(carried + [i for i, _ in accumulated], grad_op.outputs):
        result[i] = out
    return result


@RegisterGradient("WhileGrad")
def _while_grad_grad(op: Operation, *grads: Any) -> list:
    """Refuses second derivatives through a loop, loudly rather than with a silent None."""
    raise NotImplementedError(
        f"Cannot differentiate '{op.name}' (the gradient of a while_loop): tfmini has no "
        "second-order gradients through while_loop (through cond it has)."
    )


RegisterGradient("While")(_while_grad)
RegisterGradient("StatelessWhile")(_while_grad)

__all__: list[str] = []
