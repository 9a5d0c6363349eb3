"""Keras-2 Adagrad (``tf.keras.optimizers.legacy.Adagrad``): epsilon outside the root."""

from __future__ import annotations

from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import current_scope
from tfmini.keras.optimizers.optimizer_v2 import OptimizerV2

_DEFAULT_EPSILON = 1e-7  # Keras's backend epsilon


class Adagrad(OptimizerV2):
    """The Adagrad optimizer of Keras 2 (OptimizerV2).

    Per variable, with the accumulator slot ``acc`` (initially
    ``initial_accumulator_value``) and ``lr_t`` the learning rate of this step::

        acc <- acc + g ** 2
        var <- var - lr_t * g / (sqrt(acc) + epsilon)

    An IndexedSlices gradient (from ``tm.gather``) updates only its rows, after the rows of
    repeated indices are summed.

    Example::

        opt = tm.keras.optimizers.Adagrad(learning_rate=0.1)
        train = opt.minimize(lambda: tm.reduce_sum(tm.square(w)), var_list=[w])

    Args:
        learning_rate: A float, a tensor, a callable returning one, or a
            :class:`~tfmini.keras.optimizers.schedules.LearningRateSchedule`.
        initial_accumulator_value: The accumulators' start value (``>= 0``).
        epsilon: Added to the root of the accumulator; None or 0 means 1e-7.
        name: Name scope of the optimizer's variables and ops.
        **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``lr`` (deprecated alias
            of ``learning_rate``, which it overrides), ``decay``.

    Raises:
        ValueError: ``initial_accumulator_value < 0``; a negative keyword argument; both
            ``clipnorm`` and ``global_clipnorm``.
        TypeError: an unknown keyword argument; (when applied) a non-float variable.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float | None = 1e-7, name: str = "Adagrad", **kwargs: Any):
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value must be non-negative: {initial_accumulator_value}"
            )
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or _DEFAULT_EPSILON

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)

    def _prepare_local(self, var_device, var_dtype, apply_state) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        coefficients = apply_state[(var_device, var_dtype)]
        coefficients["epsilon"] = convert_to_tensor(self.epsilon, dtype=var_dtype)
        coefficients["neg_lr_t"] = -coefficients["lr_t"]

    def set_weights(self, weights: list) -> None:
        """As :meth:`OptimizerV2.set_weights`; a list without the leading ``iterations``
        value is accepted too (the step count is then reset to 0)."""
        if len(self.weights) == len(weights) + 1:
            weights = [0, *weights]
        super().set_weights(weights)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Adagrad:
        """As :meth:`OptimizerV2.from_config`; ``initial_accumulator_value`` defaults to 0.1
        for configs written before it existed."""
        config = dict(config)
        config.setdefault("initial_accumulator_value", 0.1)
        return super().from_config(config, custom_objects=custom_objects)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = self._coefficients(var, apply_state)
        acc = self.get_slot(var, "accumulator")
        return build_op(
            current_scope(), "ResourceApplyAdagradV2",
            [var.handle, acc.handle, c["lr_t"], c["epsilon"], grad],
            {"use_locking": self._use_locking},
        )

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        c = self._coefficients(var, apply_state)
        acc = self.get_slot(var, "accumulator")
        return build_op(
            current_scope(), "ResourceSparseApplyAdagradV2",
            [var.handle, acc.handle, c["lr_t"], c["epsilon"], grad, indices],
            {"use_locking": self._use_locking},
        )

    def get_config(self) -> dict:
        """``{name, [clipping options], learning_rate, decay, initial_accumulator_value,
        epsilon}``; a schedule learning rate is serialised."""
        config = super().get_config()
        config.update({
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "initial_accumulator_value": self._initial_accumulator_value,
            "epsilon": self.epsilon,
        })
        return config


__all__ = ["Adagrad"]
