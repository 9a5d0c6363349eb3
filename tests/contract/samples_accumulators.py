"""Contract samples for the conditional accumulator ops (tfmini/ops/data_flow/).

Ops using an accumulator get the handle of one created in the same graph (its creation op
runs again in the sampled run and finds the accumulator); takes get, as setup, the applies
that let them complete at once instead of blocking.
"""

import numpy as np

import tfmini as tm

R = tm.raw_ops

_G = np.arange(6, dtype=np.float32).reshape(2, 3)


def _dense(ref: bool):
    make = R.ConditionalAccumulator if ref else R.ResourceConditionalAccumulator
    return make(dtype=tm.float32, shape=[2, 3], shared_name="acc")


def _dense_apply(handle, ref: bool, scale: float = 1.0):
    apply = R.AccumulatorApplyGradient if ref else R.ResourceAccumulatorApplyGradient
    return apply(handle=handle, local_step=np.int64(0), gradient=_G * scale)


def _dense_sample(ref: bool, more, attrs, applies: int = 0):
    def sample():
        handle = _dense(ref)
        setup = [_dense_apply(handle, ref, i + 1.0) for i in range(applies)]
        return [handle, *more], attrs, setup

    return sample


def _sparse():
    return R.SparseConditionalAccumulator(dtype=tm.float32, shape=[4, 3], shared_name="sacc")


def _sparse_apply(handle, indices, scale: float = 1.0):
    indices = np.asarray(indices, np.int64)
    return R.SparseAccumulatorApplyGradient(
        handle=handle, local_step=np.int64(0), gradient_indices=indices,
        gradient_values=np.ones((len(indices), 3), np.float32) * scale,
        gradient_shape=np.array([4, 3], np.int64), has_known_shape=True)


def _sparse_take():
    handle = _sparse()
    setup = [_sparse_apply(handle, [0, 2]), _sparse_apply(handle, [2, 3], 3.0)]
    return [handle, np.int32(2)], {"dtype": tm.float32}, setup


_CREATE = {"dtype": tm.float32, "shape": [2, 3], "shared_name": "acc", "reduction_type": "SUM"}

SAMPLES = {
    "ConditionalAccumulator": lambda: ([], _CREATE),
    "ResourceConditionalAccumulator": lambda: ([], _CREATE),
    "SparseConditionalAccumulator": lambda: ([], {"dtype": tm.float64, "shape": [None, 3]}),
    "AccumulatorApplyGradient": _dense_sample(True, [np.int64(0), _G], {}),
    "ResourceAccumulatorApplyGradient": _dense_sample(False, [np.int64(0), _G], {}),
    "AccumulatorTakeGradient": _dense_sample(True, [np.int32(2)], {"dtype": tm.float32}, 2),
    "ResourceAccumulatorTakeGradient": _dense_sample(
        False, [np.int32(1)], {"dtype": tm.float32}, 1),
    "AccumulatorNumAccumulated": _dense_sample(True, [], {}, 2),
    "ResourceAccumulatorNumAccumulated": _dense_sample(False, [], {}, 1),
    "AccumulatorSetGlobalStep": _dense_sample(True, [np.int64(3)], {}),
    "ResourceAccumulatorSetGlobalStep": _dense_sample(False, [np.int64(3)], {}),
    "SparseAccumulatorApplyGradient": lambda: (
        [_sparse(), np.int64(0), np.array([0, 2], np.int64), np.ones((2, 3), np.float32),
         np.array([4, 3], np.int64)],
        {"has_known_shape": True},
    ),
    "SparseAccumulatorTakeGradient": _sparse_take,
}
