"""Cases for the math family's special functions, bitwise ops, scans, segment reductions,
einsum and linear algebra, shared by tools/record_goldens_core12.py (on
``tensorflow.compat.v1``) and tests/ops/math/test_breadth.py (on ``tfmini``), in the layout of
tests/ops/array/layout_cases.py. Never imports TensorFlow itself.
"""

from __future__ import annotations

import numpy as np

U = np.linspace(-0.95, 0.95, 12).reshape(3, 4)              # inside (-1, 1)
P = np.linspace(0.15, 5.5, 12).reshape(3, 4)                # positive
R = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, -0.2, 3.7], [-3.7, 0.0, 1e-3, -1e-3]])
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
A = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.5, 4.0]])
B = np.array([[1.0, 2.0], [-1.0, 0.5], [3.0, -2.0]])
TALL = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [2.0, 1.0]])
DATA = np.linspace(-2.0, 3.0, 10).reshape(5, 2)
SPECIAL = np.array([-3.5, -0.5, 0.25, 1.0, 2.5, 7.0, 30.0])
# Incomplete gamma/beta: shapes a (rows) against points x (columns), across the series and
# continued-fraction regions (x <= a or x <= 1, and x > a, x > 1), plus the domain's edges.
GA = np.array([[0.05], [0.5], [1.0], [3.0], [12.5], [80.0]])
GX = np.array([0.0, 1e-4, 0.3, 1.0, 2.5, 9.0, 15.0, 70.0, 100.0])
EDGE_A = np.array([0.0, -1.0, 1.0, 2.0, 0.5, np.nan, 1.0, np.inf, 3.0, 1e-3])
EDGE_X = np.array([1.0, 1.0, 0.0, -1.0, np.inf, 1.0, np.nan, 2.0, 1e-300, 0.5])
BA = np.array([0.2, 0.5, 1.0, 2.0, 7.5, 40.0, 1.0, 3.0])
BB = np.array([0.3, 0.5, 3.0, 2.0, 1.5, 55.0, 1.0, 0.7])
BX = np.array([0.01, 0.5, 0.25, 0.7, 0.95, 0.42, 0.5, 0.999])


def _weighted(tf, y):
    # A scalar objective with distinct weights (see tests/ops/array/layout_cases.py).
    n = tf.cast(tf.range(tf.size(y)), y.dtype)
    w = tf.reshape(tf.cos(n * tf.constant(1.3, y.dtype)), tf.shape(y))
    return tf.reduce_sum(y * w)


def value_cases(tf) -> dict:
    u, p, r = (lambda v=v: tf.constant(v) for v in (U, P, R))
    ints = lambda: tf.constant([[5, -3, 12], [0, 7, -128]], tf.int32)  # noqa: E731
    cases = {
        f"{fn}": (lambda fn=fn, src=src: getattr(tf.math, fn)(src()))
        for fn, src in [("erf", r), ("erfc", r), ("lgamma", r), ("digamma", r), ("floor", r),
                        ("ceil", r), ("round", r), ("rint", r), ("reciprocal", p),
                        ("expm1", u), ("tan", u), ("asin", u), ("acos", u), ("atan", r),
                        ("sinh", r), ("cosh", r), ("asinh", r), ("atanh", u),
                        ("is_finite", r), ("log_sigmoid", r)]
    }
    cases.update({
        "lgamma_special": lambda: tf.math.lgamma(SPECIAL),
        "digamma_special": lambda: tf.math.digamma(SPECIAL),
        "erfinv": lambda: tf.math.erfinv([-1.0, -0.999, -0.5, 0.0, 0.3, 0.99999, 1.0, 1.5]),
        "erfinv_f32": lambda: tf.math.erfinv(U.astype(np.float32)),
        "ndtri": lambda: tf.math.ndtri(np.array([0.0, 1e-300, 1e-20, 1e-5, 0.02, 0.5, 0.9,
                                                 1 - 1e-12, 1.0, -0.1])),
        "ndtri_f32": lambda: tf.math.ndtri(np.linspace(0.01, 0.99, 7).astype(np.float32)),
        "erf_f32": lambda: tf.math.erf(R.astype(np.float32)),
        "acosh": lambda: tf.math.acosh(P + 1.0),
        "round_half": lambda: tf.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.4]),
        "round_int": lambda: tf.round(tf.constant([1, 2])),
        "is_nan_inf": lambda: [tf.math.is_nan([1.0, np.nan, np.inf]),
                               tf.math.is_inf([1.0, np.nan, -np.inf])],
        "atan2": lambda: tf.atan2(r(), p()),
        "squared_difference": lambda: tf.squared_difference(r(), [1.0, -1.0, 0.5, 2.0]),
        "squared_difference_int": lambda: tf.squared_difference([3, -4], 2),
        "xlogy": lambda: tf.math.xlogy([0.0, 1.0, 2.0, 0.0], [0.0, 2.0, 0.5, 3.0]),
        "xlog1py": lambda: tf.math.xlog1py([0.0, 1.0, 2.0], [-1.0, 2.0, 0.5]),
        "xdivy": lambda: tf.math.xdivy([0.0, 1.0, 2.0], [0.0, 2.0, 0.5]),
        "divide_no_nan": lambda: tf.math.divide_no_nan([1.0, 2.0, -3.0], [0.0, 4.0, 2.0]),
        "truncatediv_int": lambda: tf.truncatediv([7, -7, 7, -7, 0], [2, 2, -2, -2, 3]),
        "truncatediv_float": lambda: tf.truncatediv(r(), 0.7),
        "truncatemod_int": lambda: tf.truncatemod([7, -7, 7, -7], [3, 3, -3, -3]),
        "truncatemod_float": lambda: tf.truncatemod(r(), 1.25),
        "igamma": lambda: tf.math.igamma(GA, GX),
        "igammac": lambda: tf.math.igammac(GA, GX),
        "igamma_float32": lambda: [tf.math.igamma(GA.astype(np.float32), GX.astype(np.float32)),
                                   tf.math.igammac(GA.astype(np.float32),
                                                   GX.astype(np.float32))],
        "igamma_edges": lambda: [tf.math.igamma(EDGE_A, EDGE_X), tf.math.igammac(EDGE_A, EDGE_X),
                                 tf.raw_ops.IgammaGradA(a=EDGE_A, x=EDGE_X)],
        "igamma_grad_a": lambda: tf.raw_ops.IgammaGradA(a=GA * np.ones((1, 9)), x=GX * np.ones(
            (6, 1))),
        "betainc": lambda: tf.math.betainc(BA, BB, BX),
        "betainc_scalars": lambda: [tf.math.betainc(2.0, BB, 0.5),
                                    tf.math.betainc(np.float32(0.5), np.float32(1.5), BX.astype(
                                        np.float32))],
        "betainc_edges": lambda: tf.math.betainc([0.0, 1.0, 2.0, -1.0, 0.5, 1.0, 2.0, np.nan],
                                                 [1.0, 0.0, 2.0, 1.0, 0.5, 1.0, 3.0, 1.0],
                                                 [0.5, 0.5, 0.0, 0.5, 1.0, 1.5, -0.1, 0.5]),
        "polygamma": lambda: tf.math.polygamma([[1.0], [2.0], [3.0]], P),
        "zeta": lambda: tf.math.zeta([[2.0], [3.5], [1.5]], P),
        "bitwise_and": lambda: tf.bitwise.bitwise_and(ints(), 6),
        "bitwise_or": lambda: tf.bitwise.bitwise_or(ints(), 6),
        "bitwise_xor": lambda: tf.bitwise.bitwise_xor(ints(), -1),
        "invert": lambda: tf.bitwise.invert(tf.constant([0, 5, 255], tf.uint8)),
        "left_shift": lambda: tf.bitwise.left_shift(tf.constant([1, -3, 7], tf.int8),
                                                    tf.constant([2, 1, 9], tf.int8)),
        "right_shift": lambda: tf.bitwise.right_shift(ints(), 2),
        "popcount": lambda: tf.raw_ops.PopulationCount(x=tf.constant([0, 7, -1], tf.int16)),
        # reductions
        "reduce_all": lambda: tf.reduce_all(r() > -3.0, axis=1),
        "reduce_any": lambda: tf.reduce_any(r() > 3.0, axis=[0], keepdims=True),
        "reduce_all_none": lambda: tf.reduce_all([[True, True], [True, False]]),
        "reduce_any_empty": lambda: tf.reduce_any(tf.zeros([0, 2], tf.bool), axis=0),
        "count_nonzero": lambda: tf.count_nonzero(tf.constant([[0, 1, 2], [0, 0, 3]]), axis=1),
        "count_nonzero_all": lambda: tf.math.count_nonzero(r()),
        "count_nonzero_dtype": lambda: tf.count_nonzero([True, False, True], dtype=tf.int32),
        "reduce_logsumexp": lambda: tf.reduce_logsumexp(r(), axis=1),
        "reduce_logsumexp_inf": lambda: tf.reduce_logsumexp([[-np.inf, -np.inf], [1.0, 2.0]],
                                                            axis=1, keepdims=True),
        "reduce_euclidean_norm": lambda: tf.math.reduce_euclidean_norm(r(), axis=0),
        "reduce_euclidean_norm_int": lambda: tf.math.reduce_euclidean_norm([[3, 4], [5, 12]]),
        "reduce_variance": lambda: tf.math.reduce_variance(r(), axis=1),
        "reduce_std": lambda: tf.math.reduce_std(r()),
        "accumulate_n": lambda: tf.math.accumulate_n([r(), p(), u()]),
        "polyval": lambda: tf.math.polyval([1.0, -2.0, 0.5], R.astype(np.float32)),
        "is_non_decreasing": lambda: [tf.math.is_non_decreasing([1, 1, 2]),
                                      tf.math.is_strictly_increasing([1, 1, 2])],
        # scans
        "cumsum": lambda: tf.cumsum(r(), axis=1),
        "cumsum_excl_rev": lambda: tf.cumsum(r(), axis=0, exclusive=True, reverse=True),
        "cumsum_int": lambda: tf.cumsum([[1, 2, 3], [4, 5, 6]], axis=-1, exclusive=True),
        "cumprod": lambda: tf.cumprod(p(), axis=1, reverse=True),
        "cumprod_excl": lambda: tf.math.cumprod(r(), exclusive=True),
        "cumulative_logsumexp": lambda: tf.math.cumulative_logsumexp(r(), axis=1),
        "cumulative_logsumexp_excl": lambda: tf.math.cumulative_logsumexp(
            r(), axis=0, exclusive=True, reverse=True),
        # segments
        "segment_sum": lambda: tf.math.segment_sum(DATA, [0, 0, 1, 3, 3]),
        "segment_mean": lambda: tf.math.segment_mean(DATA, [0, 0, 1, 3, 3]),
        "segment_mean_int": lambda: tf.math.segment_mean([1, 2, 4, 7], [0, 0, 0, 1]),
        "segment_max": lambda: tf.math.segment_max(DATA, [0, 1, 1, 1, 3]),
        "segment_min": lambda: tf.math.segment_min(DATA, [1, 1, 1, 2, 2]),
        "segment_prod": lambda: tf.math.segment_prod(DATA, [0, 0, 1, 1, 3]),
        "unsorted_segment_max": lambda: tf.math.unsorted_segment_max(DATA, [2, -1, 0, 2, 0], 4),
        "unsorted_segment_min": lambda: tf.math.unsorted_segment_min(DATA, [1, 1, 0, -1, 0], 3),
        "unsorted_segment_max_int": lambda: tf.math.unsorted_segment_max([1, 5, 3], [0, 0, 2],
                                                                         3),
        "unsorted_segment_prod": lambda: tf.math.unsorted_segment_prod(DATA, [1, 0, 0, 1, -1],
                                                                       3),
        "unsorted_segment_mean": lambda: tf.math.unsorted_segment_mean(DATA, [1, 0, 0, 1, 1],
                                                                       3),
        "unsorted_segment_sqrt_n": lambda: tf.math.unsorted_segment_sqrt_n(
            DATA, [1, 0, 0, 1, 1], 3),
        # einsum, tensordot
        "einsum_matmul": lambda: tf.einsum("ij,jk->ik", A, B),
        "einsum_implicit": lambda: tf.einsum("ij,jk", A, B),
        "einsum_trace": lambda: tf.einsum("ii->", A),
        "einsum_batch": lambda: tf.einsum("bij,bjk->bik", np.stack([A, A.T]),
                                          np.stack([B, 2 * B])),
        "einsum_ellipsis": lambda: tf.einsum("...ij,j->...i", np.stack([A, A.T]), B[:, 0]),
        "einsum_outer": lambda: tf.einsum("i,j->ij", tf.constant([1.0, 2.0]),
                                          tf.constant([3.0, 4.0, 5.0])),
        "einsum_transpose": lambda: tf.einsum("ij->ji", B),
        "tensordot_int_axes": lambda: tf.tensordot(A, B, 1),
        "tensordot_pairs": lambda: tf.tensordot(np.arange(24.0).reshape(2, 3, 4),
                                                np.arange(12.0).reshape(4, 3), [[1, 2], [1, 0]]),
        "tensordot_zero": lambda: tf.tensordot([1.0, 2.0], [3.0, 4.0, 5.0], 0),
        # linalg
        "inv": lambda: tf.linalg.inv(A),
        "inv_adjoint_batch": lambda: tf.matrix_inverse(np.stack([A, SPD]), adjoint=True),
        "det": lambda: tf.linalg.det(np.stack([A, SPD])),
        "det_f32": lambda: tf.matrix_determinant(A.astype(np.float32)),
        "slogdet": lambda: list(tf.linalg.slogdet(np.stack([A, -SPD]))),
        "cholesky": lambda: tf.linalg.cholesky(SPD),
        "cholesky_lower_only": lambda: tf.cholesky(np.tril(SPD) + np.triu(np.ones((3, 3)), 1)),
        "solve": lambda: tf.linalg.solve(A, B),
        "solve_adjoint": lambda: tf.matrix_solve(A, B, adjoint=True),
        "triangular_solve": lambda: tf.linalg.triangular_solve(np.tril(A) + 3 * np.eye(3), B),
        "triangular_solve_upper_adj": lambda: tf.matrix_triangular_solve(
            A + 3 * np.eye(3), B, lower=False, adjoint=True),
        "triangular_solve_broadcast": lambda: tf.linalg.triangular_solve(
            np.stack([SPD, 2 * SPD]), B),
        "lstsq_tall": lambda: tf.linalg.lstsq(TALL, B[:2].T.repeat(2, 0)[:4]),
        "lstsq_l2": lambda: tf.linalg.lstsq(TALL, np.ones((4, 1)), l2_regularizer=0.5),
        "lstsq_wide": lambda: tf.linalg.lstsq(TALL.T, np.ones((2, 1))),
        "svd_values": lambda: tf.linalg.svd(TALL, compute_uv=False),
        "svd_values_batch": lambda: tf.svd(np.stack([A, SPD]), compute_uv=False),
        "eigvalsh": lambda: tf.linalg.eigvalsh(SPD),
        "trace": lambda: tf.linalg.trace(np.stack([A, SPD])),
        "eye": lambda: tf.eye(3, 4),
        "eye_batch": lambda: tf.eye(2, batch_shape=[3], dtype=tf.int32),
        "matrix_transpose": lambda: tf.linalg.matrix_transpose(np.zeros((2, 3, 4)) + A[0, 0]),
        "norm_euclidean": lambda: tf.norm(R),
        "norm_axis": lambda: tf.norm(R, ord=1, axis=1),
        "norm_inf": lambda: tf.norm(R, ord=np.inf, axis=0, keepdims=True),
        "norm_p": lambda: tf.norm(R, ord=3, axis=1),
        "norm_fro": lambda: tf.norm(np.stack([A, SPD]), ord="fro", axis=[1, 2]),
        "norm_matrix_1": lambda: tf.norm(A, ord=1, axis=[0, 1]),
        "norm_matrix_inf": lambda: tf.norm(A, ord=np.inf, axis=[-2, -1]),
        "norm_matrix_2": lambda: tf.norm(np.stack([A, SPD]), ord=2, axis=[1, 2]),
        "logdet": lambda: tf.linalg.logdet(SPD),
        "cholesky_solve": lambda: tf.linalg.cholesky_solve(np.linalg.cholesky(SPD), B),
        "linspace": lambda: tf.linspace(-1.0, 2.0, 7),
        "lin_space_one": lambda: tf.lin_space(tf.constant(3.0, tf.float64),
                                              tf.constant(5.0, tf.float64), 1),
        "lin_space_op": lambda: tf.raw_ops.LinSpace(start=tf.constant(0.1), stop=tf.constant(0.9),
                                                    num=9),
        "cross": lambda: tf.linalg.cross(np.stack([A, SPD]), np.stack([SPD, A])),
        "multiply_no_nan": lambda: tf.math.multiply_no_nan([np.inf, np.nan, 2.0],
                                                           [0.0, 0.0, 3.0]),
        "lbeta": lambda: tf.math.lbeta(P),
        "zero_fraction": lambda: tf.math.zero_fraction([[0, 1, 0], [2, 0, 0]]),
        "matrix_rank": lambda: tf.linalg.matrix_rank(np.stack([A, np.outer([1.0, 2, 3],
                                                                           [1.0, 0, 1])])),
        "pinv": lambda: tf.linalg.pinv(TALL),
        "pinv_singular": lambda: tf.linalg.pinv(np.outer([1.0, 2, 3], [1.0, 0, 1])),
        "saturate_cast": lambda: tf.saturate_cast([-300.0, 3.7, 1e10], tf.uint8),
        "saturate_cast_int8": lambda: tf.saturate_cast(tf.constant([-1000, 5, 1000]), tf.int8),
        "to_double": lambda: tf.to_double([1, 2]),
        "arg_max": lambda: tf.arg_max(R, 1),
        "arg_min": lambda: tf.arg_min(R, 0, output_type=tf.int32),
        "nextafter": lambda: tf.math.nextafter([1.0, 0.0, -2.0], [2.0, -1.0, -2.0]),
        "mod": lambda: tf.raw_ops.Mod(x=[7, -7, 7, -7], y=[3, 3, -3, -3]),
        "mod_float": lambda: tf.raw_ops.Mod(x=R, y=np.full_like(R, 1.25)),
        "approximate_equal": lambda: tf.raw_ops.ApproximateEqual(
            x=[1.0, 2.0, 3.0], y=[1.0 + 1e-6, 2.1, 3.0], tolerance=1e-3),
        "matvec": lambda: tf.linalg.matvec(A, np.array([1.0, -1.0, 2.0])),
        "cholesky_not_pd": lambda: tf.linalg.band_part(
            tf.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])), -1, 0),
    })
    return cases


def grad_cases(tf) -> dict:
    def case(build, *values):
        def thunk():
            xs = [tf.constant(v) for v in values]
            return _weighted(tf, build(*xs)), xs
        return thunk

    def sym(build):
        # Symmetric input, as TensorFlow's symmetric-matrix gradients assume.
        def thunk():
            s = tf.constant(SPD)
            m = (s + tf.transpose(s)) / 2.0
            return _weighted(tf, build(m)), [s]
        return thunk

    cases = {
        fn: case(lambda x, fn=fn: getattr(tf.math, fn)(x), src)
        for fn, src in [("erf", R), ("erfc", R), ("lgamma", P), ("digamma", P), ("expm1", U),
                        ("tan", U), ("asin", U), ("acos", U), ("atan", R), ("sinh", R),
                        ("cosh", R), ("asinh", R), ("atanh", U), ("reciprocal", P),
                        ("floor", R), ("log_sigmoid", R)]
    }
    cases.update({
        "acosh": case(tf.math.acosh, P + 1.0),
        "erfinv": case(tf.math.erfinv, U),
        "ndtri": case(tf.math.ndtri, (U + 1.0) / 2.0),
        "atan2": case(tf.math.atan2, R, P),
        "squared_difference": case(tf.math.squared_difference, R, P[0]),
        "xlogy": case(tf.math.xlogy, R, P),
        "xdivy": case(tf.math.xdivy, R, P),
        "xlog1py": case(tf.math.xlog1py, R, P),
        "divide_no_nan": case(tf.math.divide_no_nan, R, P),
        "zeta": case(lambda q: tf.math.zeta(tf.constant(3.0, tf.float64), q), P),
        "igamma": case(tf.math.igamma, GA[1:], GX[1:8]),
        "igammac": case(tf.math.igammac, GA[1:5], GX[2:6]),
        "betainc": case(tf.math.betainc, BA, BB, BX),
        "betainc_scalar_x": case(lambda a, b, x: tf.math.betainc(a, b, x), BA[:4], BB[:4],
                                 np.float64(0.35)),
        "polygamma": case(lambda x: tf.math.polygamma(tf.constant(1.0, tf.float64), x), P),
        "cumsum": case(lambda x: tf.cumsum(x, 1, exclusive=True), R),
        "cumprod": case(lambda x: tf.cumprod(x, 0, reverse=True), R),
        "cumulative_logsumexp": case(lambda x: tf.math.cumulative_logsumexp(x, 1), R),
        "reduce_logsumexp": case(lambda x: tf.reduce_logsumexp(x, 0), R),
        "reduce_euclidean_norm": case(lambda x: tf.math.reduce_euclidean_norm(x, 1), R),
        "reduce_std": case(lambda x: tf.math.reduce_std(x, 1), R),
        "segment_mean": case(lambda x: tf.math.segment_mean(x, [0, 0, 1, 3, 3]), DATA),
        "segment_max": case(lambda x: tf.math.segment_max(x, [0, 1, 1, 1, 3]), DATA),
        "segment_prod": case(lambda x: tf.math.segment_prod(x, [0, 0, 1, 1, 3]), DATA),
        "unsorted_segment_min": case(lambda x: tf.math.unsorted_segment_min(
            x, [1, 1, 0, -1, 0], 2), DATA),
        "unsorted_segment_prod": case(lambda x: tf.math.unsorted_segment_prod(
            x, [1, 0, 0, 1, -1], 2), DATA),
        "unsorted_segment_sqrt_n": case(lambda x: tf.math.unsorted_segment_sqrt_n(
            x, [1, 0, 0, 1, 1], 3), DATA),
        "einsum": case(lambda a, b: tf.einsum("ij,jk->ik", a, b), A, B),
        "einsum_reduce": case(lambda a, b: tf.einsum("ij,jk->i", a, b), A, B),
        "einsum_ellipsis": case(lambda a, b: tf.einsum("...ij,j->...i", a, b),
                                np.stack([A, A.T]), B[:, 0]),
        "einsum_trace": case(lambda a: tf.einsum("ii->", a), A),
        "einsum_diag": case(lambda a: tf.einsum("ii->i", a), A),
        "einsum_diag_sum": case(lambda a, b: tf.einsum("iij,jk->k", a, b),
                                np.stack([A, SPD, A.T]), B),
        "tensordot": case(lambda a, b: tf.tensordot(a, b, [[0], [0]]), A, B),
        "inv": case(tf.linalg.inv, A),
        "det": case(tf.linalg.det, A),
        "slogdet": case(lambda a: tf.linalg.slogdet(a)[1], A),
        "solve": case(tf.linalg.solve, A, B),
        "solve_adjoint": case(lambda a, b: tf.linalg.solve(a, b, adjoint=True), A, B),
        "triangular_solve": case(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False),
                                 A + 3 * np.eye(3), B),
        "lstsq": case(lambda a, b: tf.linalg.lstsq(a, b), TALL, np.ones((4, 2))),
        "lstsq_wide": case(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.1), TALL.T,
                           np.ones((2, 1))),
        "svd_values": case(lambda a: tf.linalg.svd(a, compute_uv=False), TALL),
        "cholesky": sym(tf.linalg.cholesky),
        "eigvalsh": sym(tf.linalg.eigvalsh),
        "eigh_vectors_squared": sym(lambda m: tf.square(tf.linalg.eigh(m)[1])),
        "svd_u_squared": case(lambda a: tf.square(tf.linalg.svd(a)[1]), TALL),
        "svd_v_squared_square": case(lambda a: tf.square(tf.linalg.svd(a)[2]), A),
        "norm": case(lambda x: tf.norm(x, ord=3, axis=1), R),
        "trace": case(tf.linalg.trace, A),
        "logdet": sym(tf.linalg.logdet),
        "qr_tall": case(lambda a: tf.square(tf.linalg.qr(a)[0]) + tf.linalg.qr(a)[1][0, 0], TALL),
        "qr_square_r": case(lambda a: tf.linalg.qr(a)[1], A),
        "qr_wide": case(lambda a: tf.linalg.qr(a)[1], TALL.T),
        "nextafter": case(lambda a, b: tf.math.nextafter(a, b), R, P),
        "cross": case(tf.linalg.cross, np.stack([A, SPD]), np.stack([SPD, A])),
        "multiply_no_nan": case(tf.math.multiply_no_nan, R, R * (R > 0)),
        "lbeta": case(tf.math.lbeta, P),
        "pinv": case(tf.linalg.pinv, TALL),
    })
    return cases


def build_error_cases(tf) -> dict:
    return {
        "inv_not_square": lambda: tf.linalg.inv(np.ones((2, 3))),
        "det_not_square": lambda: tf.linalg.det(np.ones((2, 3))),
        "cholesky_not_square": lambda: tf.linalg.cholesky(np.ones((3, 2))),
        "inv_rank1": lambda: tf.linalg.inv([1.0, 2.0]),
        "solve_rows": lambda: tf.linalg.solve(A, np.ones((2, 1))),
        "einsum_inputs": lambda: tf.einsum("ij,jk->ik", A),
        "tensordot_axes": lambda: tf.tensordot(A, B, [[0, 1], [0]]),
        "norm_ord": lambda: tf.norm(R, ord=-1),
        "bitwise_float": lambda: tf.bitwise.bitwise_and(R, R),
        "accumulate_n_empty": lambda: tf.math.accumulate_n([]),
        "reduce_all_axis": lambda: tf.reduce_all(R > 0, axis=2),
        "segment_rank": lambda: tf.math.segment_sum(DATA, [[0, 0, 1, 1, 1]]),
        "betainc_shapes": lambda: tf.math.betainc(BA[:2], BB[:3], 0.5),
        "igamma_int": lambda: tf.math.igamma([1, 2], [1, 2]),
    }


def run_error_cases(tf) -> dict:
    unknown = lambda v: tf.placeholder_with_default(np.asarray(v), None)  # noqa: E731
    return {
        "inv_singular": lambda: tf.linalg.inv(np.array([[1.0, 2.0], [2.0, 4.0]])),
        "inv_not_square": lambda: tf.linalg.inv(unknown(np.ones((2, 3)))),
        "det_not_square": lambda: tf.linalg.det(unknown(np.ones((2, 3)))),
        "cholesky_not_square": lambda: tf.linalg.cholesky(unknown(np.ones((3, 2)))),
        "solve_singular": lambda: tf.linalg.solve(np.zeros((2, 2)), np.ones((2, 1))),
        "cumsum_axis": lambda: tf.cumsum(unknown(R), axis=2),
        "segment_unsorted": lambda: tf.math.segment_sum(DATA, unknown(np.array([0, 1, 0, 2, 2]))),
        "segment_negative": lambda: tf.math.segment_max(DATA, unknown(np.array([-1, 0, 0, 1, 1]))),
        "unsorted_segment_range": lambda: tf.math.unsorted_segment_max(DATA, [0, 1, 5, 1, 0],
                                                                       unknown(np.int32(3))),
        "truncatediv_zero": lambda: tf.truncatediv(unknown(np.array([1, 2])), [1, 0]),
        "betainc_shapes": lambda: tf.math.betainc(unknown(BA[:3]), BB[:2], 0.5),
        "betainc_shapes_x": lambda: tf.math.betainc(BA[:2], BB[:2], unknown(BX[:3])),
    }
