"""The stateless V2 random ops: the Philox key and counter are inputs (``key``: uint64 ``[1]``,
``counter``: uint64 ``[2]``, ``alg``: int32), as ``tf.random.Generator`` and the TF2 stateless
functions feed them (``tensorflow/core/kernels/stateless_random_ops_v2.cc``,
``stateless_random_ops_v2_util.h``).

StatelessRandomGetKeyCounter scrambles a ``[2]`` seed into that key and counter (the V1 ops'
``GenerateKey``), so ``StatelessRandomNormalV2(shape, *GetKeyCounter(seed), alg=1)`` equals
``StatelessRandomNormal(shape, seed)``. The counter is the 128-bit number
``counter[0] + 2**64 * counter[1]``; the samples are drawn as the stateful ops draw them from
that counter (bit-exact). Algorithm 1 (Philox) and 3 (auto-select, Philox on CPU) are
supported; TensorFlow's CPU kernels refuse every other id, ThreeFry (2) included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import distributions, philox
from tfmini.ops.random.stateless import check_seed, key_counter_from_seed
from tfmini.ops.random.stream import check_size, output_dims

__all__: list[str] = []

RNG_ALG_PHILOX = 1
RNG_ALG_AUTO_SELECT = 3
_MASK64 = (1 << 64) - 1


def _key_counter_outputs(seed: Any) -> tuple[np.ndarray, np.ndarray]:
    key, counter = key_counter_from_seed(check_seed(seed))
    return (np.array([key[0] | (key[1] << 32)], np.uint64),
            np.array([counter & _MASK64, counter >> 64], np.uint64))


def _key_counter_shape(ic):
    shape_fns.with_rank(ic.input_shape("seed"), 1)
    return [TensorShape([1]), TensorShape([2])]


@register_op("StatelessRandomGetKeyCounter", inputs=["seed: Tseed"],
             outputs=["key: uint64", "counter: uint64"],
             attrs=["Tseed: {int32, int64} = DT_INT64"], shape_fn=_key_counter_shape)
def stateless_random_get_key_counter_kernel(seed, *, Tseed):  # noqa: N803
    """The Philox key and counter a ``[2]`` seed scrambles to."""
    return _key_counter_outputs(seed)


@register_op("StatelessRandomGetKeyCounterAlg", inputs=["seed: Tseed"],
             outputs=["key: uint64", "counter: uint64", "alg: int32"],
             attrs=["Tseed: {int32, int64} = DT_INT64"],
             shape_fn=lambda ic: [*_key_counter_shape(ic), TensorShape([])])
def stateless_random_get_key_counter_alg_kernel(seed, *, Tseed):  # noqa: N803
    """The key and counter of :func:`stateless_random_get_key_counter_kernel` and the CPU's
    algorithm (Philox)."""
    key, counter = _key_counter_outputs(seed)
    return key, counter, np.int32(RNG_ALG_PHILOX)


@register_op("StatelessRandomGetAlg", outputs=["alg: int32"], shape_fn=shape_fns.scalar)
def stateless_random_get_alg_kernel():
    """The algorithm the stateless V2 ops use on this device: Philox."""
    return np.int32(RNG_ALG_PHILOX)


def key_counter_from_inputs(key: Any, counter: Any, alg: Any) -> tuple[tuple[int, int], int]:
    """The Philox key words and the 128-bit counter the V2 inputs give, checked as
    ``GetKeyCounterAlgFromInputs`` checks them."""
    alg = int(np.asarray(alg))
    key, counter = np.asarray(key), np.asarray(counter)
    if key.shape != (1,):
        raise invalid_argument(f"key must have shape [1], not {dims_str(key.shape)}. (Note that "
                               "batched keys are not supported yet.)")
    if alg not in (RNG_ALG_PHILOX, RNG_ALG_AUTO_SELECT):
        raise invalid_argument(f"Unsupported algorithm id: {alg}")
    if counter.ndim != 1 or counter.shape[0] < 2:
        raise invalid_argument(
            f"counter must be a vector with length at least 2; got shape: "
            f"{dims_str(counter.shape)}. (Note that batched counters are not supported yet.)")
    k = int(key[0]) & _MASK64
    c = (int(counter[0]) & _MASK64) | ((int(counter[1]) & _MASK64) << 64)
    return (k & 0xFFFFFFFF, k >> 32), c


def _v2_shape(ic):
    shape_fns.with_rank(ic.input_shape("key"), 1)
    shape_fns.with_rank(ic.input_shape("counter"), 1)
    shape_fns.with_rank(ic.input_shape("alg"), 0)
    key = ic.input_shape("key")
    if key.dims is not None and key.dims[0] is not None and key.dims[0] != 1:
        raise ValueError(f"Dimension must be 1 but is {key.dims[0]}")
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


_V2_INPUTS = ["shape: Tshape", "key: uint64", "counter: uint64", "alg: int32"]
_V2_FLOAT_ATTRS = ["dtype: {half, float, double} = DT_FLOAT", "Tshape: {int32, int64} = DT_INT32"]


def _v2(shape, key, counter, alg, dtype, sample):
    k, c = key_counter_from_inputs(key, counter, alg)
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    return sample(dtype.np_dtype, k, c, n).reshape(dims)


@register_op("StatelessRandomNormalV2", inputs=_V2_INPUTS, outputs=["output: dtype"],
             attrs=_V2_FLOAT_ATTRS, shape_fn=_v2_shape)
def stateless_random_normal_v2_kernel(shape, key, counter, alg, *, dtype):
    """Standard normal samples from the given key and counter."""
    return _v2(shape, key, counter, alg, dtype, distributions.normal)


@register_op("StatelessRandomUniformV2", inputs=_V2_INPUTS, outputs=["output: dtype"],
             attrs=_V2_FLOAT_ATTRS, shape_fn=_v2_shape)
def stateless_random_uniform_v2_kernel(shape, key, counter, alg, *, dtype):
    """Uniform [0, 1) samples from the given key and counter."""
    return _v2(shape, key, counter, alg, dtype, distributions.uniform)


@register_op("StatelessTruncatedNormalV2", inputs=_V2_INPUTS, outputs=["output: dtype"],
             attrs=_V2_FLOAT_ATTRS, shape_fn=_v2_shape)
def stateless_truncated_normal_v2_kernel(shape, key, counter, alg, *, dtype):
    """Standard normal samples below 2 in magnitude from the given key and counter."""
    return _v2(shape, key, counter, alg, dtype, distributions.truncated_normal)


def _v2_int_shape(ic):
    shape_fns.with_rank(ic.input_shape("minval"), 0)
    shape_fns.with_rank(ic.input_shape("maxval"), 0)
    return _v2_shape(ic)


@register_op("StatelessRandomUniformIntV2", inputs=[*_V2_INPUTS, "minval: dtype", "maxval: dtype"],
             outputs=["output: dtype"],
             attrs=["dtype: {int32, int64}", "Tshape: {int32, int64} = DT_INT32"],
             shape_fn=_v2_int_shape)
def stateless_random_uniform_int_v2_kernel(shape, key, counter, alg, minval, maxval, *, dtype):
    """Integers in [minval, maxval) from the given key and counter (TensorFlow's CPU kernels
    take int32 and int64; the op also admits uint32 and uint64 for XLA, which tfmini leaves
    out as TensorFlow's CPU does)."""
    k, c = key_counter_from_inputs(key, counter, alg)
    minval, maxval = np.asarray(minval), np.asarray(maxval)
    if minval.ndim != 0:
        raise invalid_argument(f"minval must be 0-D, got shape {dims_str(minval.shape)}")
    if maxval.ndim != 0:
        raise invalid_argument(f"maxval must be 0-D, got shape {dims_str(maxval.shape)}")
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    return distributions.uniform_int(dtype.np_dtype, lo, hi, k, c, n).reshape(dims)


@register_op("StatelessRandomUniformFullIntV2", inputs=_V2_INPUTS, outputs=["output: dtype"],
             attrs=["dtype: {int32, int64, uint32, uint64} = DT_UINT64",
                    "Tshape: {int32, int64} = DT_INT32"],
             shape_fn=_v2_shape)
def stateless_random_uniform_full_int_v2_kernel(shape, key, counter, alg, *, dtype):
    """Integers over the dtype's whole range: one word each for 32-bit types, two (low word
    first) for 64-bit ones (``UniformFullIntDistribution``)."""
    k, c = key_counter_from_inputs(key, counter, alg)
    dims = output_dims(shape)
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    dt = dtype.np_dtype
    if dt.itemsize == 4:
        words = philox.blocks(k, c, -(-n // 4)).reshape(-1)[:n]
        return words.view(dt).reshape(dims)
    w = philox.blocks(k, c, -(-n // 2)).reshape(-1, 2).astype(np.uint64)
    bits = w[:, 0] | (w[:, 1] << np.uint64(32))
    return bits[:n].view(dt).reshape(dims)


for _op in ("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg",
            "StatelessRandomGetAlg", "StatelessRandomNormalV2", "StatelessRandomUniformV2",
            "StatelessTruncatedNormalV2", "StatelessRandomUniformIntV2",
            "StatelessRandomUniformFullIntV2"):
    no_gradient(_op)
