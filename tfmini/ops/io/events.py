"""TensorBoard event files: ``events.out.tfevents.<seconds>.<hostname>``.

An event file is a TFRecord file (``tfmini.ops.data``'s framing, masked CRC-32C) of ``Event``
protocol buffers. The first record is the version event (``file_version: "brain.Event:2"``),
as ``tensorflow/core/util/events_writer.cc`` writes it; the others carry summaries, the
graph, meta graphs, session logs and run metadata.

* ``EventsWriter``: the synchronous file writer (events_writer.cc);
* ``EventFileWriter``: the queue and background thread of TF1's ``FileWriter``
  (``tensorflow/python/summary/writer/event_file_writer.py``): ``add_event`` returns at
  once, a thread writes, and the file is flushed every ``flush_secs`` and on ``flush``;
* ``summary_iterator``: reads the events of a file back; a truncated or corrupted file
  raises ``DataLossError`` naming it.
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from tfmini import errors
from tfmini.ops import data as data_family
from tfmini.ops.io import protos

__all__: list[str] = []

FILE_VERSION = "brain.Event:2"
WRITER_NAME = "tensorflow.core.util.events_writer"  # what TF 2.21 records as the writer


def event_filename(logdir: str, filename_suffix: str = "", now: float | None = None) -> str:
    """``logdir/events.out.tfevents.<seconds as %010d>.<hostname><suffix>`` (events_writer.cc)."""
    seconds = int(time.time() if now is None else now)
    return os.path.join(
        logdir, f"events.out.tfevents.{seconds:010d}.{socket.gethostname()}{filename_suffix}")


class EventsWriter:
    """Writes ``Event`` records to one new event file; not thread-safe (one writer thread).

    Args:
        logdir: The directory (made if missing).
        filename_suffix: Appended to the file name.
    """

    def __init__(self, logdir: str, filename_suffix: str = ""):
        os.makedirs(logdir, exist_ok=True)
        now = time.time()
        self.path = event_filename(logdir, filename_suffix, now)
        self._file = open(self.path, "wb")  # noqa: SIM115  (closed by close())
        version = protos.Event(wall_time=float(int(now)), file_version=FILE_VERSION)
        version.source_metadata.writer = WRITER_NAME
        self.write_serialized(version.SerializeToString())
        self.flush()

    def write_serialized(self, event: bytes) -> None:
        """Appends one serialized ``Event``."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None,
                                                 f"event file {self.path!r} is closed")
        self._file.write(data_family.encode_record(event))

    def write_event(self, event: Any) -> None:
        """Appends one ``Event`` message."""
        self.write_serialized(event.SerializeToString())

    def flush(self) -> None:
        """Writes buffered records to the file (and the OS's disk cache)."""
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Flushes and closes the file; later writes fail."""
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None


_CLOSE = object()
_FLUSH = object()


class EventFileWriter:
    """Writes events asynchronously: ``add_event`` queues, a thread writes.

    Args:
        logdir: The directory of the event file.
        max_queue: Events queued before ``add_event`` blocks (TF's default 10).
        flush_secs: The thread flushes the file at least this often (TF's default 120).
        filename_suffix: Appended to the event file's name.
    """

    def __init__(self, logdir: str, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str = ""):
        self._logdir = str(logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._closed = True
        self._error: BaseException | None = None
        self.reopen()

    def get_logdir(self) -> str:
        """The directory events are written to."""
        return self._logdir

    @property
    def path(self) -> str:
        """The current event file."""
        return self._writer.path

    def reopen(self) -> None:
        """Opens a new event file after ``close`` (a no-op while open)."""
        with self._lock:
            if not self._closed:
                return
            self._writer = EventsWriter(self._logdir, self._suffix)
            self._queue: queue.Queue = queue.Queue(self._max_queue)
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="tfmini EventFileWriter")
            self._closed = False
            self._thread.start()

    def add_event(self, event: Any) -> None:
        """Queues an ``Event`` message for writing (ignored once closed, as in TF)."""
        if not self._closed:
            self._queue.put(event.SerializeToString())

    def flush(self) -> None:
        """Waits until every queued event is written, then flushes the file."""
        if self._closed:
            return
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        done.wait()
        self._raise_pending()

    def close(self) -> None:
        """Writes every queued event, closes the file and ends the thread."""
        with self._lock:
            if self._closed:
                return
            self._queue.put(_CLOSE)
            self._thread.join()
            self._closed = True
        self._raise_pending()

    def _raise_pending(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        next_flush = time.monotonic() + self._flush_secs
        while True:
            timeout = max(next_flush - time.monotonic(), 0.0)
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            try:
                if item is _CLOSE:
                    self._writer.close()
                    return
                if isinstance(item, tuple):  # a flush request
                    self._writer.flush()
                    item[1].set()
                    next_flush = time.monotonic() + self._flush_secs
                    continue
                if item is not None:
                    self._writer.write_serialized(item)
                if time.monotonic() >= next_flush:
                    self._writer.flush()
                    next_flush = time.monotonic() + self._flush_secs
            except Exception as e:  # noqa: BLE001  (reported to the next flush or close)
                self._error = e
                if isinstance(item, tuple):
                    item[1].set()


def summary_iterator(path: str) -> Iterator[Any]:
    """Yields the ``Event`` messages of the event file ``path``
    (``tf.compat.v1.train.summary_iterator``).

    Raises:
        NotFoundError: no such file.
        DataLossError: a truncated or corrupted record, or a record that is not an
            ``Event``; the message names the file.
    """
    for index, record in enumerate(data_family.read_records(path)):
        event = protos.Event()
        try:
            event.ParseFromString(record)
        except Exception:  # noqa: BLE001  (protobuf's DecodeError)
            raise errors.DataLossError(
                None, None, f"record {index} of event file {path!r} is not an Event "
                "protocol buffer") from None
        yield event
