"""The graph IR: Graph, Operation and Output (TensorFlow's Tensor).

Graph nodes are identities (``@define(eq=False)``): they hash by identity and
key dicts and networkx graphs. An Operation is immutable once built, except
that control inputs may be added later (``_add_control_input``), as in
TensorFlow; that is the only way a cycle can enter a graph, and planning
reports it.
"""

from __future__ import annotations

import re
import threading
import types
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import define, field

from tfmini.core import context
from tfmini.core.dtypes import DType
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.core.source import SourceLocation

if TYPE_CHECKING:
    from tfmini.core.opdef import OpDef

# TensorFlow's node-name pattern (ops/graph building): first character then the rest.
VALID_OP_NAME_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
VALID_SCOPE_NAME_REGEX = re.compile(r"^[A-Za-z0-9_.\-/>]*$")
NAME_PATTERN_TEXT = "[A-Za-z0-9.][A-Za-z0-9_.\\-/>]*"


def check_op_name(name: str) -> None:
    """Raises ValueError if ``name`` is not a valid TensorFlow node name."""
    if name is None:
        raise ValueError("Names cannot be None")
    if not isinstance(name, str) or not VALID_OP_NAME_REGEX.match(name):
        raise ValueError(
            f"'{name}' is not a valid node name: it must match the regular expression "
            f"{NAME_PATTERN_TEXT}"
        )


# Operator overloads on Output are installed by the ops layer (core knows no op by name).
# The graph's own conversions and its default-graph context are carried out by modules that
# import this one (core.serialize writes graph_defs, core.inspect draws, core.scope keeps the
# scope stacks). They
# install their functions here when imported (``import tfmini`` imports them all), so imports
# run one way: those modules depend on the graph, never the reverse.
_SERVICES: dict[str, Callable] = {}


def install_graph_service(name: str, fn: Callable) -> None:
    """Installs ``fn`` as the graph service ``name`` (called by core.serialize, core.scope)."""
    _SERVICES[name] = fn


def _graph_service(name: str) -> Callable:
    try:
        return _SERVICES[name]
    except KeyError:
        raise RuntimeError(
            f"{name} is provided by a tfmini module that has not been imported: import tfmini"
        ) from None


_OPERATOR_OVERRIDES: dict[str, Callable] = {}


def register_operator_override(dunder: str, fn: Callable) -> None:
    """Installs the function behind ``Output.<dunder>`` (called by ``tfmini.ops``)."""
    _OPERATOR_OVERRIDES[dunder] = fn


def _overloaded(dunder: str):
    def method(self, *args):
        try:
            fn = _OPERATOR_OVERRIDES[dunder]
        except KeyError:
            return NotImplemented
        return fn(self, *args)

    method.__name__ = dunder
    return method


@define(eq=False, repr=False)
class Output:
    """One output of an Operation: TensorFlow's symbolic ``Tensor``.

    Implements the Operand protocol (``as_output()``), Python operators
    (``+ - * / // % ** @``, unary ``-``, ``abs``, comparisons ``< <= > >=``,
    ``& | ~``) and ``x[...]`` slicing. ``==`` is identity, as in TF1 graph mode,
    so Outputs can key dicts.
    """

    op: Operation
    value_index: int
    dtype: DType
    _shape: TensorShape
    _consumers: list = field(factory=list)

    # NumPy must hand binary operators back to us instead of broadcasting over an object.
    __array_priority__ = 100
    __array_ufunc__ = None

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self) -> Graph:
        return self.op.graph

    @property
    def device(self) -> str:
        return self.op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape; ValueError if incompatible (as TensorFlow)."""
        self._shape = self._shape.merge_with(as_shape(shape))

    @property
    def ndim(self) -> int | None:
        return self._shape.rank

    def consumers(self) -> list[Operation]:
        """The ops that take this output as a data input."""
        return list(self._consumers)

    def as_output(self) -> Output:
        return self

    def eval(self, feed_dict=None, session=None):
        """Runs the default (or given) session and returns this output's value."""
        session = session or context.get_default_session()
        if session is None:
            raise ValueError(
                "Cannot evaluate tensor using `eval()`: No default session is registered. "
                "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`"
            )
        return session.run(self, feed_dict=feed_dict)

    def __repr__(self) -> str:
        return f"<tm.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a `tm.Tensor` as a Python `bool` is not allowed in graph mode. "
            "Use `tm.cond` to execute subgraphs conditioned on the value of a tensor."
        )

    def __iter__(self):
        raise TypeError(f"Tensor {self.name} is not iterable in graph mode.")

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for symbolic Tensors ({self.name}); use tm.shape()."
        )

    __hash__ = object.__hash__
    __add__ = _overloaded("__add__")
    __radd__ = _overloaded("__radd__")
    __sub__ = _overloaded("__sub__")
    __rsub__ = _overloaded("__rsub__")
    __mul__ = _overloaded("__mul__")
    __rmul__ = _overloaded("__rmul__")
    __truediv__ = _overloaded("__truediv__")
    __rtruediv__ = _overloaded("__rtruediv__")
    __floordiv__ = _overloaded("__floordiv__")
    __rfloordiv__ = _overloaded("__rfloordiv__")
    __mod__ = _overloaded("__mod__")
    __rmod__ = _overloaded("__rmod__")
    __pow__ = _overloaded("__pow__")
    __rpow__ = _overloaded("__rpow__")
    __matmul__ = _overloaded("__matmul__")
    __rmatmul__ = _overloaded("__rmatmul__")
    __neg__ = _overloaded("__neg__")
    __abs__ = _overloaded("__abs__")
    __lt__ = _overloaded("__lt__")
    __le__ = _overloaded("__le__")
    __gt__ = _overloaded("__gt__")
    __ge__ = _overloaded("__ge__")
    __and__ = _overloaded("__and__")
    __rand__ = _overloaded("__rand__")
    __or__ = _overloaded("__or__")
    __ror__ = _overloaded("__ror__")
    __xor__ = _overloaded("__xor__")
    __rxor__ = _overloaded("__rxor__")
    __invert__ = _overloaded("__invert__")
    __getitem__ = _overloaded("__getitem__")


Tensor = Output


@define(eq=False, repr=False)
class Operation:
    """A node of the graph: one instance of a registered op type.

    Attributes are frozen once built (``attrs`` is a read-only mapping).
    """

    graph: Graph
    name: str
    type: str
    op_def: OpDef
    inputs: tuple[Output, ...]
    _control_inputs: list[Operation]
    _attrs: Mapping[str, Any]
    device: str
    defined_at: SourceLocation
    _id: int
    outputs: tuple[Output, ...] = ()
    # The op this one was built under ``colocate_with`` (None: none): the placer of a
    # distributed run checks it against the op's resources (tfmini/distribute/partition.py).
    colocation_op: Operation | None = None

    @property
    def attrs(self) -> Mapping[str, Any]:
        return self._attrs

    @property
    def control_inputs(self) -> tuple[Operation, ...]:
        return tuple(self._control_inputs)

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    def output(self, i: int) -> Output:
        return self.outputs[i]

    def values(self) -> tuple[Output, ...]:
        return self.outputs

    def get_attr(self, name: str) -> Any:
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    @property
    def node_def(self) -> dict:
        """A plain description of this node (TensorFlow's NodeDef, as a dict)."""
        return _graph_service("node_to_dict")(self)

    def _add_control_input(self, op: Operation) -> None:
        """Adds a control input after construction (TensorFlow allows it; may make cycles)."""
        if op.graph is not self.graph:
            raise ValueError(f"Control input {op.name} is from a different graph than {self.name}")
        if op not in self._control_inputs:
            self._control_inputs.append(op)

    def _add_control_inputs(self, ops: Sequence[Operation]) -> None:
        for op in ops:
            self._add_control_input(op)

    def run(self, feed_dict=None, session=None) -> None:
        """Runs this op in the default (or given) session."""
        session = session or context.get_default_session()
        if session is None:
            raise ValueError(
                "Cannot execute operation using `run()`: No default session is registered."
            )
        session.run(self, feed_dict=feed_dict)

    def as_output(self) -> Output:
        if len(self.outputs) == 1:
            return self.outputs[0]
        raise TypeError(
            f"Operation '{self.name}' ({self.type}) has {len(self.outputs)} outputs; "
            "pick one with op.outputs[i]"
        )

    def __repr__(self) -> str:
        return f"<tm.Operation '{self.name}' type={self.type}>"

    __hash__ = object.__hash__


@define(eq=False, repr=False)
class Graph:
    """A dataflow graph: Operations connected by Outputs.

    Use ``with g.as_default():`` to make it the target of the TF1-style
    functions, or build with an explicit ``tm.Scope(g)``.
    """

    _operations: list[Operation] = field(factory=list)
    _by_name: dict[str, Operation] = field(factory=dict)
    _names_in_use: dict[str, int] = field(factory=dict)
    _collections: dict[str, list] = field(factory=dict)
    _lock: threading.RLock = field(factory=threading.RLock)
    _finalized: bool = False
    _functions: dict[str, Any] = field(factory=dict)
    # Undo journal of name reservations made while a build is in progress (see _checkpoint).
    _build_depth: int = 0
    # The graph-level random seed (``tm.set_random_seed``); ops derive their seeds from it.
    seed: int | None = None
    _name_log: list = field(factory=list)
    # Operation -> name of the gradient function that replaces its type's (see
    # gradient_override_map).
    _gradient_overrides: dict = field(factory=dict)

    # -- naming -------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """Returns ``name`` or ``name_1``, ``name_2``... so no op or scope name is reused.

        The counting is TensorFlow's (case-insensitive keys; a name taken
        explicitly is never handed out again).
        """
        with self._lock:
            key = name.lower()
            i = self._names_in_use.get(key, 0)
            if mark_as_used:
                self._mark_name(key, i + 1)
            if i > 0:
                base = key
                while key in self._names_in_use:
                    key = f"{base}_{i}"
                    i += 1
                if mark_as_used:
                    self._mark_name(key, 1)
                name = f"{name}_{i - 1}"
            return name

    def _mark_name(self, key: str, count: int) -> None:
        if self._build_depth:
            self._name_log.append((key, self._names_in_use.get(key)))
        self._names_in_use[key] = count

    # -- ops ----------------------------------------------------------------------
    def _add_op(self, op: Operation) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if op.name in self._by_name:
            raise ValueError(f"Duplicate node name in graph: '{op.name}'")
        self._operations.append(op)
        self._by_name[op.name] = op
        for inp in op.inputs:
            inp._consumers.append(op)

    def _next_id(self) -> int:
        return len(self._operations)

    def _checkpoint(self) -> tuple[int, int]:
        """Starts a build that ``_rollback`` can undo; pair with ``_end_build``.

        Hold ``_lock`` from here to ``_end_build``. Name reservations are journaled
        (not snapshotted: copying every name per op would make building quadratic).
        """
        self._build_depth += 1
        return len(self._operations), len(self._name_log)

    def _end_build(self) -> None:
        self._build_depth -= 1
        if not self._build_depth:
            self._name_log.clear()

    def _rollback(self, checkpoint: tuple[int, int]) -> None:
        """Removes the ops added and the names reserved since ``checkpoint``.

        A build that fails halfway (a literal converted to a Const, then a
        shape error) must leave the graph as it was, names included, as
        TensorFlow does: the op the user retries gets the name they expect.
        """
        count, logged = checkpoint
        removed: set[Operation] = set()
        while len(self._operations) > count:
            op = self._operations.pop()
            removed.add(op)
            del self._by_name[op.name]
            for inp in op.inputs:
                consumers = inp._consumers
                for i in range(len(consumers) - 1, -1, -1):
                    if consumers[i] is op:
                        del consumers[i]
                        break
        log = self._name_log
        while len(log) > logged:
            key, previous = log.pop()
            if previous is None:
                del self._names_in_use[key]
            else:
                self._names_in_use[key] = previous
        self._forget_removed_ops(removed)

    def _forget_removed_ops(self, removed: set[Operation]) -> None:
        # A FuncGraph records captured arguments; a capture made by the failed build must
        # go with its placeholder, or the function would pass a value to a missing op.
        captures = getattr(self, "captures", None)
        if removed and isinstance(captures, dict):
            for outer, inner in list(captures.items()):
                if inner.op in removed:
                    del captures[outer]
            inputs = getattr(self, "inputs", None)
            if isinstance(inputs, list):
                inputs[:] = [o for o in inputs if o.op not in removed]

    def get_operations(self) -> list[Operation]:
        """All operations, in creation order."""
        with self._lock:
            return list(self._operations)

    @property
    def operations(self) -> list[Operation]:
        return self.get_operations()

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(
                f"Operation names are strings (or similar), not {type(name).__name__}."
            )
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str) -> Output:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(
                f"The name '{name}' looks like an Operation name, not a Tensor name "
                "(Tensor names have the form '<op_name>:<output_index>')."
            )
        op = self.get_operation_by_name(op_name)
        i = int(index)
        if i >= len(op.outputs):
            raise KeyError(
                f"The name '{name}' refers to a Tensor which does not exist: "
                f"operation '{op_name}' has {len(op.outputs)} outputs."
            )
        return op.outputs[i]

    def as_graph_element(self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True):
        """Resolves an Output, Operation or a name (``"x:0"`` / ``"x"``) in this graph."""
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if ":" in obj:
                raise ValueError(
                    f"The name {obj!r} appears to refer to a Tensor, not a Operation."
                )
            if allow_operation:
                return self.get_operation_by_name(obj)
            return self.get_tensor_by_name(obj)
        if isinstance(obj, (Output, Operation)):
            allowed = allow_tensor if isinstance(obj, Output) else allow_operation
            if not allowed:
                want = "Tensor" if allow_tensor else "Operation"
                kind = "Tensor" if isinstance(obj, Output) else "Operation"
                raise TypeError(f"Can not convert a {kind} into a {want}.")
            if obj.graph is not self:
                raise ValueError(f"{obj!r} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a graph element.")

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    @property
    def version(self) -> int:
        return len(self._operations)

    # -- default graph ------------------------------------------------------------
    def as_default(self):
        """Context manager making this graph (with a fresh root scope) the default."""
        return _graph_service("default_graph_context")(self)

    def finalize(self) -> None:
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def _capture(self, output: Output) -> Output:
        """Makes ``output`` of another graph usable here; plain graphs refuse."""
        raise ValueError(
            f"Tensor {output.name} must be from the same graph as the op being built "
            f"(it belongs to another graph)."
        )

    def _is_ancestor_of(self, other: Graph) -> bool:
        g = getattr(other, "outer_graph", None)
        while g is not None:
            if g is self:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    # -- collections --------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value: Any) -> None:
        for n in [names] if isinstance(names, str) else names:
            self.add_to_collection(n, value)

    def get_collection(self, name: str, scope: str | None = None) -> list:
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        # As TensorFlow: items without a name never match a scope filter.
        return [i for i in items if isinstance(getattr(i, "name", None), str)
                and pattern.match(i.name)]

    def get_collection_ref(self, name: str) -> list:
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> list[str]:
        return list(self._collections)

    def clear_collection(self, name: str) -> None:
        with self._lock:
            self._collections.pop(name, None)

    # -- functions (sub-graphs referenced by control-flow attrs) --------------------
    def _register_function(self, fn: Any) -> None:
        """Adds a function to the library; a name already taken by another function is
        replaced by ``name_1``, ``name_2``... (ops hold the function itself, not its name)."""
        with self._lock:
            if self._functions.get(fn.name, fn) is not fn:
                base, i = fn.name, 1
                while f"{base}_{i}" in self._functions:
                    i += 1
                fn.name = f"{base}_{i}"
            self._functions[fn.name] = fn

    @property
    def functions(self) -> Mapping[str, Any]:
        return types.MappingProxyType(self._functions)

    # -- inspection ---------------------------------------------------------------
    def to_networkx(self):
        """The graph as a ``networkx.MultiDiGraph`` (see docs/inspection.md)."""
        return _graph_service("to_networkx")(self)

    def to_dot(self) -> str:
        """DOT text of the graph, produced through networkx and pydot."""
        return _graph_service("to_dot")(self)

    def gradient_override_map(self, op_type_map: Mapping[str, str]):
        """Context manager: ops of the mapped types built inside use the gradient function
        registered (``tm.RegisterGradient``) under the mapped name (TF's
        ``Graph.gradient_override_map``).

        Example::

            @tm.RegisterGradient("ClipGrad")
            def _clip_grad(op, dy):
                return tm.clip_by_value(dy, -1.0, 1.0)

            with g.gradient_override_map({"Identity": "ClipGrad"}):
                y = tm.identity(x)

        Raises:
            TypeError: keys or values are not strings.
        """
        if not isinstance(op_type_map, Mapping):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for k, v in op_type_map.items():
            if not (isinstance(k, str) and isinstance(v, str)):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        return _OverrideContext(self, dict(op_type_map))

    def gradient_override_of(self, op: Operation) -> str | None:
        """The gradient name ``op`` was built to use under ``gradient_override_map``, or None."""
        return self._gradient_overrides.get(op)

    def as_graph_def(self) -> dict:
        """A plain, JSON-serialisable description; ``tm.import_graph_def`` reads it back."""
        return _graph_service("graph_to_dict")(self)

    def __repr__(self) -> str:
        return f"<tm.Graph with {len(self._operations)} ops at {id(self):#x}>"

    __hash__ = object.__hash__


class _OverrideContext:
    """The context of ``Graph.gradient_override_map``: marks the ops built inside."""

    def __init__(self, graph: Graph, mapping: dict[str, str]):
        self._graph = graph
        self._mapping = mapping
        self._start = 0

    def __enter__(self) -> None:
        self._start = len(self._graph._operations)

    def __exit__(self, *exc: Any) -> None:
        for op in self._graph._operations[self._start:]:
            name = self._mapping.get(op.type)
            if name is not None and op not in self._graph._gradient_overrides:
                self._graph._gradient_overrides[op] = name

