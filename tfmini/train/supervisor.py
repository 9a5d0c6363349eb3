"""``tf.compat.v1.train.Supervisor``, single process (``tensorflow/python/training/supervisor.py``).

``managed_session()`` prepares a session (restoring the latest checkpoint of ``logdir`` or
initialising), starts the standard services as threads (a checkpoint every
``save_model_secs``, summaries and steps/sec every ``save_summaries_secs``), and on leaving
stops them, saves a last checkpoint, and closes the session. ``OutOfRangeError`` raised in
the block ends it cleanly, as in TensorFlow.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.scope import get_default_graph
from tfmini.ops import io as io_family
from tfmini.ops import variables
from tfmini.train import training_util
from tfmini.train.monitored_session import SessionManager, report_uninitialized_variables
from tfmini.train.saver import Saver
from tfmini.train.summary_io import FileWriter

__all__ = ["Supervisor"]

_log = logging.getLogger("tfmini")


class Supervisor:
    """Prepares sessions and runs checkpoint / summary services for a training loop.

    Example::

        sv = tm.train.Supervisor(logdir="/tmp/run")
        with sv.managed_session() as sess:
            while not sv.should_stop():
                sess.run(train_op)
    """

    USE_DEFAULT = 0

    def __init__(self, graph: Any = None, ready_op: Any = USE_DEFAULT, is_chief: bool = True,
                 init_op: Any = USE_DEFAULT, init_feed_dict: Any = None,
                 local_init_op: Any = USE_DEFAULT, logdir: str | None = None,
                 summary_op: Any = USE_DEFAULT, saver: Any = USE_DEFAULT,
                 global_step: Any = USE_DEFAULT, save_summaries_secs: float = 120,
                 save_model_secs: float = 600, recovery_wait_secs: float = 30,
                 stop_grace_secs: float = 120, checkpoint_basename: str = "model.ckpt",
                 session_manager: Any = None, summary_writer: Any = USE_DEFAULT,
                 init_fn: Any = None, local_init_run_options: Any = None):
        self._graph = graph or get_default_graph()
        D = Supervisor.USE_DEFAULT
        with self._graph.as_default():
            self._ready_op = report_uninitialized_variables() if ready_op is D else ready_op
            self._init_op = variables.global_variables_initializer() if init_op is D else init_op
            self._local_init_op = (variables.local_variables_initializer()
                                   if local_init_op is D else local_init_op)
            self._summary_op = io_family.summary_ops.merge_all() if summary_op is D else summary_op
            self._saver = Saver(allow_empty=True) if saver is D else saver
            self._global_step = (training_util.get_global_step(self._graph)
                                 if global_step is D else global_step)
        self._is_chief = is_chief
        self._init_feed_dict, self._init_fn = init_feed_dict, init_fn
        self._logdir = logdir
        self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
        self._recovery_wait_secs, self._stop_grace_secs = recovery_wait_secs, stop_grace_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        if summary_writer is D:
            self._summary_writer = FileWriter(logdir) if logdir and is_chief else None
        else:
            self._summary_writer = summary_writer
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op, graph=self._graph,
            recovery_wait_secs=recovery_wait_secs)
        self._stop_event = threading.Event()
        self._threads: list[threading.Thread] = []
        self._exception: BaseException | None = None
        self._graph.finalize()

    # -- properties ---------------------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief)
    saver = property(lambda self: self._saver)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    global_step = property(lambda self: self._global_step)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    session_manager = property(lambda self: self._session_manager)
    save_path = property(lambda self: self._save_path)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)

    @property
    def coord(self) -> Supervisor:
        """The stop flag (``should_stop`` / ``request_stop``); this object plays it."""
        return self

    # -- stopping -----------------------------------------------------------------------------
    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    def request_stop(self, ex: BaseException | None = None) -> None:
        if ex is not None and self._exception is None:
            self._exception = ex
        self._stop_event.set()

    def stop_on_exception(self):
        """A context manager that turns an exception into ``request_stop(ex)``."""
        return _StopOnException(self)

    def stop(self, threads: Any = None, close_summary_writer: bool = True,
             ignore_live_threads: bool = False) -> None:
        """Stops the services and waits for their threads."""
        self.request_stop()
        for t in self._threads + list(threads or []):
            t.join(self._stop_grace_secs)
        self._threads = []
        if close_summary_writer and self._summary_writer is not None:
            self._summary_writer.close()

    # -- sessions -----------------------------------------------------------------------------
    def prepare_or_wait_for_session(self, master: str = "", config: Any = None,
                                    wait_for_checkpoint: bool = False,
                                    max_wait_secs: float = 7200,
                                    start_standard_services: bool = True) -> Any:
        """A ready session; the chief restores or initialises, others wait."""
        self._stop_event.clear()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            if self._summary_writer is not None:
                self._summary_writer.add_graph(self._graph)
                if start_standard_services:
                    self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        return sess

    def start_standard_services(self, sess: Any) -> list[threading.Thread]:
        """Starts the checkpoint, summary and step-counter threads (chief only)."""
        if self._summary_writer is not None and self._global_step is not None:
            step = int(np.asarray(sess.run(self._global_step)))
            self._summary_writer.add_session_log(io_family.protos.SessionLog(status=io_family.protos.SessionLog.START),
                                                 step)
        threads = []
        if self._save_path and self._saver is not None and self._save_model_secs:
            threads.append(self._loop(self._save_model_secs, lambda: self._checkpoint(sess),
                                      "checkpoint"))
        if self._summary_writer is not None and self._save_summaries_secs:
            if self._summary_op is not None:
                threads.append(self._loop(self._save_summaries_secs,
                                          lambda: self._summaries(sess), "summaries"))
        self._threads.extend(threads)
        return threads

    def _loop(self, every: float, fn: Any, name: str) -> threading.Thread:
        def run() -> None:
            while not self._stop_event.wait(every):
                try:
                    fn()
                except errors.OpError as e:  # the session closed under us, say
                    if not self._stop_event.is_set():
                        self.request_stop(e)
                    return

        thread = threading.Thread(target=run, daemon=True, name=f"tfmini Supervisor {name}")
        thread.start()
        return thread

    def _step(self, sess: Any) -> int | None:
        if self._global_step is None:
            return None
        return int(np.asarray(sess.run(self._global_step)))

    def _checkpoint(self, sess: Any) -> None:
        step = self._step(sess)
        self._saver.save(sess, self._save_path, global_step=step)
        if self._summary_writer is not None:
            self._summary_writer.add_session_log(
                io_family.protos.SessionLog(status=io_family.protos.SessionLog.CHECKPOINT,
                                  checkpoint_path=self._save_path), step)

    def _summaries(self, sess: Any) -> None:
        if self._global_step is not None:
            summary, step = sess.run([self._summary_op, self._global_step])
        else:
            summary, step = sess.run(self._summary_op), None
        self.summary_computed(sess, summary, step)

    def summary_computed(self, sess: Any, summary: Any, global_step: Any = None) -> None:
        """Writes a summary computed by the caller.

        Raises:
            RuntimeError: there is no summary writer (no ``logdir``, or not the chief).
        """
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = self._step(sess)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master: str = "", config: Any = None,
                        start_standard_services: bool = True,
                        close_summary_writer: bool = True) -> Iterator[Any]:
        """A ready session for a ``with`` block; services stop and a last checkpoint is
        saved when it ends. ``OutOfRangeError`` ends the block cleanly."""
        sess = self.prepare_or_wait_for_session(
            master=master, config=config, start_standard_services=start_standard_services)
        try:
            yield sess
        except errors.OutOfRangeError:
            pass  # the input ran out: training is done
        except BaseException as e:
            self.request_stop(e)
            raise
        finally:
            try:
                self.stop(close_summary_writer=False)
                if self._is_chief and self._save_path and self._saver is not None and \
                        start_standard_services and self._exception is None:
                    self._checkpoint(sess)
                if close_summary_writer and self._summary_writer is not None:
                    self._summary_writer.close()
            finally:
                sess.close()
        if self._exception is not None:
            ex, self._exception = self._exception, None
            raise ex

    def wait_for_stop(self) -> None:
        self._stop_event.wait()

    def loop(self, timer_interval_secs: float, target: Any, args: Any = None,
             kwargs: Any = None) -> threading.Thread:
        """Calls ``target(*args, **kwargs)`` every ``timer_interval_secs`` until stopped."""
        thread = self._loop(timer_interval_secs,
                            lambda: target(*(args or ()), **(kwargs or {})), "loop")
        self._threads.append(thread)
        return thread


class _StopOnException:
    def __init__(self, sv: Supervisor):
        self._sv = sv

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None:
            return False
        if isinstance(exc, errors.OutOfRangeError):
            self._sv.request_stop()
        else:
            self._sv.request_stop(exc)
        return True


