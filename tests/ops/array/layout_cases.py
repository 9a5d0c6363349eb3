"""Cases for the array family's padding, masks, reordering, search, diagonal, scatter and
counting ops, shared by tools/record_goldens_core12.py (run on ``tensorflow.compat.v1``) and
tests/ops/array/test_layout.py (run on ``tfmini``). Never imports TensorFlow itself.

* ``value_cases``: thunks building a tensor or a list of tensors; values and dtypes recorded.
* ``grad_cases``: thunks returning ``(y, xs)``; ``tf.gradients(y, xs)`` recorded.
* ``build_error_cases``: calls TensorFlow rejects while building (ValueError/TypeError).
* ``run_error_cases``: graphs failing at run time (an ``errors.OpError`` subclass).
"""

from __future__ import annotations

import numpy as np

X = (np.arange(12, dtype=np.float64).reshape(3, 4) * 0.7 - 2.0)
X3 = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.3 - 1.0)
W = np.cos(np.arange(60, dtype=np.float64)).reshape(3, 4, 5)  # weights for gradient cases


def _weighted(tf, y):
    # A scalar objective with distinct weights, so each output element's gradient counts;
    # built at run time, as some outputs' shapes are only known then.
    n = tf.cast(tf.range(tf.size(y)), y.dtype)
    w = tf.reshape(tf.cos(n * tf.constant(1.3, y.dtype)), tf.shape(y))
    return tf.reduce_sum(y * w)


def value_cases(tf) -> dict:
    x = lambda: tf.constant(X)  # noqa: E731
    x3 = lambda: tf.constant(X3)  # noqa: E731
    unknown = lambda v: tf.placeholder_with_default(np.asarray(v), None)  # noqa: E731
    return {
        # pad
        "pad_constant": lambda: tf.pad(x(), [[1, 0], [2, 1]]),
        "pad_value": lambda: tf.pad(x3(), [[0, 1], [1, 0], [0, 2]], constant_values=-3.5),
        "pad_reflect": lambda: tf.pad(x(), [[2, 1], [3, 0]], mode="REFLECT"),
        "pad_symmetric": lambda: tf.pad(x3(), [[1, 1], [3, 2], [0, 4]], mode="symmetric"),
        "pad_int_value": lambda: tf.pad([[1, 2], [3, 4]], [[1, 1], [0, 1]], constant_values=9),
        "pad_unknown_paddings": lambda: tf.pad(x(), unknown(np.array([[0, 1], [1, 1]])),
                                               mode="REFLECT"),
        "mirror_pad_grad": lambda: tf.raw_ops.MirrorPadGrad(
            input=tf.constant(np.arange(42.0).reshape(6, 7)), paddings=[[2, 1], [1, 2]],
            mode="REFLECT"),
        "mirror_pad_grad_sym": lambda: tf.raw_ops.MirrorPadGrad(
            input=tf.constant(np.arange(30.0).reshape(5, 6)), paddings=[[1, 2], [3, 0]],
            mode="SYMMETRIC"),
        # where, masks
        "where_1arg": lambda: tf.where(x() > 0.5),
        "where_int": lambda: tf.where(tf.constant([[0, 3, 0], [2, 0, -1]])),
        "where_3d": lambda: tf.where(tf.constant(X3) < 0.2),
        "where_empty": lambda: tf.where(tf.zeros([2, 0], tf.bool)),
        "where_select": lambda: tf.where([True, False, True], x(), -x()),
        "where_v2_broadcast": lambda: tf.where_v2(x() > 0, x(), 0.0),
        "boolean_mask": lambda: tf.boolean_mask(x(), [True, False, True]),
        "boolean_mask_2d": lambda: tf.boolean_mask(x(), x() > 1.0),
        "boolean_mask_axis": lambda: tf.boolean_mask(x3(), [False, True, True, False], axis=2),
        "sequence_mask": lambda: tf.sequence_mask([1, 3, 0, 2]),
        "sequence_mask_maxlen": lambda: tf.sequence_mask([[1, 4], [2, 0]], 5, dtype=tf.float32),
        # reverse, roll
        "reverse": lambda: tf.reverse(x3(), [0, -1]),
        "reverse_none": lambda: tf.reverse(x(), tf.constant([], tf.int32)),
        "reverse_sequence": lambda: tf.reverse_sequence(x3(), [2, 4], seq_axis=2, batch_axis=0),
        "reverse_sequence_dim": lambda: tf.reverse_sequence(
            tf.constant(X), tf.constant([1, 3, 2], tf.int64), seq_dim=1, batch_dim=0),
        "roll": lambda: tf.roll(x3(), [1, -5, 2], [0, 2, 2]),
        "roll_scalar": lambda: tf.roll(x(), 7, 1),
        # searchsorted
        "searchsorted_left": lambda: tf.searchsorted([[0.0, 1.0, 1.0, 3.0], [2.0, 4.0, 6.0, 8.0]],
                                                     [[1.0, -1.0, 9.0], [4.0, 5.0, 8.0]]),
        "searchsorted_right": lambda: tf.searchsorted([1, 2, 2, 2, 5], [2, 0, 5, 6],
                                                      side="right", out_type=tf.int64),
        # diagonals
        "band_part": lambda: tf.linalg.band_part(x3(), 1, 0),
        "band_part_all": lambda: tf.matrix_band_part(x(), -1, 1),
        "diag_part": lambda: tf.linalg.diag_part(x()),
        "diag_part_band": lambda: tf.linalg.diag_part(x3(), k=(-1, 2)),
        "diag_part_band_pad": lambda: tf.linalg.diag_part(x(), k=(-2, 1), padding_value=9.0,
                                                          align="LEFT_RIGHT"),
        "diag_part_k": lambda: tf.linalg.diag_part(x(), k=2),
        "diag": lambda: tf.linalg.diag([1.0, 2.0, 3.0]),
        "diag_batch_k": lambda: tf.linalg.diag(np.arange(6.0).reshape(2, 3), k=1),
        "diag_band": lambda: tf.linalg.diag(np.arange(6.0).reshape(2, 3), k=(-1, 0),
                                            num_cols=4, padding_value=-1.0),
        "diag_rows_cols": lambda: tf.linalg.diag([1, 2], num_rows=3, num_cols=4, k=-1),
        "set_diag": lambda: tf.linalg.set_diag(x(), [10.0, 20.0, 30.0]),
        "set_diag_band": lambda: tf.linalg.set_diag(
            x(), np.arange(9.0).reshape(3, 3), k=(0, 2), align="LEFT_LEFT"),
        "tensor_diag": lambda: tf.linalg.tensor_diag([[1, 2], [3, 4]]),
        "tensor_diag_part": lambda: tf.linalg.tensor_diag_part(
            tf.constant(np.arange(16.0).reshape(2, 2, 2, 2))),
        "matrix_diag_v1": lambda: tf.raw_ops.MatrixDiag(diagonal=tf.constant(X)),
        "matrix_diag_part_v1": lambda: tf.raw_ops.MatrixDiagPart(input=x3()),
        "matrix_set_diag_v1": lambda: tf.raw_ops.MatrixSetDiag(input=x(),
                                                               diagonal=[1.0, 2.0, 3.0]),
        "matrix_diag_v2": lambda: tf.raw_ops.MatrixDiagV2(
            diagonal=np.arange(6.0).reshape(2, 3), k=[-1, 0], num_rows=-1, num_cols=4,
            padding_value=-1.0),
        "matrix_diag_part_v2": lambda: tf.raw_ops.MatrixDiagPartV2(input=x(), k=[-2, 1],
                                                                   padding_value=9.0),
        "matrix_set_diag_v2": lambda: tf.raw_ops.MatrixSetDiagV2(
            input=x(), diagonal=np.arange(9.0).reshape(3, 3), k=[0, 2]),
        "reverse_v1": lambda: tf.raw_ops.Reverse(tensor=x3(), dims=[True, False, True]),
        "snapshot": lambda: tf.raw_ops.Snapshot(input=x()),
        "unique_with_counts_v2": lambda: list(tf.raw_ops.UniqueWithCountsV2(
            x=tf.constant([[1, 2], [3, 4], [1, 2]]), axis=[0])),
        # tensor scatter
        "scatter_update": lambda: tf.tensor_scatter_nd_update(x(), [[2], [0]],
                                                              [[1.0] * 4, [2.0] * 4]),
        "scatter_update_dup": lambda: tf.tensor_scatter_nd_update([1, 2, 3], [[1], [1]], [7, 8]),
        "scatter_add": lambda: tf.tensor_scatter_nd_add(x(), [[1, 1], [2, 3], [1, 1]],
                                                        [1.0, 2.0, 3.0]),
        "scatter_sub": lambda: tf.tensor_scatter_nd_sub(x3(), [[0, 1]], [[1.0, 2.0, 3.0, 4.0]]),
        "scatter_min": lambda: tf.tensor_scatter_nd_min(x(), [[0, 0], [2, 2]], [-5.0, 5.0]),
        "scatter_max": lambda: tf.tensor_scatter_nd_max(x(), [[0, 0], [2, 2]], [-5.0, 5.0]),
        "scatter_nd_non_aliasing_add": lambda: tf.raw_ops.ScatterNdNonAliasingAdd(
            input=tf.constant(X), indices=[[0], [0]], updates=np.ones((2, 4))),
        # counting and sets
        "unique_with_counts": lambda: list(tf.unique_with_counts([4, 1, 4, 2, 1, 4])),
        "unique_with_counts_64": lambda: list(tf.unique_with_counts([2.5, -1.0, 2.5],
                                                                    out_idx=tf.int64)),
        "unique_v2_rows": lambda: list(tf.raw_ops.UniqueV2(
            x=tf.constant([[1, 2], [3, 4], [1, 2]]), axis=[0])),
        "unique_v2_cols": lambda: list(tf.raw_ops.UniqueV2(
            x=tf.constant([[1, 1, 2], [3, 3, 4]]), axis=tf.constant([-1], tf.int64))),
        "unique_v2_flat": lambda: list(tf.raw_ops.UniqueV2(
            x=tf.constant([3.0, 1.0, 3.0]), axis=tf.constant([], tf.int64))),
        "setdiff1d": lambda: list(tf.setdiff1d([5, 1, 5, 2, 7, 3], [5, 3, 9])),
        "bincount": lambda: tf.bincount([1, 1, 3, 0, 7]),
        "bincount_weights": lambda: tf.math.bincount([1, 1, 3], weights=[0.5, 1.5, 2.0],
                                                     minlength=6),
        "bincount_maxlength": lambda: tf.math.bincount([[1, 4], [6, 2]], maxlength=5),
        "bincount_empty": lambda: tf.math.bincount(tf.constant([], tf.int32)),
        "dense_bincount_2d": lambda: tf.raw_ops.DenseBincount(
            input=[[1, 1, 3], [0, 0, 7]], size=4, weights=np.zeros(0, np.float32),
            binary_output=True),
        "histogram": lambda: tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0],
                                                      [0.0, 5.0], nbins=5),
        "histogram_int": lambda: tf.histogram_fixed_width(tf.constant([1, 4, 9, 2, 3]), [0, 10],
                                                          nbins=4, dtype=tf.int64),
        "ensure_shape": lambda: tf.ensure_shape(x(), [None, 4]),
        "histogram_bins": lambda: tf.histogram_fixed_width_bins(
            [[-1.0, 0.0, 1.5], [2.0, 5.0, 15.0]], [0.0, 5.0], nbins=5),
        "manip_roll": lambda: tf.manip.roll(x(), 1, 0),
        "meshgrid_xy": lambda: tf.meshgrid([1, 2, 3], [4, 5]),
        "meshgrid_ij": lambda: tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij"),
        # sort
        "sort": lambda: tf.sort(tf.constant([[3.0, 1.0, 2.0, 1.0], [0.0, 5.0, -1.0, 5.0]])),
        "sort_desc_axis0": lambda: tf.sort(x3(), axis=0, direction="DESCENDING"),
        "argsort_ties": lambda: tf.argsort([2, 1, 2, 0, 1]),
        "argsort_desc_ties": lambda: tf.argsort([[2, 1, 2, 0, 1]], direction="DESCENDING"),
        "argsort_axis1": lambda: tf.argsort(x3(), axis=1),
        "sort_uint8": lambda: [tf.sort(tf.constant([[200, 3, 255, 0, 3]], tf.uint8)),
                               tf.argsort(tf.constant([[200, 3, 255, 0, 3]], tf.uint8))],
        "sort_int32_extremes": lambda: [
            tf.sort(tf.constant([5, -2**31, 2**31 - 1, 0, -1, -2**31], tf.int32)),
            tf.argsort(tf.constant([5, -2**31, 2**31 - 1, 0, -1, -2**31], tf.int32)),
            tf.sort(tf.constant([5, -2**31, 2**31 - 1, 0, -1], tf.int32), direction="DESCENDING")],
        "sort_int64_axis0": lambda: tf.sort(tf.constant([[3, -1], [-7, 4], [3, 0]], tf.int64),
                                            axis=0),
        "argsort_float_ties_stable": lambda: tf.argsort([1.5, -0.5, 1.5, -0.5, 2.0, -np.inf],
                                                        stable=True),
        "sort_unknown_rank_axis0": lambda: tf.sort(unknown(X3), axis=0),
        "argsort_unknown_rank_neg_axis": lambda: tf.argsort(unknown(X3), axis=-2,
                                                            direction="DESCENDING"),
        "sort_empty": lambda: tf.sort(tf.zeros([2, 0])),
        "sort_axis_tensor_const": lambda: tf.sort(x(), axis=tf.constant(0)),
        # space / batch / depth
        "space_to_batch_nd": lambda: tf.space_to_batch_nd(
            tf.constant(np.arange(24.0).reshape(1, 4, 3, 2)), [2, 2], [[0, 0], [1, 0]]),
        "batch_to_space_nd": lambda: tf.batch_to_space_nd(
            tf.constant(np.arange(48.0).reshape(8, 2, 3, 1)), [2, 2], [[1, 0], [0, 2]]),
        "space_to_batch_nd_1d": lambda: tf.space_to_batch_nd(
            tf.constant(np.arange(12).reshape(2, 6)), [3], [[1, 2]]),
        "space_to_batch": lambda: tf.space_to_batch(
            tf.constant(np.arange(16.0).reshape(1, 4, 4, 1)), [[0, 0], [0, 0]], block_size=2),
        "batch_to_space": lambda: tf.batch_to_space(
            tf.constant(np.arange(16.0).reshape(4, 2, 2, 1)), [[0, 1], [1, 0]], block_size=2),
        "space_to_depth": lambda: tf.space_to_depth(
            tf.constant(np.arange(48.0).reshape(1, 4, 6, 2)), 2),
        "depth_to_space": lambda: tf.depth_to_space(
            tf.constant(np.arange(48.0).reshape(2, 1, 3, 8)), 2),
        "required_paddings": lambda: list(tf.required_space_to_batch_paddings(
            [5, 7], [2, 3], base_paddings=[[1, 0], [0, 2]])),
        "required_paddings_tensor": lambda: list(tf.required_space_to_batch_paddings(
            unknown(np.array([4, 5], np.int32)), [3, 2])),
        "broadcast_dynamic_shape": lambda: tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]),
        # partitions and utilities
        "dynamic_partition": lambda: tf.dynamic_partition(x(), [1, 0, 1], 3),
        "dynamic_partition_2d": lambda: tf.dynamic_partition([[1, 2], [3, 4]], [[0, 1], [1, 1]],
                                                             2),
        "dynamic_stitch": lambda: tf.dynamic_stitch([[0, 4], [[1], [3]], [2]],
                                                    [[[1.0, 2.0], [5.0, 6.0]],
                                                     [[[3.0, 4.0]], [[7.0, 8.0]]],
                                                     [[9.0, 9.5]]]),
        "dynamic_stitch_overlap": lambda: tf.dynamic_stitch([[0, 1], [1, 2]], [[1, 2], [3, 4]]),
        "shape_n": lambda: tf.shape_n([x3(), x3()[0], tf.constant(1.0)], out_type=tf.int64),
        "unravel_index": lambda: tf.unravel_index([0, 7, 23], [2, 3, 4]),
        "unravel_index_scalar": lambda: tf.unravel_index(tf.constant(5, tf.int64),
                                                         tf.constant([2, 3], tf.int64)),
        "check_numerics": lambda: tf.debugging.check_numerics(x(), "fine"),
        "bitcast_wider": lambda: tf.bitcast(tf.constant([[1, 0, 0, 0], [0, 1, 0, 0]], tf.uint8),
                                            tf.int32),
        "bitcast_narrower": lambda: tf.bitcast(tf.constant([1.0, -2.0], tf.float32), tf.int16),
        "gather_nd": lambda: tf.gather_nd(x3(), [[1, 2], [0, 0]]),
        "batch_gather": lambda: tf.batch_gather(x3(), [[[2], [0], [1]], [[1], [1], [0]]]),
        "repeat": lambda: tf.repeat(x(), [1, 0, 2], axis=0),
        "repeat_flat": lambda: tf.repeat([[1, 2], [3, 4]], 2),
        "repeat_axis1": lambda: tf.repeat(x(), [2, 1, 0, 1], axis=1),
        "parallel_stack": lambda: tf.parallel_stack([x(), x() * 2.0]),
        "convert_packs": lambda: tf.convert_to_tensor([[tf.constant(1.0), 2.0],
                                                       [3.0, tf.constant(4.0)]]),
    }


def grad_cases(tf) -> dict:
    def case(build, value):
        def thunk():
            x = tf.constant(value)
            return _weighted(tf, build(x)), [x]
        return thunk

    return {
        "pad_v2": case(lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=2.0), X),
        "mirror_pad": case(lambda x: tf.pad(x, [[2, 1], [1, 3]], mode="REFLECT"), X),
        "mirror_pad_sym": case(lambda x: tf.pad(x, [[1, 1], [0, 2], [4, 1]], mode="SYMMETRIC"),
                               X3.astype(np.float64)),
        "boolean_mask": case(lambda x: tf.boolean_mask(x, [[True, False, True, True]] * 3), X),
        "reverse": case(lambda x: tf.reverse(x, [1]), X),
        "reverse_sequence": case(lambda x: tf.reverse_sequence(x, [3, 1, 4], 1), X),
        "roll": case(lambda x: tf.roll(x, [1, 2], [0, 1]), X),
        "band_part": case(lambda x: tf.linalg.band_part(x, 0, 2), X),
        "diag_part": case(lambda x: tf.linalg.diag_part(x, k=(-1, 1)), X),
        "diag": case(lambda x: tf.linalg.diag(x, k=(0, 1), num_cols=5), X[:2, :4]),
        "set_diag": case(lambda x: tf.linalg.set_diag(x, x[:, 0]), X),
        "tensor_diag": case(lambda x: tf.linalg.tensor_diag(x), X[:2, :2]),
        "scatter_update": case(lambda x: tf.tensor_scatter_nd_update(
            x, [[1]], x[:1] * 3.0), X),
        "scatter_add": case(lambda x: tf.tensor_scatter_nd_add(x, [[0, 1], [2, 2]],
                                                               x[0, :2] * 2.0), X),
        "scatter_max": case(lambda x: tf.tensor_scatter_nd_max(x, [[0, 1], [2, 2]],
                                                               x[0, 2:] * 2.0), X),
        "matrix_diag_part_v2": case(lambda x: tf.raw_ops.MatrixDiagPartV2(
            input=x, k=[-1, 1], padding_value=tf.constant(0.0, tf.float64)), X),
        "matrix_set_diag_v1": case(lambda x: tf.raw_ops.MatrixSetDiag(input=x, diagonal=x[:, 1]),
                                   X),
        "reverse_v1": case(lambda x: tf.raw_ops.Reverse(tensor=x, dims=[False, True]), X),
        "prevent_gradient_path": case(lambda x: x * 2.0 + tf.stop_gradient(
            tf.raw_ops.PreventGradient(input=x)), X),
        "sort": case(lambda x: tf.sort(x, direction="DESCENDING"), X[:, ::-1] * X[:, :1]),
        "sort_ascending_axis0": case(lambda x: tf.sort(x, axis=0), X[::-1] * X[:1, :1]),
        "space_to_batch_nd": case(lambda x: tf.space_to_batch_nd(
            tf.reshape(x, [1, 3, 4, 1]), [3, 2], [[0, 0], [1, 1]]), X),
        "batch_to_space_nd": case(lambda x: tf.batch_to_space_nd(
            tf.reshape(x, [4, 3, 1, 1]), [2, 2], [[1, 0], [0, 1]]), X),
        "space_to_depth": case(lambda x: tf.space_to_depth(tf.reshape(x, [1, 2, 6, 1]), 2), X),
        "depth_to_space": case(lambda x: tf.depth_to_space(tf.reshape(x, [1, 1, 3, 4]), 2), X),
        "dynamic_partition": case(lambda x: tf.dynamic_partition(x, [2, 0, 2], 3)[2], X),
        "dynamic_stitch": case(lambda x: tf.dynamic_stitch([[2, 0], [1]], [x[:2], x[2:]]), X),
        "gather_nd": case(lambda x: tf.gather_nd(x, [[1, 2], [0, 0], [1, 2]]), X),
        "repeat": case(lambda x: tf.repeat(x, [2, 0, 1], axis=0), X),
    }


def graph_cases(tf) -> dict:
    """Thunks building into an empty graph; the (name, type) of every op is recorded, for the
    functions whose op structure is TensorFlow's (sort and argsort over TopKV2)."""
    return {
        "sort_axis1_float": lambda: tf.sort(tf.placeholder(tf.float32, [2, 3, 4]), axis=1),
        "argsort_desc_int": lambda: tf.argsort(tf.placeholder(tf.int32, [2, 3]),
                                               direction="DESCENDING"),
        "sort_uint8": lambda: tf.sort(tf.placeholder(tf.uint8, [3]), name="s"),
        "argsort_int_axis0": lambda: tf.argsort(tf.placeholder(tf.int64, [3, 2]), axis=0),
        "sort_unknown_rank": lambda: tf.sort(tf.placeholder(tf.float64), axis=-2),
    }


def build_error_cases(tf) -> dict:
    x = lambda: tf.constant(X)  # noqa: E731
    return {
        "pad_bad_mode": lambda: tf.pad(x(), [[1, 1], [1, 1]], mode="WRAP"),
        "pad_bad_rank": lambda: tf.pad(x(), [[1, 1]]),
        "boolean_mask_scalar": lambda: tf.boolean_mask(x(), True),
        "boolean_mask_shape": lambda: tf.boolean_mask(x(), [True, False]),
        "reverse_dup_axis": lambda: tf.reverse(x(), [1, -1]),
        "reverse_sequence_dim": lambda: tf.reverse_sequence(x(), [1, 2, 3], seq_axis=2),
        "searchsorted_side": lambda: tf.searchsorted([1, 2], [1], side="middle"),
        "diag_part_rank": lambda: tf.linalg.diag_part([1.0, 2.0]),
        "tensor_diag_part_odd": lambda: tf.linalg.tensor_diag_part(tf.zeros([2, 2, 2])),
        "scatter_shape": lambda: tf.tensor_scatter_nd_update(x(), [[0]], [1.0, 2.0]),
        "ensure_shape": lambda: tf.ensure_shape(x(), [3, 5]),
        "sequence_mask_maxlen": lambda: tf.sequence_mask([1, 2], [3, 4]),
        "meshgrid_indexing": lambda: tf.meshgrid([1], [2], indexing="xx"),
        "unique_v2_not_1d": lambda: tf.raw_ops.UniqueV2(x=tf.constant([[1, 2]]),
                                                        axis=tf.constant([], tf.int64)),
        "sort_direction": lambda: tf.sort([1.0, 2.0], direction="UP"),
        "sort_axis_not_constant": lambda: tf.sort([1.0, 2.0],
                                                  axis=tf.placeholder(tf.int32, [])),
        "sort_axis_range": lambda: tf.sort(x(), axis=2),
        "space_to_depth_divisible": lambda: tf.space_to_depth(tf.zeros([1, 3, 4, 1]), 2),
        "batch_to_space_divisible": lambda: tf.batch_to_space_nd(tf.zeros([3, 2, 2, 1]),
                                                                 [2, 2], [[0, 0], [0, 0]]),
        "convert_dtype": lambda: tf.convert_to_tensor([tf.constant(1.0), 2.0], dtype=tf.int32),
    }


def run_error_cases(tf) -> dict:
    unknown = lambda v: tf.placeholder_with_default(np.asarray(v), None)  # noqa: E731
    return {
        "mirror_pad_too_big": lambda: tf.pad(unknown(X), [[0, 0], [4, 0]], mode="REFLECT"),
        "pad_negative": lambda: tf.pad(unknown(X), unknown(np.array([[0, -1], [0, 0]])),
                                       constant_values=1.0),
        "roll_axis": lambda: tf.roll(unknown(X), 1, 3),
        "reverse_axis": lambda: tf.reverse(unknown(X), [2]),
        "reverse_sequence_long": lambda: tf.reverse_sequence(unknown(X), [1, 5, 2], 1),
        "scatter_bad_index": lambda: tf.tensor_scatter_nd_add(unknown(X), [[3]],
                                                              [[1.0] * 4]),
        "band_part_too_many": lambda: tf.linalg.band_part(unknown(X), 5, 0),
        "bincount_negative": lambda: tf.math.bincount(unknown(np.array([1, -1], np.int32))),
        "histogram_range": lambda: tf.histogram_fixed_width([1.0], [2.0, 1.0]),
        "ensure_shape": lambda: tf.ensure_shape(unknown(X), [3, 5]),
        "diag_part_k_range": lambda: tf.linalg.diag_part(unknown(X), k=unknown(
            np.array([1, 0], np.int32))),
        "space_to_batch_indivisible": lambda: tf.space_to_batch_nd(
            unknown(np.zeros((1, 3, 4, 1))), [2, 2], [[0, 0], [0, 0]]),
        "depth_to_space_nchw": lambda: tf.depth_to_space(tf.zeros([1, 8, 2, 2]), 2,
                                                         data_format="NCHW"),
        "broadcast_args": lambda: tf.broadcast_dynamic_shape(unknown(np.array([2, 3])), [4]),
        "check_numerics": lambda: tf.debugging.check_numerics(unknown(np.array([1.0, np.nan])),
                                                              "bad values"),
        "dynamic_partition_range": lambda: tf.dynamic_partition(unknown(X), [0, 3, 1], 2),
        "unravel_index_range": lambda: tf.unravel_index(unknown(np.array([6])), [2, 3]),
        "unique_2d": lambda: tf.unique_with_counts(unknown(X))[0],
    }
