"""Kernels rewritten for speed (issue 17) against TensorFlow 2.21's recorded results
(tools/record_goldens_perf.py): masked-multiply ReluGrad/Relu6Grad with non-finite
gradients, and sort-based UnsortedSegmentSum."""

from __future__ import annotations

import numpy as np
import pytest

import tfmini as tm
from tests.conftest import load_golden

G = load_golden("perf")


def _run(op):
    with tm.Session(graph=tm.get_default_graph()) as sess:
        return sess.run(op)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("case,op", [("relu_grad", "ReluGrad"), ("relu6_grad", "Relu6Grad")])
def test_activation_grads_match_tensorflow_with_nonfinite_gradients(graph, case, op, dtype):
    key = f"{case}/{dtype}"
    got = _run(getattr(tm.raw_ops, op)(gradients=G[f"{key}/gradients"],
                                         features=G[f"{key}/features"]))
    want = G[f"{key}/backprops"]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # NaN where TensorFlow has NaN, bit for bit


def test_unsorted_segment_sum_matches_tensorflow(graph):
    key = "unsorted_segment_sum/zipf"
    got = _run(tm.raw_ops.UnsortedSegmentSum(data=G[f"{key}/data"],
                                             segment_ids=G[f"{key}/segment_ids"],
                                             num_segments=G[f"{key}/num_segments"]))
    np.testing.assert_allclose(got, G[f"{key}/output"], rtol=1e-5, atol=1e-5)
