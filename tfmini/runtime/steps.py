"""Steps: one op of a plan bound to its kernel, and the one protocol for calling it.

Every executor calls a kernel the same way, and that way is written here once:

1. **Arguments** (``Step.arguments``): the kernel context of the step's device first, when
   the kernel asks for ``ctx``; then one value per input argument, a list for a list argument.
   Attrs are already bound into ``Step.fn`` (``bind_kernel``), as is the dereference of a
   reference output feeding an ordinary input (``_with_deref``).
2. **Call and results** (``Step.call``): the kernel returns a sequence when the op has
   several output arguments or a list output, unpacked exactly as ``a, b, = ...`` would be
   (``unpack``); otherwise the value itself. ``Step.store`` puts the results the plan needs
   into their slots.
3. **Failure** (``raise_kernel_error``): the exception becomes the matching ``tm.errors``
   class naming op type, op name, device, input shapes/dtypes and where the op was defined,
   chained to the original. A failure that already names its op (raised inside a function
   the kernel called, e.g. a cond branch) goes up as it is.
4. **Undo** is not the step's business: a stateful kernel registers it with
   ``ctx.on_failure`` and ``Session`` rolls the whole run back when any step fails.

The compiled executor emits (1) and (2) as one generated line per step (``codegen``) so the
fast path is a local-variable call; ``tests/runtime/test_plan.py`` checks that it and the
stepwise executor agree, including on malformed results. All three executors share (3).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from tfmini import errors
from tfmini.core.graph import Operation, Output
from tfmini.core.opdef import Kernel, arg_slices
from tfmini.core.shapes import dims_str

# Python exceptions a kernel may raise, and the tm.errors class each becomes (first match).
_PY_TO_TF = (
    (errors.OpError, None),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
    (StopIteration, errors.OutOfRangeError),
    ((ValueError, TypeError, IndexError, ArithmeticError, KeyError), errors.InvalidArgumentError),
)


class Step:
    """One op of a plan, bound to its kernel, its value slots and its device.

    Attributes:
        op: The Operation.
        fn: The kernel with the op's attrs bound (called as ``fn(ctx?, *inputs)``).
        takes_ctx: Whether ``fn`` takes the kernel context first.
        inputs: One entry per input argument: a slot, or a list of slots for a list argument.
        outputs: A slot per op output; -1 where nobody needs the value.
        device_index: Index of the step's device in the plan's device list.
        device: That device's name (for error messages).
        sequence: Whether the kernel returns a sequence of results (see module docstring).
        blocking: Whether the step may wait (runs on its own thread in the dataflow executor).
        lineno: The step's line in the generated source (0 until code is generated).
        fused: The op run inside this one (``graph_rewrite``'s remapping: the step reads
            that op's inputs), or None.
        note: What the generated line's comment adds (a step standing for several ops).
    """

    __slots__ = (
        "op", "fn", "takes_ctx", "inputs", "outputs", "device_index", "device", "lineno",
        "sequence", "blocking", "fused", "note",
    )

    def __init__(self, op: Operation, fn: Any, takes_ctx: bool, inputs: list, outputs: list[int],
                 device_index: int, device: str, blocking: bool = False):
        self.op = op
        self.sequence: bool = len(op.op_def.outputs) > 1 or any(
            a.is_list for a in op.op_def.outputs
        )
        self.fn = fn
        self.takes_ctx = takes_ctx
        self.inputs: list[int | list[int]] = inputs
        self.outputs = outputs
        self.device_index = device_index
        self.device = device
        self.blocking = blocking
        self.lineno = 0
        self.fused: Operation | None = None
        self.note = ""

    def arguments(self, ctxs: Sequence[Any], values: Sequence[Any]) -> list:
        """The kernel's positional arguments, reading input values from ``values`` (by slot)."""
        args = [[values[x] for x in s] if isinstance(s, list) else values[s] for s in self.inputs]
        if self.takes_ctx:
            args.insert(0, ctxs[self.device_index])
        return args

    def call(self, args: Sequence[Any]) -> tuple:
        """Calls the kernel: one result per op output (an op without outputs gives ``()``)."""
        result = self.fn(*args)
        if self.sequence:
            return unpack(result, len(self.outputs))
        return (result,) if self.outputs else ()

    def store(self, results: Sequence[Any], values: list) -> None:
        """Puts the results the plan needs into their slots of ``values``."""
        for slot, v in zip(self.outputs, results):
            if slot >= 0:
                values[slot] = v

    def input_values(self, args: Sequence[Any]) -> list:
        """The flat input values in ``args`` (as ``arguments`` built them), for error messages."""
        return [v for a in args[1 if self.takes_ctx else 0:]
                for v in (a if isinstance(a, list) else [a])]


def input_groups(op: Operation) -> list[int | slice]:
    """Per input argument: the flat input index, or a slice for list arguments."""
    return arg_slices(op.op_def.inputs, op.attrs)


def bind_kernel(op: Operation, kernel: Kernel) -> Any:
    """``kernel.fn`` with the attrs it names (and ``node``, when it asks) bound as keywords,
    plus the dereference of reference outputs feeding its ordinary inputs."""
    if kernel.attr_names is None:
        wanted = dict(op.attrs)
    else:
        wanted = {k: op.attrs[k] for k in kernel.attr_names if k in op.attrs}
    if kernel.wants_node and "node" not in op.attrs:
        wanted["node"] = op  # kernels that need their op's name ask for `node`
    fn = functools.partial(kernel.fn, **wanted) if wanted else kernel.fn
    deref = _deref_positions(op)
    # Only steps that read a reference through an ordinary input pay for the wrapper.
    return _with_deref(fn, kernel.takes_ctx, deref) if deref else fn


def _output_is_ref(output: Output) -> bool:
    """Whether ``output`` comes from a reference (``Ref(T)``) output argument."""
    op = output.op
    k = output.value_index
    for arg, where in zip(op.op_def.outputs, arg_slices(op.op_def.outputs, op.attrs)):
        if where == k or (isinstance(where, slice) and where.start <= k < where.stop):
            return arg.is_ref
    return False


def reads_reference(op: Operation) -> bool:
    """Whether ``op`` reads a variable's reference: its value then depends on when it runs."""
    if any(arg.is_ref for arg in op.op_def.inputs):
        return True
    # Only an op with a reference output argument can hand one over: checked first, cheaply.
    return any(any(a.is_ref for a in i.op.op_def.outputs) and _output_is_ref(i)
               for i in op.inputs)


def _deref_positions(op: Operation) -> list[tuple[int, list[int] | None]]:
    """Input arguments that are not references but receive a reference output: TensorFlow
    hands such an input the variable's current value, so the kernel gets ``_tm_deref()``."""
    positions = []
    for pos, (arg, g) in enumerate(zip(op.op_def.inputs, input_groups(op))):
        if arg.is_ref:
            continue
        if isinstance(g, slice):
            elems = [j for j, t in enumerate(op.inputs[g]) if _output_is_ref(t)]
            if elems:
                positions.append((pos, elems))
        elif _output_is_ref(op.inputs[g]):
            positions.append((pos, None))
    return positions


def _with_deref(fn, takes_ctx: bool, positions: list[tuple[int, list[int] | None]]):
    offset = 1 if takes_ctx else 0

    def call(*args):
        args = list(args)
        for pos, elems in positions:
            a = args[pos + offset]
            if elems is None:
                args[pos + offset] = a._tm_deref()
            else:
                args[pos + offset] = [x._tm_deref() if j in elems else x for j, x in enumerate(a)]
        return fn(*args)

    return call


def unpack(result: Any, n: int) -> tuple:
    """``a, b, = result`` as a function, with Python's messages: the compiled plan unpacks a
    kernel's results that way, and the other executors must fail (or not) exactly as it does."""
    try:
        items = tuple(result)
    except TypeError:
        raise TypeError(f"cannot unpack non-iterable {type(result).__name__} object") from None
    if len(items) > n:
        raise ValueError(f"too many values to unpack (expected {n})")
    if len(items) < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
    return items


def _describe_value(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype.name}{dims_str(v.shape)}"
    if isinstance(v, np.generic):
        return f"{np.asarray(v).dtype.name}[]"
    if v is None:
        return "?"
    return type(v).__name__


def _message_of(e: BaseException) -> str:
    """``"Type: text"`` for an exception; an exception whose ``__str__`` itself fails must
    not hide the failure behind a new one, so its type (and repr, if that works) stands in."""
    try:
        return f"{type(e).__name__}: {e}"
    except Exception as inner:
        try:
            shown = object.__repr__(e)
        except Exception:
            shown = type(e).__name__
        return (
            f"{type(e).__name__} (its message could not be formatted: "
            f"{type(inner).__name__}) {shown}"
        )


def wrap_kernel_error(e: Exception, step: Step, inputs: Sequence[Any]) -> errors.OpError:
    """The ``tm.errors`` exception for a kernel failure: class by cause, message naming the op.

    Returns ``e`` itself when it is an OpError that already names an op (the innermost failing
    op, e.g. inside a cond branch).
    """
    op = step.op
    if isinstance(e, errors.OpError) and e.op is not None:
        return e
    cls = errors.UnknownError
    for py_types, tf_cls in _PY_TO_TF:
        if isinstance(e, py_types):
            cls = type(e) if tf_cls is None else tf_cls
            break
    message = e.message if isinstance(e, errors.OpError) else _message_of(e)
    names = []
    i = 0
    if step.fused is not None:  # the step reads the fused op's inputs, not its own
        names = [_describe_value(v) for v in inputs]
        message += f" (fused with {step.fused.type} '{step.fused.name}')"
    else:
        for arg, g in zip(op.op_def.inputs, input_groups(op)):
            n = g.stop - g.start if isinstance(g, slice) else 1
            for j in range(n):
                label = arg.name if not isinstance(g, slice) else f"{arg.name}[{j}]"
                value = inputs[i] if i < len(inputs) else None
                names.append(f"{label}: {_describe_value(value)}")
                i += 1
    described = f" [inputs: {', '.join(names)}]" if names else ""
    text = (
        f"{op.type} '{op.name}' on {step.device}: {message}{described} "
        f"(defined at {op.defined_at})"
    )
    return cls(None, op, text)


def raise_kernel_error(e: Exception, step: Step, inputs: Sequence[Any]) -> NoReturn:
    """Raises ``e`` as ``wrap_kernel_error`` describes it, chained to ``e`` (``__cause__``), so
    a traceback shows the kernel's own frames (and the generated plan line) first."""
    wrapped = wrap_kernel_error(e, step, inputs)
    if wrapped is e:
        raise e
    raise wrapped from e
