"""Contract samples for the summary ops of the io family (tfmini/ops/io/summary_ops.py)."""

import numpy as np

import tfmini as tm
from tfmini.ops.io import protos

SAMPLES = {
    "ScalarSummary": lambda: ([tm.constant(["a", "b"]), tm.constant([1.0, 2.0])], {}),
    "HistogramSummary": lambda: ([tm.constant("h"), tm.constant([[1.0, -2.0], [0.5, 3.0]])],
                                 {}),
    "ImageSummary": lambda: ([tm.constant("i"),
                              tm.constant(np.linspace(-1, 1, 24, dtype=np.float32)
                                          .reshape(2, 2, 2, 3))], {"max_images": 2}),
    "AudioSummaryV2": lambda: ([tm.constant("a"), tm.constant(np.zeros((1, 8), np.float32)),
                                tm.constant(8000.0)], {}),
    "TensorSummaryV2": lambda: ([tm.constant("t"), tm.constant([1, 2, 3]),
                                 tm.constant(protos.SummaryMetadata().SerializeToString())],
                                {}),
    "MergeSummary": lambda: ([[tm.raw_ops.ScalarSummary(tags="x", values=1.0),
                               tm.raw_ops.ScalarSummary(tags="y", values=2.0)]], {}),
}
