"""The data family: ``tf.data`` in graph mode, TensorFlow 2.21's dataset and iterator ops.

* ``dataset_ops``: the dataset op types (``TensorSliceDataset``, ``MapDataset``,
  ``ShuffleDataset``, ...); each kernel returns a lazy pipeline value;
* ``iterator_ops``: ``OneShotIterator``, ``IteratorV2``, ``MakeIterator``,
  ``IteratorGetNext``, and the iterator resource;
* ``pipeline``: the run-time dataset values (Python generators of elements);
* ``datasets``: the ``tf.compat.v1.data`` classes (``Dataset``, ``Iterator``,
  ``TFRecordDataset``, ``TextLineDataset``);
* ``structure``: element structures (tuples, dicts; lists are tensors);
* ``tfrecord``: TFRecord framing and the masked CRC32C;
* ``tfrecord_io``: ``tf.io.TFRecordWriter``, ``tf_record_iterator``, ``TFRecordOptions``.

docs/data.md describes the design and cites TensorFlow's sources.
"""

from __future__ import annotations

from tfmini.ops.data import dataset_ops as _dataset_ops  # noqa: F401  (registers the ops)
from tfmini.ops.data import datasets as _datasets
from tfmini.ops.data import iterator_ops as _iterator_ops  # noqa: F401  (registers the ops)
from tfmini.ops.data import tfrecord_io as _tfrecord_io
from tfmini.ops.data.datasets import *  # noqa: F403
from tfmini.ops.data.tfrecord import encode_record, read_records  # noqa: F401  (event files)
from tfmini.ops.data.tfrecord_io import *  # noqa: F403

__all__ = sorted([*_datasets.__all__, *_tfrecord_io.__all__])
