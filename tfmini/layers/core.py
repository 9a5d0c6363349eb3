"""``Dense``, ``Flatten`` and ``Dropout`` and their functions (tf_keras
``legacy_tf_layers/core.py``, ``layers/core/dense.py``, ``layers/regularization/dropout.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape
from tfmini.layers.base import InputSpec, Layer
from tfmini.layers.utils import smart_cond, static_bool
from tfmini.ops import array, math, nn

__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]


class Dense(Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)``.

    ``kernel`` has shape ``[input size, units]``; an input of rank > 2 is contracted over
    its last axis (TensorFlow's ``tensordot``: Reshape, MatMul, Reshape).

    Args:
        units: The output size.
        activation: A function applied to the output, or None.
        use_bias: Add a ``bias`` of shape ``[units]``.
        kernel_initializer, bias_initializer: Default Glorot uniform and zeros.
        kernel_regularizer, bias_regularizer: ``fn(variable) -> loss`` for
            ``REGULARIZATION_LOSSES``.
        activity_regularizer: ``fn(output) -> loss``.
        kernel_constraint, bias_constraint: Projections applied after optimizer updates.
        trainable, name: As for :class:`Layer`.
    """

    def __init__(self, units: int, activation: Callable | None = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Callable | None = None,
                 bias_regularizer: Callable | None = None,
                 activity_regularizer: Callable | None = None,
                 kernel_constraint: Callable | None = None,
                 bias_constraint: Callable | None = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: TensorShape) -> None:
        """Creates ``kernel`` (and ``bias``) for the input's last axis."""
        from tfmini.ops.variables import zeros_initializer

        last = input_shape.as_list()[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = self.add_weight(
            "kernel", shape=[last, self.units], initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.units],
                initializer=self.bias_initializer or zeros_initializer(),
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs: Any) -> Any:
        """``activation(inputs @ kernel + bias)``."""
        if inputs.dtype.base_dtype != self.kernel.dtype:
            inputs = math.cast(inputs, self.kernel.dtype)
        rank = len(inputs.shape.dims) if inputs.shape.dims is not None else None
        if rank == 2 or rank is None:
            outputs = math.matmul(inputs, self.kernel)
        else:
            # TensorFlow's tensordot over the last axis: Reshape, MatMul, Reshape.
            with name_scope("Tensordot"):
                dims = inputs.shape.as_list()
                flat = array.reshape(inputs, [-1, dims[-1]])
                product = math.matmul(flat, self.kernel)
                if all(d is not None for d in dims[:-1]):
                    out_shape = dims[:-1] + [self.units]
                else:
                    out_shape = array.concat(
                        [array.shape(inputs)[:-1], array.constant([self.units])], 0)
                outputs = array.reshape(product, out_shape)
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        """The input shape with its last axis replaced by ``units``."""
        return TensorShape(TensorShape(input_shape).as_list()[:-1] + [self.units])


def dense(inputs: Any, units: int, activation: Callable | None = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Callable | None = None, bias_regularizer: Callable | None = None,
          activity_regularizer: Callable | None = None,
          kernel_constraint: Callable | None = None, bias_constraint: Callable | None = None,
          trainable: bool = True, name: str | None = None, reuse: Any = None) -> Any:
    """``tf.compat.v1.layers.dense``: a :class:`Dense` layer applied to ``inputs``.

    Args:
        inputs: A tensor of rank >= 2.
        units, activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
        bias_constraint, trainable: As for :class:`Dense`.
        name: The layer's variable scope (default ``dense``, made unique).
        reuse: Reuse the variables of a layer of the same name.

    Returns:
        The output tensor.
    """
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


class Flatten(Layer):
    """Flattens every axis but the first: one Reshape to ``[batch, -1]``.

    Args:
        data_format: ``channels_last`` (default) or ``channels_first`` (moved last first).
        name: As for :class:`Layer`.
    """

    def __init__(self, data_format: str = "channels_last", name: str | None = None,
                 **kwargs: Any):
        super().__init__(name=name, **kwargs)
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Any:
        """Reshapes ``inputs`` to ``[batch, -1]``."""
        rank = len(inputs.shape.dims) if inputs.shape.dims is not None else None
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            inputs = array.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return array.expand_dims(inputs, 1)
        dims = inputs.shape.as_list() if rank is not None else None
        if dims is not None and all(d is not None for d in dims[1:]):
            size = 1
            for d in dims[1:]:
                size *= d
            batch = dims[0] if dims[0] is not None else -1
            return array.reshape(inputs, [batch, size])
        return array.reshape(inputs, [array.shape(inputs)[0], -1])


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Any:
    """``tf.compat.v1.layers.flatten``: ``inputs`` reshaped to ``[batch, -1]``."""
    return Flatten(name=name, data_format=data_format)(inputs)


class Dropout(Layer):
    """Dropout: in training, zeroes each element with probability ``rate`` and scales the
    rest by ``1 / (1 - rate)``; otherwise the identity.

    Args:
        rate: The drop probability.
        noise_shape: The shape of the keep mask, broadcast against the input.
        seed: The op seed of the uniform draw.
        name: As for :class:`Layer`.
    """

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
                 name: str | None = None, **kwargs: Any):
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float "
                             f"value between 0 and 1. Received: rate={rate}")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs: Any, training: Any = False) -> Any:
        """Applies dropout when ``training`` (a bool or a bool tensor) is true."""
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return array.identity(inputs)

        def dropped():
            return nn.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed,
                              rate=self.rate)

        if static_bool(training) is not None:
            return smart_cond(training, dropped, lambda: array.identity(inputs))
        # A tensor ``training``: the cond builds only the mask (0 or 1 / (1 - rate)) from the
        # input's shape, so the gradient reaches ``inputs`` through a Mul outside the cond
        # and the cond's random draw never runs again to differentiate it. The draw is
        # TensorFlow's (same shape, seed and stream position), made only when training.
        shape = array.shape(inputs)
        dtype = inputs.dtype

        def mask():
            return nn.dropout(array.ones(shape, dtype=dtype), noise_shape=self.noise_shape,
                              seed=self.seed, rate=self.rate)

        keep = smart_cond(training, mask, lambda: array.ones(shape, dtype=dtype))
        return math.multiply(inputs, keep)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
            training: Any = False, name: str | None = None) -> Any:
    """``tf.compat.v1.layers.dropout``: :class:`Dropout` applied with ``training``."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(inputs,
                                                                         training=training)


