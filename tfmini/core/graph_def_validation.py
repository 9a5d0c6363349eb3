"""Checks a whole graph_def before anything of it is built: untrusted input, bounded work.

:func:`validate_graph_def` walks every node of the graph and of every library function,
iteratively (no recursion on user data, so no depth of nesting can exhaust Python's stack),
and refuses, naming the node (and function) at fault:

* a node that is not a dict, has no name, or no string op type; an op type that is not
  registered (NotFoundError, as TensorFlow's importer);
* ``input`` that is not a list of tensor names (a string such as ``"xy"`` is not read as
  two inputs), malformed names (``"x:"``, ``"x:-1"``, ``"^"``), data inputs after control
  inputs, inputs from nodes that do not exist, output indices that the source node does not
  have (when its attrs tell how many it has);
* attrs that are not a dict, attr names the op does not have, values whose JSON form does
  not fit the attr's type (``int`` within int64, ``float`` or ``"nan"``/``"inf"``/``"-inf"``,
  ``{"type": ...}``, ``{"shape": ...}``, ``{"tensor": {...}}``, ``{"func": name}``, lists of
  those), values nested deeper than :data:`tfmini.core.limits.MAX_ATTR_DEPTH`;
* more outputs than :data:`tfmini.core.limits.MAX_OUTPUTS_PER_OP` for one node;
* library functions that are malformed, named twice, missing while a node names them, that
  refer to themselves through any chain of functions, or nest deeper than
  :data:`tfmini.core.limits.MAX_FUNCTION_DEPTH`.

The checks work on the plain dict form (``Graph.as_graph_def()``); a protobuf front end
converts a GraphDef message to that form and calls the same function. What the checks
cannot know without building (shape functions, dtype agreement between nodes) the builder
still checks, node by node, with the node named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import registry
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.limits import MAX_ATTR_DEPTH, MAX_FUNCTION_DEPTH, MAX_OUTPUTS_PER_OP
from tfmini.core.opdef import AttrDef, OpDef
from tfmini.core.shapes import TensorShape
from tfmini.core.tensor_json import NON_FINITE_FLOATS

__all__ = ["validate_graph_def"]

_REF_RE = re.compile(r"^(\^)?([^:^][^:]*)(?::(0|[1-9][0-9]{0,9}))?$")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails is still described by its type
        return f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether lists/dicts in ``value`` nest at most ``limit`` deep (iteratively)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, tuple)):
            if d > limit:
                return False
            stack.extend((x, d + 1) for x in v)
        elif isinstance(v, Mapping):
            if d > limit:
                return False
            stack.extend((x, d + 1) for x in v.values())
    return True


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Where:
    """Names the node (and the function it belongs to) in every message."""

    def __init__(self, where: str, node: str | None = None):
        self.text = f"node '{node}' of {where}" if node is not None else where

    def error(self, message: str) -> ValueError:
        return ValueError(f"Invalid graph_def: {self.text}: {message}")


def _check_scalar(t: str, v: Any, where: _Where, attr: str, funcs: list[str]) -> None:
    """The JSON form of one scalar attr value of type ``t`` (see serialize's encoding)."""
    def bad(expect: str) -> ValueError:
        return where.error(f"attr '{attr}' must be {expect}, got {_short(v)}")

    if t == "int":
        if not _is_int(v) or not _INT64_MIN <= v <= _INT64_MAX:
            raise bad("an int64")
    elif t == "float":
        if isinstance(v, str):
            if v not in NON_FINITE_FLOATS:
                raise bad("a number, 'nan', 'inf' or '-inf'")
        elif isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad("a number")
    elif t == "bool":
        if not isinstance(v, bool):
            raise bad("a bool")
    elif t == "string":
        if not isinstance(v, str):
            raise bad("a string")
    elif t == "type":
        if isinstance(v, DType):  # already decoded (the protobuf front end decodes attrs)
            return
        if not (isinstance(v, Mapping) and set(v) == {"type"} and isinstance(v["type"], str)):
            raise bad('{"type": name}')
        try:
            as_dtype(v["type"])
        except TypeError:
            raise bad("a known dtype") from None
    elif t == "shape":
        if isinstance(v, TensorShape):
            return
        dims = v.get("shape", 0) if isinstance(v, Mapping) and set(v) == {"shape"} else 0
        if dims is not None and not (
            isinstance(dims, list)
            and all(d is None or (_is_int(d) and -1 <= d <= _INT64_MAX) for d in dims)
        ):
            raise bad('{"shape": null or a list of dims (ints >= -1 or null)}')
    elif t == "tensor":
        if isinstance(v, np.ndarray):
            return
        inner = v.get("tensor") if isinstance(v, Mapping) and set(v) == {"tensor"} else None
        if not (isinstance(inner, Mapping) and {"dtype", "shape", "values"} <= set(inner)):
            raise bad('{"tensor": {"dtype", "shape", "values"}}')
    elif t == "func":
        if not (isinstance(v, Mapping) and set(v) == {"func"} and isinstance(v["func"], str)):
            raise bad('{"func": name}')
        funcs.append(v["func"])


def _check_attr(ad: AttrDef, value: Any, where: _Where, funcs: list[str]) -> None:
    if not _depth_ok(value, MAX_ATTR_DEPTH):
        raise where.error(
            f"attr '{ad.name}' nests lists or dicts more than {MAX_ATTR_DEPTH} deep"
        )
    t = ad.type
    if t.startswith("list("):
        if not isinstance(value, list):
            raise where.error(f"attr '{ad.name}' must be a list ({t}), got {_short(value)}")
        for item in value:
            _check_scalar(t[5:-1], item, where, ad.name, funcs)
    else:
        _check_scalar(t, value, where, ad.name, funcs)


def _output_count(op_def: OpDef, attr: Mapping[str, Any]) -> int | None:
    """How many outputs the node has, from its attrs (None when an attr is missing)."""
    n = 0
    for arg in op_def.outputs:
        if arg.type_list_attr:
            v = attr.get(arg.type_list_attr)
            if v is None:
                v = op_def.attr(arg.type_list_attr).default
            if not isinstance(v, (list, tuple)):
                return None
            n += len(v)
        elif arg.number_attr:
            v = attr.get(arg.number_attr)
            if v is None:
                ad = op_def.attr(arg.number_attr)
                v = ad.default if ad.has_default else None
            if not _is_int(v):
                return None
            n += max(v, 0)
        else:
            n += 1
    return n


def _check_nodes(nodes: Any, where_text: str, funcs: list[str]) -> None:
    if not isinstance(nodes, list):
        raise _Where(where_text).error(f"'node' must be a list, got {type(nodes).__name__}")
    names: dict[str, int | None] = {}  # name -> output count (None: not known from attrs)
    lower: dict[str, str] = {}
    refs: list[tuple[str, str, int]] = []  # (node, source, index)
    for index, node in enumerate(nodes):
        if not isinstance(node, Mapping):
            raise _Where(where_text).error(f"node {index} is not a dict: {_short(node)}")
        name = node.get("name")
        if not isinstance(name, str) or not name:
            raise _Where(where_text).error(f"node {index} has no name (got {_short(name)})")
        where = _Where(where_text, name)
        key = name.lower()
        if key in lower:
            raise where.error(f"duplicate node name '{name}' (or '{lower[key]}')")
        lower[key] = name
        op_type = node.get("op")
        if not isinstance(op_type, str):
            raise where.error(f"'op' must be an op type string, got {_short(op_type)}")
        try:
            op_def = registry.get(op_type)
        except errors.NotFoundError as e:
            raise errors.NotFoundError(None, None, f"{e.message} ({where.text})") from None
        device = node.get("device", "")
        if device is not None and not isinstance(device, str):
            raise where.error(f"'device' must be a string, got {_short(device)}")
        inputs = node.get("input", [])
        if not isinstance(inputs, list):
            raise where.error(
                f"'input' must be a list of tensor names, got {type(inputs).__name__} "
                f"{_short(inputs)}"
            )
        seen_control = False
        for ref in inputs:
            m = _REF_RE.match(ref) if isinstance(ref, str) else None
            if m is None or (m.group(1) and m.group(3) is not None):
                raise where.error(f"input {_short(ref)} is not a tensor name ('x', 'x:1', '^x')")
            if m.group(1):
                seen_control = True
                refs.append((name, m.group(2), -1))
            else:
                if seen_control:
                    raise where.error(f"data input {ref!r} comes after a control input")
                refs.append((name, m.group(2), int(m.group(3) or 0)))
        attr = node.get("attr", {})
        if not isinstance(attr, Mapping):
            raise where.error(f"'attr' must be a dict, got {_short(attr)}")
        for k, v in attr.items():
            ad = op_def.attr(k) if isinstance(k, str) else None
            if ad is None:
                known = ", ".join(op_def.attr_names) or "none"
                raise where.error(f"{op_type} has no attr {_short(k)} (its attrs: {known})")
            _check_attr(ad, v, where, funcs)
        count = _output_count(op_def, attr)
        if count is not None and count > MAX_OUTPUTS_PER_OP:
            raise where.error(
                f"{op_type} would have {count} outputs, more than the limit of "
                f"{MAX_OUTPUTS_PER_OP} outputs per op (tfmini.core.limits.MAX_OUTPUTS_PER_OP)"
            )
        names[name] = count
    for node, src, i in refs:
        if src not in names:
            raise _Where(where_text, node).error(f"has an input from unknown node '{src}'")
        count = names[src]
        bound = count if count is not None else MAX_OUTPUTS_PER_OP
        if i >= bound:
            raise _Where(where_text, node).error(
                f"input '{src}:{i}' does not exist: node '{src}' has {bound} output(s)"
                + ("" if count is not None else " at most")
            )


def _check_function(fd: Any) -> tuple[str, list[str]]:
    if not isinstance(fd, Mapping) or not isinstance(fd.get("name"), str) or not fd["name"]:
        raise ValueError(f"Invalid graph_def: library entry without a name: {_short(fd)}")
    name = fd["name"]
    where = f"function '{name}'"
    funcs: list[str] = []
    _check_nodes(fd.get("node", []), where, funcs)
    for key in ("inputs", "outputs", "control_outputs"):
        v = fd.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise _Where(where).error(f"'{key}' must be a list of names, got {_short(v)}")
    captures = fd.get("captures", [])
    if not isinstance(captures, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
        for p in captures
    ):
        raise _Where(where).error("'captures' must be a list of [outer, inner] names")
    return name, funcs


def _check_functions(graph_def: Mapping[str, Any], root_funcs: list[str]) -> None:
    library = graph_def.get("library") or {}
    if not isinstance(library, Mapping):
        raise ValueError(f"Invalid graph_def: 'library' must be a dict, got {_short(library)}")
    entries = library.get("function", [])
    if not isinstance(entries, list):
        raise ValueError("Invalid graph_def: 'library' must be {'function': [...]}")
    calls: dict[str, list[str]] = {}
    for fd in entries:
        name, funcs = _check_function(fd)
        if name in calls:
            raise ValueError(f"Invalid graph_def: library defines function '{name}' twice")
        calls[name] = funcs
    for owner, funcs in [("graph_def", root_funcs)] + [
        (f"function '{n}'", f) for n, f in calls.items()
    ]:
        for f in funcs:
            if f not in calls:
                raise ValueError(
                    f"Invalid graph_def: {owner} refers to function '{f}' which its library "
                    "lacks"
                )
    # Longest chain of function references, iteratively (Kahn's order on the reverse
    # graph): a function left over sits on a cycle; depth is counted from the leaves.
    depth: dict[str, int] = {}
    pending = {n: len(set(f)) for n, f in calls.items()}
    callers: dict[str, list[str]] = {n: [] for n in calls}
    for n, f in calls.items():
        for g in set(f):
            callers[g].append(n)
    ready = [n for n, k in pending.items() if k == 0]
    for n in ready:
        depth[n] = 1
    while ready:
        n = ready.pop()
        for c in callers[n]:
            depth[c] = max(depth.get(c, 1), depth[n] + 1)
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    cyclic = sorted(n for n, k in pending.items() if k > 0)
    if cyclic:
        raise ValueError(
            f"Invalid graph_def: library functions refer to themselves through a cycle "
            f"(among {', '.join(repr(n) for n in cyclic[:10])})"
        )
    deepest = max(depth.values(), default=0)
    if deepest > MAX_FUNCTION_DEPTH:
        raise ValueError(
            f"Invalid graph_def: library functions nest {deepest} deep, more than the limit of "
            f"{MAX_FUNCTION_DEPTH} (tfmini.core.limits.MAX_FUNCTION_DEPTH)"
        )


def validate_graph_def(graph_def: Any) -> None:
    """Checks every node and library function of ``graph_def`` (see the module doc).

    Args:
        graph_def: The dict form (``Graph.as_graph_def()``, maybe through JSON).

    Raises:
        TypeError: ``graph_def`` is not a dict.
        ValueError: a structural fault; the message names the node and function.
        tfmini.errors.NotFoundError: a node's op type is not registered.
    """
    if not isinstance(graph_def, Mapping):
        raise TypeError(
            f"graph_def must be a dict as made by Graph.as_graph_def(), got "
            f"{type(graph_def).__name__}"
        )
    funcs: list[str] = []
    _check_nodes(graph_def.get("node", []), "graph_def", funcs)
    _check_functions(graph_def, funcs)
