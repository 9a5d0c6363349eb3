"""Generates ``tm.ops.<OpType>`` classes and ``tm.raw_ops.<OpType>`` functions from the registry.

No op signature is written twice: both namespaces read the OpDef, so a
custom op is reachable through both as soon as it is registered.
"""

from __future__ import annotations

import collections
import keyword
import threading
from typing import Any

from tfmini.core import registry
from tfmini.core.builder import build_op, group_outputs
from tfmini.core.graph import Operation, Output
from tfmini.core.opdef import OpDef
from tfmini.core.scope import Scope, current_scope

_RESERVED = {"create", "op", "as_output", "OP_NAME", "outputs", "op_def"}
_lock = threading.Lock()
_class_cache: dict[str, tuple[tuple, type]] = {}
_fn_cache: dict[str, tuple[tuple, Any]] = {}


def _signature_key(op_def: OpDef) -> tuple:
    return (op_def.inputs, op_def.outputs, op_def.attrs)


def _accessor_name(arg_name: str) -> str:
    name = arg_name
    if name in _RESERVED or keyword.iskeyword(name):
        name += "_"
    return name


def _split_call(op_def: OpDef, args: tuple, kwargs: dict, *, positional_ok: bool) -> tuple:
    """Separates a call's arguments into inputs (in OpDef order) and attrs.

    Keywords may use the OpDef names or the API names TensorFlow's ``tf.raw_ops`` uses
    where its api_def renames them (Sum's ``axis`` for ``reduction_indices``).
    """
    if op_def.api_names:
        by_api = {v: k for k, v in op_def.api_names.items()}
        renamed = {}
        for key, value in kwargs.items():
            real = by_api.get(key, key)
            if real in renamed:
                raise TypeError(f"{op_def.name} got multiple values for '{key}'")
            renamed[real] = value
        kwargs = renamed
    in_names = [a.name for a in op_def.inputs]
    # As TensorFlow's Java API: the required attrs (no default, not inferred from the inputs)
    # may follow the inputs positionally: create(scope, handle, num_required, dtype).
    required = [a.name for a in op_def.attrs
                if not a.has_default and a.name not in op_def.inferred_attr_names]
    if len(args) > len(in_names) + len(required):
        raise TypeError(
            f"{op_def.name} takes {len(in_names)} input(s) ({', '.join(in_names) or 'none'})"
            + (f" and the attr(s) {', '.join(required)}" if required else "")
            + f", got {len(args)} positional argument(s)"
        )
    values: dict[str, Any] = dict(zip(in_names, args)) if positional_ok else {}
    attrs: dict[str, Any] = dict(zip(required, args[len(in_names):])) if positional_ok else {}
    for key, value in kwargs.items():
        if key in attrs:
            raise TypeError(f"{op_def.name} got multiple values for attr '{key}'")
        if key in in_names:
            if key in values:
                raise TypeError(f"{op_def.name} got multiple values for input '{key}'")
            values[key] = value
        else:
            attrs[key] = value
    missing = [n for n in in_names if n not in values]
    if missing:
        raise TypeError(
            f"{op_def.name} missing required input(s): {', '.join(repr(m) for m in missing)}"
        )
    return [values[n] for n in in_names], attrs


def _signature_doc(op_def: OpDef) -> str:
    lines = [f"Op ``{op_def.name}``.", ""]
    if op_def.doc:
        lines += [op_def.doc, ""]
    lines.append("Inputs: " + (", ".join(a.spec() for a in op_def.inputs) or "none"))
    lines.append("Outputs: " + (", ".join(a.spec() for a in op_def.outputs) or "none"))
    attrs = []
    for a in op_def.attrs:
        d = f" = {a.default!r}" if a.has_default else ""
        attrs.append(f"{a.name}: {a.type}{d}")
    lines.append("Attrs: " + (", ".join(attrs) or "none"))
    lines.append(f"Registered at {op_def.defined_at}.")
    return "\n".join(lines)


class OpWrapper:
    """Base of the generated ``tm.ops.<OpType>`` classes (TensorFlow Java's style).

    ``Cls.create(scope, *inputs, **attrs)`` builds the op; output accessors are
    snake_case methods named after the output arguments (``z()``,
    ``x_backprop()``); a single-output op is itself an operand (``as_output()``).
    """

    OP_NAME: str = ""

    def __init__(self, op: Operation):
        self._op = op
        self._grouped = group_outputs(op)

    @classmethod
    def create(cls, scope: Scope, *inputs: Any, **attrs: Any):
        """Builds one ``OP_NAME`` op in ``scope`` and returns its wrapper.

        Positional arguments are the inputs in OpDef order, then (as in TensorFlow's Java
        API) the required attrs; any input or attr may also be given by keyword.
        """
        if not isinstance(scope, Scope):
            raise TypeError(
                f"{cls.OP_NAME}.create expects a tm.Scope as first argument, got {scope!r}"
            )
        op_def = registry.get(cls.OP_NAME)
        ins, attr_values = _split_call(op_def, inputs, attrs, positional_ok=True)
        return cls(build_op(scope, op_def, ins, attr_values))

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def outputs(self) -> tuple[Output, ...]:
        return self._op.outputs

    def as_output(self) -> Output:
        if len(self._op.outputs) == 1:
            return self._op.outputs[0]
        raise TypeError(
            f"{self.OP_NAME} has {len(self._op.outputs)} outputs; use one of its accessors "
            f"({', '.join(_accessor_name(a.name) + '()' for a in self._op.op_def.outputs)})"
        )

    def __repr__(self) -> str:
        return f"<tm.ops.{self.OP_NAME} '{self._op.name}'>"


def _make_accessor(index: int, arg_name: str):
    def accessor(self):
        return self._grouped[index]

    accessor.__name__ = _accessor_name(arg_name)
    accessor.__doc__ = f"The ``{arg_name}`` output."
    return accessor


def op_class(op_type: str) -> type:
    """The ``tm.ops`` wrapper class of a registered op type (generated once, then cached)."""
    op_def = registry.get(op_type)
    key = _signature_key(op_def)
    with _lock:
        hit = _class_cache.get(op_type)
        if hit is not None and hit[0] == key:
            return hit[1]
        namespace: dict[str, Any] = {"OP_NAME": op_type, "__doc__": _signature_doc(op_def)}
        for i, arg in enumerate(op_def.outputs):
            namespace[_accessor_name(arg.name)] = _make_accessor(i, arg.name)
        cls = type(op_type, (OpWrapper,), namespace)
        cls.__module__ = "tfmini.ops"
        _class_cache[op_type] = (key, cls)
        return cls


def _result(op: Operation, op_def: OpDef, result_type):
    if not op_def.outputs:
        return op
    grouped = group_outputs(op)
    if len(op_def.outputs) == 1:
        return grouped[0]
    return result_type(*grouped)


def raw_op_function(op_type: str):
    """The ``tm.raw_ops`` function of a registered op type (keyword arguments only)."""
    op_def = registry.get(op_type)
    key = _signature_key(op_def)
    with _lock:
        hit = _fn_cache.get(op_type)
        if hit is not None and hit[0] == key:
            return hit[1]
        result_type = None
        if len(op_def.outputs) > 1:
            result_type = collections.namedtuple(
                op_type, [_accessor_name(a.name).rstrip("_") or "output" for a in op_def.outputs]
            )

        def raw_op(*args, name: str | None = None, **kwargs):
            if args:
                raise TypeError(f"tm.raw_ops.{op_type} only accepts keyword arguments")
            live = registry.get(op_type)
            ins, attrs = _split_call(live, (), kwargs, positional_ok=False)
            op = build_op(current_scope(), live, ins, attrs, name=name)
            return _result(op, live, result_type)

        raw_op.__name__ = op_type
        raw_op.__qualname__ = op_type
        raw_op.__doc__ = _signature_doc(op_def)
        _fn_cache[op_type] = (key, raw_op)
        return raw_op
