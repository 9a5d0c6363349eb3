"""``tm.client.timeline``: a traced run as a Chrome / Perfetto trace
(``tensorflow/python/client/timeline.py``).

Example::

    opts = tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE)
    meta = tm.RunMetadata()
    sess.run(train_op, options=opts, run_metadata=meta)
    trace = tm.client.timeline.Timeline(meta.step_stats).generate_chrome_trace_format()
    open("timeline.json", "w").write(trace)  # open in chrome://tracing or ui.perfetto.dev

Each device is a process of the trace and each thread that ran ops a thread of it; each op
is a complete event (``"ph": "X"``) named by its type, with the node name, its inputs and
its outputs' shapes and sizes in ``args``.

:func:`tracing` traces every run of a block of code without touching its ``Session.run``
calls (``tfmini trace SCRIPT`` runs a whole script inside it)::

    with tm.client.timeline.tracing("traces"):   # traces/run-00001.json, run-00002.json, ...
        train()
    with tm.client.timeline.tracing("all.json", merge=True):  # one file, runs one after another
        train()
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

from tfmini.runtime import session as _session
from tfmini.runtime.options import DeviceStepStats, StepStats

__all__ = ["Timeline", "Tracer", "tracing"]

_LABEL = re.compile(r"^(?P<name>.*) = (?P<op>[^(]*)\((?P<inputs>.*)\)$")


def _op_and_inputs(ns: Any) -> tuple[str, list[str]]:
    """The op type and input names of a node's stats (tfmini's or a NodeExecStats message)."""
    label = getattr(ns, "timeline_label", "") or ""
    match = _LABEL.match(label)
    inputs = [s for s in match.group("inputs").split(", ") if s] if match else []
    op_type = getattr(ns, "op_type", None) or (match.group("op") if match else ns.node_name)
    return op_type, inputs


def _outputs(ns: Any) -> list[tuple[list[int], int]]:
    """``(shape, bytes)`` of each output."""
    if hasattr(ns, "output_shapes"):  # tfmini's NodeExecStats
        sizes = list(getattr(ns, "output_bytes", []))
        sizes += [0] * (len(ns.output_shapes) - len(sizes))
        return [(list(s), b) for s, b in zip(ns.output_shapes, sizes, strict=True)]
    return [([d.size for d in o.tensor_description.shape.dim],
             o.tensor_description.allocation_description.requested_bytes) for o in ns.output]


class Timeline:
    """Turns ``StepStats`` (``RunMetadata.step_stats``) into a Chrome trace.

    Args:
        step_stats: tfmini's ``StepStats`` or TensorFlow's ``StepStats`` message.
        graph: Unused (TensorFlow uses it for op categories); accepted for compatibility.
    """

    def __init__(self, step_stats: Any, graph: Any = None):
        del graph
        self._step_stats = step_stats

    def _events(self, show_dataflow: bool) -> list[dict]:
        events: list[dict] = []
        start = min((ns.all_start_micros for dev in self._step_stats.dev_stats
                     for ns in dev.node_stats), default=0)
        producers: dict[str, tuple[int, int, int]] = {}
        flows: list[tuple[str, int, int, int]] = []
        for pid, dev in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": f"{dev.device} Compute"}})
            threads: dict[int, int] = {}
            for ns in dev.node_stats:
                tid = threads.setdefault(int(getattr(ns, "thread_id", 0)), len(threads))
                op_type, inputs = _op_and_inputs(ns)
                ts = ns.all_start_micros - start
                args: dict[str, Any] = {"name": ns.node_name, "op": op_type}
                for i, name in enumerate(inputs):
                    args[f"input{i}"] = name
                for i, (shape, size) in enumerate(_outputs(ns)):
                    args[f"output{i}"] = {"shape": shape, "bytes": size}
                events.append({"name": op_type, "cat": "Op", "ph": "X", "pid": pid,
                               "tid": tid, "ts": ts, "dur": max(ns.all_end_rel_micros, 0),
                               "args": args})
                producers[ns.node_name] = (pid, tid, ts + max(ns.all_end_rel_micros, 0))
                flows.extend((name.split(":")[0].lstrip("^"), pid, tid, ts) for name in inputs)
            for thread, tid in threads.items():
                events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                               "args": {"name": f"thread {thread}"}})
        if show_dataflow:
            for flow_id, (src, pid, tid, ts) in enumerate(flows):
                if src not in producers:
                    continue
                spid, stid, sts = producers[src]
                events.append({"name": "dataflow", "cat": "DataFlow", "ph": "s", "id": flow_id,
                               "pid": spid, "tid": stid, "ts": sts})
                events.append({"name": "dataflow", "cat": "DataFlow", "ph": "t", "id": flow_id,
                               "pid": pid, "tid": tid, "ts": ts})
        return events

    def generate_chrome_trace_format(self, show_dataflow: bool = True,
                                     show_memory: bool = False,
                                     op_time: str = "schedule") -> str:
        """The trace as JSON text (``{"traceEvents": [...]}``).

        Args:
            show_dataflow: Add flow arrows from each op to the ops that read its outputs.
            show_memory: Accepted; tfmini records no allocator timeline.
            op_time: Accepted; tfmini has one time per op.
        """
        del show_memory, op_time
        return json.dumps({"traceEvents": self._events(show_dataflow)}, indent=None,
                          separators=(",", ":"))


class Tracer:
    """Collects the StepStats of traced runs and writes Chrome traces (see :func:`tracing`).

    Args:
        path: A directory (one ``run-NNNNN.json`` per run, written as each run ends) or,
            with ``merge``, the one file written when tracing stops.
        merge: One file for all runs, on one time axis (each device one process).
        show_dataflow: Flow arrows from producers to consumers (per-run files only: in a
            merged file the arrows would join runs).

    Attributes:
        runs: How many runs were traced.
        files: The trace files written so far.
    """

    def __init__(self, path: str, merge: bool = False, show_dataflow: bool = True):
        self.path = path
        self.merge = merge
        self.show_dataflow = show_dataflow
        self.runs = 0
        self.files: list[str] = []
        self._lock = threading.Lock()
        self._merged: dict[str, DeviceStepStats] = {}
        if not merge:
            os.makedirs(path, exist_ok=True)

    def __call__(self, step_stats: Any) -> None:
        """Takes one run's StepStats (called by the session after each run)."""
        with self._lock:
            self.runs += 1
            if self.merge:
                for dev in step_stats.dev_stats:
                    merged = self._merged.get(dev.device)
                    if merged is None:
                        merged = self._merged[dev.device] = DeviceStepStats(device=dev.device)
                    merged.node_stats.extend(dev.node_stats)
                return
            name = os.path.join(self.path, f"run-{self.runs:05d}.json")
        trace = Timeline(step_stats).generate_chrome_trace_format(self.show_dataflow)
        with open(name, "w") as f:
            f.write(trace)
        with self._lock:
            self.files.append(name)

    def close(self) -> None:
        """Writes the merged file (``merge=True``); per-run files are already written."""
        if not self.merge:
            return
        with self._lock:
            stats = StepStats(dev_stats=list(self._merged.values()))
        directory = os.path.dirname(self.path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(self.path, "w") as f:
            f.write(Timeline(stats).generate_chrome_trace_format(show_dataflow=False))
        self.files.append(self.path)


@contextlib.contextmanager
def tracing(path: str, merge: bool = False, show_dataflow: bool = True) -> Iterator[Tracer]:
    """Traces every ``Session.run`` in the process while the block runs.

    Each run inside records per-op timings as with ``RunOptions(trace_level=FULL_TRACE)``
    (whatever options it passes) and becomes a Chrome trace: one file per run in the
    directory ``path``, or with ``merge=True`` one file ``path`` written when the block ends.
    Outside the block runs cost what they cost without it (one check of a global).

    Args:
        path: The directory of per-run files, or the merged file.
        merge: Write one file for all runs.
        show_dataflow: Flow arrows in per-run files.

    Yields:
        The :class:`Tracer` (``runs``, ``files``).
    """
    tracer = Tracer(path, merge=merge, show_dataflow=show_dataflow)
    previous = _session.set_run_tracer(tracer)
    try:
        yield tracer
    finally:
        _session.set_run_tracer(previous)
        tracer.close()
