"""Gradients of the sparse ops (sparse_math, sparse_layout), as TensorFlow's
``sparse_grad.py``. SparseConcat, SparseReduceSumSparse and the gradient helpers
(SparseAddGrad, SparseSliceGrad) have none, as in TensorFlow."""

from __future__ import annotations

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops


def _build(op_type: str, inputs: list, attrs: dict | None = None):
    return build_op(current_scope(), op_type, inputs, attrs).outputs


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op, unused_indices_grad, values_grad):
    """The values' gradient taken back through the sorting permutation."""
    del unused_indices_grad
    input_indices, _, input_shape = op.inputs
    num_entries = array_ops.shape(input_indices)[0]
    entries = array_ops.range(0, num_entries)
    (_, order) = _build("SparseReorder", [input_indices, entries, input_shape])
    inverse = _build("InvertPermutation", [order])[0]
    return None, array_ops.gather(values_grad, inverse), None


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op, *grads):
    """Each operand entry gets the gradient of the sum entry at its index."""
    a_grad, b_grad = _build("SparseAddGrad",
                            [grads[1], op.inputs[0], op.inputs[3], op.outputs[0]])
    a_grad.set_shape(op.inputs[1].shape)
    b_grad.set_shape(op.inputs[4].shape)
    return None, a_grad, None, None, b_grad, None, None


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op, out_grad):
    """gather_nd(grad, a_indices) for the values, grad itself for the dense operand."""
    values_grad = _build("GatherNd", [out_grad, op.inputs[0]])[0]
    return None, values_grad, None, out_grad


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, out_grad):
    """Like Sum's gradient: each entry gets the gradient of the group it was summed into."""
    sp_indices, _, sp_shape, axes = op.inputs
    rank = array_ops.size(sp_shape)
    axes = math_ops.floormod(math_ops.cast(axes, "int32") + rank, rank)
    reduced = array_ops.unsorted_segment_sum(array_ops.ones_like(axes), axes, rank)
    kept_dims = math_ops.where_v2(math_ops.greater(reduced, np.int32(0)), np.int64(1), sp_shape)
    grad = array_ops.reshape(out_grad, kept_dims)
    scale = math_ops.floor_div(sp_shape, kept_dims)
    return None, _build("GatherNd", [grad, math_ops.floor_div(sp_indices, scale)])[0], None, None


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    """The sliced entries' gradients back at their places in the input."""
    val_grad = _build("SparseSliceGrad",
                      [grads[1], op.inputs[0], op.inputs[3], op.outputs[0]])[0]
    val_grad.set_shape(op.inputs[1].shape)
    return None, val_grad, None, None, None


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_mat_mul_grad(op, grad):
    """The dense operand's gradient is A^H grad (a sparse product again); each value's is
    the dot product of its row of grad with its row of B (TensorFlow's formulation)."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    b_grad = _build("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, grad],
                    {"adjoint_a": not adj_a, "adjoint_b": False})[0]
    if adj_b:
        b_grad = math_ops.conj(array_ops.transpose(b_grad))
    rows = a_indices[:, 0]
    cols = a_indices[:, 1]
    parts_a = array_ops.gather(grad, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    if not adj_a and not adj_b:
        vg = math_ops.matmul(array_ops.expand_dims(parts_a, -2),
                             array_ops.expand_dims(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:
        vg = math_ops.matmul(array_ops.expand_dims(parts_a, -1),
                             array_ops.expand_dims(parts_b, -1), adjoint_a=True)
    elif not adj_a and adj_b:
        vg = math_ops.matmul(array_ops.expand_dims(parts_a, -2),
                             array_ops.expand_dims(parts_b, -1))
    else:
        vg = math_ops.matmul(array_ops.expand_dims(parts_a, -1),
                             array_ops.expand_dims(parts_b, -2), adjoint_a=True, adjoint_b=True)
    return None, array_ops.squeeze(vg, axis=[-2, -1]), None, b_grad


def _cwise_mul_or_div_grad(op, grad, is_mul: bool):
    """TensorFlow's _SparseDenseCwiseMulOrDivGrad: the dense side's gradient is scattered
    (through SparseAdd onto zeros) at the entries' broadcast positions."""
    x_indices, x_values, x_shape, y = op.inputs
    y_shape = math_ops.cast(array_ops.shape(y), "int64")
    num_added = array_ops.expand_dims(array_ops.size(x_shape) - array_ops.size(y_shape), 0)
    augmented = array_ops.concat([array_ops.ones(num_added, "int64"), y_shape], 0)
    scaling = math_ops.floor_div(x_shape, augmented)
    scaled = math_ops.floor_div(x_indices, scaling)
    scaled = array_ops.slice(scaled, array_ops.concat([np.array([0], np.int32), num_added], 0),
                             np.array([-1, -1], np.int32))
    dense_vals = _build("GatherNd", [y, scaled])[0]
    if is_mul:
        dx = grad * dense_vals
        dy_val = grad * x_values
    else:
        dx = math_ops.realdiv(grad, dense_vals)
        dy_val = grad * math_ops.realdiv(-x_values, math_ops.square(dense_vals))
    dy = _build("SparseTensorDenseAdd", [scaled, dy_val, y_shape, array_ops.zeros_like(y)])[0]
    return None, dx, None, dy


@RegisterGradient("SparseDenseCwiseMul")
def _sparse_dense_cwise_mul_grad(op, grad):
    """grad * dense values for the entries; entries' values * grad scattered for the dense."""
    return _cwise_mul_or_div_grad(op, grad, True)


@RegisterGradient("SparseDenseCwiseDiv")
def _sparse_dense_cwise_div_grad(op, grad):
    """grad / dense values; -grad * x / dense^2 scattered for the dense side."""
    return _cwise_mul_or_div_grad(op, grad, False)


@RegisterGradient("SparseSoftmax")
def _sparse_softmax_grad(op, grad):
    """As SoftmaxGrad over each row's present entries: (grad - sum(grad * y)) * y."""
    indices, _, shape = op.inputs
    y = op.outputs[0]
    product = _build("SparseReduceSum", [indices, y * grad, shape,
                                         np.array([-1], np.int32)], {"keep_dims": True})[0]
    shifted = _build("SparseDenseCwiseAdd", [indices, grad, shape, -product])[0]
    return None, shifted * y, None


def _not_implemented(op_type: str):
    def grad(op, *grads):
        del op, grads
        raise NotImplementedError(f"Gradient for {op_type} is not implemented.")

    grad.__name__ = f"_{op_type.lower()}_grad"
    grad.__doc__ = "TensorFlow's gradient raises NotImplementedError, and so does tfmini's."
    RegisterGradient(op_type)(grad)


_not_implemented("SparseSparseMaximum")
_not_implemented("SparseSparseMinimum")


@RegisterGradient("SparseDenseCwiseAdd")
def _sparse_dense_cwise_add_grad(op, grad):
    """TensorFlow has none: it raises NotImplementedError, and so does tfmini."""
    del op, grad
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is not implemented.")


__all__: list[str] = []
