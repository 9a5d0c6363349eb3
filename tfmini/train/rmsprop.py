"""``tm.train.RMSPropOptimizer``: TF1's RMSProp (the root of a decaying mean square)."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.math import cast
from tfmini.ops.variables import ones_initializer
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class RMSPropOptimizer(Optimizer):
    """RMSProp as TF1 has it (``tf.compat.v1.train.RMSPropOptimizer``).

    Each step: ``ms = decay * ms + (1 - decay) * g**2``; ``mom = momentum * mom +
    lr * g / sqrt(ms + epsilon)``; ``var -= mom``. Centered, it also keeps the mean gradient
    ``mg`` and divides by ``sqrt(ms - mg**2 + epsilon)``. Slots, in creation order: ``"rms"``
    (starting at 1.0), ``"mg"`` (zeros, centered only) and ``"momentum"`` (zeros), named
    ``<var>/<name>``, ``<var>/<name>_1``... Dense gradients use (Resource)ApplyRMSProp or
    ApplyCenteredRMSProp; sparse ones the SparseApply forms on the de-duplicated rows.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        decay: Discount of the mean square (and mean gradient).
        momentum: Momentum of the update.
        epsilon: Added to the mean square inside the root.
        use_locking: Hold the variables' locks during the update.
        centered: Normalise by the estimated variance instead of the second moment.
        name: Name of the ops and slots (default ``"RMSProp"``).
    """

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._tensors: dict[str, Any] = {}

    def _create_slots(self, var_list):
        for v in var_list:
            if v.shape.is_fully_defined():
                self._get_or_make_slot_with_initializer(
                    v, ones_initializer(), v.shape, v.dtype, "rms", self._name)
            else:
                self._constant_slot(v, 1.0, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        for key, value in (("learning_rate", self._learning_rate), ("decay", self._decay),
                           ("momentum", self._momentum), ("epsilon", self._epsilon)):
            self._tensors[key] = convert_to_tensor(self._call_if_callable(value), name=key)

    def _inputs(self, var, dtype, handles: bool) -> list:
        get = (lambda s: s.handle) if handles else ref_of
        slots = [self.get_slot(var, "rms"), self.get_slot(var, "momentum")]
        if self._centered:
            slots.insert(0, self.get_slot(var, "mg"))
        hyper = [cast(self._tensors[k], dtype)
                 for k in ("learning_rate", "decay", "momentum", "epsilon")]
        return [get(var), *[get(s) for s in slots], *hyper]

    def _op(self, prefix: str) -> str:
        return prefix + ("ApplyCenteredRMSProp" if self._centered else "ApplyRMSProp")

    def _resource_apply_dense(self, grad, var):
        return training_op(self._op("Resource"), [*self._inputs(var, grad.dtype, True), grad],
                           use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return training_op(self._op("ResourceSparse"),
                           [*self._inputs(var, grad.dtype, True), grad, indices],
                           use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return training_op(self._op(""), [*self._inputs(var, var.dtype, False), grad],
                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_op(self._op("Sparse"),
                           [*self._inputs(var, var.dtype, False), grad.values, grad.indices],
                           use_locking=self._use_locking)


__all__ = ["RMSPropOptimizer"]
