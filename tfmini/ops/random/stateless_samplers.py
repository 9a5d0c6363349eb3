"""The stateless forms of the variable-cost samplers: StatelessRandomGammaV2 (``[2]`` seed),
StatelessRandomGammaV3 (key, counter, alg), StatelessRandomPoisson and
StatelessParameterizedTruncatedNormal (``tensorflow/core/kernels/stateless_random_gamma_op.cc``,
``stateless_random_ops.cc``, ``parameterized_truncated_normal_op.cc``).

They draw exactly as RandomGamma, RandomPoissonV2 and ParameterizedTruncatedNormal do
(:mod:`tfmini.ops.random.sampling`, :mod:`tfmini.ops.random.truncated`), from counter 0 of the
seed's stream; the output shape is the ``shape`` input, which must end with the (broadcast)
parameters' shape.
"""

from __future__ import annotations

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.random import sampling, truncated
from tfmini.ops.random.stateless import check_seed, key_counter_from_seed
from tfmini.ops.random.stateless_v2 import key_counter_from_inputs
from tfmini.ops.random.stream import check_size, output_dims

__all__: list[str] = []


def _seeded_shape(ic):
    seed = shape_fns.with_rank(ic.input_shape("seed"), 1)
    if seed.dims[0] is not None and seed.dims[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {seed.dims[0]}")
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


def _keyed_shape(ic):
    shape_fns.with_rank(ic.input_shape("key"), 1)
    shape_fns.with_rank(ic.input_shape("counter"), 1)
    shape_fns.with_rank(ic.input_shape("alg"), 0)
    return [shape_fns.shape_from_shape_tensor(ic, "shape")]


def _draw(dims, param, dtype, key_counter, sample):
    """``StatelessRandomOpBase::Compute`` then the sampler's ``Fill``: an empty output draws
    nothing; otherwise the shape must end with the parameter's."""
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    param = np.asarray(param)
    k = param.ndim
    if k > len(dims) or (k and list(dims[-k:]) != list(param.shape)):
        raise invalid_argument("Shape passed in must end with broadcasted shape.")
    if param.size == 0:
        raise invalid_argument("Input alpha should have non-zero element count, got: 0")
    key, counter = key_counter()
    per = n // param.size
    return sample(param, per, key, counter, dtype.np_dtype).reshape(dims)


@register_op("StatelessRandomGammaV2", inputs=["shape: T", "seed: Tseed", "alpha: dtype"],
             outputs=["output: dtype"],
             attrs=["dtype: {half, float, double}", "T: {int32, int64}",
                    "Tseed: {int32, int64} = DT_INT64"],
             shape_fn=_seeded_shape)
def stateless_random_gamma_v2_kernel(shape, seed, alpha, *, dtype):
    """Gamma(alpha, 1) samples of shape ``shape`` (ending with alpha's shape), determined by
    ``seed``."""
    dims = output_dims(shape)
    seed = check_seed(seed)
    return _draw(dims, alpha, dtype, lambda: key_counter_from_seed(seed), sampling.gamma)


@register_op("StatelessRandomGammaV3",
             inputs=["shape: shape_dtype", "key: uint64", "counter: uint64", "alg: int32",
                     "alpha: dtype"],
             outputs=["output: dtype"],
             attrs=["dtype: {half, float, double}", "shape_dtype: {int32, int64} = DT_INT32"],
             shape_fn=_keyed_shape)
def stateless_random_gamma_v3_kernel(shape, key, counter, alg, alpha, *, dtype):
    """Gamma(alpha, 1) samples of shape ``shape`` from the given Philox key and counter."""
    key_counter = key_counter_from_inputs(key, counter, alg)
    return _draw(output_dims(shape), alpha, dtype, lambda: key_counter, sampling.gamma)


@register_op("StatelessRandomPoisson", inputs=["shape: T", "seed: Tseed", "lam: Rtype"],
             outputs=["output: dtype"],
             attrs=["Rtype: {half, float, double, int32, int64}",
                    "dtype: {half, float, double, int32, int64}", "T: {int32, int64}",
                    "Tseed: {int32, int64} = DT_INT64"],
             shape_fn=_seeded_shape)
def stateless_random_poisson_kernel(shape, seed, lam, *, dtype):
    """Poisson(lam) samples of shape ``shape`` (ending with lam's shape), determined by
    ``seed``."""
    dims = output_dims(shape)
    seed = check_seed(seed)
    return _draw(dims, lam, dtype, lambda: key_counter_from_seed(seed), sampling.poisson)


@register_op("StatelessParameterizedTruncatedNormal",
             inputs=["shape: S", "seed: Tseed", "means: dtype", "stddevs: dtype",
                     "minvals: dtype", "maxvals: dtype"],
             outputs=["output: dtype"],
             attrs=["S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64",
                    "dtype: {half, float, double}"],
             shape_fn=_seeded_shape)
def stateless_parameterized_truncated_normal_kernel(shape, seed, means, stddevs, minvals,
                                                    maxvals, *, dtype):
    """Normal(mean, stddev) samples cut to [minval, maxval], the four parameters broadcast
    together and ending the output shape, determined by ``seed``
    (``TruncatedNormalFunctorV2``: the rows are the broadcast parameters, the output is laid
    out ``[samples, rows]``)."""
    seed = check_seed(seed)
    params = [np.asarray(p) for p in (means, stddevs, minvals, maxvals)]
    try:
        bshape = np.broadcast_shapes(*(p.shape for p in params))
    except ValueError:
        raise invalid_argument(
            "means, stddevs, minvals, maxvals must have compatible batch dimensions: "
            + " vs. ".join(dims_str(p.shape) for p in params)) from None
    dims = output_dims(shape)
    k = len(bshape)
    if k > len(dims) or (k and tuple(dims[-k:]) != tuple(bshape)):
        raise invalid_argument("Shape passed in must end with broadcasted shape.")
    n = check_size(dims, dtype)
    if n == 0:
        return np.zeros(dims, dtype.np_dtype)
    rows = int(np.prod(bshape, dtype=np.int64))
    per = n // rows
    flat = [np.broadcast_to(p, bshape).reshape(-1).astype(dtype.np_dtype) for p in params]
    key, counter = key_counter_from_seed(seed)
    try:
        out = truncated.parameterized_truncated_normal(flat, rows, per, n, key, counter,
                                                       dtype.np_dtype)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    except truncated.SamplerFailure:
        raise errors.InternalError(
            None, None, "TruncatedNormal rejection sampler failed to accept a sample.") from None
    return np.ascontiguousarray(out.reshape(rows, per).T).reshape(dims)


for _op in ("StatelessRandomGammaV2", "StatelessRandomGammaV3", "StatelessRandomPoisson",
            "StatelessParameterizedTruncatedNormal"):
    no_gradient(_op)
