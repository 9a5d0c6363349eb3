"""TF1 reference variables: ``VariableV2``, ``Assign``/``AssignAdd``/``AssignSub``,
``ScatterAdd``/``ScatterSub``/``ScatterUpdate``, ``IsVariableInitialized`` and
:class:`RefVariable` (``tm.Variable(..., use_resource=False)``).

A ``VariableV2`` op outputs a reference (``ref: Ref(dtype)``). At run time a reference's
value is the variable's storage, a :class:`RefStorage` (a
:class:`~tfmini.ops.variables.resource_ops.VariableResource`, so the training ops and the locking,
double-buffering and undo rules of ``variable_resource`` apply unchanged), held by the session's
resource manager under ``(container, shared_name or op name)``. An input that is a
reference (``Ref(T)``) receives the storage; a plain input fed by a reference receives
``storage._tm_deref()``, the current value, as TensorFlow dereferences such edges. Using
an uninitialized reference fails with FailedPreconditionError "Attempting to use
uninitialized value w", as in TensorFlow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, tf_type_name
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import Scope, scope_context
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import NUMERIC_TYPES
from tfmini.ops.variables.resource_ops import (
    VariableResource,
    check_numeric,
    freeze,
    scatter_kernel,
    scatter_update_rows,
)
from tfmini.ops.variables.variables import Variable, register_reference_variable_class

# ----------------------------------------------------------------------------------------
# The storage


class RefStorage(VariableResource):
    """A reference variable's storage: a VariableResource that knows its name.

    It is the run-time value of a ``Ref(T)`` output; :meth:`_tm_deref` is what a plain
    input fed by that output receives.
    """

    __slots__ = ("name", "declared_shape")

    def __init__(self, dtype: DType, name: str, shape: TensorShape):
        super().__init__(dtype)
        self.name = name
        self.declared_shape = shape

    def _tm_deref(self) -> np.ndarray:
        """The current value (read-only).

        Raises:
            FailedPreconditionError: the variable is uninitialized.
        """
        value = self.read()
        if value is None:
            raise uninitialized(self)
        return value

    def __array__(self, dtype=None, copy=None):
        value = self._tm_deref()
        return value if dtype is None else value.astype(dtype)

    def __repr__(self) -> str:
        return f"<RefStorage '{self.name}' {super().__repr__()}>"


def uninitialized(storage: RefStorage) -> errors.OpError:
    """TensorFlow's error for using an uninitialized reference variable."""
    return errors.FailedPreconditionError(
        None, None, f"Attempting to use uninitialized value {storage.name}"
    )


def as_storage(value: Any, *, initialized: bool = True) -> RefStorage:
    """The RefStorage a ``Ref(T)`` input received (initialized unless told otherwise)."""
    if not isinstance(value, RefStorage):
        raise invalid_argument(
            f"Expected a reference (a VariableV2 output), got {type(value).__name__}"
        )
    if initialized and value.value is None:
        raise uninitialized(value)
    return value


# ----------------------------------------------------------------------------------------
# VariableV2


def _variable_shape(ic):
    return [ic.attrs["shape"]]


@register_op(
    "VariableV2",
    outputs=["ref: Ref(dtype)"],
    attrs=["shape: shape", "dtype: type", "container: string = ''", "shared_name: string = ''"],
    shape_fn=_variable_shape,
    stateful=True,
)
def variable_v2(ctx, *, shape, dtype, container, shared_name, node):
    """The storage of the variable named ``shared_name`` (the op's name when empty)."""
    name = shared_name or node.name
    res = ctx.resource_manager.lookup_or_create(
        container, name, lambda: RefStorage(dtype, node.name, shape)
    )
    if not isinstance(res, RefStorage):
        raise invalid_argument(
            f"Resource {container or 'localhost'}/{name} is a {type(res).__name__}, not a "
            f"reference variable"
        )
    if res.dtype != dtype:
        raise invalid_argument(
            f"Variable {name} holds {tf_type_name(res.dtype)}, the op wants "
            f"{tf_type_name(dtype)}"
        )
    return res


# ----------------------------------------------------------------------------------------
# Assign, AssignAdd, AssignSub


def _assign_shape(ic):
    if ic.attrs["validate_shape"]:
        return [shape_fns.merge_shapes(ic.input_shape(0), ic.input_shape(1))]
    return [ic.input_shape(1)]


@register_op(
    "Assign",
    inputs=["ref: Ref(T)", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
    shape_fn=_assign_shape,
    stateful=True,
)
def assign(ctx, ref, value, *, T, validate_shape):
    """Sets the variable to ``value`` (initializing it); outputs the reference."""
    storage = as_storage(ref, initialized=False)
    new = freeze(value, T)  # copied outside the lock: readers keep going meanwhile
    with storage.lock:
        old = storage.value
        if validate_shape:
            lhs = old.shape if old is not None else storage.declared_shape.dims
            if lhs is not None and None not in lhs and tuple(lhs) != new.shape:
                raise invalid_argument(
                    f"Assign requires shapes of both tensors to match. lhs shape= "
                    f"{dims_str(tuple(lhs))} rhs shape= {dims_str(new.shape)}"
                )
        storage.replace(ctx, new)
    return ref


def _update_shape(ic):
    return [shape_fns.merge_shapes(ic.input_shape(0), ic.input_shape(1))]


def _assign_update_kernel(op_type: str, ufunc) -> Any:
    def kernel(ctx, ref, value, *, T):
        check_numeric(op_type, T)
        storage = as_storage(ref)
        with storage.lock:
            old = storage.value
            if old is None:
                raise uninitialized(storage)
            if old.shape != np.shape(value):
                raise invalid_argument("Parameters and update must be the same size")
            new = storage.scratch()
            ufunc(old, value, out=new)
            storage.replace(ctx, new)
        return ref

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


for _type, _ufunc in (("AssignAdd", np.add), ("AssignSub", np.subtract)):
    register_op(
        _type,
        inputs=["ref: Ref(T)", "value: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=[f"T: {{{NUMERIC_TYPES}}}", "use_locking: bool = false"],
        shape_fn=_update_shape,
        stateful=True,
        doc=f"Updates the variable with ``{_ufunc.__name__}`` atomically; outputs the reference.",
    )(_assign_update_kernel(_type, _ufunc))


# ----------------------------------------------------------------------------------------
# ScatterAdd, ScatterSub, ScatterUpdate: the resource scatter kernels on the storage


def _ref_scatter_shape(ic):
    var = ic.input_shape(0)
    if var.dims is not None:
        var = shape_fns.with_rank_at_least(var, 1)
        updates = ic.input_shape(2)
        if updates.dims is None or len(updates.dims) != 0:
            shape_fns.merge_shapes(updates, ic.input_shape(1).concatenate(var[1:]))
    return [var]


def _ref_scatter_kernel(op_type: str, apply, numeric: bool) -> Any:
    inner = scatter_kernel(op_type, apply, numeric)

    def kernel(ctx, ref, indices, updates, *, T):
        storage = as_storage(ref)
        inner(ctx, storage, indices, updates, dtype=T)
        return ref

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


for _type, _apply, _numeric in (
    ("ScatterAdd", np.add.at, True),
    ("ScatterSub", np.subtract.at, True),
    ("ScatterUpdate", scatter_update_rows, False),
):
    register_op(
        _type,
        inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=[f"T: {{{NUMERIC_TYPES}}}" if _numeric else "T: type", "Tindices: {int32, int64}",
               "use_locking: bool = true" if not _numeric else "use_locking: bool = false"],
        shape_fn=_ref_scatter_shape,
        stateful=True,
        doc="Sparse update of the rows ``indices``; outputs the reference.",
    )(_ref_scatter_kernel(_type, _apply, _numeric))


# ----------------------------------------------------------------------------------------
# IsVariableInitialized


@register_op(
    "IsVariableInitialized",
    inputs=["ref: Ref(dtype)"],
    outputs=["is_initialized: bool"],
    attrs=["dtype: type"],
    shape_fn=shape_fns.scalar,
    stateful=True,
)
def is_variable_initialized_op(ctx, ref):
    """Whether the variable holds a value."""
    return np.bool_(as_storage(ref, initialized=False).value is not None)


for _type in ("VariableV2", "Assign", "AssignAdd", "AssignSub", "ScatterAdd", "ScatterSub",
              "ScatterUpdate", "IsVariableInitialized"):
    no_gradient(_type)


# ----------------------------------------------------------------------------------------
# RefVariable


@register_reference_variable_class
class RefVariable(Variable):
    """A TF1 reference variable (``tm.Variable(..., use_resource=False)``).

    The same public API as :class:`~tfmini.Variable`, built from TensorFlow's ref ops::

        w/Initializer/initial_value   the initial value
        w                             VariableV2
        w/Assign                      Assign: the initializer
        w/read                        Identity: the snapshot (``value()``, fetching ``w``)

    Converted to a tensor it gives the reference itself, so ops taking ``Ref(T)`` inputs
    (``tm.raw_ops.ApplyGradientDescent(var=w, ...)``) update it and any other op reads its
    current value when it runs. It has no ``handle``.

    Example::

        w = tm.Variable([1.0, 2.0], use_resource=False, name="w")
        step = tm.raw_ops.ApplyGradientDescent(var=w, alpha=0.5, delta=[1.0, 1.0])
        with tm.Session() as sess:
            sess.run(w.initializer)
            sess.run(tm.identity(step))    # array([0.5, 1.5], dtype=float32)
    """

    def __init__(self, initial_value: Any = None, trainable: bool | None = None,
                 collections=None, validate_shape: bool = True, caching_device=None,
                 name: str | None = None, variable_def: dict | None = None, dtype: Any = None,
                 import_scope: str | None = None, constraint=None,
                 use_resource: bool | None = None, synchronization=None, aggregation=None,
                 shape: Any = None):  # noqa: D107
        del use_resource
        # With a variable_def (an imported graph) the Python object is re-created over the
        # existing VariableV2, Assign and read ops, as for resource variables.
        super().__init__(initial_value, trainable, collections, validate_shape, caching_device,
                         name, variable_def, dtype, import_scope, constraint, True,
                         synchronization, aggregation, shape)

    # -- what differs from a resource variable (see Variable._init_from_args) -------------
    _MISSING_INITIAL_VALUE = "initial_value must be specified."
    _NOT_CALLABLE_CONSTRAINT = "The `constraint` argument must be a callable."

    @staticmethod
    def _unvalidated_shape(shape: TensorShape) -> TensorShape:
        """With ``validate_shape=False`` TensorFlow's VariableV2 gets an unknown shape."""
        return TensorShape(None)

    @staticmethod
    def _build_storage(outer: Scope, base: str, var_name: str, dtype: DType,
                       shape: TensorShape) -> Operation:
        """``VariableV2`` named ``base``: it holds the value and outputs the reference."""
        return build_op(outer, "VariableV2", [], {"dtype": dtype, "shape": shape}, name=base)

    def _build_created_ops(self, vscope: Scope, initial: Output) -> Output | None:
        """``<name>/Assign`` (keeping ``validate_shape``) and the snapshot ``<name>/read``
        (an Identity); ``IsVariableInitialized`` is built when first asked for."""
        self._initializer_op = build_op(
            vscope, "Assign", [self._handle, initial], {"validate_shape": self._validate_shape},
            name="Assign",
        )
        self._graph_element = build_op(vscope, "Identity", [self._handle],
                                       name="read").outputs[0]
        return None

    @property
    def handle(self):
        """Reference variables have no resource handle (AttributeError, as TensorFlow)."""
        raise AttributeError("'RefVariable' object has no attribute 'handle'")

    def _ref(self) -> Output:
        """The ``VariableV2`` output (TensorFlow's ``_ref()``)."""
        return self._handle

    def as_output(self) -> Output:
        """The reference: what conversion to a tensor gives."""
        return self._handle

    def value(self) -> Output:
        """The snapshot ``w/read`` (TensorFlow's ``RefVariable.value()``)."""
        return self._graph_element

    def read_value(self) -> Output:
        """A new ``Identity`` of the reference: the value when it runs."""
        return build_op(self._build_scope(), "Identity", [self._handle],
                        name="read").outputs[0]

    def _read(self, scope: Scope, name: str | None = None) -> Output:
        return build_op(scope, "Identity", [self._handle], name=name).outputs[0]

    def sparse_read(self, indices: Any, name: str | None = None) -> Output:
        """``Gather`` of the rows ``indices`` of the current value."""
        scope = self._build_scope()
        with scope_context(scope):
            idx = convert_to_tensor(indices, name="indices")
        return build_op(scope, "GatherV2", [self._handle, idx, np.int32(0)],
                        name=name or "Gather").outputs[0]

    gather = sparse_read

    def _build_is_initialized(self) -> Output:
        return build_op(self._build_scope(), "IsVariableInitialized", [self._handle],
                        {"dtype": self._dtype}).outputs[0]

    def to_proto(self, export_scope: str | None = None) -> dict:
        """A plain description (TensorFlow's VariableDef fields)."""
        d = super().to_proto(export_scope)
        d["is_resource"] = False
        return d

    def _ref_update(self, op_type: str, value: Any, attrs: dict, name: str | None,
                    read_value: bool):
        scope = self._build_scope()
        with scope_context(scope):
            value = convert_to_tensor(value, dtype=self._dtype)
        op = build_op(scope, op_type, [self._handle, value], attrs, name=name)
        return op.outputs[0] if read_value else op

    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True):
        """``Assign``: its ``output_ref`` (or the op when not ``read_value``).

        Raises:
            ValueError: the shapes are incompatible.
        """
        attrs = {"validate_shape": self._validate_shape}
        if use_locking is not None:
            attrs["use_locking"] = bool(use_locking)
        return self._ref_update("Assign", value, attrs, name, read_value)

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True):
        """``AssignAdd``: its ``output_ref`` (or the op when not ``read_value``)."""
        attrs = {"use_locking": bool(use_locking)} if use_locking is not None else {}
        return self._ref_update("AssignAdd", delta, attrs, name, read_value)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True):
        """``AssignSub``: its ``output_ref`` (or the op when not ``read_value``)."""
        attrs = {"use_locking": bool(use_locking)} if use_locking is not None else {}
        return self._ref_update("AssignSub", delta, attrs, name, read_value)

    def _scatter(self, op_type: str, sparse_delta: Any, name: str | None):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        ref_type = {"ResourceScatterAdd": "ScatterAdd", "ResourceScatterSub": "ScatterSub",
                    "ResourceScatterUpdate": "ScatterUpdate"}.get(op_type)
        if ref_type is None:
            raise NotImplementedError(f"{op_type[8:]} of a reference variable")
        scope = self._build_scope()
        with scope_context(scope):
            values = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
            indices = convert_to_tensor(sparse_delta.indices)
        return build_op(scope, ref_type, [self._handle, indices, values],
                        name=name).outputs[0]

    def __repr__(self) -> str:
        return (f"<tm.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}_ref>")


__all__: list[str] = ["RefVariable"]
