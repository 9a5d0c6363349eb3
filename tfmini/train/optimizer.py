"""The TF1 optimizer base class: ``tm.train.Optimizer`` (``tf.compat.v1.train.Optimizer``).

An optimizer turns ``(gradient, variable)`` pairs into update ops. ``compute_gradients``
differentiates a loss with ``tm.gradients``; ``apply_gradients`` creates the optimizer's slot
variables (outside any control flow), builds one update per variable under the name scope
``<name>/update_<variable>``, groups them and, given a global step, increments it after all of
them. Subclasses implement the update rules with the raw training ops
(``ResourceApplyAdagrad``...), exactly as TensorFlow's optimizers do, so the numbers agree.

Sparse gradients (:class:`~tfmini.IndexedSlices`, from gathers) update only
the rows they name; the base class first sums the values of repeated indices
(``Unique`` + ``UnsortedSegmentSum``), because the sparse kernels apply repeated rows one
after the other, which is not the update of the summed gradient for any rule but SGD.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, float16, float32, float64, resource
from tfmini.core.function import root_graph
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import (
    colocate_with,
    control_dependencies,
    current_scope,
    device,
    get_default_graph,
    name_scope,
    scope_context,
)
from tfmini.gradients import gradients
from tfmini.ops.array import shape as shape_of
from tfmini.ops.array import unique, unsorted_segment_sum
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.control_flow import group
from tfmini.ops.control_flow import tuple as gate_tuple
from tfmini.ops.variables import (
    GraphKeys,
    Variable,
    get_collection,
    get_collection_ref,
    init_scope,
    trainable_variables,
)
from tfmini.train import slot_creator
from tfmini.train.slot_creator import is_ref_variable

# TensorFlow lists them in this (set iteration) order in its message; bfloat16 is one of
# them although tfmini has no such dtype.
_VALID_DTYPES = (float32, float64, float16)
_VALID_DTYPES_TEXT = "[tf.float32, tf.float64, tf.float16, tf.bfloat16]"


def _var_key(var: Any) -> Any:
    """The key of ``var``'s slots: its graph and op name, as TensorFlow keys them."""
    if hasattr(var, "op"):
        return (var.op.graph, var.op.name)
    return id(var)


def _is_resource_variable(v: Any) -> bool:
    return isinstance(v, Variable) and getattr(v, "handle", None) is not None and (
        v.handle.dtype == resource)


def _deduplicate_indexed_slices(values: Output, indices: Output) -> tuple[Output, Output]:
    """``(summed_values, unique_indices)``: the values of each repeated index summed."""
    unique_indices, positions = unique(indices)
    summed = unsorted_segment_sum(values, positions, shape_of(unique_indices)[0])
    return summed, unique_indices


def training_op(op_type: str, inputs: list, **attrs: Any) -> Operation:
    """Builds the raw training op ``op_type`` (TensorFlow's input order) in the current scope."""
    return build_op(current_scope(), op_type, inputs, attrs)


def ref_of(var: Any) -> Any:
    """The reference tensor of a reference variable (what the ``Apply*`` ops update)."""
    ref = getattr(var, "_ref", None)
    return ref() if callable(ref) else var


# ----------------------------------------------------------------------------------------
# What "updating a variable" means for each kind of thing in a var_list.


class _ResourceVariableProcessor:
    """A resource variable: dense gradients through ``_resource_apply_dense``, sparse ones
    through ``_resource_apply_sparse_duplicate_indices``; constraints projected afterwards."""

    def __init__(self, v: Variable):
        self._v = v

    def target(self) -> Any:
        return self._v

    def update_op(self, optimizer: Optimizer, g: Any) -> Any:
        v = self._v
        if isinstance(g, IndexedSlices):
            if v.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return optimizer._resource_apply_sparse_duplicate_indices(g.values, v, g.indices)
        update = optimizer._resource_apply_dense(g, v)
        if v.constraint is not None:
            with control_dependencies([update]):
                return v.assign(v.constraint(v))
        return update


class _RefVariableProcessor:
    """A reference variable (``use_resource=False``): the ref ops (``ApplyAdagrad``...)."""

    def __init__(self, v: Any):
        self._v = v

    def target(self) -> Any:
        return self._v

    def update_op(self, optimizer: Optimizer, g: Any) -> Any:
        v = self._v
        if isinstance(g, IndexedSlices):
            if getattr(v, "constraint", None) is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return optimizer._apply_sparse_duplicate_indices(g, v)
        update = optimizer._apply_dense(g, v)
        if getattr(v, "constraint", None) is not None:
            with control_dependencies([update]):
                return v.assign(v.constraint(v))
        return update


class _TensorProcessor:
    """A plain tensor: gradients can be computed for it, but it cannot be updated."""

    def __init__(self, v: Output):
        self._v = v

    def target(self) -> Any:
        return self._v

    def update_op(self, optimizer: Optimizer, g: Any) -> Any:
        raise NotImplementedError("Trying to update a Tensor ", self._v)


def _get_processor(v: Any) -> Any:
    if _is_resource_variable(v):
        return _ResourceVariableProcessor(v)
    if is_ref_variable(v):
        return _RefVariableProcessor(v)
    if isinstance(v, Output):
        return _TensorProcessor(v)
    raise NotImplementedError("Trying to optimize unsupported type ", v)


def _flatten(var_list: Any) -> list:
    if isinstance(var_list, (list, tuple)):
        return [x for item in var_list for x in _flatten(item)]
    if isinstance(var_list, dict):
        return [x for key in sorted(var_list) for x in _flatten(var_list[key])]
    return [var_list]


def _gate_together(grads: list) -> list:
    """GATE_GRAPH: every gradient (IndexedSlices parts included) passes through one
    ``tm.tuple``, so none is used before all are computed."""
    parts: list[Output] = []
    for g in grads:
        if isinstance(g, IndexedSlices):
            parts.extend([g.values, g.indices] + ([g.dense_shape] if g.dense_shape is not None
                                                  else []))
        elif g is not None:
            parts.append(g)
    if not parts:
        return list(grads)
    it = iter(gate_tuple(parts))
    gated: list = []
    for g in grads:
        if isinstance(g, IndexedSlices):
            values, indices = next(it), next(it)
            dense_shape = next(it) if g.dense_shape is not None else None
            gated.append(IndexedSlices(values, indices, dense_shape))
        elif g is not None:
            gated.append(next(it))
        else:
            gated.append(None)
    return gated


def _variables_read_by(loss: Output, candidates: list) -> list:
    """The candidates whose handle ``loss`` depends on (what a GradientTape would watch)."""
    seen: set[Operation] = set()
    work = [loss.op]
    while work:
        op = work.pop()
        if op in seen:
            continue
        seen.add(op)
        work.extend(t.op for t in op.inputs)
        work.extend(op.control_inputs)
    return [v for v in candidates if getattr(v, "op", None) in seen]


# ----------------------------------------------------------------------------------------
# Optimizer


class Optimizer:
    """Base class of the TF1 optimizers (``tf.compat.v1.train.Optimizer``).

    Subclasses (:class:`GradientDescentOptimizer`, :class:`MomentumOptimizer`,
    :class:`AdagradOptimizer`, :class:`AdamOptimizer`) implement ``_create_slots``,
    ``_prepare`` and the ``_resource_apply_*`` rules; users call :meth:`minimize`, or
    :meth:`compute_gradients`, process the gradients, then :meth:`apply_gradients`.

    Example::

        opt = tm.train.GradientDescentOptimizer(learning_rate=0.1)
        train_op = opt.minimize(loss, global_step=tm.train.get_or_create_global_step())

    Args:
        use_locking: Passed to the update ops: hold the variables' locks for the whole
            update (so concurrent updates of one variable are applied one after the other).
        name: The name of the optimizer's ops and the suffix of its slot variables.

    Raises:
        ValueError: ``name`` is empty.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        # slot name -> {variable key -> slot variable}
        self._slots: dict[str, dict[Any, Variable]] = {}
        # (name, graph) -> variable, for state that belongs to no variable (Adam's beta powers)
        self._non_slot_dict: dict[tuple[str, Any], Variable] = {}

    def get_name(self) -> str:
        """The optimizer's name."""
        return self._name

    # -- the three steps ------------------------------------------------------------------
    def minimize(
        self,
        loss: Any,
        global_step: Any = None,
        var_list: Any = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Any = None,
    ) -> Operation:
        """Adds the ops that minimize ``loss``: :meth:`compute_gradients`, then
        :meth:`apply_gradients`.

        Args:
            loss: The tensor to minimize (or a callable returning it).
            global_step: Optional integer variable incremented after the updates.
            var_list: Variables to update (default: the trainable variables).
            gate_gradients: ``GATE_NONE``, ``GATE_OP`` or ``GATE_GRAPH``.
            aggregation_method: How partial gradients are summed (``tm.AggregationMethod``).
            colocate_gradients_with_ops: Accepted for compatibility.
            name: Name of the returned op (default: the optimizer's name).
            grad_loss: Optional gradient of ``loss`` (default ones).

        Returns:
            The op applying the updates; with ``global_step``, the op incrementing it.

        Raises:
            ValueError: no variables; no variable has a gradient; an invalid
                ``gate_gradients``; a loss that is not float16/32/64.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Any,
        var_list: Any = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[Any, Any]]:
        """The gradients of ``loss`` for the variables in ``var_list``.

        Args:
            loss: A float tensor, or a callable of no arguments returning one (then the
                default ``var_list`` is the trainable variables it reads).
            var_list: Variables (or tensors) to differentiate for; default: the
                ``TRAINABLE_VARIABLES`` and ``TRAINABLE_RESOURCE_VARIABLES`` collections.
            gate_gradients: ``GATE_NONE`` (no gating), ``GATE_OP`` (each op's input gradients
                are all computed before any is used) or ``GATE_GRAPH`` (no gradient is used
                before all are computed).
            aggregation_method: How partial gradients are summed; the value is the same.
            colocate_gradients_with_ops: Accepted for compatibility.
            grad_loss: Optional gradient of ``loss``.

        Returns:
            ``(gradient, variable)`` pairs in ``var_list`` order; the gradient is a tensor, an
            IndexedSlices, or None for a variable the loss does not depend on.

        Raises:
            ValueError: ``gate_gradients`` is not one of the three; the loss, ``grad_loss`` or
                a variable is not float16/32/64; ``var_list`` is empty.
            NotImplementedError: an entry of ``var_list`` is not a variable or tensor.
        """
        if callable(loss):
            loss_value = loss()
            candidates = None
            if var_list is None:
                candidates = trainable_variables() + get_collection(
                    GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
            loss_value = convert_to_tensor(loss_value)
            if candidates is not None:
                var_list = _variables_read_by(loss_value, candidates)
            loss = loss_value
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP,
                                  Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            grad_loss = convert_to_tensor(grad_loss)
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = trainable_variables() + get_collection(
                GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = _flatten(var_list)
        processors = [_get_processor(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(
            loss, [p.target() for p in processors], grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = _gate_together(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes(
            [v for g, v in grads_and_vars if g is not None and v.dtype != resource])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars: Iterable, global_step: Any = None,
                        name: str | None = None) -> Operation:
        """Adds the ops that apply ``grads_and_vars`` to their variables.

        Slots are created first (outside any control flow or function); then, under the
        name scope ``name`` (default: the optimizer's name), one update per variable with a
        gradient. Pairs whose gradient is None are skipped.

        Args:
            grads_and_vars: ``(gradient, variable)`` pairs, as :meth:`compute_gradients`
                returns them.
            global_step: Optional integer variable incremented by one after all updates.
            name: Name of the returned op.

        Returns:
            Without ``global_step``, the NoOp grouping the updates (named ``name``); with it,
            the ``AssignAddVariableOp`` incrementing it, which runs after the updates. The op
            is also added to the ``TRAIN_OP`` collection.

        Raises:
            ValueError: ``grads_and_vars`` is empty, or every gradient is None.
            TypeError: a gradient is not convertible to a tensor or IndexedSlices.
            NotImplementedError: a variable is a plain tensor.
            RuntimeError: a variable with a constraint gets a sparse gradient.
        """
        grads_and_vars = tuple(grads_and_vars)  # iterated more than once
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None and not isinstance(g, IndexedSlices):
                try:
                    g = convert_to_tensor(g)
                except (TypeError, ValueError):
                    raise TypeError(
                        f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                    ) from None
            converted.append((g, v, _get_processor(v)))
        var_list = [v for g, v, _ in converted if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v, _ in converted]}."
            )
        # Slots belong to the variables, not to this step: they are created outside any
        # cond branch or control dependency, as TensorFlow's init_scope does.
        with scope_context(init_scope()):
            self._create_slots(var_list)
        update_ops = []
        with name_scope(name, self._name) as name:
            self._prepare()
            for grad, var, processor in converted:
                if grad is None:
                    continue
                # On the variable's device, as TensorFlow's apply_gradients: under a
                # replica_device_setter the update runs on the variable's ps task.
                with name_scope("update_" + var.op.name), (
                        device(var.device) if var.device else contextlib.nullcontext()):
                    update_ops.append(processor.update_op(self, grad))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                # Beside the global step (TensorFlow's colocate_with(global_step)).
                with control_dependencies([self._finish(update_ops, "update")]), (
                        colocate_with(global_step)):
                    apply_updates = self._increment(global_step, name)
        if isinstance(apply_updates, Output):
            apply_updates = apply_updates.op
        train_ops = get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    @staticmethod
    def _increment(global_step: Any, name: str) -> Operation:
        if _is_resource_variable(global_step):
            one = convert_to_tensor(1, dtype=global_step.dtype)
            return build_op(current_scope(), "AssignAddVariableOp", [global_step.handle, one],
                            name=name)
        out = global_step.assign_add(1, name=name)  # a reference variable
        return out if isinstance(out, Operation) else out.op

    # -- slots ------------------------------------------------------------------------------
    def get_slot(self, var: Any, name: str) -> Variable | None:
        """The slot ``name`` (e.g. ``"accumulator"``) made for ``var``, or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer made, sorted."""
        return sorted(self._slots)

    def variables(self) -> list[Variable]:
        """The optimizer's variables (slots and non-slot state) in the default graph, sorted
        by name."""
        graph = root_graph(get_default_graph())
        found = [v for (_, g), v in self._non_slot_dict.items() if g is graph]
        for named in self._slots.values():
            found.extend(v for v in named.values() if v.op.graph is graph)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name: str) -> dict:
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var: Any, val: Any, slot_name: str, op_name: str) -> Variable:
        """The slot ``slot_name`` of ``var``, created on first use by
        :func:`slot_creator.create_slot` as ``<var op name>/<op_name>`` holding ``val`` (a
        tensor, array or callable)."""
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_slot(var, val, op_name)
        return named[key]

    def _get_or_make_slot_with_initializer(self, var: Any, initializer: Callable, shape: Any,
                                           dtype: DType, slot_name: str,
                                           op_name: str) -> Variable:
        """The slot ``slot_name`` of ``var``, created on first use holding
        ``initializer(shape, dtype)``."""
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named[key]

    def _constant_slot(self, var: Any, value: float, slot_name: str, op_name: str) -> Variable:
        """A slot filled with ``value`` in ``var``'s dtype and shape."""
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_constant_slot(var, value, op_name)
        return named[key]

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Variable:
        """A slot of zeros shaped and typed as ``var``."""
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_zeros_slot(var, op_name)
        return named[key]

    def _create_non_slot_variable(self, initial_value: Any, name: str,
                                  colocate_with: Any) -> Variable:
        """An extra variable of the optimizer (not tied to one variable), once per graph."""
        graph = root_graph(colocate_with.graph)
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            # Beside colocate_with (the first variable), as TF's default strategy places it.
            with _colocated(colocate_with):
                v = Variable(initial_value, name=name, trainable=False,
                             use_resource=not is_ref_variable(colocate_with))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Variable | None:
        graph = root_graph(graph if graph is not None else get_default_graph())
        return self._non_slot_dict.get((name, graph))

    # -- for subclasses ---------------------------------------------------------------------
    def _assert_valid_dtypes(self, tensors: list) -> None:
        valid = self._valid_dtypes()
        for t in tensors:
            if t.dtype not in valid:
                raise ValueError(
                    f"Invalid type tf.{t.dtype.name} for {t.name}, expected: "
                    f"{_VALID_DTYPES_TEXT}."
                )

    def _valid_dtypes(self) -> tuple[DType, ...]:
        return _VALID_DTYPES

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        return param() if callable(param) else param

    def _create_slots(self, var_list: list) -> None:
        """Creates the slots of ``var_list`` (called outside control flow)."""

    def _prepare(self) -> None:
        """Builds the hyper-parameter tensors, in the update's name scope."""

    def _resource_apply_dense(self, grad: Output, var: Variable) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse(self, grad: Output, var: Variable, indices: Output) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse_duplicate_indices(self, grad: Output, var: Variable,
                                                 indices: Output) -> Any:
        summed, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, var, unique_indices)

    def _apply_dense(self, grad: Output, var: Any) -> Any:
        raise NotImplementedError()

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        summed, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _finish(self, update_ops: list, name_scope: str) -> Operation:
        """The op grouping ``update_ops`` (subclasses add their own final updates)."""
        return group(*update_ops, name=name_scope)


__all__ = ["Optimizer"]


# The parameter of _create_non_slot_variable shadows the context manager of that name.
_colocated = colocate_with
