"""``tm.train.GradientDescentOptimizer``: var -= learning_rate * gradient."""

from __future__ import annotations

from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.math import cast
from tfmini.train.optimizer import Optimizer, ref_of, training_op


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent (``tf.compat.v1.train.GradientDescentOptimizer``).

    Dense gradients use ``ResourceApplyGradientDescent``; a sparse gradient is scattered
    (``ResourceScatterAdd`` of ``-lr * grad``), repeated indices adding up.

    Args:
        learning_rate: A float, a scalar tensor, or a callable returning one.
        use_locking: Hold the variable's lock during the update.
        name: Name of the ops (default ``"GradientDescent"``).
    """

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self) -> None:
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _lr(self, dtype: Any):
        return cast(self._learning_rate_tensor, dtype)

    def _resource_apply_dense(self, grad, var):
        return training_op("ResourceApplyGradientDescent",
                           [var.handle, self._lr(grad.dtype), grad],
                           use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad, var, indices):
        # A scatter-add is right for repeated indices as they are: no summing needed.
        return training_op("ResourceScatterAdd",
                           [var.handle, indices, -grad * self._lr(grad.dtype)])

    def _apply_dense(self, grad, var):
        return training_op("ApplyGradientDescent", [ref_of(var), self._lr(var.dtype), grad],
                           use_locking=self._use_locking)

    def _apply_sparse_duplicate_indices(self, grad, var):
        delta = IndexedSlices(grad.values * self._lr(var.dtype), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)


__all__ = ["GradientDescentOptimizer"]
