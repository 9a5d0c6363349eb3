"""``tm.train.AdagradOptimizer``: accum += grad**2; var -= lr * grad / sqrt(accum)."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.math import cast
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class AdagradOptimizer(Optimizer):
    """Adagrad as TF1 has it (``tf.compat.v1.train.AdagradOptimizer``): no epsilon.

    Each variable gets a slot ``"accumulator"`` (named ``<var>/<name>``) starting at
    ``initial_accumulator_value``. Dense gradients use ``ResourceApplyAdagrad``; sparse ones
    ``ResourceSparseApplyAdagrad`` on the de-duplicated rows.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        initial_accumulator_value: The accumulators' start value; must be positive.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"Adagrad"``).

    Raises:
        ValueError: ``initial_accumulator_value`` is not positive.
    """

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")

    def _resource_apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_op("ResourceApplyAdagrad",
                           [var.handle, acc.handle,
                            cast(self._learning_rate_tensor, grad.dtype), grad],
                           use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        acc = self.get_slot(var, "accumulator")
        return training_op("ResourceSparseApplyAdagrad",
                           [var.handle, acc.handle,
                            cast(self._learning_rate_tensor, grad.dtype), grad, indices],
                           use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_op("ApplyAdagrad",
                           [ref_of(var), ref_of(acc),
                            cast(self._learning_rate_tensor, var.dtype), grad],
                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return training_op("SparseApplyAdagrad",
                           [ref_of(var), ref_of(acc),
                            cast(self._learning_rate_tensor, var.dtype), grad.values,
                            grad.indices],
                           use_locking=self._use_locking)


__all__ = ["AdagradOptimizer"]
