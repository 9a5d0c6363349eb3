"""The Variable API as ``tf.compat.v1`` with resource variables, collections and initializers.

A :class:`Variable` is a ``VarHandleOp`` plus the ops TensorFlow builds
around it, named as TensorFlow names them::

    w/Initializer/initial_value   Const (or the user's tensor)
    w                             VarHandleOp, shared_name "w"
    w/IsInitialized/VarIsInitializedOp
    w/Assign                      AssignVariableOp: the initializer
    w/Read/ReadVariableOp         the graph element (what fetching ``w`` returns)

A Variable is usable wherever a tensor is: a conversion function builds a
fresh ``ReadVariableOp`` in the ambient scope (so a read made under
``tm.control_dependencies`` waits for those ops), or returns the handle when
an op asks for a ``resource`` input.

Also here: ``GraphKeys`` and the collection functions, the initializer
functions (``global_variables_initializer``...) and TF1's state functions
(``tm.assign``...). The initializer classes (``zeros_initializer``...) are in
``init_ops``, TF1's ``variable_scope`` / ``get_variable`` in ``variable_scopes``;
both are re-exported here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from attrs import evolve

from tfmini.core import context
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, register_tensor_conversion_function
from tfmini.core.dtypes import DType, as_dtype, resource
from tfmini.core.function import root_graph
from tfmini.core.graph import VALID_OP_NAME_REGEX, Graph, Operation, Output
from tfmini.core.scope import Scope, current_scope, get_default_graph, scope_context
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.ops.common.build_util import exact_sub_scope

# ----------------------------------------------------------------------------------------
# Collections


class GraphKeys:
    """Standard names of graph collections (``tf.compat.v1.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"  # the deprecated alias
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"

    _VARIABLE_COLLECTIONS = (
        "variables", "local_variables", "metric_variables", "model_variables",
        "trainable_variables", "moving_average_variables", "concatenated_variables",
        "trainable_resource_variables",
    )


def add_to_collection(name: str, value: Any) -> None:
    """Adds ``value`` to the collection ``name`` of the default graph."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: str | Iterable[str], value: Any) -> None:
    """Adds ``value`` to each collection in ``names`` of the default graph."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list:
    """A copy of the default graph's collection ``key``.

    Args:
        key: The collection name.
        scope: If given, keep only items whose ``name`` matches this regular
            expression at the start (``re.match``).
    """
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list:
    """The default graph's collection ``key`` itself (a list that may be modified)."""
    return get_default_graph().get_collection_ref(key)


def global_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.GLOBAL_VARIABLES``, filtered by ``scope`` if given."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.TRAINABLE_VARIABLES``, filtered by ``scope`` if given."""
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.LOCAL_VARIABLES``, filtered by ``scope`` if given."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.MODEL_VARIABLES``, filtered by ``scope`` if given."""
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.MOVING_AVERAGE_VARIABLES``."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronised (accepted and recorded; tfmini has one copy)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How updates of a distributed variable are combined (accepted and recorded)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


# ----------------------------------------------------------------------------------------
# Scopes the Variable API builds in


def init_scope() -> Scope:
    """TF's ``init_scope``: the current scope without control dependencies, lifted out of
    function graphs, so creating a variable never depends on what happens to surround it."""
    cur = current_scope()
    graph = root_graph(cur.graph)
    if graph is not cur.graph:
        return Scope(graph)
    return evolve(cur, control_dependencies=(), op_name=None)


def check_variable_name(name: Any) -> str:
    if not isinstance(name, str) or not VALID_OP_NAME_REGEX.match(name):
        raise ValueError(
            f"'{name}' is not a valid root scope name. A root scope name has to match the "
            f"following pattern: {VALID_OP_NAME_REGEX.pattern}"
        )
    return name


def dims_text(shape: TensorShape) -> str:
    return "None" if shape.dims is None else str(list(shape.dims))


# ----------------------------------------------------------------------------------------
# Variable


_REFERENCE_VARIABLE_CLASS: list[type] = []


def register_reference_variable_class(cls: type) -> type:
    """Makes ``Variable(..., use_resource=False)`` build a ``cls`` (TF1's RefVariable)."""
    _REFERENCE_VARIABLE_CLASS[:] = [cls]
    return cls


def _reference_variable_class() -> type:
    if not _REFERENCE_VARIABLE_CLASS:
        raise NotImplementedError("reference variables are not registered")
    return _REFERENCE_VARIABLE_CLASS[0]


class Variable:
    """A resource variable (``tf.compat.v1.Variable`` with ``use_resource=True``).

    Example::

        w = tm.Variable(np.zeros(3, np.float32), name="w")
        inc = w.assign_add([1.0, 1.0, 1.0])
        with tm.Session() as sess:
            sess.run(w.initializer)
            sess.run(inc)                  # array([1., 1., 1.], dtype=float32)
            sess.run(w * 2)                # a Variable works wherever a tensor does

    Args:
        initial_value: A tensor, a value convertible to one, or a callable of
            no arguments returning one (called inside ``<name>/Initializer``).
        trainable: Also add the variable to ``TRAINABLE_VARIABLES`` (default True).
        collections: Collections to add the variable to (default
            ``[GraphKeys.GLOBAL_VARIABLES]``).
        validate_shape: Assignments must keep the shape (when it is fully known).
        caching_device: Accepted for compatibility; tfmini reads in place.
        name: The variable's name (default ``"Variable"``), made unique.
        variable_def: A dict from :meth:`to_proto`: re-creates the Python
            object for a variable already in the graph (e.g. after
            ``tm.import_graph_def``).
        dtype: If given, the initial value is converted to it.
        import_scope: With ``variable_def``: the name scope it was imported under.
        constraint: A function applied by optimizers after an update.
        use_resource: False gives TF1's reference variable (a ``RefVariable``);
            otherwise a resource variable.
        synchronization, aggregation: Accepted and recorded.
        shape: The variable's shape if not the initial value's (may be partial,
            e.g. ``[None]`` to allow assignments of any length).

    Raises:
        ValueError: no ``initial_value``; an invalid name; ``shape`` incompatible
            with the initial value; a non-callable ``constraint``.
        TypeError: the initial value cannot be converted to ``dtype``.
    """

    # NumPy must hand binary operators back to us instead of broadcasting over an object.
    __array_priority__ = 100
    __array_ufunc__ = None

    def __new__(cls, *args: Any, **kwargs: Any):
        # use_resource=False asks for TF1's reference variable: the subclass that
        # ref_variables registers (it builds on this class, so this module cannot import it).
        if cls is Variable and kwargs.get("use_resource") is False:
            return super().__new__(_reference_variable_class())
        return super().__new__(cls)

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        collections: Iterable[str] | None = None,
        validate_shape: bool = True,
        caching_device: str | None = None,
        name: str | None = None,
        variable_def: dict | None = None,
        dtype: Any = None,
        import_scope: str | None = None,
        constraint: Callable | None = None,
        use_resource: bool | None = None,
        synchronization: VariableSynchronization | None = None,
        aggregation: VariableAggregation | None = None,
        shape: Any = None,
    ):
        del use_resource  # False was handled by __new__
        self._caching_device = caching_device
        self._synchronization = synchronization or VariableSynchronization.AUTO
        self._aggregation = aggregation or VariableAggregation.NONE
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        self._init_from_args(
            initial_value, trainable, collections, validate_shape, name, dtype, constraint, shape
        )

    def _init_from_args(self, initial_value, trainable, collections, validate_shape, name,
                        dtype, constraint, shape) -> None:
        if initial_value is None:
            raise ValueError(self._MISSING_INITIAL_VALUE)
        if constraint is not None and not callable(constraint):
            raise ValueError(self._NOT_CALLABLE_CONSTRAINT.format(constraint=constraint))
        if trainable is None:
            trainable = self._synchronization is not VariableSynchronization.ON_READ
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if isinstance(collections, str) or not isinstance(collections, (list, tuple, set)):
            raise ValueError(
                f"collections argument to Variable constructor must be a list, tuple, or set. "
                f"Got {collections!r} of type {type(collections)}"
            )
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        want = as_dtype(dtype) if dtype is not None else None

        outer = init_scope()
        graph = outer.graph
        base = check_variable_name(name if name is not None else "Variable")
        with graph._lock:  # the chosen name must stay free until the handle takes it
            vscope = exact_sub_scope(outer, base)
            var_name = vscope.name_prefix
            # The initial value is built without the ambient device, as TensorFlow does.
            initializer_scope = evolve(vscope, device="", device_stack=()).with_sub_scope(
                "Initializer")
            with scope_context(initializer_scope):
                value = initial_value() if callable(initial_value) else initial_value
                if isinstance(value, Variable):
                    value = value.value()
                initial = convert_to_tensor(value, dtype=want, name="initial_value")
            var_shape = initial.shape
            if shape is not None:
                var_shape = as_shape(shape)
                if not initial.shape.is_compatible_with(var_shape):
                    raise ValueError(
                        f"In this `tf.Variable` creation, the initial value's shape "
                        f"({initial.shape}) is not compatible with the explicitly supplied "
                        f"`shape` argument ({dims_text(var_shape)})."
                    )
            if not validate_shape:
                var_shape = self._unvalidated_shape(var_shape)
            storage_op = self._build_storage(outer, base, var_name, initial.dtype, var_shape)
        if storage_op.name != var_name:  # only if the initial value function took our name
            raise ValueError(
                f"Variable name '{var_name}' was taken while building its initial value "
                f"(the variable became '{storage_op.name}'); pick another name."
            )
        self._handle = storage_op.outputs[0]
        self._dtype = initial.dtype
        self._shape = var_shape
        self._validate_shape = validate_shape
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._initial_value = initial
        self._is_initialized_op = self._build_created_ops(vscope, initial)
        graph.add_to_collections(collections, self)

    # -- what a reference variable builds differently (ref_variables.RefVariable) -----------
    # TensorFlow's ResourceVariable and RefVariable share this creation sequence
    # (tensorflow/python/ops/resource_variable_ops.py, ResourceVariable._init_from_args;
    # ref_variable.py, RefVariable._init_from_args); they differ in these texts and ops.

    _MISSING_INITIAL_VALUE = (
        "The `initial_value` arg to `tf.Variable` must be specified except when you are "
        "not providing a `variable_def`. You provided neither."
    )
    _NOT_CALLABLE_CONSTRAINT = (
        "The `constraint` argument must be a callable. Received: {constraint!r}"
    )

    @staticmethod
    def _unvalidated_shape(shape: TensorShape) -> TensorShape:
        """The variable's shape with ``validate_shape=False``: a resource variable keeps the
        initial value's shape (its assignments may still change it at run time)."""
        return shape

    @staticmethod
    def _build_storage(outer: Scope, base: str, var_name: str, dtype: DType,
                       shape: TensorShape) -> Operation:
        """The op that owns the variable's storage: ``VarHandleOp`` named ``base``."""
        return build_op(
            outer, "VarHandleOp", [],
            {"dtype": dtype, "shape": shape, "shared_name": var_name, "container": "",
             "debug_name": var_name + "/"},
            name=base,
        )

    def _build_created_ops(self, vscope: Scope, initial: Output) -> Output | None:
        """The initializer (``<name>/Assign``) and the snapshot ``value()`` returns
        (``<name>/Read/ReadVariableOp``); returns ``<name>/IsInitialized``, which a resource
        variable builds at creation."""
        is_initialized = build_op(
            vscope.with_sub_scope("IsInitialized"), "VarIsInitializedOp", [self._handle]
        ).outputs[0]
        # TensorFlow builds the initializer exactly on the handle's device (no device functions,
        # no colocation) and the snapshot under ``device(handle.device)`` inside the ambient
        # stack (resource_variable_ops.py, ResourceVariable._init_from_args).
        handle_device = self._handle.op.device
        assign_scope = evolve(vscope, device=handle_device, device_stack=(), colocate_op=None)
        self._initializer_op = build_op(
            assign_scope, "AssignVariableOp", [self._handle, initial], {"validate_shape": False},
            name="Assign",
        )
        read_scope = vscope.with_pushed_device(handle_device) if handle_device else vscope
        self._graph_element = build_op(
            read_scope.with_sub_scope("Read"), "ReadVariableOp", [self._handle],
            {"dtype": self._dtype},
        ).outputs[0]
        return is_initialized

    def _init_from_proto(self, variable_def: dict, import_scope: str | None) -> None:
        graph = get_default_graph()

        def full(name: str) -> str:
            return f"{import_scope}/{name}" if import_scope else name

        self._handle = graph.as_graph_element(full(variable_def["variable_name"]))
        handle_op = self._handle.op
        self._dtype = handle_op.attrs["dtype"]
        self._shape = handle_op.attrs["shape"]
        self._validate_shape = True
        self._trainable = bool(variable_def.get("trainable", True))
        self._constraint = None
        self._initializer_op = graph.as_graph_element(full(variable_def["initializer_name"]))
        init_name = variable_def.get("initial_value_name")
        self._initial_value = graph.as_graph_element(full(init_name)) if init_name else None
        self._graph_element = graph.as_graph_element(full(variable_def["snapshot_name"]))
        self._is_initialized_op = None

    def to_proto(self, export_scope: str | None = None) -> dict:
        """A plain description (TensorFlow's VariableDef fields) for :meth:`from_proto`."""

        def strip(name: str) -> str:
            if export_scope and name.startswith(export_scope + "/"):
                return name[len(export_scope) + 1:]
            return name

        initial = self._initial_value
        return {
            "variable_name": strip(self._handle.name),
            "initial_value_name": strip(initial.name) if initial is not None else None,
            "initializer_name": strip(self._initializer_op.name),
            "snapshot_name": strip(self._graph_element.name),
            "trainable": self._trainable,
            "is_resource": True,
        }

    @staticmethod
    def from_proto(variable_def: dict, import_scope: str | None = None) -> Variable:
        """The Variable that ``variable_def`` (from :meth:`to_proto`) describes in the
        default graph."""
        return Variable(variable_def=variable_def, import_scope=import_scope)

    # -- properties -------------------------------------------------------------------------
    @property
    def handle(self) -> Output:
        """The ``resource`` Output of the ``VarHandleOp``."""
        return self._handle

    @property
    def op(self) -> Operation:
        """The ``VarHandleOp`` operation."""
        return self._handle.op

    @property
    def name(self) -> str:
        """The variable's name as TensorFlow spells it: ``"w:0"``."""
        return self._handle.name

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        """The variable's (static) shape."""
        return self._shape

    @property
    def initializer(self) -> Operation:
        """The ``AssignVariableOp`` that sets the initial value."""
        return self._initializer_op

    @property
    def initial_value(self) -> Output:
        """The tensor the initializer assigns."""
        return self._initial_value

    @property
    def graph(self) -> Graph:
        return self._handle.graph

    @property
    def device(self) -> str:
        return self._handle.op.device

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Callable | None:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    @property
    def _shared_name(self) -> str:
        return self._handle.op.attrs["shared_name"]

    def _as_graph_element(self) -> Output:
        """What fetching (or feeding) the variable means: its ``<name>/Read`` value."""
        return self._graph_element

    def __repr__(self) -> str:
        return f"<tm.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # -- reading ----------------------------------------------------------------------------
    def _build_scope(self) -> Scope:
        # The ambient scope when it is this variable's graph (or a function inside it, which
        # captures the handle); otherwise this variable's graph, as TF's _handle_graph.
        cur = current_scope()
        g = self._handle.graph
        if cur.graph is g or g._is_ancestor_of(cur.graph):
            return cur
        return Scope(g)

    def _read(self, scope: Scope, name: str | None = None) -> Output:
        return build_op(scope, "ReadVariableOp", [self._handle], {"dtype": self._dtype},
                        name=name).outputs[0]

    def value(self) -> Output:
        """A new ``ReadVariableOp`` of the variable in the current scope.

        Built outside any device or colocation (``colocate_with(None, ignore_existing=True)``
        in TensorFlow's ``BaseResourceVariable.value``): the runtime places it with its handle.
        """
        scope = self._build_scope()
        if scope.device_stack or scope.colocate_op is not None:
            scope = evolve(scope, device="", device_stack=(), colocate_op=None)
        return self._read(scope)

    def read_value(self) -> Output:
        """The variable's value: ``Read/ReadVariableOp`` followed by an ``Identity``."""
        scope = self._build_scope()
        read = self._read(scope.with_sub_scope("Read"))
        return build_op(scope, "Identity", [read]).outputs[0]

    def eval(self, session: Any = None) -> np.ndarray:
        """The variable's value in ``session`` (default: the default session)."""
        return self._graph_element.eval(session=session)

    def initialized_value(self) -> Output:
        """The value, or the initial value while the variable is uninitialized (needs ``tm.cond``).

        Raises:
            NotImplementedError: ``tm.cond`` is not available.
        """
        from tfmini.ops import control_flow  # local: control_flow may build on variables

        cond = getattr(control_flow, "cond", None)
        if cond is None:
            raise NotImplementedError("initialized_value() needs tm.cond")
        with scope_context(init_scope()):
            return cond(is_variable_initialized(self), self.read_value,
                        lambda: self._initial_value)

    def sparse_read(self, indices: Any, name: str | None = None) -> Output:
        """``ResourceGather``: the rows ``indices`` of the variable."""
        scope = self._build_scope()
        base = name if name is not None else "Gather"
        sub = exact_sub_scope(scope, base)
        if not isinstance(indices, Output) and not hasattr(indices, "as_output"):
            with scope_context(sub):
                indices = convert_to_tensor(indices, name="indices")
        return build_op(scope, "ResourceGather", [self._handle, indices],
                        {"dtype": self._dtype}, name=base).outputs[0]

    gather = sparse_read

    # -- writing ----------------------------------------------------------------------------
    def _lazy_read(self, op: Operation) -> _UnreadVariable:
        return _UnreadVariable(self, op)

    def _convert(self, scope: Scope, value: Any) -> Output:
        with scope_context(scope):
            return convert_to_tensor(value, dtype=self._dtype)

    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True):
        """Sets the variable to ``value``.

        Returns:
            With ``read_value``, a variable-like object reading the new value
            (its ``op`` is the assignment); else the ``AssignVariableOp``.

        Raises:
            ValueError: ``value``'s shape is incompatible with the variable's, or its dtype
                differs.
        """
        del use_locking  # assignments are always atomic
        scope = self._build_scope()
        value = self._convert(scope, value)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(
                f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable "
                f"shape {self._shape}, and the assigned value shape {value.shape} are "
                f"incompatible."
            )
        validate = self._validate_shape and self._shape.is_fully_defined()
        op = build_op(scope, "AssignVariableOp", [self._handle, value],
                      {"validate_shape": validate}, name=name)
        return self._lazy_read(op) if read_value else op

    def _update(self, op_type: str, delta: Any, name: str | None, read_value: bool):
        scope = self._build_scope()
        op = build_op(scope, op_type, [self._handle, self._convert(scope, delta)], name=name)
        return self._lazy_read(op) if read_value else op

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True):
        """Adds ``delta`` (same shape) to the variable, atomically (``AssignAddVariableOp``)."""
        del use_locking
        return self._update("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True):
        """Subtracts ``delta`` (same shape) from the variable (``AssignSubVariableOp``)."""
        del use_locking
        return self._update("AssignSubVariableOp", delta, name, read_value)

    def _scatter(self, op_type: str, sparse_delta: Any, name: str | None):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        scope = self._build_scope()
        values = self._convert(scope, sparse_delta.values)
        op = build_op(scope, op_type, [self._handle, sparse_delta.indices, values], name=name)
        return self._lazy_read(op)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Adds ``sparse_delta.values`` to the rows ``sparse_delta.indices``; duplicates add up.

        ``sparse_delta`` is an IndexedSlices or any object with ``indices`` and ``values``.

        Raises:
            TypeError: ``sparse_delta`` has no ``indices``/``values``.
        """
        del use_locking
        return self._scatter("ResourceScatterAdd", sparse_delta, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Subtracts ``sparse_delta.values`` from the rows ``sparse_delta.indices``."""
        del use_locking
        return self._scatter("ResourceScatterSub", sparse_delta, name)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Multiplies the rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        del use_locking
        return self._scatter("ResourceScatterMul", sparse_delta, name)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Divides the rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        del use_locking
        return self._scatter("ResourceScatterDiv", sparse_delta, name)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Element-wise minimum of the rows ``sparse_delta.indices`` and the values."""
        del use_locking
        return self._scatter("ResourceScatterMin", sparse_delta, name)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None):
        """Element-wise maximum of the rows ``sparse_delta.indices`` and the values."""
        del use_locking
        return self._scatter("ResourceScatterMax", sparse_delta, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False,
                       name: str | None = None):
        """Sets the rows ``sparse_delta.indices`` to ``sparse_delta.values``."""
        del use_locking
        return self._scatter("ResourceScatterUpdate", sparse_delta, name)

    def load(self, value: Any, session: Any = None) -> None:
        """Sets the variable to ``value`` in ``session`` by running the initializer with
        its initial value fed (builds nothing).

        Raises:
            ValueError: no session given and none is the default.
        """
        session = session or context.get_default_session()
        if session is None:
            raise ValueError(
                "Either session argument should be provided or default session should be "
                "established"
            )
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- Python protocol --------------------------------------------------------------------
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a `tm.Variable` as a Python `bool` is not allowed in graph mode. "
            "Use `tm.cond` to execute subgraphs conditioned on the value of a tensor."
        )

    def __iter__(self):
        raise TypeError(f"Variable {self.name} is not iterable in graph mode.")

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for symbolic Variables ({self.name}).")


def _delegate(dunder: str):
    def method(self, *args):
        return getattr(self.value(), dunder)(*args)

    method.__name__ = dunder
    method.__doc__ = f"``{dunder}`` of a fresh read of the variable."
    return method


for _dunder in (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__", "__lt__", "__le__",
    "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
    "__invert__", "__getitem__",
):
    setattr(Variable, _dunder, _delegate(_dunder))


class _UnreadVariable(Variable):
    """What ``assign*``/``scatter_*`` return: the variable, read after the update ran.

    Its ``op`` and ``name`` are the update's; every read it builds has a control
    dependency on the update (TensorFlow's ``_UnreadVariable``).
    """

    def __init__(self, variable: Variable, parent_op: Operation):  # noqa: D107
        self._parent_op = parent_op
        self._variable = variable
        self._handle = variable._handle
        self._dtype = variable._dtype
        self._shape = variable._shape
        self._validate_shape = variable._validate_shape
        self._trainable = variable._trainable
        self._constraint = variable._constraint
        self._caching_device = variable._caching_device
        self._synchronization = variable._synchronization
        self._aggregation = variable._aggregation
        self._initial_value = variable._initial_value
        self._initializer_op = variable._initializer_op
        self._is_initialized_op = None
        self._graph_element = self.value()

    @property
    def name(self) -> str:
        return self._parent_op.name

    @property
    def op(self) -> Operation:
        return self._parent_op

    def _build_scope(self) -> Scope:
        return super()._build_scope().with_control_dependencies([self._parent_op])


def _dense_var_to_tensor(var: Variable, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> Output:
    """The conversion function: a fresh read, or the handle when a ``resource`` is asked for."""
    del name  # reads are named ReadVariableOp, as in TensorFlow
    if as_ref or dtype == resource:
        return var.handle
    if dtype is not None and as_dtype(dtype) != var.dtype:
        raise ValueError(
            f"Incompatible type conversion requested to type '{as_dtype(dtype).name}' for "
            f"variable of type '{var.dtype.name}' (Variable: {var!r})"
        )
    return var.value()


register_tensor_conversion_function(Variable, _dense_var_to_tensor)


# ----------------------------------------------------------------------------------------
# Initializing


def is_variable_initialized(variable: Variable) -> Output:
    """A bool tensor: whether ``variable`` is initialized (``VarIsInitializedOp``, or
    ``IsVariableInitialized`` for a reference variable)."""
    if hasattr(variable, "_build_is_initialized"):
        return variable._build_is_initialized()
    return build_op(variable._build_scope(), "VarIsInitializedOp", [variable.handle]).outputs[0]


def variables_initializer(var_list: Iterable[Variable], name: str = "init") -> Operation:
    """One op that runs the initializers of ``var_list``: a ``NoOp`` with a control input on
    each (``tm.group`` semantics; a plain NoOp for an empty list)."""
    inits = [v.initializer for v in var_list]
    scope = current_scope()
    if inits:
        scope = scope.with_control_dependencies(inits)
    return build_op(scope, "NoOp", [], name=name)


def global_variables_initializer() -> Operation:
    """The op initializing every variable of ``GraphKeys.GLOBAL_VARIABLES`` (named ``init``)."""
    return variables_initializer(global_variables())


def local_variables_initializer() -> Operation:
    """The op initializing every variable of ``GraphKeys.LOCAL_VARIABLES`` (named ``init``)."""
    return variables_initializer(local_variables())


# ----------------------------------------------------------------------------------------
# TF1 state functions: tm.assign(ref, value) and friends


def assign(ref: Variable, value: Any, validate_shape: bool | None = None,
           use_locking: bool | None = None, name: str | None = None):
    """``tf.compat.v1.assign``: ``ref.assign(value)``."""
    del validate_shape
    return ref.assign(value, use_locking=use_locking, name=name)


def assign_add(ref: Variable, value: Any, use_locking: bool | None = None,
               name: str | None = None):
    """``tf.compat.v1.assign_add``: ``ref.assign_add(value)``."""
    return ref.assign_add(value, use_locking=use_locking, name=name)


def assign_sub(ref: Variable, value: Any, use_locking: bool | None = None,
               name: str | None = None):
    """``tf.compat.v1.assign_sub``: ``ref.assign_sub(value)``."""
    return ref.assign_sub(value, use_locking=use_locking, name=name)


class _Slices:
    def __init__(self, indices: Any, values: Any):
        self.indices, self.values = indices, values


def scatter_add(ref: Variable, indices: Any, updates: Any, use_locking: bool = False,
                name: str | None = None):
    """``tf.compat.v1.scatter_add``: adds ``updates`` to the rows ``indices`` of ``ref``."""
    return ref.scatter_add(_Slices(indices, updates), use_locking=use_locking, name=name)


def scatter_sub(ref: Variable, indices: Any, updates: Any, use_locking: bool = False,
                name: str | None = None):
    """``tf.compat.v1.scatter_sub``: subtracts ``updates`` from the rows ``indices``."""
    return ref.scatter_sub(_Slices(indices, updates), use_locking=use_locking, name=name)


def scatter_update(ref: Variable, indices: Any, updates: Any, use_locking: bool = False,
                   name: str | None = None):
    """``tf.compat.v1.scatter_update``: sets the rows ``indices`` of ``ref`` to ``updates``."""
    return ref.scatter_update(_Slices(indices, updates), use_locking=use_locking, name=name)


__all__ = sorted({
    "GraphKeys",
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
    "add_to_collection",
    "add_to_collections",
    "assign",
    "assign_add",
    "assign_sub",
    "get_collection",
    "get_collection_ref",
    "global_variables",
    "global_variables_initializer",
    "is_variable_initialized",
    "local_variables",
    "local_variables_initializer",
    "model_variables",
    "moving_average_variables",
    "scatter_add",
    "scatter_sub",
    "scatter_update",
    "trainable_variables",
    "variables_initializer",
    "init_scope",
})
