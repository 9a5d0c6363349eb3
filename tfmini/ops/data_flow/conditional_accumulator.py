"""Conditional accumulators: gradient aggregation for synchronous training.

The ``tf.compat.v1`` classes :class:`ConditionalAccumulator` (built from the resource
ops, as TensorFlow 2.21 builds it) and :class:`SparseConditionalAccumulator` (ref ops).

Semantics (tensorflow/core/kernels/conditional_accumulator_base.cc):

* An accumulator holds a dtype, a declared (partial) shape, a reduction (MEAN or SUM), a
  counter of accepted gradients, a global step (starting at 0) and the running sum.
* Apply(local_step, g): a stale gradient (``local_step < global_step``) is dropped silently,
  before any validation; otherwise it is validated, added to the sum and counted.
* Take(n) blocks until the counter reaches ``n``, then returns the sum or the mean (the
  sparse mean divides each row by the number of gradients that touched it), resets the
  counter and the sum and increments the global step. Waiting takes are served first in,
  first out: a waiting head blocks later takes even when they could be served.
* A waiting take ends at the run's deadline (DeadlineExceededError naming the accumulator
  and its counts) or when the session closes or the run is cancelled (CancelledError
  "TakeGrad operation was cancelled"); the accumulator keeps everything it had.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, int64
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.data_flow import accumulator_ops  # noqa: F401  (registers the family's ops)
from tfmini.ops.math import cast

# ----------------------------------------------------------------------------------------
# The tf.compat.v1 classes


SparseAccumulatorTakeGradientOutputs = collections.namedtuple(
    "SparseAccumulatorTakeGradient", ["indices", "values", "shape"]
)


def _local_step(local_step: Any) -> Output:
    # TensorFlow casts: 10.7 becomes 10 (truncation).
    return cast(convert_to_tensor(local_step), int64)


class ConditionalAccumulatorBase:
    """What the dense and sparse accumulators share (``tf.compat.v1.ConditionalAccumulatorBase``).

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the accumulated gradients (None: unknown).
        accumulator_ref: The handle the subclass built.
    """

    _NUM_ACCUMULATED = "ResourceAccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "ResourceAccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: Output):
        self._dtype = as_dtype(dtype)
        self._shape = as_shape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self) -> Output:
        """The accumulator's handle (a resource for the dense class, a ref for the sparse)."""
        return self._accumulator_ref

    @property
    def handle(self) -> Output:
        """The accumulator's handle (the same as :attr:`accumulator_ref`)."""
        return self._accumulator_ref

    @property
    def name(self) -> str:
        """The name of the accumulator's op (the last component)."""
        return self._name

    @property
    def dtype(self) -> DType:
        """The type of the accumulated gradients."""
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        """The declared shape of the accumulated gradients."""
        return self._shape

    def num_accumulated(self, name: str | None = None) -> Output:
        """The number of gradients accumulated since the last take.

        Args:
            name: Op name; default ``<name>_NumAccumulated``.

        Returns:
            An int32 scalar tensor.
        """
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return build_op(current_scope(), self._NUM_ACCUMULATED, [self._accumulator_ref],
                        name=name).outputs[0]

    def set_global_step(self, new_global_step: Any, name: str | None = None):
        """Sets the accumulator's global step; a smaller value only logs a warning.

        Args:
            new_global_step: The new step (a tensor, variable or number; cast to int64).
            name: Optional op name.

        Returns:
            The Operation that sets the step.
        """
        step = cast(convert_to_tensor(new_global_step), int64)
        return build_op(current_scope(), self._SET_GLOBAL_STEP, [self._accumulator_ref, step],
                        name=name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for aggregating dense gradients (``tf.compat.v1``).

    Gradients computed at the accumulator's current step (or later) are added; stale ones
    are dropped. A take waits until enough gradients are in, then returns their mean (or
    sum), resets the accumulator and increments its step. Built from the resource ops, as
    TensorFlow 2.21 builds it.

    Example::

        acc = tm.ConditionalAccumulator(tm.float32, shape=[2])
        apply = acc.apply_grad(tm.placeholder(tm.float32, [2], name="g"), local_step=0)
        avg = acc.take_grad(2)
        # two sess.run(apply, feed_dict=...) from workers, then sess.run(avg) on the chief

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the gradients (None: fixed by each round's first gradient).
        shared_name: If non-empty, accumulators built with this name share state.
        name: Name of the accumulator op.
        reduction_type: ``"MEAN"`` or ``"SUM"``.

    Raises:
        ValueError: ``reduction_type`` is neither (TensorFlow's attr message).
    """

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN"):
        dtype = as_dtype(dtype)
        op = _build_accumulator("ResourceConditionalAccumulator", dtype, shape, shared_name,
                                name, reduction_type)
        super().__init__(dtype, shape, op.outputs[0])

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None):
        """Applies a gradient; dropped silently if ``local_step`` is stale.

        Args:
            grad: The gradient (converted to the accumulator's dtype).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.

        Raises:
            ValueError: the gradient's static shape conflicts with the declared shape.
        """
        grad = convert_to_tensor(grad, self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        step = _local_step(local_step)
        return build_op(current_scope(), "ResourceAccumulatorApplyGradient",
                        [self._accumulator_ref, step, grad], name=name)

    def take_grad(self, num_required: Any, name: str | None = None) -> Output:
        """Waits for ``num_required`` gradients and takes their mean (or sum).

        The take resets the counter and the sum and increments the global step.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            The averaged gradient, with the declared static shape.

        Raises:
            InvalidArgumentError: at run time, if ``num_required`` < 1.
        """
        out = build_op(current_scope(), "ResourceAccumulatorTakeGradient",
                       [self._accumulator_ref, num_required], {"dtype": self._dtype},
                       name=name).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A conditional accumulator for sparse gradients (IndexedSlices), ``tf.compat.v1``.

    Built from the ref ops, as TensorFlow 2.21 builds it. With MEAN each row of the result
    is divided by the number of gradients that touched that row.

    Args:
        dtype: Type of the accumulated gradients.
        shape: Shape of the dense gradient (None: unknown).
        shared_name: If non-empty, accumulators built with this name share state.
        name: Name of the accumulator op.
        reduction_type: ``"MEAN"`` or ``"SUM"``.

    Raises:
        ValueError: ``reduction_type`` is neither (TensorFlow's attr message).
    """

    _NUM_ACCUMULATED = "AccumulatorNumAccumulated"
    _SET_GLOBAL_STEP = "AccumulatorSetGlobalStep"

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "sparse_conditional_accumulator", reduction_type: str = "MEAN"):
        dtype = as_dtype(dtype)
        op = _build_accumulator("SparseConditionalAccumulator", dtype, shape, shared_name,
                                name, reduction_type)
        super().__init__(dtype, shape, op.outputs[0])

    def apply_indexed_slices_grad(self, grad: IndexedSlices, local_step: Any = 0,
                                  name: str | None = None):
        """Applies an IndexedSlices gradient; dropped silently if ``local_step`` is stale.

        Args:
            grad: The gradient (its ``dense_shape`` may be None).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.
        """
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values,
                               grad_shape=grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices: Any, grad_values: Any, grad_shape: Any = None,
                   local_step: Any = 0, name: str | None = None):
        """Applies a sparse gradient given as indices, values and an optional dense shape.

        Args:
            grad_indices: Row indices (a vector; int32 or int64, cast to int64).
            grad_values: The rows, ``[len(indices), ...]``.
            grad_shape: The dense shape, or None when unknown (then not checked).
            local_step: The step the gradient was computed at (cast to int64).
            name: Optional op name.

        Returns:
            The Operation that (conditionally) applies the gradient.
        """
        step = _local_step(local_step)
        indices = cast(convert_to_tensor(grad_indices), int64)
        if grad_shape is None:
            shape = convert_to_tensor(np.zeros(0, np.int64))
        else:
            shape = cast(convert_to_tensor(grad_shape), int64)
        return build_op(
            current_scope(), "SparseAccumulatorApplyGradient",
            [self._accumulator_ref, step, indices, grad_values, shape],
            {"has_known_shape": grad_shape is not None}, name=name,
        )

    def take_grad(self, num_required: Any, name: str | None = None):
        """Waits for ``num_required`` gradients and takes the accumulated rows.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            A namedtuple ``(indices, values, shape)`` of tensors.
        """
        op = build_op(current_scope(), "SparseAccumulatorTakeGradient",
                      [self._accumulator_ref, num_required], {"dtype": self._dtype}, name=name)
        return SparseAccumulatorTakeGradientOutputs(*op.outputs)

    def take_indexed_slices_grad(self, num_required: Any,
                                 name: str | None = None) -> IndexedSlices:
        """Like :meth:`take_grad`, as an IndexedSlices.

        Args:
            num_required: Number of gradients to wait for (int32; must be positive).
            name: Optional op name.

        Returns:
            The taken gradient as ``IndexedSlices(values, indices, dense_shape)``.
        """
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values=values, indices=indices, dense_shape=shape)


def _build_accumulator(op_type: str, dtype: DType, shape: Any, shared_name: str | None,
                       name: str, reduction_type: str):
    attrs = {
        "dtype": dtype,
        "shape": as_shape(shape) if shape is not None else unknown_shape(),
        "shared_name": shared_name or "",
        "reduction_type": reduction_type,
    }
    return build_op(current_scope(), op_type, [], attrs, name=name)


__all__ = [
    "ConditionalAccumulator",
    "ConditionalAccumulatorBase",
    "SparseConditionalAccumulator",
]
