"""``BatchNormalization`` and ``batch_normalization`` (tf_keras
``legacy_tf_layers/normalization.py`` over ``layers/normalization/batch_normalization.py``).

``fused=None`` uses FusedBatchNormV3 for 4-D inputs normalised over the last axis or axis 1
(5-D too when the fused op takes them), and plain ops (moments, ``tm.nn.batch_normalization``)
otherwise. Unless ``training`` is False, the moving statistics get ``AssignMovingAvg`` updates,
``moving -= (moving - batch statistic) * (1 - momentum)``, collected in ``UPDATE_OPS``: the
fused op hands the unbiased batch variance to the update, the plain path the biased one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape
from tfmini.layers.base import InputSpec, Layer
from tfmini.layers.utils import smart_cond, static_bool
from tfmini.ops import array, math, nn

__all__ = ["BatchNormalization", "batch_normalization"]


class BatchNormalization(Layer):
    """Batch normalization: ``gamma * (x - mean) / sqrt(var + epsilon) + beta``.

    In training, mean and variance are the batch's (biased) statistics and the moving
    averages are updated; in inference they are the moving averages.

    Args:
        axis: The feature axis (an int; default -1).
        momentum: Of the moving averages (default 0.99).
        epsilon: Added to the variance (default 1e-3).
        center, scale: Learn ``beta`` / ``gamma``.
        beta_initializer, gamma_initializer, moving_mean_initializer,
        moving_variance_initializer: Defaults zeros, ones, zeros, ones.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: As for
            :class:`Dense`'s weights.
        renorm: Must be False (batch renormalization is not supported).
        fused: None (fused when possible), True or False.
        trainable, name: As for :class:`Layer`.

    Raises:
        NotImplementedError: ``renorm`` or ``virtual_batch_size``.
    """

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = None,
                 gamma_initializer: Any = None, moving_mean_initializer: Any = None,
                 moving_variance_initializer: Any = None,
                 beta_regularizer: Callable | None = None,
                 gamma_regularizer: Callable | None = None,
                 beta_constraint: Callable | None = None,
                 gamma_constraint: Callable | None = None, renorm: bool = False,
                 renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                 fused: bool | None = None, trainable: bool = True,
                 virtual_batch_size: int | None = None, adjustment: Any = None,
                 name: str | None = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, **kwargs)
        del renorm_clipping, renorm_momentum
        if renorm:
            raise NotImplementedError("BatchNormalization(renorm=True) is not supported")
        if virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("virtual_batch_size and adjustment are not supported")
        if isinstance(axis, (list, tuple)):
            if len(axis) != 1:
                raise NotImplementedError("tfmini normalises over one axis only")
            axis = axis[0]
        self.axis = int(axis)
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused

    def build(self, input_shape: TensorShape) -> None:
        """Creates ``gamma``, ``beta``, ``moving_mean``, ``moving_variance``."""
        from tfmini.ops.variables import ones_initializer, zeros_initializer

        dims = input_shape.as_list() if input_shape.dims is not None else None
        if dims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        rank = len(dims)
        axis = self.axis + rank if self.axis < 0 else self.axis
        if not 0 <= axis < rank:
            raise ValueError(f"Invalid axis: {self.axis}. Expected 0 <= axis < inputs.rank "
                             f"(with inputs.rank={rank}). Received: layer.axis={self.axis}")
        self._axis = axis
        if self.fused is None:
            self.fused = rank in (4, 5) and axis in (1, rank - 1)
        elif self.fused and not (rank in (4, 5) and axis in (1, rank - 1)):
            raise ValueError("Passing `fused=True` is only supported when the input is 4-D or "
                             f"5-D and the axis is 1 or -1. Received: input_shape={input_shape}, "
                             f"axis={self.axis}")
        if self.fused:
            first = axis == 1
            self._data_format = ("NCHW" if first else "NHWC") if rank == 4 else (
                "NCDHW" if first else "NDHWC")
        size = dims[axis]
        if size is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             f"dimension but the layer received an input with shape "
                             f"{input_shape}.")
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: size})
        param = [size]
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape=param, initializer=self.gamma_initializer or ones_initializer(),
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(
                "beta", shape=param, initializer=self.beta_initializer or zeros_initializer(),
                regularizer=self.beta_regularizer, constraint=self.beta_constraint)
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param,
            initializer=self.moving_mean_initializer or zeros_initializer(), trainable=False)
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param,
            initializer=self.moving_variance_initializer or ones_initializer(),
            trainable=False)
        self.built = True

    def _assign_moving_average(self, variable: Any, value: Any, momentum: Any) -> Any:
        with name_scope("AssignMovingAvg") as scope:
            if isinstance(momentum, (int, float)):
                decay = convert_to_tensor(1.0 - momentum, dtype=variable.dtype, name="decay")
            else:
                decay = math.subtract(1.0, momentum, name="decay")
                if decay.dtype != variable.dtype:
                    decay = math.cast(decay, variable.dtype)
            delta = math.multiply(math.subtract(variable, math.cast(value, variable.dtype)),
                                  decay)
            return variable.assign_sub(delta, name=scope)

    def _gamma_beta(self, dtype: Any) -> tuple[Any, Any]:
        size = self.moving_mean.shape.as_list()
        gamma = self.gamma if self.gamma is not None else array.ones(size, dtype=dtype)
        beta = self.beta if self.beta is not None else array.zeros(size, dtype=dtype)
        return gamma, beta

    def _fused_call(self, inputs: Any, training: Any) -> Any:
        gamma, beta = self._gamma_beta(inputs.dtype)

        def fused_training():
            return nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                       variance=self.moving_variance, epsilon=self.epsilon,
                                       is_training=True, data_format=self._data_format)

        def fused_inference():
            return nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                       variance=self.moving_variance, epsilon=self.epsilon,
                                       is_training=False, data_format=self._data_format)

        output, mean, variance = smart_cond(training, fused_training, fused_inference)
        value = static_bool(training)
        if value is False:
            return output
        if value is None:
            momentum = smart_cond(training, lambda: convert_to_tensor(float(self.momentum)),
                                  lambda: convert_to_tensor(1.0))
        else:
            momentum = convert_to_tensor(float(self.momentum))
        self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean, momentum))
        self.add_update(
            lambda: self._assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def _broadcast(self, t: Any, rank: int) -> Any:
        if self._axis == rank - 1:
            return t
        shape = [1] * rank
        shape[self._axis] = self.moving_mean.shape.as_list()[0]
        return array.reshape(t, shape)

    def call(self, inputs: Any, training: Any = False) -> Any:
        """Normalises ``inputs``; ``training`` is a bool or a scalar bool tensor."""
        value = static_bool(training)
        if self.fused:
            return self._fused_call(inputs, training)
        rank = len(inputs.shape.dims)
        gamma, beta = self.gamma, self.beta
        if value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            axes = [i for i in range(rank) if i != self._axis]
            batch_mean, batch_var = nn.moments(inputs, axes, keepdims=False)
            mean = smart_cond(training, lambda: batch_mean,
                              lambda: convert_to_tensor(self.moving_mean))
            variance = smart_cond(training, lambda: batch_var,
                                  lambda: convert_to_tensor(self.moving_variance))

            def update(var, stat):
                return smart_cond(training,
                                  lambda: self._assign_moving_average(var, stat, self.momentum),
                                  lambda: convert_to_tensor(var))

            self.add_update(lambda: update(self.moving_mean, mean))
            self.add_update(lambda: update(self.moving_variance, variance))
        return nn.batch_normalization(
            inputs, self._broadcast(mean, rank), self._broadcast(variance, rank),
            None if beta is None else self._broadcast(beta, rank),
            None if gamma is None else self._broadcast(gamma, rank), self.epsilon)


def batch_normalization(inputs: Any, axis: int = -1, momentum: float = 0.99,
                        epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                        beta_initializer: Any = None, gamma_initializer: Any = None,
                        moving_mean_initializer: Any = None,
                        moving_variance_initializer: Any = None,
                        beta_regularizer: Callable | None = None,
                        gamma_regularizer: Callable | None = None,
                        beta_constraint: Callable | None = None,
                        gamma_constraint: Callable | None = None, training: Any = False,
                        trainable: bool = True, name: str | None = None, reuse: Any = None,
                        renorm: bool = False, renorm_clipping: Any = None,
                        renorm_momentum: float = 0.99, fused: bool | None = None,
                        virtual_batch_size: int | None = None, adjustment: Any = None) -> Any:
    """``tf.compat.v1.layers.batch_normalization``: :class:`BatchNormalization` applied to
    ``inputs`` with ``training`` (default False: the moving statistics).

    The moving-average updates go to ``tm.GraphKeys.UPDATE_OPS``; run them with the train
    op (``with tm.control_dependencies(tm.get_collection(tm.GraphKeys.UPDATE_OPS))``).
    """
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _scope=name, _reuse=reuse)
    return layer(inputs, training=training)
