"""The op registry: one OpDef per op type, found by its type string.

Built-in ops register through the same public calls a user uses for a custom
op (:func:`register_op`, :func:`register_kernel`, :func:`RegisterGradient`,
:func:`no_gradient`), so custom ops are first class by construction.

One truth per op, by this rule (docs/internals.md, "One truth per op"):

* **Schema pinned at build.** An Operation keeps the OpDef it was built against
  (``op.op_def``): its inputs, outputs, attrs, shape function and flags (stateful,
  blocking). Everything that reads the op's structure uses that pinned OpDef, so a
  built graph never changes shape under a later re-registration.
* **Behaviour looked up live.** The kernels and the gradient function an op runs
  with are found by its type when a plan or a gradient is built
  (:func:`behaviour_of`), so ``register_kernel`` and ``RegisterGradient`` calls made
  after the graph was built apply to it. An op whose type was unregistered since
  keeps the behaviour it was built with.

A kernel is checked against its OpDef when it is registered: it must take one
positional parameter per input argument (after an optional ``ctx``), and every
keyword-only parameter without a default must be an attr (or ``node``).
"""

from __future__ import annotations

import difflib
import inspect
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from attrs import evolve

from tfmini import errors
from tfmini.core.opdef import (
    ArgDef,
    AttrDef,
    Kernel,
    OpDef,
    attr_from_python,
    parse_arg,
    parse_attr,
)
from tfmini.core.source import caller_location

# TensorFlow's op_def_util ValidateOpName: CamelCase, or internal names starting with "_".
_OP_TYPE_REGEX = re.compile(r"^(?:_[A-Za-z0-9_>]*|[A-Z][A-Za-z0-9_>]*)$")

_ops: dict[str, OpDef] = {}
_lock = threading.RLock()
_listeners: list[Callable[[OpDef], None]] = []


def _close_matches(name: str) -> str:
    matches = difflib.get_close_matches(name, list(_ops), n=3, cutoff=0.6)
    return f" Did you mean: {', '.join(repr(m) for m in matches)}?" if matches else ""


def get(op_type: str) -> OpDef:
    """The OpDef registered under ``op_type``.

    Raises:
        NotFoundError: no such op type (the message lists close matches).
    """
    try:
        return _ops[op_type]
    except KeyError:
        raise errors.NotFoundError(
            None, None, f"Op type not registered '{op_type}'.{_close_matches(str(op_type))}"
        ) from None
    except TypeError:
        raise TypeError(f"Op type must be a string, got {op_type!r}") from None


def lookup(op_type: str) -> OpDef | None:
    return _ops.get(op_type)


def behaviour_of(op: Any) -> OpDef:
    """The OpDef whose kernels and gradient function the Operation ``op`` uses: the live
    registration of its type, or the OpDef it was built with if the type was unregistered
    since (see the module docstring for the rule)."""
    return _ops.get(op.type) or op.op_def


def check_kernel(op_def: OpDef, kernel: Kernel) -> None:
    """Raises TypeError when ``kernel`` cannot be called as ``op_def`` calls it.

    A kernel gets one positional argument per input argument (a list for a list argument),
    after the kernel context if its first parameter is ``ctx``, and the op's attrs as
    keywords (``node`` gives the Operation).
    """
    fn = kernel.fn
    n_inputs = len(op_def.inputs)
    names = ", ".join(a.name for a in op_def.inputs) or "none"
    if isinstance(fn, np.ufunc):
        lo = hi = fn.nin
    else:
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return  # a builtin without a signature: nothing to check
        if kernel.takes_ctx:
            params = params[1:]
        positional = [p for p in params if p.kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        lo = sum(p.default is inspect.Parameter.empty for p in positional)
        hi = float("inf") if any(
            p.kind is inspect.Parameter.VAR_POSITIONAL for p in params) else len(positional)
        attrs = {a.name for a in op_def.attrs} | {"node"}
        unknown = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY
                   and p.default is inspect.Parameter.empty and p.name not in attrs]
        if unknown:
            raise TypeError(
                f"Kernel {getattr(fn, '__qualname__', fn)!r} of op '{op_def.name}' requires "
                f"keyword(s) {unknown} that are not attrs of the op "
                f"(attrs: {', '.join(sorted(attrs - {'node'})) or 'none'})"
            )
    if not lo <= n_inputs <= hi:
        takes = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise TypeError(
            f"Kernel {getattr(fn, '__qualname__', fn)!r} of op '{op_def.name}' takes {takes} "
            f"positional input(s), but the op has {n_inputs} input argument(s) ({names})"
        )


def registered_ops() -> Mapping[str, OpDef]:
    """A snapshot of all registered OpDefs by type."""
    with _lock:
        return dict(_ops)


def _replace(op_def: OpDef) -> None:
    with _lock:
        _ops[op_def.name] = op_def


def add_op_def(op_def: OpDef) -> OpDef:
    """Registers a fully built OpDef.

    Raises:
        AlreadyExistsError: the type is taken (the message says where it was registered).
    """
    with _lock:
        prior = _ops.get(op_def.name)
        if prior is not None:
            raise errors.AlreadyExistsError(
                None,
                None,
                f"Op type '{op_def.name}' is already registered (first registered at "
                f"{prior.defined_at}); pick another name or unregister it first.",
            )
        _ops[op_def.name] = op_def
    for listener in list(_listeners):
        listener(op_def)
    return op_def


def unregister(op_type: str) -> None:
    """Removes an op type (for tests and interactive sessions that redefine an op)."""
    with _lock:
        get(op_type)
        del _ops[op_type]


def on_register(listener: Callable[[OpDef], None]) -> None:
    """Calls ``listener(op_def)`` for every op registered from now on."""
    _listeners.append(listener)


def make_op_def(
    op_type: str,
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
    attrs: Sequence[str] | Mapping[str, Any] = (),
    *,
    shape_fn: Callable | None = None,
    stateful: bool = False,
    blocking: bool = False,
    value_fn: Callable | None = None,
    only_devices: Iterable[str] | None = None,
    api_names: Mapping[str, str] | None = None,
    doc: str = "",
    defined_at=None,
) -> OpDef:
    """Builds an OpDef from TensorFlow-style specs (see :mod:`tfmini.core.opdef`)."""
    if not isinstance(op_type, str) or not _OP_TYPE_REGEX.match(op_type):
        raise ValueError(f"Invalid name: {op_type!r} (Did you use CamelCase?)")
    if isinstance(attrs, Mapping):
        attr_defs = [attr_from_python(k, v) for k, v in attrs.items()]
    else:
        attr_defs = [parse_attr(s) if isinstance(s, str) else s for s in attrs]
    seen = set()
    for a in attr_defs:
        if a.name in seen:
            raise ValueError(f"Op '{op_type}': attr '{a.name}' declared twice")
        seen.add(a.name)
    type_attrs = {a.name for a in attr_defs if a.type == "type"}
    list_type_attrs = {a.name for a in attr_defs if a.type == "list(type)"}
    in_args = [
        parse_arg(s, type_attrs, list_type_attrs) if isinstance(s, str) else s for s in inputs
    ]
    out_args = [
        parse_arg(s, type_attrs, list_type_attrs) if isinstance(s, str) else s for s in outputs
    ]
    names = [a.name for a in in_args]
    if len(set(names)) != len(names):
        raise ValueError(f"Op '{op_type}': duplicate input names {names}")
    for arg in in_args + out_args:
        if arg.number_attr and arg.number_attr not in seen:
            attr_defs.append(parse_attr(f"{arg.number_attr}: int >= 0"))
            seen.add(arg.number_attr)
    return OpDef(
        name=op_type,
        inputs=tuple(in_args),
        outputs=tuple(out_args),
        attrs=tuple(attr_defs),
        shape_fn=shape_fn,
        is_stateful=stateful,
        is_blocking=blocking,
        value_fn=value_fn,
        only_devices=tuple(only_devices) if only_devices is not None else None,
        api_names=dict(api_names or {}),
        defined_at=defined_at or caller_location(1),
        doc=doc,
    )


def register_op(
    op_type: str,
    inputs: Sequence[str] = (),
    outputs: Sequence[str] = (),
    attrs: Sequence[str] | Mapping[str, Any] = (),
    *,
    shape_fn: Callable | None = None,
    stateful: bool = False,
    blocking: bool = False,
    device: str = "CPU",
    value_fn: Callable | None = None,
    only_devices: Iterable[str] | None = None,
    api_names: Mapping[str, str] | None = None,
    doc: str | None = None,
):
    """Registers an op type; use as a decorator on its kernel.

    Example::

        @tm.register_op("Swish", inputs=["x: T"], outputs=["y: T"],
                        attrs={"T": "{float, double}", "beta": ("float", 1.0)})
        def swish(x, *, beta):
            return x / (1 + np.exp(-beta * x))

    The kernel receives the input values (NumPy arrays; a list for a list
    argument) positionally and the attrs it names as keyword-only parameters.
    If its first parameter is called ``ctx`` it also receives the kernel
    context (resources, the session's options). It returns the output value,
    a sequence of values for several outputs, or None for none.

    Args:
        op_type: The op's type string (CamelCase, unique).
        inputs, outputs: Argument specs (``"x: T"``, ``"values: N * T"``, ``"y: float"``).
        attrs: Attr specs, as TensorFlow spells them (``["T: {float, double}",
            "beta: float = 1.0"]``) or a dict ``{"T": "type", "beta": ("float", 1.0)}``.
        shape_fn: ``fn(ic)`` returning the output shapes (a list) at build time;
            default: unknown shapes.
        stateful: The op reads or writes state, or has side effects.
        blocking: The kernel may wait for a condition (see docs/custom_ops.md).
        device: The device type the decorated kernel runs on.
        value_fn: Optional ``fn(output)`` giving an output's value when known statically.
        only_devices: Device types the op may run on (no CPU fallback); None = any.
        api_names: Names Python callers use instead of OpDef names, as TensorFlow's
            api_def renames them (``{"reduction_indices": "axis"}`` for Sum).
        doc: Description; defaults to the kernel's docstring.

    Raises:
        AlreadyExistsError: ``op_type`` is already registered.
        ValueError: a spec cannot be parsed.
    """
    defined_at = caller_location(1)

    def decorator(kernel: Callable | None):
        op_def = make_op_def(
            op_type, inputs, outputs, attrs,
            shape_fn=shape_fn, stateful=stateful, blocking=blocking, value_fn=value_fn,
            only_devices=only_devices, api_names=api_names,
            doc=doc if doc is not None else ((kernel.__doc__ or "").strip() if kernel else ""),
            defined_at=defined_at,
        )
        if kernel is not None:
            wrapped = Kernel.wrap(kernel)
            check_kernel(op_def, wrapped)
            op_def = evolve(op_def, kernels={device: wrapped})
        add_op_def(op_def)
        return kernel

    return decorator


def register_kernel(op_type: str, device: str = "CPU"):
    """Adds (or replaces) the kernel of an existing op for one device type (decorator)."""

    def decorator(fn: Callable):
        with _lock:
            op_def = get(op_type)
            kernel = Kernel.wrap(fn)
            check_kernel(op_def, kernel)
            kernels = dict(op_def.kernels)
            kernels[device] = kernel
            _replace(evolve(op_def, kernels=kernels))
            _own_kernels.add(op_type)  # fusions would bypass it (see fusion())
        return fn

    return decorator


def set_shape_fn(op_type: str, fn: Callable) -> None:
    """Sets the shape function of a registered op."""
    with _lock:
        _replace(evolve(get(op_type), shape_fn=fn))


class RegisterGradient:
    """Decorator registering the gradient function of an op type (as ``tf.RegisterGradient``).

    The function is called as ``fn(op, *grads)`` with one gradient per output
    and returns one gradient (or None) per input.

    Raises:
        KeyError: a gradient is already registered for the type (as TensorFlow).
        NotFoundError: no op of that type is registered.
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: Callable) -> Callable:
        with _lock:
            if self._op_type not in _ops:
                # A name that is no op type: a gradient for Graph.gradient_override_map.
                if self._op_type in _named_gradients:
                    raise KeyError(
                        f"Registering two gradient with name '{self._op_type}'! "
                        "(Previous registration was in gradient_override_map)"
                    )
                _named_gradients[self._op_type] = fn
                return fn
            op_def = get(self._op_type)
            _check_no_gradient_yet(op_def)
            _replace(evolve(op_def, grad_fn=fn))
        return fn


# Gradient functions registered under names that are no op type (gradient_override_map).
_named_gradients: dict[str, Callable] = {}


def named_gradient(name: str) -> Callable | None:
    """The gradient function registered under ``name``: a named one, else an op type's."""
    fn = _named_gradients.get(name)
    if fn is not None:
        return fn
    op_def = _ops.get(name)
    return None if op_def is None else op_def.grad_fn


def _check_no_gradient_yet(op_def: OpDef) -> None:
    """KeyError, in TensorFlow's words, if the op already has a gradient or a no-gradient mark."""
    if op_def.grad_fn is None and not op_def.no_gradient:
        return
    if op_def.grad_fn is not None:
        fn = op_def.grad_fn
        code = getattr(fn, "__code__", None)
        where = getattr(fn, "__qualname__", repr(fn))
        if code is not None:
            where += f" {code.co_filename}:{code.co_firstlineno}"
    else:
        where = "no_gradient"
    raise KeyError(
        f"Registering two gradient with name '{op_def.name}'! "
        f"(Previous registration was in {where})"
    )


def no_gradient(op_type: str) -> None:
    """Marks an op type as explicitly not differentiable (``tf.no_gradient``).

    Raises:
        KeyError: the op already has a gradient or a no-gradient mark (as TensorFlow).
    """
    with _lock:
        op_def = get(op_type)
        _check_no_gradient_yet(op_def)
        _replace(evolve(op_def, no_gradient=True))


NotDifferentiable = no_gradient


def get_gradient_function(op_type: str) -> Callable | None:
    return get(op_type).grad_fn


_fusions: dict[tuple[str, str], Callable] = {}
_own_kernels: set[str] = set()  # op types given a kernel through register_kernel


def register_fusion(consumer: str, producer: str, build: Callable) -> None:
    """Registers a plan-time fusion (Grappler's remapper) of two op types.

    When an op of type ``consumer`` reads, as its first input, an output of an op of type
    ``producer`` that nothing else reads, the plan may run the two as one step:
    ``build(consumer_op, producer_op)`` returns ``(fn, inputs)``, a kernel taking the values
    of the Outputs ``inputs`` that returns the consumer's output (the same bits as the two
    kernels in turn, and unable to fail where they would not), or None to leave the pair.

    Args:
        consumer: The reading op's type.
        producer: The type of the op whose output it reads.
        build: ``build(consumer_op, producer_op) -> (fn, inputs) | None``.
    """
    with _lock:
        _fusions[(consumer, producer)] = build


def fusion(consumer: str, producer: str, device_type: str = "CPU") -> Callable | None:
    """The ``build`` function registered for fusing ``producer`` into ``consumer`` on a
    device of ``device_type``, if any. None where either op runs a kernel the fused step
    would bypass: one registered with :func:`register_kernel`, or a device's own."""
    build = _fusions.get((consumer, producer))
    if build is None or consumer in _own_kernels or producer in _own_kernels:
        return None
    for op_type in (consumer, producer):
        op_def = get(op_type)
        if op_def.kernel_for(device_type) is not op_def.kernels.get("CPU"):
            return None
    return build


__all__ = [
    "ArgDef",
    "AttrDef",
    "OpDef",
    "RegisterGradient",
    "NotDifferentiable",
    "add_op_def",
    "behaviour_of",
    "check_kernel",
    "fusion",
    "get",
    "lookup",
    "make_op_def",
    "named_gradient",
    "no_gradient",
    "register_fusion",
    "register_kernel",
    "register_op",
    "registered_ops",
    "set_shape_fn",
    "unregister",
]
