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

from tfmini.ops import io as _io
from tfmini.train.summary_io import FileWriter, FileWriterCache

summary_iterator = _io.events.summary_iterator
Event, HistogramProto = _io.protos.Event, _io.protos.HistogramProto
SessionLog = _io.protos.SessionLog
Summary, SummaryMetadata = _io.protos.Summary, _io.protos.SummaryMetadata
TaggedRunMetadata = _io.protos.TaggedRunMetadata
audio, histogram, image = _io.summary_ops.audio, _io.summary_ops.histogram, _io.summary_ops.image
merge, merge_all, scalar = _io.summary_ops.merge, _io.summary_ops.merge_all, _io.summary_ops.scalar
tensor_summary, text = _io.summary_ops.tensor_summary, _io.summary_ops.text

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
