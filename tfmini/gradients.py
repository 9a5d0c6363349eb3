"""Symbolic reverse-mode differentiation: ``tm.gradients`` (TF1's ``tf.gradients``).

The gradient sub-graph is built under a ``gradients/`` name scope, each op's part under
``gradients/<op name>_grad/``, from the gradient functions registered with the op types
(``@tm.RegisterGradient``). Three cases are kept apart:

* explicitly not differentiable (``tm.no_gradient``): no gradient flows, silently;
* a gradient function is missing: ``LookupError`` naming the op, its type, the input on the
  path to ``xs`` and where the op was defined;
* disconnected (``ys`` do not depend on an ``x``): that gradient is None (or zeros with
  ``unconnected_gradients="zero"``).

Integer-valued tensors are not differentiable: gradients reaching them are dropped, so integer
paths (shapes, indices, argmax) need no gradient functions. Gradients of gathers stay sparse
(:class:`~tfmini.ops.common.indexed_slices.IndexedSlices`) until something needs them dense.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import current_scope, name_scope
from tfmini.ops.array import ones, zeros, zeros_like
from tfmini.ops.common.indexed_slices import IndexedSlices

_TRAINABLE = frozenset({"float16", "float32", "float64", "bfloat16", "complex64", "complex128",
                        "resource", "variant"})


class UnconnectedGradients:
    """What ``gradients`` returns for an x that the ys do not depend on."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How several partial gradients of one tensor are summed (the value is the same)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def is_trainable(t: Output) -> bool:
    """Whether gradients flow through ``t`` (floating, complex, resource and variant tensors)."""
    return t.dtype.name in _TRAINABLE


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _x_tensor(x: Any) -> Output:
    # A resource variable is differentiated through its handle: its reads pass gradients on.
    handle = getattr(x, "handle", None)
    if isinstance(handle, Output) and not isinstance(x, Output):
        return handle
    return convert_to_tensor(x)


def _reached_ops(from_ops: Sequence[Operation]) -> set[Operation]:
    """Every op reachable forward through differentiable outputs from ``from_ops``, themselves
    included."""
    reached: set[Operation] = set()
    work = list(from_ops)
    while work:
        op = work.pop()
        if op in reached:
            continue
        reached.add(op)
        for out in op.outputs:
            # As TF's _MarkReachedOps: an integer output carries no gradient, so ops reached
            # only through one (Cast of an ArgMax) are not on a differentiable path and need
            # no gradient function.
            if is_trainable(out):
                work.extend(out._consumers)
    return reached


def _between_ops(to_ops: Sequence[Operation], reached: set[Operation]) -> set[Operation]:
    """The reached ops from which some of ``to_ops`` can be reached (the ops to differentiate)."""
    between: set[Operation] = set()
    work = [op for op in to_ops if op in reached]
    while work:
        op = work.pop()
        if op in between:
            continue
        between.add(op)
        work.extend(inp.op for inp in op.inputs if inp.op in reached)
    return between


def _aggregate(grads: list, method: Any) -> Any:
    """The sum of the partial gradients of one tensor (AddN; IndexedSlices stay sparse)."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    del method  # every method gives the same value; AddN is the fastest here
    scope = current_scope()
    if all(isinstance(g, IndexedSlices) for g in grads):
        values = build_op(scope, "ConcatV2", [[g.values for g in grads], 0]).outputs[0]
        parts = [g.indices for g in grads]
        if len({t.dtype for t in parts}) > 1:
            # int32 and int64 indices (gathers with different index types) cannot be concatenated:
            # TensorFlow casts them all to int64 (math_ops._as_indexed_slices_list).
            parts = [t if t.dtype.name == "int64" else
                     build_op(scope, "Cast", [t], {"DstT": "int64"}).outputs[0] for t in parts]
        indices = build_op(scope, "ConcatV2", [parts, 0]).outputs[0]
        return IndexedSlices(values, indices, grads[0].dense_shape)
    dense = [convert_to_tensor(g) for g in grads]
    return build_op(scope, "AddN", [dense]).outputs[0]


def _missing_gradient(op: Operation, between: set[Operation], xs: set[Output]) -> LookupError:
    on_path = [i for i, t in enumerate(op.inputs) if t.op in between or t in xs]
    index = on_path[0] if on_path else 0
    return LookupError(
        f"No gradient defined for operation '{op.name}' (op type: {op.type}), needed for its "
        f"input {index} (defined at {op.defined_at}). In general every operation must have an "
        "associated `@tm.RegisterGradient` for correct autodiff, which this op is lacking. If "
        "you want to pretend this operation is a constant in your program, you may insert "
        "`tm.stop_gradient`, or mark the op type with `tm.no_gradient`."
    )


def _check_result(op: Operation, in_grads: list) -> list:
    """``in_grads`` checked against the op's inputs; Python/NumPy values become constants (in
    the op's gradient scope), so a wrong shape is reported as any gradient's would be."""
    if len(in_grads) != len(op.inputs):
        raise ValueError(
            f"Num gradients {len(in_grads)} generated for op '{op.name}' ({op.type}) do not "
            f"match num inputs {len(op.inputs)}"
        )
    in_grads = [
        convert_to_tensor(g, dtype_hint=t_in.dtype)
        if g is not None and not isinstance(g, (Output, IndexedSlices)) and is_trainable(t_in)
        else g
        for t_in, g in zip(op.inputs, in_grads)
    ]
    for i, (t_in, g) in enumerate(zip(op.inputs, in_grads)):
        # A resource input (a variable's handle) is a scalar whose gradient has the variable's
        # shape, so it is exempt, as in TensorFlow.
        if (isinstance(g, Output) and t_in.dtype.name != "resource"
                and not t_in.shape.is_compatible_with(g.shape)):
            raise ValueError(
                "Incompatible shapes between op input and calculated input gradient. "
                f"Forward operation: {op.name} ({op.type}). Input index: {i}. Original input "
                f"shape: {t_in.shape}. Calculated input gradient shape: {g.shape}"
            )
    return in_grads


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: str = UnconnectedGradients.NONE,
) -> list:
    """The symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Args:
        ys: A tensor or list of tensors to differentiate.
        xs: A tensor, variable, or list of them.
        grad_ys: Optional gradients of ``ys`` (same structure; default ones).
        name: Name scope of the gradient ops.
        colocate_gradients_with_ops: Accepted for compatibility (one device per op type here).
        gate_gradients: If True, the gradients of each op's inputs are computed together
            (``tm.tuple``) before any is used.
        aggregation_method: How partial gradients are summed (see AggregationMethod).
        stop_gradients: Tensors through which no gradient flows (held constant).
        unconnected_gradients: ``"none"`` (default) or ``"zero"`` for xs the ys do not reach.

    Returns:
        One gradient per x: an Output, an IndexedSlices, or None.

    Raises:
        LookupError: an op on the path has no gradient function (and is not marked
            ``tm.no_gradient``).
        ValueError: a gradient function returned the wrong number or shape of gradients;
            ``grad_ys`` does not match ``ys``.
    """
    del colocate_gradients_with_ops
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs_list = [_x_tensor(x) for x in _as_list(xs)]
    grad_ys = _as_list(grad_ys) or [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    stop_ops = {convert_to_tensor(t).op for t in _as_list(stop_gradients)}

    with name_scope(name, "gradients", values=ys + xs_list):
        scope = current_scope()
        to_ops = list(dict.fromkeys(y.op for y in ys))
        from_ops = list(dict.fromkeys(x.op for x in xs_list))
        reached = _reached_ops(from_ops)
        between = _between_ops(to_ops, reached)
        xs_set = set(xs_list)
        # Ops among the xs that no other x feeds need no gradient of their own inputs.
        stop_ops |= {op for op in from_ops if not any(i.op in between for i in op.inputs)}
        pending: dict[Operation, int] = collections.Counter()
        for op in between:
            for inp in op.inputs:
                if inp.op in between:
                    pending[inp.op] += 1

        grads: dict[Output, list] = collections.defaultdict(list)
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            if gy is None and y.dtype.is_complex:
                # As TensorFlow: which direction to differentiate in is the caller's choice.
                raise TypeError(f"Gradients of complex tensors ({y!r}) must set grad_ys "
                                f"(y.dtype = {y.dtype.name})")
            if gy is None:
                # As TF: gradients/Shape, then gradients/grad_ys_<i>/Const filled into an op
                # named gradients/grad_ys_<i> itself.
                shape = build_op(scope, "Shape", [y]).outputs[0]
                gy = ones(shape, dtype=y.dtype, name=f"grad_ys_{i}")
            elif not isinstance(gy, IndexedSlices):
                gy = convert_to_tensor(gy, dtype_hint=y.dtype)
                if gy.dtype != y.dtype:
                    raise ValueError(
                        f"Gradient type {gy.dtype.name} generated for tensor {y.name} with type "
                        f"{y.dtype.name} must be the same"
                    )
                # Caught here, naming the y, rather than deep inside some gradient function.
                if not gy.shape.is_compatible_with(y.shape):
                    raise ValueError(
                        f"grad_ys[{i}] has shape {gy.shape}, incompatible with the shape "
                        f"{y.shape} of ys[{i}] ({y.name})"
                    )
            grads[y].append(gy)

        queue = collections.deque(op for op in to_ops if op in between and pending[op] == 0)
        while queue:
            op = queue.popleft()
            out_grads = []
            for o in op.outputs:
                g = _aggregate(grads.get(o, []), aggregation_method)
                if g is not None:
                    grads[o] = [g]  # summed once, also for an x that is an op's output
                out_grads.append(g)
            has_out_grads = any(g is not None for g in out_grads)
            in_grads: list = [None] * len(op.inputs)
            if has_out_grads and op not in stop_ops:
                op_def = registry.behaviour_of(op)  # gradients: looked up live
                grad_fn = op_def.grad_fn
                override = op.graph.gradient_override_of(op)
                if override is not None:
                    grad_fn = registry.named_gradient(override)
                    if grad_fn is None:
                        raise LookupError(
                            f"gradient registry has no entry for: {override} (the gradient "
                            f"override of {op.type} '{op.name}')"
                        )
                if grad_fn is not None:
                    with name_scope(f"{op.name}_grad"):
                        for i, out in enumerate(op.outputs):
                            if out_grads[i] is None and is_trainable(out):
                                # Gradient functions may assume every float output has one.
                                out_grads[i] = build_op(current_scope(), "ZerosLike",
                                                        [out]).outputs[0]
                        result = grad_fn(op, *out_grads)
                        in_grads = _as_list(result) if isinstance(result, (list, tuple)) else [
                            result]
                        in_grads = _check_result(op, in_grads)
                        if gate_gradients and sum(g is not None for g in in_grads) > 1:
                            from tfmini.ops.control_flow import tuple as group_tuple

                            gated = group_tuple([g for g in in_grads if g is not None])
                            it = iter(gated)
                            in_grads = [next(it) if g is not None else None for g in in_grads]
                elif not op_def.no_gradient:
                    raise _missing_gradient(op, between, xs_set)
            for t_in, g in zip(op.inputs, in_grads):
                if g is not None and is_trainable(t_in):
                    if isinstance(g, Output) and t_in.dtype.name != "resource":
                        # As TensorFlow: a gradient has its input's static shape (checked
                        # compatible above), so later shape inference stays precise.
                        g.set_shape(t_in.shape)
                    grads[t_in].append(g)
            for t_in in op.inputs:
                in_op = t_in.op
                if in_op in between:
                    pending[in_op] -= 1
                    if pending[in_op] == 0:
                        queue.append(in_op)

        result = []
        for x in xs_list:
            g = _aggregate(grads.get(x, []), aggregation_method)
            if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                g = _zeros_for(scope, x)
            result.append(g)
    return result


def _zeros_for(scope, x: Output) -> Output:
    """The zero gradient of an unconnected x; for a variable's handle, zeros shaped and typed
    as the variable (ZerosLike of the handle would be an empty resource)."""
    if x.dtype.name == "resource" and x.op.type == "VarHandleOp":
        shape = x.op.attrs["shape"]
        if not shape.is_fully_defined():
            shape = build_op(scope, "VariableShape", [x]).outputs[0]
        return zeros(shape, dtype=x.op.attrs["dtype"])
    # zeros_like, as TensorFlow: zeros of the static shape when known, so an unconnected
    # placeholder need not be fed to evaluate its zero gradient.
    return zeros_like(x)


__all__ = ["AggregationMethod", "UnconnectedGradients", "gradients"]
