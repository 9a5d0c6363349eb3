"""Graphs as plain, JSON-serialisable dicts (TensorFlow's GraphDef), and back.

``Graph.as_graph_def()`` gives::

    {"versions": {"producer": 1},
     "node": [{"name": "y", "op": "AddV2", "input": ["x", "split:1", "^init"],
               "device": "", "attr": {"T": {"type": "float32"}}, "defined_at": "model.py:12"},
              ...],
     "library": {"function": [{"name": "cond_true", "node": [...], "inputs": ["arg"],
                               "outputs": ["Identity"], "control_outputs": []}]}}

Inputs use TensorFlow's spelling: ``"x"`` is output 0 of node ``x``, ``"x:1"``
output 1, ``"^x"`` a control input. Attr values are encoded as in
:func:`tfmini.core.opdef.attr_value_to_json`: ``{"type": "float32"}``,
``{"shape": [null, 3]}`` (``{"shape": null}`` for an unknown rank),
``{"tensor": {"dtype", "shape", "values"}}``, ``{"func": name}``, lists as
lists, and ints, floats, bools and strings as themselves; a float that is not
finite is written as the string ``"nan"``, ``"inf"`` or ``"-inf"`` so the text
is strict JSON. :func:`import_graph_def` reads such a dict back into the
default graph, as ``tf.compat.v1.import_graph_def`` does.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from attrs import evolve

from tfmini import errors
from tfmini.core import registry
from tfmini.core.builder import build_op
from tfmini.core.dtypes import as_dtype
from tfmini.core.function import FuncGraph, root_graph
from tfmini.core.graph import (
    VALID_SCOPE_NAME_REGEX,
    Graph,
    Operation,
    Output,
    install_graph_service,
)
from tfmini.core.graph_def_validation import validate_graph_def
from tfmini.core.opdef import AttrDef, OpDef, attr_value_to_json
from tfmini.core.scope import Scope, current_scope
from tfmini.core.shapes import TensorShape
from tfmini.core.tensor_json import NON_FINITE_FLOATS, array_from_json, float_to_json

__all__ = ["import_graph_def"]

GRAPH_DEF_VERSION = 1


def _tensor_ref(output: Output) -> str:
    """TensorFlow's input spelling: ``"x"`` for output 0, ``"x:1"`` otherwise."""
    return output.op.name if output.value_index == 0 else f"{output.op.name}:{output.value_index}"


def _strict_json(value: Any, where: str) -> Any:
    """``value`` with non-finite floats spelled as strings; TypeError if it is not JSON data."""
    if isinstance(value, float):
        return float_to_json(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_strict_json(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _strict_json(v, where) for k, v in value.items()}
    raise TypeError(f"{where} holds a {type(value).__name__} ({value!r}), which has no JSON form")


def node_to_dict(op: Operation) -> dict[str, Any]:
    """One node as a plain dict (TensorFlow's NodeDef): name, op, input, device, attr, defined_at.

    Every attr is written, including those the builder inferred (``T``, ``N``),
    so the node rebuilds exactly.

    Raises:
        TypeError: an attr value has no JSON form (e.g. an arbitrary Python
            object in an ``any`` attr).
    """
    inputs = [_tensor_ref(o) for o in op.inputs]
    inputs += [f"^{c.name}" for c in op.control_inputs]
    attr = {
        k: _strict_json(attr_value_to_json(op.attrs[k]), f"Attr '{k}' of node '{op.name}'")
        for k in sorted(op.attrs)
    }
    return {
        "name": op.name,
        "op": op.type,
        "input": inputs,
        "device": op.device,
        "attr": attr,
        "defined_at": str(op.defined_at),
    }


def _referenced_functions(graph: Graph) -> list[FuncGraph]:
    """FuncGraphs registered on ``graph`` or named by its ops' func attrs, in first-seen order."""
    found: dict[int, FuncGraph] = {}

    def visit(value: Any) -> None:
        if isinstance(value, FuncGraph):
            found.setdefault(id(value), value)
        elif isinstance(value, (tuple, list)):
            for v in value:
                visit(v)

    for fn in graph.functions.values():
        visit(fn)
    for op in graph.get_operations():
        for v in op.attrs.values():
            visit(v)
    return list(found.values())


def _collect_functions(graph: Graph) -> list[FuncGraph]:
    """Every function reachable from ``graph``, nested ones first; names must be unique."""
    order: list[FuncGraph] = []
    by_name: dict[str, FuncGraph] = {}
    seen: set[int] = set()

    def walk(g: Graph) -> None:
        for fn in _referenced_functions(g):
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            other = by_name.get(fn.name)
            if other is not None and other is not fn:
                raise ValueError(
                    f"Two different functions are named '{fn.name}'; graph_def needs unique "
                    "function names"
                )
            by_name[fn.name] = fn
            walk(fn)
            order.append(fn)

    walk(graph)
    return order


def function_to_dict(fn: FuncGraph) -> dict[str, Any]:
    """A FuncGraph as a library entry.

    ``inputs`` (explicit arguments, then captured ones), ``outputs`` and
    ``control_outputs`` name nodes of ``node``; ``captures`` pairs each
    captured argument with the tensor of the enclosing graph it stands for
    (``[outer, inner]``), so an imported function still knows, for example,
    which variable a captured handle belongs to.
    """
    captures = []
    for outer, inner in fn.captures.items():
        if outer.graph is not fn.outer_graph:
            # Captured from further out: the enclosing function captured it too; name that.
            outer = getattr(fn.outer_graph, "captures", {}).get(outer)
            if outer is None:
                continue
        captures.append([_tensor_ref(outer), _tensor_ref(inner)])
    return {
        "name": fn.name,
        "node": [node_to_dict(op) for op in fn.get_operations()],
        "inputs": [_tensor_ref(o) for o in fn.inputs],
        "outputs": [_tensor_ref(o) for o in fn.outputs],
        "control_outputs": [op.name for op in fn.control_outputs],
        "captures": captures,
    }


def graph_to_dict(graph: Graph) -> dict[str, Any]:
    """The graph as a plain, JSON-serialisable dict (TensorFlow's GraphDef; see module doc).

    ``library.function`` holds every FuncGraph the graph uses (registered in
    ``graph.functions`` or named by a func attr), recursively.

    Raises:
        TypeError: an attr value has no JSON form.
        ValueError: two different functions share a name.
    """
    return {
        "versions": {"producer": GRAPH_DEF_VERSION},
        "node": [node_to_dict(op) for op in graph.get_operations()],
        # Sorted by name: deterministic, and the same again after an import.
        "library": {
            "function": [
                function_to_dict(f) for f in sorted(_collect_functions(graph), key=lambda f: f.name)
            ]
        },
    }


install_graph_service("node_to_dict", node_to_dict)
install_graph_service("graph_to_dict", graph_to_dict)


# --------------------------------------------------------------------------------------
# dict -> Graph


def _parse_ref(ref: Any, where: str) -> tuple[str, int, bool]:
    """``"x"`` -> (x, 0, False); ``"x:2"`` -> (x, 2, False); ``"^x"`` -> (x, 0, True)."""
    if not isinstance(ref, str) or not ref:
        raise ValueError(f"{where}: input {ref!r} is not a tensor name")
    if ref.startswith("^"):
        return ref[1:], 0, True
    name, sep, index = ref.rpartition(":")
    if sep and index.isdigit():
        return name, int(index), False
    return ref, 0, False


def _decode_attr(value: Any, attr_def: AttrDef | None, function: Callable[[str], Any]) -> Any:
    """Inverse of the attr encoding; the AttrDef's type decides where the JSON is ambiguous."""
    t = attr_def.type if attr_def is not None else None
    if t is not None and t.startswith("list("):
        if not isinstance(value, list):
            return value  # the builder refuses it with the attr's expected type
        inner = t[5:-1]
        return tuple(_decode_scalar(v, inner, function) for v in value)
    return _decode_scalar(value, t, function)


def _decode_scalar(value: Any, t: str | None, function: Callable[[str], Any]) -> Any:
    if t == "float" and isinstance(value, str) and value in NON_FINITE_FLOATS:
        return NON_FINITE_FLOATS[value]
    if t in ("int", "float", "bool", "string"):
        return value
    return _decode_structure(value, function)


def _decode_structure(value: Any, function: Callable[[str], Any]) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        key, inner = next(iter(value.items()))
        if key == "type":
            return as_dtype(inner)
        if key == "shape":
            return TensorShape(inner)
        if key == "tensor":
            return array_from_json(inner)
        if key == "func":
            return function(inner)
    if isinstance(value, list):
        return tuple(_decode_structure(v, function) for v in value)
    return value


def _group_inputs(op_def: OpDef, attrs: Mapping[str, Any], flat: list, where: str) -> list:
    """Splits a node's flat data inputs into one entry per input argument (lists for lists)."""
    counts: list[int | None] = []
    for arg in op_def.inputs:
        if arg.type_list_attr:
            v = attrs.get(arg.type_list_attr)
            counts.append(len(v) if isinstance(v, (tuple, list)) else None)
        elif arg.number_attr:
            v = attrs.get(arg.number_attr)
            counts.append(v if isinstance(v, int) else None)
        else:
            counts.append(1)
    unknown = [i for i, c in enumerate(counts) if c is None]
    known = sum(c for c in counts if c is not None)
    if len(unknown) == 1:  # a def without its length attr: the one list takes the rest
        counts[unknown[0]] = max(len(flat) - known, 0)
    elif unknown:
        raise ValueError(
            f"{where}: cannot split {len(flat)} inputs among the list arguments of "
            f"{op_def.name} without their length attrs"
        )
    if sum(counts) != len(flat):
        names = ", ".join(a.spec() for a in op_def.inputs) or "none"
        raise ValueError(
            f"{where}: {op_def.name} takes {sum(counts)} input(s) ({names}) with these attrs, "
            f"the node lists {len(flat)}"
        )
    grouped: list = []
    i = 0
    for arg, n in zip(op_def.inputs, counts):
        if arg.is_list:
            grouped.append(flat[i : i + n])
        else:
            grouped.append(flat[i])
        i += n
    return grouped


class _NodeSpec:
    """One node of a def, parsed and checked before anything is built."""

    __slots__ = ("index", "name", "type", "op_def", "data", "control", "device", "attr")

    def __init__(self, index: int, node: Any, where: str):
        if not isinstance(node, Mapping):
            raise ValueError(f"{where}: node {index} is not a dict: {node!r}")
        name = node.get("name")
        op_type = node.get("op")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: node {index} has no name")
        if not isinstance(op_type, str):
            raise ValueError(f"{where}: node '{name}' has no op type")
        self.index = index
        self.name = name
        self.type = op_type
        try:
            self.op_def = registry.get(op_type)
        except errors.NotFoundError as e:
            raise errors.NotFoundError(None, None, f"{e.message} (node '{name}' of {where})") from e
        self.data: list[tuple[str, int]] = []
        self.control: list[str] = []
        for ref in node.get("input", []):
            src, i, is_control = _parse_ref(ref, f"{where}: node '{name}'")
            if is_control:
                self.control.append(src)
            else:
                if self.control:
                    raise ValueError(
                        f"{where}: node '{name}' lists data input {ref!r} after a control input"
                    )
                self.data.append((src, i))
        self.device = node.get("device") or ""
        attr = node.get("attr", {})
        if not isinstance(attr, Mapping):
            raise ValueError(f"{where}: node '{name}' attr must be a dict, got {attr!r}")
        self.attr = attr


def _data_order(specs: list[_NodeSpec], where: str) -> list[_NodeSpec]:
    """Nodes in topological order of data inputs, ties in def order; ValueError on a cycle."""
    by_name = {s.name: s for s in specs}
    indegree: dict[str, int] = {}
    succ: dict[str, list[_NodeSpec]] = {s.name: [] for s in specs}
    for s in specs:
        preds = {src for src, _ in s.data}
        indegree[s.name] = len(preds)
        for p in preds:
            succ[p].append(s)
    heap = [(s.index, s.name) for s in specs if indegree[s.name] == 0]
    heapq.heapify(heap)
    order: list[_NodeSpec] = []
    while heap:
        _, name = heapq.heappop(heap)
        order.append(by_name[name])
        for s in succ[name]:
            indegree[s.name] -= 1
            if indegree[s.name] == 0:
                heapq.heappush(heap, (s.index, s.name))
    if len(order) != len(specs):
        stuck = sorted((s for s in specs if indegree[s.name] > 0), key=lambda s: s.index)
        raise ValueError(
            f"{where} has a cycle through data inputs among nodes "
            f"{', '.join(repr(s.name) for s in stuck[:10])}; only control inputs may form cycles"
        )
    return order


class _Importer:
    """Rebuilds nodes and library functions of one graph_def (one call of import_graph_def)."""

    def __init__(self, graph_def: Mapping[str, Any], root: Graph):
        """Parses the library and checks every op type; ``root`` holds existing functions."""
        library = graph_def.get("library") or {}
        functions = library.get("function", []) if isinstance(library, Mapping) else None
        if not isinstance(functions, list):
            raise ValueError("graph_def 'library' must be {'function': [...]}")
        self.library: dict[str, Mapping[str, Any]] = {}
        for fd in functions:
            if not isinstance(fd, Mapping) or not isinstance(fd.get("name"), str):
                raise ValueError(f"graph_def library entry without a name: {fd!r}")
            if fd["name"] in self.library:
                raise ValueError(f"graph_def library defines function '{fd['name']}' twice")
            self.library[fd["name"]] = fd
        self.built: dict[str, FuncGraph] = {}
        self.resolvers: dict[Graph, Callable[[str], Output]] = {}
        self.registered: list[tuple[Graph, FuncGraph]] = []
        self.building: set[str] = set()
        self.taken = {f.name for f in _collect_functions(root)}
        # Function bodies are parsed up front so an unknown op type fails before any building.
        self.function_specs = {
            fname: self._parse_nodes(fd.get("node", []), f"function '{fname}'")
            for fname, fd in self.library.items()
        }

    @staticmethod
    def _parse_nodes(nodes: Any, where: str) -> list[_NodeSpec]:
        if not isinstance(nodes, list):
            raise ValueError(f"{where}: 'node' must be a list")
        specs = [_NodeSpec(i, n, where) for i, n in enumerate(nodes)]
        names: dict[str, str] = {}
        for s in specs:
            # Graph names are unique case-insensitively, so 'A' and 'a' could not both import.
            key = s.name.lower()
            if key in names:
                raise ValueError(f"{where}: duplicate node name '{s.name}' (or '{names[key]}')")
            names[key] = s.name
        exact = set(names.values())
        for s in specs:
            for src in [src for src, _ in s.data] + s.control:
                if src not in exact:
                    raise ValueError(
                        f"{where}: node '{s.name}' has an input from unknown node '{src}'"
                    )
        return specs

    def function(
        self, name: Any, outer: Graph, resolve_outer: Callable[[str], Output]
    ) -> FuncGraph:
        """The rebuilt FuncGraph for library function ``name`` (built on first reference).

        ``outer`` is the graph of the node that names it; ``resolve_outer`` maps a def
        tensor name of that graph to its rebuilt Output (for the function's captures).
        """
        if not isinstance(name, str):
            raise ValueError(f"func attr must name a function, got {name!r}")
        hit = self.built.get(name)
        if hit is not None:
            return hit
        fd = self.library.get(name)
        if fd is None:
            raise ValueError(f"graph_def refers to function '{name}' which its library lacks")
        if name in self.building:
            raise ValueError(f"graph_def function '{name}' refers to itself")
        self.building.add(name)
        new_name = name
        k = 0
        while new_name in self.taken:  # importing the same def twice must not alias functions
            k += 1
            new_name = f"{name}_{k}"
        self.taken.add(new_name)
        fg = FuncGraph(name=new_name, outer_graph=outer)
        where = f"function '{name}'"
        # Captures are restored while the body is built: shape functions inside follow them
        # to the outer values (e.g. a captured variable handle's dtype and shape).
        pending: dict[tuple[str, int], Output] = {}
        for pair in fd.get("captures", []):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError(f"{where}: a capture must be [outer, inner], got {pair!r}")
            src, i, _ = _parse_ref(pair[1], where)
            pending[(src, i)] = resolve_outer(pair[0])

        def on_built(op_name: str, op: Operation) -> None:
            for i, o in enumerate(op.outputs):
                outer_value = pending.get((op_name, i))
                if outer_value is not None:
                    fg.captures[outer_value] = o

        ops = self.build(self.function_specs[name], Scope(fg), where, {}, {}, on_built=on_built)

        def out(ref: str) -> Output:
            src, i, _ = _parse_ref(ref, where)
            if src not in ops:
                raise ValueError(f"{where}: '{ref}' is not a node of it")
            return self._output(ops, src, i, where)

        def op_named(ref: str) -> Operation:
            if ref not in ops:
                raise ValueError(f"{where}: control output '{ref}' is not a node of it")
            return ops[ref]

        fg.inputs = [out(r) for r in fd.get("inputs", [])]
        fg.outputs = [out(r) for r in fd.get("outputs", [])]
        fg.control_outputs = [op_named(r) for r in fd.get("control_outputs", [])]
        # As tm.cond and tm.while_loop do, every function is registered on the root graph.
        root = root_graph(outer)
        root._register_function(fg)
        self.registered.append((root, fg))
        self.building.discard(name)
        self.built[name] = fg
        return fg

    @staticmethod
    def _output(ops: Mapping[str, Operation], src: str, i: int, where: str) -> Output:
        op = ops[src]
        if i >= len(op.outputs):
            raise ValueError(
                f"{where}: '{src}:{i}' does not exist; node '{src}' ({op.type}) has "
                f"{len(op.outputs)} output(s)"
            )
        return op.outputs[i]

    def build(
        self,
        specs: list[_NodeSpec],
        scope: Scope,
        where: str,
        input_map: Mapping[tuple[str, int], Output],
        control_map: Mapping[str, Operation],
        extra_control: Sequence[Operation] = (),
        on_built: Callable[[str, Operation], None] | None = None,
    ) -> dict[str, Operation]:
        """Builds ``specs`` under ``scope`` with exact names; returns def name -> Operation."""
        graph = scope.graph
        prefix = scope.name_prefix
        for s in specs:
            full = f"{prefix}/{s.name}" if prefix else s.name
            if graph.unique_name(full, mark_as_used=False) != full:
                raise ValueError(
                    f"Cannot import node '{s.name}' of {where} as '{full}': that name is "
                    "already used in the target graph (import under another name= prefix)"
                )
        ops: dict[str, Operation] = {}

        def resolve(ref: str) -> Output:
            src, i, _ = _parse_ref(ref, where)
            mapped = input_map.get((src, i))
            if mapped is not None:
                return mapped
            if src not in ops:
                raise ValueError(f"{where}: '{ref}' is not built yet or not a node of it")
            return self._output(ops, src, i, where)

        def function(fname: str) -> FuncGraph:
            return self.function(fname, graph, resolve)

        for s in _data_order(specs, where):
            node_where = f"node '{s.name}' of {where}"
            attrs = {}
            for k, v in s.attr.items():
                try:
                    attrs[k] = _decode_attr(v, s.op_def.attr(k), function)
                except (TypeError, ValueError) as e:
                    if f"node '{s.name}'" in str(e) or "function '" in str(e):
                        raise
                    cls = TypeError if isinstance(e, TypeError) else ValueError
                    raise cls(f"{e} (attr '{k}' of {node_where})") from e
            flat = []
            for src, i in s.data:
                mapped = input_map.get((src, i))
                flat.append(mapped if mapped is not None else self._output(ops, src, i, node_where))
            inputs = _group_inputs(s.op_def, attrs, flat, node_where)
            try:
                node_scope = scope.with_device(s.device) if s.device else scope
            except (TypeError, ValueError) as e:
                cls = TypeError if isinstance(e, TypeError) else ValueError
                raise cls(f"{e} (device of {node_where})") from e
            try:
                op = build_op(node_scope, s.op_def, inputs, attrs, name=s.name)
            except (TypeError, ValueError) as e:
                cls = TypeError if isinstance(e, TypeError) else ValueError
                raise cls(f"{e} (while importing {node_where})") from e
            full = f"{prefix}/{s.name}" if prefix else s.name
            if op.name != full:  # the pre-check makes this unreachable unless names race
                raise ValueError(f"Imported {node_where} came out named '{op.name}', not '{full}'")
            ops[s.name] = op
            if on_built is not None:
                on_built(s.name, op)
        # Control inputs last: every node exists by now, so even a cycle through them imports.
        for s in specs:
            op = ops[s.name]
            for src in s.control:
                op._add_control_input(control_map.get(src) or ops[src])
            if extra_control and not s.data and not s.control:
                op._add_control_inputs(extra_control)
        self.resolvers[graph] = resolve
        return ops


def _import_scope(outer: Scope, name: str | None) -> Scope:
    scope = outer.without_control_dependencies()
    if name is None:
        name = "import"
    if not name:
        return scope
    if not isinstance(name, str) or not VALID_SCOPE_NAME_REGEX.match(name):
        raise ValueError(f"'{name}' is not a valid scope name")
    if name.endswith("/"):  # TensorFlow's name_scope: a trailing slash re-enters exactly
        return evolve(scope, name_prefix=name.rstrip("/"), op_name=None)
    full = f"{scope.name_prefix}/{name}" if scope.name_prefix else name
    return evolve(scope, name_prefix=scope.graph.unique_name(full), op_name=None)


def _as_output(value: Any, key: str) -> Output:
    if isinstance(value, Output):
        return value
    if hasattr(value, "as_output") and not isinstance(value, Operation):
        return value.as_output()
    raise TypeError(f"input_map[{key!r}] must be a Tensor (tm.Output), got {value!r}")


def import_graph_def(
    graph_def: Mapping[str, Any],
    input_map: Mapping[str, Any] | None = None,
    return_elements: Iterable[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
) -> list | None:
    """Imports a graph_def (``Graph.as_graph_def()``, maybe through JSON) into the default graph.

    As ``tf.compat.v1.import_graph_def``: nodes are built under the name scope
    ``name`` (``"import"``, made unique, by default; ``""`` for none) with their
    exact names, through the one op builder, so shape functions run again and
    a bad def fails where it is wrong. Nodes are built in topological order of
    their data inputs; control inputs are added once every node exists, so a
    def whose control inputs form a cycle imports (running it then fails with
    InvalidArgumentError "Graph contains a cycle"). Library functions are
    rebuilt as FuncGraphs before the first node that names them. Ops built
    inside an ambient ``tm.control_dependencies`` block make imported nodes
    without inputs wait for those ops; the ambient device applies to nodes
    without one. Imported ops are "defined at" the ``import_graph_def`` call. The import is
    all or nothing: when it fails, the graph is left as it was (ops, names, functions).

    Args:
        graph_def: The dict (see :mod:`tfmini.core.serialize`).
        input_map: Def tensor names (``"x:0"`` or ``"x"``) to Outputs of the
            default graph that replace them as inputs of imported nodes;
            ``"^x"`` maps control inputs on ``x`` to an Operation (or a
            tensor's op). The replaced nodes are still imported.
        return_elements: Def names to return: ``"y:0"`` gives the imported
            Output, ``"y"`` the imported Operation.
        name: Prefix for the imported names (default ``"import"``).
        op_dict: Ignored (deprecated in TensorFlow too).

    Returns:
        The list of requested elements, in order, or None without ``return_elements``.

    Raises:
        NotFoundError: a node uses an op type that is not registered (the
            message lists close matches).
        ValueError: malformed def, unknown inputs, a data-input cycle, names
            that are taken, input_map keys or return_elements not in the def,
            or a shape function rejecting a node.
        TypeError: attrs or input dtypes that do not fit an op.
    """
    del op_dict  # accepted for TensorFlow compatibility
    # Every node and function is checked before anything is built (bounded, iterative).
    validate_graph_def(graph_def)
    where = "graph_def"
    # Functions live on the root graph, even when importing into a function being built.
    importer = _Importer(graph_def, root_graph(current_scope().graph))
    specs = _Importer._parse_nodes(graph_def.get("node", []), where)
    by_name = {s.name: s for s in specs}

    data_map: dict[tuple[str, int], Output] = {}
    control_map: dict[str, Operation] = {}
    missing = []
    for key, value in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys must be tensor names, got {key!r}")
        src, i, is_control = _parse_ref(key, "input_map")
        if src not in by_name:
            missing.append(key)
        elif is_control:
            op = value if isinstance(value, Operation) else _as_output(value, key).op
            control_map[src] = op
        else:
            data_map[(src, i)] = _as_output(value, key)
    if missing:
        raise ValueError(
            f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]"
        )
    wanted = None
    if return_elements is not None:
        if isinstance(return_elements, str):
            raise TypeError("return_elements must be a list of names, not a string")
        wanted = list(return_elements)
        for r in wanted:
            src = r.rpartition(":")[0] if re.search(r":\d+$", str(r)) else r
            if not isinstance(r, str) or src not in by_name:
                raise ValueError(f"Requested return_element {r!r} not found in graph_def.")

    outer = current_scope()
    graph = outer.graph
    # All or nothing, as TensorFlow's import: a failure halfway (a shape function rejecting
    # a node, a bad return element) takes back the ops, names and functions added so far.
    with graph._lock:
        checkpoint = graph._checkpoint()
        try:
            return _import(importer, specs, outer, name, data_map, control_map, wanted)
        except BaseException:
            graph._rollback(checkpoint)
            for root, fn in importer.registered:
                if root.functions.get(fn.name) is fn:
                    del root._functions[fn.name]
            raise
        finally:
            graph._end_build()


def _import(
    importer: _Importer,
    specs: list[_NodeSpec],
    outer: Scope,
    name: str | None,
    data_map: Mapping[tuple[str, int], Output],
    control_map: Mapping[str, Operation],
    wanted: list[str] | None,
) -> list | None:
    scope = _import_scope(outer, name)
    ops = importer.build(
        specs, scope, "graph_def", data_map, control_map, extra_control=outer.control_dependencies
    )
    for src, i in data_map:
        if i >= len(ops[src].outputs):
            raise ValueError(
                f"Attempted to map inputs that were not found in graph_def: [{src}:{i}]"
            )
    # Library functions no node names (e.g. kept only for gradients) are rebuilt as well.
    for fname in importer.library:
        importer.function(fname, scope.graph, importer.resolvers[scope.graph])
    if wanted is None:
        return None
    result: list = []
    for r in wanted:
        if re.search(r":\d+$", r):
            src, _, index = r.rpartition(":")
            result.append(_Importer._output(ops, src, int(index), "return_elements"))
        else:
            result.append(ops[r])
    return result
