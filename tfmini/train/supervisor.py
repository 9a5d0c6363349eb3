"""``tf.compat.v1.train.Supervisor`` (``tensorflow/python/training/supervisor.py``).

A Supervisor prepares a training session and runs the chief's services beside it, for one
process or for between-graph replication (one Supervisor per worker, ``is_chief`` on one):

* the chief's ``prepare_or_wait_for_session(master)`` restores the latest checkpoint of
  ``logdir`` or runs ``init_op``, then ``local_init_op``, writes ``graph.pbtxt`` and starts
  the standard services as threads: a checkpoint every ``save_model_secs``, the summaries
  and the global step's rate every ``save_summaries_secs`` (each thread's first pass is at
  its start, as TensorFlow's ``LooperThread``);
* a non-chief waits for the chief: every ``recovery_wait_secs`` it makes a session, runs
  ``local_init_op`` once ``ready_for_local_init_op`` reports nothing, and checks
  ``ready_op``; after ``max_wait_secs`` it raises ``DeadlineExceededError``;
* both then start the graph's queue runners (``start_queue_runners``) under the
  Supervisor's ``Coordinator`` (``coord``).

``managed_session`` wraps these in a ``with`` block: leaving it stops the coordinator,
joins the threads (re-raising a thread's exception) and closes the session. As in
TensorFlow, no checkpoint is saved when the session ends (recorded from TF 2.21 by
tools/record_goldens_supervisor.py): only the checkpoint thread saves.

Defaults (``USE_DEFAULT``) come from the graph's collections first, and a new default is
added to its collection, as TensorFlow does: ``INIT_OP`` (``global_variables_initializer``),
``READY_OP`` (``report_uninitialized_variables``), ``LOCAL_INIT_OP`` (a group of
``local_variables_initializer``), ``SAVERS`` (a ``Saver`` when the graph has variables),
``SUMMARY_OP`` (``merge_all``); ``ready_for_local_init_op`` is only read from its collection
(``None`` if empty), and ``global_step`` is the ``GLOBAL_STEP`` collection's or the graph's
integer ``global_step:0``. The graph is finalized.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from tfmini.core.scope import get_default_graph
from tfmini.ops import control_flow, variables
from tfmini.ops import io as io_family
from tfmini.ops.variables import GraphKeys
from tfmini.train import training_util
from tfmini.train.coordinator import Coordinator, LooperThread
from tfmini.train.monitored_session import SessionManager, report_uninitialized_variables
from tfmini.train.saver import Saver
from tfmini.train.summary_io import FileWriter

__all__ = ["Supervisor"]

_log = logging.getLogger("tfmini")


class Supervisor:
    """Prepares sessions and runs checkpoint / summary services for a training loop.

    Example (between-graph replication, one per worker)::

        sv = tm.train.Supervisor(is_chief=task_index == 0, logdir=train_dir,
                                 recovery_wait_secs=1, global_step=global_step)
        sess = sv.prepare_or_wait_for_session(server.target)
        while not sv.should_stop():
            sess.run(train_op)

    Args:
        graph: The graph (default: the default graph); it is finalized.
        ready_op: Reports the uninitialized variables (empty when the model is ready).
        ready_for_local_init_op: Reports what must be initialized before
            ``local_init_op`` may run (``None``: run it at once).
        is_chief: Whether this Supervisor initialises the model and runs the services.
        init_op: The chief's initialisation when no checkpoint is restored.
        init_feed_dict: Feeds for ``init_op``.
        local_init_op: Run by every worker once the model is ready for it.
        logdir: Checkpoints, ``graph.pbtxt`` and events (chief only).
        summary_op, saver, global_step: The services' ops (``None`` turns a service off).
        save_summaries_secs, save_model_secs: The services' periods (0 or None: off).
        recovery_wait_secs: A non-chief's wait between readiness checks.
        stop_grace_secs: How long ``stop`` waits for the threads after requesting a stop.
        checkpoint_basename: The checkpoints' file prefix in ``logdir``.
        session_manager: Makes the sessions (default: a ``SessionManager`` of these ops).
        summary_writer: The events writer (default: a ``FileWriter`` of ``logdir``).
        init_fn: Called with the session after ``init_op``.
        local_init_run_options: Accepted for compatibility (RunOptions of the local init).
    """

    USE_DEFAULT = 0

    def __init__(self, graph: Any = None, ready_op: Any = USE_DEFAULT,
                 ready_for_local_init_op: Any = USE_DEFAULT, is_chief: bool = True,
                 init_op: Any = USE_DEFAULT, init_feed_dict: Any = None,
                 local_init_op: Any = USE_DEFAULT, logdir: str | None = None,
                 summary_op: Any = USE_DEFAULT, saver: Any = USE_DEFAULT,
                 global_step: Any = USE_DEFAULT, save_summaries_secs: float | None = 120,
                 save_model_secs: float | None = 600, recovery_wait_secs: float = 30,
                 stop_grace_secs: float = 120, checkpoint_basename: str = "model.ckpt",
                 session_manager: Any = None, summary_writer: Any = USE_DEFAULT,
                 init_fn: Any = None, local_init_run_options: Any = None):
        self._graph = graph or get_default_graph()
        with self._graph.as_default():
            self._init_ready_ops(ready_op, ready_for_local_init_op)
            self._init_init_ops(init_op, local_init_op)
            self._saver = self._default(saver, GraphKeys.SAVERS, self._new_saver)
            self._summary_op = self._default(summary_op, GraphKeys.SUMMARY_OP,
                                             io_family.summary_ops.merge_all)
            self._global_step = self._init_global_step(global_step)
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._started_threads: list[Any] = []
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_feed_dict, self._init_fn = init_feed_dict, init_fn
        self._logdir = logdir
        self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        if summary_writer is Supervisor.USE_DEFAULT:
            # Only the chief writes events: the workers of one run share its logdir.
            self._summary_writer = FileWriter(logdir) if logdir and is_chief else None
        else:
            self._summary_writer = summary_writer
        self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=recovery_wait_secs)
        self._graph.finalize()

    # -- defaults -----------------------------------------------------------------------------
    def _first_in(self, key: str) -> Any:
        items = self._graph.get_collection(key)
        return items[0] if items else None

    def _default(self, arg: Any, key: str, make: Any) -> Any:
        """``arg``, or the first item of collection ``key``, or ``make()`` added to it."""
        if arg is not Supervisor.USE_DEFAULT:
            return arg
        found = self._first_in(key)
        if found is None:
            found = make()
            if found is not None:
                self._graph.add_to_collection(key, found)
        return found

    def _init_ready_ops(self, ready_op: Any, ready_for_local_init_op: Any) -> None:
        self._ready_op = self._default(ready_op, GraphKeys.READY_OP,
                                       report_uninitialized_variables)
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first_in(GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_ops(self, init_op: Any, local_init_op: Any) -> None:
        self._init_op = self._default(init_op, GraphKeys.INIT_OP,
                                      variables.global_variables_initializer)
        self._local_init_op = self._default(
            local_init_op, GraphKeys.LOCAL_INIT_OP,
            lambda: control_flow.group(variables.local_variables_initializer()))

    def _new_saver(self) -> Saver | None:
        return Saver() if variables.global_variables() else None

    def _init_global_step(self, global_step: Any) -> Any:
        if global_step is not Supervisor.USE_DEFAULT:
            return global_step
        found = self._first_in(GraphKeys.GLOBAL_STEP)
        return found if found is not None else training_util.get_global_step(self._graph)

    # -- properties ---------------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord, doc="The Coordinator of the threads.")
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions -----------------------------------------------------------------------------
    def prepare_or_wait_for_session(self, master: str = "", config: Any = None,
                                    wait_for_checkpoint: bool = False,
                                    max_wait_secs: float = 7200,
                                    start_standard_services: bool = True) -> Any:
        """A ready session: the chief restores or initialises, a non-chief waits for it.

        Args:
            master: The target ("" for this process, or a cluster task's ``server.target``).
            config: A ConfigProto for the session.
            wait_for_checkpoint: The chief waits for a checkpoint to restore.
            max_wait_secs: How long to wait (for the checkpoint, or for the chief).
            start_standard_services: Start the chief's services and the queue runners.

        Raises:
            DeadlineExceededError: a non-chief's model was not ready within ``max_wait_secs``.
            RuntimeError: the chief's init ops did not make the model ready.
        """
        self._coord.clear_stop()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver,
                checkpoint_dir=self._logdir, wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def _write_graph(self) -> None:
        if self._logdir:
            io_family.write_graph(self._graph, self._logdir, "graph.pbtxt")
        if self._summary_writer is not None and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess: Any) -> list[LooperThread]:
        """Starts the checkpoint, summary and step-rate threads (chief only).

        Raises:
            RuntimeError: this Supervisor is not the chief.
        """
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because "
                               "only chief supervisors can write events.")
        if self._summary_writer is not None and self._global_step is not None:
            step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(
                io_family.protos.SessionLog(status=io_family.protos.SessionLog.START), step)
        threads: list[LooperThread] = []
        if self._save_summaries_secs and self._summary_writer is not None:
            if self._summary_op is not None:
                threads.append(LooperThread(self._coord, self._save_summaries_secs,
                                            target=self._summaries, args=(sess,)))
            if self._global_step is not None:
                threads.append(_StepCounter(self, sess))
        if self._saver is not None and self._save_model_secs and self._save_path:
            threads.append(LooperThread(self._coord, self._save_model_secs,
                                        target=self._checkpoint, args=(sess,)))
        for t in threads:
            t.start()
        self._started_threads.extend(threads)
        return threads

    def start_queue_runners(self, sess: Any, queue_runners: Any = None) -> list:
        """Starts ``queue_runners`` (default: the graph's ``QUEUE_RUNNERS``) under ``coord``;
        ``stop`` ends them."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True,
                                             start=True))
        return threads

    def _checkpoint(self, sess: Any) -> None:
        self._saver.save(sess, self._save_path, global_step=self._global_step)
        if self._summary_writer is not None and self._global_step is not None:
            step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(
                io_family.protos.SessionLog(status=io_family.protos.SessionLog.CHECKPOINT,
                                            checkpoint_path=self._save_path), step)

    def _summaries(self, sess: Any) -> None:
        if self._global_step is not None:
            summary, step = sess.run([self._summary_op, self._global_step])
        else:
            summary, step = sess.run(self._summary_op), None
        if self._summary_writer is not None:
            self._summary_writer.add_summary(summary, step)

    def summary_computed(self, sess: Any, summary: Any, global_step: Any = None) -> None:
        """Writes a summary computed by the caller.

        Raises:
            RuntimeError: there is no summary writer (no ``logdir``, or not the chief).
        """
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = training_util.global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master: str = "", config: Any = None,
                        start_standard_services: bool = True,
                        close_summary_writer: bool = True) -> Iterator[Any]:
        """A ready session for a ``with`` block.

        An exception raised in the block stops the coordinator and is re-raised when the
        threads have been joined (``OutOfRangeError`` stops cleanly: training is done); the
        session is closed at the end, which also ends waits still pending in it.
        """
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001  (recorded by the coordinator, raised by stop)
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):  # closing errors do not matter
                        sess.close()

    # -- stopping -----------------------------------------------------------------------------
    def stop(self, threads: Any = None, close_summary_writer: bool = True,
             ignore_live_threads: bool = False) -> None:
        """Requests a stop and joins the services, queue runners and ``threads``.

        Raises:
            Exception: the first exception a thread (or the caller) reported.
            RuntimeError: threads still run after ``stop_grace_secs`` and
                ``ignore_live_threads`` is False.
        """
        join_threads = list(self._started_threads) + list(threads or [])
        self._coord.request_stop()
        try:
            self._coord.join(join_threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer is not None:
                self._summary_writer.add_session_log(
                    io_family.protos.SessionLog(status=io_family.protos.SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False
            self._started_threads = []

    def request_stop(self, ex: Any = None) -> None:
        """Asks the threads to stop; ``ex`` is re-raised by ``stop``."""
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        return self._coord.should_stop()

    def stop_on_exception(self) -> Any:
        """A context manager that turns an exception into ``request_stop(ex)``."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    def loop(self, timer_interval_secs: float, target: Any, args: Any = None,
             kwargs: Any = None) -> LooperThread:
        """Calls ``target(*args, **kwargs)`` every ``timer_interval_secs`` (first at once)
        until a stop; the thread is joined by ``stop``."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper


class _StepCounter(LooperThread):
    """Writes the global step's rate (``<global step op>/sec``) every summary period."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._tag = f"{sv.global_step.op.name}/sec"
        self._last_time = 0.0
        self._last_step = 0

    def start_loop(self) -> None:
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._sv.global_step)

    def run_loop(self) -> None:
        step = training_util.global_step(self._sess, self._sv.global_step)
        added, self._last_step = step - self._last_step, step
        now = time.time()
        elapsed, self._last_time = now - self._last_time, now
        rate = added / elapsed if elapsed > 0 else float("inf")
        summary = io_family.protos.Summary()
        summary.value.add(tag=self._tag, simple_value=rate)
        if self._sv.summary_writer is not None:
            self._sv.summary_writer.add_summary(summary, step)
