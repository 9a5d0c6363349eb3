"""Records TensorFlow's results for the compiled pooling, activation and row loops (issue 17:
the convnet's memory-bound kernels) into tests/goldens/pool_act.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_pool_act.py

Cases, in float32 and float64, with 32 channels (the loops' 64-byte channel blocks) and 5
(their loop over any channel count): MaxPool and MaxPoolGrad over windows that tile the
input (2x2 and 3x2), on values with many ties (``-0.0`` against ``0.0`` included) and
infinities, gradients with ``-0.0``, negatives, infinities and NaN; the same with NaN in
some windows (the general path); Relu and ReluGrad on special values; the bias add
(AddV2 of a row vector) and the bias gradient (Sum over all axes but the last). Keys are
``<case>/<argument>``; inputs come from fixed seeds.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "pool_act.npz"
RNG = np.random.default_rng(1718)
SPECIAL = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf])
records: dict[str, np.ndarray] = {}


def record(case: str, op_type: str, output: str, attrs: dict | None = None,
           **inputs) -> None:
    result = getattr(tf.raw_ops, op_type)(**{k: tf.constant(v) for k, v in inputs.items()},
                                          **(attrs or {}))
    for k, v in inputs.items():
        records[f"{case}/{k}"] = np.asarray(v)
    records[f"{case}/{output}"] = result.numpy()


def _pool_attrs(kh: int, kw: int) -> dict:
    return {"ksize": [1, kh, kw, 1], "strides": [1, kh, kw, 1], "padding": "VALID"}


for dt in (np.float32, np.float64):
    name = np.dtype(dt).name
    for c in (32, 5):
        for kh, kw in ((2, 2), (3, 2)):
            for nan in (False, True):
                shape = (1, 2 * kh, 3 * kw, c)
                x = RNG.choice(SPECIAL[:6], size=shape).astype(dt)  # mostly ties
                x.flat[RNG.choice(x.size, 9, replace=False)] = [np.inf, -np.inf] * 4 + [
                    np.inf]
                if nan:
                    x.flat[RNG.choice(x.size, 7, replace=False)] = np.nan
                dy = RNG.standard_normal((1, 2, 3, c)).astype(dt)
                dy.flat[:6] = [-0.0, np.inf, -np.inf, np.nan, -0.0, -1.0]
                case = f"max_pool/{name}/c{c}/{kh}x{kw}" + ("/nan" if nan else "")
                attrs = _pool_attrs(kh, kw)
                y = tf.raw_ops.MaxPool(input=tf.constant(x), **attrs).numpy()
                records[f"{case}/input"] = x
                records[f"{case}/output"] = y
                record(case + "/grad", "MaxPoolGrad", "output", attrs, orig_input=x,
                       orig_output=y, grad=dy)

    # No denormals: TensorFlow's CPU threads flush them to zero, tfmini keeps them.
    feats = np.concatenate([SPECIAL, [np.nan, 1e-30, -1e-30]]).astype(dt)
    feats = np.tile(feats, 7)[:64].reshape(2, 32)
    grads = RNG.standard_normal(feats.shape).astype(dt)
    grads.flat[:8] = [-0.0, -1.0, np.inf, -np.inf, np.nan, 0.0, -3.0, np.nan]
    record(f"relu/{name}", "Relu", "activations", features=feats)
    record(f"relu_grad/{name}", "ReluGrad", "backprops", gradients=grads, features=feats)

    for c in (32, 5, 1):
        x = RNG.standard_normal((2, 3, 4, c)).astype(dt)
        x[..., 0] = -0.0  # a column of negative zeros
        b = RNG.standard_normal(c).astype(dt)
        record(f"bias_add/{name}/c{c}", "AddV2", "z", x=x, y=b)
        record(f"bias_grad/{name}/c{c}", "Sum", "output", {"keep_dims": False}, input=x,
               axis=np.int32([0, 1, 2]))

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes) with TF {tf.__version__}")
