"""``tm.train.MomentumOptimizer``: accum = momentum * accum + grad; var -= lr * accum."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.math import cast
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class MomentumOptimizer(Optimizer):
    """Momentum (``tf.compat.v1.train.MomentumOptimizer``), optionally Nesterov's.

    Each variable gets a slot ``"momentum"`` (zeros, named ``<var>/<name>``). Dense
    gradients use ``ResourceApplyMomentum``; sparse ones ``ResourceSparseApplyMomentum`` on
    the de-duplicated rows, so rows without a gradient keep their accumulator.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        momentum: Same.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"Momentum"``).
        use_nesterov: Use Nesterov momentum (``var -= lr * grad + lr * momentum * accum``).
    """

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov
        self._learning_rate_tensor = None
        self._momentum_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._momentum_tensor = convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum")

    def _hyper(self, dtype):
        return cast(self._learning_rate_tensor, dtype), cast(self._momentum_tensor, dtype)

    def _resource_apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        lr, momentum = self._hyper(grad.dtype)
        return training_op("ResourceApplyMomentum",
                           [var.handle, mom.handle, lr, grad, momentum],
                           use_locking=self._use_locking, use_nesterov=self._use_nesterov)

    def _resource_apply_sparse(self, grad, var, indices):
        mom = self.get_slot(var, "momentum")
        lr, momentum = self._hyper(grad.dtype)
        return training_op("ResourceSparseApplyMomentum",
                           [var.handle, mom.handle, lr, grad, indices, momentum],
                           use_locking=self._use_locking, use_nesterov=self._use_nesterov)

    def _apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        lr, momentum = self._hyper(var.dtype)
        return training_op("ApplyMomentum", [ref_of(var), ref_of(mom), lr, grad, momentum],
                           use_locking=self._use_locking, use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        mom = self.get_slot(var, "momentum")
        lr, momentum = self._hyper(var.dtype)
        return training_op("SparseApplyMomentum",
                           [ref_of(var), ref_of(mom), lr, grad.values, grad.indices, momentum],
                           use_locking=self._use_locking, use_nesterov=self._use_nesterov)


__all__ = ["MomentumOptimizer"]
