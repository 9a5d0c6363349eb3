"""Records TensorFlow's gradients for the array-gradient cases into tests/goldens/array_grad.npz.

Run with the TensorFlow virtual environment (see tools/README.md)::

    /work/tfenv/bin/python tools/record_goldens_array_grad.py

The cases live in tests/ops/array/array_grad_cases.py, written once against the shared TF1 API
(graph mode, ``tf.gradients`` with fixed ``grad_ys``, inputs from a fixed seed) and replayed
on tfmini by tests/ops/array/test_array_grad.py. Keys, for the i-th gradient of a case:

* ``grad/<case>/<i>/kind``: ``"dense"`` or ``"sparse"`` (an IndexedSlices);
* ``grad/<case>/<i>/dense``: the gradient as a dense array (sparse rows summed into place);
* ``grad/<case>/<i>/values``, ``.../indices``, ``.../dense_shape``: an IndexedSlices' parts.

For the helper ops tfmini registers in tfmini/ops/array_grad.py it also records
``raw/<case>/value`` (or ``raw/<case>/value/<i>``) or ``raw/<case>/error`` (the message
gist) for run-time cases, and ``opdef/<Op>``, the signature as JSON in the format of
tools/record_goldens_array.py.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools"))

from record_goldens_array import _gist, _opdef_json  # noqa: E402

from tests.ops.array import array_grad_cases  # noqa: E402

OUT = os.path.join(ROOT, "tests", "goldens", "array_grad.npz")
HELPER_OPS = ("InvertPermutation", "ConcatOffset", "Pad", "StridedSliceGrad", "GatherNd")


def record() -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name in HELPER_OPS:
        out[f"opdef/{name}"] = np.array(_opdef_json(name))
    for name, thunk in array_grad_cases.cases(tf).items():
        tf.set_random_seed(0)
        g = tf.Graph()
        with g.as_default():
            grads = thunk()
            if any(gr is None for gr in grads):
                raise AssertionError(f"case {name}: a gradient is None")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                values = sess.run(grads)
        for i, (gr, v) in enumerate(zip(grads, values)):
            key = f"grad/{name}/{i}"
            if isinstance(gr, tf.IndexedSlices):
                dense = np.zeros(v.dense_shape, dtype=v.values.dtype)
                np.add.at(dense, v.indices, v.values)
                out[f"{key}/kind"] = np.array("sparse")
                out[f"{key}/values"] = v.values
                out[f"{key}/indices"] = v.indices
                out[f"{key}/dense_shape"] = v.dense_shape
            else:
                dense = np.asarray(v)
                out[f"{key}/kind"] = np.array("dense")
            out[f"{key}/dense"] = dense
    for name, thunk in array_grad_cases.raw_cases(tf).items():
        g = tf.Graph()
        with g.as_default():
            t = thunk()
            with tf.Session() as sess:
                try:
                    value = sess.run(t)
                except tf.errors.InvalidArgumentError as e:
                    out[f"raw/{name}/error"] = np.array(_gist(e.message))
                    continue
        if isinstance(value, list):
            for i, v in enumerate(value):
                out[f"raw/{name}/value/{i}"] = np.asarray(v)
        else:
            out[f"raw/{name}/value"] = np.asarray(value)
    return out


def main() -> None:
    out = record()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
