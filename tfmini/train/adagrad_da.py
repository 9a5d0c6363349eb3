"""``tm.train.AdagradDAOptimizer``: Adagrad dual averaging (sparse-friendly)."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import int64
from tfmini.ops.array import identity
from tfmini.ops.math import cast
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging (``tf.compat.v1.train.AdagradDAOptimizer``).

    With ``t = global_step + 1`` (read before this step's increment): ``G += g``;
    ``H += g**2``; ``var = -lr * shrink(G) / (l2 * t * lr + sqrt(H))``, ``shrink`` the l1
    soft threshold ``sign(G) * max(|G| - l1 * t, 0)`` when ``l1 > 0``. The variable's old
    value is not used. Slots ``"gradient_accumulator"`` (zeros) and
    ``"gradient_squared_accumulator"`` (``initial_gradient_squared_accumulator_value``).

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        global_step: The global step variable (required: the update depends on it).
        initial_gradient_squared_accumulator_value: Start of ``H``; must be positive.
        l1_regularization_strength: L1 strength.
        l2_regularization_strength: L2 strength.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"AdagradDA"``).

    Raises:
        ValueError: ``initial_gradient_squared_accumulator_value`` is not positive.
    """

    def __init__(self, learning_rate: Any, global_step: Any,
                 initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_value = initial_gradient_squared_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._global_step = global_step
        self._lr_t = None
        self._step_t = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._constant_slot(v, self._initial_value, "gradient_squared_accumulator",
                                self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                       name="learning_rate")
        # The step this update counts as: the global step before its increment, plus one.
        step = identity(self._global_step) + 1
        self._step_t = step if step.dtype == int64 else cast(step, int64)

    def _inputs(self, var, dtype, get) -> list:
        return [get(var), get(self.get_slot(var, "gradient_accumulator")),
                get(self.get_slot(var, "gradient_squared_accumulator"))]

    def _hyper(self, dtype) -> list:
        return [cast(self._lr_t, dtype), cast(self._l1, dtype), cast(self._l2, dtype),
                identity(self._step_t)]

    def _resource_apply_dense(self, grad, var):
        return training_op("ResourceApplyAdagradDA",
                           [*self._inputs(var, grad.dtype, lambda s: s.handle), grad,
                            *self._hyper(grad.dtype)], use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return training_op("ResourceSparseApplyAdagradDA",
                           [*self._inputs(var, grad.dtype, lambda s: s.handle), grad, indices,
                            *self._hyper(grad.dtype)], use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return training_op("ApplyAdagradDA",
                           [*self._inputs(var, var.dtype, ref_of), grad,
                            *self._hyper(var.dtype)], use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_op("SparseApplyAdagradDA",
                           [*self._inputs(var, var.dtype, ref_of), grad.values, grad.indices,
                            *self._hyper(var.dtype)], use_locking=self._use_locking)


__all__ = ["AdagradDAOptimizer"]
