"""UnsortedSegmentSum by sorted row sums (issue 17) against TensorFlow 2.21's recorded
result (tools/record_goldens_perf.py)."""

from __future__ import annotations

import numpy as np

import tfmini as tm
from tests.conftest import load_golden

G = load_golden("perf")


def _run(op):
    with tm.Session(graph=tm.get_default_graph()) as sess:
        return sess.run(op)


def test_unsorted_segment_sum_matches_tensorflow(graph):
    key = "unsorted_segment_sum/zipf"
    got = _run(tm.raw_ops.UnsortedSegmentSum(data=G[f"{key}/data"],
                                             segment_ids=G[f"{key}/segment_ids"],
                                             num_segments=G[f"{key}/num_segments"]))
    np.testing.assert_allclose(got, G[f"{key}/output"], rtol=1e-5, atol=1e-5)
