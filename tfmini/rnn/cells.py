"""The TF1 RNN cells of ``tf.compat.v1.nn.rnn_cell`` (tf_keras ``layers/rnn/legacy_cells.py``).

A cell is a :class:`tfmini.layers.Layer` called as ``cell(inputs, state)`` and returning
``(output, new_state)``. Its variables are made in the cell's variable scope, picked on the
first call under the current variable scope (``rnn/basic_lstm_cell/kernel``), so a driver that
calls a cell once per time step shares one set of weights.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype, int32
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.layers.base import InputSpec, Layer
from tfmini.ops import array, math, nn
from tfmini.ops.control_flow import flatten_structure, pack_structure
from tfmini.ops.variables import (
    constant_initializer,
    get_variable_scope,
    trainable_variables,
    variable_scope,
    zeros_initializer,
)

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "LayerRNNCell",
    "MultiRNNCell",
    "RNNCell",
]

_WEIGHTS = "kernel"
_BIAS = "bias"


def is_nested(x: Any) -> bool:
    """Whether ``x`` is a list, tuple (incl. namedtuple) or dict, as ``nest.is_nested``."""
    return isinstance(x, (list, tuple, dict))


def map_structure(fn: Callable, *structures: Any) -> Any:
    """Applies ``fn`` to the leaves of same-structured ``structures`` (``nest.map_structure``)."""
    flats = [flatten_structure(s) for s in structures]
    return pack_structure(structures[0], [fn(*leaves) for leaves in zip(*flats)])


def _size_dims(size: Any) -> list:
    """An int or TensorShape state/output size as a list of dims."""
    if isinstance(size, Output):
        raise TypeError("A state or output size must be an int or a TensorShape")
    return as_shape(size).as_list()


def concat_shape(prefix: Any, suffix: Any) -> Any:
    """``[prefix, *suffix]`` as a Python list when ``prefix`` is known, else as a tensor
    (``rnn_cell_impl._concat``)."""
    dims = _size_dims(suffix)
    if isinstance(prefix, Output):
        if prefix.shape.rank == 0:
            prefix = array.expand_dims(prefix, 0)
        return array.concat([prefix, array.constant(dims, dtype=int32)], 0)
    return [prefix, *dims]


def zero_state_tensors(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    """Zeros of shape ``[batch_size, s]`` for each ``s`` in ``state_size``'s structure."""
    def zeros_for(s):
        return array.zeros(concat_shape(batch_size, s), dtype=dtype)

    if not is_nested(state_size):
        return zeros_for(state_size)
    return pack_structure(state_size, [zeros_for(s) for s in flatten_structure(state_size)])


def _check_supported_dtypes(dtype: Any) -> None:
    if dtype is None:
        return
    dtype = as_dtype(dtype)
    if not (dtype.is_floating or dtype.name.startswith("complex")):
        raise ValueError(
            f"RNN cell only supports floating point inputs, but received dtype: {dtype}"
        )


def _check_input_dtypes(values: Any) -> None:
    for t in flatten_structure(values):
        _check_supported_dtypes(t.dtype)


def _input_depth(cell: Layer, input_shape: TensorShape) -> int:
    depth = input_shape.as_list()[-1] if input_shape.rank else None
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {input_shape}")
    _check_supported_dtypes(cell.dtype)
    return depth


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """The ``(c, h)`` state of the LSTM cells (``c`` the cell state, ``h`` the output)."""

    __slots__ = ()

    @property
    def dtype(self):
        """The common dtype of ``c`` and ``h``.

        Raises:
            TypeError: ``c`` and ``h`` have different dtypes.
        """
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class RNNCell(Layer):
    """Abstract RNN cell: ``(output, new_state) = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size`` and ``call(inputs, state)``. A cell that
    makes variables with ``get_variable`` inside ``call`` gets them tracked in its weights.
    """

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 **kwargs: Any):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True
        self._rnncell_scope = None
        self._adding_weight = False

    def __call__(self, inputs: Any, state: Any, scope: Any = None, *args: Any,
                 **kwargs: Any) -> tuple:
        """Runs the cell on ``inputs`` from ``state``.

        Args:
            inputs: A ``[batch, input_size]`` tensor (or a structure for custom cells).
            state: A ``[batch, state_size]`` tensor or a structure of them (``state_size``'s).
            scope: A variable scope (name or object) for the cell's variables; default the
                variable scope current at the first call.

        Returns:
            ``(output, new_state)``.
        """
        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as vs:
                return self._layer_call(inputs, state, *args, scope=vs, **kwargs)
        if self._rnncell_scope is None:
            self._rnncell_scope = get_variable_scope()
        with variable_scope(self._rnncell_scope, custom_getter=self._rnn_get_variable,
                            auxiliary_name_scope=False):
            return self._layer_call(inputs, state, *args, **kwargs)

    def _layer_call(self, inputs: Any, state: Any, *args: Any, **kwargs: Any) -> tuple:
        return Layer.__call__(self, inputs, state, *args, **kwargs)

    def add_weight(self, name: str, shape: Any, *args: Any, **kwargs: Any):
        """As :meth:`tfmini.layers.Layer.add_weight` (the weight is tracked once)."""
        self._adding_weight = True
        try:
            return super().add_weight(name, shape, *args, **kwargs)
        finally:
            self._adding_weight = False

    def _rnn_get_variable(self, getter: Callable, *args: Any, **kwargs: Any):
        # Tracks variables a cell makes with get_variable inside call (add_weight tracks its own).
        variable = getter(*args, **kwargs)
        if self._adding_weight:
            return variable
        trainable = any(variable is v for v in trainable_variables())
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in weights):
            weights.append(variable)
        return variable

    @property
    def state_size(self) -> Any:
        """The size(s) of the state: an int, a TensorShape or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        """The size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, input_shape: TensorShape) -> None:
        """Creates the cell's weights (none in the base class)."""
        del input_shape
        self.built = True

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        """The zero state for ``inputs``' batch size and dtype, or for ``batch_size``/``dtype``.

        Raises:
            ValueError: ``batch_size``/``dtype`` disagree with ``inputs``, or are missing.
        """
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            static_batch = inputs.shape.as_list()[0] if inputs.shape.rank else None
            if batch_size is not None and not isinstance(batch_size, Output) \
                    and static_batch != batch_size:
                raise ValueError(
                    "batch size from input tensor is different from the input param. Input "
                    f"tensor batch: {static_batch}, batch_size: {batch_size}"
                )
            if dtype is not None and inputs.dtype != as_dtype(dtype):
                raise ValueError(
                    "dtype from input tensor is different from the input param. Input tensor "
                    f"dtype: {inputs.dtype}, dtype: {dtype}"
                )
            batch_size = static_batch if static_batch is not None else array.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zero-filled state: ``[batch_size, s]`` for each ``s`` in ``state_size``.

        Ops go under ``<ClassName>ZeroState/`` as TensorFlow names them.
        """
        with name_scope(type(self).__name__ + "ZeroState"):
            return zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNN cell that makes its weights in ``build`` as a layer does (not in ``call``)."""


class BasicRNNCell(LayerRNNCell):
    """``h' = activation([x, h] @ kernel + bias)``; variables ``basic_rnn_cell/kernel``
    ``[input + units, units]`` and ``bias`` (zeros).

    Args:
        num_units: The number of units.
        activation: Default ``tanh``.
        reuse: Reuse existing variables of the cell's scope.
        name, dtype: As for :class:`tfmini.layers.Layer`.
    """

    def __init__(self, num_units: int, activation: Callable | None = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activation or math.tanh

    @property
    def state_size(self) -> int:
        """``num_units``."""
        return self._num_units

    @property
    def output_size(self) -> int:
        """``num_units``."""
        return self._num_units

    def build(self, input_shape: TensorShape) -> None:
        """Makes ``kernel`` and ``bias``."""
        depth = _input_depth(self, input_shape)
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS, shape=[self._num_units],
                                     initializer=zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple:
        """One step; the output is the new state."""
        _check_input_dtypes([inputs, state])
        gates = math.matmul(array.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn.bias_add(gates, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """Gated recurrent unit (Cho et al. 2014) as TensorFlow's ``GRUCell``.

    ``[r, u] = sigmoid([x, h] @ gates/kernel + gates/bias)`` (bias initialised to 1.0),
    ``c = activation([x, r * h] @ candidate/kernel + candidate/bias)``,
    ``h' = u * h + (1 - u) * c``.

    Args:
        num_units: The number of units.
        activation: Default ``tanh``.
        reuse: Reuse existing variables of the cell's scope.
        kernel_initializer: For both kernels (default: the scope's, else Glorot uniform).
        bias_initializer: For both biases (default 1.0 for the gates, 0 for the candidate).
        name, dtype: As for :class:`tfmini.layers.Layer`.
    """

    def __init__(self, num_units: int, activation: Callable | None = None, reuse: Any = None,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._activation = activation or math.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        """``num_units``."""
        return self._num_units

    @property
    def output_size(self) -> int:
        """``num_units``."""
        return self._num_units

    def build(self, input_shape: TensorShape) -> None:
        """Makes ``gates/kernel``, ``gates/bias``, ``candidate/kernel``, ``candidate/bias``."""
        depth = _input_depth(self, input_shape)
        n = self._num_units
        self._gate_kernel = self.add_weight(f"gates/{_WEIGHTS}", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            f"gates/{_BIAS}", shape=[2 * n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else constant_initializer(1.0, dtype=self.dtype))
        self._candidate_kernel = self.add_weight(
            f"candidate/{_WEIGHTS}", shape=[depth + n, n], initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            f"candidate/{_BIAS}", shape=[n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple:
        """One step; the output is the new state."""
        _check_input_dtypes([inputs, state])
        gates = math.matmul(array.concat([inputs, state], 1), self._gate_kernel)
        value = math.sigmoid(nn.bias_add(gates, self._gate_bias))
        r, u = array.split(value=value, num_or_size_splits=2, axis=1)
        candidate = math.matmul(array.concat([inputs, r * state], 1), self._candidate_kernel)
        c = self._activation(nn.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell (no peepholes, no clipping, no projection).

    ``[i, j, f, o] = split([x, h] @ kernel + bias)``,
    ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * activation(j)``,
    ``h' = activation(c') * sigmoid(o)``. Variables ``basic_lstm_cell/kernel``
    ``[input + units, 4 * units]`` and ``bias`` (zeros).

    Args:
        num_units: The number of units.
        forget_bias: Added to the forget gate's pre-activation.
        state_is_tuple: State as :class:`LSTMStateTuple` ``(c, h)``; else ``concat([c, h], 1)``.
        activation: Default ``tanh``.
        reuse, name, dtype: As for :class:`BasicRNNCell`.
    """

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Callable | None = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math.tanh

    @property
    def state_size(self) -> Any:
        """``LSTMStateTuple(num_units, num_units)``, or ``2 * num_units``."""
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self) -> int:
        """``num_units``."""
        return self._num_units

    def build(self, input_shape: TensorShape) -> None:
        """Makes ``kernel`` and ``bias``."""
        depth = _input_depth(self, input_shape)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS, shape=[4 * n],
                                     initializer=zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple:
        """One step: returns ``(h', state')``."""
        _check_input_dtypes([inputs, state])
        one = array.constant(1, dtype=int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array.split(value=state, num_or_size_splits=2, axis=one)
        gates = nn.bias_add(math.matmul(array.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = array.split(value=gates, num_or_size_splits=4, axis=one)
        forget_bias = array.constant(self._forget_bias, dtype=f.dtype)
        new_c = math.add(math.multiply(c, math.sigmoid(math.add(f, forget_bias))),
                         math.multiply(math.sigmoid(i), self._activation(j)))
        new_h = math.multiply(self._activation(new_c), math.sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, array.concat([new_c, new_h], 1)


class LSTMCell(LayerRNNCell):
    """The LSTM cell with optional peepholes, cell clipping and projection (Sak et al. 2014).

    ``i = sigmoid(z_i + w_i_diag * c)``, ``f = sigmoid(z_f + forget_bias + w_f_diag * c)``,
    ``c' = clip(f * c + i * activation(z_j), cell_clip)``, ``o = sigmoid(z_o + w_o_diag * c')``,
    ``m = o * activation(c')``, ``h = clip(m @ projection/kernel, proj_clip)``.

    Args:
        num_units: The number of units.
        use_peepholes: Add the diagonal peephole weights ``w_f_diag``, ``w_i_diag``,
            ``w_o_diag``.
        cell_clip: Clip the cell state to ``[-cell_clip, cell_clip]``.
        initializer: For the kernels and peepholes (default: the scope's, else Glorot
            uniform).
        num_proj: Project the output to this size (``projection/kernel``).
        proj_clip: Clip the projected output.
        num_unit_shards, num_proj_shards: Must be None (partitioned weights are not
            supported).
        forget_bias, state_is_tuple, activation, reuse, name, dtype: As for
            :class:`BasicLSTMCell`.
    """

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: Any = None,
                 initializer: Any = None, num_proj: int | None = None, proj_clip: Any = None,
                 num_unit_shards: Any = None, num_proj_shards: Any = None,
                 forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Callable | None = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError("Partitioned variables are not supported by tfmini")
        self.input_spec = InputSpec(ndim=2)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math.tanh
        h = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    @property
    def state_size(self) -> Any:
        """``LSTMStateTuple(num_units, num_proj or num_units)`` or their sum."""
        return self._state_size

    @property
    def output_size(self) -> int:
        """``num_proj`` or ``num_units``."""
        return self._output_size

    def build(self, input_shape: TensorShape) -> None:
        """Makes ``kernel``, ``bias`` and, as configured, peepholes and ``projection/kernel``."""
        depth = _input_depth(self, input_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + h_depth, 4 * n],
                                       initializer=self._initializer)
        self._bias = self.add_weight(_BIAS, shape=[4 * n],
                                     initializer=zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(f"projection/{_WEIGHTS}",
                                                shape=[n, self._num_proj],
                                                initializer=self._initializer)
        self.built = True

    def call(self, inputs: Any, state: Any) -> tuple:
        """One step: returns ``(m, state')``.

        Raises:
            ValueError: the input size is not known when the graph is built.
        """
        _check_input_dtypes([inputs, state])
        n = self._num_units
        num_proj = n if self._num_proj is None else self._num_proj
        sigmoid = math.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array.slice(state, [0, 0], [-1, n])
            m_prev = array.slice(state, [0, n], [-1, num_proj])
        if inputs.shape.with_rank(2).as_list()[1] is None:
            raise ValueError(
                "Could not infer input size from inputs.get_shape()[-1].Received input shape: "
                f"{inputs.shape}"
            )
        lstm = nn.bias_add(math.matmul(array.concat([inputs, m_prev], 1), self._kernel),
                           self._bias)
        i, j, f, o = array.split(value=lstm, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = nn.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = nn.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked in layers: cell ``k`` runs in scope ``cell_<k>`` on cell ``k-1``'s output.

    Args:
        cells: A non-empty list of cells.
        state_is_tuple: State as a tuple of the cells' states; else concatenated (then every
            cell's state must be a single tensor).

    Raises:
        ValueError: ``cells`` is empty, or a cell has a tuple state without
            ``state_is_tuple``.
        TypeError: ``cells`` is not a list or tuple.
    """

    def __init__(self, cells: Any, state_is_tuple: bool = True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(is_nested(c.state_size) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                f"State sizes are: {[c.state_size for c in self._cells]}"
            )

    @property
    def state_size(self) -> Any:
        """A tuple of the cells' state sizes (or their sum)."""
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self) -> Any:
        """The last cell's output size."""
        return self._cells[-1].output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Each cell's zero state, under ``MultiRNNCellZeroState/``."""
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return zero_state_tensors(self.state_size, batch_size, dtype)

    @property
    def trainable_weights(self) -> list:
        """The cells' trainable weights, in order."""
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, Layer)
                for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        """The cells' other weights (all of them when not trainable)."""
        weights = [w for cell in self._cells if isinstance(cell, Layer)
                   for w in cell.non_trainable_weights]
        if not self.trainable:
            trainable = [w for cell in self._cells if isinstance(cell, Layer)
                         for w in cell.trainable_weights]
            return trainable + weights
        return weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list:
        """Trainable then non-trainable weights."""
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    def call(self, inputs: Any, state: Any) -> tuple:
        """Runs the cells in order; returns the last output and the tuple of new states.

        Raises:
            ValueError: ``state`` is not a tuple while ``state_is_tuple``.
        """
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not is_nested(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, "
                            f"but received: {state}"
                        )
                    cell_state = state[i]
                else:
                    cell_state = array.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, array.concat(new_states, 1)
