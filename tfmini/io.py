"""``tm.io`` (also ``tm.python_io`` for the TFRecord names), as ``tf.compat.v1.io``.

* TFRecord files: :class:`TFRecordWriter`, :func:`tf_record_iterator`, :class:`TFRecordOptions`
  (the framing and CRCs are in :mod:`tfmini.ops.data.tfrecord`; uncompressed files only);
* graph files: ``write_graph`` (binary ``.pb`` / text ``.pbtxt``), ``read_graph_def``,
  ``graph_def_to_proto`` (a tfmini Graph as TensorFlow's ``GraphDef`` message) and
  ``import_graph_def``.
"""

from __future__ import annotations

from tfmini.ops.data import TFRecordOptions, TFRecordWriter, tf_record_iterator
from tfmini.ops.io import (
    decode_raw,
    graph_def_to_proto,
    import_graph_def,
    read_graph_def,
    write_graph,
)

__all__ = [
    "TFRecordOptions",
    "TFRecordWriter",
    "decode_raw",
    "graph_def_to_proto",
    "import_graph_def",
    "read_graph_def",
    "tf_record_iterator",
    "write_graph",
]
