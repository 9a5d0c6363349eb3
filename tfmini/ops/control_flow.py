"""Functional control flow: If/StatelessIf, While/StatelessWhile, cond, while_loop, group, tuple.

Branches and loop bodies are sub-graphs (:class:`~tfmini.core.function.FuncGraph`), as TF2's
``cond_v2`` and ``while_v2`` build them, so a cond runs only the branch it takes and a loop
runs its body once per iteration. Ops in a sub-graph that use tensors of an enclosing graph
capture them: the FuncGraph grows an argument per captured value and the op calling the
function passes the outer value in. Stateful ops in a sub-graph become its control outputs,
so they run exactly when (and as often as) the function runs.

Layout, as TensorFlow's:

* ``If(cond, input)``: ``input`` is the union of the values both branches captured; both
  branches take that whole list (a branch ignores the values only the other one uses).
* ``While(input)``: ``input`` is the loop variables followed by every captured value; cond
  and body take that whole list; body returns the new loop variables followed by the
  captured arguments unchanged, so the op's outputs mirror its inputs.
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import int32
from tfmini.core.function import FuncGraph, root_graph
from tfmini.core.graph import Graph, Operation, Output, check_op_name
from tfmini.core.registry import lookup, register_op
from tfmini.core.scope import (
    Scope,
    control_dependencies,
    current_scope,
    device,
    name_scope,
    scope_context,
)
from tfmini.core.shapes import TensorShape, unknown_shape
from tfmini.ops.array import constant, identity, no_op, stop_gradient
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import peek_op_name
from tfmini.ops.common.kernel_util import invalid_argument

# TensorFlow numbers functions with a process-wide uid ("cond_true_12").
_uids = itertools.count(1)


# ----------------------------------------------------------------------------------------
# Nested structures: the part of TensorFlow's ``nest`` that cond and while_loop need.
# Lists, tuples, namedtuples and dicts nest; everything else (tensors, ops, None,
# TensorShape) is a leaf. Dicts flatten in sorted-key order, as in TensorFlow.


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, builtins.tuple) and hasattr(type(x), "_fields")


def _is_nested(x: Any) -> bool:
    return isinstance(x, (list, builtins.tuple, Mapping))


def _children(x: Any) -> list:
    if isinstance(x, Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


def _flatten(x: Any) -> list:
    if not _is_nested(x):
        return [x]
    flat: list = []
    for child in _children(x):
        flat.extend(_flatten(child))
    return flat


def _pack_as(structure: Any, flat: list) -> Any:
    """``flat`` packed into the shape of ``structure`` (TensorFlow's ``pack_sequence_as``)."""
    it = iter(flat)

    def build(s: Any) -> Any:
        if not _is_nested(s):
            return next(it)
        if isinstance(s, Mapping):
            packed = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        items = [build(c) for c in s]
        if _is_namedtuple(s):
            return type(s)(*items)
        return type(s)(items)

    return build(structure)


def _assert_same_structure(a: Any, b: Any, check_types: bool = True) -> None:
    """Raises ValueError (different nesting or sizes) or TypeError (different sequence types)."""

    def fail(detail: str, cls: type = ValueError) -> None:
        raise cls(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a!r}\n\nSecond structure: {b!r}\n\n"
            f"More specifically: {detail}"
        )

    def walk(x: Any, y: Any) -> None:
        if _is_nested(x) != _is_nested(y):
            seq, other = (x, y) if _is_nested(x) else (y, x)
            fail(f'Substructure "{seq!r}" is a sequence, while substructure "{other!r}" is not')
        if not _is_nested(x):
            return
        if isinstance(x, Mapping) != isinstance(y, Mapping):
            fail(f"{type(x).__name__} and {type(y).__name__} are not the same kind of sequence",
                 TypeError if check_types else ValueError)
        if check_types and type(x) is not type(y):
            fail(
                f"The two namedtuples/sequences have different types: {type(x).__name__} and "
                f"{type(y).__name__}",
                TypeError,
            )
        if isinstance(x, Mapping) and set(x) != set(y):
            fail(f"The two dictionaries don't have the same set of keys: {sorted(x)} and "
                 f"{sorted(y)}")
        cx, cy = _children(x), _children(y)
        if len(cx) != len(cy):
            fail(f"The two structures don't have the same number of elements: {len(cx)} and "
                 f"{len(cy)}")
        for i, j in zip(cx, cy):
            walk(i, j)

    walk(a, b)


# ----------------------------------------------------------------------------------------
# Shapes


def _most_specific_compatible_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both ``a`` and ``b`` are instances of (dims that differ unknown)."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return unknown_shape()
    return TensorShape([x if x == y else None for x, y in zip(a.dims, b.dims)])


def _shape_less_than_or_equal(shape: TensorShape, bound: TensorShape) -> bool:
    """True when every dim ``bound`` fixes is fixed to the same value in ``shape``."""
    if bound.dims is None:
        return True
    if shape.dims is None or len(shape.dims) != len(bound.dims):
        return False
    return all(b is None or s == b for s, b in zip(shape.dims, bound.dims))


# ----------------------------------------------------------------------------------------
# Kernels' shared helpers


def to_bool(value: Any, dtype: Any) -> bool:
    """TensorFlow's ToBool for the predicate of If and While.

    A scalar is true when it is nonzero (a non-empty string); a tensor of any
    other rank is true when it has elements.

    Raises:
        InvalidArgumentError: a scalar of a type that has no truth value (resource, complex).
    """
    if type(value) is np.bool_:  # the usual predicate: a comparison's result
        return bool(value)
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.ndim:
        return arr.size > 0
    kind = arr.dtype.kind
    if kind in "biuf":
        return bool(arr != 0)
    item = arr.item()
    if isinstance(item, (str, bytes)):
        return len(item) > 0
    raise invalid_argument(f"{dtype.name} cannot be converted to a boolean")


def _check_signature(node: Operation, attr: str, fn: Any, num_args: int, num_results: int):
    """Raises InvalidArgumentError when ``fn`` cannot be called as the op calls it."""
    if not isinstance(fn, FuncGraph):
        raise invalid_argument(
            f"Attr '{attr}' of {node.type} must be a function (a FuncGraph), got "
            f"{type(fn).__name__}"
        )
    if len(fn.inputs) != num_args or len(fn.outputs) != num_results:
        raise invalid_argument(
            f"Function '{fn.name}' ({attr}) takes {len(fn.inputs)} argument(s) and returns "
            f"{len(fn.outputs)} result(s), but {node.type} '{node.name}' passes {num_args} and "
            f"expects {num_results}",
        )


def _with_output_shapes(ic, default: list) -> list:
    """The ``output_shapes`` attr as the output shapes, or ``default`` when it is empty."""
    shapes = ic.attrs["output_shapes"]
    if not shapes:
        return default
    if len(shapes) != len(default):
        raise ValueError(
            f"`output_shapes` must be the same length as num outputs ({len(shapes)} vs. "
            f"{len(default)})"
        )
    return list(shapes)


# ----------------------------------------------------------------------------------------
# If, StatelessIf

_IF_ATTRS = [
    "Tcond: type",
    "Tin: list(type) >= 0",
    "Tout: list(type) >= 0",
    "then_branch: func",
    "else_branch: func",
    "output_shapes: list(shape) = []",
]


def _if_shape(ic) -> list:
    return _with_output_shapes(ic, [unknown_shape()] * len(ic.attrs["Tout"]))


def _if_kernel(ctx, cond, input, *, Tcond, then_branch, else_branch, node):
    """Runs ``then_branch(*input)`` if ``cond`` is true, else ``else_branch(*input)``."""
    taken = to_bool(cond, Tcond)
    branch, attr = (then_branch, "then_branch") if taken else (else_branch, "else_branch")
    _check_signature(node, attr, branch, len(input), len(node.outputs))
    return _call(ctx, branch, input)  # a list output: always a sequence


def _call(ctx, fn: FuncGraph, args: list) -> list:
    """Calls ``fn``; a gradient function that replays forward ops says so to the kernels."""
    if fn.recomputes:
        return ctx.call_function_recomputing(fn, args)
    return ctx.call_function(fn, args)


register_op(
    "StatelessIf",
    inputs=["cond: Tcond", "input: Tin"],
    outputs=["output: Tout"],
    attrs=_IF_ATTRS,
    shape_fn=_if_shape,
    doc="output = cond ? then_branch(input) : else_branch(input); the branches have no "
    "side effects.",
)(_if_kernel)

register_op(
    "If",
    inputs=["cond: Tcond", "input: Tin"],
    outputs=["output: Tout"],
    attrs=_IF_ATTRS,
    shape_fn=_if_shape,
    stateful=True,
    doc="output = cond ? then_branch(input) : else_branch(input); a branch may have side "
    "effects.",
)(_if_kernel)


# ----------------------------------------------------------------------------------------
# While, StatelessWhile

_WHILE_ATTRS = [
    "T: list(type) >= 0",
    "cond: func",
    "body: func",
    "output_shapes: list(shape) = []",
    "parallel_iterations: int = 10",
]


def _while_shape(ic) -> list:
    return _with_output_shapes(ic, list(ic.input_shape("input")))


def _check_loop_cancelled(ctx, what: str) -> None:
    """A loop may run for long: it honours the run's deadline and a concurrent close()."""
    run = ctx.run
    if run.deadline is not None:
        ctx.check_deadline(what)
    if run.session.closed:
        raise errors.CancelledError(None, None, "Session has been closed.")


def _while_kernel(ctx, input, *, cond, body, node):
    """``while cond(*input): input = body(*input)``; returns the final ``input``."""
    values = list(input)
    _check_signature(node, "cond", cond, len(values), 1)
    _check_signature(node, "body", body, len(values), len(values))
    session = ctx.run.session
    pred_dtype = cond.outputs[0].dtype
    # A loop that is differentiated keeps each iteration's values for its WhileGrad in this
    # step, which then need not run the loop again (see _while_grad_kernel).
    history = [] if body in _HISTORY_WANTED else None
    if history is not None:
        ctx.step_resources[("while_history", id(body))] = (list(input), history)
    try:
        while True:
            (pred,) = ctx.call_function(cond, values)
            if not to_bool(pred, pred_dtype):
                return values
            if history is not None:
                history.append(values)
            values = ctx.call_function(body, values)
            _check_loop_cancelled(ctx, f"while loop '{node.name}' to finish")
    except errors.OpError as e:
        # close() also drops the session's resources, so an iteration running meanwhile may
        # fail on them: that failure is the cancellation.
        if session.closed and not isinstance(e, errors.CancelledError):
            raise errors.CancelledError(None, None, "Session has been closed.") from e
        raise


register_op(
    "StatelessWhile",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_WHILE_ATTRS,
    shape_fn=_while_shape,
    doc="output = input; while cond(output): output = body(output). No side effects.",
)(_while_kernel)

register_op(
    "While",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=_WHILE_ATTRS,
    shape_fn=_while_shape,
    stateful=True,
    doc="output = input; while cond(output): output = body(output). The body or cond may "
    "have side effects.",
)(_while_kernel)


# ----------------------------------------------------------------------------------------
# Building function graphs


@contextlib.contextmanager
def _building(fg: FuncGraph):
    """Builds into ``fg`` from its root scope, keeping the enclosing device (as TF's FuncGraph)."""
    with scope_context(Scope(fg, device=current_scope().device)):
        yield fg


def _peek_name(scope: Scope, base: str) -> str:
    """The name an op called ``base`` built in ``scope`` will get, without reserving it.

    TensorFlow names a cond's If op exactly like its name scope ("cond") and puts the helper
    ops under it ("cond/Identity"); looking the name up first gives both the same spelling.
    """
    check_op_name(base)
    return peek_op_name(scope, base)


def _to_inner(fg: FuncGraph, value: Any, dtype_hint: Any = None) -> Output:
    """``value`` as an Output of ``fg``: literals become constants, outer tensors are captured."""
    if isinstance(value, Output):
        out = value
    else:
        with _building(fg):
            out = convert_to_tensor(value, dtype_hint=dtype_hint)
    if out.graph is fg:
        return out
    if out.graph._is_ancestor_of(fg):
        return fg._capture(out)
    raise ValueError(
        f"Tensor {out.name} returned by function '{fg.name}' belongs to a graph that does not "
        "enclose it."
    )


def _align_captures(graphs: list[FuncGraph], num_args: int) -> None:
    """Gives every graph the same arguments: its ``num_args`` explicit ones, then one per value
    captured by any of them (in first-capture order). A graph ignores the values only the
    others use, so one op can call any of them with the same inputs."""
    union: list[Output] = []
    seen: set[Output] = set()
    for fg in graphs:
        for outer in fg.captures:
            if outer not in seen:
                seen.add(outer)
                union.append(outer)
    for fg in graphs:
        for outer in union:
            if outer not in fg.captures:
                fg._capture(outer)
        fg.inputs = fg.inputs[:num_args] + [fg.captures[o] for o in union]
        fg.captures = {o: fg.captures[o] for o in union}


def _is_stateful(graphs: list[FuncGraph]) -> bool:
    return any(op.op_def.is_stateful for g in graphs for op in g.get_operations())


def _register(graph: Graph, *functions: FuncGraph) -> None:
    root = root_graph(graph)
    for fn in functions:
        root._register_function(fn)


def _normalize_pred(pred: Output) -> Output:
    """A non-scalar predicate is squeezed, as TensorFlow's cond and while_loop do."""
    if pred.shape.rank == 0 or lookup("Squeeze") is None:
        # Without Squeeze the kernels still read a non-scalar as "has elements".
        return pred
    return build_op(current_scope(), "Squeeze", [pred]).outputs[0]


def _in_function(graph: Graph) -> bool:
    return getattr(graph, "outer_graph", None) is not None


# ----------------------------------------------------------------------------------------
# cond


def _cond_structure_error(true_out: Any, false_out: Any, detail: str) -> TypeError:
    return TypeError(
        "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
        "structure of return values.\n\n"
        f"true_fn output: {true_out!r}\nfalse_fn output: {false_out!r}\n\n"
        f"Error details:\n{detail}"
    )


def _build_branch(name: str, fn: Callable, outer: Graph) -> tuple[FuncGraph, Any, list]:
    """Calls ``fn`` inside a new FuncGraph; returns it, fn's result and the flat converted leaves
    (an Output of the branch, an Operation built in it, or None)."""
    fg = FuncGraph(name=name, outer_graph=outer)
    with _building(fg):
        structured = fn()
    leaves: list = []
    for value in _flatten(structured):
        if value is None:
            leaves.append(None)
        elif isinstance(value, Operation):
            if value.graph is not fg:
                raise ValueError(
                    f"Operation '{value.name}' returned by a tf.cond branch must be built inside "
                    "the branch function"
                )
            leaves.append(value)
        else:
            leaves.append(_to_inner(fg, value))
    fg.finalize_function([v for v in leaves if isinstance(v, Output)])
    for value in leaves:
        # A returned op runs whenever the branch is taken, even when it is not stateful.
        if isinstance(value, Operation) and value not in fg.control_outputs:
            fg.control_outputs.append(value)
    return fg, structured, leaves


def cond(
    pred: Any,
    true_fn: Callable | None = None,
    false_fn: Callable | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable | None = None,
    fn2: Callable | None = None,
) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``, as one If op (``tf.compat.v1.cond``).

    Each function is traced into its own sub-graph; at run time only the taken branch runs,
    including its stateful ops. Tensors of the enclosing graphs that a branch uses are
    captured and passed to the If op. Nested conds and conds in loop bodies work.

    Example::

        r = tm.cond(x < y, lambda: x * 17, lambda: y + 23)

    Args:
        pred: A scalar tensor (any non-bool scalar is true when nonzero; a non-scalar is
            squeezed when tfmini has Squeeze, and is true when it has elements). A Python
            bool simply calls the taken function and returns its result, building no If op.
        true_fn: Called without arguments; returns a tensor, an Operation, None, a literal, or
            a nested list/tuple/namedtuple/dict of those.
        false_fn: Same, with the same structure and dtypes as ``true_fn``'s result.
        strict: Accepted for compatibility; as in TF2's cond_v2, a one-element list stays a list.
        name: Name of the If op (default "cond"); helper ops go under ``<name>/``.
        fn1: Deprecated spelling of ``true_fn``.
        fn2: Deprecated spelling of ``false_fn``.

    Returns:
        The taken branch's values in the branches' structure: a tensor for each tensor, the
        If Operation where a branch returned an Operation, None where they returned None.

    Raises:
        TypeError: a function is missing or not callable, or the branches' results differ in
            structure, kind or dtype.
        ValueError: ``name`` is not a valid op name.
    """
    del strict  # cond_v2 ignores it; see Args.
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, bool):
        return true_fn() if pred else false_fn()

    scope = current_scope()
    graph = scope.graph
    base = name or "cond"
    op_name = _peek_name(scope, base)
    with name_scope(op_name + "/"):
        pred = _normalize_pred(convert_to_tensor(pred))
    fn_prefix = op_name.replace("/", "_")
    true_graph, true_out, true_leaves = _build_branch(
        f"{fn_prefix}_true_{next(_uids)}", true_fn, graph
    )
    false_graph, false_out, false_leaves = _build_branch(
        f"{fn_prefix}_false_{next(_uids)}", false_fn, graph
    )

    try:
        _assert_same_structure(true_out, false_out)
    except (TypeError, ValueError) as e:
        raise _cond_structure_error(true_out, false_out, str(e)) from None
    shapes = []
    for t, f in zip(true_leaves, false_leaves):
        kinds = (type(t).__name__, type(f).__name__)
        if isinstance(t, Output) and isinstance(f, Output):
            if t.dtype != f.dtype:
                raise _cond_structure_error(
                    true_out, false_out, f"{t!r} and {f!r} have different types"
                )
            shapes.append(_most_specific_compatible_shape(t.shape, f.shape))
        elif kinds[0] != kinds[1]:
            raise _cond_structure_error(
                true_out, false_out, f"{t!r} and {f!r} are not both {kinds[0]}"
            )

    _align_captures([true_graph, false_graph], 0)
    inputs = true_graph.outer_values()
    _register(graph, true_graph, false_graph)
    op = build_op(
        scope,
        "If" if _is_stateful([true_graph, false_graph]) else "StatelessIf",
        [pred, inputs],
        {
            "Tout": [o.dtype for o in true_graph.outputs],
            "then_branch": true_graph,
            "else_branch": false_graph,
            "output_shapes": shapes,
        },
        name=base,
    )
    # Identities over the outputs, as cond_v2 adds them: the results are named "cond/Identity".
    with name_scope(op.name + "/"):
        outputs = iter([identity(o) for o in op.outputs])
    results = []
    for leaf in true_leaves:
        if isinstance(leaf, Output):
            results.append(next(outputs))
        else:
            results.append(op if isinstance(leaf, Operation) else None)
    return _pack_as(true_out, results)


# ----------------------------------------------------------------------------------------
# Case, StatelessCase, switch_case, case, Assert

_CASE_ATTRS = [
    "Tin: list(type) >= 0",
    "Tout: list(type) >= 0",
    "branches: list(func) >= 1",
    "output_shapes: list(shape) = []",
]


def _case_shape(ic) -> list:
    shape_fns.with_rank(ic.input_shape(0), 0)
    return _with_output_shapes(ic, [unknown_shape()] * len(ic.attrs["Tout"]))


def _case_kernel(ctx, branch_index, input, *, branches, node):
    """Runs ``branches[branch_index](*input)``; an index out of range runs the last branch."""
    index = int(np.asarray(branch_index).reshape(()))
    if index < 0 or index >= len(branches):
        index = len(branches) - 1  # as TensorFlow's CaseOp: the last branch is the default
    branch = branches[index]
    _check_signature(node, f"branches[{index}]", branch, len(input), len(node.outputs))
    return _call(ctx, branch, input)


register_op(
    "StatelessCase",
    inputs=["branch_index: int32", "input: Tin"],
    outputs=["output: Tout"],
    attrs=_CASE_ATTRS,
    shape_fn=_case_shape,
    doc="output = branches[branch_index](input) (the last branch when the index is out of "
    "range); no side effects.",
)(_case_kernel)

register_op(
    "Case",
    inputs=["branch_index: int32", "input: Tin"],
    outputs=["output: Tout"],
    attrs=_CASE_ATTRS,
    shape_fn=_case_shape,
    stateful=True,
    doc="output = branches[branch_index](input) (the last branch when the index is out of "
    "range); a branch may have side effects.",
)(_case_kernel)


def _format_float(x: Any) -> str:
    # As TensorFlow's FloatToBuffer/DoubleToBuffer (tsl/platform/numbers.cc): the shortest of
    # 6 (float) or 15 (double) significant digits when it reads back the same, else 9 or 17.
    short, full = (15, 17) if x.dtype == np.float64 else (6, 9)
    text = f"{x:.{short}g}"
    if x.dtype.type(text) != x and not np.isnan(x):
        text = f"{x:.{full}g}"
    return {"inf": "inf", "-inf": "-inf"}.get(text, text)


_C_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
              ord("'"): "\\'", ord("\\"): "\\\\"}


def _c_escape(data: bytes) -> str:
    # absl::CEscape, as TensorFlow prints string tensors: quotes and backslashes escaped,
    # bytes outside printable ASCII as three octal digits.
    return "".join(_C_ESCAPES.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                   for b in data)


def _format_assert_item(x: Any) -> str:
    if isinstance(x, (bytes, str)):
        return _c_escape(x if isinstance(x, bytes) else x.encode())
    if isinstance(x, np.floating):
        return _format_float(x if x.dtype in (np.float32, np.float64) else np.float32(x))
    return str(x)


def _format_assert_data(values: list, summarize: int) -> str:
    # As TensorFlow's Assert kernel (core/kernels/logging_ops.cc, Tensor::SummarizeValue):
    # each tensor in brackets, bools as 0/1, floats with the digits TensorFlow prints.
    parts = []
    for v in values:
        arr = np.asarray(v)
        flat = arr.ravel()
        if arr.dtype.kind == "b":
            flat = flat.astype(np.int8)
        shown = flat[:summarize] if summarize >= 0 else flat
        text = " ".join(_format_assert_item(x) for x in shown)
        if summarize >= 0 and flat.size > summarize:
            text += "..."
        parts.append(f"[{text}]")
    return " ".join(parts)


@register_op(
    "Assert",
    inputs=["condition: bool", "data: T"],
    outputs=[],
    attrs=["T: list(type) >= 0", "summarize: int = 3"],
    shape_fn=lambda ic: (shape_fns.with_rank(ic.input_shape(0), 0), [])[1],
    stateful=True,
    doc="Fails with InvalidArgumentError showing `data` when `condition` is false.",
)
def _assert_kernel(condition, data, *, summarize):
    if not bool(np.asarray(condition)):
        raise invalid_argument(f"assertion failed: {_format_assert_data(list(data), summarize)}")


def Assert(condition: Any, data: list, summarize: int | None = None,  # noqa: N802
           name: str | None = None) -> Operation:
    """An op failing the run with ``data`` when ``condition`` is false (``tf.debugging.Assert``).

    Args:
        condition: A boolean scalar.
        data: Tensors (or literals) shown in the error.
        summarize: How many entries of each tensor to show (default 3).
        name: Name of the op (default "Assert").

    Returns:
        The Assert Operation (use it as a control dependency).
    """
    with name_scope(name, "Assert"):
        values = [convert_to_tensor(d) for d in data]
        return build_op(current_scope(), "Assert",
                        [convert_to_tensor(condition), values],
                        {"summarize": 3 if summarize is None else summarize}, name="Assert")


def _stack_bools(predicates: list, name: str) -> Output:
    packed = build_op(current_scope(), "Pack", [list(predicates)], {"axis": 0}, name=name)
    return packed.outputs[0]


def _assert_at_most_n_true(predicates: list, n: int, msg: str) -> Operation:
    preds_c = _stack_bools(predicates, "preds_c")
    as_int = build_op(current_scope(), "Cast", [preds_c], {"DstT": int32}).outputs[0]
    count = build_op(current_scope(), "Sum", [as_int, np.int32(0)],
                     name="num_true_conds").outputs[0]
    limit = constant(n, dtype=int32, name="n_true_conds")
    ok = build_op(current_scope(), "LessEqual", [count, limit]).outputs[0]
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    return Assert(ok, [f"{msg}: more than {n} conditions ({names}) evaluated as True:",
                       preds_c], summarize=len(predicates))


def _case_args(pred_fn_pairs: Any) -> tuple[list, list]:
    if not isinstance(pred_fn_pairs, (list, builtins.tuple, Mapping)):
        raise TypeError("'pred_fn_pairs' must be a list, tuple, or dict. "
                        f"Received: {type(pred_fn_pairs)}")
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, Mapping) \
        else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Output):
            if pred.dtype.name != "bool":
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    return [p for p, _ in pairs], [f for _, f in pairs]


def case(pred_fn_pairs: Any, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """The result of the first function whose predicate is true (``tf.compat.v1.case``).

    Built as TensorFlow builds it: nested conds, the first predicate outermost. Without a
    ``default`` the last pair is the default, guarded by Asserts that fail the run when no
    predicate is true. With ``exclusive`` an Assert fails the run when more than one is.

    Args:
        pred_fn_pairs: A list of (boolean scalar tensor, callable) pairs (or a dict).
        default: Called when no predicate is true.
        exclusive: Whether at most one predicate may be true.
        strict: Passed to cond (no effect, as there).
        name: Name scope (default "case").

    Returns:
        The chosen function's result.

    Raises:
        TypeError: malformed pairs, a non-bool predicate, or a function not callable.
    """
    predicates, actions = _case_args(pred_fn_pairs)
    with name_scope(name, "case"):
        if default is None:
            k = len(predicates) - 1
            predicate, action = predicates[k], actions[k]
            others, other_actions = predicates[:k], actions[:k]
            all_predicates = list(predicates)

            def default_action(predicate=predicate, action=action, others=others, k=k):
                others_msg = (f"Implementation error: selected default action #{k} was "
                              "called, but some of other predicates are True: ")
                checks = [
                    _assert_at_most_n_true(others, 0, others_msg),
                    Assert(predicate, ["Input error: None of conditions evaluated as True:",
                                       _stack_bools(all_predicates, "preds_c")]),
                ]
                with control_dependencies(checks):
                    return action()

            default, predicates, actions = default_action, others, other_actions
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = _partial_cond(predicate, action, fn, strict)
        if exclusive:
            with control_dependencies(
                    [_assert_at_most_n_true(predicates, 1, "Input error: exclusive=True")]):
                return fn()
        return fn()


def _partial_cond(pred: Output, true_fn: Callable, false_fn: Callable, strict: bool):
    return lambda: cond(pred, true_fn=true_fn, false_fn=false_fn, strict=strict)


def _switch_case_args(branch_fns: Any, default: Callable | None, branch_index: Any) -> list:
    if not isinstance(branch_index, Output):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, builtins.tuple, Mapping)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, Mapping) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        found = ",".join(map(str, sorted(keys)))
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
            f"{{{found}}}"
        )
    actions = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None,
                name: str = "switch_case") -> Any:
    """``branch_fns[branch_index]()`` as one Case op (``tf.switch_case``).

    Every function is traced into a branch function; at run time only the chosen one runs.
    An index out of range runs ``default`` (or, without one, the last branch), as
    TensorFlow's Case kernel does.

    Args:
        branch_index: An int32 scalar tensor.
        branch_fns: A list of callables, of (int, callable) pairs, or a dict int -> callable,
            with keys 0..n-1.
        default: Called for an index out of range.
        name: Name scope (default "switch_case"); the op is "<name>/indexed_case".

    Returns:
        The chosen function's result (the branches' common structure).

    Raises:
        TypeError: ``branch_index`` not an integer tensor, malformed or uncallable branches,
            or branches returning different structures or dtypes.
        ValueError: no branches, or keys not 0..n-1.
    """
    actions = _switch_case_args(branch_fns, default, branch_index)
    with name_scope(name, "switch_case"):
        return _indexed_case(branch_index, actions)


def _indexed_case(branch_index: Output, actions: list) -> Any:
    scope = current_scope()
    graph = scope.graph
    op_name = _peek_name(scope, "indexed_case")
    fn_prefix = op_name.replace("/", "_")
    built = [_build_branch(f"{fn_prefix}_branch{b}_{next(_uids)}", fn, graph)
             for b, fn in enumerate(actions)]
    graphs = [b[0] for b in built]
    first_out, first_leaves = built[0][1], built[0][2]
    shapes: list = []
    for j, (_, out, leaves) in enumerate(built[1:], start=1):
        try:
            _assert_same_structure(first_out, out)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"branches[0] and branches[{j}] arguments to tf.switch_case must have the same "
                "number, type, and overall structure of return values.\n\n"
                f"branches[0] output: {first_out!r}\nbranches[{j}] output: {out!r}\n\n"
                f"Error details:\n{e}"
            ) from None
        for a, b in zip(first_leaves, leaves):
            if isinstance(a, Output) and isinstance(b, Output) and a.dtype != b.dtype:
                raise TypeError(
                    f"branches[0] and branches[{j}] arguments to tf.switch_case must have the "
                    f"same number, type, and overall structure of return values: {a!r} and "
                    f"{b!r} have different types"
                )
    outs = [o for o in first_leaves if isinstance(o, Output)]
    for k, o in enumerate(outs):
        shape = o.shape
        for fg in graphs[1:]:
            shape = _most_specific_compatible_shape(shape, fg.outputs[k].shape)
        shapes.append(shape)
    _align_captures(graphs, 0)
    inputs = graphs[0].outer_values()
    _register(graph, *graphs)
    with name_scope(op_name + "/"):
        index = convert_to_tensor(branch_index, name="branch_index")
    op = build_op(
        scope,
        "Case" if _is_stateful(graphs) else "StatelessCase",
        [index, inputs],
        {"Tout": [o.dtype for o in graphs[0].outputs], "branches": graphs,
         "output_shapes": shapes},
        name="indexed_case",
    )
    with name_scope(op.name + "/"):
        outputs = iter([identity(o) for o in op.outputs])
    results = []
    for leaf in first_leaves:
        if isinstance(leaf, Output):
            results.append(next(outputs))
        else:
            results.append(op if isinstance(leaf, Operation) else None)
    return _pack_as(first_out, results)


# ----------------------------------------------------------------------------------------
# while_loop


def _shape_invariants(loop_vars: Any, flat_vars: list[Output], invariants: Any) -> list:
    if invariants is None:
        return [v.shape for v in flat_vars]
    _assert_same_structure(loop_vars, invariants, check_types=False)
    result = []
    for var, shape in zip(flat_vars, _flatten(invariants)):
        if shape is None:
            shape = var.shape
        elif not isinstance(shape, TensorShape):
            raise TypeError(
                f"'shape' must be one of TypeSpec, TensorShape or None. Received: {type(shape)}"
            )
        if not _shape_less_than_or_equal(var.shape, shape):
            raise ValueError(
                f"The shape invariant specified for {var.name} is not compatible with the initial "
                f"shape of the loop variable. It enters the loop with shape {var.shape}, but the "
                f"specified shape invariant is {shape}."
            )
        result.append(shape)
    return result


def _is_tensor_array(x: Any) -> bool:
    # A TensorArray (tfmini/ops/data_flow/tensor_array.py, a family this module must not
    # import) travels through a loop as its flow scalar, the handle staying outside.
    return hasattr(x, "_with_flow") and hasattr(x, "flow")


def _to_loop_values(flat: list) -> list:
    return [v.flow if _is_tensor_array(v) else v for v in flat]


def _from_loop_values(templates: list, values: list) -> list:
    return [t._with_flow(v) if _is_tensor_array(t) else v for t, v in zip(templates, values)]


def _call_with_loop_vars(fn: Callable, loop_vars: Any, args: list) -> Any:
    # As TensorFlow: a list or tuple of loop variables is spread over the parameters; a single
    # tensor or a dict is passed as one argument.
    packed = _pack_as(loop_vars, _from_loop_values(_flatten(loop_vars), args))
    if isinstance(loop_vars, (list, builtins.tuple)):
        return fn(*packed)
    return fn(packed)


def while_loop(
    cond: Callable,
    body: Callable,
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """Repeats ``body`` while ``cond`` is true, as one While op (``tf.compat.v1.while_loop``).

    ``cond`` and ``body`` are traced once into sub-graphs taking the loop variables (spread
    over their parameters when ``loop_vars`` is a list or tuple); tensors of enclosing graphs
    they use are captured and passed along unchanged through the iterations.

    Example::

        i, acc = tm.while_loop(lambda i, acc: i < 10, lambda i, acc: (i + 1, acc * 2.0),
                               [0, tm.constant(1.0)])

    Args:
        cond: Returns a boolean scalar tensor (or a value convertible to one).
        body: Returns the new loop variables in ``loop_vars``' structure (a single value when
            there is one loop variable in a list). Python literals are converted with the
            dtype of the loop variable they replace.
        loop_vars: A tensor, literal, or nested list/tuple/namedtuple/dict of them.
        shape_invariants: TensorShapes (or None) in ``loop_vars``' structure: the shapes the
            loop variables may take across iterations. By default a variable keeps its shape.
        parallel_iterations: Kept in the op's attr; iterations run one after another.
        back_prop: When False the results pass through StopGradient.
        swap_memory: Accepted for compatibility; no effect.
        name: Name of the While op (default "while"); helper ops go under ``<name>/``.
        maximum_iterations: An int32 scalar bounding the number of iterations; adds a counter
            and the bound as the first two loop variables, as TensorFlow does.
        return_same_structure: When False, a single flat loop variable is returned bare.

    Returns:
        The loop variables after the last iteration, in ``loop_vars``' structure.

    Raises:
        TypeError: ``cond``/``body`` not callable, ``parallel_iterations`` < 1, a loop variable
            changes dtype, or a shape invariant is not a TensorShape.
        ValueError: ``body`` returns another structure, a loop variable changes its static
            shape beyond its invariant, or an invariant does not fit the initial value.
    """
    del swap_memory  # values live in NumPy arrays; there is no device memory to swap
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")

    scope = current_scope()
    graph = scope.graph
    flat_vars = [convert_to_tensor(v) for v in _to_loop_values(_flatten(loop_vars))]
    invariants = _shape_invariants(loop_vars, flat_vars, shape_invariants)
    base = name or "while"
    op_name = _peek_name(scope, base)
    counter_vars: list[Output] = []
    with name_scope(op_name + "/"):
        if maximum_iterations is not None:
            limit = convert_to_tensor(maximum_iterations, dtype=int32, name="maximum_iterations")
            if limit.shape.rank not in (0, None):
                raise ValueError(
                    f"'maximum_iterations' must be a scalar. Received shape: {limit.shape}"
                )
            counter = constant(0, dtype=int32, name="loop_counter")
            counter_vars = [counter, limit]
    all_vars = counter_vars + flat_vars
    all_shapes = [v.shape for v in counter_vars] + invariants
    first = len(counter_vars)

    fn_prefix = op_name.replace("/", "_")
    cond_graph = FuncGraph(name=f"{fn_prefix}_cond_{next(_uids)}", outer_graph=graph)
    body_graph = FuncGraph(name=f"{fn_prefix}_body_{next(_uids)}", outer_graph=graph)

    def add_args(fg: FuncGraph) -> list[Output]:
        names = ["loop_counter", "maximum_iterations"][:first] + ["loop_var"] * len(flat_vars)
        return [fg.add_argument(v.dtype, s, name=n) for v, s, n in zip(all_vars, all_shapes, names)]

    with _building(cond_graph):
        args = add_args(cond_graph)
        pred = _call_with_loop_vars(cond, loop_vars, args[first:])
        pred = _normalize_pred(_to_inner(cond_graph, pred))
        if first:
            in_range = build_op(current_scope(), "Less", [args[0], args[1]]).outputs[0]
            pred = build_op(current_scope(), "LogicalAnd", [in_range, pred]).outputs[0]

    with _building(body_graph):
        args = add_args(body_graph)
        result = _call_with_loop_vars(body, loop_vars, args[first:])
        if isinstance(loop_vars, (list, builtins.tuple)) and not _is_nested(result):
            result = [result]
        _assert_same_structure(result, loop_vars, check_types=False)
        new_vars = []
        for value, var, shape in zip(_to_loop_values(_flatten(result)), flat_vars, invariants):
            out = _to_inner(body_graph, value, dtype_hint=var.dtype)
            if out.dtype != var.dtype:
                raise TypeError(
                    f"Loop var {var.name} enters the loop with type {var.dtype} but has type "
                    f"{out.dtype} after 1 iteration. {var.name} type should remain constant."
                )
            if not _shape_less_than_or_equal(out.shape, shape):
                raise ValueError(
                    f"Input tensor `{var.name}` enters the loop with shape {shape}, but has "
                    f"shape {out.shape} after one iteration. To allow the shape to vary across "
                    "iterations, use the `shape_invariants` argument of tf.while_loop to "
                    "specify a less-specific shape."
                )
            new_vars.append(out)
        if first:
            step = build_op(current_scope(), "AddV2", [args[0], np.int32(1)]).outputs[0]
            new_vars = [step, args[1]] + new_vars

    num_args = len(all_vars)
    _align_captures([cond_graph, body_graph], num_args)
    cond_graph.finalize_function([pred])
    body_graph.finalize_function(new_vars + body_graph.inputs[num_args:])
    _register(graph, cond_graph, body_graph)

    output_shapes = [o.shape for o in body_graph.outputs]
    output_shapes[first:num_args] = invariants
    op = build_op(
        scope,
        "While" if _is_stateful([cond_graph, body_graph]) else "StatelessWhile",
        [all_vars + body_graph.outer_values()],
        {
            "cond": cond_graph,
            "body": body_graph,
            "output_shapes": output_shapes,
            "parallel_iterations": parallel_iterations,
        },
        name=base,
    )
    outputs = list(op.outputs)
    if not _in_function(graph):
        # As while_v2 in a TF1 graph: identities name the results "while/Identity_<i>".
        with name_scope(op.name + "/"):
            outputs = [identity(o) for o in outputs]
    results = outputs[first:num_args]
    if not back_prop:
        results = [stop_gradient(o) for o in results]
    packed = _pack_as(loop_vars, _from_loop_values(_flatten(loop_vars), results))
    if return_same_structure:
        return packed
    flat = _flatten(packed)
    return flat[0] if len(flat) == 1 else packed


# ----------------------------------------------------------------------------------------
# group, tuple


def group(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that runs after all ``inputs`` (``tf.group``): a NoOp with control inputs on them.

    Inputs on several devices get one NoOp per device, which the returned NoOp waits for.

    Args:
        *inputs: Tensors, Operations or variables, or nested lists of them.
        name: (keyword only) Name of the returned NoOp (default "group_deps").

    Returns:
        The NoOp Operation.

    Raises:
        TypeError: an input is not a tensor or op.
        ValueError: an unknown keyword argument.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    base = name or "group_deps"
    if not inputs:
        return no_op(name=base)
    by_device: dict[str, list] = {}
    for inp in _flatten(list(inputs)):
        if not hasattr(inp, "device"):
            raise TypeError(
                "'inputs' should be zero or more (nested) Tensors. "
                f"Received '{inp}' with type '{type(inp)}'."
            )
        by_device.setdefault(inp.device or "", []).append(inp)
    if len(by_device) == 1:
        ((dev, deps),) = by_device.items()
        return _group_on(dev, deps, base)
    # One NoOp per device under "<name>/", then the named NoOp waiting for those.
    op_name = _peek_name(current_scope(), base)
    with name_scope(op_name + "/"):
        per_device = [_group_on(dev, by_device[dev], None) for dev in sorted(by_device)]
    with control_dependencies(per_device):
        return no_op(name=base)


def _group_on(dev: str, deps: list, name: str | None) -> Operation:
    with control_dependencies(deps), device(dev) if dev else contextlib.nullcontext():
        return no_op(name=name)


def tuple(  # noqa: A001  (TensorFlow's name; this module uses builtins.tuple)
    tensors: list, name: str | None = None, control_inputs: list | None = None
) -> list:
    """The ``tensors``, each available only after all are computed (``tf.tuple``).

    Each tensor is passed through an Identity that waits for a NoOp grouping every tensor's
    op (and ``control_inputs``); an Operation is replaced by a NoOp waiting for that group.

    Args:
        tensors: Tensors, Operations, convertible values or None.
        name: Name scope for the new ops (default "tuple").
        control_inputs: Further Operations or Tensors to wait for.

    Returns:
        A list with a tensor (or op, or None) per entry of ``tensors``.

    Raises:
        TypeError: a control input is not an Operation or Tensor.
        ValueError: ``tensors`` holds no tensor or op.
    """
    with name_scope(name, "tuple"):
        items = [
            t if t is None or isinstance(t, (Output, Operation)) else convert_to_tensor(t)
            for t in tensors
        ]
        gating = [t if isinstance(t, Operation) else t.op for t in items if t is not None]
        for c in control_inputs or ():
            if isinstance(c, Output):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(
                    f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}"
                )
            gating.append(c)
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        result: list = []
        for t in items:
            if isinstance(t, Output):
                on_device = device(t.device) if t.device else contextlib.nullcontext()
                with control_dependencies([gate]), on_device:
                    result.append(identity(t, name="control_dependency"))
            elif isinstance(t, Operation):
                with control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None)
    return result


# ----------------------------------------------------------------------------------------
# WhileGrad: tfmini's gradient op for While (built by tfmini/control_flow_grad.py)

# The body functions of loops that have a gradient: their While keeps its iterations.
_HISTORY_WANTED: weakref.WeakSet = weakref.WeakSet()


def keep_iterations(body: FuncGraph) -> None:
    """Makes the While calling ``body`` keep its iterations for its WhileGrad in each step."""
    _HISTORY_WANTED.add(body)



def _while_grad_shape(ic) -> list:
    shapes = ic.attrs["output_shapes"]
    return list(shapes) if shapes else [unknown_shape()] * len(ic.attrs["Tgrad"])


@register_op(
    "WhileGrad",
    inputs=["input: T", "grad: Tgrad"],
    outputs=["output: Tgrad"],
    attrs=[
        "T: list(type) >= 0",
        "Tgrad: list(type) >= 0",
        "cond: func",
        "body: func",
        "body_grad: func",
        "output_shapes: list(shape) = []",
    ],
    shape_fn=_while_grad_shape,
    doc="tfmini's gradient of a While (TensorFlow has no such op: its gradient is another While "
    "over stacks the forward loop fills). Re-runs the loop from `input` keeping every "
    "iteration's values, then maps `grad` back through body_grad(values, grad) from the last "
    "iteration to the first. The loop only reads state (bodies with side effects are refused).",
)
def _while_grad_kernel(ctx, input, grad, *, cond, body, body_grad, node):
    """Returns the gradients of the While's differentiable inputs (see the op's doc)."""
    values = list(input)
    pred_dtype = cond.outputs[0].dtype
    recorded = ctx.step_resources.get(("while_history", id(body)))
    if recorded is not None and len(recorded[0]) == len(values) and all(
            a is b for a, b in zip(recorded[0], values)):
        # The forward loop ran in this step on these very inputs: use its iterations.
        history = list(recorded[1])
        values = None
    else:
        history = []
    while values is not None:
        (pred,) = ctx.call_function_recomputing(cond, values)
        if not to_bool(pred, pred_dtype):
            break
        history.append(values)
        # A replay of the forward loop: per-step resources it wrote hold their values.
        values = ctx.call_function_recomputing(body, values)
        _check_loop_cancelled(ctx, f"while loop gradient '{node.name}' to finish")
    grads = list(grad)
    while history:
        grads = _call(ctx, body_grad, history.pop() + grads)
        _check_loop_cancelled(ctx, f"while loop gradient '{node.name}' to finish")
    return grads


# Family-internal helpers other families and the gradients layer use (imported by name).
flatten_structure = _flatten
pack_structure = _pack_as
assert_same_structure = _assert_same_structure

__all__ = ["Assert", "case", "cond", "group", "switch_case", "tuple", "while_loop"]
