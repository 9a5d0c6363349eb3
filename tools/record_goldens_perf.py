"""Records TensorFlow's results for the kernels issue 17 rewrote into tests/goldens/perf.npz.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_perf.py

Cases: ReluGrad and Relu6Grad with non-finite gradients (TensorFlow multiplies by the mask,
tensorflow/core/kernels/relu_op_functor.h, so a NaN or inf gradient where the mask is 0
gives NaN), and UnsortedSegmentSum of 16-wide rows with many repeated ids (the sort-based
row sums), and a failing stateless op grouped with an assign (not run: Grappler's
dependency optimizer). Keys are ``<case>/<argument>``; inputs come from fixed seeds.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "tests" / "goldens" / "perf.npz"
RNG = np.random.default_rng(1717)
records: dict[str, np.ndarray] = {}


def record(case: str, op_type: str, output: str, **inputs) -> None:
    result = getattr(tf.raw_ops, op_type)(**{k: tf.constant(v) for k, v in inputs.items()})
    for k, v in inputs.items():
        records[f"{case}/{k}"] = np.asarray(v)
    records[f"{case}/{output}"] = result.numpy()


for dt in (np.float16, np.float32, np.float64):
    grads = np.array([np.nan, np.inf, -np.inf, 1.5, np.nan, 2.0, -3.0, 4.0], dt)
    feats = np.array([-1.0, -2.0, 0.0, 1.0, 3.0, 7.0, 6.0, np.nan], dt)
    name = np.dtype(dt).name
    record(f"relu_grad/{name}", "ReluGrad", "backprops", gradients=grads, features=feats)
    record(f"relu6_grad/{name}", "Relu6Grad", "backprops", gradients=grads, features=feats)

ids = np.minimum(RNG.zipf(1.3, size=200) - 1, 29).astype(np.int32)
data = RNG.standard_normal((200, 16)).astype(np.float32)
record("unsorted_segment_sum/zipf", "UnsortedSegmentSum", "output", data=data,
       segment_ids=ids, num_segments=np.int32(30))

# A stateless op that only a control edge asks for is not run (Grappler's dependency
# optimizer turns it into a NoOp): grouped with an assign, a Reshape that would fail raises
# nothing and the assign happens.
v1 = tf.compat.v1
graph = tf.Graph()
with graph.as_default():
    x = v1.placeholder(tf.float32, [2])
    var = v1.Variable(1.0)
    bad = tf.reshape(x, v1.placeholder_with_default(np.int32([3]), [1]))
    step = tf.group(var.assign_add(1.0), bad)
    with v1.Session(graph=graph) as sess:
        sess.run(var.initializer)
        try:
            sess.run(step, {x: [1.0, 2.0]})
            raised = 0
        except tf.errors.OpError:
            raised = 1
        records["control_only/raised"] = np.int32(raised)
        records["control_only/var"] = np.float32(sess.run(var))

OUT.parent.mkdir(parents=True, exist_ok=True)
np.savez_compressed(OUT, **records)
print(f"wrote {len(records)} arrays to {OUT} ({OUT.stat().st_size} bytes) with TF {tf.__version__}")
