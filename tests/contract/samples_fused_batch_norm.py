"""Contract samples for the fused batch norm family (tfmini/ops/nn/fused_batch_norm_ops.py).

The forward samples run in inference mode with mean and variance given as constant
tensors: TensorFlow's gradient of a FusedBatchNorm op is the gradient of ``y`` alone (none for
batch_mean, batch_variance or the reserve spaces, none for mean and variance), and in
inference the other outputs do not depend on x, scale or offset, so the registry-wide
finite-difference check sees exactly what TensorFlow's gradient defines. The grad-op samples
are in inference mode for the same reason (in training TensorFlow's second-order gradient
recomputes the batch statistics from x instead of reading the reserve spaces).
"""

import numpy as np

import tfmini as tm


def _x(shape, dtype=np.float32):
    return (np.linspace(-2, 3, int(np.prod(shape))) ** 2 - 1).reshape(shape).astype(dtype)


def _vectors(c, dtype=np.float32):
    return (np.linspace(0.5, 1.5, c).astype(dtype), np.linspace(-0.3, 0.4, c).astype(dtype))


def _forward(dtype=np.float32, data_format="NHWC", shape=(2, 2, 3, 3), u=np.float32):
    def sample():
        c = shape[1] if data_format[1] == "C" else shape[-1]
        scale, offset = _vectors(c, u)
        mean = tm.constant(np.linspace(0.1, 0.2, c).astype(u))
        variance = tm.constant(np.linspace(0.8, 1.6, c).astype(u))
        return ([_x(shape, dtype), scale, offset, mean, variance],
                {"epsilon": 0.001, "data_format": data_format, "is_training": False})
    return sample


def _grad(dtype=np.float32, data_format="NHWC", shape=(2, 2, 3, 3), v3=False,
          scale_dtype=np.float32):
    def sample():
        c = shape[1] if data_format[1] == "C" else shape[-1]
        scale, _ = _vectors(c, scale_dtype)
        rs1 = tm.constant(np.linspace(0.1, 0.2, c).astype(scale_dtype))
        rs2 = tm.constant(np.linspace(0.8, 1.6, c).astype(scale_dtype))
        inputs = [_x(shape, dtype)[::-1].copy(), _x(shape, dtype), scale, rs1, rs2]
        if v3:
            inputs.append(tm.constant(np.float32(0)))
        return inputs, {"epsilon": 0.001, "data_format": data_format, "is_training": False}
    return sample


SAMPLES = {
    "FusedBatchNorm": _forward(),
    "FusedBatchNormV2": _forward(np.float16, "NCHW"),
    "FusedBatchNormV3": _forward(np.float32, "NCDHW", (2, 2, 2, 3, 1)),
    "FusedBatchNormGrad": _grad(),
    "FusedBatchNormGradV2": _grad(np.float32, "NHWC"),
    "FusedBatchNormGradV3": _grad(np.float32, "NDHWC", (2, 2, 1, 3, 2), v3=True),
}
