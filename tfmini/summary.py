"""``tm.summary``: TF1's ``tf.compat.v1.summary`` (see ``docs/summaries.md``).

* summary functions: :func:`scalar`, :func:`histogram`, :func:`image`, :func:`audio`,
  :func:`text`, :func:`tensor_summary`, :func:`merge`, :func:`merge_all` (the ops are in
  :mod:`tfmini.ops.io.summary_ops`);
* :class:`FileWriter` and :class:`FileWriterCache` (:mod:`tfmini.train.summary_io`), writing
  TensorBoard event files;
* :func:`summary_iterator` reads an event file back (also ``tm.train.summary_iterator``);
* TensorFlow's message classes ``Summary``, ``Event``, ``SessionLog``, ``TaggedRunMetadata``,
  ``SummaryMetadata``, ``HistogramProto``.
"""

from __future__ import annotations

from tfmini.ops.io.events import summary_iterator
from tfmini.ops.io.protos import (
    Event,
    HistogramProto,
    SessionLog,
    Summary,
    SummaryMetadata,
    TaggedRunMetadata,
)
from tfmini.ops.io.summary_ops import (
    audio,
    histogram,
    image,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
from tfmini.train.summary_io import FileWriter, FileWriterCache

__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "HistogramProto",
    "SessionLog",
    "Summary",
    "SummaryMetadata",
    "TaggedRunMetadata",
    "audio",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "summary_iterator",
    "tensor_summary",
    "text",
]
