"""``tm.train.FtrlOptimizer``: FTRL-proximal (McMahan et al., 2013) as TF1 has it."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.math import cast, maximum
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class FtrlOptimizer(Optimizer):
    """FTRL-proximal (``tf.compat.v1.train.FtrlOptimizer``).

    With ``p = -learning_rate_power``: ``n' = n + g**2``; ``linear += g~ - (n'**p - n**p) /
    lr * var`` (``g~ = g + 2 * l2_shrinkage * var``); ``var = (sign(linear) * l1 - linear) /
    (n'**p / lr + 2 * l2')`` where ``|linear| > l1``, else 0; ``l2' = l2 + beta / (2 * lr)``.
    Slots ``"accum"`` (``initial_accumulator_value``) and ``"linear"`` (zeros), named
    ``<var>/<accum_name or name>`` and ``<var>/<linear_name or name>`` (the second gets
    ``_1`` when the names coincide). Uses ApplyFtrl, or ApplyFtrlV2 when
    ``l2_shrinkage_regularization_strength > 0``.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        learning_rate_power: How the step shrinks with the accumulator (zero or negative).
        initial_accumulator_value: Start of the accumulators (zero or positive).
        l1_regularization_strength: L1 strength (zero or positive).
        l2_regularization_strength: L2 strength (zero or positive).
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"Ftrl"``).
        accum_name: The accumulator slot's variable name (default ``name``).
        linear_name: The linear slot's variable name (default ``name``).
        l2_shrinkage_regularization_strength: L2 applied to the gradient (zero or positive).
        beta: Added to the L2 strength as ``beta / (2 * learning_rate)`` (default 0).

    Raises:
        ValueError: a strength, the accumulator value or the power out of range.
    """

    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name: str | None = None,
                 linear_name: str | None = None,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float | None = None):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value {initial_accumulator_value:f} needs "
                             "to be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be "
                             "negative or zero")
        if l1_regularization_strength < 0.0:
            raise ValueError(f"l1_regularization_strength {l1_regularization_strength:f} "
                             "needs to be positive or zero")
        if l2_regularization_strength < 0.0:
            raise ValueError(f"l2_regularization_strength {l2_regularization_strength:f} "
                             "needs to be positive or zero")
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError(
                "l2_shrinkage_regularization_strength "
                f"{l2_shrinkage_regularization_strength:f} needs to be positive or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name
        self._tensors: dict[str, Any] = {}

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, self._initial_accumulator_value, "accum",
                                self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self) -> None:
        lr = self._call_if_callable(self._learning_rate)
        t = self._tensors
        t["lr"] = convert_to_tensor(lr, name="learning_rate")
        t["l1"] = convert_to_tensor(self._l1, name="l1_regularization_strength")
        # beta folds into l2 (the step size floored so that a zero rate cannot divide by 0).
        t["l2"] = convert_to_tensor(
            self._l2 + self._beta / (2.0 * maximum(t["lr"], 1e-36)),
            name="adjusted_l2_regularization_strength")
        t["l2_shrinkage"] = convert_to_tensor(self._l2_shrinkage,
                                              name="l2_shrinkage_regularization_strength")
        t["lr_power"] = convert_to_tensor(self._learning_rate_power,
                                          name="learning_rate_power")

    def _hyper(self, dtype) -> list:
        keys = ["lr", "l1", "l2"] + (["l2_shrinkage"] if self._l2_shrinkage > 0.0 else [])
        return [cast(self._tensors[k], dtype) for k in [*keys, "lr_power"]]

    def _op(self, prefix: str) -> str:
        return prefix + ("ApplyFtrlV2" if self._l2_shrinkage > 0.0 else "ApplyFtrl")

    def _var_inputs(self, var, get) -> list:
        return [get(var), get(self.get_slot(var, "accum")), get(self.get_slot(var, "linear"))]

    def _resource_apply_dense(self, grad, var):
        return training_op(self._op("Resource"),
                           [*self._var_inputs(var, lambda s: s.handle), grad,
                            *self._hyper(grad.dtype)], use_locking=self._use_locking)

    def _resource_apply_sparse(self, grad, var, indices):
        return training_op(self._op("ResourceSparse"),
                           [*self._var_inputs(var, lambda s: s.handle), grad, indices,
                            *self._hyper(grad.dtype)], use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        return training_op(self._op(""), [*self._var_inputs(var, ref_of), grad,
                                          *self._hyper(var.dtype)],
                           use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_op(self._op("Sparse"),
                           [*self._var_inputs(var, ref_of), grad.values, grad.indices,
                            *self._hyper(var.dtype)], use_locking=self._use_locking)


__all__ = ["FtrlOptimizer"]
