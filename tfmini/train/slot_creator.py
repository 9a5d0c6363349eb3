"""Slot variables: the per-variable state of an optimizer (``slot_creator`` in TF1).

A slot of the primary variable ``v`` is a non-trainable variable named
``<variable scope>/<v's op name>/<name>`` (made unique as every variable name is, so an
optimizer's second slot of ``v`` becomes ``v/<OptimizerName>_1``). It has ``v``'s kind: a
reference variable's slots are reference variables (the ``Apply*`` ops take refs), a resource
variable's are resource variables. Slots are created outside control dependencies and
functions (``init_scope``), as TensorFlow's ``tensorflow/python/training/slot_creator.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import evolve

from tfmini.core.dtypes import DType
from tfmini.core.graph import Operation
from tfmini.core.scope import colocate_with, scope_context
from tfmini.ops.array import constant, fill, zeros
from tfmini.ops.array import shape as shape_of
from tfmini.ops.math import cast
from tfmini.ops.variables import Variable, get_variable_scope, init_scope


def is_ref_variable(v: Any) -> bool:
    """Whether ``v`` is a reference variable (``tm.Variable(..., use_resource=False)``): its op
    is a VariableV2 holding the value by reference."""
    op = getattr(v, "op", None)
    return isinstance(op, Operation) and op.type in ("VariableV2", "Variable") and hasattr(
        v, "assign")


def _slot_var(primary: Any, initial_value: Any, name: str, dtype: DType | None,
              validate_shape: bool, colocate: bool = True) -> Variable:
    vs_name = get_variable_scope().name
    full = f"{primary.op.name}/{name}"
    full = f"{vs_name}/{full}" if vs_name else full
    # Named from the variable scope, never the name scope, as get_variable names.
    with scope_context(evolve(init_scope(), name_prefix="")):
        if not colocate:
            return _new_slot(primary, initial_value, full, dtype, validate_shape)
        # TF's default strategy colocates a slot with its primary (ops.colocate_with), so
        # an optimizer's state lives on the primary's parameter server.
        with colocate_with(primary):
            return _new_slot(primary, initial_value, full, dtype, validate_shape)


def _new_slot(primary: Any, initial_value: Any, full: str, dtype: DType | None,
              validate_shape: bool) -> Variable:
    return Variable(initial_value=initial_value, name=full, trainable=False, dtype=dtype,
                    validate_shape=validate_shape, use_resource=not is_ref_variable(primary))


def create_slot(primary: Any, val: Any, name: str, colocate_with_primary: bool = True,
                copy_xla_sharding: bool = False) -> Variable:
    """A slot of ``primary`` initialised to ``val``.

    Args:
        primary: The variable the slot belongs to.
        val: The initial value: a tensor, an array, or a callable returning one.
        name: The slot variable's name under the primary's (an optimizer passes its own
            name, so slots read ``<var>/<OptimizerName>``).
        colocate_with_primary: Place the slot on the primary's device (TF's default).
        copy_xla_sharding: Accepted for compatibility.

    Returns:
        The new non-trainable slot variable.
    """
    del copy_xla_sharding
    shape = getattr(val, "shape", None)
    validate = not (hasattr(shape, "is_fully_defined") and not shape.is_fully_defined())
    return _slot_var(primary, val, name, None, validate, colocate_with_primary)


def create_slot_with_initializer(primary: Any, initializer: Callable, shape: Any, dtype: Any,
                                 name: str, colocate_with_primary: bool = True,
                                 copy_xla_sharding: bool = False) -> Variable:
    """A slot of ``primary`` holding ``initializer(shape, dtype)``.

    Args:
        primary: The variable the slot belongs to.
        initializer: An initializer (``tm.ones_initializer()``...) or a callable
            ``(shape, dtype) -> tensor``.
        shape: The slot's shape (fully defined).
        dtype: The slot's dtype.
        name: The slot variable's name under the primary's.
        colocate_with_primary: Place the slot on the primary's device (TF's default).
        copy_xla_sharding: Accepted for compatibility.

    Returns:
        The new non-trainable slot variable.
    """
    del copy_xla_sharding
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return _slot_var(primary, lambda: initializer(dims, dtype=dtype), name, dtype, True,
                     colocate_with_primary)


def create_zeros_slot(primary: Any, name: str, dtype: Any = None,
                      colocate_with_primary: bool = True,
                      copy_xla_sharding: bool = False) -> Variable:
    """A slot of zeros shaped as ``primary`` (of ``primary``'s dtype unless ``dtype``).

    Args:
        primary: The variable the slot belongs to.
        name: The slot variable's name under the primary's.
        dtype: The slot's dtype (default: the primary's).
        colocate_with_primary: Place the slot on the primary's device (TF's default).
        copy_xla_sharding: Accepted for compatibility.

    Returns:
        The new non-trainable slot variable.
    """
    del copy_xla_sharding
    dtype = dtype if dtype is not None else primary.dtype
    shape = primary.shape
    if shape.is_fully_defined():
        return _slot_var(primary, lambda: zeros(shape.as_list(), dtype=dtype), name, dtype,
                         True, colocate_with_primary)
    return _slot_var(primary, lambda: zeros(shape_of(primary.initialized_value()),
                                            dtype=dtype), name, dtype, False,
                     colocate_with_primary)


def create_constant_slot(primary: Any, value: float, name: str) -> Variable:
    """A slot filled with ``value`` (converted straight to the primary's dtype, as
    ``constant_initializer``: a float64 slot holds exactly 0.1), shaped as ``primary``."""
    dtype = primary.dtype
    shape = primary.shape
    if shape.is_fully_defined():
        return _slot_var(primary, lambda: constant(value, dtype=dtype, shape=shape.as_list()),
                         name, dtype, True)
    return _slot_var(primary, lambda: cast(fill(shape_of(primary), value), dtype), name,
                     dtype, False)


__all__ = ["create_slot", "create_slot_with_initializer", "create_zeros_slot"]
