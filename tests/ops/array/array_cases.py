"""Array-op cases shared by tools/record_goldens_array.py and tests/ops/array/test_array.py.

Every case is a function of the module under test (``tensorflow.compat.v1`` when
recording, ``tfmini`` when testing): both spell the calls the same way, so one
definition records TensorFlow's answer and replays it on tfmini. This module
never imports TensorFlow itself.

* ``value_cases``: graphs whose fetched values, dtypes and main op's type and name are recorded.
* ``shape_cases``: static shapes after shape inference (partially known inputs).
* ``build_error_cases``: calls TensorFlow rejects while building (ValueError/TypeError).
* ``run_error_cases``: graphs that build but fail at run time (InvalidArgumentError).
"""

from __future__ import annotations

import numpy as np

X = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
M = np.arange(24, dtype=np.float32).reshape(4, 6)
P = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

# StridedSlice specs on X: begin, end, strides, then
# begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask.
STRIDED_SLICE_SPECS = {
    "shrink0": ([1], [2], [1], 0, 0, 0, 0, 1),
    "begin_mask": ([0, 1], [0, 3], [1, 1], 1, 0, 0, 0, 0),
    "reverse0": ([-1], [0], [-1], 0, 1, 0, 0, 0),
    "ellipsis_mid": ([1, 0, 2], [2, 0, 4], [1, 1, 1], 0, 0, 2, 0, 0),
    "ellipsis_newaxis_shrink": ([0, 0, 1], [0, 0, 2], [1, 1, 1], 0, 0, 1, 2, 4),
    "newaxis_front_shrinks": ([0, 1, 0, -1], [0, 2, 0, 0], [1, 1, 1, 1], 4, 4, 0, 1, 10),
    "negative_steps": ([0, 2], [0, 0], [-2, -1], 1, 1, 0, 0, 0),
    "clamped": ([-100, 5], [100, 1], [1, 1], 0, 0, 0, 0, 0),
    "steps": ([0, 0, 0, 1], [0, 0, 0, 0], [1, 1, 3, 2], 15, 15, 0, 0, 0),
    "shrink_negative": ([-1, -2], [0, -1], [1, 1], 0, 0, 0, 0, 3),
    "all_reversed": ([0, 0, 0, 0], [0, 0, 0, 0], [-1, -1, -1, -1], 15, 15, 0, 0, 0),
    "ellipsis_only": ([0], [0], [1], 0, 0, 1, 0, 0),
    "shrink_ignores_begin_mask": ([1], [2], [1], 1, 1, 0, 0, 1),
    "newaxis_both_ends": ([0, 0, 0], [0, 0, 0], [1, 1, 1], 0, 0, 2, 5, 0),
    "ellipsis_and_newaxis_bit": ([0, 1], [0, 2], [1, 1], 0, 0, 1, 1, 0),
    "empty": ([1], [1], [1], 0, 0, 0, 0, 0),
    "empty_backwards": ([3, 1], [1, 0], [1, 1], 0, 0, 0, 0, 0),
    "stride_past_end": ([1, 2], [10, 10], [5, 7], 0, 0, 0, 0, 0),
    "masked_negative_stride_partial": ([0, 2], [0, 0], [1, -1], 0, 2, 0, 0, 0),
}


def _strided(tf, spec):
    b, e, s, bm, em, el, na, sh = spec
    return tf.raw_ops.StridedSlice(
        input=tf.constant(X), begin=b, end=e, strides=s, begin_mask=bm, end_mask=em,
        ellipsis_mask=el, new_axis_mask=na, shrink_axis_mask=sh,
    )


def value_cases(tf) -> dict:
    """name -> thunk building a tensor (or a list of tensors) in a fresh default graph."""
    x = lambda: tf.constant(X)  # noqa: E731
    m = lambda: tf.constant(M)  # noqa: E731
    p = lambda: tf.constant(P)  # noqa: E731
    cases = {f"ss_{k}": (lambda spec=v: _strided(tf, spec)) for k, v in STRIDED_SLICE_SPECS.items()}
    cases.update({
        # Python indexing through _slice_helper.
        "getitem_mixed": lambda: x()[1, ::-1, tf.newaxis, 1:4:2],
        "getitem_ellipsis": lambda: x()[..., -1],
        "getitem_tensor": lambda: x()[tf.constant(1), :, tf.constant(2)],
        "getitem_tensor_slice": lambda: x()[:, tf.constant(1):],
        "getitem_int64_slice": lambda: x()[:, tf.constant(1, tf.int64)::2],
        "getitem_int64_index": lambda: x()[tf.constant(1, tf.int64)],
        "getitem_scalar_newaxis": lambda: tf.constant(7.0)[tf.newaxis, tf.newaxis],
        # Range dtypes and lengths.
        "range_int": lambda: tf.range(5),
        "range_step": lambda: tf.range(2, 9, 3),
        "range_down": lambda: tf.range(10, 1, -3),
        "range_float_step": lambda: tf.range(0, 1, 0.1),
        "range_float_start": lambda: tf.range(0.5, 3),
        "range_dtype": lambda: tf.range(1, 5, dtype=tf.float64),
        "range_int64": lambda: tf.range(np.int64(3)),
        "range_mixed_int64": lambda: tf.range(1, tf.constant(6, tf.int64), 2),
        "range_long_float": lambda: tf.range(-3.0, 30.0, 0.7),
        "range_half": lambda: tf.range(tf.placeholder_with_default(np.float16(0.1), []), 2, 0.3,
                                       dtype=tf.float16),
        "range_empty": lambda: tf.range(5, 5),
        # Split / SplitV.
        "split_even": lambda: tf.split(m(), 3, axis=1),
        "split_neg_axis": lambda: tf.split(m(), 2, axis=-2),
        "splitv_minus_one": lambda: tf.split(m(), [1, -1, 2], axis=1),
        "splitv_axis0": lambda: tf.split(m(), [3, 1], 0),
        "splitv_zero_piece": lambda: tf.split(m(), [0, 6], 1),
        "splitv_single_ignores_size": lambda: tf.split(
            m(), tf.placeholder_with_default(np.array([4], np.int32), None), num=1),
        # Squeeze.
        "squeeze_all": lambda: tf.squeeze(tf.zeros([1, 2, 1, 3, 1])),
        "squeeze_axes": lambda: tf.squeeze(tf.ones([1, 2, 1, 3, 1]), axis=[0, -1]),
        "squeeze_int_axis": lambda: tf.squeeze(tf.ones([1, 2, 1, 3, 1]), 2),
        "squeeze_dims_alias": lambda: tf.squeeze(tf.ones([1, 2, 1]), squeeze_dims=[2]),
        # GatherV2 with batch_dims.
        "gather_axis1": lambda: tf.gather(p(), [[2, 0], [1, 1]], axis=1),
        "gather_batch1_axis1": lambda: tf.gather(p(), [[2, 0], [1, 1]], axis=1, batch_dims=1),
        "gather_batch1_axis2": lambda: tf.gather(p(), [[3, 0, 1], [1, 1, 2]], axis=2,
                                                 batch_dims=1),
        "gather_batch2": lambda: tf.gather(p(), [[[0], [1], [2]], [[3], [2], [1]]], axis=2,
                                           batch_dims=2),
        "gather_batch_negative": lambda: tf.gather(p(), [[1, 0], [2, 2]], axis=-2,
                                                   batch_dims=-1),
        "gather_batch_default_axis": lambda: tf.gather(p(), [[1, 0], [2, 2]], batch_dims=1),
        "gather_axis0_ignores_batch": lambda: tf.gather(p(), [[1, 0]], axis=0, batch_dims=1),
        "gather_scalar_index": lambda: tf.gather(p(), 1, axis=2),
        "gather_int64_axis": lambda: tf.gather(p(), [3, 0], axis=tf.constant(-1, tf.int64)),
        # ScatterNd with duplicates.
        "scatter_dup": lambda: tf.scatter_nd([[0], [2], [0]], [1.0, 2.0, 3.0], [4]),
        "scatter_2d": lambda: tf.scatter_nd([[0, 1], [2, 2], [0, 1]], [5, 6, 7], [3, 3]),
        "scatter_rows": lambda: tf.scatter_nd([[1], [1]], [[1.0, 2.0], [3.0, 4.0]], [3, 2]),
        "scatter_nested": lambda: tf.scatter_nd([[[1], [3]], [[1], [0]]],
                                                [[1.0, 2.0], [4.0, 8.0]], [5]),
        # UnsortedSegmentSum with negative ids (dropped).
        "uss_negative": lambda: tf.unsorted_segment_sum(
            tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2)), [0, -1, 2, 0, -5], 4),
        "uss_2d_ids": lambda: tf.unsorted_segment_sum(
            tf.constant(P[:, :, :2]), [[0, 1, -1], [1, 1, 3]], 4),
        "uss_int": lambda: tf.unsorted_segment_sum([1, 2, 3, 4], [1, 1, -1, 0], 3),
        # OneHot axes, values, dtypes.
        "one_hot_last": lambda: tf.one_hot([[0, 2], [1, -1]], 3),
        "one_hot_axis0": lambda: tf.one_hot([[0, 2], [1, 3]], 3, axis=0),
        "one_hot_axis1": lambda: tf.one_hot([[0, 2], [1, -1]], 3, axis=1),
        "one_hot_values": lambda: tf.one_hot([0, 2, 5], 4, on_value=5, off_value=-1),
        "one_hot_dtype": lambda: tf.one_hot([1, 0], 2, dtype=tf.float64),
        "one_hot_bool": lambda: tf.one_hot([1, 0], 3, on_value=True, off_value=False),
        # TF1 functions whose graph shape TensorFlow decides (Const or op).
        "shape_static": lambda: tf.shape(x()),
        "shape_int64": lambda: tf.shape(x(), out_type=tf.int64),
        "size_static": lambda: tf.size(x()),
        "rank_static": lambda: tf.rank(x()),
        "zeros_small": lambda: tf.zeros([2, 3], tf.int32),
        "zeros_big": lambda: tf.zeros([40, 30]),
        "ones_bool": lambda: tf.ones([2], tf.bool),
        "zeros_like_static": lambda: tf.zeros_like(m()),
        "ones_like_static": lambda: tf.ones_like(m(), dtype=tf.int64),
        "fill": lambda: tf.fill([2, 3], 9),
        "concat_one": lambda: tf.concat([m()], 0),
        "concat_neg": lambda: tf.concat([m(), m()], -1),
        "stack_literals": lambda: tf.stack([[1, 2], [3, 4]]),
        "stack_axis1": lambda: tf.stack([m(), m()], axis=1),
        "unstack_axis": lambda: tf.unstack(p(), axis=-1),
        "transpose_default": lambda: tf.transpose(p()),
        "transpose_perm": lambda: tf.transpose(p(), [1, 0, 2]),
        "expand_dims_neg": lambda: tf.expand_dims(p(), -2),
        "expand_dims_dim_alias": lambda: tf.expand_dims(m(), dim=0),
        "reshape_minus_one": lambda: tf.reshape(p(), [-1, 4]),
        "reshape_empty": lambda: tf.reshape(tf.zeros([0, 3]), [-1, 0]),
        "tile": lambda: tf.tile(m(), [2, 1]),
        "slice": lambda: tf.slice(p(), [1, 0, 1], [-1, 2, -1]),
        "strided_slice_fn": lambda: tf.strided_slice(p(), [0, 1], [2, 3], [1, 2]),
        "broadcast_to": lambda: tf.broadcast_to([1.0, 2.0, 3.0], [2, 2, 3]),
        "zeros_like_string": lambda: tf.zeros_like(tf.placeholder_with_default(
            np.array([b"a", b"b"], dtype=object), [None])),
    })
    return cases


def shape_cases(tf) -> dict:
    """name -> thunk building a tensor whose static shape is recorded."""
    ph = lambda shape, dtype=tf.float32: tf.placeholder(dtype, shape)  # noqa: E731
    i32 = tf.int32
    return {
        "reshape_partial": lambda: tf.reshape(ph([None, 3]), [-1, 2]),
        "reshape_same_unknown": lambda: tf.reshape(ph([None, 3]), [-1, 3]),
        "reshape_shape_slice": lambda: tf.reshape(ph([None, 3]), tf.shape(ph([5, None]))[1:]),
        "reshape_concat_shape": lambda: tf.reshape(
            ph([None, 3]), tf.concat([[-1], tf.shape(ph([5, None]))[1:]], 0)),
        "reshape_packed_known": lambda: tf.reshape(ph([None, 3]), [tf.shape(ph([5]))[0], -1]),
        "reshape_packed_unknown": lambda: tf.reshape(ph([None, 3]),
                                                     [tf.shape(ph([None]))[0], 3]),
        "reshape_infer": lambda: tf.reshape(ph([4, 6]), [3, -1, 2]),
        "reshape_unknown_rank": lambda: tf.reshape(ph(None), [2, -1]),
        "fill_shape_of": lambda: tf.fill(tf.shape(ph([5, None])), 1.0),
        "tile_partial": lambda: tf.tile(ph([2, None]), [2, 3]),
        "tile_zero": lambda: tf.tile(ph([None, None]), [1, 0]),
        "tile_unknown_multiples": lambda: tf.tile(ph([2, None]), ph([2], i32)),
        "slice_minus_one": lambda: tf.slice(ph([None, 4]), [1, 1], [-1, -1]),
        "slice_unknown_begin": lambda: tf.slice(ph([None, 4]), ph([2], i32), [2, -1]),
        "one_hot_axis0": lambda: tf.one_hot(ph([None, 3], i32), 4, axis=0),
        "one_hot_unknown_depth": lambda: tf.one_hot(ph([None, 3], i32), ph([], i32), axis=1),
        "uss_partial": lambda: tf.unsorted_segment_sum(ph([None, 3, 2]), ph([4, None], i32), 7),
        "broadcast_partial": lambda: tf.broadcast_to(ph([None, 1]), [2, 3, 4]),
        "broadcast_packed": lambda: tf.broadcast_to(
            ph([None, 4]), tf.stack([2, tf.shape(ph([None]))[0], 4])),
        "squeeze_unknown": lambda: tf.squeeze(ph([None, 1, 3, None])),
        "squeeze_listed_unknown": lambda: tf.squeeze(ph([None, 1, 3, None]), [0, -1]),
        "concat_merge0": lambda: tf.concat([ph([None, 3]), ph([2, None])], 0),
        "concat_merge1": lambda: tf.concat([ph([None, 3]), ph([2, None])], 1),
        "concat_unknown_axis": lambda: tf.concat([ph([None, 3]), ph(None)], ph([], i32)),
        "stack_merge": lambda: tf.stack([ph([None, 3]), ph([2, None])], 1),
        "stack_unknown": lambda: tf.stack([ph(None), ph(None)]),
        "splitv_partial": lambda: tf.split(ph([None, 4]), [1, -1], axis=1)[1],
        "splitv_unknown_dim": lambda: tf.split(ph([None, 4]), [1, -1], axis=0)[1],
        "split_unknown_axis": lambda: tf.split(ph([6, 4]), 2, axis=ph([], i32))[0],
        "gather_partial": lambda: tf.gather(ph([5, None, 3]), ph([2, None], i32), axis=1),
        "gather_unknown_axis": lambda: tf.gather(ph([5, None, 3]), ph([2, None], i32),
                                                 axis=ph([], i32)),
        "transpose_unknown_input": lambda: tf.transpose(ph(None), [2, 0, 1]),
        "transpose_unknown_perm": lambda: tf.transpose(ph([2, None, 3]), ph([3], i32)),
        "transpose_default": lambda: tf.transpose(ph([2, None, 3])),
        "expand_dims_partial": lambda: tf.expand_dims(ph([2, None, 3]), -1),
        "expand_dims_unknown_dim": lambda: tf.expand_dims(ph([2, 3]), ph([], i32)),
        "range_unknown": lambda: tf.range(ph([], i32)),
        "range_static_float": lambda: tf.range(0, 1, 0.25),
        "scatter_partial": lambda: tf.scatter_nd(ph([None, 2], i32), ph([None]), [4, 5]),
        "ss_shrink_unknown_dim": lambda: tf.raw_ops.StridedSlice(
            input=ph([None, 4]), begin=[1], end=[2], strides=[1], shrink_axis_mask=1),
        "ss_unknown_begin_shrink": lambda: tf.raw_ops.StridedSlice(
            input=ph([None, 4]), begin=ph([1], i32), end=[2], strides=[1], shrink_axis_mask=1),
        "ss_unknown_bounds_masked": lambda: tf.raw_ops.StridedSlice(
            input=ph([None, 4]), begin=ph([2], i32), end=ph([2], i32), strides=[1, 2],
            begin_mask=2, end_mask=2),
        "ss_unknown_strides": lambda: tf.raw_ops.StridedSlice(
            input=ph([3, 4]), begin=[0], end=[1], strides=ph([1], i32)),
        "getitem_partial": lambda: ph([None, 5, 6])[:, 1:-1, ::2],
        "getitem_newaxis_unknown_rank": lambda: ph(None)[..., tf.newaxis],
        "getitem_tensor_index": lambda: ph([4, 5])[ph([], i32)],
        "shape_partial": lambda: tf.shape(ph([None, 3])),
        "size_unknown": lambda: tf.size(ph([None, 3])),
        "ones_like_partial": lambda: tf.ones_like(ph([None, 3])),
        "zeros_like_partial": lambda: tf.zeros_like(ph([None, 3])),
        "zeros_from_tensor": lambda: tf.zeros(tf.shape(ph([2, None]))),
    }


def build_error_cases(tf) -> dict:
    """name -> thunk that TensorFlow rejects while building the graph."""
    z = tf.zeros
    ph = lambda shape, dtype=tf.float32: tf.placeholder(dtype, shape)  # noqa: E731
    return {
        "reshape_count": lambda: tf.reshape(z([2, 3]), [4]),
        "reshape_divisible": lambda: tf.reshape(z([2, 3]), [4, -1]),
        "reshape_scalar_shape": lambda: tf.reshape(z([2, 3]), -1),
        "reshape_bad_dim": lambda: tf.reshape(z([2, 3]), [2, -3]),
        "concat_rank": lambda: tf.concat([z([2, 3]), z([3])], 0),
        "concat_axis": lambda: tf.concat([z([2, 3]), z([2, 3])], 5),
        "concat_dims": lambda: tf.concat([z([2, 3]), z([3, 4])], 0),
        "concat_scalars": lambda: tf.concat([z([]), z([])], 0),
        "stack_dims": lambda: tf.stack([z([2]), z([3])]),
        "stack_rank": lambda: tf.stack([z([2]), z([])]),
        "stack_axis": lambda: tf.stack([z([2]), z([2])], axis=3),
        "pack_axis": lambda: tf.raw_ops.Pack(values=[z([2]), z([2])], axis=3),
        "unpack_num": lambda: tf.raw_ops.Unpack(value=z([2, 3]), num=3, axis=0),
        "unpack_axis": lambda: tf.raw_ops.Unpack(value=z([2, 3]), num=3, axis=4),
        "unstack_unknown": lambda: tf.unstack(ph([None, 3])),
        "split_uneven": lambda: tf.split(z([5, 3]), 2),
        "splitv_sum": lambda: tf.split(z([5, 3]), [2, 2]),
        "splitv_two_minus_one": lambda: tf.split(z([5, 3]), [2, -1, -1]),
        "split_axis": lambda: tf.split(z([5, 3]), 2, axis=3),
        "split_scalar_sizes": lambda: tf.split(z([5, 3]), tf.constant(2)),
        "slice_rank": lambda: tf.slice(z([5, 3]), [1], [5]),
        "slice_bad_size": lambda: tf.slice(z([5, 3]), [1, 1], [-1, -2]),
        "getitem_out_of_range": lambda: z([5, 3])[5],
        "getitem_negative_out_of_range": lambda: z([5, 3])[-6],
        "getitem_too_many": lambda: z([5, 3])[1, 2, 3],
        "getitem_two_ellipses": lambda: z([5, 3])[..., ...],
        "getitem_zero_step": lambda: z([5, 3])[::0],
        "getitem_float": lambda: z([5, 3])[1.0],
        "getitem_vector_tensor": lambda: z([5, 3])[tf.constant([1])],
        "ss_lengths": lambda: tf.strided_slice(z([5, 3]), [1], [2, 3], [1]),
        "ss_shrink_negative_stride": lambda: tf.strided_slice(
            z([5, 3]), [1], [2], [-1], shrink_axis_mask=1),
        "tile_length": lambda: tf.tile(z([5, 3]), [1]),
        "fill_negative": lambda: tf.fill([2, -1], 1.0),
        "fill_value_rank": lambda: tf.fill([2, 1], [1.0]),
        "range_zero_delta": lambda: tf.range(0, 5, 0),
        "range_up": lambda: tf.range(5, 0, 1),
        "range_down": lambda: tf.range(0, 5, -1),
        "range_static_half": lambda: tf.range(0, 2, 0.3, dtype=tf.float16),
        "gather_axis": lambda: tf.gather(z([3]), [1], axis=1),
        "gather_batch_dims": lambda: tf.gather(z([3, 2]), [[1], [1]], axis=1, batch_dims=3),
        "scatter_prefix": lambda: tf.scatter_nd([[1]], [1.0, 2.0], [4]),
        "scatter_suffix": lambda: tf.scatter_nd([[1]], [[1.0, 2.0]], [4, 3]),
        "uss_negative_num": lambda: tf.unsorted_segment_sum([1.0, 2.0], [0, 1], -3),
        "uss_prefix": lambda: tf.unsorted_segment_sum([1.0, 2.0, 3.0, 4.0], [0, 1, -1], 3),
        "one_hot_depth": lambda: tf.one_hot([1, 2], -1),
        "one_hot_axis": lambda: tf.one_hot([1, 2], 3, axis=-2),
        "one_hot_dtypes": lambda: tf.one_hot([1, 2], 3, on_value=1.0, dtype=tf.int32),
        "broadcast_rank": lambda: tf.broadcast_to(z([2, 3]), [4]),
        "broadcast_dims": lambda: tf.broadcast_to(z([2, 3]), [4, 4]),
        "transpose_length": lambda: tf.transpose(z([2, 3]), [0]),
        "transpose_range": lambda: tf.transpose(z([2, 3]), [0, 2]),
        "squeeze_not_one": lambda: tf.squeeze(z([2, 1]), [0]),
        "squeeze_range": lambda: tf.squeeze(z([2, 1]), [3]),
        "expand_dims_range": lambda: tf.expand_dims(z([2, 1]), 3),
        "expand_dims_many": lambda: tf.expand_dims(z([2, 1]), [[1, 2]]),
        "expand_dims_no_axis": lambda: tf.expand_dims(z([2, 1])),
    }


def run_error_cases(tf) -> dict:
    """name -> thunk building a graph whose run fails (shapes hidden behind unknown-rank
    placeholder_with_default so that only the kernel can object)."""

    def u(value):
        arr = np.asarray(value)
        if arr.dtype == np.int64 and not isinstance(value, np.ndarray):
            arr = arr.astype(np.int32)  # Python int lists are int32 tensors, as in TF
        return tf.placeholder_with_default(arr, None)

    z23 = lambda: u(np.zeros([2, 3], np.float32))  # noqa: E731
    return {
        "reshape_count": lambda: tf.reshape(z23(), [4]),
        "reshape_multiple": lambda: tf.reshape(z23(), [4, -1]),
        "reshape_two_unknown": lambda: tf.reshape(z23(), u([-1, -1])),
        "reshape_negative": lambda: tf.reshape(z23(), u([-2, -3])),
        "reshape_zero": lambda: tf.reshape(z23(), [0, -1]),
        "reshape_sizes_rank": lambda: tf.reshape(z23(), u([[2, 3]])),
        "concat_dims": lambda: tf.concat([z23(), u(np.zeros([3, 4], np.float32))], 0),
        "concat_rank": lambda: tf.concat([z23(), u(np.zeros([3], np.float32))], 0),
        "concat_axis": lambda: tf.concat([z23(), z23()], 2),
        "concat_axis_shape": lambda: tf.concat([z23(), z23()], u([0, 1])),
        "concat_scalars": lambda: tf.concat([u(np.float32(1)), u(np.float32(2))], 0),
        "pack_shapes": lambda: tf.stack([u(np.zeros([2])), u(np.zeros([3]))]),
        "pack_axis": lambda: tf.raw_ops.Pack(values=[u(np.zeros([2])), u(np.zeros([2]))],
                                             axis=3),
        "unpack_num": lambda: tf.raw_ops.Unpack(value=z23(), num=3, axis=0),
        "unpack_axis": lambda: tf.raw_ops.Unpack(value=z23(), num=2, axis=4),
        "split_uneven": lambda: tf.split(u(np.zeros([5, 3])), 2),
        "split_axis": lambda: tf.split(u(np.zeros([5, 3])), 5, axis=3),
        "splitv_sum": lambda: tf.split(u(np.zeros([5, 3])), u([2, 4]), num=2),
        "splitv_count": lambda: tf.split(u(np.zeros([5, 3])), u([2, 3]), num=3),
        "splitv_two_minus_one": lambda: tf.split(u(np.zeros([5, 3])), u([-1, -1]), num=2),
        "splitv_negative": lambda: tf.split(u(np.zeros([5, 3])), u([3, -2, 4]), num=3),
        "slice_lengths": lambda: tf.slice(u(np.zeros([5, 3])), [1], [1]),
        "slice_begin": lambda: tf.slice(u(np.zeros([5, 3])), [6, 0], [-1, 1]),
        "slice_size": lambda: tf.slice(u(np.zeros([5, 3])), [1, 1], [5, 1]),
        "getitem_out_of_range": lambda: u(np.zeros([5, 3]))[5],
        "getitem_negative_out_of_range": lambda: u(np.zeros([5, 3]))[-6],
        "getitem_too_many": lambda: u(np.zeros([5, 3]))[1, 2, 3],
        "ss_zero_stride": lambda: tf.strided_slice(u(np.zeros([5, 3])), [1], [2], [0]),
        "ss_lengths": lambda: tf.strided_slice(u(np.zeros([5, 3])), [1], u([2, 3]), [1]),
        "ss_shrink_negative_stride": lambda: tf.strided_slice(
            u(np.zeros([5, 3])), [1], [2], [-1], shrink_axis_mask=1),
        "ss_two_ellipses": lambda: tf.strided_slice(
            u(np.zeros([5, 3])), [1, 1], [2, 2], [1, 1], ellipsis_mask=3),
        "tile_length": lambda: tf.tile(u(np.zeros([5, 3])), u([1])),
        "tile_negative": lambda: tf.tile(u(np.zeros([5, 3])), [1, -1]),
        "fill_negative": lambda: tf.fill(u([2, -1]), 1.0),
        "fill_dims_rank": lambda: tf.fill(u([[2, 1]]), 1.0),
        "fill_value_shape": lambda: tf.fill([2, 1], u([1.0, 2.0])),
        "range_zero_delta": lambda: tf.range(u(np.int32(0)), 5, 0),
        "range_up": lambda: tf.range(u(np.int32(5)), 0, 1),
        "range_down": lambda: tf.range(u(np.int32(0)), 5, -1),
        "range_float": lambda: tf.range(u(np.float32(0.5)), -5.5, 1.0),
        "range_start_shape": lambda: tf.range(u(np.array([1, 2], np.int32)), 5, 1),
        "gather_index": lambda: tf.gather(u(np.zeros([3])), [1, 5]),
        "gather_scalar_index": lambda: tf.gather(u(np.zeros([3])), 5),
        "gather_negative_index": lambda: tf.gather(u(np.zeros([3])), [-1]),
        "gather_2d_index": lambda: tf.gather(u(np.zeros([3, 2])), [[0, 5]], axis=1),
        "gather_batch_index": lambda: tf.gather(
            u(np.zeros([3, 2])), [[0, 1], [1, 7], [0, 0]], axis=1, batch_dims=1),
        "gather_scalar_params": lambda: tf.gather(u(np.float32(1.0)), [0]),
        "gather_axis": lambda: tf.gather(u(np.zeros([2, 3])), [0], axis=u(np.int32(5))),
        "gather_batch_gt_axis": lambda: tf.raw_ops.GatherV2(
            params=u(np.zeros([2, 3])), indices=u(np.zeros([2, 1], np.int32)),
            axis=u(np.int32(0)), batch_dims=1),
        "gather_batch_shape": lambda: tf.raw_ops.GatherV2(
            params=u(np.zeros([2, 3])), indices=u(np.zeros([3, 1], np.int32)), axis=1,
            batch_dims=1),
        "gather_batch_rank": lambda: tf.raw_ops.GatherV2(
            params=u(np.zeros([2, 3])), indices=u(np.zeros([2, 1], np.int32)), axis=1,
            batch_dims=2),
        "gather_batch_range": lambda: tf.raw_ops.GatherV2(
            params=u(np.zeros([2, 3])), indices=u(np.zeros([2, 1], np.int32)), axis=1,
            batch_dims=-3),
        "scatter_index": lambda: tf.scatter_nd(u([[1], [5]]), u([1.0, 2.0]), [4]),
        "scatter_negative_index": lambda: tf.scatter_nd(u([[-1]]), u([1.0]), [4]),
        "scatter_nested_index": lambda: tf.scatter_nd(u([[[1], [5]]]), u(np.ones([1, 2])), [4]),
        "scatter_depth": lambda: tf.scatter_nd(u([[1, 2]]), u(np.ones([1])), [4]),
        "scatter_prefix": lambda: tf.scatter_nd(u([[1]]), u(np.ones([2])), [4]),
        "scatter_suffix": lambda: tf.scatter_nd(u([[1]]), u(np.ones([1, 3])), [4, 2]),
        "scatter_empty": lambda: tf.scatter_nd(u([[1]]), u(np.ones([1])), [0]),
        "scatter_negative_shape": lambda: tf.scatter_nd(u([[1]]), u(np.ones([1])), u([4, -1])),
        "uss_range": lambda: tf.unsorted_segment_sum(
            [1.0, 2.0, 3.0, 4.0], u([0, 5, -1, 1]), 3),
        "uss_range_2d": lambda: tf.unsorted_segment_sum(
            [[1.0, 2.0], [3.0, 4.0]], u([[0, 5], [-1, 1]]), 3),
        "uss_negative_num": lambda: tf.unsorted_segment_sum(
            [1.0, 2.0, 3.0, 4.0], [0, 1, -1, 1], u(np.int32(-3))),
        "uss_prefix": lambda: tf.unsorted_segment_sum(u(np.ones([4])), u([0, 1, 1]), 3),
        "uss_num_shape": lambda: tf.unsorted_segment_sum(
            u(np.ones([4])), [0, 1, 1, 1], u(np.array([3], np.int32))),
        "one_hot_depth": lambda: tf.one_hot([1, 2], u(np.int32(-1))),
        "one_hot_axis": lambda: tf.one_hot(u([1, 2]), 3, axis=3),
        "one_hot_on_shape": lambda: tf.one_hot([1, 2], 3, on_value=u(np.array([3.0]))),
        "broadcast_dims": lambda: tf.broadcast_to(z23(), [4, 4]),
        "broadcast_rank": lambda: tf.broadcast_to(z23(), [3]),
        "broadcast_shape_rank": lambda: tf.broadcast_to(z23(), u([[3]])),
        "broadcast_not_to": lambda: tf.broadcast_to(z23(), [4, 1, 3]),
        "transpose_missing": lambda: tf.transpose(z23(), [0, 0]),
        "transpose_range": lambda: tf.transpose(z23(), u([0, 2])),
        "transpose_length": lambda: tf.transpose(z23(), [0]),
        "transpose_negative": lambda: tf.transpose(z23(), [1, -1]),
        "transpose_perm_rank": lambda: tf.transpose(z23(), u([[1, 0]])),
        "squeeze_range": lambda: tf.squeeze(u(np.zeros([2, 1])), [3]),
        "squeeze_not_one": lambda: tf.squeeze(u(np.zeros([2, 1])), [0]),
        "expand_dims_range": lambda: tf.expand_dims(u(np.zeros([2, 1])), 3),
        "expand_dims_many": lambda: tf.expand_dims(u(np.zeros([2, 1])), u([1, 2])),
    }
