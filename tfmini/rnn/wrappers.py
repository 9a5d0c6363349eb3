"""Cell wrappers of ``tf.compat.v1.nn.rnn_cell``: ``DropoutWrapper``, ``ResidualWrapper``,
``DeviceWrapper`` (tf_keras ``layers/rnn/legacy_cell_wrappers.py``).

A wrapper is an :class:`RNNCell` with the wrapped cell's sizes; it makes no variables itself, so
the wrapped cell's variables keep their names (``rnn/basic_lstm_cell/kernel``).
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.scope import device, name_scope
from tfmini.core.shapes import as_shape
from tfmini.ops import math, nn, random
from tfmini.ops.common.build_util import constant_value
from tfmini.ops.control_flow import flatten_structure, pack_structure
from tfmini.rnn.cells import LSTMStateTuple, RNNCell, is_nested

__all__ = ["DeviceWrapper", "DropoutWrapper", "ResidualWrapper"]


def _has(obj: Any, attr: str) -> bool:
    try:
        getattr(obj, attr)
    except (AttributeError, NotImplementedError):
        return False
    return True


def assert_like_rnncell(cell_name: str, cell: Any) -> None:
    """Raises TensorFlow's ``TypeError`` unless ``cell`` looks like an RNN cell.

    Raises:
        TypeError: ``cell`` lacks ``output_size``, ``state_size``, a zero/initial state
            method, or is not callable.
    """
    conditions = [
        _has(cell, "output_size"),
        _has(cell, "state_size"),
        _has(cell, "get_initial_state") or _has(cell, "zero_state"),
        callable(cell),
    ]
    errors = [
        "'output_size' property is missing",
        "'state_size' property is missing",
        "either 'zero_state' or 'get_initial_state' method is required",
        "is not callable",
    ]
    if not all(conditions):
        missing = [e for e, ok in zip(errors, conditions) if not ok]
        raise TypeError(
            f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(missing)}."
        )


class _Wrapper(RNNCell):
    """Base of the wrappers: the wrapped cell's sizes and zero state."""

    def __init__(self, cell: Any, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable,
                           **kwargs: Any) -> tuple:
        raise NotImplementedError

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        """Calls the wrapped cell (in ``scope``, if given) with the wrapper's changes."""
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__,
                                       scope=scope)

    @property
    def state_size(self) -> Any:
        """The wrapped cell's state size."""
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        """The wrapped cell's output size."""
        return self.cell.output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state, under ``<Wrapper>ZeroState/``."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


def _default_state_filter(substate: Any) -> Any:
    # As TensorFlow: an LSTM's cell state c is never dropped, only its output h.
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _enumerated_map(structure: Any, fn: Callable, *args: Any) -> Any:
    """``fn(i, *leaves)`` over the leaves of ``structure`` (``i`` counts the leaves)."""
    flats = [flatten_structure(a) if is_nested(structure) else [a] for a in args]
    results = [fn(i, *leaves) for i, leaves in enumerate(zip(*flats))]
    return pack_structure(structure, results) if is_nested(structure) else results[0]


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and new states (Srivastava et al.; Gal & Ghahramani
    with ``variational_recurrent``).

    Each kept value is scaled by ``1 / keep_prob``. Random streams are TensorFlow's: the op
    seed of each dropout is derived from ``seed`` and its place (``md5(str(seed) +
    "input_0")``), with the graph seed as for any random op.

    Args:
        cell: The wrapped cell.
        input_keep_prob, output_keep_prob, state_keep_prob: Keep probabilities in [0, 1]
            (floats or scalar tensors); 1 means no dropout there.
        variational_recurrent: Use one mask per sequence (drawn when the wrapper is made)
            instead of a new mask per step; needs ``dtype`` (and ``input_size`` when inputs
            are dropped).
        input_size: The input depth(s) (for ``variational_recurrent``).
        dtype: The masks' dtype (for ``variational_recurrent``).
        seed: Seed of the random masks.
        dropout_state_filter_visitor: ``fn(substate) -> bool`` (or a structure of bools)
            choosing the parts of the state to drop; by default all but an LSTM's ``c``.

    Raises:
        ValueError: a keep probability outside [0, 1], or ``variational_recurrent`` without
            ``dtype``/``input_size``.
        TypeError: ``dropout_state_filter_visitor`` is not callable.
    """

    def __init__(self, cell: Any, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0,
                 state_keep_prob: Any = 1.0, variational_recurrent: bool = False,
                 input_size: Any = None, dtype: Any = None, seed: int | None = None,
                 dropout_state_filter_visitor: Callable | None = None, **kwargs: Any):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(
                dropout_state_filter_visitor):
            raise TypeError(
                "dropout_state_filter_visitor must be callable. Received: "
                f"{dropout_state_filter_visitor}"
            )
        self._dropout_state_filter = dropout_state_filter_visitor or _default_state_filter
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"),
                               (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor_prob = convert_to_tensor(prob)
                const = constant_value(tensor_prob)
                if const is not None:
                    if const < 0 or const > 1:
                        raise ValueError(
                            f"Parameter {attr} must be between 0 and 1. Received {const}"
                        )
                    setattr(self, f"_{attr}", float(const))
                else:
                    setattr(self, f"_{attr}", tensor_prob)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            noise_dtype = as_dtype(dtype)

            def batch_noise(s, inner_seed):
                shape = [1, *as_shape(s).as_list()]
                return random.random_uniform(shape, seed=inner_seed, dtype=noise_dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or \
                    self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError(
                        "When variational_recurrent=True and input_keep_prob < 1.0 or is "
                        "unknown, input_size must be provided"
                    )
                self._recurrent_input_noise = _enumerated_map(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)),
                    input_size)
            self._recurrent_state_noise = _enumerated_map(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)),
                cell.state_size)
            self._recurrent_output_noise = _enumerated_map(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)),
                cell.output_size)

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        if self._seed is None:
            return None
        text = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self) -> Any:
        """The wrapped cell."""
        return self.cell

    def _variational_value(self, value: Output, noise: Output, keep_prob: Any) -> Output:
        # floor(keep_prob + noise) with noise in [0, 1) is 1 exactly when the sum reaches 1.
        keep = math.cast(math.greater_equal(keep_prob + noise, 1.0), value.dtype)
        out = math.divide(value, keep_prob) * keep
        out.set_shape(value.shape)
        return out

    def _dropout(self, values: Any, salt_prefix: str, noise: Any, keep_prob: Any,
                 visitor: Callable | None = None) -> Any:
        # TensorFlow enumerates the leaves of the "shallow" structure the visitor picks: a
        # subtree left whole (False) counts as one leaf, so seeds follow that numbering.
        flat_noise = iter(flatten_structure(noise) if is_nested(noise) else [noise])
        counter = iter(range(1 << 30))

        def drop(v):
            i = next(counter)
            if self._variational_recurrent:
                return self._variational_value(v, next(flat_noise), keep_prob)
            return nn.dropout(v, rate=1.0 - keep_prob, seed=self._gen_seed(salt_prefix, i))

        def skip(v):
            next(counter)
            for _ in flatten_structure(v) if is_nested(v) else [v]:
                next(flat_noise, None)
            return v

        def walk(v):
            verdict = visitor(v) if visitor is not None else True
            if not is_nested(v):
                return drop(v) if verdict else skip(v)
            if isinstance(verdict, bool) and not verdict:
                return skip(v)
            children = list(v.values()) if isinstance(v, dict) else list(v)
            if isinstance(verdict, bool):
                flags = [True] * len(children)
            else:
                flags = list(verdict.values()) if isinstance(verdict, dict) else list(verdict)
            new = [walk(c) if f else skip(c) for c, f in zip(children, flags)]
            if isinstance(v, dict):
                return type(v)(zip(v.keys(), new))
            return type(v)(*new) if hasattr(v, "_fields") else type(v)(new)

        return walk(values)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable,
                           **kwargs: Any) -> tuple:
        def should_drop(p):
            return not isinstance(p, float) or p < 1

        if should_drop(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise,
                                   self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_drop(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise,
                                      self._state_keep_prob, self._dropout_state_filter)
        if should_drop(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise,
                                   self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_Wrapper):
    """Adds the cell's input to its output (``residual_fn(inputs, outputs)``, default
    ``inputs + outputs``).

    Args:
        cell: The wrapped cell.
        residual_fn: ``fn(inputs, outputs) -> outputs``.
    """

    def __init__(self, cell: Any, residual_fn: Callable | None = None, **kwargs: Any):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable,
                           **kwargs: Any) -> tuple:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            flat_in, flat_out = flatten_structure(inputs), flatten_structure(outputs)
            if len(flat_in) != len(flat_out):
                raise ValueError("The two structures don't have the same nested structure.")
            for a, b in zip(flat_in, flat_out):
                a.shape.assert_is_compatible_with(b.shape)
            return pack_structure(outputs, [a + b for a, b in zip(flat_in, flat_out)])

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_Wrapper):
    """Runs the cell (and builds its zero state) on ``device``.

    Args:
        cell: The wrapped cell.
        device: A device string, as for ``tm.device``.
    """

    def __init__(self, cell: Any, device: str, **kwargs: Any):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state, built on the device."""
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Callable,
                           **kwargs: Any) -> tuple:
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
