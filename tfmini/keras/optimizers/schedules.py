"""Learning-rate schedules (``tf.keras.optimizers.schedules``), evaluated symbolically.

A schedule is a callable of the optimizer step. Called with a tensor it builds the
schedule's ops in the current graph and returns a scalar tensor; the Keras-2 optimizers
call it on ``iterations`` (cast to the variable dtype) every time they apply gradients, so
the learning rate follows the step inside the graph::

    lr = tm.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.9)
    opt = tm.keras.optimizers.Adagrad(learning_rate=lr)

Schedules are serialisable: :func:`serialize` gives TF-Keras's dict
(``{"module", "class_name", "config", "registered_name"}``) and :func:`deserialize` reads
it back.
"""

from __future__ import annotations

import abc
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.ops.math import add, cast, floordiv, multiply, pow, truediv, where_v2

_MODULE = "keras.optimizers.schedules"


class LearningRateSchedule(abc.ABC):
    """The base class of learning-rate schedules.

    Subclasses implement ``__call__(step)`` (returning the learning rate at ``step``, built
    with tfmini ops so that ``step`` may be a tensor) and, to be serialisable,
    ``get_config()``. The default :meth:`from_config` calls the constructor with the config
    as keyword arguments.
    """

    @abc.abstractmethod
    def __call__(self, step: Any) -> Output:
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' "
            "must override `__call__(self, step)`."
        )

    @abc.abstractmethod
    def get_config(self) -> dict:
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' "
            "must override `get_config()` in order to be serializable."
        )

    @classmethod
    def from_config(cls, config: dict) -> LearningRateSchedule:
        """Instantiates a schedule from the output of :meth:`get_config`."""
        return cls(**config)


def _floor(x: Output) -> Output:
    # tfmini has no Floor op; FloorDiv by one is floor for floating values.
    return floordiv(x, convert_to_tensor(1, dtype=x.dtype))


class _DecayBase(LearningRateSchedule):
    """The shared arguments of ExponentialDecay and InverseTimeDecay."""

    _DEFAULT_NAME = ""

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, decay_rate: Any,
                 staircase: bool = False, name: str | None = None):
        super().__init__()
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _parts(self, step: Any) -> tuple[Output, Output, Output]:
        """``(initial learning rate, decay rate, step / decay_steps)``, floored if staircase,
        all in the dtype of the initial learning rate."""
        initial = convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        decay_steps = cast(self.decay_steps, dtype)
        decay_rate = cast(self.decay_rate, dtype)
        p = truediv(cast(step, dtype), decay_steps)
        if self.staircase:
            p = _floor(p)
        return initial, decay_rate, p

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class ExponentialDecay(_DecayBase):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    With ``staircase=True`` the exponent is ``floor(step / decay_steps)``.

    Args:
        initial_learning_rate: A Python float or scalar float tensor.
        decay_steps: A positive number: the steps per factor of ``decay_rate``.
        decay_rate: The decay factor.
        staircase: Decay in discrete steps.
        name: Name scope of the ops (default ``"ExponentialDecay"``).
    """

    def __call__(self, step: Any) -> Output:
        with name_scope(self.name or "ExponentialDecay"):
            initial, decay_rate, p = self._parts(step)
            return multiply(initial, pow(decay_rate, p))


class InverseTimeDecay(_DecayBase):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    With ``staircase=True`` the quotient ``step / decay_steps`` is floored.

    Args:
        initial_learning_rate: A Python float or scalar float tensor.
        decay_steps: How often to apply decay.
        decay_rate: The decay rate.
        staircase: Decay in discrete steps.
        name: Name scope of the ops (default ``"InverseTimeDecay"``).
    """

    def __call__(self, step: Any) -> Output:
        with name_scope(self.name or "InverseTimeDecay"):
            initial, decay_rate, p = self._parts(step)
            one = convert_to_tensor(1, dtype=initial.dtype)
            return truediv(initial, add(one, multiply(decay_rate, p)))


class PiecewiseConstantDecay(LearningRateSchedule):
    """A constant per interval of the step.

    The value is ``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < step <= boundaries[i]``, and ``values[-1]`` after the last
    boundary.

    Args:
        boundaries: Strictly increasing numbers (cast to the step's dtype).
        values: One more value than boundaries, all of one dtype.
        name: Name scope of the ops (default ``"PiecewiseConstant"``).

    Raises:
        ValueError: ``len(boundaries) != len(values) - 1``.
    """

    def __init__(self, boundaries: Any, values: Any, name: str | None = None):
        super().__init__()
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of "
                f"values. Received: boundaries={boundaries} of length "
                f"{len(boundaries)}, and values={values} "
                f"of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> Output:
        with name_scope(self.name or "PiecewiseConstant"):
            x = convert_to_tensor(step)
            bounds = [cast(b, x.dtype) for b in self.boundaries]
            values = [convert_to_tensor(v) for v in self.values]
            # The intervals are disjoint and cover every step (TF's exclusive tf.case), so
            # a chain of selects from the last interval back to the first is equivalent.
            out = values[-1]
            for i in range(len(bounds) - 1, -1, -1):
                out = where_v2(x <= bounds[i], values[i], out)
            return out

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


_BUILTIN = {
    cls.__name__: cls
    for cls in (ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay)
}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """A JSON-compatible dict describing ``learning_rate_schedule`` (TF-Keras's format).

    Example::

        serialize(ExponentialDecay(0.1, 100, 0.96))
        # {'module': 'keras.optimizers.schedules', 'class_name': 'ExponentialDecay',
        #  'config': {...}, 'registered_name': None}

    Raises:
        TypeError: ``learning_rate_schedule`` is not a LearningRateSchedule.
    """
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise TypeError(
            f"Cannot serialize {learning_rate_schedule!r}: it is not a LearningRateSchedule."
        )
    cls = type(learning_rate_schedule)
    builtin = _BUILTIN.get(cls.__name__) is cls
    return {
        "module": _MODULE if builtin else cls.__module__,
        "class_name": cls.__name__,
        "config": learning_rate_schedule.get_config(),
        "registered_name": None if builtin else cls.__name__,
    }


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """The schedule that ``config`` (from :func:`serialize`) describes.

    Args:
        config: ``{"class_name": ..., "config": {...}}`` (other keys are ignored).
        custom_objects: Maps class names to user-defined schedule classes.

    Raises:
        ValueError: the class is neither built in nor in ``custom_objects``, or ``config``
            is not such a dict.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret serialized schedule: {config!r}")
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BUILTIN.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown learning rate schedule: '{name}'. Please ensure you are using a "
            "`keras.utils.custom_object_scope` and that this object is included in the "
            "scope (pass it in `custom_objects`)."
        )
    return cls.from_config(dict(config.get("config", {})))


__all__ = [
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "deserialize",
    "serialize",
]
