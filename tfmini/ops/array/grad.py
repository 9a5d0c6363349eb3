"""Gradients of the array family and of the variable reads, as TensorFlow's ``array_grad.py``.

Each function is registered with ``@RegisterGradient("<op type>")`` and called by
``tm.gradients`` as ``fn(op, *output_grads)`` inside the ``gradients/<op name>_grad/`` name
scope; it returns one gradient (an Output, an IndexedSlices or None) per op input. Ops that
TensorFlow does not differentiate (shapes, constants, ``StopGradient``, ``OneHot``...) are
marked with ``no_gradient``.

The gradients are built from the same ops TensorFlow builds, so they also work where shapes
are known only at run time. Where TensorFlow uses an op that the array family lacks, that op
is registered here with TensorFlow's signature, a shape function and a NumPy kernel:

* ``InvertPermutation`` (``Transpose``'s gradient),
* ``ConcatOffset`` (where each input of a ``ConcatV2`` starts in its output),
* ``Pad`` (``Slice``'s gradient; its own gradient slices the padding off again),
* ``StridedSliceGrad`` (``StridedSlice``'s gradient),
* ``GatherNd`` (``ScatterNd``'s gradient; its own gradient is a ``ScatterNd``).

Gradients of gathers along axis 0 (``GatherV2``, ``ResourceGather``) are
:class:`~tfmini.ops.common.indexed_slices.IndexedSlices` with TensorFlow's values, indices and
dense shape; they are summed into a dense tensor only where an op needs one.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.array.slicing import STRIDED_SLICE_MASKS
from tfmini.ops.common.indexed_slices import IndexedSlices
from tfmini.ops.math import unbroadcast


def _dense(grad: Any) -> Any:
    """``grad`` as a dense tensor: an IndexedSlices is summed into place (UnsortedSegmentSum)."""
    if isinstance(grad, IndexedSlices):
        return convert_to_tensor(grad)
    return grad


def _op(op_type: str, inputs: list, attrs: dict | None = None) -> Operation:
    return build_op(current_scope(), op_type, inputs, attrs)


# ----------------------------------------------------------------------------------------
# Ops without a gradient, as TensorFlow marks them (Placeholder and NoOp have no inputs, so
# no gradient can be asked of them; the mark says so explicitly).

for _type in ("Const", "Placeholder", "NoOp", "StopGradient", "Shape", "Size", "Rank",
              "ZerosLike", "OnesLike", "OneHot", "Range", "Unique"):
    no_gradient(_type)


# ----------------------------------------------------------------------------------------
# Identities


@RegisterGradient("Identity")
def _identity_grad(op: Operation, grad: Any) -> Any:
    # An IndexedSlices passes through unchanged, as in TensorFlow.
    return grad


@RegisterGradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op: Operation, grad: Any) -> Any:
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Operation, *grads: Any) -> list:
    return list(grads)


# ----------------------------------------------------------------------------------------
# Reshape, ExpandDims, Squeeze


@RegisterGradient("Reshape")
def _reshape_grad(op: Operation, grad: Any) -> list:
    input_shape = op.inputs[0].shape
    if input_shape.rank is not None and not input_shape.is_fully_defined():
        # One unknown dimension can be a -1 in a constant shape: no Shape op, no data
        # dependency on the input. With a 0 dimension the -1 would be ambiguous.
        dims = list(input_shape.dims)
        undefined = [i for i, d in enumerate(dims) if d is None]
        if len(undefined) == 1 and 0 not in dims:
            dims[undefined[0]] = -1
            return [array_ops.reshape(_dense(grad), dims), None]
    return [array_ops.reshape(_dense(grad), array_ops.shape(op.inputs[0])), None]


def _reshape_to_input(op: Operation, grad: Any) -> Output:
    return array_ops.reshape(_dense(grad), array_ops.shape(op.inputs[0]))


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: Operation, grad: Any) -> list:
    return [_reshape_to_input(op, grad), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op: Operation, grad: Any) -> Output:
    return _reshape_to_input(op, grad)


# ----------------------------------------------------------------------------------------
# InvertPermutation, Transpose




@RegisterGradient("Transpose")
def _transpose_grad(op: Operation, grad: Any) -> list:
    inverse = _op("InvertPermutation", [op.inputs[1]]).outputs[0]
    return [array_ops.transpose(_dense(grad), inverse), None]


# ----------------------------------------------------------------------------------------
# ConcatOffset, ConcatV2




def _input_shapes(inputs: list) -> list[Output]:
    # array_ops.shape is a Const where the static shape is fully known, as in TensorFlow.
    return [array_ops.shape(x) for x in inputs]


@RegisterGradient("ConcatV2")
def _concat_v2_grad(op: Operation, grad: Any) -> list:
    values = list(op.inputs[:-1])
    axis = op.inputs[-1]
    if isinstance(grad, IndexedSlices):
        grads = _concat_indexed_slices_grad(values, axis, grad)
        if grads is not None:
            return grads + [None]
        grad = _dense(grad)
    if axis.dtype != dtypes.int32:
        axis = math_ops.cast(axis, dtypes.int32)  # ConcatOffset takes an int32 axis
    non_neg_axis = math_ops.floormod(axis, array_ops.rank(values[0]))
    sizes = _input_shapes(values)
    if len(sizes) > 16:
        # TensorFlow's choice for many inputs: one SplitV instead of a Slice per input.
        sizes = array_ops.squeeze(array_ops.slice(
            array_ops.stack(sizes, axis=1), array_ops.stack([non_neg_axis, 0]), [1, -1]))
        out_grads = array_ops.split(grad, sizes, non_neg_axis, num=len(values))
    else:
        offsets = _op("ConcatOffset", [non_neg_axis, sizes]).outputs
        out_grads = [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]
    return list(out_grads) + [None]


def _concat_indexed_slices_grad(values: list, axis: Output, grad: IndexedSlices):
    """TensorFlow's IndexedSlices gradients of a concatenation along a static axis > 0.

    Every input gets all the indices and its columns of the values. Along axis 0 TensorFlow
    selects each input's rows with a ``Where`` op, which tfmini lacks: None is returned and
    the caller densifies (the dense values are the same).
    """
    axis_static = static_value(axis)
    if axis_static is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known "
                         "concat_dim")
    axis_static = int(axis_static)
    if axis_static < 0:
        rank = values[0].shape.rank
        if rank is None:
            raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim "
                             "when first value rank is statically-known.")
        axis_static %= rank
    if axis_static == 0:
        return None
    sizes = [array_ops.shape(x) for x in values]
    rank = array_ops.shape(sizes[0])
    mask = array_ops.concat([
        array_ops.zeros([axis_static], dtype=dtypes.int32),
        [1],
        array_ops.zeros(math_ops.subtract(rank, axis_static + 1), dtype=dtypes.int32),
    ], 0)
    begin = array_ops.zeros(rank, dtype=dtypes.int32)
    out = []
    for size in sizes:
        new_values = array_ops.slice(
            grad.values, begin, array_ops.concat([[-1], array_ops.slice(size, [1], [-1])], 0))
        out.append(IndexedSlices(new_values, grad.indices, size))
        begin = math_ops.add(begin, math_ops.multiply(size, mask))
    return out


# ----------------------------------------------------------------------------------------
# Pack, Unpack, Split, SplitV


@RegisterGradient("Pack")
def _pack_grad(op: Operation, grad: Any) -> list:
    return array_ops.unstack(_dense(grad), num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op: Operation, *grads: Any) -> Output:
    return array_ops.stack([_dense(g) for g in grads], axis=op.get_attr("axis"))


@RegisterGradient("Split")
def _split_grad(op: Operation, *grads: Any) -> list:
    return [None, array_ops.concat([_dense(g) for g in grads], op.inputs[0])]


@RegisterGradient("SplitV")
def _split_v_grad(op: Operation, *grads: Any) -> list:
    return [array_ops.concat([_dense(g) for g in grads], op.inputs[2]), None, None]


# ----------------------------------------------------------------------------------------
# Pad, Slice


@RegisterGradient("Pad")
def _pad_grad(op: Operation, grad: Any) -> list:
    # Slice the original block out of the padded gradient.
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(pad_before, [-1])
    sizes = array_ops.shape(x, out_type=begin.dtype)
    return [array_ops.slice(_dense(grad), begin, sizes), None]


@RegisterGradient("Slice")
def _slice_grad(op: Operation, grad: Any) -> list:
    # Pad the gradient with zeros back to the input's shape: begin zeros before each
    # dimension, and what is left after the slice behind it.
    input_vec, begin_vec = op.inputs[0], op.inputs[1]
    input_rank = array_ops.rank(input_vec)
    index_dtype = begin_vec.dtype
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    shape = array_ops.stack([input_rank, 1])
    before_pad = array_ops.reshape(begin_vec, shape)
    after_pad = array_ops.reshape(
        math_ops.subtract(
            math_ops.subtract(array_ops.shape(input_vec, out_type=index_dtype), slice_size),
            begin_vec),
        shape)
    paddings = array_ops.concat([before_pad, after_pad], 1)
    return [_op("Pad", [_dense(grad), paddings]).outputs[0], None, None]


# ----------------------------------------------------------------------------------------
# StridedSliceGrad, StridedSlice

@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: Operation, grad: Any) -> list:
    masks = {m: op.get_attr(m) for m in STRIDED_SLICE_MASKS}
    return [None, None, None, None,
            array_ops.strided_slice(_dense(grad), op.inputs[1], op.inputs[2], op.inputs[3],
                                    **masks)]


def _static_or_tensor(t: Output) -> Any:
    # A constant becomes a fresh Const in the gradient's scope, as TensorFlow's constant_value
    # replacement, so the gradient does not depend on the forward op's inputs needlessly.
    value = static_value(t)
    if value is None:
        return t
    return array_ops.constant(np.asarray(value), dtype=t.dtype)


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op: Operation, grad: Any) -> list:
    begin, end, strides = op.inputs[1], op.inputs[2], op.inputs[3]
    x_shape = _static_or_tensor(array_ops.shape(op.inputs[0], out_type=begin.dtype))
    masks = {m: op.get_attr(m) for m in STRIDED_SLICE_MASKS}
    dx = _op("StridedSliceGrad", [x_shape, _static_or_tensor(begin), _static_or_tensor(end),
                                  _static_or_tensor(strides), _dense(grad)], masks).outputs[0]
    return [dx, None, None, None]


# ----------------------------------------------------------------------------------------
# Tile, Fill, BroadcastTo


@RegisterGradient("Tile")
def _tile_grad(op: Operation, grad: Any) -> list:
    # Interleave multiples and the input shape ([2, 20, 3, 30] for multiples [2, 3] of a
    # [20, 30] input), reshape the gradient to that and sum the tiled (even) axes.
    multiples = op.inputs[1]
    input_shape = array_ops.shape(op.inputs[0], out_type=multiples.dtype)
    split_shape = array_ops.reshape(
        array_ops.transpose(array_ops.stack([multiples, input_shape])), [-1])
    axes = array_ops.range(0, array_ops.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):
        # Rows first: fold the tiled rows of the slices onto the input's rows.
        input_shape_0 = math_ops.cast(input_shape[0], grad.indices.dtype)
        grad = array_ops.unsorted_segment_sum(
            grad.values, math_ops.floormod(grad.indices, input_shape_0), input_shape_0)
        split_shape = array_ops.concat([[1], split_shape[1:]], 0)
    input_grad = math_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


@RegisterGradient("Fill")
def _fill_grad(op: Operation, grad: Any) -> list:
    return [None, math_ops.reduce_sum(_dense(grad))]


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op: Operation, grad: Any) -> list:
    # The axes BroadcastTo added or stretched, summed away (BroadcastGradientArgs when the
    # static shapes do not tell).
    return [unbroadcast(_dense(grad), op.inputs[0]), None]


# ----------------------------------------------------------------------------------------
# GatherV2


def _get_batch_indices(params_shape: Output, indices: Output, batch_dims: int) -> Output:
    """``indices`` plus the offsets of their batch positions in the flattened batch dims."""
    batch_indices = indices
    indices_dtype = indices.dtype
    casted_params_shape = math_ops.cast(params_shape, indices_dtype)
    accum_dim_value = array_ops.ones((), dtype=indices_dtype)
    for dim in builtins.range(batch_dims, 0, -1):
        dim_value = casted_params_shape[dim - 1]
        accum_dim_value = math_ops.multiply(accum_dim_value, casted_params_shape[dim])
        start = array_ops.zeros((), dtype=indices_dtype)
        step = array_ops.ones((), dtype=indices_dtype)
        dim_indices = math_ops.multiply(array_ops.range(start, dim_value, step),
                                        accum_dim_value)
        dim_shape = array_ops.concat([
            array_ops.tile([1], [dim - 1]),
            array_ops.expand_dims(dim_value, 0) if dim_value.dtype == dtypes.int32
            else array_ops.expand_dims(math_ops.cast(dim_value, dtypes.int32), 0),
            array_ops.tile([1], array_ops.expand_dims(
                math_ops.subtract(array_ops.rank(indices), dim), 0)),
        ], 0)
        batch_indices = math_ops.add(batch_indices, array_ops.reshape(dim_indices, dim_shape))
    return batch_indices


def _batch_gather_grad(params_shape: Output, values: Output, indices: Output, batch_dims: int,
                       gather_dim_size: Output) -> Output:
    """The dense gradient of a gather along the first non-batch axis of ``params``."""
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = math_ops.reduce_prod(outer_shape, [0])
        flat_values_shape = array_ops.concat([[-1], inner_shape], 0)
        gather_dim_size = math_ops.multiply(gather_dim_size, batch_size)
        indices = _get_batch_indices(params_shape, indices, batch_dims)
        values = array_ops.reshape(values, flat_values_shape)
    indices = array_ops.reshape(indices, indices_size)
    params_grad = array_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = array_ops.reshape(
            params_grad, array_ops.concat([outer_shape, flat_values_shape], 0))
    return params_grad


@RegisterGradient("GatherV2")
def _gather_v2_grad(op: Operation, grad: Any) -> list:
    params, indices, axis = op.inputs
    params_shape = array_ops.shape(params)
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    axis_static = static_value(axis)
    batch_dims = int(op.get_attr("batch_dims"))
    if batch_dims < 0:
        if indices.shape.rank is None:
            raise ValueError(
                "Currently, it is unsupported to take the gradient of tf.gather when "
                "batch_dims < 0 and the rank of the indices is unknown. Please pass a positive "
                f"batch_dims or use tf.ensure_shape to update the shape of indices when calling "
                f"tf.gather. Got batch_dims={batch_dims} and indices={indices}"
            )
        batch_dims += indices.shape.rank

    if axis_static is not None and int(axis_static) == 0:
        # Rows of params: stays sparse, as TensorFlow's IndexedSlices gradient.
        values_shape = array_ops.concat([indices_size, params_shape[1:]], 0)
        values = array_ops.reshape(_dense(grad), values_shape)
        flat_indices = array_ops.reshape(indices, indices_size)
        return [IndexedSlices(values, flat_indices, params_shape), None, None]

    # Move the gathered axis to the first non-batch position, gather-grad there as a dense
    # UnsortedSegmentSum, and move it back.
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches_indices = array_ops.range(batch_dims)
    batch_axis_indices = array_ops.range(batch_dims, axis_dims)
    inner_axes_indices = array_ops.range(math_ops.add(axis_dims, 1), values_dims)
    values = array_ops.reshape(_dense(grad), values_shape)
    transpose_dims = array_ops.concat(
        [outer_batches_indices, array_ops.expand_dims(axis_dims, 0), batch_axis_indices,
         inner_axes_indices], 0)
    values_transpose = array_ops.transpose(values, transpose_dims)
    params_shape_transpose = array_ops.gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(params_shape_transpose, values_transpose, indices,
                                     batch_dims, params_shape[axis])
    invert_transpose_dims = array_ops.concat(
        [outer_batches_indices, math_ops.add(batch_axis_indices, 1), [batch_dims],
         inner_axes_indices], 0)
    params_grad = array_ops.transpose(params_grad, invert_transpose_dims)
    # Reshaping to params' shape keeps zero-sized dimensions right.
    params_grad = array_ops.reshape(params_grad, array_ops.shape(params))
    return [params_grad, None, None]


# ----------------------------------------------------------------------------------------
# ResourceGather (tfmini/ops/variables/resource_ops.py): TensorFlow's _GatherGrad for resource
# variables.


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op: Operation, grad: Any) -> list:
    handle, indices = op.inputs
    # The variable's shape at run time: the handle's static shape may be unknown.
    params_shape = _op("VariableShape", [handle]).outputs[0]
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(_dense(grad), values_shape)
    flat_indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, flat_indices, params_shape), None]


# ----------------------------------------------------------------------------------------
# GatherNd, ScatterNd, UnsortedSegmentSum


@RegisterGradient("GatherNd")
def _gather_nd_grad(op: Operation, grad: Any) -> list:
    ref, indices = op.inputs
    ref_shape = array_ops.shape(ref, out_type=indices.dtype)
    if indices.shape.rank == 2 and indices.shape.dims[-1] == 1:
        # Whole rows of ref: a sparse gradient, as TensorFlow.
        rows = array_ops.squeeze(indices, axis=[-1])
        return [IndexedSlices(_dense(grad), rows, ref_shape), None]
    ref_grad = _op("ScatterNd", [indices, _dense(grad), ref_shape],
                   {"bad_indices_policy": op.get_attr("bad_indices_policy")}).outputs[0]
    return [ref_grad, None]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op: Operation, grad: Any) -> list:
    indices = op.inputs[0]
    updates_grad = _op("GatherNd", [_dense(grad), indices]).outputs[0]
    return [None, updates_grad, None]


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: Operation, grad: Any) -> list:
    # Each data row gets the gradient of its segment; rows with a negative id were dropped
    # by the forward op, so they get zeros (TensorFlow's _GatherDropNegatives).
    grad = _dense(grad)
    ids = op.inputs[1]
    clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(grad, clipped)
    is_positive = math_ops.greater_equal(ids, 0)
    is_positive_shape = array_ops.shape(is_positive)
    broadcastable_shape = array_ops.concat(
        [is_positive_shape,
         array_ops.ones(array_ops.expand_dims(
             math_ops.subtract(array_ops.rank(gathered), array_ops.rank(is_positive)), 0),
             dtype=is_positive_shape.dtype)], 0)
    is_positive = array_ops.reshape(is_positive, broadcastable_shape)
    is_positive = math_ops.logical_and(is_positive,
                                       array_ops.ones_like(gathered, dtype=dtypes.bool_))
    zero_slice = array_ops.zeros_like(gathered)
    return [math_ops.where(is_positive, gathered, zero_slice), None, None]


__all__: list[str] = []


@RegisterGradient("DynamicStitch")
@RegisterGradient("ParallelDynamicStitch")
def _dynamic_stitch_grad(op: Operation, grad: Any) -> list:
    # TensorFlow's data_flow_grad.py: each data input gets the rows of the gradient at its
    # indices (a later duplicate index won the forward pass, but every copy gets the row).
    n = len(op.inputs) // 2
    if isinstance(grad, IndexedSlices):
        rows = array_ops.shape(op.outputs[0])[0]
        grad = array_ops.unsorted_segment_sum(grad.values, grad.indices, rows)
    return [None] * n + [array_ops.gather(grad, op.inputs[i]) for i in range(n)]


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op: Operation, *grads: Any) -> list:
    data, partitions = op.inputs[0], op.inputs[1]
    num = op.get_attr("num_partitions")
    prefix = array_ops.shape(partitions)
    original = array_ops.reshape(array_ops.range(math_ops.reduce_prod(prefix)), prefix)
    parts = array_ops.dynamic_partition(original, partitions, num)
    grads = [array_ops.zeros_like(o) if g is None else _dense(g)
             for g, o in zip(grads, op.outputs)]
    stitched = array_ops.parallel_dynamic_stitch(parts, grads)
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op: Operation, grad: Any) -> list:
    # TensorFlow's sparse_grad.py: the values get the gradient at their indices, the default
    # value the sum of the rest.
    grad = _dense(grad)
    values_grad = build_op(current_scope(), "GatherNd", [grad, op.inputs[0]]).outputs[0]
    default_grad = math_ops.subtract(math_ops.reduce_sum(grad), math_ops.reduce_sum(values_grad))
    return [None, None, values_grad, default_grad]


def _sparse_segment_grad(op_type: str):
    def grad_fn(op: Operation, grad: Any) -> list:
        # math_grad.py: the *Grad op scatters the segments' gradients back to the rows; with
        # sparse_gradient, *GradV2 gives the rows of the distinct indices, an IndexedSlices.
        data_shape = array_ops.shape(op.inputs[0])
        dim0 = data_shape[0]
        inputs = [_dense(grad), op.inputs[1], op.inputs[2], dim0]
        if op.get_attr("sparse_gradient"):
            values, indices = build_op(current_scope(), op_type + "V2", inputs).outputs
            return [IndexedSlices(values, indices, data_shape), None, None]
        return [build_op(current_scope(), op_type, inputs).outputs[0], None, None]
    return grad_fn


for _kind in ("Sum", "Mean", "SqrtN"):
    RegisterGradient(f"SparseSegment{_kind}")(_sparse_segment_grad(f"SparseSegment{_kind}Grad"))


@RegisterGradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op: Operation, unused_indices, grad_values, unused_empty,
                                 unused_map) -> list:
    d_values, d_default = build_op(current_scope(), "SparseFillEmptyRowsGrad",
                                   [op.outputs[3], _dense(grad_values)]).outputs
    return [None, d_values, None, d_default]
