"""The TPU embedding's optimization parameters: ``optimization_parameters.proto`` as values.

:class:`OptimizationParameters` holds a table's learning rate (:class:`LearningRate`),
clipping, weight decay and exactly one algorithm's parameters message (``adagrad``,
``adam``, ...). ``OPTIMIZER_FIELDS`` maps each algorithm to its message, the op-name stem of
its Load/Retrieve ops and their slots; :func:`slot_names`, :func:`load_op_name` and
:func:`retrieve_op_name` read it. Re-exported by ``tfmini.ops.tpu_embedding.config``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, ClassVar

import attrs
import numpy as np

from tfmini.ops.tpu_embedding.messages import (
    Message,
    bool_field,
    enum_field,
    float_field,
    int_field,
    message_field,
    register_message,
)

# --------------------------------------------------------------------------------------------
# optimization_parameters.proto
# --------------------------------------------------------------------------------------------


@register_message
@attrs.frozen(kw_only=True)
class ClippingLimits(Message):
    """Lower and upper bounds (proto ``FloatValue`` wrappers: unset means -inf / +inf).

    Args:
        lower: the lower bound, ``-inf`` when unset.
        upper: the upper bound, ``+inf`` when unset.

    Raises:
        ValueError: a bound is NaN or lower > upper.
    """

    lower: float = float_field(-math.inf, finite=False)
    upper: float = float_field(math.inf, finite=False)

    def __attrs_post_init__(self) -> None:
        if self.lower > self.upper:
            raise ValueError(
                f"ClippingLimits.lower must be <= upper, got lower={self.lower!r} "
                f"upper={self.upper!r}"
            )


@register_message
@attrs.frozen(kw_only=True)
class DynamicLearningRate(Message):
    """A learning rate fed at each SendTPUEmbeddingGradients (``learning_rates[tag]``).

    TensorFlow's message is ``OptimizerDynamicInput``; tfmini names it after its use.

    Args:
        tag: the index into Send's ``learning_rates``; tags are dense from 0.
    """

    tag: int = int_field(0, minimum=0)


@register_message
@attrs.frozen(kw_only=True)
class LearningRate(Message):
    """A table's learning rate: the proto oneof of ``constant`` and ``dynamic``.

    Args:
        constant: a fixed rate.
        dynamic: a :class:`DynamicLearningRate` tag fed at each Send.

    Raises:
        ValueError: both are set.
    """

    constant: float | None = attrs.field(default=None, metadata={"kind": "opt_float"})
    dynamic: DynamicLearningRate | None = message_field("DynamicLearningRate")

    def __attrs_post_init__(self) -> None:
        if self.constant is not None:
            if isinstance(self.constant, (bool, np.bool_)) or not isinstance(
                self.constant, numbers.Real
            ):
                raise TypeError(
                    f"LearningRate.constant must be a float, got "
                    f"{type(self.constant).__name__} {self.constant!r}"
                )
            if not math.isfinite(self.constant):
                raise ValueError(f"LearningRate.constant must be finite, got {self.constant!r}")
            object.__setattr__(self, "constant", float(self.constant))
        if self.constant is not None and self.dynamic is not None:
            raise ValueError(
                "LearningRate is a oneof: set either constant or dynamic, not both "
                f"(got constant={self.constant!r}, dynamic={self.dynamic!r})"
            )

    @property
    def is_dynamic(self) -> bool:
        """Whether the rate comes from Send's ``learning_rates``."""
        return self.dynamic is not None

    @property
    def value(self) -> float:
        """The constant rate (0.0 when neither is set, as the proto reads)."""
        return 0.0 if self.constant is None else self.constant


class GradientAccumulationStatus:
    """``GradientAccumulationStatus.Status``: UNSPECIFIED (means ENABLED), ENABLED, DISABLED."""

    UNSPECIFIED: ClassVar[str] = "UNSPECIFIED"
    ENABLED: ClassVar[str] = "ENABLED"
    DISABLED: ClassVar[str] = "DISABLED"
    NAMES: ClassVar[tuple[str, ...]] = ("UNSPECIFIED", "ENABLED", "DISABLED")


@register_message
@attrs.frozen(kw_only=True)
class StochasticGradientDescentParameters(Message):
    """SGD: ``E -= lr * g`` (no fields, no slots)."""


@register_message
@attrs.frozen(kw_only=True)
class AdagradParameters(Message):
    """Adagrad: ``A += g**2; E -= lr * g / sqrt(A)`` (no fields; slot ``accumulators``)."""


def _in_unit(inst: Any, field: attrs.Attribute, value: float) -> None:
    if not 0.0 <= value < 1.0:
        raise ValueError(
            f"{type(inst).__name__}.{field.name} must be >= 0 and < 1, got {value!r}"
        )


def _non_negative(inst: Any, field: attrs.Attribute, value: float) -> None:
    if value < 0.0:
        raise ValueError(f"{type(inst).__name__}.{field.name} must be >= 0, got {value!r}")


@register_message
@attrs.frozen(kw_only=True)
class AdamParameters(Message):
    """Adam without bias correction (slots ``momenta``, ``velocities``).

    Args:
        beta1: first-moment decay, in [0, 1).
        beta2: second-moment decay, in [0, 1).
        epsilon: >= 0 (the proto's default is 0; the mid-level Adam writes 1e-7).
        use_non_lazy_adam: update every row each step, not only the touched ones (needs
            gradient accumulation).
        use_sum_inside_sqrt: ``m / sqrt(v + eps**2)`` instead of ``m / (sqrt(v) + eps)``.
    """

    beta1: float = float_field(0.0, _in_unit)
    beta2: float = float_field(0.0, _in_unit)
    epsilon: float = float_field(0.0, _non_negative)
    use_non_lazy_adam: bool = bool_field()
    use_sum_inside_sqrt: bool = bool_field()


def _non_positive(inst: Any, field: attrs.Attribute, value: float) -> None:
    if value > 0.0:
        raise ValueError(f"{type(inst).__name__}.{field.name} must be <= 0, got {value!r}")


@register_message
@attrs.frozen(kw_only=True)
class FtrlParameters(Message):
    """FTRL-proximal (slots ``accumulators``, ``linears``).

    Args:
        l1: L1 regularisation, >= 0.
        l2: L2 regularisation, >= 0.
        lr_power: the accumulator's exponent, <= 0 (the mid-level default is -0.5).
        beta: adds ``beta / (2 lr)`` to l2, >= 0.
        multiply_linear_by_lr: the ``linears`` slot stores linear * lr.
        allow_zero_accumulator: permits a zero accumulator (its power is then taken as 0).
    """

    l1: float = float_field(0.0, _non_negative)
    l2: float = float_field(0.0, _non_negative)
    lr_power: float = float_field(0.0, _non_positive)
    beta: float = float_field(0.0, _non_negative)
    multiply_linear_by_lr: bool = bool_field()
    allow_zero_accumulator: bool = bool_field()


@register_message
@attrs.frozen(kw_only=True)
class MomentumParameters(Message):
    """Momentum (slot ``momenta``): ``momentum`` finite, ``use_nesterov``."""

    momentum: float = float_field(0.0)
    use_nesterov: bool = bool_field()


@register_message
@attrs.frozen(kw_only=True)
class RmsPropParameters(Message):
    """RMSProp (slots ``ms``, ``mom``): ``rho``, ``momentum``, ``epsilon``, each >= 0."""

    rho: float = float_field(0.0, _non_negative)
    momentum: float = float_field(0.0, _non_negative)
    epsilon: float = float_field(0.0, _non_negative)


@register_message
@attrs.frozen(kw_only=True)
class CenteredRmsPropParameters(Message):
    """Centered RMSProp (slots ``ms``, ``mom``, ``mg``): ``rho``, ``momentum``, ``epsilon``."""

    rho: float = float_field(0.0, _non_negative)
    momentum: float = float_field(0.0, _non_negative)
    epsilon: float = float_field(0.0, _non_negative)


@register_message
@attrs.frozen(kw_only=True)
class AdagradMomentumParameters(Message):
    """Adagrad with momentum (slots ``accumulators``, ``momenta``).

    Args:
        momentum: the momentum factor.
        use_nesterov: Nesterov update.
        exponent: the accumulator's root (``P = (A + eps) ** (-1 / exponent)``).
        beta2: accumulator decay in [0, 1]; 1 means plain summing.
        epsilon: >= 0.
    """

    momentum: float = float_field(0.0)
    use_nesterov: bool = bool_field()
    exponent: float = float_field(0.0)
    beta2: float = float_field(0.0, _non_negative)
    epsilon: float = float_field(0.0, _non_negative)


@register_message
@attrs.frozen(kw_only=True)
class ProximalAdagradParameters(Message):
    """Proximal Adagrad (slot ``accumulators``): ``l1``, ``l2`` >= 0."""

    l1: float = float_field(0.0, _non_negative)
    l2: float = float_field(0.0, _non_negative)


@register_message
@attrs.frozen(kw_only=True)
class AdadeltaParameters(Message):
    """Adadelta (slots ``accumulators``, ``updates``): ``rho``, ``epsilon`` >= 0."""

    rho: float = float_field(0.0, _non_negative)
    epsilon: float = float_field(0.0, _non_negative)


# The supported members of the proto's ``parameters`` oneof: field name -> (message class,
# the op-name stem of LoadTPUEmbedding<Alg>Parameters, the Load inputs / Retrieve outputs).
OPTIMIZER_FIELDS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "stochastic_gradient_descent": (
        "StochasticGradientDescentParameters", "StochasticGradientDescent", ("parameters",)),
    "adagrad": ("AdagradParameters", "Adagrad", ("parameters", "accumulators")),
    "adam": ("AdamParameters", "ADAM", ("parameters", "momenta", "velocities")),
    "ftrl": ("FtrlParameters", "FTRL", ("parameters", "accumulators", "linears")),
    "momentum": ("MomentumParameters", "Momentum", ("parameters", "momenta")),
    "rms_prop": ("RmsPropParameters", "RMSProp", ("parameters", "ms", "mom")),
    "centered_rms_prop": (
        "CenteredRmsPropParameters", "CenteredRMSProp", ("parameters", "ms", "mom", "mg")),
    "adagrad_momentum": (
        "AdagradMomentumParameters", "AdagradMomentum", ("parameters", "accumulators", "momenta")),
    "proximal_adagrad": (
        "ProximalAdagradParameters", "ProximalAdagrad", ("parameters", "accumulators")),
    "adadelta": ("AdadeltaParameters", "Adadelta", ("parameters", "accumulators", "updates")),
}


@register_message
@attrs.frozen(kw_only=True)
class OptimizationParameters(Message):
    """A table's optimizer: learning rate, clipping, weight decay and exactly one algorithm.

    Args:
        learning_rate: a :class:`LearningRate` (constant or dynamic tag); unset reads 0.0.
        clipping_limits: bounds on the **weights after** the update (None: no clipping).
        gradient_clipping_limits: bounds on the **gradient before** the update.
        weight_decay_factor: finite.
        multiply_weight_decay_factor_by_learning_rate: scale the decay by the rate.
        gradient_accumulation_status: "UNSPECIFIED" (means ENABLED), "ENABLED", "DISABLED".
        stochastic_gradient_descent, adagrad, adam, ftrl, momentum, rms_prop,
            centered_rms_prop, adagrad_momentum, proximal_adagrad, adadelta: the algorithm's
            parameters message; exactly one is set.

    Raises:
        TypeError: a field has the wrong type.
        ValueError: no or several algorithms are set, or Adam's ``use_non_lazy_adam`` is set
            with gradient accumulation DISABLED.
    """

    UNSPECIFIED: ClassVar[str] = "UNSPECIFIED"
    ENABLED: ClassVar[str] = "ENABLED"
    DISABLED: ClassVar[str] = "DISABLED"

    learning_rate: LearningRate = attrs.field(
        factory=LearningRate,
        validator=attrs.validators.instance_of(LearningRate),
        metadata={"kind": "msg", "cls": "LearningRate"},
    )
    clipping_limits: ClippingLimits | None = message_field("ClippingLimits")
    gradient_clipping_limits: ClippingLimits | None = message_field("ClippingLimits")
    weight_decay_factor: float = float_field(0.0)
    multiply_weight_decay_factor_by_learning_rate: bool = bool_field()
    gradient_accumulation_status: str = enum_field(GradientAccumulationStatus.NAMES,
                                                    "UNSPECIFIED")
    stochastic_gradient_descent: StochasticGradientDescentParameters | None = message_field(
        "StochasticGradientDescentParameters")
    adagrad: AdagradParameters | None = message_field("AdagradParameters")
    adam: AdamParameters | None = message_field("AdamParameters")
    ftrl: FtrlParameters | None = message_field("FtrlParameters")
    momentum: MomentumParameters | None = message_field("MomentumParameters")
    rms_prop: RmsPropParameters | None = message_field("RmsPropParameters")
    centered_rms_prop: CenteredRmsPropParameters | None = message_field(
        "CenteredRmsPropParameters")
    adagrad_momentum: AdagradMomentumParameters | None = message_field(
        "AdagradMomentumParameters")
    proximal_adagrad: ProximalAdagradParameters | None = message_field(
        "ProximalAdagradParameters")
    adadelta: AdadeltaParameters | None = message_field("AdadeltaParameters")

    def __attrs_post_init__(self) -> None:
        chosen = [name for name in OPTIMIZER_FIELDS if getattr(self, name) is not None]
        if len(chosen) != 1:
            raise ValueError(
                "OptimizationParameters needs exactly one optimizer (one of "
                f"{', '.join(OPTIMIZER_FIELDS)}), got "
                f"{'none' if not chosen else ', '.join(chosen)}"
            )
        if (
            self.adam is not None
            and self.adam.use_non_lazy_adam
            and self.gradient_accumulation_status == "DISABLED"
        ):
            raise ValueError(
                "AdamParameters.use_non_lazy_adam needs gradient accumulation; "
                "gradient_accumulation_status is DISABLED"
            )

    @property
    def optimizer(self) -> str:
        """The name of the set oneof field, e.g. ``"adagrad"``."""
        return optimizer_name(self)

    @property
    def gradient_accumulation_enabled(self) -> bool:
        """True unless the status is DISABLED (UNSPECIFIED means ENABLED)."""
        return self.gradient_accumulation_status != "DISABLED"


# --------------------------------------------------------------------------------------------
# The algorithm of a table: its name, slots and Load/Retrieve op names
# --------------------------------------------------------------------------------------------


def optimizer_name(params: OptimizationParameters) -> str:
    """The set member of the ``parameters`` oneof (``"adagrad"``, ``"adam"``, ...)."""
    for name in OPTIMIZER_FIELDS:
        if getattr(params, name) is not None:
            return name
    raise ValueError("OptimizationParameters has no optimizer set")  # unreachable: validated


def slot_names(params_or_name: OptimizationParameters | str) -> tuple[str, ...]:
    """The Load inputs / Retrieve outputs, in TensorFlow's order.

    Args:
        params_or_name: an :class:`OptimizationParameters`, or an optimizer field name.

    Returns:
        e.g. ``("parameters", "accumulators")`` for Adagrad.
    """
    name = params_or_name if isinstance(params_or_name, str) else optimizer_name(params_or_name)
    if name not in OPTIMIZER_FIELDS:
        raise ValueError(f"unknown optimizer {name!r}; known: {list(OPTIMIZER_FIELDS)}")
    return OPTIMIZER_FIELDS[name][2]


def load_op_name(params_or_name: OptimizationParameters | str) -> str:
    """``LoadTPUEmbedding<Alg>Parameters`` for the optimizer (e.g. ``...ADAMParameters``)."""
    name = params_or_name if isinstance(params_or_name, str) else optimizer_name(params_or_name)
    return f"LoadTPUEmbedding{OPTIMIZER_FIELDS[name][1]}Parameters"


def retrieve_op_name(params_or_name: OptimizationParameters | str) -> str:
    """``RetrieveTPUEmbedding<Alg>Parameters`` for the optimizer."""
    name = params_or_name if isinstance(params_or_name, str) else optimizer_name(params_or_name)
    return f"RetrieveTPUEmbedding{OPTIMIZER_FIELDS[name][1]}Parameters"
