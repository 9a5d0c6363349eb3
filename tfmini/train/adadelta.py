"""``tm.train.AdadeltaOptimizer``: steps scaled by the ratio of two decaying RMS values."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.math import cast
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class AdadeltaOptimizer(Optimizer):
    """Adadelta as TF1 has it (``tf.compat.v1.train.AdadeltaOptimizer``).

    ``accum = rho * accum + (1 - rho) * g**2``; ``update = sqrt(accum_update + epsilon) /
    sqrt(accum + epsilon) * g``; ``accum_update = rho * accum_update + (1 - rho) *
    update**2``; ``var -= learning_rate * update``. Slots ``"accum"`` and ``"accum_update"``
    (zeros), named ``<var>/<name>`` and ``<var>/<name>_1``.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one (TF1's default
            0.001).
        rho: The decay rate.
        epsilon: Added inside both roots.
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"Adadelta"``).
    """

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._tensors: dict[str, Any] = {}

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        for key, value in (("lr", self._lr), ("rho", self._rho), ("epsilon", self._epsilon)):
            self._tensors[key] = convert_to_tensor(self._call_if_callable(value), name=key)

    def _inputs(self, var, dtype, get) -> list:
        return [get(var), get(self.get_slot(var, "accum")),
                get(self.get_slot(var, "accum_update")),
                *[cast(self._tensors[k], dtype) for k in ("lr", "rho", "epsilon")]]

    def _resource_apply_dense(self, grad, var):
        return training_op("ResourceApplyAdadelta",
                           [*self._inputs(var, grad.dtype, lambda s: s.handle), grad],
                           use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return training_op("ResourceSparseApplyAdadelta",
                           [*self._inputs(var, grad.dtype, lambda s: s.handle), grad, indices],
                           use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return training_op("ApplyAdadelta", [*self._inputs(var, var.dtype, ref_of), grad],
                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_op("SparseApplyAdadelta",
                           [*self._inputs(var, var.dtype, ref_of), grad.values, grad.indices],
                           use_locking=self._use_locking)


__all__ = ["AdadeltaOptimizer"]
