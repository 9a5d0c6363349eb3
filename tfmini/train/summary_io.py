"""``tf.compat.v1.summary.FileWriter`` and ``FileWriterCache``
(``tensorflow/python/summary/writer/writer.py``, ``writer_cache.py``).

A FileWriter turns summaries, graphs, meta graphs, session logs and run metadata into
``Event`` records of one event file (:mod:`tfmini.ops.io.events`), written by a background
thread. It lives in the train layer because ``FileWriter(logdir, graph)`` also writes the
graph's MetaGraphDef, which :mod:`tfmini.train.meta_graph` builds.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from tfmini.core.graph import Graph
from tfmini.core.scope import get_default_graph
from tfmini.ops import io as io_family
from tfmini.train.meta_graph import export_meta_graph

__all__ = ["FileWriter", "FileWriterCache"]

_log = logging.getLogger("tfmini")


def _shape_list(op: Any) -> list:
    return [o.shape for o in op.outputs]


def graph_def_with_shapes(graph: Graph) -> Any:
    """The ``GraphDef`` of ``graph`` with each node's ``_output_shapes`` attr, as
    ``graph.as_graph_def(add_shapes=True)`` writes it for TensorBoard."""
    gd = io_family.graph_def_to_proto(graph)
    by_name = {op.name: op for op in graph.get_operations()}
    for node in gd.node:
        op = by_name.get(node.name)
        if op is None or not op.outputs:
            continue
        shapes = node.attr["_output_shapes"].list.shape
        for shape in _shape_list(op):
            io_family.graph_proto.shape_to_proto(shape, shapes.add())
    return gd


def run_metadata_to_proto(run_metadata: Any) -> Any:
    """A ``RunMetadata`` message for tfmini's ``RunMetadata`` (or the message itself)."""
    if isinstance(run_metadata, io_family.protos.RunMetadata):
        return run_metadata
    out = io_family.protos.RunMetadata()
    for dev in run_metadata.step_stats.dev_stats:
        dev_proto = out.step_stats.dev_stats.add(device=dev.device)
        for ns in dev.node_stats:
            node = dev_proto.node_stats.add(
                node_name=ns.node_name, all_start_micros=ns.all_start_micros,
                op_start_rel_micros=0, op_end_rel_micros=ns.all_end_rel_micros,
                all_end_rel_micros=ns.all_end_rel_micros,
                timeline_label=getattr(ns, "timeline_label", ""),
                thread_id=getattr(ns, "thread_id", 0) & 0xFFFFFFFF)
            sizes = getattr(ns, "output_bytes", [])
            dtypes = getattr(ns, "output_dtypes", [])
            for slot, shape in enumerate(ns.output_shapes):
                desc = node.output.add(slot=slot).tensor_description
                if slot < len(dtypes):
                    desc.dtype = io_family.protos.DATA_TYPES.get(f"DT_{dtypes[slot].upper()}", 0)
                for d in shape:
                    desc.shape.dim.add(size=int(d))
                if slot < len(sizes):
                    desc.allocation_description.requested_bytes = sizes[slot]
                    desc.allocation_description.allocated_bytes = sizes[slot]
                    desc.allocation_description.allocator_name = "cpu"
    return out


class FileWriter:
    """Writes ``Summary`` protocol buffers and graphs to an event file in ``logdir``.

    Example::

        writer = tm.summary.FileWriter("/tmp/logs", sess.graph)
        writer.add_summary(sess.run(merged), global_step=step)
        writer.close()

    Args:
        logdir: The directory of the event file (made if missing).
        graph: A graph to write at once (its GraphDef, then its MetaGraphDef).
        max_queue: Events queued before ``add_*`` blocks.
        flush_secs: How often the writer thread flushes the file.
        graph_def: Deprecated spelling of ``graph`` (a GraphDef message).
        filename_suffix: Appended to the event file's name.
        session: Not supported (TF's V2 summary writer resource).

    Raises:
        NotImplementedError: ``session`` was given.
    """

    def __init__(self, logdir: str, graph: Any = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def: Any = None,
                 filename_suffix: str | None = None, session: Any = None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) (a summary writer resource in "
                                      "the session) is not supported by tfmini")
        self.event_writer = io_family.events.EventFileWriter(logdir, max_queue, flush_secs,
                                                   filename_suffix or "")
        self._closed = False
        self._session_run_tags: dict[str, bool] = {}
        self._seen_summary_tags: set[str] = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            meta = export_meta_graph(graph=graph if isinstance(graph, Graph)
                                     else get_default_graph())
            self.add_meta_graph(meta)

    # -- context manager ----------------------------------------------------------------------
    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- adding events ------------------------------------------------------------------------
    def add_summary(self, summary: Any, global_step: int | None = None) -> None:
        """Adds a ``Summary`` (message or serialized bytes, what a summary op returns).

        Metadata of a tag already written is dropped, as TensorFlow does, to save space.
        """
        if isinstance(summary, (bytes, str)) or hasattr(summary, "dtype"):
            raw = summary.item() if hasattr(summary, "item") else summary
            summary = io_family.protos.Summary.FromString(
                raw.encode("latin-1") if isinstance(raw, str) else raw)
        else:
            summary = io_family.protos.Summary.FromString(summary.SerializeToString())
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(io_family.protos.Event(summary=summary), global_step)

    def add_session_log(self, session_log: Any, global_step: int | None = None) -> None:
        """Adds a ``SessionLog`` (START, STOP, CHECKPOINT)."""
        event = io_family.protos.Event()
        event.session_log.CopyFrom(session_log)
        self._add_event(event, global_step)

    def add_graph(self, graph: Any, global_step: int | None = None,
                  graph_def: Any = None) -> None:
        """Adds a graph (a tfmini ``Graph``, or a ``GraphDef`` message) for TensorBoard.

        Raises:
            ValueError: both ``graph`` and ``graph_def`` were given.
            TypeError: neither is a Graph or GraphDef.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, Graph) or isinstance(graph_def, Graph):
            gd = graph_def_with_shapes(graph if isinstance(graph, Graph) else graph_def)
        elif isinstance(graph, io_family.protos.GraphDef) or isinstance(
                graph_def, io_family.protos.GraphDef):
            gd = graph if isinstance(graph, io_family.protos.GraphDef) else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                            "`GraphDef`")
        self._add_event(io_family.protos.Event(graph_def=gd.SerializeToString()), global_step)

    def add_meta_graph(self, meta_graph_def: Any, global_step: int | None = None) -> None:
        """Adds a ``MetaGraphDef``.

        Raises:
            TypeError: ``meta_graph_def`` is not a MetaGraphDef message.
        """
        if not isinstance(meta_graph_def, io_family.protos.MetaGraphDef):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: "
                            f"{type(meta_graph_def)}")
        self._add_event(io_family.protos.Event(meta_graph_def=meta_graph_def.SerializeToString()),
                        global_step)

    def add_run_metadata(self, run_metadata: Any, tag: str,
                         global_step: int | None = None) -> None:
        """Adds the ``RunMetadata`` of a traced run (TensorBoard's per-step compute time).

        Raises:
            ValueError: ``tag`` was used before on this writer.
        """
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        event = io_family.protos.Event()
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = (
            run_metadata_to_proto(run_metadata).SerializeToString())
        self._add_event(event, global_step)

    def add_event(self, event: Any) -> None:
        """Adds an ``Event`` message as it is."""
        self._warn_if_closed()
        self.event_writer.add_event(event)

    def _add_event(self, event: Any, step: int | None) -> None:
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def _warn_if_closed(self) -> None:
        if self._closed:
            _log.warning("Attempting to use a closed FileWriter. The operation will be a noop "
                         "unless the FileWriter is explicitly reopened.")

    # -- file ---------------------------------------------------------------------------------
    def get_logdir(self) -> str:
        """The directory of the event file."""
        return self.event_writer.get_logdir()

    def flush(self) -> None:
        """Writes every pending event to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file."""
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        """Opens a new event file in the same directory after ``close``."""
        self.event_writer.reopen()
        self._closed = False


class FileWriterCache:
    """One ``FileWriter`` per log directory, shared by hooks and user code."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir: str) -> FileWriter:
        """The FileWriter of ``logdir`` (made at first use, with the default graph)."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer

    @staticmethod
    def clear() -> None:
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
