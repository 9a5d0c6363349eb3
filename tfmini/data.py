"""``tm.data``: input pipelines, as ``tf.compat.v1.data`` in graph mode.

A thin namespace over the data family (:mod:`tfmini.ops.data`), where the dataset and
iterator ops and the Python classes live. docs/data.md describes the design.
"""

from __future__ import annotations

from tfmini.ops.data import (
    Dataset,
    Iterator,
    TextLineDataset,
    TFRecordDataset,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)

# tf.data.AUTOTUNE: num_parallel_calls / buffer sizes chosen by the runtime.
AUTOTUNE = -1
experimental = type("experimental", (), {"AUTOTUNE": AUTOTUNE})

__all__ = ["AUTOTUNE", "Dataset", "Iterator", "TFRecordDataset", "TextLineDataset",
           "get_output_shapes", "get_output_types", "make_initializable_iterator",
           "make_one_shot_iterator"]
