"""``tm.io`` (also ``tm.python_io``): TFRecord files, as ``tf.compat.v1.io``.

:class:`TFRecordWriter`, :func:`tf_record_iterator` and :class:`TFRecordOptions`; the framing
and CRCs are in :mod:`tfmini.ops.data.tfrecord` (uncompressed files only).
"""

from __future__ import annotations

from tfmini.ops.data import TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
