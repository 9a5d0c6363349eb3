"""``tm.train.ExponentialMovingAverage`` and ``assign_moving_average`` (TF1's
``tensorflow/python/training/moving_averages.py``).

``apply(var_list)`` gives each variable (or float tensor) a non-trainable shadow variable
``<var>/<name>`` (a slot, see :mod:`tfmini.train.slot_creator`) starting at the variable's
initial value (zeros for a tensor), adds the variables to ``MOVING_AVERAGE_VARIABLES``, and
returns the op that updates every shadow: ``shadow -= (1 - decay) * (shadow - value)`` as an
``AssignSub`` under ``<name>/AssignMovingAvg``. With ``num_updates`` the decay is
``min(decay, (1 + num_updates) / (10 + num_updates))``; with ``zero_debias`` a tensor's
average is kept unbiased through the extra variables ``<shadow>/biased`` and
``<shadow>/local_step``.
"""

from __future__ import annotations

from typing import Any

from attrs import evolve

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import float16, float32, float64
from tfmini.core.graph import Operation
from tfmini.core.scope import get_default_graph, name_scope, scope_context
from tfmini.ops.array import zeros
from tfmini.ops.control_flow import group
from tfmini.ops.math import cast, minimum, pow  # noqa: A004 (TensorFlow's name)
from tfmini.ops.variables import (
    GraphKeys,
    Variable,
    add_to_collection,
    global_variables,
    init_scope,
    moving_average_variables,
    trainable_variables,
)
from tfmini.train import slot_creator


def _key(v: Any) -> Any:
    """Averages are keyed by the variable (or tensor) itself: its graph and name."""
    return (id(getattr(v, "graph", None)), v.name)


def _zero_debias(shadow: Any, value: Any, one_minus_decay: Any) -> Any:
    """The unbiased update of ``shadow`` (TensorFlow's ``_zero_debias``): a biased average
    and a step count beside it, the shadow set to ``biased / (1 - decay**steps)``."""
    base = shadow.op.name
    # Named from the shadow's name, never the surrounding name scope (TensorFlow makes them
    # with get_variable in the variable scope of the shadow).
    with scope_context(evolve(init_scope(), name_prefix="")):
        biased = Variable(lambda: zeros(shadow.shape.as_list(), dtype=shadow.dtype),
                          name=f"{base}/biased", trainable=False)
        local_step = Variable(lambda: zeros([], dtype=shadow.dtype),
                              name=f"{base}/local_step", trainable=False)
    update_biased = biased.assign_sub((biased - value) * one_minus_decay)
    update_step = local_step.assign_add(1)
    bias_factor = 1 - pow(1.0 - one_minus_decay, update_step)
    return shadow.assign(update_biased / bias_factor)


def assign_moving_average(variable: Any, value: Any, decay: Any, zero_debias: bool = True,
                          name: str | None = None) -> Any:
    """``variable -= (1 - decay) * (variable - value)``, under the name scope
    ``AssignMovingAvg`` (TF1's ``tf.compat.v1.assign_moving_average``... exported by
    ``moving_averages``).

    Args:
        variable: The average (a float variable).
        value: The new value (same shape).
        decay: The decay (a float or scalar tensor; cast to the variable's dtype).
        zero_debias: Debias the average (the extra ``biased`` and ``local_step`` variables).
        name: The name scope (default ``AssignMovingAvg``).

    Returns:
        The updated value of ``variable``.
    """
    with name_scope(name, "AssignMovingAvg") as scope:
        one_minus = convert_to_tensor(1.0 - decay, name="decay")
        if one_minus.dtype != variable.dtype:
            one_minus = cast(one_minus, variable.dtype)
        if zero_debias:
            return _zero_debias(variable, value, one_minus)
        return variable.assign_sub((variable - value) * one_minus, name=scope)


class ExponentialMovingAverage:
    """Moving averages of variables (``tf.compat.v1.train.ExponentialMovingAverage``).

    Example::

        ema = tm.train.ExponentialMovingAverage(decay=0.99)
        with tm.control_dependencies([train_op]):
            train_op = ema.apply([w, b])
        w_avg = ema.average(w)

    Args:
        decay: The decay (a float, e.g. 0.999).
        num_updates: Optional step counter: the decay becomes ``min(decay, (1 + n) / (10 +
            n))`` (faster averaging early on).
        zero_debias: Debias the averages of tensors (variables are never debiased: their
            shadows start at their initial values).
        name: The name scope of the ops and the suffix of the shadow variables.
    """

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[Any, Variable] = {}
        self._debiased: set = set()

    @property
    def name(self) -> str:
        """The name of the ops and the shadow variables' suffix."""
        return self._name

    def apply(self, var_list: list | None = None) -> Operation:
        """Creates the shadows of ``var_list`` (once each) and returns the op updating them.

        Args:
            var_list: Variables or float tensors (default: the trainable variables).

        Returns:
            The NoOp ``<name>`` grouping one ``AssignMovingAvg`` per entry.

        Raises:
            TypeError: an entry is not float16/32/64.
            ValueError: an entry appears twice.
        """
        if var_list is None:
            var_list = trainable_variables()
        var_list = list(var_list)
        for v in var_list:
            if v.dtype not in (float16, float32, float64):
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
            if _key(v) in self._averages:
                continue
            with scope_context(init_scope()):
                if isinstance(v, Variable) or slot_creator.is_ref_variable(v):
                    init = getattr(v, "initialized_value", None)
                    value = init if callable(init) else (lambda v=v: v.initial_value)
                    avg = slot_creator.create_slot(v, value, self._name)
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, v)
                else:
                    avg = slot_creator.create_zeros_slot(v, self._name)
                    if self._zero_debias:
                        self._debiased.add(_key(avg))
            self._averages[_key(v)] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=float32, name="decay")
            if self._num_updates is not None:
                n = cast(self._num_updates, float32, name="num_updates")
                decay = minimum(decay, (1.0 + n) / (10.0 + n))
            updates = []
            for v in var_list:
                avg = self._averages[_key(v)]
                updates.append(assign_moving_average(
                    avg, v, decay, zero_debias=_key(avg) in self._debiased))
            return group(*updates, name=scope)

    def average(self, var: Any) -> Variable | None:
        """The shadow variable of ``var``, or None if :meth:`apply` never saw it."""
        return self._averages.get(_key(var))

    def average_name(self, var: Any) -> str:
        """The name of ``var``'s shadow (what a Saver restores it from): the shadow's op name,
        or the name :meth:`apply` would give it."""
        avg = self._averages.get(_key(var))
        if avg is not None:
            return avg.op.name
        return get_default_graph().unique_name(f"{var.op.name}/{self._name}",
                                               mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables: list | None = None) -> dict[str, Any]:
        """The name -> variable map that restores the averaged values into the variables:
        each moving-averaged variable under its shadow's name, every other global variable
        under its own.

        Args:
            moving_avg_variables: The variables whose averages to restore (default: the
                trainable and the moving-average variables).

        Returns:
            A dict for ``tm.train.Saver(var_list=...)``.
        """
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        unique = {_key(v): v for v in moving_avg_variables}
        name_map = {self.average_name(v): v for v in unique.values()}
        averaged_names = {v.name for v in unique.values()}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


__all__ = ["ExponentialMovingAverage", "assign_moving_average"]
