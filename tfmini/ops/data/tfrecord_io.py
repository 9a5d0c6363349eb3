"""``tf.io`` TFRecord basics: :class:`TFRecordWriter`, :func:`tf_record_iterator`,
:class:`TFRecordOptions` (``tensorflow/python/lib/io/tf_record.py``), over
:mod:`tfmini.ops.data.tfrecord`. Uncompressed files only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tfmini.ops.data import tfrecord

__all__ = ["TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]


class TFRecordOptions:
    """Options for TFRecord files; only ``compression_type`` '' / None (no compression)."""

    def __init__(self, compression_type: Any = None, **kwargs: Any):
        if compression_type not in (None, "", "NONE", 0):
            raise NotImplementedError(
                f"compression_type {compression_type!r} is not supported by tfmini")
        self.compression_type = ""

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        return ""


def _check_options(options: Any) -> None:
    if isinstance(options, str) or options is None:
        TFRecordOptions(options)


class TFRecordWriter:
    """Writes records to a TFRecord file (``tf.io.TFRecordWriter``); a context manager.

    Example::

        with tm.io.TFRecordWriter("data.tfrecord") as w:
            w.write(b"record")
    """

    def __init__(self, path: str, options: Any = None):
        _check_options(options)
        self._path = str(path)
        self._file = open(self._path, "wb")  # noqa: SIM115  (closed by close())

    def write(self, record: bytes | str) -> None:
        """Appends one record."""
        if self._file is None:
            raise ValueError(f"TFRecordWriter for {self._path!r} is closed")
        if isinstance(record, str):
            record = record.encode()
        self._file.write(tfrecord.encode_record(bytes(record)))

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def tf_record_iterator(path: str, options: Any = None) -> Iterator[bytes]:
    """The records of a TFRecord file (``tf.compat.v1.io.tf_record_iterator``).

    Raises:
        DataLossError: a truncated or corrupted record (naming the file and offset).
    """
    _check_options(options)
    return tfrecord.read_records(str(path))
