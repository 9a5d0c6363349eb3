"""``tm.train.QueueRunner``, ``add_queue_runner`` and ``start_queue_runners``: threads that
keep a queue filled (TensorFlow's ``tensorflow/python/training/queue_runner_impl.py``).

A QueueRunner holds a queue and the ops that enqueue into it. ``create_threads`` starts one
thread per enqueue op, each running its op until the queue closes; with a Coordinator it
adds a thread that cancels the pending enqueues (``close(cancel_pending_enqueues=True)``)
once a stop is requested. An OutOfRangeError ends an enqueue thread quietly (its input
ran out), and the last enqueue thread to end closes the queue, so its consumers drain it and
then get OutOfRangeError. Any other error is recorded and passed to the coordinator.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from tfmini import errors
from tfmini.core.context import get_default_session
from tfmini.ops.variables import GraphKeys, add_to_collection, get_collection

_log = logging.getLogger("tfmini")


class QueueRunner:
    """Holds a queue's enqueue ops and runs each in a thread (``tf.compat.v1.train``).

    Args:
        queue: The queue (a ``tm.QueueBase``).
        enqueue_ops: The enqueue ops; one thread runs each.
        close_op: Closes the queue (default ``queue.close()``); run when every enqueue thread
            has met a "queue closed" error.
        cancel_op: Closes it cancelling pending enqueues (default
            ``queue.close(cancel_pending_enqueues=True)``); run when the coordinator stops.
        queue_closed_exception_types: The errors that mean the input ran out (default
            ``(tm.errors.OutOfRangeError,)``).

    Raises:
        ValueError: ``queue`` or ``enqueue_ops`` is missing, or the exception types are not
            OpError classes.
    """

    def __init__(self, queue: Any = None, enqueue_ops: Sequence[Any] | None = None,
                 close_op: Any = None, cancel_op: Any = None,
                 queue_closed_exception_types: Sequence[type] | None = None):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        types = tuple(queue_closed_exception_types)
        if not types or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                                for t in types):
            raise TypeError(
                "queue_closed_exception_types, when provided, must be a tuple of "
                f"tf.error types, but saw: {queue_closed_exception_types}")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = (cancel_op if cancel_op is not None
                           else queue.close(cancel_pending_enqueues=True))
        self._queue_closed_exception_types = types
        self._lock = threading.Lock()
        self._runs_per_session: dict[Any, int] = {}
        self._exceptions_raised: list[BaseException] = []

    @property
    def queue(self) -> Any:
        """The queue."""
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        """The enqueue ops, one thread each."""
        return self._enqueue_ops

    @property
    def close_op(self) -> Any:
        """The op that closes the queue."""
        return self._close_op

    @property
    def cancel_op(self) -> Any:
        """The op that closes the queue cancelling pending enqueues."""
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        """The errors that end an enqueue thread quietly."""
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list[BaseException]:
        """The errors the enqueue threads raised (without a coordinator to take them)."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        """The name of the queue's op."""
        return self._queue.name

    def _run(self, sess: Any, enqueue_op: Any, coord: Any) -> None:
        """One enqueue thread: runs ``enqueue_op`` until the queue closes or a stop."""
        decremented = False
        try:
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    # The input ran out: the last thread to see it closes the queue.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001  (logged, as TensorFlow)
                                _log.info("Ignored exception: %s", e)
                        return
        except Exception as e:  # noqa: BLE001
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess: Any, cancel_op: Any, coord: Any) -> None:
        """Closes the queue, cancelling pending enqueues, once the coordinator stops."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001  (the session may be closed already)
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess: Any, coord: Any = None, daemon: bool = False,
                       start: bool = False) -> list[threading.Thread]:
        """Threads that run the enqueue ops in ``sess`` (none if they already run there).

        Args:
            sess: The Session.
            coord: An optional Coordinator (then a ``close_on_stop`` thread is added and
                every thread is registered with it).
            daemon: Make the threads daemons.
            start: Start the threads.

        Returns:
            The threads.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []  # already running in this session
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to the graph collection ``collection`` (``tf.compat.v1.train``).

    Args:
        qr: The QueueRunner.
        collection: The collection key (default ``GraphKeys.QUEUE_RUNNERS``).
    """
    add_to_collection(collection, qr)


def start_queue_runners(sess: Any = None, coord: Any = None, daemon: bool = True,
                        start: bool = True,
                        collection: str = GraphKeys.QUEUE_RUNNERS) -> list[threading.Thread]:
    """Starts the threads of every QueueRunner in the graph's ``collection``.

    Args:
        sess: The Session (default: the default session).
        coord: An optional Coordinator.
        daemon: Make the threads daemons.
        start: Start the threads.
        collection: The collection of queue runners.

    Returns:
        The threads.

    Raises:
        ValueError: no session given and no default session.
    """
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with "
                "sess.as_default()` or pass an explicit session to "
                "tf.start_queue_runners(sess=sess)")
    with sess.graph.as_default():
        threads = []
        for qr in get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
