"""``tm.train.ProximalGradientDescentOptimizer`` and ``ProximalAdagradOptimizer``: a
gradient step followed by the proximal map of ``l1 * |x| + l2 / 2 * x**2``."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class _ProximalBase(Optimizer):
    """The hyper-parameters both proximal optimizers share."""

    def __init__(self, learning_rate: Any, l1: float, l2: float, use_locking: bool, name: str):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1 = l1
        self._l2 = l2
        self._tensors: list = []

    def _prepare(self) -> None:
        self._tensors = [
            convert_to_tensor(self._call_if_callable(self._learning_rate), name="learning_rate"),
            convert_to_tensor(self._l1, name="l1_regularization_strength"),
            convert_to_tensor(self._l2, name="l2_regularization_strength"),
        ]

    def _hyper(self, dtype) -> list:
        # TF1's proximal optimizers pass their float32 hyper-parameters uncast: a float64
        # variable fails to build with TypeError, as in TensorFlow.
        del dtype
        return list(self._tensors)

    def _var_inputs(self, var, get) -> list:
        return [get(var)]

    def _resource_apply_dense(self, grad, var):
        return training_op("Resource" + self._OP,
                           [*self._var_inputs(var, lambda s: s.handle), *self._hyper(grad.dtype),
                            grad], use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return training_op("ResourceSparse" + self._OP,
                           [*self._var_inputs(var, lambda s: s.handle), *self._hyper(grad.dtype),
                            grad, indices], use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return training_op(self._OP,
                           [*self._var_inputs(var, ref_of), *self._hyper(var.dtype), grad],
                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_op("Sparse" + self._OP,
                           [*self._var_inputs(var, ref_of), *self._hyper(var.dtype), grad.values,
                            grad.indices], use_locking=self._use_locking)


class ProximalGradientDescentOptimizer(_ProximalBase):
    """Proximal gradient descent (``tf.compat.v1.train.ProximalGradientDescentOptimizer``).

    ``v = var - lr * g``; ``var = sign(v) * max(|v| - lr * l1, 0) / (1 + lr * l2)``. No slots.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        l1_regularization_strength: L1 strength (the threshold applies only when positive).
        l2_regularization_strength: L2 strength.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops (default ``"ProximalGradientDescent"``).
    """

    _OP = "ApplyProximalGradientDescent"

    def __init__(self, learning_rate: Any, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)


class ProximalAdagradOptimizer(_ProximalBase):
    """Proximal Adagrad (``tf.compat.v1.train.ProximalAdagradOptimizer``).

    ``acc += g**2``, then the proximal step of :class:`ProximalGradientDescentOptimizer`
    with the step size ``lr / sqrt(acc)``. Slot ``"accumulator"`` (``<var>/<name>``).

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        initial_accumulator_value: The accumulators' start value; must be positive.
        l1_regularization_strength: L1 strength.
        l2_regularization_strength: L2 strength.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"ProximalAdagrad"``).

    Raises:
        ValueError: ``initial_accumulator_value`` is not positive.
    """

    _OP = "ApplyProximalAdagrad"

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(learning_rate, l1_regularization_strength,
                         l2_regularization_strength, use_locking, name)
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _var_inputs(self, var, get) -> list:
        return [get(var), get(self.get_slot(var, "accumulator"))]


__all__ = ["ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer"]
