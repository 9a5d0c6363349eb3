"""Executors: the three ways a plan's steps are run.

All three call kernels by the one protocol of ``steps`` (arguments, results, failure):

* ``CompiledExecutor`` calls the generated straight-line function (``codegen``): the fast
  path, used for every plain run. It does no per-step bookkeeping; a failing step is found
  afterwards from the traceback line, and its inputs from the frame's locals.
* ``StepwiseExecutor`` loops over the steps, timing each: used when a run is traced
  (``RunOptions.trace_level`` with a ``RunMetadata``). Same results as the compiled form.
* ``DataflowExecutor`` runs a plan holding blocking steps (an accumulator take, or an If /
  While whose functions hold one) without letting them stall the run: steps run as soon as
  their inputs are ready, each blocking step on a thread of its own (threads are reused
  across steps and runs: ``_WaitThreads``).

Each has ``run(ctxs, feed_values)`` (the stepwise and dataflow ones take ``stats`` too, a
list that receives ``(step, device, start, end, output shapes)`` per step) and returns the
fetched values as a tuple. ``ctxs`` holds one kernel context per device of the plan.
"""

from __future__ import annotations

import heapq
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.runtime.analysis import Schedule, dependencies
from tfmini.runtime.codegen import CompiledPlan
from tfmini.runtime.steps import raise_kernel_error


class CompiledExecutor:
    """Runs the compiled straight-line function of a plan."""

    __slots__ = ("_steps", "_program", "_function")

    def __init__(self, schedule: Schedule, program: CompiledPlan):
        self._steps = schedule.steps
        self._program = program
        self._function = program.function

    def run(self, ctxs: Sequence[Any], feed_values: Sequence[Any]) -> tuple:
        """Runs the plan; a kernel failure is raised as a ``tm.errors`` class naming the op."""
        try:
            return self._function(*ctxs, *feed_values)
        except Exception as e:
            step_index, frame_locals = self._failed_step(e)
            if step_index is None:
                raise  # not a kernel's failure (a wrong number of feed values, say)
            self._program.register_source()  # the traceback shows the line, even after clearcache
            step = self._steps[step_index]
            local_name = self._program.generated.local_name
            # Registers are reused, but at the failing line every input still holds its value.
            inputs = [frame_locals.get(local_name.get(slot, ""))
                      for s in step.inputs for slot in (s if isinstance(s, list) else (s,))]
            raise_kernel_error(e, step, inputs)

    def _failed_step(self, e: BaseException) -> tuple[int | None, dict | None]:
        """The index of the step whose line raised ``e``, and the plan frame's locals."""
        code = self._program.code
        line_to_step = self._program.generated.line_to_step
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                si = line_to_step.get(tb.tb_lineno)
                if si is not None:
                    return si, tb.tb_frame.f_locals
            tb = tb.tb_next
        return None, None


class StepwiseExecutor:
    """Runs a plan step by step, recording each step's timing (for traced runs)."""

    __slots__ = ("_schedule",)

    def __init__(self, schedule: Schedule):
        self._schedule = schedule

    def run(self, ctxs: Sequence[Any], feed_values: Sequence[Any],
            stats: list | None = None) -> tuple:
        """Runs the plan; same results and failures as ``CompiledExecutor.run``."""
        schedule = self._schedule
        values: list[Any] = [None] * schedule.num_slots
        values[: len(feed_values)] = feed_values
        for step in schedule.steps:
            args = step.arguments(ctxs, values)
            start = time.perf_counter()
            try:
                results = step.call(args)
            except Exception as e:
                raise_kernel_error(e, step, step.input_values(args))
            end = time.perf_counter()
            step.store(results, values)
            if stats is not None:
                stats.append((step, step.device, start, end, [np.shape(v) for v in results]))
        return tuple(values[s] for s in schedule.fetch_slots)


# The name of a wait thread between steps (a running one is named "tfmini <op name>").
IDLE_THREAD_NAME = "tfmini-idle-wait"
# Seconds an idle wait thread stays for the next blocking step before it ends.
IDLE_THREAD_SECONDS = 30.0


class _WaitThreads:
    """The threads blocking steps run on, kept between runs: starting a thread costs about
    0.1 ms, several times a small step's own work. Never bounded (a blocking step may wait
    for as long as its deadline lets it, and each needs a thread of its own): a step gets an
    idle thread, else a new one; a thread idle for ``IDLE_THREAD_SECONDS`` ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for work, not yet promised any
        self._work: queue.SimpleQueue = queue.SimpleQueue()

    def submit(self, name: str, fn: Any, *args: Any) -> None:
        """Runs ``fn(*args)`` on a wait thread; returns once that thread has taken it (as
        ``Thread.start`` returns once the thread runs), so the step starts before the
        scheduler goes on, as it did on a thread of its own."""
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1  # promised to this piece of work
        taken = threading.Event()
        item = [name, fn, args, taken]
        self._work.put(item)
        if start:
            try:
                threading.Thread(target=self._serve, daemon=True, name=name).start()
            except BaseException:
                item[1] = None  # never to run: a later thread drops it (it was not promised)
                raise
        taken.wait()

    def _serve(self) -> None:
        me = threading.current_thread()
        while True:
            try:
                name, fn, args, taken = self._work.get(timeout=IDLE_THREAD_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # nobody was promised this thread: it may end
                        self._idle -= 1
                        return
                continue  # work was promised to an idle thread: wait for it
            if fn is None:
                continue  # its submit failed to start a thread; this thread's promise stands
            me.name = name
            taken.set()
            fn(*args)  # (reports its own outcome; never raises)
            with self._lock:
                self._idle += 1


_wait_threads = _WaitThreads()


class DataflowExecutor:
    """Runs a plan holding blocking steps without letting them stall the run.

    Steps run in the calling thread as soon as their inputs are ready (lowest step first);
    each blocking step runs on a thread of its own, so the steps that will satisfy it (the
    applies a take waits for) keep running, unless it is the only step ready and none is in
    flight: then every other step waits for it anyway, and it runs in the calling thread.
    Blocking kernels wait with ``KernelContext.wait``, which ends at the run's deadline or
    when the session closes.
    When any step fails, the run is cancelled, the waiting steps end, and the first failure
    is raised.
    """

    __slots__ = ("_schedule", "_num_preds", "_successors", "_num_reads")

    def __init__(self, schedule: Schedule):
        self._schedule = schedule
        self._num_preds, self._successors, self._num_reads = dependencies(schedule)

    def run(self, ctxs: Sequence[Any], feed_values: Sequence[Any],
            stats: list | None = None) -> tuple:
        """Runs the plan; a kernel failure is raised as a ``tm.errors`` class naming the op."""
        schedule = self._schedule
        steps = schedule.steps
        values: list[Any] = [None] * schedule.num_slots
        values[: len(feed_values)] = feed_values
        remaining = list(self._num_preds)
        ready = [si for si, n in enumerate(remaining) if n == 0]
        heapq.heapify(ready)
        done: queue.SimpleQueue = queue.SimpleQueue()
        run_state = ctxs[0].run if ctxs else None
        in_flight = 0
        finished = 0
        failure: tuple | None = None
        # A value is dropped once all its readers have it (fetched values excepted), so
        # memory is freed early as in the compiled form.
        uses = list(self._num_reads)
        for slot in schedule.fetch_slots:
            uses[slot] = -1  # never dropped

        def args_of(step) -> list:
            args = step.arguments(ctxs, values)
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    uses[slot] -= 1
                    if uses[slot] == 0:
                        values[slot] = None  # its last reader has it
            return args

        def timed_call(step, args: list):
            start = time.perf_counter()
            return step.call(args), start, time.perf_counter()

        def worker(si: int, args: list) -> None:
            try:
                outcome = (si, args, timed_call(steps[si], args), None)
            except BaseException as e:  # reported to the scheduling thread, raised there
                outcome = (si, args, None, e)
            # Idle again before the run can see the step end (tests count running threads).
            threading.current_thread().name = IDLE_THREAD_NAME
            done.put(outcome)

        def complete(si: int, timed) -> None:
            nonlocal finished
            results, start, end = timed
            step = steps[si]
            step.store(results, values)
            if stats is not None:
                stats.append((step, step.device, start, end, [np.shape(v) for v in results]))
            finished += 1
            for succ in self._successors[si]:
                remaining[succ] -= 1
                if remaining[succ] == 0:
                    heapq.heappush(ready, succ)

        try:
            while finished < len(steps) and failure is None:
                # Blocking steps that finished meanwhile release their successors first.
                while in_flight:
                    try:
                        si, args, timed, exc = done.get_nowait()
                    except queue.Empty:
                        break
                    in_flight -= 1
                    if exc is not None:
                        failure = (si, args, exc)
                        break
                    complete(si, timed)
                if failure is not None or finished == len(steps):
                    break
                if ready:
                    si = heapq.heappop(ready)
                    step = steps[si]
                    args = args_of(step)
                    # A blocking step with no other step ready or in flight runs here: every
                    # step left depends on it, so no step of this run could satisfy its wait
                    # and a thread would only add a hand-off (two on a busy machine's cores).
                    if step.blocking and (ready or in_flight):
                        in_flight += 1
                        _wait_threads.submit(f"tfmini {step.op.name}", worker, si, args)
                        continue
                    try:
                        timed = timed_call(step, args)
                    except Exception as e:
                        failure = (si, args, e)
                        break
                    complete(si, timed)
                elif in_flight:
                    si, args, timed, exc = done.get()
                    in_flight -= 1
                    if exc is not None:
                        failure = (si, args, exc)
                    else:
                        complete(si, timed)
                else:  # pragma: no cover - a DAG always has a ready step or one in flight
                    raise errors.InternalError(None, None, "dataflow scheduler found no ready step")
        except BaseException:
            # Escaping the scheduler (a KeyboardInterrupt in a kernel or while waiting): the
            # blocking steps in flight end before the caller rolls the run back.
            if in_flight and run_state is not None:
                run_state.cancel()
                while in_flight:
                    done.get()
                    in_flight -= 1
            raise

        if failure is not None:
            # A CancelledError seen once the run is already cancelled (a step inside a function
            # this run calls failed and cancelled it) is a consequence: the failure that caused
            # it, still in flight, is the one to report (as TensorFlow prefers it).
            derived = run_state is not None and run_state.cancelled
            if run_state is not None:
                run_state.cancel()  # waiting steps of this run end with CancelledError
            while in_flight:
                si, args, _, exc = done.get()
                in_flight -= 1
                if (exc is not None and derived and isinstance(failure[2], errors.CancelledError)
                        and not isinstance(exc, errors.CancelledError)):
                    failure, derived = (si, args, exc), False
            si, args, exc = failure
            if not isinstance(exc, Exception):
                raise exc  # KeyboardInterrupt, SystemExit: as they are, never wrapped
            step = steps[si]
            raise_kernel_error(exc, step, step.input_values(args))
        return tuple(values[s] for s in schedule.fetch_slots)
