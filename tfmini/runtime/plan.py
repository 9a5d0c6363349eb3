"""Plans: what one ``Session.run`` signature executes, built once and cached by the Session.

A Plan puts three pieces together, each in a module of its own:

* ``analysis``: the ops to run, in order, bound to kernels, value slots and liveness
  (a ``Schedule``);
* ``codegen``: the schedule as straight-line Python, compiled, its annotated text in
  ``linecache``;
* ``executors``: compiled (plain runs), stepwise (traced runs) and dataflow (plans holding
  blocking steps), all calling kernels by the one protocol of ``steps``.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

from tfmini.core.graph import Operation, Output
from tfmini.ops.common.parallel import splits_own_work
from tfmini.runtime.analysis import analyze
from tfmini.runtime.codegen import CompiledPlan, generate
from tfmini.runtime.executors import CompiledExecutor, DataflowExecutor, StepwiseExecutor
from tfmini.runtime.graph_rewrite import Passes
from tfmini.runtime.late_updates import late_ops

# Heads the annotated source of a plan that the compiled function does not run.
_DATAFLOW_NOTE = (
    "# This plan holds blocking steps: the dataflow executor runs these steps as their\n"
    "# inputs become ready (blocking ones on threads of their own), not this function.\n"
)


class Plan:
    """The executable form of one (fetches, feeds, targets) signature.

    Plans are immutable once built; many threads may run one at once (every run keeps its
    values in its own frame).

    Args:
        fetches: The Outputs whose values a run returns, in order.
        feeds: The Outputs whose values a run is given, in order (they are not computed).
        targets: Operations a run runs for their effects.
        optimize: The plan-time graph rewrites to apply (``graph_rewrite.Passes``); None:
            none.
        inline_waits: Op types whose waits may run inline in the compiled plan (see
            ``analysis.analyze``).

    Attributes:
        schedule: The analysis (``analysis.Schedule``): steps, slots, devices, liveness.
        fetches, feeds, targets, steps, devices, has_blocking: As in ``schedule``.
        source: The generated Python that is compiled (generated names only).
        annotated_source: ``source`` with each line's op named in a comment; what tracebacks
            show and ``Session.plan_source`` returns.
        run: ``run(ctxs, feed_values) -> tuple``: runs the plan with one kernel context per
            device (``devices`` order) and one value per feed; returns the fetched values. A
            kernel failure is raised as the matching ``tm.errors`` class naming the op.
        run_stepwise: ``run_stepwise(ctxs, feed_values, stats=None)``: the same, step by step,
            appending ``(step, device, start, end, output shapes)`` per step to ``stats``.
        late_ops: The ops whose updates may be applied when the run has succeeded
            (``late_updates.late_ops``; empty for a plan holding blocking steps).
        splits_own_work: Whether a step's kernel shares its work out over the cores itself
            (``ops/common/parallel.register_splitter``): the thread policy then keeps the
            BLAS pool at one thread for the run (``runtime/threads.py``).
    """

    def __init__(
        self,
        fetches: Sequence[Output],
        feeds: Sequence[Output],
        targets: Sequence[Operation],
        optimize: Passes | None = None,
        inline_waits: frozenset[str] = frozenset(),
    ):
        # Building a plan makes many objects that all live as long as the plan: the cyclic
        # collector, triggered by their count, would walk the whole graph again and again
        # (a third of a 10,000-op plan's build), to free nothing.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._build(fetches, feeds, targets, optimize, inline_waits)
        finally:
            if collecting:
                gc.enable()

    def _build(self, fetches, feeds, targets, optimize, inline_waits) -> None:
        schedule = self.schedule = analyze(fetches, feeds, targets, optimize, inline_waits)
        self.fetches = schedule.fetches
        self.feeds = schedule.feeds
        self.targets = schedule.targets
        self.steps = schedule.steps
        self.devices = schedule.devices
        self.has_blocking = schedule.has_blocking
        self.splits_own_work = splits_own_work({step.op.type for step in schedule.steps})
        generated = generate(schedule)
        self.source = generated.source
        self.run: Any
        self.run_stepwise: Any
        if schedule.has_blocking:
            # The generated text is kept for reading (plan_source); nothing compiles it.
            self.annotated_source = _DATAFLOW_NOTE + generated.annotated
            self.program = None
            self.late_ops: frozenset[Operation] = frozenset()
            self.run = self.run_stepwise = DataflowExecutor(schedule).run
        else:
            self.annotated_source = generated.annotated
            self.late_ops = late_ops(schedule.steps, schedule.feeds)
            self.program = CompiledPlan(generated, tuple(step.fn for step in schedule.steps))
            # Bound methods as attributes: Session.run's hot path calls the executor directly.
            self.run = CompiledExecutor(schedule, self.program).run
            self.run_stepwise = StepwiseExecutor(schedule).run
