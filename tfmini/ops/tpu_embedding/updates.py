"""The optimizer maths of the simulated TPU embedding: one update of a table's touched rows.

:func:`apply_optimizer` runs, for the rows Send touched (the reference of
tensorflow/python/tpu/tests/tpu_embedding_base_test.py): gradient clipping, the update of the
table's algorithm (SGD, Adagrad, Adam, FTRL, momentum, RMSProp, Adagrad-momentum), decoupled weight
decay, weight clipping. It is pure NumPy on float32 (rows, dim) blocks and modifies nothing in
place; ``SendTPUEmbeddingGradients`` (``recv_send``) gathers the rows and writes the
results back.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfmini import errors

# The algorithms the simulated device applies, and the Load/Retrieve op stems registered for
# them (TensorFlow's spelling: "ADAM", "FTRL", "RMSProp").
SUPPORTED_OPTIMIZERS = (
    "stochastic_gradient_descent", "adagrad", "adam", "ftrl", "momentum", "rms_prop",
    "adagrad_momentum",
)


def _clip(x: np.ndarray, limits: Any) -> np.ndarray:
    if limits is None:
        return x
    lo, hi = limits.lower, limits.upper
    if lo == -math.inf and hi == math.inf:
        return x
    return np.clip(x, np.float32(lo), np.float32(hi))


def apply_optimizer(params: Any, lr: float, e: np.ndarray, slots: dict[str, np.ndarray],
                    g: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One optimizer step for the rows in ``e`` (tpu_embedding_base_test.py's reference); returns
    new E and slots.

    ``e``, the slots and ``g`` are float32 (rows, dim) blocks; nothing is modified in place.
    """
    g = _clip(g, params.gradient_clipping_limits)
    lr32 = np.float32(lr)
    opt = params.optimizer
    new: dict[str, np.ndarray] = {}
    if opt == "stochastic_gradient_descent":
        e_new = e - lr32 * g
    elif opt == "adagrad":
        a = slots["accumulators"] + g * g
        e_new = e - lr32 * g / np.sqrt(a)
        new["accumulators"] = a
    elif opt == "adam":
        p = params.adam
        # 1 - beta is formed in double precision: in float32, 1 - 0.999 is off by 1e-5.
        b1, b2, eps = np.float32(p.beta1), np.float32(p.beta2), np.float32(p.epsilon)
        m = b1 * slots["momenta"] + np.float32(1.0 - p.beta1) * g
        v = b2 * slots["velocities"] + np.float32(1.0 - p.beta2) * g * g
        denom = np.sqrt(v + eps * eps) if p.use_sum_inside_sqrt else np.sqrt(v) + eps
        e_new = e - lr32 * m / denom
        new["momenta"], new["velocities"] = m, v
    elif opt == "ftrl":
        e_new, new["accumulators"], new["linears"] = _ftrl(
            params.ftrl, lr32, e, slots["accumulators"], slots["linears"], g)
    elif opt == "momentum":
        p = params.momentum
        mu = np.float32(p.momentum)
        m = mu * slots["momenta"] + g
        e_new = e - lr32 * (g + mu * m) if p.use_nesterov else e - lr32 * m
        new["momenta"] = m
    elif opt == "rms_prop":
        p = params.rms_prop
        rho, mu, eps = np.float32(p.rho), np.float32(p.momentum), np.float32(p.epsilon)
        ms = rho * slots["ms"] + np.float32(1.0 - p.rho) * g * g
        mom = mu * slots["mom"] + lr32 * g / np.sqrt(ms + eps)
        e_new = e - mom
        new["ms"], new["mom"] = ms, mom
    elif opt == "adagrad_momentum":
        p = params.adagrad_momentum
        b2 = np.float32(p.beta2)
        if p.beta2 == 1.0:
            a = slots["accumulators"] + g * g
        else:
            a = b2 * slots["accumulators"] + np.float32(1.0 - p.beta2) * g * g
        precond = np.power(a + np.float32(p.epsilon), np.float32(-1.0 / p.exponent))
        mu = np.float32(p.momentum)
        m = mu * slots["momenta"] + g * precond
        update = mu * m + g * precond if p.use_nesterov else m
        e_new = e - lr32 * update
        new["accumulators"], new["momenta"] = a, m
    else:  # pragma: no cover - ConfigureTPUEmbedding refuses the others
        raise errors.UnimplementedError(None, None, f"optimizer {opt!r} is not simulated")
    if params.weight_decay_factor:
        # Decoupled weight decay on the touched rows, from their values before the update.
        wd = np.float32(params.weight_decay_factor)
        if params.multiply_weight_decay_factor_by_learning_rate:
            wd = wd * lr32
        e_new = e_new - wd * e
    e_new = _clip(e_new, params.clipping_limits)
    return e_new.astype(np.float32, copy=False), new


def _ftrl(p: Any, lr: np.float32, e: np.ndarray, acc: np.ndarray, lin: np.ndarray,
          g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FTRL-proximal (TensorFlow's ApplyFtrlV2, with ``beta`` and ``multiply_linear_by_lr``)."""
    power = np.float32(-p.lr_power)
    acc_new = acc + g * g

    def pw(x: np.ndarray) -> np.ndarray:
        if power == np.float32(0.5):
            return np.sqrt(x)
        if p.allow_zero_accumulator:
            return np.where(x > 0, np.power(x, power), np.float32(0))
        return np.power(x, power)

    sigma_num = pw(acc_new) - pw(acc)
    l1, l2, beta = np.float32(p.l1), np.float32(p.l2), np.float32(p.beta)
    if p.multiply_linear_by_lr:
        lin_new = lin + lr * g - sigma_num * e
        quadratic = pw(acc_new) + beta + np.float32(2) * l2 * lr
        l1_eff = l1 * lr
    else:
        lin_new = lin + g - sigma_num / lr * e
        quadratic = (pw(acc_new) + beta) / lr + np.float32(2) * l2
        l1_eff = l1
    e_new = np.where(np.abs(lin_new) > l1_eff,
                     (np.sign(lin_new) * l1_eff - lin_new) / quadratic, np.float32(0))
    return e_new.astype(np.float32), acc_new, lin_new
