"""The TPU embedding configuration: TensorFlow's protos as frozen, validated values.

TensorFlow configures the embedding layer with one serialized ``TPUEmbeddingConfiguration``
proto (``tensorflow/core/protobuf/tpu/tpu_embedding_configuration.proto``) whose tables carry
``OptimizationParameters`` (``optimization_parameters.proto``). tfmini keeps the same message
and field names as frozen attrs classes, validated when built, and serialises them to a
versioned JSON text that :meth:`TPUEmbeddingConfiguration.FromString` parses back exactly.
This module is pure data plus the arithmetic the ops need (shard row ranges, Recv output
shapes, dynamic learning-rate tags, slot names); it builds no ops, so both the ops layer
(``tfmini/ops/tpu_embedding.py``) and ``tm.tpu`` can import it.

Field defaults are the protos' defaults (0, 0.0, False, "", unset). Enum fields hold the
enum's name as a string (``"TRAINING"``) and accept the name in any case or its number;
the class constants (``TPUEmbeddingConfiguration.TRAINING``) are those strings. A message
field that the proto leaves unset is ``None`` here.

Example:
    >>> params = OptimizationParameters(
    ...     learning_rate=LearningRate(constant=0.1), adagrad=AdagradParameters())
    >>> config = TPUEmbeddingConfiguration(
    ...     table_descriptor=[TableDescriptor(name="t", vocabulary_size=10, dimension=4,
    ...                                       num_features=1, optimization_parameters=params)],
    ...     mode="TRAINING", batch_size_per_tensor_core=8, num_hosts=1, num_tensor_cores=1)
    >>> TPUEmbeddingConfiguration.FromString(config.SerializeToString()) == config
    True
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any, ClassVar

import attrs
import numpy as np

__all__ = [
    "AdadeltaParameters",
    "AdagradMomentumParameters",
    "AdagradParameters",
    "AdamParameters",
    "CenteredRmsPropParameters",
    "ClippingLimits",
    "DynamicLearningRate",
    "FeatureDescriptor",
    "FtrlParameters",
    "GradientAccumulationStatus",
    "LearningRate",
    "MomentumParameters",
    "OPTIMIZER_FIELDS",
    "OptimizationParameters",
    "ProximalAdagradParameters",
    "RmsPropParameters",
    "SpmdSharding",
    "StochasticGradientDescentParameters",
    "TPUEmbeddingConfiguration",
    "TableDescriptor",
    "dynamic_learning_rate_tags",
    "learning_rate_of",
    "load_op_name",
    "optimizer_name",
    "recv_output_shapes",
    "retrieve_op_name",
    "shard_of_ids",
    "shard_row_ids",
    "shard_row_range",
    "shard_size",
    "slot_names",
    "table_features",
]

FORMAT_VERSION = 1

# --------------------------------------------------------------------------------------------
# Field helpers: converters that check the type (TypeError) and name the field.
# --------------------------------------------------------------------------------------------


def _int_conv(value: Any, self_: Any, field: attrs.Attribute) -> int:
    # bool is an int subclass in Python but never a valid count or id.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be an int, got "
            f"{type(value).__name__} {value!r}"
        )
    return int(value)


def _float_conv(value: Any, self_: Any, field: attrs.Attribute) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a float, got "
            f"{type(value).__name__} {value!r}"
        )
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{type(self_).__name__}.{field.name} must not be NaN")
    return value


def _bool_conv(value: Any, self_: Any, field: attrs.Attribute) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a bool, got "
            f"{type(value).__name__} {value!r}"
        )
    return bool(value)


def _str_conv(value: Any, self_: Any, field: attrs.Attribute) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a str, got "
            f"{type(value).__name__} {value!r}"
        )
    return value


def _int_field(default: int = 0, minimum: int | None = None) -> Any:
    validators = [] if minimum is None else [attrs.validators.ge(minimum)]
    return attrs.field(
        default=default,
        converter=attrs.Converter(_int_conv, takes_self=True, takes_field=True),
        validator=validators,
        metadata={"kind": "int"},
    )


def _float_field(default: float = 0.0, *checks: Any, finite: bool = True) -> Any:
    def check(inst: Any, field: attrs.Attribute, value: float) -> None:
        if finite and not math.isfinite(value):
            raise ValueError(
                f"{type(inst).__name__}.{field.name} must be finite, got {value!r}"
            )

    return attrs.field(
        default=default,
        converter=attrs.Converter(_float_conv, takes_self=True, takes_field=True),
        validator=[check, *checks],
        metadata={"kind": "float"},
    )


def _bool_field(default: bool = False) -> Any:
    return attrs.field(
        default=default,
        converter=attrs.Converter(_bool_conv, takes_self=True, takes_field=True),
        metadata={"kind": "bool"},
    )


def _str_field(default: str = "") -> Any:
    return attrs.field(
        default=default,
        converter=attrs.Converter(_str_conv, takes_self=True, takes_field=True),
        metadata={"kind": "str"},
    )


def _enum_field(names: tuple[str, ...], default: str) -> Any:
    """An enum field: stores the value's name; accepts the name (any case) or its number."""

    def conv(value: Any, self_: Any, field: attrs.Attribute) -> str:
        owner = f"{type(self_).__name__}.{field.name}"
        if isinstance(value, str):
            if value.upper() in names:
                return value.upper()
            raise ValueError(f"{owner} must be one of {names}, got {value!r}")
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            if 0 <= int(value) < len(names):
                return names[int(value)]
            raise ValueError(
                f"{owner} must be one of {names} or their numbers 0..{len(names) - 1}, "
                f"got {value!r}"
            )
        raise TypeError(f"{owner} must be a str, got {type(value).__name__} {value!r}")

    return attrs.field(
        default=default,
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "enum", "names": names},
    )


def _message_field(cls_name: str) -> Any:
    def check(inst: Any, field: attrs.Attribute, value: Any) -> None:
        if value is not None and type(value).__name__ != cls_name:
            raise TypeError(
                f"{type(inst).__name__}.{field.name} must be a {cls_name} or None, got "
                f"{type(value).__name__} {value!r}"
            )

    return attrs.field(default=None, validator=check, metadata={"kind": "msg", "cls": cls_name})


def _repeated_message_field(cls_name: str) -> Any:
    def conv(value: Any, self_: Any, field: attrs.Attribute) -> tuple:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(
                f"{type(self_).__name__}.{field.name} must be a list of {cls_name}, got "
                f"{type(value).__name__} {value!r}"
            )
        items = tuple(value)
        for i, item in enumerate(items):
            if type(item).__name__ != cls_name:
                raise TypeError(
                    f"{type(self_).__name__}.{field.name}[{i}] must be a {cls_name}, got "
                    f"{type(item).__name__} {item!r}"
                )
        return items

    return attrs.field(
        default=(),
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "repeated_msg", "cls": cls_name},
    )


def _repeated_int_field() -> Any:
    def conv(value: Any, self_: Any, field: attrs.Attribute) -> tuple[int, ...]:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(
                f"{type(self_).__name__}.{field.name} must be a list of ints, got "
                f"{type(value).__name__} {value!r}"
            )
        out = []
        for i, item in enumerate(value):
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral):
                raise TypeError(
                    f"{type(self_).__name__}.{field.name}[{i}] must be an int, got "
                    f"{type(item).__name__} {item!r}"
                )
            out.append(int(item))
        return tuple(out)

    return attrs.field(
        default=(),
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "repeated_int"},
    )


# --------------------------------------------------------------------------------------------
# Serialisation: every message has SerializeToString / FromString (versioned JSON).
# --------------------------------------------------------------------------------------------

_MESSAGES: dict[str, type] = {}


def _message(cls: type) -> type:
    """Registers a message class so nested fields can be decoded by class name."""
    _MESSAGES[cls.__name__] = cls
    return cls


def _encode_float(value: float) -> Any:
    # JSON has no infinities; float repr (what json uses) round-trips every finite double.
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _to_dict(msg: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in attrs.fields(type(msg)):
        value = getattr(msg, field.name)
        kind = field.metadata["kind"]
        if kind == "msg":
            out[field.name] = None if value is None else _to_dict(value)
        elif kind == "repeated_msg":
            out[field.name] = [_to_dict(v) for v in value]
        elif kind == "repeated_int":
            out[field.name] = list(value)
        elif kind == "float":
            out[field.name] = _encode_float(value)
        elif kind == "opt_float":
            out[field.name] = None if value is None else _encode_float(value)
        else:
            out[field.name] = value
    return out


def _decode_float(value: Any, path: str) -> float:
    if value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{path}: expected a number, got {value!r}")
    return float(value)


def _from_dict(cls: type, data: Any, path: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object for {cls.__name__}, got {data!r}")
    fields = {f.name: f for f in attrs.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(
            f"{path}: unknown field(s) {unknown} for {cls.__name__}; known: {sorted(fields)}"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        field = fields[name]
        kind = field.metadata["kind"]
        where = f"{path}.{name}"
        if kind == "msg":
            kwargs[name] = (
                None if value is None
                else _from_dict(_MESSAGES[field.metadata["cls"]], value, where)
            )
        elif kind == "repeated_msg":
            if not isinstance(value, list):
                raise ValueError(f"{where}: expected a JSON list, got {value!r}")
            sub = _MESSAGES[field.metadata["cls"]]
            kwargs[name] = [_from_dict(sub, v, f"{where}[{i}]") for i, v in enumerate(value)]
        elif kind == "repeated_int":
            if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            ):
                raise ValueError(f"{where}: expected a JSON list of integers, got {value!r}")
            kwargs[name] = value
        elif kind == "float":
            kwargs[name] = _decode_float(value, where)
        elif kind == "opt_float":
            kwargs[name] = None if value is None else _decode_float(value, where)
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{where}: expected an integer, got {value!r}")
            kwargs[name] = value
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: expected true or false, got {value!r}")
            kwargs[name] = value
        elif kind == "enum":
            if value not in field.metadata["names"]:
                raise ValueError(
                    f"{where}: expected one of {field.metadata['names']}, got {value!r}"
                )
            kwargs[name] = value
        else:  # str
            if not isinstance(value, str):
                raise ValueError(f"{where}: expected a string, got {value!r}")
            kwargs[name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        # A well-formed document can still describe an invalid configuration.
        raise ValueError(f"{path}: invalid {cls.__name__}: {e}") from e


class _Message:
    """Serialisation shared by every configuration message (proto-style method names)."""

    def SerializeToString(self) -> bytes:  # noqa: N802  (the proto method's name)
        """Serialises this message to bytes that :meth:`FromString` parses back exactly.

        Returns:
            UTF-8 JSON: ``{"format": <class name>, "version": 1, "message": {...}}`` with
            sorted keys, floats written with ``repr`` precision and infinities as strings.
        """
        doc = {
            "format": f"tfmini.tpu.{type(self).__name__}",
            "version": FORMAT_VERSION,
            "message": _to_dict(self),
        }
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()

    @classmethod
    def FromString(cls, serialized: bytes | str) -> Any:  # noqa: N802  (the proto's name)
        """Parses what :meth:`SerializeToString` wrote.

        Args:
            serialized: bytes or str (a string attr of an op arrives as str).

        Returns:
            An instance of this class, equal to the one serialised.

        Raises:
            ValueError: the input is not such a document (not UTF-8, not JSON, another message
                type or version, an unknown field, a wrong value type) or describes an invalid
                configuration; the message names the offending field.
        """
        if isinstance(serialized, (bytes, bytearray, memoryview)):
            try:
                text = bytes(serialized).decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{cls.__name__}.FromString: input is not UTF-8 text ({e})"
                ) from None
        elif isinstance(serialized, str):
            text = serialized
        else:
            raise ValueError(
                f"{cls.__name__}.FromString expects bytes or str, got "
                f"{type(serialized).__name__}"
            )
        head = text[:40] + ("..." if len(text) > 40 else "")
        try:
            doc = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as e:
            raise ValueError(
                f"{cls.__name__}.FromString: input is not a serialized {cls.__name__} "
                f"(not JSON: {e.msg} at position {e.pos}; input starts {head!r})"
            ) from None
        except (ValueError, RecursionError) as e:
            raise ValueError(
                f"{cls.__name__}.FromString: input is not a serialized {cls.__name__} "
                f"({e}; input starts {head!r})"
            ) from None
        if not isinstance(doc, dict) or set(doc) != {"format", "version", "message"}:
            raise ValueError(
                f"{cls.__name__}.FromString: expected an object with keys 'format', 'version' "
                f"and 'message', got {str(doc)[:80]!r}"
            )
        expected = f"tfmini.tpu.{cls.__name__}"
        if doc["format"] != expected:
            raise ValueError(
                f"{cls.__name__}.FromString: format is {doc['format']!r}, expected {expected!r}"
            )
        if doc["version"] != FORMAT_VERSION:
            raise ValueError(
                f"{cls.__name__}.FromString: unsupported version {doc['version']!r} "
                f"(this tfmini reads version {FORMAT_VERSION})"
            )
        return _from_dict(cls, doc["message"], cls.__name__)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"NaN and Infinity literals are not valid here, got {name}")


# --------------------------------------------------------------------------------------------
# optimization_parameters.proto
# --------------------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class ClippingLimits(_Message):
    """Lower and upper bounds (proto ``FloatValue`` wrappers: unset means -inf / +inf).

    Args:
        lower: the lower bound, ``-inf`` when unset.
        upper: the upper bound, ``+inf`` when unset.

    Raises:
        ValueError: a bound is NaN or lower > upper.
    """

    lower: float = _float_field(-math.inf, finite=False)
    upper: float = _float_field(math.inf, finite=False)

    def __attrs_post_init__(self) -> None:
        if self.lower > self.upper:
            raise ValueError(
                f"ClippingLimits.lower must be <= upper, got lower={self.lower!r} "
                f"upper={self.upper!r}"
            )


@_message
@attrs.frozen(kw_only=True)
class DynamicLearningRate(_Message):
    """A learning rate fed at each SendTPUEmbeddingGradients (``learning_rates[tag]``).

    TensorFlow's message is ``OptimizerDynamicInput``; tfmini names it after its use.

    Args:
        tag: the index into Send's ``learning_rates``; tags are dense from 0.
    """

    tag: int = _int_field(0, minimum=0)


@_message
@attrs.frozen(kw_only=True)
class LearningRate(_Message):
    """A table's learning rate: the proto oneof of ``constant`` and ``dynamic``.

    Args:
        constant: a fixed rate.
        dynamic: a :class:`DynamicLearningRate` tag fed at each Send.

    Raises:
        ValueError: both are set.
    """

    constant: float | None = attrs.field(default=None, metadata={"kind": "opt_float"})
    dynamic: DynamicLearningRate | None = _message_field("DynamicLearningRate")

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


@_message
@attrs.frozen(kw_only=True)
class StochasticGradientDescentParameters(_Message):
    """SGD: ``E -= lr * g`` (no fields, no slots)."""


@_message
@attrs.frozen(kw_only=True)
class AdagradParameters(_Message):
    """Adagrad: ``A += g**2; E -= lr * g / sqrt(A)`` (no fields; slot ``accumulators``)."""


def _in_unit(inst: Any, field: attrs.Attribute, value: float) -> None:
    if not 0.0 <= value < 1.0:
        raise ValueError(
            f"{type(inst).__name__}.{field.name} must be >= 0 and < 1, got {value!r}"
        )


def _non_negative(inst: Any, field: attrs.Attribute, value: float) -> None:
    if value < 0.0:
        raise ValueError(f"{type(inst).__name__}.{field.name} must be >= 0, got {value!r}")


@_message
@attrs.frozen(kw_only=True)
class AdamParameters(_Message):
    """Adam without bias correction (slots ``momenta``, ``velocities``).

    Args:
        beta1: first-moment decay, in [0, 1).
        beta2: second-moment decay, in [0, 1).
        epsilon: >= 0 (the proto's default is 0; the mid-level Adam writes 1e-7).
        use_non_lazy_adam: update every row each step, not only the touched ones (needs
            gradient accumulation).
        use_sum_inside_sqrt: ``m / sqrt(v + eps**2)`` instead of ``m / (sqrt(v) + eps)``.
    """

    beta1: float = _float_field(0.0, _in_unit)
    beta2: float = _float_field(0.0, _in_unit)
    epsilon: float = _float_field(0.0, _non_negative)
    use_non_lazy_adam: bool = _bool_field()
    use_sum_inside_sqrt: bool = _bool_field()


def _non_positive(inst: Any, field: attrs.Attribute, value: float) -> None:
    if value > 0.0:
        raise ValueError(f"{type(inst).__name__}.{field.name} must be <= 0, got {value!r}")


@_message
@attrs.frozen(kw_only=True)
class FtrlParameters(_Message):
    """FTRL-proximal (slots ``accumulators``, ``linears``).

    Args:
        l1: L1 regularisation, >= 0.
        l2: L2 regularisation, >= 0.
        lr_power: the accumulator's exponent, <= 0 (the mid-level default is -0.5).
        beta: adds ``beta / (2 lr)`` to l2, >= 0.
        multiply_linear_by_lr: the ``linears`` slot stores linear * lr.
        allow_zero_accumulator: permits a zero accumulator (its power is then taken as 0).
    """

    l1: float = _float_field(0.0, _non_negative)
    l2: float = _float_field(0.0, _non_negative)
    lr_power: float = _float_field(0.0, _non_positive)
    beta: float = _float_field(0.0, _non_negative)
    multiply_linear_by_lr: bool = _bool_field()
    allow_zero_accumulator: bool = _bool_field()


@_message
@attrs.frozen(kw_only=True)
class MomentumParameters(_Message):
    """Momentum (slot ``momenta``): ``momentum`` finite, ``use_nesterov``."""

    momentum: float = _float_field(0.0)
    use_nesterov: bool = _bool_field()


@_message
@attrs.frozen(kw_only=True)
class RmsPropParameters(_Message):
    """RMSProp (slots ``ms``, ``mom``): ``rho``, ``momentum``, ``epsilon``, each >= 0."""

    rho: float = _float_field(0.0, _non_negative)
    momentum: float = _float_field(0.0, _non_negative)
    epsilon: float = _float_field(0.0, _non_negative)


@_message
@attrs.frozen(kw_only=True)
class CenteredRmsPropParameters(_Message):
    """Centered RMSProp (slots ``ms``, ``mom``, ``mg``): ``rho``, ``momentum``, ``epsilon``."""

    rho: float = _float_field(0.0, _non_negative)
    momentum: float = _float_field(0.0, _non_negative)
    epsilon: float = _float_field(0.0, _non_negative)


@_message
@attrs.frozen(kw_only=True)
class AdagradMomentumParameters(_Message):
    """Adagrad with momentum (slots ``accumulators``, ``momenta``).

    Args:
        momentum: the momentum factor.
        use_nesterov: Nesterov update.
        exponent: the accumulator's root (``P = (A + eps) ** (-1 / exponent)``).
        beta2: accumulator decay in [0, 1]; 1 means plain summing.
        epsilon: >= 0.
    """

    momentum: float = _float_field(0.0)
    use_nesterov: bool = _bool_field()
    exponent: float = _float_field(0.0)
    beta2: float = _float_field(0.0, _non_negative)
    epsilon: float = _float_field(0.0, _non_negative)


@_message
@attrs.frozen(kw_only=True)
class ProximalAdagradParameters(_Message):
    """Proximal Adagrad (slot ``accumulators``): ``l1``, ``l2`` >= 0."""

    l1: float = _float_field(0.0, _non_negative)
    l2: float = _float_field(0.0, _non_negative)


@_message
@attrs.frozen(kw_only=True)
class AdadeltaParameters(_Message):
    """Adadelta (slots ``accumulators``, ``updates``): ``rho``, ``epsilon`` >= 0."""

    rho: float = _float_field(0.0, _non_negative)
    epsilon: float = _float_field(0.0, _non_negative)


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


@_message
@attrs.frozen(kw_only=True)
class OptimizationParameters(_Message):
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
    clipping_limits: ClippingLimits | None = _message_field("ClippingLimits")
    gradient_clipping_limits: ClippingLimits | None = _message_field("ClippingLimits")
    weight_decay_factor: float = _float_field(0.0)
    multiply_weight_decay_factor_by_learning_rate: bool = _bool_field()
    gradient_accumulation_status: str = _enum_field(GradientAccumulationStatus.NAMES,
                                                    "UNSPECIFIED")
    stochastic_gradient_descent: StochasticGradientDescentParameters | None = _message_field(
        "StochasticGradientDescentParameters")
    adagrad: AdagradParameters | None = _message_field("AdagradParameters")
    adam: AdamParameters | None = _message_field("AdamParameters")
    ftrl: FtrlParameters | None = _message_field("FtrlParameters")
    momentum: MomentumParameters | None = _message_field("MomentumParameters")
    rms_prop: RmsPropParameters | None = _message_field("RmsPropParameters")
    centered_rms_prop: CenteredRmsPropParameters | None = _message_field(
        "CenteredRmsPropParameters")
    adagrad_momentum: AdagradMomentumParameters | None = _message_field(
        "AdagradMomentumParameters")
    proximal_adagrad: ProximalAdagradParameters | None = _message_field(
        "ProximalAdagradParameters")
    adadelta: AdadeltaParameters | None = _message_field("AdadeltaParameters")

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
# tpu_embedding_configuration.proto
# --------------------------------------------------------------------------------------------


@_message
@attrs.frozen(kw_only=True)
class TableDescriptor(_Message):
    """One embedding table.

    Args:
        name: the table's name (unique within a configuration).
        vocabulary_size: number of rows, >= 1.
        dimension: embedding width, >= 1.
        num_features: features looking up this table (per sample), >= 0.
        optimization_parameters: an :class:`OptimizationParameters` or None.
    """

    name: str = _str_field()
    vocabulary_size: int = _int_field(0)
    dimension: int = _int_field(0)
    num_features: int = _int_field(0, minimum=0)
    optimization_parameters: OptimizationParameters | None = _message_field(
        "OptimizationParameters")

    def __attrs_post_init__(self) -> None:
        if self.vocabulary_size < 1:
            raise ValueError(
                f"TableDescriptor {self.name!r}: vocabulary_size must be >= 1, got "
                f"{self.vocabulary_size}"
            )
        if self.dimension < 1:
            raise ValueError(
                f"TableDescriptor {self.name!r}: dimension must be >= 1, got {self.dimension}"
            )


@_message
@attrs.frozen(kw_only=True)
class FeatureDescriptor(_Message):
    """One feature (input) of the configuration: its table and the shape of its input.

    Args:
        name: the feature's name.
        table_id: index into the configuration's ``table_descriptor``.
        input_shape: the activation's shape without the embedding dimension, e.g.
            ``[batch]`` or ``[batch, max_sequence_length]``; each entry >= 1.
    """

    name: str = _str_field()
    table_id: int = _int_field(0, minimum=0)
    input_shape: tuple[int, ...] = _repeated_int_field()

    def __attrs_post_init__(self) -> None:
        if any(d < 1 for d in self.input_shape):
            raise ValueError(
                f"FeatureDescriptor {self.name!r}: input_shape entries must be >= 1, got "
                f"{list(self.input_shape)}"
            )


@_message
@attrs.frozen(kw_only=True)
class SpmdSharding(_Message):
    """SPMD sharding options (recorded, not simulated)."""

    enabled: bool = _bool_field()
    num_cores_per_replica: int = _int_field(0, minimum=0)
    use_manual_partitioning: bool = _bool_field()
    use_shardy_partitioner: bool = _bool_field()


_MODES = ("UNSPECIFIED", "INFERENCE", "TRAINING", "BACKWARD_PASS_ONLY")
_SHARDING = ("DIV_DEFAULT", "MOD")


@_message
@attrs.frozen(kw_only=True)
class TPUEmbeddingConfiguration(_Message):
    """The whole embedding layer: tables, features, mode, batch and topology.

    Args:
        table_descriptor: list of :class:`TableDescriptor`, names unique.
        mode: "UNSPECIFIED", "INFERENCE" (forward only), "TRAINING" or "BACKWARD_PASS_ONLY"
            (or the class constants, or the enum numbers 0..3).
        batch_size_per_tensor_core: samples per core and step, >= 0.
        num_hosts: hosts (0 = unset, read as 1 by the helpers), >= 0.
        num_tensor_cores: simulated cores (0 = unset, read as 1), >= 0.
        sharding_strategy: "DIV_DEFAULT" (contiguous blocks) or "MOD" (id % shards).
        pipeline_execution_with_tensor_core: lookups of step N+1 may not see step N's updates.
        profile_data_directory: recorded only.
        feature_descriptor: list of :class:`FeatureDescriptor`; when given, Recv returns one
            activation per feature instead of one per table.
        spmd_sharding: :class:`SpmdSharding` or None.

    Raises:
        TypeError: a field has the wrong type.
        ValueError: duplicate table names or non-empty feature names, a feature's table_id
            out of range, a table with no features in the per-table (no feature descriptors)
            layout, or dynamic learning-rate tags that are not dense 0..K-1.
    """

    UNSPECIFIED: ClassVar[str] = "UNSPECIFIED"
    INFERENCE: ClassVar[str] = "INFERENCE"
    TRAINING: ClassVar[str] = "TRAINING"
    BACKWARD_PASS_ONLY: ClassVar[str] = "BACKWARD_PASS_ONLY"
    DIV_DEFAULT: ClassVar[str] = "DIV_DEFAULT"
    MOD: ClassVar[str] = "MOD"

    table_descriptor: tuple[TableDescriptor, ...] = _repeated_message_field("TableDescriptor")
    mode: str = _enum_field(_MODES, "UNSPECIFIED")
    batch_size_per_tensor_core: int = _int_field(0, minimum=0)
    num_hosts: int = _int_field(0, minimum=0)
    num_tensor_cores: int = _int_field(0, minimum=0)
    sharding_strategy: str = _enum_field(_SHARDING, "DIV_DEFAULT")
    pipeline_execution_with_tensor_core: bool = _bool_field()
    profile_data_directory: str = _str_field()
    feature_descriptor: tuple[FeatureDescriptor, ...] = _repeated_message_field(
        "FeatureDescriptor")
    spmd_sharding: SpmdSharding | None = _message_field("SpmdSharding")

    def __attrs_post_init__(self) -> None:
        seen: dict[str, int] = {}
        for i, table in enumerate(self.table_descriptor):
            if table.name in seen:
                raise ValueError(
                    f"table names must be unique: table_descriptor[{i}] and "
                    f"table_descriptor[{seen[table.name]}] are both named {table.name!r}"
                )
            seen[table.name] = i
        n_tables = len(self.table_descriptor)
        features: dict[str, int] = {}
        for i, feature in enumerate(self.feature_descriptor):
            if not 0 <= feature.table_id < n_tables:
                raise ValueError(
                    f"feature_descriptor[{i}] ({feature.name!r}) has table_id "
                    f"{feature.table_id}, but there are {n_tables} tables "
                    f"(valid ids 0..{n_tables - 1})"
                )
            # Unnamed features are normal (TensorFlow's mid-level API leaves names empty).
            if feature.name and feature.name in features:
                raise ValueError(
                    f"feature names must be unique: feature_descriptor[{i}] and "
                    f"feature_descriptor[{features[feature.name]}] are both named "
                    f"{feature.name!r}"
                )
            features[feature.name] = i
        if not self.feature_descriptor:
            # Per-table layout: Recv's output i has batch * num_features rows; zero is no table.
            for i, table in enumerate(self.table_descriptor):
                if table.num_features < 1:
                    raise ValueError(
                        f"table_descriptor[{i}] ({table.name!r}) has num_features "
                        f"{table.num_features}; without feature descriptors every table needs "
                        "num_features >= 1"
                    )
        tags = sorted({
            t.optimization_parameters.learning_rate.dynamic.tag
            for t in self.table_descriptor
            if t.optimization_parameters is not None
            and t.optimization_parameters.learning_rate.dynamic is not None
        })
        if tags != list(range(len(tags))):
            missing = sorted(set(range(max(tags) + 1)) - set(tags))
            raise ValueError(
                f"dynamic learning-rate tags must be dense from 0: the tables use tags {tags}, "
                f"missing {missing}"
            )

    def table_index(self, name: str) -> int:
        """The position of the table called ``name``.

        Raises:
            ValueError: no such table.
        """
        for i, table in enumerate(self.table_descriptor):
            if table.name == name:
                return i
        raise ValueError(
            f"no table named {name!r}; tables: {[t.name for t in self.table_descriptor]}"
        )

    @property
    def num_shards(self) -> int:
        """Simulated cores holding table shards: ``num_tensor_cores``, 1 when unset."""
        return max(1, self.num_tensor_cores)


# --------------------------------------------------------------------------------------------
# Helpers for the ops
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


def learning_rate_of(table: TableDescriptor) -> LearningRate:
    """The table's learning rate (an unset one, reading 0.0, when it has no parameters)."""
    if table.optimization_parameters is None:
        return LearningRate()
    return table.optimization_parameters.learning_rate


def dynamic_learning_rate_tags(config: TPUEmbeddingConfiguration) -> tuple[int, ...]:
    """The distinct dynamic tags in order, ``(0, ..., K-1)``: Send's ``learning_rates`` slots."""
    return tuple(sorted({
        learning_rate_of(t).dynamic.tag
        for t in config.table_descriptor
        if learning_rate_of(t).dynamic is not None
    }))


def table_features(config: TPUEmbeddingConfiguration) -> tuple[tuple[int, ...], ...]:
    """For each table, the indices of the feature descriptors that look it up (in order)."""
    out: list[list[int]] = [[] for _ in config.table_descriptor]
    for i, feature in enumerate(config.feature_descriptor):
        out[feature.table_id].append(i)
    return tuple(tuple(f) for f in out)


def recv_output_shapes(config: TPUEmbeddingConfiguration) -> tuple[tuple[int, ...], ...]:
    """The shapes of RecvTPUEmbeddingActivations' outputs (also Send's gradient inputs).

    Per feature ``input_shape + [dimension]`` when feature descriptors exist; otherwise per
    table ``[batch_size_per_tensor_core * num_features, dimension]``.
    """
    tables = config.table_descriptor
    if config.feature_descriptor:
        return tuple(
            (*f.input_shape, tables[f.table_id].dimension) for f in config.feature_descriptor
        )
    return tuple(
        (config.batch_size_per_tensor_core * t.num_features, t.dimension) for t in tables
    )


def _check_shard(vocabulary_size: int, num_shards: int, shard_id: int) -> None:
    if num_shards < 1:
        raise ValueError(f"num_shards must be >= 1, got {num_shards}")
    if not 0 <= shard_id < num_shards:
        raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id}")
    if vocabulary_size < 0:
        raise ValueError(f"vocabulary_size must be >= 0, got {vocabulary_size}")


def shard_size(vocabulary_size: int, num_shards: int, shard_id: int) -> int:
    """Rows on ``shard_id``: ``vocab // n`` plus one on the first ``vocab % n`` shards.

    DIV and MOD give every shard the same count, so the strategy does not matter here.
    """
    _check_shard(vocabulary_size, num_shards, shard_id)
    base, extra = divmod(vocabulary_size, num_shards)
    return base + (1 if shard_id < extra else 0)


def shard_row_range(vocabulary_size: int, num_shards: int, shard_id: int) -> range:
    """The global row ids held by ``shard_id`` under DIV_DEFAULT: one contiguous block.

    Example: 13 ids on 5 shards -> [0,1,2], [3,4,5], [6,7,8], [9,10], [11,12].
    """
    _check_shard(vocabulary_size, num_shards, shard_id)
    base, extra = divmod(vocabulary_size, num_shards)
    start = shard_id * base + min(shard_id, extra)
    return range(start, start + base + (1 if shard_id < extra else 0))


def shard_row_ids(
    vocabulary_size: int, num_shards: int, shard_id: int, strategy: str = "DIV_DEFAULT"
) -> np.ndarray:
    """The global row ids held by ``shard_id``, in the shard's local row order (int64).

    Example: 13 ids on 5 shards, MOD -> [0,5,10], [1,6,11], [2,7,12], [3,8], [4,9].
    """
    if strategy == "MOD":
        _check_shard(vocabulary_size, num_shards, shard_id)
        return np.arange(shard_id, vocabulary_size, num_shards, dtype=np.int64)
    if strategy != "DIV_DEFAULT":
        raise ValueError(f"sharding strategy must be 'DIV_DEFAULT' or 'MOD', got {strategy!r}")
    r = shard_row_range(vocabulary_size, num_shards, shard_id)
    return np.arange(r.start, r.stop, dtype=np.int64)


def shard_of_ids(
    ids: np.ndarray, vocabulary_size: int, num_shards: int, strategy: str = "DIV_DEFAULT"
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised: for global ids in [0, vocab), their (shard, local row) as int64 arrays."""
    ids = np.asarray(ids, dtype=np.int64)
    if num_shards < 1:
        raise ValueError(f"num_shards must be >= 1, got {num_shards}")
    if strategy == "MOD":
        return ids % num_shards, ids // num_shards
    if strategy != "DIV_DEFAULT":
        raise ValueError(f"sharding strategy must be 'DIV_DEFAULT' or 'MOD', got {strategy!r}")
    base, extra = divmod(vocabulary_size, num_shards)
    # The first `extra` shards hold base+1 rows, the rest base rows (base may be 0).
    boundary = extra * (base + 1)
    big = ids < boundary
    shard = np.where(big, ids // (base + 1), extra + (ids - boundary) // max(base, 1))
    local = np.where(big, ids % (base + 1), (ids - boundary) % max(base, 1))
    return shard.astype(np.int64), local.astype(np.int64)
