"""TF1 variable scopes and ``get_variable``: variables created or reused by name.

``variable_scope`` keeps a name prefix, a reuse mode and defaults per thread;
``get_variable`` finds the variable ``<scope>/<name>`` made before in the same
graph or creates it with an initializer. Re-exported by ``tfmini.ops.variables.variables``.
"""

from __future__ import annotations

import enum
import inspect
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from attrs import evolve

from tfmini.core.dtypes import DType, as_dtype, float32
from tfmini.core.function import root_graph
from tfmini.core.graph import Graph
from tfmini.core.scope import get_default_graph, name_scope, scope_context
from tfmini.core.shapes import as_shape
from tfmini.ops.variables.init_ops import GlorotUniform, Zeros
from tfmini.ops.variables.variables import (
    GraphKeys,
    Variable,
    VariableAggregation,
    VariableSynchronization,
    add_to_collection,
    init_scope,
)


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """A variable scope: the name prefix, reuse mode and defaults of ``get_variable``.

    Attributes:
        name: The scope's full name (``"outer/inner"``; ``""`` at the root).
        reuse: None/False (create only), True (reuse only) or ``tm.AUTO_REUSE``.
        original_name_scope: The name scope opened when the scope was first entered.
        initializer, dtype, regularizer, constraint, caching_device: Defaults for
            ``get_variable`` inside the scope.
    """

    def __init__(self, reuse: Any = None, name: str = "", initializer: Any = None,
                 regularizer: Callable | None = None, caching_device: str | None = None,
                 dtype: Any = None, original_name_scope: str = "",
                 constraint: Callable | None = None, custom_getter: Callable | None = None):
        self.reuse = reuse
        self.name = name
        self.initializer = initializer
        self.regularizer = regularizer
        self.caching_device = caching_device
        self.dtype = as_dtype(dtype) if dtype is not None else None
        self.original_name_scope = original_name_scope
        self.constraint = constraint
        self.custom_getter = custom_getter

    def reuse_variables(self) -> None:
        """Makes ``get_variable`` in this scope reuse existing variables."""
        self.reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self.initializer = initializer

    def set_dtype(self, dtype: Any) -> None:
        self.dtype = as_dtype(dtype)

    def get_variable(self, name: str, *args, **kwargs) -> Variable:
        """``get_variable`` as if called inside this scope."""
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<tm.VariableScope '{self.name}' reuse={self.reuse}>"


class _GraphVarState:
    """The variables ``get_variable`` made in one graph, and its variable-scope counts."""

    def __init__(self):
        self.variables: dict[str, Variable] = {}
        self.scope_counts: dict[str, int] = {}
        self.lock = threading.RLock()


_graph_states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_graph_states_lock = threading.Lock()
_local = threading.local()


def _graph_state(graph: Graph) -> _GraphVarState:
    with _graph_states_lock:
        state = _graph_states.get(graph)
        if state is None:
            state = _graph_states[graph] = _GraphVarState()
        return state


def _scope_stack() -> list[tuple[Graph, VariableScope]]:
    stack = getattr(_local, "variable_scopes", None)
    if stack is None:
        stack = _local.variable_scopes = []
    return stack


def get_variable_scope() -> VariableScope:
    """The current variable scope of the default graph (the root scope if none is open)."""
    graph = root_graph(get_default_graph())
    for g, vs in reversed(_scope_stack()):
        if g is graph:
            return vs
    return VariableScope()


class variable_scope:  # noqa: N801  (TensorFlow's spelling: a class used as a function)
    """TF1 ``tf.compat.v1.variable_scope``: a name prefix and reuse mode for ``get_variable``.

    Example::

        with tm.variable_scope("layer", reuse=tm.AUTO_REUSE):
            w = tm.get_variable("w", shape=[3], initializer=tm.zeros_initializer())

    Args:
        name_or_scope: A name (relative to the current variable scope) or a
            VariableScope to re-enter.
        default_name: Used (made unique) when ``name_or_scope`` is None.
        values: Accepted for TensorFlow compatibility.
        initializer, regularizer, caching_device, dtype, constraint: Defaults for
            ``get_variable`` inside.
        partitioner: Not supported (must be None).
        custom_getter: ``fn(getter, name, *args, **kwargs)`` wrapping variable creation.
        reuse: True, ``tm.AUTO_REUSE``, or None/False to inherit (a scope inside a
            reusing scope reuses too).
        use_resource: Accepted; variables are always resource variables.
        auxiliary_name_scope: Also open a name scope for the ops built inside.

    Raises:
        TypeError: neither ``name_or_scope`` nor ``default_name``.
    """

    def __init__(self, name_or_scope: Any, default_name: str | None = None, values: Any = None,
                 initializer: Any = None, regularizer: Callable | None = None,
                 caching_device: str | None = None, partitioner: Any = None,
                 custom_getter: Callable | None = None, reuse: Any = None, dtype: Any = None,
                 use_resource: bool | None = None, constraint: Callable | None = None,
                 auxiliary_name_scope: bool = True):
        del values, use_resource
        if name_or_scope is None and default_name is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if partitioner is not None:
            raise NotImplementedError("Partitioned variables are not supported by tfmini")
        if not (reuse is None or isinstance(reuse, bool) or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._constraint = constraint
        self._auxiliary_name_scope = auxiliary_name_scope
        self._exits: list[Callable[[], None]] = []

    def __enter__(self) -> VariableScope:
        parent = get_variable_scope()
        graph = root_graph(get_default_graph())
        src = self._name_or_scope
        if isinstance(src, VariableScope):
            name = src.name
            name_scope_name = src.original_name_scope or (name + "/" if name else "")
            inherited = src
        else:
            if src is None:
                relative = self._unique_default_name(graph, parent)
            elif isinstance(src, str):
                relative = src
            else:
                raise TypeError(
                    f"VariableScope: name_or_scope must be a string or VariableScope, got {src!r}"
                )
            name = f"{parent.name}/{relative}" if parent.name else relative
            name_scope_name = relative
            inherited = parent
        # True and AUTO_REUSE are inherited by inner scopes; None/False keep what is inherited.
        reuse = self._reuse if self._reuse is True or self._reuse is AUTO_REUSE else None
        if reuse is None:
            reuse = inherited.reuse
        if reuse is None or reuse is False:
            reuse = parent.reuse
        state = _graph_state(graph)
        with state.lock:
            state.scope_counts[name] = state.scope_counts.get(name, 0) + 1
            # As TensorFlow's _pure_variable_scope: leaving a scope entered by name forgets
            # the default names used inside it (so a second `variable_scope("rnn")` makes
            # `rnn/gru_cell` again); leaving a re-entered scope object restores the counts.
            if isinstance(src, VariableScope):
                snapshot = dict(state.scope_counts)

                def restore() -> None:
                    with state.lock:
                        state.scope_counts.clear()
                        state.scope_counts.update(snapshot)
            else:
                def restore() -> None:
                    with state.lock:
                        for key in state.scope_counts:
                            if key.startswith(name + "/"):
                                state.scope_counts[key] = 0
            self._exits.append(restore)

        opened = ""
        if self._auxiliary_name_scope and name_scope_name:
            cm = name_scope(name_scope_name)
            opened = cm.__enter__()
            self._exits.append(lambda: cm.__exit__(None, None, None))
        vs = VariableScope(
            reuse=reuse,
            name=name,
            initializer=self._initializer if self._initializer is not None else (
                inherited.initializer),
            regularizer=self._regularizer if self._regularizer is not None else (
                inherited.regularizer),
            caching_device=self._caching_device or inherited.caching_device,
            dtype=self._dtype if self._dtype is not None else inherited.dtype,
            original_name_scope=(
                src.original_name_scope if isinstance(src, VariableScope) else opened
            ),
            constraint=self._constraint if self._constraint is not None else (
                inherited.constraint),
            custom_getter=self._custom_getter or inherited.custom_getter,
        )
        stack = _scope_stack()
        stack.append((graph, vs))
        self._exits.append(lambda: stack.remove((graph, vs)))
        return vs

    def _unique_default_name(self, graph: Graph, parent: VariableScope) -> str:
        # TensorFlow's _get_unique_variable_scope: "dense", "dense_1", ...
        counts = _graph_state(graph).scope_counts
        prefix = self._default_name
        full = f"{parent.name}/{prefix}" if parent.name else prefix
        if counts.get(full, 0) == 0:
            return prefix
        idx = 1
        while counts.get(f"{full}_{idx}", 0) > 0:
            idx += 1
        return f"{prefix}_{idx}"

    def __exit__(self, exc_type, exc, tb) -> None:
        while self._exits:
            self._exits.pop()()


def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Callable | None = None,
    trainable: bool | None = None,
    collections: Iterable[str] | None = None,
    caching_device: str | None = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    custom_getter: Callable | None = None,
    constraint: Callable | None = None,
    synchronization: VariableSynchronization | None = None,
    aggregation: VariableAggregation | None = None,
) -> Variable:
    """TF1 ``tf.compat.v1.get_variable``: the variable ``<scope>/<name>``, created or reused.

    Args:
        name: The name within the current variable scope.
        shape: Required unless ``initializer`` is a value (then it must be None).
        dtype: Default: the scope's dtype, else float32.
        initializer: A value or tensor, an initializer object or class, or a
            callable ``(shape, dtype=...)``; default: the scope's, else
            ``glorot_uniform_initializer`` for floats and zeros for ints and bools.
        regularizer: ``fn(variable) -> loss`` added to ``REGULARIZATION_LOSSES``.
        trainable, collections, caching_device, validate_shape, constraint,
        synchronization, aggregation: As for :class:`Variable`.
        partitioner: Not supported (must be None).
        use_resource: Accepted; variables are always resource variables.
        custom_getter: ``fn(getter, name, *args, **kwargs)`` wrapping creation.

    Raises:
        ValueError: the variable exists and the scope does not reuse (TensorFlow's
            "Variable w already exists, disallowed..."), or it does not exist and the
            scope reuses; shape or dtype differ from the existing variable's; no shape for
            a new variable; a shape given with a value initializer.
    """
    del use_resource
    if partitioner is not None:
        raise NotImplementedError("Partitioned variables are not supported by tfmini")
    vs = get_variable_scope()
    full = f"{vs.name}/{name}" if vs.name else name
    kwargs = dict(
        shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device,
        validate_shape=validate_shape, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation,
    )
    getters = [g for g in (vs.custom_getter, custom_getter) if g is not None]

    def true_getter(name: str, *args, **kw) -> Variable:
        return _get_single_variable(name, vs, **kw)

    getter = true_getter
    for custom in getters:
        getter = _wrap_getter(custom, getter)
    return getter(full, **kwargs)


def _wrap_getter(custom: Callable, inner: Callable) -> Callable:
    def getter(name: str, *args, **kwargs):
        return custom(inner, name, *args, **kwargs)

    return getter


def _call_initializer(init: Callable, shape: list[int], dtype: DType) -> Any:
    # Keras-style initializers take no partition_info; TF1's do.
    try:
        params = inspect.signature(init).parameters
    except (TypeError, ValueError):
        params = {}
    takes = "partition_info" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )
    if takes:
        return init(shape, dtype=dtype, partition_info=None)
    return init(shape, dtype=dtype)


def _get_single_variable(full: str, vs: VariableScope, *, shape, dtype, initializer, regularizer,
                         trainable, collections, caching_device, validate_shape, constraint,
                         synchronization, aggregation) -> Variable:
    graph = root_graph(get_default_graph())
    state = _graph_state(graph)
    dt = as_dtype(dtype) if dtype is not None else (vs.dtype or float32)
    if initializer is None:
        initializer = vs.initializer
    if inspect.isclass(initializer):
        initializer = initializer(dtype=dt)
    from_value = initializer is not None and not callable(initializer)
    with state.lock:
        existing = state.variables.get(full)
        if existing is not None:
            if vs.reuse is None or vs.reuse is False:
                raise ValueError(
                    f"Variable {full} already exists, disallowed. Did you mean to set "
                    f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
                )
            if shape is not None and not as_shape(shape).is_compatible_with(existing.shape):
                raise ValueError(
                    f"Trying to share variable {full}, but specified shape {as_shape(shape)} "
                    f"and found shape {existing.shape}."
                )
            if not from_value and dt != existing.dtype:
                raise ValueError(
                    f"Trying to share variable {full}, but specified dtype {dt.name} and found "
                    f"dtype {existing.dtype.name}."
                )
            return existing
        if vs.reuse is True:
            raise ValueError(
                f"Variable {full} does not exist, or was not created with tf.get_variable(). "
                f"Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if from_value:
            if shape is not None:
                raise ValueError("If initializer is a constant, do not specify shape.")
            init_val: Any = initializer
            var_dtype = as_dtype(dtype) if dtype is not None else None
        else:
            if shape is None:
                raise ValueError(
                    f"Variable {full} did not get an initializer, so its `shape` argument must "
                    f"be specified." if initializer is None else
                    f"Shape of a new variable ({full}) must be fully defined, but instead was "
                    f"{as_shape(shape)}."
                )
            var_shape = as_shape(shape)
            if not var_shape.is_fully_defined():
                raise ValueError(
                    f"Shape of a new variable ({full}) must be fully defined, but instead was "
                    f"{var_shape}."
                )
            if initializer is None:
                if dt.is_floating:
                    initializer = GlorotUniform()
                elif dt.is_integer or dt.is_bool:
                    initializer = Zeros()
                else:
                    raise ValueError(
                        f"An initializer for variable {full} of {dt.name} is required"
                    )
            dims = list(var_shape.dims)
            init_fn = initializer

            def init_val():
                return _call_initializer(init_fn, dims, dt)

            var_dtype = dt
        # Variable names come from the variable scope, not the name scope (TF's
        # get_variable builds from the root name scope).
        with scope_context(evolve(init_scope(), name_prefix="")):
            v = Variable(
                initial_value=init_val, trainable=trainable, collections=collections,
                validate_shape=validate_shape, caching_device=caching_device or vs.caching_device,
                name=full, dtype=var_dtype, constraint=constraint or vs.constraint,
                synchronization=synchronization, aggregation=aggregation,
            )
        state.variables[full] = v
    regularizer = regularizer or vs.regularizer
    if regularizer is not None:
        with name_scope(f"{full}/Regularizer/"):
            loss = regularizer(v)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return v


__all__ = [
    "AUTO_REUSE",
    "VariableScope",
    "get_variable",
    "get_variable_scope",
    "variable_scope",
]
