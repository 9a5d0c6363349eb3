"""Cases for the nn helpers (moments, normalisation, LRN, top_k, losses, ...), shared by
tools/record_goldens_nn_kit.py and tests/ops/nn/test_nn_kit.py.

Each case is a function of the module under test (``tensorflow.compat.v1`` when recording,
``tfmini`` when testing), which spell these calls the same way. A value case builds a graph
and returns ``(fetches, feeds)``: a dict of named tensors (outputs and ``tf.gradients``) and a
feed dict keyed by placeholders. Error cases return a thunk that raises. This module never
imports TensorFlow.

The batch-norm cases under ``bn_test/`` port TensorFlow's own
``tensorflow/python/ops/nn_batchnorm_test.py`` (BatchNormalizationTest, SufficientStatistics-
Test, NormalizeMomentsTest, MomentsTest): the same shapes, axes, dtypes and flags; the test
also checks them against the NumPy formulas that file uses.
"""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(11_4_2021)


def _normal(shape, dtype=np.float32, scale=1.0, loc=0.0):
    return (_RNG.normal(loc, scale, size=shape)).astype(dtype)


# Inputs are drawn once, at import, so recorder and test see the same numbers.
X357 = _normal((3, 5, 7))
X2354 = _normal((2, 3, 5, 4))
X45 = _normal((4, 5))
W41 = np.abs(_normal((4, 1))) + 0.1
W45 = np.abs(_normal((4, 5)))
W45[:, 2] = 0.0  # a column of zero weights: div_no_nan gives 0
BN_X = _normal((3, 8, 4, 5), np.float64)
BN_M = _normal((5,), np.float64)
BN_V = np.abs(_normal((5,), np.float64)) + 0.2
BN_BETA = _normal((5,), np.float64)
BN_GAMMA = _normal((5,), np.float64)
LRN_X = _normal((2, 3, 4, 7), scale=2.0)
TOPK_X = np.array([[3, 1, 3, 2, 5, 5, -1], [0, 0, 1, 1, -1, 7, 2], [9, 8, 7, 6, 5, 4, 3]],
                  np.float32)
PRED = np.array([[0.1, 0.3, 0.3, 0.2, 0.05, 0.05], [1, 2, 3, 4, 5, 6],
                 [6, 5, 4, 3, 2, 1], [0, 0, 0, 0, 0, 0]], np.float32)
LOGITS = _normal((3, 5), scale=2.0)
LABELS = np.abs(_normal((3, 5)))
LABELS /= LABELS.sum(axis=1, keepdims=True)
POISSON_C = _normal((2, 5))
DENSE_W = _normal((5, 3))
DENSE_B = _normal((3,))
POISSON_T = np.array([[0.0, 0.5, 1.0, 3.0, 7.0], [2.0, 0.25, 1.5, 10.0, 4.0]], np.float32)


def _with_grads(tf, outs: dict, xs: dict, seed=0):
    """``outs`` plus ``grad/<x>`` for each named input, of the sum of all weighted outputs."""
    total = None
    for i, o in enumerate(outs.values()):
        if not o.dtype.is_floating:
            continue
        w = np.random.default_rng(seed + i).normal(size=o.shape.as_list())
        term = tf.reduce_sum(o * tf.constant(w.astype(_np(o.dtype))))
        total = term if total is None else total + tf.cast(term, total.dtype)
    grads = tf.gradients(total, list(xs.values()))
    fetches = dict(outs)
    for name, g in zip(xs, grads):
        if g is not None:
            fetches[f"grad/{name}"] = g
    return fetches


def _np(dtype):
    return getattr(dtype, "as_numpy_dtype", None) or dtype.np_dtype


def value_cases(tf) -> dict:
    """name -> thunk returning (fetches dict, feed dict)."""
    cases = {}

    def case(name):
        def deco(fn):
            cases[name] = fn
            return fn
        return deco

    # -- moments ------------------------------------------------------------------------
    for dt in (np.float16, np.float32, np.float64):
        for axes, keep in (([0, 1], False), ([2], True), ([0, 2], False)):
            def moments_case(dt=dt, axes=axes, keep=keep):
                x = tf.constant(X357.astype(dt))
                m, v = tf.nn.moments(x, axes, keep_dims=keep)
                outs = {"mean": m, "variance": v}
                return _with_grads(tf, outs, {"x": x}) if dt != np.float16 else outs, {}
            cases[f"moments/{np.dtype(dt).name}/{'_'.join(map(str, axes))}/{keep}"] = \
                moments_case

    @case("moments/vector")
    def _():
        x = tf.constant(np.array([[1, 2, 3, 4], [2, 4, 6, 9]], np.float32))
        m, v = tf.nn.moments(x, [1])
        return {"mean": m, "variance": v}, {}

    @case("moments/placeholder")
    def _():
        x = tf.placeholder(tf.float32, shape=[None, None, 7])
        m, v = tf.nn.moments(x, [0, 1], keepdims=True)
        return _with_grads(tf, {"mean": m, "variance": v}, {"x": x}), {x: X357}

    # -- weighted_moments ---------------------------------------------------------------
    for wname, w in (("col", W41), ("full", W45)):
        for keep in (False, True):
            def weighted_case(w=w, keep=keep):
                x, fw = tf.constant(X45), tf.constant(w)
                m, v = tf.nn.weighted_moments(x, [0], fw, keep_dims=keep)
                return _with_grads(tf, {"mean": m, "variance": v}, {"x": x, "w": fw}), {}
            cases[f"weighted_moments/{wname}/{keep}"] = weighted_case

    @case("weighted_moments/float16")
    def _():
        x = tf.constant(X45.astype(np.float16))
        m, v = tf.nn.weighted_moments(x, [1], tf.constant(W45))
        return {"mean": m, "variance": v}, {}

    # -- batch_normalization --------------------------------------------------------------
    @case("batch_normalization/vector")
    def _():
        y = tf.nn.batch_normalization(tf.constant(np.array([1, 2, 3], np.float32)), 2.0, 4.0,
                                      0.5, 2.0, 0.0)
        return {"y": y}, {}

    for dt in (np.float32, np.float64):
        for offset_on, scale_on in ((True, True), (False, True), (True, False), (False, False)):
            def bn_case(dt=dt, offset_on=offset_on, scale_on=scale_on):
                x = tf.constant(BN_X.astype(dt))
                m, v = tf.constant(BN_M.astype(dt)), tf.constant(BN_V.astype(dt))
                beta = tf.constant(BN_BETA.astype(dt)) if offset_on else None
                gamma = tf.constant(BN_GAMMA.astype(dt)) if scale_on else None
                y = tf.nn.batch_normalization(x, m, v, beta, gamma, 0.001)
                xs = {"x": x, "m": m, "v": v}
                if offset_on:
                    xs["beta"] = beta
                if scale_on:
                    xs["gamma"] = gamma
                return _with_grads(tf, {"y": y}, xs), {}
            cases[f"bn_test/batch_norm/{np.dtype(dt).name}/{offset_on}/{scale_on}"] = bn_case

    # -- sufficient_statistics / normalize_moments (nn_batchnorm_test) ---------------------
    for shift in (None, 0.5):
        for keep in (False, True):
            for has_shape in (True, False):
                def suff_case(shift=shift, keep=keep, has_shape=has_shape):
                    x_val = X2354[:, :, :, :3].astype(np.float32)
                    shape = list(x_val.shape) if has_shape else [None] * 4
                    x = tf.placeholder(tf.float32, shape=shape)
                    s = None if shift is None else tf.constant(np.full((3,), shift, np.float32))
                    c, m_ss, v_ss, _ = tf.nn.sufficient_statistics(x, [0, 1, 2], shift=s,
                                                                   keep_dims=keep)
                    return {"count": c, "mean_ss": m_ss, "var_ss": v_ss}, {x: x_val}
                cases[f"bn_test/suff_stats/{shift}/{keep}/{has_shape}"] = suff_case

    for shift in (None, 0.3):
        def normalize_case(shift=shift):
            counts = tf.constant(np.float32(24.0))
            m_ss = tf.constant(np.array([4.0, 5.5, -2.0], np.float32))
            v_ss = tf.constant(np.array([10.0, 20.0, 3.0], np.float32))
            s = None if shift is None else tf.constant(np.full((3,), shift, np.float32))
            m, v = tf.nn.normalize_moments(counts, m_ss, v_ss, s)
            return _with_grads(tf, {"mean": m, "variance": v}, {"m_ss": m_ss, "v_ss": v_ss}), {}
        cases[f"bn_test/normalize_moments/{shift}"] = normalize_case

    for dt in (np.float16, np.float32, np.float64):
        for axes in ([0, 1, 2], [0], [1, 2, 3]):
            for keep in (False, True):
                def moment_test_case(dt=dt, axes=axes, keep=keep):
                    x = tf.placeholder(tf.as_dtype(dt), shape=[None] * 4)
                    m, v = tf.nn.moments(x, axes, keep_dims=keep)
                    return {"mean": m, "variance": v}, {x: X2354.astype(dt)}
                cases[f"bn_test/moments/{np.dtype(dt).name}/"
                      f"{''.join(map(str, axes))}/{keep}"] = moment_test_case

    @case("bn_test/moments_grad_2d")
    def _():
        x = tf.constant(X45.astype(np.float64))
        m, v = tf.nn.moments(x, [0])
        return _with_grads(tf, {"mean": m, "variance": v}, {"x": x}), {}

    # -- fused_batch_norm -----------------------------------------------------------------
    @case("fused_batch_norm/train_nhwc")
    def _():
        x = tf.constant(LRN_X)
        scale = tf.constant(np.linspace(0.5, 1.5, 7).astype(np.float32))
        offset = tf.constant(np.linspace(-0.2, 0.3, 7).astype(np.float32))
        y, m, v = tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.01)
        return _with_grads(tf, {"y": y, "mean": m, "variance": v},
                           {"x": x, "scale": scale, "offset": offset}), {}

    @case("fused_batch_norm/infer_nchw")
    def _():
        x = tf.constant(LRN_X)
        c = 3
        scale = tf.constant(np.linspace(0.5, 1.5, c).astype(np.float32))
        offset = tf.constant(np.linspace(-0.2, 0.3, c).astype(np.float32))
        mean = tf.constant(np.linspace(-0.1, 0.1, c).astype(np.float32))
        var = tf.constant(np.linspace(0.5, 2.0, c).astype(np.float32))
        y, m, v = tf.nn.fused_batch_norm(x, scale, offset, mean, var, epsilon=0.001,
                                         data_format="NCHW", is_training=False)
        return _with_grads(tf, {"y": y, "mean": m, "variance": v},
                           {"x": x, "scale": scale, "offset": offset}), {}

    @case("fused_batch_norm/avg_factor")
    def _():
        x = tf.constant(LRN_X)
        scale = tf.constant(np.ones(7, np.float32))
        offset = tf.constant(np.zeros(7, np.float32))
        mean = tf.constant(np.linspace(-0.1, 0.1, 7).astype(np.float32))
        var = tf.constant(np.linspace(0.5, 2.0, 7).astype(np.float32))
        y, m, v = tf.nn.fused_batch_norm(x, scale, offset, mean, var,
                                         exponential_avg_factor=0.25)
        return {"y": y, "mean": m, "variance": v}, {}

    # -- l2_normalize ---------------------------------------------------------------------
    for axis in (0, 1, [0, 1], -1):
        def l2_case(axis=axis):
            x = tf.constant(X45)
            return _with_grads(tf, {"y": tf.nn.l2_normalize(x, axis)}, {"x": x}), {}
        cases[f"l2_normalize/{axis}"] = l2_case

    @case("l2_normalize/tiny")
    def _():
        x = tf.constant(np.array([[1e-7, 0.0], [0.0, 0.0], [3.0, 4.0]], np.float32))
        return {"y": tf.nn.l2_normalize(x, 1), "y_dim": tf.nn.l2_normalize(x, dim=0,
                                                                              epsilon=1e-4)}, {}

    # -- LRN --------------------------------------------------------------------------------
    @case("lrn/vector")
    def _():
        x = tf.constant(np.array([1, 2, 3], np.float32).reshape(1, 1, 1, 3))
        return {"y": tf.nn.lrn(x, 1, 1.0, 1.0, 0.5)}, {}

    for params in ((5, 1.0, 1.0, 0.5), (2, 2.0, 0.3, 0.75), (0, 0.5, 2.0, 1.0), (9, 1.0, 0.1, 0.5)):
        def lrn_case(params=params):
            x = tf.constant(LRN_X)
            r, bias, alpha, beta = params
            y = tf.nn.local_response_normalization(x, depth_radius=r, bias=bias, alpha=alpha,
                                                   beta=beta)
            return _with_grads(tf, {"y": y}, {"x": x}), {}
        cases[f"lrn/{'_'.join(map(str, params))}"] = lrn_case

    @case("lrn/float16")
    def _():
        x = tf.constant(LRN_X.astype(np.float16))
        return {"y": tf.nn.lrn(x, 2, 1.0, 0.5, 0.75)}, {}

    # -- dense helpers ----------------------------------------------------------------------
    @case("xw_plus_b")
    def _():
        x, w, b = tf.constant(X45), tf.constant(DENSE_W), tf.constant(DENSE_B)
        return _with_grads(tf, {"y": tf.nn.xw_plus_b(x, w, b)}, {"x": x, "w": w, "b": b}), {}

    @case("relu_layer")
    def _():
        x, w, b = tf.constant(X45), tf.constant(DENSE_W), tf.constant(DENSE_B)
        return _with_grads(tf, {"y": tf.nn.relu_layer(x, w, b)}, {"x": x, "w": w, "b": b}), {}

    # -- activations ------------------------------------------------------------------------
    for fn in ("leaky_relu", "selu", "swish", "silu", "softsign", "crelu"):
        def act_case(fn=fn):
            x = tf.constant(X357 * 2)
            return _with_grads(tf, {"y": getattr(tf.nn, fn)(x)}, {"x": x}), {}
        cases[f"act/{fn}"] = act_case

    @case("act/leaky_relu_alpha")
    def _():
        x = tf.constant(X45.astype(np.float64))
        return _with_grads(tf, {"y": tf.nn.leaky_relu(x, alpha=0.05)}, {"x": x}), {}

    @case("act/swish_beta")
    def _():
        x = tf.constant(X45)
        beta = tf.constant(np.float32(0.7))
        return _with_grads(tf, {"y": tf.nn.swish(x, beta)}, {"x": x, "beta": beta}), {}

    @case("act/crelu_axis0")
    def _():
        x = tf.constant(X357)
        return _with_grads(tf, {"y": tf.nn.crelu(x, axis=0)}, {"x": x}), {}

    # -- bias_add ---------------------------------------------------------------------------
    for fmt, b_len in (("NHWC", 4), ("NCHW", 3)):
        def bias_case(fmt=fmt, b_len=b_len):
            x = tf.constant(X2354)
            b = tf.constant(np.arange(b_len, dtype=np.float32) - 1.5)
            y = tf.nn.bias_add(x, b, data_format=fmt)
            return _with_grads(tf, {"y": y}, {"x": x, "b": b}), {}
        cases[f"bias_add/{fmt}"] = bias_case

    @case("bias_add/v1")
    def _():
        x, b = tf.constant(X357), tf.constant(np.arange(7, dtype=np.float32))
        return _with_grads(tf, {"y": tf.raw_ops.BiasAddV1(value=x, bias=b)}, {"x": x, "b": b}), {}

    # -- top_k / in_top_k -----------------------------------------------------------------------
    for k in (0, 1, 3, 7):
        def top_k_case(k=k):
            x = tf.constant(TOPK_X)
            values, indices = tf.nn.top_k(x, k)
            return _with_grads(tf, {"values": values, "indices": indices}, {"x": x}), {}
        cases[f"top_k/{k}"] = top_k_case

    @case("top_k/int32_int64_index")
    def _():
        values, indices = tf.nn.top_k(tf.constant(TOPK_X.astype(np.int32)), 4,
                                      index_type=tf.int64)
        return {"values": values, "indices": indices}, {}

    @case("top_k/3d")
    def _():
        x = tf.constant(X357)
        values, indices = tf.nn.top_k(x, tf.constant(np.int32(2)))
        return _with_grads(tf, {"values": values, "indices": indices}, {"x": x}), {}

    @case("top_k/unsorted")
    def _():
        values, indices = tf.nn.top_k(tf.constant(TOPK_X), 3, sorted=False)
        return {"values": values, "indices": indices}, {}

    for k in (1, 2, 3, 6):
        for tdt in (np.int32, np.int64):
            def in_top_k_case(k=k, tdt=tdt):
                targets = np.array([1, 5, 9, 0], tdt)
                return {"precision": tf.nn.in_top_k(tf.constant(PRED), tf.constant(targets),
                                                    k)}, {}
            cases[f"in_top_k/{k}/{np.dtype(tdt).name}"] = in_top_k_case

    @case("in_top_k/negative_target_nan")
    def _():
        pred = np.array([[np.nan, 1.0], [1.0, 2.0], [np.inf, 1.0]], np.float32)
        return {"precision": tf.nn.in_top_k(tf.constant(pred),
                                            tf.constant(np.array([0, -1, 0], np.int32)), 2)}, {}

    # -- losses ----------------------------------------------------------------------------------
    for axis in (-1, 0):
        def xent_case(axis=axis):
            logits, labels = tf.constant(LOGITS), tf.constant(LABELS)
            loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                              axis=axis)
            return _with_grads(tf, {"loss": loss}, {"logits": logits, "labels": labels}), {}
        cases[f"softmax_xent_v2/{axis}"] = xent_case

    for q in (0.5, 3.0):
        def wxent_case(q=q):
            logits = tf.constant(LOGITS)
            labels = tf.constant((LABELS > 0.2).astype(np.float32))
            loss = tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits,
                                                            pos_weight=q)
            return _with_grads(tf, {"loss": loss}, {"logits": logits, "labels": labels}), {}
        cases[f"weighted_xent/{q}"] = wxent_case

    for full in (False, True):
        def poisson_case(full=full):
            t = tf.constant(POISSON_T)
            c = tf.constant(POISSON_C)
            loss = tf.nn.log_poisson_loss(t, c, compute_full_loss=full)
            return _with_grads(tf, {"loss": loss}, {"log_input": c, "targets": t}), {}
        cases[f"log_poisson/{full}"] = poisson_case

    @case("l2_loss")
    def _():
        x = tf.constant(X357)
        return _with_grads(tf, {"loss": tf.nn.l2_loss(x)}, {"x": x}), {}

    # -- zero_fraction ------------------------------------------------------------------------
    @case("zero_fraction/float")
    def _():
        x = tf.constant(np.maximum(X357, 0))
        return {"fraction": tf.nn.zero_fraction(x)}, {}

    @case("zero_fraction/int")
    def _():
        return {"fraction": tf.nn.zero_fraction(tf.constant(np.array([0, 1, 0, 0, 5], np.int32)))
                }, {}

    return cases


def run_error_cases(tf) -> dict:
    """name -> thunk building a graph whose run fails: (fetch, feeds)."""
    cases = {}

    def top_k_short():
        x = tf.placeholder(tf.float32, shape=[None, None])
        return tf.nn.top_k(x, 5)[0], {x: TOPK_X[:, :3]}

    def top_k_negative():
        k = tf.placeholder(tf.int32, shape=[])
        return tf.nn.top_k(tf.constant(TOPK_X), k)[0], {k: -1}

    def in_top_k_batch():
        t = tf.placeholder(tf.int32, shape=[None])
        return tf.nn.in_top_k(tf.constant(PRED), t, 1), {t: np.array([0, 1], np.int32)}

    def lrn_rank():
        x = tf.placeholder(tf.float32)
        return tf.nn.lrn(x), {x: np.ones((2, 3), np.float32)}

    def lrn_radius():
        return tf.nn.lrn(tf.constant(LRN_X), depth_radius=-1), {}

    cases["top_k_short"] = top_k_short
    cases["top_k_negative"] = top_k_negative
    cases["in_top_k_batch"] = in_top_k_batch
    cases["lrn_rank"] = lrn_rank
    cases["lrn_radius"] = lrn_radius
    return cases


def build_error_cases(tf) -> dict:
    """name -> thunk that raises while building (ValueError)."""
    return {
        "top_k_static": lambda: tf.nn.top_k(tf.constant(TOPK_X), 9),
        "top_k_scalar": lambda: tf.nn.top_k(tf.constant(np.float32(1)), 1),
        "lrn_rank": lambda: tf.nn.lrn(tf.constant(X45)),
        "in_top_k_rank": lambda: tf.nn.in_top_k(tf.constant(X357), tf.constant(
            np.array([0, 1, 2], np.int32)), 1),
        "moments_axis": lambda: tf.nn.moments(tf.constant(X45), [2]),
        "l2_normalize_axis": lambda: tf.nn.l2_normalize(tf.constant(X45), 3),
        "weighted_xent_shape": lambda: tf.nn.weighted_cross_entropy_with_logits(
            labels=tf.constant(X45), logits=tf.constant(LOGITS), pos_weight=2.0),
        "log_poisson_shape": lambda: tf.nn.log_poisson_loss(tf.constant(X45),
                                                            tf.constant(LOGITS)),
    }
