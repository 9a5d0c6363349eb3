"""Session: runs (parts of) a graph on NumPy kernels.

``Session.run`` resolves fetches and feeds, looks up (or builds) the Plan for
that signature, runs it, and returns NumPy values in the fetch structure.
Many threads may call ``run`` at once: plans are immutable once built and
every run keeps its values in its own frame.
"""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from tfmini import errors
from tfmini.core import context
from tfmini.core.graph import Graph, Operation, Output
from tfmini.core.scope import get_default_graph
from tfmini.runtime.fetch import FetchMapper, resolve_fetch
from tfmini.runtime.graph_rewrite import rewrite_passes
from tfmini.runtime.kernel_context import KernelContext, RunState
from tfmini.runtime.late_updates import commit as commit_late
from tfmini.runtime.memory import keep_memory_warm
from tfmini.runtime.options import (
    ConfigProto,
    DeviceStepStats,
    NodeExecStats,
    RunMetadata,
    RunOptions,
)
from tfmini.runtime.plan import Plan
from tfmini.runtime.resources import ResourceManager
from tfmini.runtime.threads import POLICY as BLAS_POLICY

CLOSE_WAIT_SECONDS = 10.0

# Plans a session keeps for run signatures it has seen (least recently used go first); each
# costs a few kilobytes (steps, generated code, its linecache entry). ConfigProto's
# plan_cache_size or Session(plan_cache_size=) changes it.
DEFAULT_PLAN_CACHE_SIZE = 1024

# The runs each thread is executing right now (innermost last), so that close() called from
# inside a kernel knows not to wait for the run that called it.
_running = threading.local()

# The process-wide run tracer (set_run_tracer): None, the usual case, costs each run one
# global lookup.
_run_tracer: Callable[[Any], None] | None = None


def set_run_tracer(tracer: Callable[[Any], None] | None) -> Callable[[Any], None] | None:
    """Traces every ``Session.run`` (and ``make_callable`` call) of the process.

    While a tracer is set, every run records per-op timings as if it had been given
    ``RunOptions(trace_level=FULL_TRACE)``, and after each successful run the tracer is
    called with that run's ``StepStats`` (from whichever thread ran it). A run that also
    asked for a trace itself still gets its ``run_metadata`` filled. Used by
    ``tm.client.timeline.tracing()`` and ``tfmini trace``.

    Args:
        tracer: Called with each run's ``StepStats``; None turns tracing off.

    Returns:
        The tracer that was set before (to restore it afterwards).
    """
    global _run_tracer
    previous, _run_tracer = _run_tracer, tracer
    return previous


class Device:
    """A device of a Session: its name and the resources it holds."""

    def __init__(self, device_type: str, index: int = 0):
        self.device_type = device_type
        self.name = f"/device:{device_type}:{index}"
        self.resource_manager = ResourceManager(self.name)


def _feed_value(output: Output, value: Any) -> Any:
    """Converts a fed value to the tensor's dtype and checks its shape (TF1's rules)."""
    dt = output.dtype
    if type(value) is np.ndarray and value.dtype == dt.np_dtype:
        arr = value
    elif isinstance(value, (Output, Operation)) or hasattr(value, "as_output"):
        # Checked before any conversion: a string tensor would happily hold the object.
        raise TypeError(
            f"The value of a feed cannot be a tm.Tensor object. Acceptable feed values include "
            f"Python scalars, strings, lists, numpy ndarrays. (fed to {output.name})"
        )
    elif dt.is_object:
        arr = value if dt.name in ("resource", "variant") else np.asarray(value, dtype=object)
        return arr
    else:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            # NumPy 2 raises OverflowError for an int that does not fit; TF says TypeError.
            fits = dt.is_integer and dt.min <= value <= dt.max
            if dt.is_integer and not fits:
                raise TypeError(
                    f"Type of feed value {value} with type {type(value)} is not compatible with "
                    f"Tensor type {dt!s}. Try explicitly setting the type of the feed tensor to a "
                    f"larger type (e.g. int64)."
                )
        try:
            # Lossy casts stay allowed, as in TF1 (which feeds np.asarray(value, dtype)), but
            # are never silent: NumPy's warnings (NaN or inf to int, float overflow, complex to
            # real) are raised here even when the caller is inside a run's errstate (a nested
            # run from a kernel), and integer wrap-around, which NumPy does not report, is.
            with np.errstate(all="warn"):
                arr = np.asarray(value, dtype=dt.np_dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise TypeError(
                f"Cannot feed value {_short_repr(value)} to Tensor '{output.name}' of dtype "
                f"{dt.name}: {e}"
            ) from None
        _warn_if_wrapped(value, arr, output)
    shape = output.shape
    dims = shape.dims
    if dims is not None:
        ashape = arr.shape
        if len(ashape) != len(dims) or any(
            d is not None and d != a for d, a in zip(dims, ashape)
        ):
            raise ValueError(
                f"Cannot feed value of shape {ashape} for Tensor {output.name!r}, which has shape "
                f"{str(shape)!r}"
            )
    return arr


class FeedConversionWarning(RuntimeWarning):
    """A fed value changed when converted to the tensor's dtype (an integer wrapped around)."""


def _warn_if_wrapped(value: Any, arr: np.ndarray, output: Output) -> None:
    """Warns when integer feeds wrapped around in the cast to a narrower integer type."""
    src = value if isinstance(value, np.ndarray) else None
    if src is None or src.dtype == arr.dtype or src.dtype.kind not in "iu" or (
        arr.dtype.kind not in "iu"
    ) or not src.size:
        return
    info = np.iinfo(arr.dtype)
    lo, hi = src.min(), src.max()
    if lo < info.min or hi > info.max:
        warnings.warn(
            f"Feeding {src.dtype} values in [{lo}, {hi}] to Tensor '{output.name}' of dtype "
            f"{arr.dtype} wraps around (as TensorFlow 1 does); feed {arr.dtype} values or "
            "use a wider tensor type",
            FeedConversionWarning,
            stacklevel=4,
        )


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        return f"<{type(value).__name__}>"
    return text if len(text) <= 200 else text[:197] + "..."


def _unshare_feeds(values: tuple, feed_values: list) -> tuple:
    """Fetched values that are the caller's own fed arrays, or views of them (a fed tensor,
    an Identity or a Reshape of one), come back as copies, as in TensorFlow: the result and
    the feed are independent."""
    fed = None
    out = None
    for i, v in enumerate(values):
        if type(v) is not np.ndarray:
            continue
        if v.base is None and not any(v is f for f in feed_values):
            continue  # owns its memory and is no feed: the usual case, decided at once
        if fed is None:
            fed = {id(_owner(f)) for f in feed_values if isinstance(f, np.ndarray)}
        # The fed array itself, or a view of its memory (an Identity, a Reshape of a feed).
        if id(_owner(v)) in fed:
            if out is None:
                out = list(values)
            out[i] = v.copy()
    return values if out is None else tuple(out)


def _owner(a: np.ndarray) -> np.ndarray:
    """The array that owns ``a``'s memory (NumPy points a view's ``base`` at it)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _finish(value: Any) -> Any:
    """What the user gets back: NumPy arrays they may modify, NumPy scalars for rank 0."""
    if type(value) is np.ndarray:
        if value.ndim == 0:
            return value[()]
        if not value.flags.writeable:
            return value.copy()  # state and constants are never handed out for writing
        return value
    if isinstance(value, np.generic):
        return value
    deref = getattr(value, "_tm_deref", None)
    if deref is not None:
        return _finish(deref())  # a fetched reference (Ref(T) output) gives its value, as TF
    if isinstance(value, (int, float, bool, complex, list, tuple)):
        arr = np.asarray(value)
        return arr[()] if arr.ndim == 0 else arr
    return value


def _itemsize(dtype: Any) -> int:
    """Bytes per element of ``dtype`` (0 for strings, resources and variants)."""
    return 0 if dtype.is_object else np.dtype(dtype.as_numpy_dtype).itemsize


# Handlers ``fn(target) -> Session subclass | None`` for non-empty targets: the distributed
# layer registers one (the runtime never imports it).
_target_handlers: list[Callable[[str], Any]] = []


def register_session_target(handler: Callable[[str], Any]) -> None:
    """Lets ``Session(target)`` build the subclass ``handler(target)`` returns (if not None)."""
    _target_handlers.append(handler)


class Session:
    """Runs graphs (``tf.compat.v1.Session``).

    Args:
        target: "" (in-process), or a cluster task's target (``server.target``), which
            builds a distributed session (``tfmini.distribute``, the ``dist`` extra).
        graph: The graph to run; default: the current default graph.
        config: A ConfigProto (``operation_timeout_in_ms`` and ``plan_cache_size`` are
            honoured).
        plan_cache_size: How many run signatures (fetches, feeds, targets) keep their
            compiled plan; the least recently used plan is dropped beyond it (and rebuilt if
            that signature runs again). Plans of ``make_callable`` handles are pinned while
            the handle lives and do not count. Default: ``config.plan_cache_size``, else
            ``DEFAULT_PLAN_CACHE_SIZE`` (1024). See docs/reliability.md.

    Example::

        with tm.Session(graph=g) as sess:
            sess.run(tm.global_variables_initializer())
            out = sess.run({"y": y}, feed_dict={x: batch})
    """

    # Op types whose waits run inline in compiled plans (Plan's inline_waits): none here; a
    # cluster task's session over a part its partitioner sequenced sets {"_Recv"}.
    _inline_waits: frozenset[str] = frozenset()

    def __new__(cls, target: str = "", *args: Any, **kwargs: Any):
        if target and cls is Session:
            for handler in _target_handlers:
                sub = handler(target)
                if sub is not None:
                    return super().__new__(sub)
        return super().__new__(cls)

    def __init__(
        self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None,
        plan_cache_size: int | None = None,
    ):
        if target not in ("", None):
            raise errors.UnimplementedError(
                None, None, f"Remote session targets are not supported: {target!r} (a "
                "cluster's targets come from tm.train.Server or tm.distribute.RayCluster; "
                "they need the dist extra: pip install 'tfmini[dist]')"
            )
        self._graph = graph if graph is not None else get_default_graph()
        if not isinstance(self._graph, Graph):
            raise TypeError(f"graph must be a tm.Graph, got {type(self._graph).__name__}")
        self._config = config if config is not None else ConfigProto()
        keep_memory_warm()  # once per process: freed outputs stay paged in (runtime/memory.py)
        self._rewrites = rewrite_passes(self._config)
        self._devices: dict[str, Device] = {"CPU": Device("CPU")}
        self._devices_lock = threading.Lock()
        if plan_cache_size is None:
            plan_cache_size = getattr(self._config, "plan_cache_size", 0) or (
                DEFAULT_PLAN_CACHE_SIZE
            )
        if (
            isinstance(plan_cache_size, bool) or not isinstance(plan_cache_size, int)
            or plan_cache_size < 1
        ):
            raise ValueError(f"plan_cache_size must be a positive int, got {plan_cache_size!r}")
        self._plan_cache_size = plan_cache_size
        # Insertion order is recency order: a hit moves its key to the end.
        self._plans: OrderedDict[tuple, Plan] = OrderedDict()
        # Plans pinned by make_callable handles: key -> (plan, number of live handles).
        self._pinned: dict[tuple, list] = {}
        self._function_plans: dict[Any, Plan] = {}
        self._plan_lock = threading.Lock()
        self._closed = False
        self._context_stack: list = []
        self._close_callbacks: list[Callable[[], None]] = []
        # Conditions blocking kernels are waiting on (with how many waiters), so close() and
        # a cancelled run can wake them at once.
        self._waiters: dict[threading.Condition, int] = {}
        self._waiters_lock = threading.Lock()
        # Runs in flight: close() lets them end (blocked ones are cancelled) before it frees
        # the resources they use. A set: adding and discarding are atomic, so the run path
        # takes no lock.
        self._inflight: set[RunState] = set()

    # -- properties ---------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> dict:
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return ""

    def list_devices(self) -> list[str]:
        return [d.name for d in self._devices.values()]

    def _device(self, device_type: str) -> Device:
        dev = self._devices.get(device_type)
        if dev is None:
            with self._devices_lock:
                dev = self._devices.get(device_type)
                if dev is None:
                    dev = self._devices[device_type] = Device(device_type)
        return dev

    # -- running ------------------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: dict | None = None, options: RunOptions | None = None,
            run_metadata: RunMetadata | None = None) -> Any:
        """Runs the ops needed for ``fetches`` and returns their values.

        Args:
            fetches: An Output, Operation, name, variable, or any nesting of
                list/tuple/namedtuple/dict/attrs of those.
            feed_dict: Values for any Outputs (not only placeholders), keyed by
                Output or name; converted to the tensor's dtype, shapes checked.
            options: RunOptions (timeout, tracing).
            run_metadata: Filled with per-op timings when tracing.

        Returns:
            NumPy arrays (NumPy scalars for rank 0; None for Operations) in the
            structure of ``fetches``.

        Raises:
            RuntimeError: the session is closed.
            TypeError / ValueError: bad fetch or feed (TensorFlow's classes).
            tm.errors.OpError: a kernel failed; the subclass says why.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        graph = self._graph
        if type(fetches) is Output and fetches.op.graph is graph:
            outputs, targets, build = [fetches], (), None
        else:
            if isinstance(fetches, (Operation, Output, str)) or hasattr(
                fetches, "_as_graph_element"
            ):
                element = resolve_fetch(graph, fetches)
                if isinstance(element, Operation):
                    outputs, targets, build = [], [element], _none
                else:
                    outputs, targets, build = [element], (), None
            else:
                mapper = FetchMapper(graph, fetches)
                outputs, targets, build = mapper.outputs, mapper.targets, mapper.build
        feeds, feed_values = self._resolve_feeds(feed_dict)
        plan = self._plan(outputs, feeds, targets)
        values = self._execute(plan, feed_values, options, run_metadata)
        if feed_values:
            values = _unshare_feeds(values, feed_values)
        if build is None:
            return _finish(values[0])
        return build([_finish(v) for v in values])

    def _resolve_feeds(self, feed_dict: dict | None) -> tuple[tuple, list]:
        if feed_dict is None:
            return (), []
        if not isinstance(feed_dict, Mapping):
            # TensorFlow's session.py: FlattenDictItems refuses anything but a mapping.
            raise TypeError(
                f"feed_dict must be a dictionary or collections.abc.Mapping, instead of "
                f"'{type(feed_dict).__name__}'."
            )
        if not feed_dict:
            return (), []
        graph = self._graph
        feeds = []
        values = []
        items = list(feed_dict.items())
        if any(hasattr(k, "_tm_feed_components") for k, _ in items):
            # Composite keys (SparseTensor) feed each of their parts.
            items = [pair for k, v in items for pair in (
                k._tm_feed_components(v) if hasattr(k, "_tm_feed_components") else [(k, v)])]
        for key, value in items:
            if type(key) is Output and key.op.graph is graph:
                out = key
            else:
                out = self._resolve_feed_key(key)
            feeds.append(out)
            values.append(_feed_value(out, value))
        return tuple(feeds), values

    def _resolve_feed_key(self, key: Any) -> Output:
        if isinstance(key, str):
            try:
                element = self._graph.as_graph_element(key, allow_operation=False)
            except (KeyError, ValueError) as e:
                raise ValueError(
                    f"Cannot interpret feed_dict key {key!r} as a Tensor: {e}"
                ) from None
        elif isinstance(key, Output):
            element = key
        elif hasattr(key, "_as_graph_element"):
            element = key._as_graph_element()  # a Variable feeds its graph element, as in TF
        elif hasattr(key, "as_output") and not isinstance(key, Operation):
            # Operands (variables, op wrappers) feed their tensor. An Operation is refused as
            # TF refuses it, though its as_output would pick an output for it.
            element = key.as_output()
        else:
            raise TypeError(
                f"Cannot interpret feed_dict key as Tensor: {key!r} (type {type(key).__name__})"
            )
        if element.graph is not self._graph:
            raise ValueError(f"Cannot feed {element.name}: it is not an element of this graph.")
        return element

    def _plan(self, outputs: Sequence[Output], feeds: tuple, targets: Sequence[Operation]) -> Plan:
        key = (tuple(outputs), feeds, tuple(targets))
        plans = self._plans
        plan = plans.get(key)
        if plan is not None:
            try:
                plans.move_to_end(key)  # recently used; atomic under the GIL
            except KeyError:
                pass  # evicted by another thread just now: this run still has its plan
            return plan
        with self._plan_lock:
            plan = plans.get(key)
            if plan is None:
                pinned = self._pinned.get(key)
                plan = pinned[0] if pinned is not None else Plan(
                    outputs, feeds, targets, self._rewrites, self._inline_waits)
                plans[key] = plan
                while len(plans) > self._plan_cache_size:
                    # Dropping the plan frees its code and linecache entry (codegen).
                    plans.popitem(last=False)
        return plan

    @property
    def plan_cache_size(self) -> int:
        """How many run signatures keep their plan (see the class doc)."""
        return self._plan_cache_size

    def _pin_plan(self, key: tuple, plan: Plan) -> None:
        with self._plan_lock:
            entry = self._pinned.get(key)
            if entry is None:
                self._pinned[key] = [plan, 1]
            else:
                entry[1] += 1

    def _unpin_plan(self, key: tuple) -> None:
        with self._plan_lock:
            entry = self._pinned.get(key)
            if entry is not None:
                entry[1] -= 1
                if entry[1] <= 0:
                    del self._pinned[key]

    def plan_source(self, fetches: Any, feed_dict: Any = None) -> str:
        """The generated Python that ``run(fetches, feed_dict)`` executes, for reading.

        A run compiles its plan to straight-line Python, one line per op; a kernel failure's
        traceback points at that code (``File "<tfmini plan N>", line L``) and shows the line.
        This returns the whole text as tracebacks show it: each op's line ends with a comment
        naming its type and name, the ``def`` line names the devices (``c<i>``) and feeds
        (``f<i>``), the ``return`` line the fetches. The comments are for reading only; the
        code that runs is compiled from the same lines without them.

        The plan is the one ``run`` uses for the same fetches and feeds (built and cached
        here if no run has built it yet). A plan holding blocking steps (e.g. an accumulator
        take) is run by the dataflow executor instead; its text then starts with a comment
        saying so. A traced run (``RunOptions.trace_level``) runs the same steps one by one.

        Args:
            fetches: As for ``run``.
            feed_dict: The feeds of the run, as for ``run`` (only the keys, in order, matter:
                values are not looked at), or a sequence of feed keys; None for no feeds.

        Returns:
            The annotated source text.

        Raises:
            RuntimeError: the session is closed.
            TypeError / ValueError: bad fetch or feed key (as ``run`` raises them).
            tm.errors.InvalidArgumentError: the graph cannot be planned (a cycle, a missing
                kernel), as ``run`` would raise it.

        Example::

            print(sess.plan_source(loss, {x: batch}))
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        mapper = FetchMapper(self._graph, fetches)
        feeds = tuple(self._resolve_feed_key(k) for k in (feed_dict or ()))
        return self._plan(mapper.outputs, feeds, mapper.targets).annotated_source

    def _deadline(self, options: RunOptions | None) -> float | None:
        ms = options.timeout_in_ms if options is not None and options.timeout_in_ms else 0
        if not ms:
            ms = self._config.operation_timeout_in_ms
        return time.monotonic() + ms / 1000.0 if ms and ms > 0 else None

    def _contexts(self, plan: Plan, run: RunState) -> list[KernelContext]:
        ctxs = []
        for name, dtype in plan.devices:
            dev = self._device(dtype)
            ctxs.append(KernelContext(run, name, dtype, dev.resource_manager))
        return ctxs

    def _execute(self, plan: Plan, feed_values: list, options: RunOptions | None,
                 run_metadata: RunMetadata | None, _traced: bool = False) -> tuple:
        if _run_tracer is not None and not _traced:
            return self._execute_traced(plan, feed_values, options, run_metadata)
        run = RunState(self, options, self._deadline(options))
        # Register, then look at `closed`: close() sets `closed`, then waits for the set to
        # drain, so either this run sees the close or the close sees this run.
        self._inflight.add(run)
        if self._closed:
            self._inflight.discard(run)
            raise RuntimeError("Attempted to use a closed Session.")
        ctxs = self._contexts(plan, run)
        tracing = options is not None and options.trace_level > 0 and run_metadata is not None
        # BLAS threads shrink while several runs are in flight (runtime/threads.py).
        BLAS_POLICY.enter(self._config.intra_op_parallelism_threads, plan.splits_own_work)
        stack = getattr(_running, "runs", None)
        if stack is None:
            stack = _running.runs = []
        stack.append(run)
        try:
            # TensorFlow computes inf/nan silently; NumPy would warn. One errstate per run
            # (about 1 us) lets every kernel stay a bare ufunc call.
            with np.errstate(all="ignore"):
                if tracing:
                    stats: list = []
                    values = plan.run_stepwise(ctxs, feed_values, stats)
                    self._record_stats(run_metadata, stats)
                else:
                    run.late_ops = plan.late_ops
                    values = plan.run(ctxs, feed_values)
            if run.closed_inside:
                raise errors.CancelledError(
                    None, None, "Session.close() was called during this run (from one of its "
                    "kernels); the run's results are discarded"
                )
            if run.late:  # updates written in place now that nothing can fail after them
                with np.errstate(all="ignore"):
                    commit_late(run.late)
        except BaseException as e:
            run.rollback()
            if run.closed_inside and not isinstance(e, errors.CancelledError):
                raise errors.CancelledError(
                    None, None, f"Session.close() was called during this run (from one of its "
                    f"kernels); the run then failed: {_safe_str(e)}"
                ) from e
            raise
        finally:
            BLAS_POLICY.exit()
            stack.pop()
            self._inflight.discard(run)
        return values

    def _execute_traced(self, plan: Plan, feed_values: list, options: RunOptions | None,
                        run_metadata: RunMetadata | None) -> tuple:
        """A run while a tracer is set: FULL_TRACE, then the tracer gets the StepStats."""
        tracer = _run_tracer
        traced_options = (RunOptions(trace_level=RunOptions.FULL_TRACE) if options is None
                          else attrs.evolve(options, trace_level=RunOptions.FULL_TRACE))
        traced = RunMetadata()
        values = self._execute(plan, feed_values, traced_options, traced, _traced=True)
        if options is not None and options.trace_level > 0 and run_metadata is not None:
            run_metadata.step_stats.dev_stats.extend(traced.step_stats.dev_stats)
        if tracer is not None:  # (set_run_tracer(None) from another thread meanwhile)
            tracer(traced.step_stats)  # after the run: a failing tracer undoes nothing
        return values

    @staticmethod
    def _record_stats(run_metadata: RunMetadata, stats: list) -> None:
        # perf_counter times become wall-clock microseconds, as TensorFlow records them.
        offset = time.time() - time.perf_counter()
        thread_id = threading.get_native_id()
        by_device: dict[str, DeviceStepStats] = {}
        for step, device, start, end, shapes in stats:
            dev = by_device.get(device)
            if dev is None:
                dev = by_device[device] = DeviceStepStats(device=device)
            op = step.op
            dtypes = [o.dtype.name for o in op.outputs]
            sizes = [int(np.prod(s, dtype=np.int64)) * _itemsize(o.dtype)
                     for s, o in zip(shapes, op.outputs, strict=False)]
            inputs = ", ".join(t.op.name for t in op.inputs)
            dev.node_stats.append(
                NodeExecStats(
                    node_name=op.name,
                    op_type=op.type,
                    all_start_micros=int((start + offset) * 1e6),
                    all_end_rel_micros=max(int((end - start) * 1e6), 0),
                    output_shapes=[list(s) for s in shapes],
                    output_bytes=sizes,
                    output_dtypes=dtypes,
                    thread_id=thread_id,
                    timeline_label=f"{op.name} = {op.type}({inputs})",
                )
            )
        run_metadata.step_stats.dev_stats.extend(by_device.values())

    def _call_function(self, function: Any, args: Sequence[Any], run: RunState) -> list:
        """Runs a FuncGraph (``inputs``, ``outputs``, ``control_outputs``) inside a run."""
        plan = self._function_plans.get(function)
        if plan is None:
            with self._plan_lock:
                plan = self._function_plans.get(function)
                if plan is None:
                    plan = Plan(function.outputs, function.inputs, function.control_outputs)
                    self._function_plans[function] = plan
        ctxs = self._contexts(plan, run)
        return list(plan.run(ctxs, args))

    def make_callable(self, fetches: Any, feed_list: Sequence[Any] | None = None,
                      accept_options: bool = False) -> Callable:
        """A function running ``fetches`` with values for ``feed_list`` given positionally.

        The plan is built once, so each call skips fetch and feed resolution.
        """
        mapper = FetchMapper(self._graph, fetches)
        feeds = tuple(self._resolve_feed_key(k) for k in (feed_list or ()))
        plan = self._plan(mapper.outputs, feeds, mapper.targets)
        key = (tuple(mapper.outputs), feeds, tuple(mapper.targets))
        # The handle pins its plan: the LRU bound of the cache never drops it while the
        # handle lives (the handle holds the plan anyway; pinning lets run() share it).
        self._pin_plan(key, plan)
        build = mapper.build

        def call(*feed_values, options=None, run_metadata=None):
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if len(feed_values) != len(feeds):
                raise TypeError(f"Expected {len(feeds)} feed values, got {len(feed_values)}")
            vals = [_feed_value(o, v) for o, v in zip(feeds, feed_values)]
            values = self._execute(plan, vals, options if accept_options else None, run_metadata)
            if vals:
                values = _unshare_feeds(values, vals)
            return build([_finish(v) for v in values])

        weakref.finalize(call, _unpin, weakref.ref(self), key)
        return call

    # -- blocking steps ------------------------------------------------------------------
    def _add_waiter(self, condition: threading.Condition) -> None:
        with self._waiters_lock:
            self._waiters[condition] = self._waiters.get(condition, 0) + 1

    def _remove_waiter(self, condition: threading.Condition) -> None:
        with self._waiters_lock:
            n = self._waiters.get(condition, 0) - 1
            if n > 0:
                self._waiters[condition] = n
            else:
                self._waiters.pop(condition, None)

    def _wake_waiters(self) -> None:
        with self._waiters_lock:
            conditions = list(self._waiters)
        for condition in conditions:
            with condition:
                condition.notify_all()

    # -- lifetime -----------------------------------------------------------------------
    def _add_close_callback(self, fn: Callable[[], None]) -> None:
        """Called by resources that must wake waiters when the session closes."""
        self._close_callbacks.append(fn)

    def close(self) -> None:
        """Closes the session: blocked steps are cancelled and resources released."""
        if self._closed:
            return
        self._closed = True
        # close() called from a kernel of a run of this session (on this thread): that run
        # cannot end while close() waits for it, so it is not waited for; it ends with
        # CancelledError instead of returning values from a closed session.
        own = [r for r in getattr(_running, "runs", ()) if r.session is self]
        for r in own:
            r.closed_inside = True
        self._wake_waiters()  # blocked steps see the closed session and are cancelled
        for fn in list(self._close_callbacks):
            fn()
        # As TensorFlow: runs in flight end (a blocked one with CancelledError) before the
        # resources go. A run that never ends (a kernel ignoring cancellation) is not waited
        # for past CLOSE_WAIT_SECONDS.
        give_up = time.monotonic() + CLOSE_WAIT_SECONDS
        while (
            any(r not in own for r in list(self._inflight)) and time.monotonic() < give_up
        ):
            time.sleep(0.001)
        for dev in self._devices.values():
            dev.resource_manager.clear()
        self._plans.clear()
        self._pinned.clear()
        self._function_plans.clear()

    @property
    def closed(self) -> bool:
        return self._closed

    def as_default(self):
        """Context manager making this the default session (does not close it)."""
        return context.default_session(self)

    def __enter__(self) -> Session:
        stack = contextlib.ExitStack()
        stack.enter_context(self._graph.as_default())
        stack.enter_context(context.default_session(self))
        self._context_stack.append(stack)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        stack = self._context_stack.pop()
        stack.close()
        self.close()

    def __del__(self):
        try:
            if not self._closed:
                self.close()
        except Exception:  # interpreter shutdown
            pass


def _none(values):
    return None


def _unpin(session_ref: Any, key: tuple) -> None:
    session = session_ref()
    if session is not None:
        session._unpin_plan(key)


def _safe_str(e: BaseException) -> str:
    try:
        return f"{type(e).__name__}: {e}"
    except Exception:  # an exception whose __str__ fails still has a type
        return f"{type(e).__name__} (its message could not be formatted)"


class InteractiveSession(Session):
    """A Session that installs itself as the default session on construction."""

    def __init__(
        self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None
    ):
        super().__init__(target, graph, config)
        self._default_cm = context.default_session(self)
        self._default_cm.__enter__()

    def close(self) -> None:
        if not self._closed and getattr(self, "_default_cm", None) is not None:
            try:
                self._default_cm.__exit__(None, None, None)
            except Exception:
                pass
        super().close()


def get_default_session():
    """The default session of this thread (``tm.get_default_session()``)."""
    return context.get_default_session()



context.register_runtime_class("Session", Session)
context.register_runtime_class("RunOptions", RunOptions)
context.register_runtime_class("RunMetadata", RunMetadata)
