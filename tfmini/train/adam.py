"""``tm.train.AdamOptimizer``: TF1's Adam, bias correction folded into the learning rate."""

from __future__ import annotations

from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import control_dependencies, current_scope, scope_context
from tfmini.ops.control_flow import group
from tfmini.ops.math import cast, sqrt
from tfmini.ops.variables import init_scope
from tfmini.ops.variables import scatter_add as ref_scatter_add
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class AdamOptimizer(Optimizer):
    """Adam as TF1 has it (``tf.compat.v1.train.AdamOptimizer``).

    With ``t`` the number of steps taken, each step computes
    ``lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``m = beta1 * m + (1 - beta1) * g``, ``v = beta2 * v + (1 - beta2) * g^2`` and
    ``var -= lr_t * m / (sqrt(v) + epsilon)`` (``ResourceApplyAdam``). ``beta1^t`` and
    ``beta2^t`` live in two non-slot variables, ``beta1_power`` and ``beta2_power``, multiplied
    by the betas after all variables are updated. Slots ``"m"`` and ``"v"`` are named
    ``<var>/<name>`` and ``<var>/<name>_1``.

    A sparse gradient decays the whole of ``m`` and ``v`` and adds the scaled gradient rows
    (TF1's ``_apply_sparse_shared``), so it equals the dense update of the densified gradient.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        beta1: Decay of the first moment (float, tensor or callable).
        beta2: Decay of the second moment.
        epsilon: Added to ``sqrt(v)`` (TF1's default 1e-8).
        use_locking: Hold the variables' locks during the update.
        name: Name of the ops and slots (default ``"Adam"``).
    """

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        with scope_context(init_scope()):
            return (self._get_non_slot_variable("beta1_power"),
                    self._get_non_slot_variable("beta2_power"))

    def _create_slots(self, var_list):
        # The beta powers go beside the first variable by name, as in TensorFlow.
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _dense_inputs(self, dtype) -> list:
        beta1_power, beta2_power = self._get_beta_accumulators()
        return [cast(beta1_power, dtype), cast(beta2_power, dtype), cast(self._lr_t, dtype),
                cast(self._beta1_t, dtype), cast(self._beta2_t, dtype),
                cast(self._epsilon_t, dtype)]

    def _resource_apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        return training_op("ResourceApplyAdam",
                           [var.handle, m.handle, v.handle, *self._dense_inputs(grad.dtype),
                            grad],
                           use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        return training_op("ApplyAdam",
                           [ref_of(var), ref_of(m), ref_of(v), *self._dense_inputs(var.dtype),
                            grad],
                           use_locking=self._use_locking)

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        beta1_power, beta2_power = self._get_beta_accumulators()
        dtype = var.dtype
        beta1_power = cast(beta1_power, dtype)
        beta2_power = cast(beta2_power, dtype)
        lr_t = cast(self._lr_t, dtype)
        beta1_t = cast(self._beta1_t, dtype)
        beta2_t = cast(self._beta2_t, dtype)
        epsilon_t = cast(self._epsilon_t, dtype)
        lr = lr_t * sqrt(1 - beta2_power) / (1 - beta1_power)
        # m_t = beta1 * m + (1 - beta1) * g_t, the decay applied to every row
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * (1 - beta1_t)
        m_t = m.assign(m * beta1_t, use_locking=self._use_locking)
        with control_dependencies([m_t.op]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        # v_t = beta2 * v + (1 - beta2) * (g_t * g_t)
        v = self.get_slot(var, "v")
        v_scaled_g_values = grad * grad * (1 - beta2_t)
        v_t = v.assign(v * beta2_t, use_locking=self._use_locking)
        with control_dependencies([v_t.op]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = sqrt(v_t)
        var_update = var.assign_sub(lr * m_t / (v_sqrt + epsilon_t),
                                    use_locking=self._use_locking)
        return group(var_update.op, m_t.op, v_t.op)

    @staticmethod
    def _resource_scatter_add(x, i, v):
        scatter = build_op(current_scope(), "ResourceScatterAdd", [x.handle, i, v])
        with control_dependencies([scatter]):
            return x.value()

    def _resource_apply_sparse(self, grad, var, indices):
        return self._apply_sparse_shared(grad, var, indices, self._resource_scatter_add)

    def _apply_sparse(self, grad, var):
        def scatter(x, i, v):
            out = ref_scatter_add(x, i, v, use_locking=self._use_locking)
            return convert_to_tensor(out)

        return self._apply_sparse_shared(grad.values, var, grad.indices, scatter)

    def _finish(self, update_ops, name_scope):
        # The beta powers advance once per step, after every variable used this step's.
        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                              use_locking=self._use_locking)
            update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                              use_locking=self._use_locking)
        return group(*update_ops, update_beta1.op, update_beta2.op, name=name_scope)


__all__ = ["AdamOptimizer"]
