"""The standard session hooks (``tensorflow/python/training/basic_session_run_hooks.py``).

``StopAtStepHook``, ``CheckpointSaverHook`` (+ ``CheckpointSaverListener``),
``SummarySaverHook``, ``StepCounterHook``, ``LoggingTensorHook``, ``NanTensorHook``,
``ProfilerHook``, ``FinalOpsHook``, ``FeedFnHook``, ``GlobalStepWaiterHook`` and the timers
they trigger by (``SecondOrStepTimer``). Messages and errors are TensorFlow's.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from attrs import frozen

from tfmini import errors
from tfmini.core import context
from tfmini.core.scope import get_default_graph
from tfmini.ops import io as io_family
from tfmini.train import training_util
from tfmini.train.meta_graph import export_meta_graph
from tfmini.train.session_run_hook import SessionRunArgs, SessionRunHook
from tfmini.train.summary_io import FileWriterCache

__all__ = [
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook",
    "GlobalStepWaiterHook", "LoggingTensorHook", "NanLossDuringTrainingError",
    "NanTensorHook", "ProfilerHook", "SecondOrStepTimer", "StepCounterHook",
    "StopAtStepHook", "SummarySaverHook",
]

_log = logging.getLogger("tfmini")
SAVERS = "savers"


class SecondOrStepTimer:
    """Triggers at most once every ``every_secs`` seconds or every ``every_steps`` steps.

    Raises:
        ValueError: not exactly one of the two was given, or it is negative.
    """

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None):
        self.reset()
        self._every_secs, self._every_steps = every_secs, every_steps
        if (every_secs is None) == (every_steps is None):
            raise ValueError("exactly one of every_secs and every_steps should be provided.")
        if every_secs is not None and every_secs < 0:
            raise ValueError(f"every_secs should be non-negative: {every_secs}")
        if every_steps is not None and every_steps < 0:
            raise ValueError(f"every_steps should be non-negative: {every_steps}")

    def reset(self) -> None:
        self._last_triggered_step: int | None = None
        self._last_triggered_time: float | None = None

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether the timer fires at ``step`` (always at the first step it sees)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None:
            if time.time() >= self._last_triggered_time + self._every_secs:
                return True
        if self._every_steps is not None:
            if step >= self._last_triggered_step + self._every_steps:
                return True
        return False

    def update_last_triggered_step(self, step: int) -> tuple[float | None, int | None]:
        """Records a firing at ``step``; returns the seconds and steps since the last one."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time, self._last_triggered_step = now, step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self) -> int | None:
        return self._last_triggered_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self):
        super().__init__(every_secs=None, every_steps=0)
        self._every_steps = None

    def should_trigger_for_step(self, step: int) -> bool:
        return False


def _global_step_or_fail(hook: str) -> Any:
    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook}.")
    return step


def _scalar(value: Any) -> int:
    return int(np.asarray(value).reshape(()))


class StopAtStepHook(SessionRunHook):
    """Requests a stop at a global step: ``last_step``, or ``num_steps`` after the start.

    Raises:
        ValueError: neither or both of ``num_steps`` and ``last_step`` were given.
    """

    def __init__(self, num_steps: int | None = None, last_step: int | None = None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self) -> None:
        self._global_step_tensor = _global_step_or_fail("StopAtStepHook")

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self._last_step is None:
            self._last_step = _scalar(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values) -> None:
        # The fetched value was read before the train op ran: +1 is its value now.
        if _scalar(run_values.results) + 1 >= self._last_step:
            if _scalar(run_context.session.run(self._global_step_tensor)) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverListener:
    """Called around each save of a ``CheckpointSaverHook``; ``after_save`` returning True
    stops training."""

    def begin(self) -> None:
        pass

    def before_save(self, session: Any, global_step_value: int) -> None:
        pass

    def after_save(self, session: Any, global_step_value: int) -> bool | None:
        pass

    def end(self, session: Any, global_step_value: int) -> None:
        pass


def _saver_from(saver: Any, scaffold: Any) -> Any:
    if saver is not None:
        return saver
    if scaffold is not None:
        return scaffold.saver
    savers = get_default_graph().get_collection(SAVERS)
    if not savers:
        raise RuntimeError("No items in collection savers. Please add a saver to the "
                           "collection or provide a saver or scaffold.")
    if len(savers) > 1:
        raise RuntimeError("More than one item in collection savers. Please indicate which "
                           "one to use by passing it to the constructor.")
    return savers[0]


@frozen
class CheckpointRecovery:
    """What a session recovered from its last checkpoint lost (``CheckpointSaverHook``).

    Attributes:
        last_global_step: The largest global step the hook saw before the failure (read in
            the runs it watched; the read of a training run may precede that run's own
            increment).
        restored_global_step: The global step of the new session (the checkpoint's).
        lost_updates: ``last_global_step - restored_global_step`` (at least 0): the updates
            made since the checkpoint, which the new session no longer has.
    """

    last_global_step: int
    restored_global_step: int
    lost_updates: int


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session is made, every ``save_secs`` or ``save_steps``,
    and at the end; logs each save to the event file of ``checkpoint_dir``.

    When a MonitoredSession recovers (a parameter server died and was restarted, so the new
    session restored the last checkpoint), the hook logs a warning with the updates lost
    since that checkpoint and appends a :class:`CheckpointRecovery` to ``recoveries``.

    Raises:
        ValueError: both ``saver`` and ``scaffold``, or not exactly one of ``save_secs`` and
            ``save_steps``.
    """

    def __init__(self, checkpoint_dir: str, save_secs: float | None = None,
                 save_steps: int | None = None, saver: Any = None,
                 checkpoint_basename: str = "model.ckpt", scaffold: Any = None,
                 listeners: list | None = None, save_graph_def: bool = True):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def
        self._last_seen_step: int | None = None  # set once a session was made
        self.recoveries: list[CheckpointRecovery] = []

    def begin(self) -> None:
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_or_fail("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Any, coord: Any) -> None:
        global_step = _scalar(session.run(self._global_step_tensor))
        if self._last_seen_step is not None:  # a new session after a failure
            self._report_recovery(global_step)
        self._last_seen_step = global_step
        if self._save_graph_def:
            graph = get_default_graph()
            io_family.write_graph(graph, self._checkpoint_dir, "graph.pbtxt")
            saver = self._get_saver()
            meta = export_meta_graph(graph=graph,
                                     saver_def=saver.saver_def if saver is not None else None)
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(meta)
        # The checkpoint saved here is the state at step `global_step`.
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values) -> None:
        stale_global_step = _scalar(run_values.results)
        self._see(stale_global_step)
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = _scalar(run_context.session.run(self._global_step_tensor))
            self._see(global_step)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session: Any) -> None:
        last_step = _scalar(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _see(self, step: int) -> None:
        if self._last_seen_step is None or step > self._last_seen_step:
            self._last_seen_step = step

    def _report_recovery(self, restored: int) -> None:
        last = self._last_seen_step
        lost = max(0, last - restored)
        self.recoveries.append(CheckpointRecovery(last, restored, lost))
        _log.warning("The session was recreated from the checkpoint of step %d in %s: the %d "
                     "update(s) made since (global step %d was seen before the failure) are "
                     "lost.", restored, self._checkpoint_dir, lost, last)

    def _save(self, session: Any, step: int) -> bool:
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            io_family.protos.SessionLog(status=io_family.protos.SessionLog.CHECKPOINT,
                              checkpoint_path=self._save_path), step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped.")
                should_stop = True
        return should_stop

    def _get_saver(self) -> Any:
        return _saver_from(self._saver, self._scaffold)


class StepCounterHook(SessionRunHook):
    """Logs and writes ``global_step/sec`` every ``every_n_steps`` or ``every_n_secs``."""

    def __init__(self, every_n_steps: int | None = 100, every_n_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None,
                 steps_per_run: int = 1):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer, self._output_dir = summary_writer, output_dir
        self._steps_per_run = steps_per_run

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_or_fail("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values) -> None:
        stale_global_step = _scalar(run_values.results)
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = _scalar(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    steps_per_sec = elapsed_steps / elapsed_time
                    if self._summary_writer is not None:
                        summary = io_family.protos.Summary()
                        summary.value.add(tag=self._summary_tag, simple_value=steps_per_sec)
                        self._summary_writer.add_summary(summary, global_step)
                    _log.info("%s: %g", self._summary_tag, steps_per_sec)


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every ``save_steps`` or ``save_secs`` and writes its result.

    Raises:
        ValueError: not exactly one of ``scaffold`` and ``summary_op``.
    """

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str | None = None, summary_writer: Any = None,
                 scaffold: Any = None, summary_op: Any = None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op, self._summary_writer = summary_op, summary_writer
        self._output_dir, self._scaffold = output_dir, scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step: int | None = None
        self._global_step_tensor = _global_step_or_fail("SummarySaverHook")

    def _get_summary_op(self) -> list | None:
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]

    def before_run(self, run_context):
        self._request_summary = (self._next_step is None
                                 or self._timer.should_trigger_for_step(self._next_step))
        requests: dict[str, Any] = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values) -> None:
        if not self._summary_writer:
            return
        global_step = _scalar(run_values.results["global_step"]) + 1
        if self._next_step is None or self._request_summary:
            global_step = _scalar(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(
                io_family.protos.SessionLog(status=io_family.protos.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session: Any = None) -> None:
        if self._summary_writer:
            self._summary_writer.flush()


class LoggingTensorHook(SessionRunHook):
    """Logs tensors (``"name = value, ..."``) every N local steps, every N seconds, or at
    the end.

    Raises:
        ValueError: not ``at_end`` and not exactly one of ``every_n_iter`` and
            ``every_n_secs``, or ``every_n_iter <= 0``.
    """

    def __init__(self, tensors: Any, every_n_iter: int | None = None,
                 every_n_secs: float | None = None, at_end: bool = False,
                 formatter: Callable | None = None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, Mapping):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = dict(tensors)
        self._formatter = formatter
        self._timer = (_NeverTriggerTimer() if only_log_at_end else
                       SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        graph = get_default_graph()
        self._current_tensors = {
            tag: graph.as_graph_element(t) if isinstance(t, str) else t
            for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values: Mapping) -> None:
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter:
            _log.info(self._formatter(tensor_values))
            return
        with np.printoptions(suppress=True):
            stats = ", ".join(f"{tag} = {tensor_values[tag]}" for tag in self._tag_order)
        if elapsed_secs is not None:
            _log.info("%s (%.3f sec)", stats, elapsed_secs)
        else:
            _log.info("%s", stats)

    def after_run(self, run_context, run_values) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session: Any) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss is NaN."""

    def __str__(self) -> str:
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (or requests a stop, with ``fail_on_nan_loss=False``) when the loss is NaN."""

    def __init__(self, loss_tensor: Any, fail_on_nan_loss: bool = True):
        self._loss_tensor, self._fail_on_nan_loss = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values) -> None:
        if np.isnan(run_values.results).any():
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(message)
                raise NanLossDuringTrainingError
            _log.warning(message)
            run_context.request_stop()


class ProfilerHook(SessionRunHook):
    """Traces a run every ``save_steps`` or ``save_secs``: writes ``timeline-<step>.json``
    (a Chrome trace) into ``output_dir`` and the run metadata into its event file."""

    def __init__(self, save_steps: int | None = None, save_secs: float | None = None,
                 output_dir: str = "", show_dataflow: bool = True, show_memory: bool = False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._output_dir = output_dir
        self._file_writer = None
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        self._next_step: int | None = None
        self._global_step_tensor = _global_step_or_fail("ProfilerHook")
        self._file_writer = FileWriterCache.get(self._output_dir)

    def before_run(self, run_context):
        self._request_summary = (self._next_step is not None
                                 and self._timer.should_trigger_for_step(self._next_step))
        opts = None
        if self._request_summary:
            run_options = context.runtime_class("RunOptions")
            opts = run_options(trace_level=run_options.FULL_TRACE)
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=opts)

    def after_run(self, run_context, run_values) -> None:
        stale_global_step = _scalar(run_values.results["global_step"])
        if self._next_step is None:
            # The timer starts now: the first trace comes N steps or seconds later.
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            from tfmini.client import timeline

            global_step = _scalar(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            trace = timeline.Timeline(run_values.run_metadata.step_stats)
            with open(self._output_file.format(global_step), "w") as f:
                f.write(trace.generate_chrome_trace_format(
                    show_dataflow=self._show_dataflow, show_memory=self._show_memory))
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are ``final_ops_values``."""

    def __init__(self, final_ops: Any, final_ops_feed_dict: Any = None):
        self._final_ops, self._final_ops_feed_dict = final_ops, final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self) -> Any:
        return self._final_ops_values

    def end(self, session: Any) -> None:
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops,
                                                     feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                _log.warning("An OutOfRangeError or StopIteration exception is raised by the "
                             "code in FinalOpsHook. This typically means the Ops running by "
                             "the FinalOpsHook have a dependency back to some input source, "
                             "which should not happen.")
                raise


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()`` to the feeds of every run."""

    def __init__(self, feed_fn: Callable[[], Mapping]):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches ``wait_until_step``."""

    def __init__(self, wait_until_step: int):
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return
        self._global_step_tensor = _global_step_or_fail("GlobalStepWaiterHook")

    def before_run(self, run_context):
        while not self._worker_is_started:
            step = _scalar(run_context.session.run(self._global_step_tensor))
            if step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            _log.info("Waiting for global step %d before starting training (now %d).",
                      self._wait_until_step, step)
            time.sleep(0.5)
        return None
