"""The immutable Scope (TensorFlow Java's style) and the TF1 ambient conveniences.

A :class:`Scope` bundles a graph, a name prefix, control dependencies and a
device. Every ``with_*`` method returns a new Scope. The TF1 conveniences
(``Graph.as_default``, ``name_scope``, ``control_dependencies``, ``device``)
keep a current Scope per thread and build through the same builder.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable
from typing import Any

from attrs import evolve, field, frozen

from tfmini.core.devices import DeviceSpec, canonical_device
from tfmini.core.graph import (
    VALID_OP_NAME_REGEX,
    VALID_SCOPE_NAME_REGEX,
    Graph,
    Operation,
    Output,
    install_graph_service,
)

# A single name component (no "/"): the Java API's pattern.
_COMPONENT_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-]*$")
COMPONENT_PATTERN_TEXT = "[A-Za-z0-9.][A-Za-z0-9_.\\-]*"


def check_name_component(name: Any) -> str:
    """Returns ``name`` if it is a valid op or scope name component, else raises ValueError."""
    if name is None:
        raise ValueError("Names cannot be None")
    if not isinstance(name, str) or not _COMPONENT_REGEX.match(name):
        raise ValueError(
            f"invalid name: '{name}' does not match the regular expression {COMPONENT_PATTERN_TEXT}"
        )
    return name


def _as_control_op(item: Any) -> Operation:
    if isinstance(item, Operation):
        return item
    if isinstance(item, Output):
        return item.op
    op = getattr(item, "op", None)
    if isinstance(op, Operation):
        return op
    raise TypeError(f"Control dependency must be an Operation or Tensor, got {item!r}")


@frozen
class Scope:
    """Where and how the next ops are built.

    Example::

        scope = tm.Scope(g)
        layer = scope.with_sub_scope("layer1")
        add = tm.ops.Add.create(layer, x, y)     # named "layer1/Add"
    """

    graph: Graph
    name_prefix: str = ""
    control_dependencies: tuple[Operation, ...] = field(default=(), converter=tuple)
    device: str = ""
    op_name: str | None = None
    # TF1's device-function stack since its last ``device(None)`` break, outermost first:
    # canonical strings and callables ``fn(op) -> device``. Empty while only strings were
    # pushed (``device`` holds their merge then); see :func:`apply_device_stack`.
    device_stack: tuple = ()
    # ``colocate_with``: the op whose device new ops take (None: no colocation).
    colocate_op: Operation | None = None

    def with_sub_scope(self, name: str) -> Scope:
        """A scope whose ops are named ``<prefix>/<name>/...``; ``name`` made unique."""
        check_name_component(name)
        if self.op_name is not None:
            name = self.op_name
        full = f"{self.name_prefix}/{name}" if self.name_prefix else name
        unique = self.graph.unique_name(full)
        return evolve(self, name_prefix=unique, op_name=None)

    def with_name(self, op_name: str) -> Scope:
        """A scope whose next op is named ``op_name`` (made unique if taken)."""
        check_name_component(op_name)
        return evolve(self, op_name=op_name)

    def with_control_dependencies(self, ops: Iterable[Any]) -> Scope:
        """A scope whose ops also wait for ``ops`` (Operations or Outputs)."""
        extra = [_as_control_op(o) for o in ops]
        for op in extra:
            # Dropping it silently would let the op run unordered; an enclosing graph's op is
            # fine (a function body inherits its caller's dependencies).
            if op.graph is not self.graph and not op.graph._is_ancestor_of(self.graph):
                raise ValueError(
                    f"Control dependency {op.name} is not an element of this graph."
                )
        merged = list(self.control_dependencies)
        for op in extra:
            if op not in merged:
                merged.append(op)
        return evolve(self, control_dependencies=tuple(merged))

    def without_control_dependencies(self) -> Scope:
        return evolve(self, control_dependencies=())

    def with_device(self, spec: str | None) -> Scope:
        """A scope whose ops are placed on ``spec`` (``"/device:TPU:0"``; None clears)."""
        return evolve(self, device=canonical_device(spec), device_stack=())

    def with_pushed_device(self, spec: Any) -> Scope:
        """This scope inside ``tf.device(spec)`` (see :func:`device`)."""
        if spec is None:
            return evolve(self, device="", device_stack=())
        if callable(spec) and not isinstance(spec, (str, DeviceSpec)):
            stack = self.device_stack or ((self.device,) if self.device else ())
            return evolve(self, device="", device_stack=stack + (spec,))
        if self.device_stack:
            return evolve(self, device_stack=self.device_stack + (canonical_device(spec),))
        outer = DeviceSpec.from_string(self.device)
        return evolve(self, device=outer.merge_from(DeviceSpec.from_string(spec)).to_string())

    def make_op_name(self, default_name: str, mark_as_used: bool = True) -> str:
        """The unique name of the next op: ``prefix/<op_name or default_name>``."""
        base = self.op_name if self.op_name is not None else default_name
        full = f"{self.name_prefix}/{base}" if self.name_prefix else base
        return self.graph.unique_name(full, mark_as_used=mark_as_used)


# ---------------------------------------------------------------------------------------
# The TF1 ambient state: a per-thread stack of scopes over one process-wide default graph.

_local = threading.local()
_global_default_graph: Graph | None = None
_global_lock = threading.Lock()


def _stack() -> list[Scope]:
    stack = getattr(_local, "scopes", None)
    if stack is None:
        stack = _local.scopes = []
    return stack


def _global_graph() -> Graph:
    global _global_default_graph
    with _global_lock:
        if _global_default_graph is None:
            _global_default_graph = Graph()
        return _global_default_graph


def get_default_graph() -> Graph:
    """The graph that TF1-style functions build into on this thread."""
    stack = _stack()
    return stack[-1].graph if stack else _global_graph()


def reset_default_graph() -> None:
    """Replaces the process-wide default graph with a new, empty one."""
    global _global_default_graph
    if _stack():
        raise AssertionError(
            "Do not use tm.reset_default_graph() to clear nested graphs. "
            "If you need a cleared graph, exit the nesting and create a new graph."
        )
    with _global_lock:
        _global_default_graph = Graph()


def current_scope() -> Scope:
    """The innermost ambient scope of this thread (the default graph's root if none)."""
    stack = _stack()
    return stack[-1] if stack else Scope(_global_graph())


@contextlib.contextmanager
def scope_context(scope: Scope):
    """Makes ``scope`` the ambient scope for the ``with`` block."""
    stack = _stack()
    stack.append(scope)
    try:
        yield scope
    finally:
        stack.pop()


@contextlib.contextmanager
def default_graph_context(graph: Graph):
    # TensorFlow keeps name scope, control dependencies and device per graph (and thread), so
    # re-entering a graph already on this thread's stack (``with sess:`` inside a name scope)
    # continues where that graph was; a graph not on the stack starts at its root.
    stack = _stack()
    scope = next((s for s in reversed(stack) if s.graph is graph), None)
    with scope_context(scope if scope is not None else Scope(graph)):
        yield graph


install_graph_service("default_graph_context", default_graph_context)  # Graph.as_default


@contextlib.contextmanager
def name_scope(name: str | None, default_name: str | None = None, values: Any = None):
    """TF1 ``tf.name_scope``: ops built inside are named ``<scope>/<op>``.

    ``name`` ending in ``/`` re-enters that exact scope; ``None`` or ``""``
    returns to the root. Yields the scope name with a trailing slash.
    """
    graph = _graph_of(values)
    if graph is not None and graph is not current_scope().graph:
        # TF1: a name scope given tensors builds in their graph (library code relies on it).
        with default_graph_context(graph):
            with name_scope(name, default_name) as scope:
                yield scope
        return
    cur = current_scope()
    if name is None and default_name is not None:
        name = default_name
    if not name:
        with scope_context(evolve(cur, name_prefix="", op_name=None)):
            yield ""
        return
    if not isinstance(name, str):
        raise TypeError(f"Scope name must be a string, got {name!r}")
    # TensorFlow's rules: a top-level scope name must be a valid node name; a nested one may
    # also start with "_", "-" or ">" (the full name still starts with the outer scope).
    regex, pattern = (
        (VALID_SCOPE_NAME_REGEX, VALID_SCOPE_NAME_REGEX.pattern)
        if cur.name_prefix
        else (VALID_OP_NAME_REGEX, VALID_OP_NAME_REGEX.pattern)
    )
    if not regex.match(name):
        raise ValueError(
            f"'{name}' is not a valid scope name. A scope name has to match the following "
            f"pattern: {pattern}"
        )
    if name.endswith("/"):
        # Re-enter exactly this (absolute) scope, as TensorFlow's name_from_scope_name.
        with scope_context(evolve(cur, name_prefix=name[:-1], op_name=None)):
            yield name
        return
    full = f"{cur.name_prefix}/{name}" if cur.name_prefix else name
    sub = evolve(cur, name_prefix=cur.graph.unique_name(full), op_name=None)
    with scope_context(sub):
        yield sub.name_prefix + "/"


def _graph_of(values: Any) -> Graph | None:
    """The graph of the first Output or Operation among ``values`` (None if there is none)."""
    if values is None or isinstance(values, (str, bytes)):
        return None
    try:
        items = list(values)
    except TypeError:
        items = [values]
    for v in items:
        if isinstance(v, (Output, Operation)):
            return v.graph
        op = getattr(v, "op", None)  # operands such as variables and op wrappers
        if isinstance(op, Operation):
            return op.graph
    return None


def get_name_scope() -> str:
    """The current name prefix (without trailing slash)."""
    return current_scope().name_prefix


@contextlib.contextmanager
def control_dependencies(control_inputs: Iterable[Any] | None):
    """TF1 ``tf.control_dependencies``: ops built inside run after ``control_inputs``.

    ``None`` clears the outer control dependencies for the block.
    """
    cur = current_scope()
    if control_inputs is None:
        new = cur.without_control_dependencies()
    else:
        new = cur.with_control_dependencies(control_inputs)
    with scope_context(new):
        yield


@contextlib.contextmanager
def device(spec: Any):
    """TF1 ``tf.device``: ops built inside are placed on ``spec``.

    ``spec`` is a device string or DeviceSpec (merged with the outer ones, inner fields win),
    a function ``fn(op) -> device string`` called on every op built inside (as
    ``replica_device_setter`` returns), or None, which drops the outer devices for the block.
    TensorFlow applies the stack innermost first, each entry seeing the op's device as the
    inner entries left it (tensorflow/python/framework/ops.py, ``_apply_device_functions``).
    """
    with scope_context(current_scope().with_pushed_device(spec)):
        yield


def apply_device_stack(scope: Scope, op: Operation) -> str:
    """The device of ``op`` built in ``scope``: its device stack applied innermost first, then
    the colocation op's device (which wins, as in TensorFlow's ``_create_op_helper``)."""
    device_str = op.device
    if scope.device_stack:
        device_str = ""
        for entry in reversed(scope.device_stack):
            op.device = device_str
            if isinstance(entry, str):
                current = DeviceSpec.from_string(device_str)
                device_str = DeviceSpec.from_string(entry).merge_from(current).to_string()
            else:
                device_str = canonical_device(entry(op))
    if scope.colocate_op is not None and scope.colocate_op.device:
        device_str = scope.colocate_op.device
    return device_str


@contextlib.contextmanager
def colocate_with(op: Any, ignore_existing: bool = False):
    """TF1 ``tf.colocate_with``: ops built inside take ``op``'s device.

    The device stack is cleared for the block (a ``device`` inside still applies, but the
    colocation wins), as in TensorFlow's ``Graph._colocate_with_for_gradient``. ``op`` may be
    an Operation, an Output or a variable; None with ``ignore_existing`` only clears.
    """
    cur = current_scope()
    target = None
    if op is not None:
        target = op if isinstance(op, Operation) else _as_control_op(op)
        handle = getattr(op, "handle", None)  # a variable colocates with its storage op
        if handle is not None and isinstance(getattr(handle, "op", None), Operation):
            target = handle.op
    elif not ignore_existing:
        raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not "
                         "True")
    colocate = target if target is not None else None
    new = evolve(cur, device="", device_stack=(), colocate_op=colocate)
    with scope_context(new):
        yield
