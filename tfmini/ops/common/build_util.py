"""Helpers for the TF1-style functions of the op families: how they name and build ops.

Kernels' helpers are in ``kernel_util``, shape functions' in ``shape_fns``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import evolve

from tfmini.core import registry
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.dtypes import DType
from tfmini.core.graph import Output, check_op_name
from tfmini.core.scope import Scope, current_scope, scope_context

# ----------------------------------------------------------------------------------------
# Names


def peek_op_name(scope: Scope, base: str) -> str:
    """The full name an op called ``base`` built in ``scope`` will get, without reserving it.

    TensorFlow names an op exactly like the name scope its helper ops go under
    (``cond`` and ``cond/Identity``); peeking first gives both the same spelling.
    """
    full = f"{scope.name_prefix}/{base}" if scope.name_prefix else base
    return scope.graph.unique_name(full, mark_as_used=False)


def exact_sub_scope(scope: Scope, base: str) -> Scope:
    """The scope ``<prefix>/<base>`` (made unique) *without* reserving the name, so that an
    op built next with ``name=base`` in ``scope`` gets exactly that name (TensorFlow names
    such ops after their name scope: ``w`` in ``w/...``, ``Gather`` in ``Gather/indices``)."""
    return evolve(scope, name_prefix=peek_op_name(scope, base), op_name=None)


# ----------------------------------------------------------------------------------------
# Building


def build_output(op_type: str, inputs: list, attrs: dict | None = None,
                 name: str | None = None):
    """Builds ``op_type`` in the current scope and returns its first output."""
    return build_op(current_scope(), op_type, inputs, attrs, name=name).outputs[0]


def as_operand(value: Any, dtype: DType | None = None) -> Output:
    """``value`` as an Output; a literal takes ``dtype`` (TypeError if it cannot)."""
    if isinstance(value, Output):
        return value
    if is_symbolic(value):
        return convert_to_tensor(value)
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        raise TypeError(str(e)) from e


def operand_pair(x: Any, y: Any) -> tuple[Output, Output]:
    """``x`` and ``y`` as Outputs; a literal takes the dtype of the other operand (of ``x``
    when both are literals or both tensors)."""
    if not is_symbolic(x) and is_symbolic(y):
        y = as_operand(y)
        return as_operand(x, y.dtype), y
    x = as_operand(x)
    return x, as_operand(y, x.dtype)


def autopack(value: Any, dtype: DType | None = None) -> Any:
    """A list or tuple holding tensors becomes a ``Pack`` (TensorFlow's autopacking), so
    ``tm.reshape(x, [tm.shape(y)[0], -1])`` works; anything else is returned as is."""
    if not isinstance(value, (list, tuple)) or not has_symbolic(value):
        return value
    if dtype is None:
        dtype = _first_symbolic_dtype(value)
    items = [autopack(v, dtype) if isinstance(v, (list, tuple)) else v for v in value]
    return build_op(current_scope(), "Pack", [items], {"axis": 0}, name="packed").outputs[0]


def has_symbolic(value: Any) -> bool:
    """Whether ``value`` (or anything in its nested lists and tuples) is a tensor."""
    if isinstance(value, (list, tuple)):
        return any(has_symbolic(v) for v in value)
    return is_symbolic(value)


def _first_symbolic_dtype(value: Any) -> DType | None:
    for v in value:
        if isinstance(v, (list, tuple)):
            dt = _first_symbolic_dtype(v)
            if dt is not None:
                return dt
        elif is_symbolic(v):
            return convert_to_tensor(v).dtype
    return None


def build_autopacked(op_type: str, inputs: Sequence[Any], attrs: dict | None = None,
                     name: str | None = None, scope=None):
    """Builds ``op_type`` in the current (or given) scope, autopacking list inputs.

    An empty Python list for an argument whose type attr has a default takes that
    default (``tile(x, [])`` gets int32 multiples), as TensorFlow's op builder prefers
    the default type when converting literals.
    """
    op_def = registry.get(op_type)
    converted = []
    for arg, x in zip(op_def.inputs, inputs):
        if isinstance(x, list) and arg.is_list:
            converted.append([autopack(v) for v in x])
            continue
        x = autopack(x)
        if isinstance(x, (list, tuple)) and len(x) == 0 and arg.type_attr:
            default = op_def.attr(arg.type_attr).default
            if isinstance(default, DType) and (attrs is None or arg.type_attr not in attrs):
                x = convert_to_tensor(x, dtype=default)
        converted.append(x)
    return build_op(scope or current_scope(), op_type, converted, attrs, name=name)


@contextlib.contextmanager
def op_scope(name: str | None, default_name: str):
    """TensorFlow's ``with ops.name_scope(name, default) as scope:`` ending in an op named
    ``scope`` itself.

    Helper ops built in the block are named ``<name>/...``; the op finally
    built with ``build_op(outer, ..., name=base)`` gets ``<name>`` exactly (as
    TF names ``x[1:]`` ``strided_slice`` with ``strided_slice/stack`` inputs).
    Yields ``(outer_scope, base_name)``.
    """
    outer = current_scope()
    base = name or default_name
    check_op_name(base)
    # Not reserved yet: the final op reserves it; helper ops only take "<full>/...".
    inner = exact_sub_scope(outer, base)
    with scope_context(inner):
        yield outer, inner.name_prefix.rpartition("/")[2]


def constant_value(value: Any):
    """``tensor_util.constant_value``: the value of a literal or a build-time known tensor."""
    if is_symbolic(value):
        return static_value(convert_to_tensor(value))
    return np.asarray(value)
