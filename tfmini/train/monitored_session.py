"""Monitored sessions (``tensorflow/python/training/monitored_session.py`` and
``session_manager.py``).

* ``Scaffold`` holds the ops that make a model ready (init, ready, local init, saver,
  summary op); ``finalize`` fills in the defaults and freezes the graph;
* ``ChiefSessionCreator`` makes a ``Session`` and restores the latest checkpoint of
  ``checkpoint_dir`` or runs the init op; ``WorkerSessionCreator`` waits for readiness;
* ``MonitoredSession`` runs hooks around every ``run``, stops when a hook asks
  (``should_stop``), and calls ``end`` on the hooks when closed without an error; leaving
  its ``with`` block on ``OutOfRangeError`` or ``StopIteration`` ends training cleanly;
* ``MonitoredTrainingSession`` adds TensorFlow's default chief hooks (step counter, summaries,
  checkpoints) for ``checkpoint_dir`` / ``summary_dir``.

``master`` is the target every session is made on: "" runs in this process, a cluster
task's ``server.target`` makes a distributed session (``tfmini.distribute``). Only the chief
(``is_chief=True``) initialises or restores the model; a non-chief waits for it in
``SessionManager.wait_for_session``, trying ``ready_op`` every ``recovery_wait_secs`` until
``max_wait_secs`` (then ``DeadlineExceededError``), as in TF.
Queue runners: when the graph has a ``queue_runners`` collection, each runner's
``create_threads(sess, coord=coord, daemon=True, start=True)`` is called (see
``_start_queue_runners``), so ``tm.train.QueueRunner`` works here once it exists.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import context
from tfmini.core.scope import colocate_with, get_default_graph
from tfmini.ops import array, variables
from tfmini.ops import io as io_family
from tfmini.ops import math as math_family
from tfmini.train import basic_session_run_hooks as hooks_lib
from tfmini.train import checkpoint_management
from tfmini.train.saver import Saver
from tfmini.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

__all__ = [
    "ChiefSessionCreator", "MonitoredSession", "MonitoredTrainingSession", "Scaffold",
    "SessionCreator", "SessionManager", "SingularMonitoredSession", "WorkerSessionCreator",
]

_log = logging.getLogger("tfmini")
USE_DEFAULT = object()

# The errors a recoverable session recovers from by making a new session (TensorFlow's
# _PREEMPTION_ERRORS, tensorflow/python/training/monitored_session.py): a task of the cluster
# died (Unavailable) or restarted and lost the session's state (Aborted).
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

# How long a recovery keeps trying to make the new session while tasks are still down
# (TensorFlow retries without limit; every wait here is bounded).
RECOVERY_MAX_WAIT_SECS = 60.0
GraphKeys = variables.GraphKeys


def report_uninitialized_variables(var_list: list | None = None,
                                   name: str = "report_uninitialized_variables") -> Any:
    """A 1-D string tensor naming the variables not yet initialised.

    TensorFlow's op drops the initialised ones (``boolean_mask``); tfmini has no ``Where``
    op yet, so here they stay as empty strings, which readiness checks skip.
    """
    if var_list is None:
        var_list = variables.global_variables() + variables.local_variables()
    with _name_scope(name):
        if not var_list:
            return array.constant(np.array([], dtype=object), name="Const")
        names = array.constant(np.array([v.op.name for v in var_list], dtype=object))
        blanks = array.constant(np.array([""] * len(var_list), dtype=object))
        flags = array.stack([_is_initialized_beside(v) for v in var_list])
        return math_family.where(flags, blanks, names)


def _is_initialized_beside(v: Any) -> Any:
    # Each check runs where its variable lives (TF's placer colocates an op with the
    # resource it reads), so the report works when the variables are on a ps task.
    with colocate_with(v.op):
        return variables.is_variable_initialized(v)


def _name_scope(name: str):
    from tfmini.core.scope import name_scope

    return name_scope(name)


class _Coordinator:
    """The stop flag hooks and queue-runner threads share (the part of
    ``tf.train.Coordinator`` a single-process MonitoredSession needs)."""

    def __init__(self):
        self._stop = threading.Event()
        self._exc_info: BaseException | None = None
        self._threads: list[threading.Thread] = []

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def request_stop(self, ex: BaseException | None = None) -> None:
        if ex is not None and self._exc_info is None:
            self._exc_info = ex
        self._stop.set()

    def register_thread(self, thread: threading.Thread) -> None:
        self._threads.append(thread)

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        return self._stop.wait(timeout)

    def join(self, threads: list | None = None, stop_grace_period_secs: float = 120) -> None:
        for t in list(threads or []) + self._threads:
            t.join(stop_grace_period_secs)
        if self._exc_info is not None:
            raise self._exc_info

    def raise_requested_exception(self) -> None:
        if self._exc_info is not None:
            raise self._exc_info


def _start_queue_runners(sess: Any, coord: Any) -> None:
    # Queue runners (tm.train.queue_runner, another part of issue 15) add themselves to this
    # collection; each starts its threads under the monitored session's coordinator.
    for qr in get_default_graph().get_collection("queue_runners"):
        threads = qr.create_threads(sess, coord=coord, daemon=True, start=True)
        for t in threads or []:
            coord.register_thread(t)


class Scaffold:
    """The ops a monitored session uses to make the model ready (``tf.train.Scaffold``).

    Each argument left None is filled by ``finalize`` from the graph's collection of that
    name or with TensorFlow's default (``global_variables_initializer``,
    ``report_uninitialized_variables``, ``local_variables_initializer``,
    ``summary.merge_all``, a ``Saver`` over every variable).
    """

    def __init__(self, init_op: Any = None, init_feed_dict: Any = None, init_fn: Any = None,
                 ready_op: Any = None, ready_for_local_init_op: Any = None,
                 local_init_op: Any = None, summary_op: Any = None, saver: Any = None,
                 copy_from_scaffold: Scaffold | None = None,
                 local_init_feed_dict: Any = None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op or c.init_op
            init_feed_dict = init_feed_dict or c.init_feed_dict
            init_fn = init_fn or c._user_init_fn
            ready_op = ready_op or c.ready_op
            ready_for_local_init_op = ready_for_local_init_op or c.ready_for_local_init_op
            local_init_op = local_init_op or c.local_init_op
            local_init_feed_dict = local_init_feed_dict or c.local_init_feed_dict
            summary_op = summary_op or c.summary_op
            saver = saver or c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor) -> Any:
        """The single item of collection ``collection_key``, or a new default added to it."""
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f"More than one item in the collection {collection_key!r}. "
                                   f"Please indicate which one to use by passing it to the "
                                   f"tf.Scaffold constructor as:  tf.Scaffold({arg_name}=item "
                                   "to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    def finalize(self) -> Scaffold:
        """Fills in the default ops and finalizes the default graph."""
        graph = get_default_graph()
        if graph.finalized:
            return self
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP,
                lambda: variables.global_variables_initializer())
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, lambda: report_uninitialized_variables())
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: report_uninitialized_variables(variables.global_variables(),
                                                       name="report_uninitialized_variables_1"))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP,
                lambda: variables.local_variables_initializer())
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", GraphKeys.SUMMARY_OP, io_family.summary_ops.merge_all)
        if self._saver is None:
            self._saver = Scaffold.get_or_default(
                "saver", GraphKeys.SAVERS, lambda: Saver(sharded=True, allow_empty=True))
        graph.finalize()
        return self

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    init_feed_dict = property(lambda self: self._init_feed_dict)

    @staticmethod
    def default_local_init_op() -> Any:
        return variables.local_variables_initializer()


def _names(value: Any) -> list[str]:
    arr = np.asarray(value, dtype=object).ravel()
    names = [v.decode() if isinstance(v, bytes) else str(v) for v in arr]
    return [n for n in names if n]


class SessionManager:
    """Makes sessions ready: restore or initialise, then the local init op
    (``tf.compat.v1.train.SessionManager``)."""

    def __init__(self, local_init_op: Any = None, ready_op: Any = None,
                 ready_for_local_init_op: Any = None, graph: Any = None,
                 recovery_wait_secs: float = 30, local_init_run_options: Any = None,
                 local_init_feed_dict: Any = None):
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph or get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict

    def _new_session(self, master: str, config: Any) -> Any:
        # "" is this process's runtime; a task's target makes a distributed session.
        return context.runtime_class("Session")(master, graph=self._graph, config=config)

    def _restore_checkpoint(self, master: str, saver: Any, checkpoint_dir: str | None,
                            checkpoint_filename_with_path: str | None, config: Any,
                            wait_for_checkpoint: bool = False,
                            max_wait_secs: float = 7200) -> tuple[Any, bool]:
        sess = self._new_session(master, config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        path = checkpoint_filename_with_path or checkpoint_management.latest_checkpoint(
            checkpoint_dir)
        # As TensorFlow's: with wait_for_checkpoint, look again every recovery_wait_secs
        # until max_wait_secs have passed.
        waited = 0.0
        while not path and wait_for_checkpoint and waited < max_wait_secs:
            _log.info("Waiting for checkpoint to be available.")
            time.sleep(self._recovery_wait_secs)
            waited += self._recovery_wait_secs
            path = checkpoint_management.latest_checkpoint(checkpoint_dir)
        if not path:
            return sess, False
        saver.restore(sess, path)
        return sess, True

    def prepare_session(self, master: str, init_op: Any = None, saver: Any = None,
                        checkpoint_dir: str | None = None,
                        checkpoint_filename_with_path: str | None = None,
                        wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                        config: Any = None, init_feed_dict: Any = None,
                        init_fn: Any = None) -> Any:
        """A session restored from the latest checkpoint, or initialised; ready to use.

        Raises:
            RuntimeError: nothing can initialise the model, or it is still not ready.
        """
        sess, is_loaded = self._restore_checkpoint(master, saver, checkpoint_dir,
                                                   checkpoint_filename_with_path, config,
                                                   wait_for_checkpoint, max_wait_secs)
        if not is_loaded:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_ok, msg = self._try_run_local_init_op(sess)
        if not local_ok:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  "
                               f"Init op: {_op_name(init_op)}, init fn: {init_fn}, error: {msg}")
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: "
                               f"{_op_name(init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{_op_name(self._local_init_op)}, error: {msg}")
        return sess

    def wait_for_session(self, master: str, config: Any = None,
                         max_wait_secs: float = float("inf")) -> Any:
        """A session once another process made the model ready (polls every
        ``recovery_wait_secs``).

        Raises:
            DeadlineExceededError: not ready within ``max_wait_secs``.
        """
        start = time.time()
        while True:
            sess = self._new_session(master, config)
            local_ok, _ = self._try_run_local_init_op(sess)
            if local_ok:
                is_ready, _ = self._model_ready(sess)
                if is_ready:
                    return sess
            sess.close()
            remaining = max_wait_secs - (time.time() - start)
            if remaining < self._recovery_wait_secs:
                raise errors.DeadlineExceededError(
                    # TF formats the seconds with %d: 0.5 reads "0 secs".
                    None, None, f"Session was not ready after waiting {int(max_wait_secs)} secs.")
            time.sleep(self._recovery_wait_secs)

    def _model_ready(self, sess: Any, op: Any = USE_DEFAULT) -> tuple[bool, str | None]:
        op = self._ready_op if op is USE_DEFAULT else op
        if op is None:
            return True, None
        try:
            missing = _names(sess.run(op))
        except errors.FailedPreconditionError as e:
            # TF's session_manager._ready: a ready op that reads an uninitialised variable
            # means "not ready yet", not a failure.
            if "uninitialized" not in str(e).lower():
                raise
            return False, str(e)
        if missing:
            return False, "Variables not initialized: " + ", ".join(missing)
        return True, None

    def _try_run_local_init_op(self, sess: Any) -> tuple[bool, str | None]:
        if self._local_init_op is None:
            return True, None
        ready, msg = self._model_ready(sess, self._ready_for_local_init_op)
        if not ready:
            return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        return True, None


def _op_name(op: Any) -> str:
    return getattr(op, "name", str(op)) if op is not None else "None"


class SessionCreator:
    """Makes a session (``create_session``)."""

    def create_session(self) -> Any:
        raise NotImplementedError("create_session is for subclasses")


class ChiefSessionCreator(SessionCreator):
    """Restores the latest checkpoint of ``checkpoint_dir`` or initialises the model."""

    def __init__(self, scaffold: Scaffold | None = None, master: str = "", config: Any = None,
                 checkpoint_dir: str | None = None,
                 checkpoint_filename_with_path: str | None = None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config

    def _session_manager(self) -> SessionManager:
        s = self._scaffold
        return SessionManager(local_init_op=s.local_init_op,
                              local_init_feed_dict=s.local_init_feed_dict,
                              ready_op=s.ready_op,
                              ready_for_local_init_op=s.ready_for_local_init_op,
                              graph=get_default_graph())

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(SessionCreator):
    """Waits until the chief made the model ready (polling every 30 s, as TF does)."""

    def __init__(self, scaffold: Scaffold | None = None, master: str = "", config: Any = None,
                 max_wait_secs: float = 30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config
        self._max_wait_secs = max_wait_secs

    def create_session(self) -> Any:
        self._scaffold.finalize()
        s = self._scaffold
        manager = SessionManager(local_init_op=s.local_init_op,
                                 local_init_feed_dict=s.local_init_feed_dict,
                                 ready_op=s.ready_op,
                                 ready_for_local_init_op=s.ready_for_local_init_op,
                                 graph=get_default_graph())
        return manager.wait_for_session(self._master, config=self._config,
                                        max_wait_secs=self._max_wait_secs)


def _merge_options(options: Any, extra: Any) -> None:
    """A hook's RunOptions into the run's: the larger trace level and timeout win."""
    options.trace_level = max(options.trace_level, extra.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, extra.timeout_in_ms)


class _MonitoredSession:
    """The shared machinery of ``MonitoredSession`` and ``SingularMonitoredSession``."""

    def __init__(self, session_creator: SessionCreator | None, hooks: list | None,
                 should_recover: bool, stop_grace_period_secs: float = 120):
        self._graph = get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._session_creator = session_creator or ChiefSessionCreator()
        self._should_recover = should_recover
        self._stop_grace_period_secs = stop_grace_period_secs
        self._should_stop = False
        self._tf_sess: Any = None
        self.coord: Any = None
        self._create()

    def _create(self) -> None:
        self._tf_sess = self._session_creator.create_session()
        self._start()

    def _recreate(self) -> None:
        """Makes a new session after a preemption, retrying while tasks are still down (a
        restarting task answers Unavailable), for at most ``RECOVERY_MAX_WAIT_SECS``."""
        give_up = time.monotonic() + RECOVERY_MAX_WAIT_SECS
        # The session creators and hooks work on the default graph: this session's, in
        # whichever thread the run that failed was made (TensorFlow's creators keep the
        # SessionManager they made first, bound to that graph).
        with self._graph.as_default():
            while True:
                try:
                    self._tf_sess = self._session_creator.create_session()
                    break
                except _PREEMPTION_ERRORS as e:
                    if time.monotonic() >= give_up:
                        raise
                    _log.info("An error was raised while a session was being created. This "
                              "may be due to a preemption of a connected worker or parameter "
                              "server. A new session will be created. Error: %s", e)
                    time.sleep(0.2)
            self._start()

    def _start(self) -> None:
        self.coord = _Coordinator()
        _start_queue_runners(self._tf_sess, self.coord)
        for hook in self._hooks:
            hook.after_create_session(self._tf_sess, self.coord)

    @property
    def graph(self) -> Any:
        return self._graph

    def _tf_session(self) -> Any:
        return self._tf_sess

    def should_stop(self) -> bool:
        """True once a hook requested a stop, the coordinator stopped, or after close."""
        return self._tf_sess is None or self._should_stop or self.coord.should_stop()

    def run(self, fetches: Any, feed_dict: Mapping | None = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs ``fetches`` with the hooks' fetches, feeds and options added.

        Raises:
            RuntimeError: called after ``should_stop`` turned True or after ``close``.
        """
        if self._tf_sess is None:
            raise RuntimeError("Session is already closed.")
        while True:
            try:
                return self._hooked_run(fetches, feed_dict, options, run_metadata)
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                _log.info("An error was raised. This may be due to a preemption in a "
                          "connected worker or parameter server. The current session will "
                          "be closed and a new session will be created. Error: %s", e)
                self._close_session_quietly()
                self._recreate()

    def run_step_fn(self, step_fn: Any) -> Any:
        """Calls ``step_fn(step_context)``; ``step_context.run_with_hooks`` runs with hooks."""
        return step_fn(_StepContext(self))

    def _hooked_run(self, fetches, feed_dict, options, run_metadata) -> Any:
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        sess = self._tf_sess
        run_context = SessionRunContext(SessionRunArgs(fetches, feed_dict), sess)
        run_options_cls = context.runtime_class("RunOptions")
        options = options if options is not None else run_options_cls()
        actual_fetches: dict[Any, Any] = {"caller": fetches}
        user_feed = dict(feed_dict or {})
        hook_feeds: dict[Any, Any] = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                actual_fetches[_HookKey(hook)] = request.fetches
            if request.feed_dict:
                for key in request.feed_dict:
                    if key in hook_feeds:
                        raise RuntimeError("Same tensor is fed by two hooks.")
                    if key in user_feed:
                        raise RuntimeError("Same tensor is fed by a SessionRunHook and user.")
                hook_feeds.update(request.feed_dict)
            if request.options is not None:
                _merge_options(options, request.options)
        feeds = {**user_feed, **hook_feeds}
        if run_metadata is None:
            run_metadata = context.runtime_class("RunMetadata")()
        outputs = sess.run(actual_fetches, feed_dict=feeds or None, options=options,
                           run_metadata=run_metadata)
        for hook in self._hooks:
            key = _HookKey(hook)
            hook.after_run(run_context, SessionRunValues(
                results=outputs[key] if key in outputs else None, options=options,
                run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def close(self) -> None:
        """Calls ``end`` on the hooks and closes the session."""
        self._close_internal(None)

    def _close_session_quietly(self) -> None:
        try:
            if self.coord is not None:
                self.coord.request_stop()
            if self._tf_sess is not None:
                self._tf_sess.close()
        except Exception:  # noqa: BLE001  (the session is being replaced anyway)
            pass

    def _close_internal(self, exception_type: Any) -> None:
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._tf_sess)
        finally:
            try:
                if self._tf_sess is None:
                    raise RuntimeError("Session is already closed.")
                self.coord.request_stop()
                try:
                    self.coord.join(stop_grace_period_secs=self._stop_grace_period_secs)
                finally:
                    self._tf_sess.close()
            finally:
                self._tf_sess = None
                if not self._graph_was_finalized:
                    self._graph._finalized = False  # TF's _unsafe_unfinalize

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback) -> bool:
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        # Swallow OutOfRangeError and StopIteration: the input ended, training is done.
        return exception_type is None


class _HookKey:
    """A fetch-dict key for a hook (hooks need not be hashable by value)."""

    __slots__ = ("hook",)

    def __init__(self, hook: Any):
        self.hook = hook

    def __hash__(self) -> int:
        return id(self.hook)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _HookKey) and other.hook is self.hook


class _StepContext:
    """What ``run_step_fn`` passes to the step function."""

    def __init__(self, monitored: _MonitoredSession):
        self._monitored = monitored

    @property
    def session(self) -> Any:
        return self._monitored._tf_sess

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        return self._monitored.run(*args, **kwargs)

    def request_stop(self) -> None:
        self._monitored._should_stop = True


class MonitoredSession(_MonitoredSession):
    """A session that runs hooks, restores or initialises the model, and recovers from
    ``AbortedError`` or ``UnavailableError`` (a task died or restarted) by making a new session
    (``tf.compat.v1.train.MonitoredSession``).

    Example::

        with tm.train.MonitoredSession(session_creator=tm.train.ChiefSessionCreator(
                checkpoint_dir=ckpt_dir), hooks=[tm.train.StopAtStepHook(last_step=100)]) as s:
            while not s.should_stop():
                s.run(train_op)
    """

    def __init__(self, session_creator: SessionCreator | None = None,
                 hooks: list | None = None, stop_grace_period_secs: float = 120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A ``MonitoredSession`` that does not recover and exposes ``raw_session()``."""

    def __init__(self, hooks: list | None = None, scaffold: Scaffold | None = None,
                 master: str = "", config: Any = None, checkpoint_dir: str | None = None,
                 stop_grace_period_secs: float = 120,
                 checkpoint_filename_with_path: str | None = None):
        creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self) -> Any:
        """The underlying ``Session``."""
        return self._tf_sess


def MonitoredTrainingSession(  # noqa: N802  (TensorFlow's name)
        master: str = "", is_chief: bool = True, checkpoint_dir: str | None = None,
        scaffold: Scaffold | None = None, hooks: list | None = None,
        chief_only_hooks: list | None = None, save_checkpoint_secs: Any = USE_DEFAULT,
        save_summaries_steps: Any = USE_DEFAULT, save_summaries_secs: Any = USE_DEFAULT,
        config: Any = None, stop_grace_period_secs: float = 120,
        log_step_count_steps: int = 100, max_wait_secs: float = 7200,
        save_checkpoint_steps: Any = USE_DEFAULT, summary_dir: str | None = None,
        save_graph_def: bool = True) -> MonitoredSession:
    """A ``MonitoredSession`` with TensorFlow's default hooks for training.

    The chief gets, in order: ``chief_only_hooks``, a ``StepCounterHook`` (every
    ``log_step_count_steps``) and a ``SummarySaverHook`` (every 100 steps) when
    ``summary_dir`` or ``checkpoint_dir`` is set, a ``CheckpointSaverHook`` (every 600 s)
    when ``checkpoint_dir`` is set, then ``hooks``. It restores the latest checkpoint of
    ``checkpoint_dir`` if there is one. A non-chief gets only ``hooks`` and waits for the
    model to be ready.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                       max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks: list = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                  master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir,
                                                       every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (
                save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (
                save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_lib.CheckpointSaverHook(
                checkpoint_dir, save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs, scaffold=scaffold,
                save_graph_def=save_graph_def))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
