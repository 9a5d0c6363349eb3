"""Cases for the check family (``tm.assert_*``, ``tm.debugging.*``), shared by
tools/record_goldens_control_flow.py (run on ``tensorflow.compat.v1``) and
tests/ops/test_check_ops.py (run on ``tfmini``). Never imports TensorFlow itself.

Each case is a thunk building into an empty graph and returning what the function returned
(an Operation, a tensor, or None). The recorder keeps the outcome: the build-time error
(class and message), or the run-time error of running it, or ``ok`` and the value.
"""

from __future__ import annotations

import numpy as np

I3 = np.array([1, 2, 3], np.int32)
F5 = np.array([0.5, -1.25, 3.0, 2.0, 1e-3], np.float32)


def cases(tf) -> dict:
    def dyn(value, known_shape=True, name="x"):
        # A value only known when the graph runs (and, unless known_shape, its rank too).
        value = np.asarray(value)
        return tf.placeholder_with_default(value, value.shape if known_shape else None,
                                           name=name)

    def same_x():
        x = tf.constant(I3)
        return tf.assert_equal(x, x)

    return {
        # binary comparisons: static values decide at build time
        "equal_static_ok": lambda: tf.assert_equal(I3, [1, 2, 3]),
        "equal_static_fail": lambda: tf.assert_equal(I3, [1, 2, 4]),
        "equal_static_fail_message": lambda: tf.assert_equal(
            tf.constant(F5), tf.constant(F5 + 1), message="floats differ"),
        "equal_same_tensor": same_x,
        "equal_dynamic_ok": lambda: tf.assert_equal(dyn(I3), I3),
        "equal_dynamic_fail": lambda: tf.assert_equal(dyn(I3), [1, 0, 3]),
        "equal_dynamic_fail_message": lambda: tf.assert_equal(
            dyn(F5), tf.constant(F5 * 2, name="y"), message="custom msg", summarize=2),
        "equal_dynamic_summarize_all": lambda: tf.assert_equal(
            dyn(np.arange(8)), np.arange(8)[::-1].copy(), summarize=-1),
        "equal_dynamic_custom_data": lambda: tf.assert_equal(
            dyn(I3), 0, data=["my data", dyn(I3, name="d")]),
        "equal_broadcast_ok": lambda: tf.assert_equal(dyn([[2, 2], [2, 2]]), 2),
        "none_equal_static_fail": lambda: tf.assert_none_equal(I3, [3, 2, 1]),
        "none_equal_dynamic_fail": lambda: tf.assert_none_equal(dyn(I3), [3, 2, 1]),
        "none_equal_dynamic_ok": lambda: tf.assert_none_equal(dyn(I3), [0, 0, 0]),
        "less_static_ok": lambda: tf.assert_less([1.0, 2.0], 3.0),
        "less_static_fail": lambda: tf.assert_less(I3, 3),
        "less_dynamic_fail": lambda: tf.assert_less(dyn(F5), 2.5),
        "less_equal_static_fail": lambda: tf.assert_less_equal(I3, 2, name="le"),
        "less_equal_dynamic_ok": lambda: tf.assert_less_equal(dyn(I3), 3),
        "greater_static_fail": lambda: tf.assert_greater(I3, [0, 2, 0]),
        "greater_dynamic_fail": lambda: tf.assert_greater(dyn(F5), 0.0, message="positive"),
        "greater_equal_static_ok": lambda: tf.assert_greater_equal(I3, 1),
        "greater_equal_dynamic_fail": lambda: tf.assert_greater_equal(dyn(I3), [1, 3, 3]),
        "less_dtype_mismatch": lambda: tf.assert_less(tf.constant(I3), tf.constant(F5[:3])),
        # unary sign checks
        "positive_static_fail": lambda: tf.assert_positive([1, 0, 2]),
        "positive_dynamic_fail": lambda: tf.assert_positive(dyn(F5), message="need > 0"),
        "positive_dynamic_ok": lambda: tf.assert_positive(dyn(I3)),
        "negative_static_fail": lambda: tf.assert_negative([-1.5, 0.0]),
        "negative_dynamic_fail": lambda: tf.assert_negative(dyn(F5)),
        "non_negative_static_ok": lambda: tf.assert_non_negative(I3),
        "non_negative_dynamic_fail": lambda: tf.assert_non_negative(dyn(F5), summarize=5),
        "non_positive_static_fail": lambda: tf.assert_non_positive([0, 1]),
        "non_positive_dynamic_fail": lambda: tf.assert_non_positive(dyn(I3), message="m"),
        # assert_near: always a run-time check
        "near_ok": lambda: tf.assert_near(dyn(F5), F5 + 1e-7),
        "near_fail": lambda: tf.assert_near(dyn(F5), F5 + 1e-3),
        "near_tolerances": lambda: tf.assert_near(dyn(F5.astype(np.float64)), F5 + 0.05,
                                                  rtol=0.01, atol=0.06, message="close"),
        "near_tolerances_fail": lambda: tf.assert_near(dyn(F5.astype(np.float64)), F5 + 0.05,
                                                       rtol=0.0, atol=0.01),
        # ranks
        "rank_static_ok": lambda: tf.assert_rank(tf.zeros([2, 3]), 2),
        "rank_static_fail": lambda: tf.assert_rank(tf.zeros([2, 3]), 1, message="need 1-D"),
        "rank_dynamic_fail": lambda: tf.assert_rank(dyn(np.zeros((2, 3)), known_shape=False), 3),
        "rank_dynamic_ok": lambda: tf.assert_rank(dyn(np.zeros((2, 3)), known_shape=False), 2),
        "rank_tensor_dynamic_fail": lambda: tf.assert_rank(
            dyn(np.zeros((2, 3)), known_shape=False), dyn(np.int32(3), name="r")),
        "rank_tensor_dynamic_ok": lambda: tf.assert_rank(
            dyn(np.zeros((2, 3)), known_shape=False), dyn(np.int32(2), name="r")),
        "rank_not_scalar": lambda: tf.assert_rank(tf.zeros([2]), [1]),
        "rank_wrong_dtype": lambda: tf.assert_rank(tf.zeros([2]), np.int64(1)),
        "rank_at_least_static_ok": lambda: tf.assert_rank_at_least(tf.zeros([2, 3]), 1),
        "rank_at_least_static_fail": lambda: tf.assert_rank_at_least(tf.zeros([2]), 2),
        "rank_at_least_dynamic_fail": lambda: tf.assert_rank_at_least(
            dyn(np.zeros(4), known_shape=False), 2, message="at least"),
        "rank_in_static_ok": lambda: tf.assert_rank_in(tf.zeros([2]), [0, 1]),
        "rank_in_static_fail": lambda: tf.assert_rank_in(tf.zeros([2, 2]), (0, 1, 3)),
        "rank_in_dynamic_fail": lambda: tf.assert_rank_in(dyn(np.zeros((1, 1)), known_shape=False),
                                                          [0, 1]),
        "rank_in_dynamic_ok": lambda: tf.assert_rank_in(dyn(np.zeros((1, 1)), known_shape=False),
                                                        [1, 2]),
        # dtype and shape checks decided while building
        "integer_ok": lambda: tf.assert_integer(tf.constant(I3)),
        "integer_fail": lambda: tf.assert_integer(tf.constant(F5), message="ints only"),
        "type_ok": lambda: tf.assert_type(tf.constant(F5), tf.float32),
        "type_fail": lambda: tf.assert_type(tf.constant(I3), tf.float32),
        "type_fail_message": lambda: tf.assert_type(tf.constant(I3), "int64", message="t"),
        "scalar_ok": lambda: tf.assert_scalar(tf.constant(1.0)),
        "scalar_fail": lambda: tf.assert_scalar(tf.constant(I3)),
        "scalar_fail_message": lambda: tf.assert_scalar(dyn(I3, known_shape=False), message="s"),
        # monotonic predicates
        "is_non_decreasing": lambda: [tf.is_non_decreasing([1, 1, 2]),
                                      tf.is_non_decreasing([[1.0, 2.0], [0.5, 3.0]]),
                                      tf.is_non_decreasing(tf.zeros([0])),
                                      tf.is_non_decreasing([7])],
        "is_strictly_increasing": lambda: [tf.is_strictly_increasing([1, 1, 2]),
                                           tf.is_strictly_increasing(dyn(F5[::-1].copy())),
                                           tf.is_strictly_increasing([-3, 0, 5]),
                                           tf.is_strictly_increasing(tf.zeros([0]))],
        "debugging_namespace": lambda: [tf.debugging.is_non_decreasing(dyn(np.sort(F5))),
                                        tf.debugging.assert_equal(1, 1)],
        "is_non_decreasing_string": lambda: tf.is_non_decreasing(["a", "b"]),
    }


def proper_iterable_cases(tf) -> dict:
    """``assert_proper_iterable`` never builds anything: a TypeError or nothing."""
    return {
        "list": lambda: tf.assert_proper_iterable([1, 2]),
        "tuple_of_tensors": lambda: tf.assert_proper_iterable((tf.constant(1),)),
        "tensor": lambda: tf.assert_proper_iterable(tf.constant([1, 2])),
        "ndarray": lambda: tf.assert_proper_iterable(np.zeros(2)),
        "string": lambda: tf.assert_proper_iterable("abc"),
        "bytes": lambda: tf.assert_proper_iterable(b"abc"),
        "int": lambda: tf.assert_proper_iterable(3),
    }
