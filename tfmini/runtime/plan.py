"""Plans: what one ``Session.run`` signature executes, compiled once and cached.

A Plan walks back from the fetches and targets, stops at feeds, follows
control inputs, orders the ops topologically (ties by creation order), binds
each step to its kernel and attrs, and assigns every value a slot.

Execution has two forms built from the same steps:

* ``compiled``: straight-line Python generated from the steps, one line per
  op, values in local variables. Slots are register-allocated so a value
  dies (and its memory is freed) as soon as its last consumer has run. This
  is what makes the interpreter overhead a fraction of a microsecond per op.
* ``run_stepwise``: a loop over the steps, used when a run is traced.

A failing kernel is found from the traceback line (no per-step bookkeeping
on the fast path) and re-raised as a ``tm.errors`` class naming the op.
"""

from __future__ import annotations

import functools
import heapq
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import registry
from tfmini.core.devices import device_type_of
from tfmini.core.function import FuncGraph
from tfmini.core.graph import Operation, Output
from tfmini.core.opdef import Kernel, arg_slices
from tfmini.core.shapes import dims_str

_PY_TO_TF = (
    (errors.OpError, None),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
    (StopIteration, errors.OutOfRangeError),
    ((ValueError, TypeError, IndexError, ArithmeticError, KeyError), errors.InvalidArgumentError),
)


class Step:
    """One op of a plan, bound to its kernel."""

    __slots__ = (
        "op", "fn", "takes_ctx", "inputs", "outputs", "device_index", "lineno", "sequence",
        "blocking",
    )

    def __init__(self, op, fn, takes_ctx, inputs, outputs, device_index):
        self.op: Operation = op
        # The kernel returns a sequence when the op has several output arguments or a list
        # output (even a list of one, e.g. IdentityN of one tensor); else the value itself.
        self.sequence: bool = len(op.op_def.outputs) > 1 or any(
            a.is_list for a in op.op_def.outputs
        )
        self.fn = fn
        self.takes_ctx: bool = takes_ctx
        # One entry per input argument: a slot, or a list of slots for list arguments.
        self.inputs: list[int | list[int]] = inputs
        self.outputs: list[int] = outputs  # a slot per op output, -1 when nobody needs it
        self.device_index: int = device_index
        self.lineno: int = 0
        self.blocking: bool = False  # may wait: runs on its own thread (see run_dataflow)


def _input_groups(op: Operation) -> list[int | slice]:
    """Per input argument: the flat input index, or a slice for list arguments."""
    return arg_slices(op.op_def.inputs, op.attrs)


def _bind_kernel(op: Operation, kernel: Kernel):
    if kernel.attr_names is None:
        wanted = dict(op.attrs)
    else:
        wanted = {k: op.attrs[k] for k in kernel.attr_names if k in op.attrs}
    if kernel.wants_node and "node" not in op.attrs:
        wanted["node"] = op  # kernels that need their op's name ask for `node`
    return functools.partial(kernel.fn, **wanted) if wanted else kernel.fn


def _output_is_ref(output: Output) -> bool:
    """Whether ``output`` comes from a reference (``Ref(T)``) output argument."""
    op = output.op
    k = output.value_index
    for arg, where in zip(op.op_def.outputs, arg_slices(op.op_def.outputs, op.attrs)):
        if where == k or (isinstance(where, slice) and where.start <= k < where.stop):
            return arg.is_ref
    return False


def _deref_positions(op: Operation) -> list[tuple[int, list[int] | None]]:
    """Input arguments that are not references but receive a reference output: TensorFlow
    hands such an input the variable's current value, so the kernel gets ``_tm_deref()``."""
    positions = []
    for pos, (arg, g) in enumerate(zip(op.op_def.inputs, _input_groups(op))):
        if arg.is_ref:
            continue
        if isinstance(g, slice):
            elems = [j for j, t in enumerate(op.inputs[g]) if _output_is_ref(t)]
            if elems:
                positions.append((pos, elems))
        elif _output_is_ref(op.inputs[g]):
            positions.append((pos, None))
    return positions


def _with_deref(fn, takes_ctx: bool, positions: list[tuple[int, list[int] | None]]):
    offset = 1 if takes_ctx else 0

    def call(*args):
        args = list(args)
        for pos, elems in positions:
            a = args[pos + offset]
            if elems is None:
                args[pos + offset] = a._tm_deref()
            else:
                args[pos + offset] = [x._tm_deref() if j in elems else x for j, x in enumerate(a)]
        return fn(*args)

    return call


def _may_block(op: Operation, memo: dict[FuncGraph, bool]) -> bool:
    """Whether running ``op`` may wait: it is a blocking op, or it calls a function (a cond
    branch, a loop body) that holds one, at any depth. Such a step runs on its own thread, as
    TensorFlow runs If/While asynchronously: the steps that satisfy the wait keep running."""
    op_def = registry.lookup(op.type) or op.op_def
    if op_def.is_blocking:
        return True
    for value in op.attrs.values():
        for fn in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(fn, FuncGraph):
                hit = memo.get(fn)
                if hit is None:
                    memo[fn] = False  # a function that (somehow) calls itself
                    hit = memo[fn] = any(_may_block(o, memo) for o in fn.get_operations())
                if hit:
                    return True
    return False


def _find_cycle(ops: set[Operation], feeds: set[Output]) -> list[Operation]:
    """One cycle among ``ops`` (for the error message)."""
    color: dict[Operation, int] = {}
    stack_path: list[Operation] = []

    def preds(op):
        for inp in op.inputs:
            if inp not in feeds and inp.op in ops:
                yield inp.op
        for c in op._control_inputs:
            if c in ops:
                yield c

    # Creation order makes the reported cycle the same on every run.
    for start in sorted(ops, key=lambda op: op._id):
        if start in color:
            continue
        work = [(start, iter(preds(start)))]
        color[start] = 1
        stack_path.append(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                stack_path.pop()
                color[node] = 2
            elif color.get(nxt) == 1:
                i = stack_path.index(nxt)
                return stack_path[i:]
            elif nxt not in color:
                color[nxt] = 1
                stack_path.append(nxt)
                work.append((nxt, iter(preds(nxt))))
    return []


class Plan:
    """The compiled form of one (fetches, feeds, targets) signature."""

    def __init__(
        self,
        fetches: Sequence[Output],
        feeds: Sequence[Output],
        targets: Sequence[Operation],
        device_types: Sequence[str] | None = None,
    ):
        self.fetches = list(fetches)
        self.feeds = list(feeds)
        self.targets = list(targets)
        feed_set = set(self.feeds)
        ops = self._needed_ops(feed_set)
        order = self._toposort(ops, feed_set)
        self.devices: list[tuple[str, str]] = []  # (device string, device type)
        self.steps: list[Step] = []
        self.has_blocking = False
        self._build_steps(order, feed_set)
        self._compile()

    # -- analysis -------------------------------------------------------------------
    def _needed_ops(self, feed_set: set[Output]) -> set[Operation]:
        needed: set[Operation] = set()
        work: list[Operation] = [o.op for o in self.fetches if o not in feed_set]
        work += self.targets
        while work:
            op = work.pop()
            if op in needed:
                continue
            needed.add(op)
            for inp in op.inputs:
                if inp not in feed_set and inp.op not in needed:
                    work.append(inp.op)
            for c in op._control_inputs:
                # An op whose every output is fed is replaced by its feeds, as in TensorFlow:
                # a control dependency on it is met without running it.
                if c not in needed and not (c.outputs and all(o in feed_set for o in c.outputs)):
                    work.append(c)
        return needed

    def _toposort(self, ops: set[Operation], feed_set: set[Output]) -> list[Operation]:
        indegree: dict[Operation, int] = {}
        succ: dict[Operation, list[Operation]] = {op: [] for op in ops}
        for op in ops:
            preds = set()
            for inp in op.inputs:
                if inp not in feed_set and inp.op in ops:
                    preds.add(inp.op)
            for c in op._control_inputs:
                if c in ops:
                    preds.add(c)
            indegree[op] = len(preds)
            for p in preds:
                succ[p].append(op)
        heap = [(op._id, op) for op, d in indegree.items() if d == 0]
        heapq.heapify(heap)
        order: list[Operation] = []
        while heap:
            _, op = heapq.heappop(heap)
            order.append(op)
            for s in succ[op]:
                indegree[s] -= 1
                if indegree[s] == 0:
                    heapq.heappush(heap, (s._id, s))
        if len(order) != len(ops):
            # _find_cycle walks against the edges; reversed, the arrows follow the data.
            cycle = _find_cycle(ops - set(order), feed_set)[::-1]
            names = " -> ".join(op.name for op in cycle + cycle[:1])
            first = cycle[0] if cycle else None
            where = f" (defined at {first.defined_at})" if first is not None else ""
            raise errors.InvalidArgumentError(
                None,
                first,
                f"Graph contains a cycle and cannot be executed ({len(cycle)} nodes): "
                f"{names}{where}",
            )
        return order

    def _device_index(self, device: str) -> int:
        dtype = device_type_of(device)
        name = device or "/device:CPU:0"
        key = (name, dtype)
        if key not in self.devices:
            self.devices.append(key)
        return self.devices.index(key)

    def _build_steps(self, order: list[Operation], feed_set: set[Output]) -> None:
        slot_of: dict[Output, int] = {}
        for i, f in enumerate(self.feeds):
            slot_of[f] = i
        nslots = len(self.feeds)
        needed_outputs: set[Output] = set(self.fetches)
        for op in order:
            needed_outputs.update(op.inputs)
        blocking_memo: dict[FuncGraph, bool] = {}
        for op in order:
            op_def = registry.lookup(op.type) or op.op_def
            dtype = device_type_of(op.device)
            kernel = op_def.kernel_for(dtype)
            if kernel is None:
                have = ", ".join(sorted(op_def.kernels)) or "none"
                hint = ""
                if op_def.only_devices:
                    places = " or ".join(f"/device:{d}:0" for d in op_def.only_devices)
                    hint = f"; it runs only on {places}: place it there or leave its device unset"
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    f"No OpKernel was registered to support Op '{op.type}' used by node "
                    f"{op.name} on device {dtype} (registered devices: {have}){hint} "
                    f"(defined at {op.defined_at})",
                )
            blocking = _may_block(op, blocking_memo)
            if blocking:
                self.has_blocking = True
            inputs: list = []
            for g in _input_groups(op):
                if isinstance(g, slice):
                    inputs.append([slot_of[o] for o in op.inputs[g]])
                else:
                    inputs.append(slot_of[op.inputs[g]])
            outputs = []
            for o in op.outputs:
                if o in feed_set:
                    outputs.append(-1)  # the fed value wins; the computed one is dropped
                elif o in needed_outputs:
                    slot_of[o] = nslots
                    outputs.append(nslots)
                    nslots += 1
                else:
                    outputs.append(-1)
            fn = _bind_kernel(op, kernel)
            deref = _deref_positions(op)
            if deref:
                fn = _with_deref(fn, kernel.takes_ctx, deref)
            step = Step(op, fn, kernel.takes_ctx, inputs, outputs, self._device_index(op.device))
            step.blocking = blocking
            self.steps.append(step)
        self.num_slots = nslots
        self.fetch_slots = [slot_of[o] for o in self.fetches]
        if self.has_blocking:
            self._build_dependencies()

    def _build_dependencies(self) -> None:
        """Each step's predecessors (data and control), for the dataflow scheduler."""
        producer: dict[int, int] = {}
        for si, step in enumerate(self.steps):
            for slot in step.outputs:
                if slot >= 0:
                    producer[slot] = si
        index_of = {step.op: si for si, step in enumerate(self.steps)}
        self._num_preds: list[int] = []
        self._successors: list[list[int]] = [[] for _ in self.steps]
        # How many step inputs read each slot: a value is dropped once all of them have read
        # it (fetched values excepted), so memory is freed early as in the compiled form.
        self._num_uses: list[int] = [0] * self.num_slots
        for si, step in enumerate(self.steps):
            preds = set()
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    self._num_uses[slot] += 1
                    if slot in producer:
                        preds.add(producer[slot])
            for c in step.op._control_inputs:
                if c in index_of:
                    preds.add(index_of[c])
            self._num_preds.append(len(preds))
            for q in preds:
                self._successors[q].append(si)

    # -- code generation ------------------------------------------------------------
    def _compile(self) -> None:
        fetch_set = set(self.fetch_slots)
        last_use: dict[int, int] = {}
        for si, step in enumerate(self.steps):
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    last_use[slot] = si
        ctx_args = [f"c{i}" for i in range(len(self.devices))]
        feed_args = [f"f{i}" for i in range(len(self.feeds))]
        name: dict[int, str] = {i: feed_args[i] for i in range(len(self.feeds))}
        free: list[str] = []
        nfeeds = len(self.feeds)
        counter = 0
        lines = [f"def _plan({', '.join(ctx_args + feed_args + ['_K'])}):"]
        if self.steps:
            lines.append("    " + ", ".join(f"k{i}" for i in range(len(self.steps))) + ", = _K")
        line_to_step: dict[int, int] = {}
        for si, step in enumerate(self.steps):
            args = []
            if step.takes_ctx:
                args.append(ctx_args[step.device_index])
            for s in step.inputs:
                if isinstance(s, list):
                    args.append("[" + ", ".join(name[x] for x in s) + "]")
                else:
                    args.append(name[s])
            call = f"k{si}({', '.join(args)})"
            # Inputs whose last consumer is this step free their names for the outputs.
            died: list[str] = []
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    if last_use.get(slot) == si and slot not in fetch_set and slot >= nfeeds:
                        n = name[slot]
                        if n not in free:
                            free.append(n)
                            died.append(n)
            targets = []
            for slot in step.outputs:
                if slot < 0 or (slot not in last_use and slot not in fetch_set):
                    targets.append("_")
                    continue
                if free:
                    n = free.pop()
                else:
                    n = f"r{counter}"
                    counter += 1
                name[slot] = n
                targets.append(n)
            nout = len(step.op.outputs)
            if nout == 0 or all(t == "_" for t in targets):
                line = call
            elif nout == 1 and not step.sequence:
                line = f"{targets[0]} = {call}"
            else:
                line = f"{', '.join(targets)}, = {call}"
            # A dead value whose name no output took would live until the plan returns: drop
            # it now (on the same line, so a failing kernel still maps to this step and still
            # finds its inputs in the frame). "_" may hold an unused output of a multi-output op
            # (only when the line assigns: a multi-output op run for its effects assigns none).
            dead = [n for n in died if n not in targets]
            if "_" in targets and nout > 1 and line != call:
                dead.append("_")
            if dead:
                line += f"; del {', '.join(dead)}"
            lines.append("    " + line)
            step.lineno = len(lines)
            line_to_step[step.lineno] = si
        ret = ", ".join(name[s] for s in self.fetch_slots)
        lines.append(f"    return ({ret}{',' if self.fetch_slots else ''})")
        source = "\n".join(lines)
        namespace: dict[str, Any] = {}
        code = compile(source, f"<tfmini plan {id(self):#x}>", "exec")
        exec(code, namespace)
        fn = namespace["_plan"]
        kernels = tuple(step.fn for step in self.steps)
        self.source = source
        self._code = fn.__code__
        self._line_to_step = line_to_step
        self._local_name = name
        self.compiled = functools.partial(fn, _K=kernels)

    # -- execution ------------------------------------------------------------------
    def run(self, ctxs: Sequence[Any], feed_values: Sequence[Any]) -> tuple:
        """Runs the plan; kernel failures become ``tm.errors`` naming the op."""
        if self.has_blocking:
            return self.run_dataflow(ctxs, feed_values)
        try:
            return self.compiled(*ctxs, *feed_values)
        except BaseException as e:
            if not isinstance(e, Exception):
                raise
            step, frame_locals = self._failed_step(e)
            if step is None:
                raise
            inputs = self._input_values(step, frame_locals, feed_values)
            wrapped = wrap_kernel_error(e, step, self.devices[step.device_index][0], inputs)
            if wrapped is e:
                raise  # already names its op (a failure inside a function call)
            raise wrapped from e

    def _failed_step(self, e: BaseException):
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is self._code:
                si = self._line_to_step.get(tb.tb_lineno)
                if si is not None:
                    return self.steps[si], tb.tb_frame.f_locals
            tb = tb.tb_next
        return None, None

    def _input_values(self, step: Step, frame_locals: dict, feed_values: Sequence[Any]) -> list:
        # Register names are reused, but at the failing line every input still holds its value.
        del feed_values
        values = []
        for s in step.inputs:
            for slot in s if isinstance(s, list) else (s,):
                values.append(frame_locals.get(self._local_name.get(slot, ""), None))
        return values

    def run_stepwise(self, ctxs: Sequence[Any], feed_values: Sequence[Any], stats=None) -> tuple:
        """Runs step by step (used when tracing); same results as ``run``."""
        if self.has_blocking:
            return self.run_dataflow(ctxs, feed_values, stats)
        values: list[Any] = [None] * self.num_slots
        values[: len(feed_values)] = feed_values
        for step in self.steps:
            args = []
            for s in step.inputs:
                args.append([values[x] for x in s] if isinstance(s, list) else values[s])
            if step.takes_ctx:
                args.insert(0, ctxs[step.device_index])
            start = time.perf_counter()
            try:
                result = step.fn(*args)
                if step.sequence:
                    result = _unpack(result, len(step.outputs))
            except Exception as e:
                flat = [v for a in args[1 if step.takes_ctx else 0 :] for v in
                        (a if isinstance(a, list) else [a])]
                wrapped = wrap_kernel_error(e, step, self.devices[step.device_index][0], flat)
                if wrapped is e:
                    raise
                raise wrapped from e
            end = time.perf_counter()
            outs = step.outputs
            results = result if step.sequence else ((result,) if outs else ())
            for slot, v in zip(outs, results):
                if slot >= 0:
                    values[slot] = v
            if stats is not None:
                shapes = [np.shape(v) for v in results]
                stats.append((step, self.devices[step.device_index][0], start, end, shapes))
        return tuple(values[s] for s in self.fetch_slots)


    def run_dataflow(self, ctxs: Sequence[Any], feed_values: Sequence[Any],
                     stats: list | None = None) -> tuple:
        """Runs a plan holding blocking steps without letting them stall the run.

        Steps run in the calling thread as soon as their inputs are ready (lowest step first);
        each blocking step runs on a thread of its own, so the steps that will satisfy it (the
        applies a take waits for) keep running. Blocking kernels wait with
        ``KernelContext.wait``, which ends at the run's deadline or when the session closes.
        When any step fails, the run is cancelled, the waiting steps end, and the first
        failure is raised.
        """
        steps = self.steps
        values: list[Any] = [None] * self.num_slots
        values[: len(feed_values)] = feed_values
        remaining = list(self._num_preds)
        ready = [si for si, n in enumerate(remaining) if n == 0]
        heapq.heapify(ready)
        done: queue.SimpleQueue = queue.SimpleQueue()
        run_state = ctxs[0].run if ctxs else None
        in_flight = 0
        finished = 0
        failure: tuple | None = None
        uses = list(self._num_uses)
        for slot in self.fetch_slots:
            uses[slot] = -1  # never dropped

        def args_of(step: Step) -> list:
            args = [[values[x] for x in s] if isinstance(s, list) else values[s]
                    for s in step.inputs]
            for s in step.inputs:
                for slot in s if isinstance(s, list) else (s,):
                    uses[slot] -= 1
                    if uses[slot] == 0:
                        values[slot] = None  # its last reader has it
            if step.takes_ctx:
                args.insert(0, ctxs[step.device_index])
            return args

        def call(step: Step, args: list):
            start = time.perf_counter()
            result = step.fn(*args)
            if step.sequence:
                result = _unpack(result, len(step.outputs))
            return result, start, time.perf_counter()

        def worker(si: int, args: list) -> None:
            try:
                done.put((si, args, call(steps[si], args), None))
            except BaseException as e:  # reported to the scheduling thread, raised there
                done.put((si, args, None, e))

        def complete(si: int, timed) -> None:
            nonlocal finished
            result, start, end = timed
            step = steps[si]
            outs = step.outputs
            results = result if step.sequence else ((result,) if outs else ())
            for slot, v in zip(outs, results):
                if slot >= 0:
                    values[slot] = v
            if stats is not None:
                stats.append((step, self.devices[step.device_index][0], start, end,
                              [np.shape(v) for v in results]))
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
                    if step.blocking:
                        in_flight += 1
                        threading.Thread(target=worker, args=(si, args), daemon=True,
                                         name=f"tfmini {step.op.name}").start()
                        continue
                    try:
                        timed = call(step, args)
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
            flat = [v for a in args[1 if step.takes_ctx else 0 :]
                    for v in (a if isinstance(a, list) else [a])]
            wrapped = wrap_kernel_error(exc, step, self.devices[step.device_index][0], flat)
            if wrapped is exc:
                raise exc
            raise wrapped from exc
        return tuple(values[s] for s in self.fetch_slots)


def _unpack(result: Any, n: int) -> tuple:
    """``a, b, = result`` as a function, with Python's messages: the compiled plan unpacks a
    kernel's results that way, and a traced run must fail (or not) exactly as it does."""
    try:
        items = tuple(result)
    except TypeError:
        raise TypeError(f"cannot unpack non-iterable {type(result).__name__} object") from None
    if len(items) > n:
        raise ValueError(f"too many values to unpack (expected {n})")
    if len(items) < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
    return items


def _describe_value(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype.name}{dims_str(v.shape)}"
    if isinstance(v, np.generic):
        return f"{np.asarray(v).dtype.name}[]"
    if v is None:
        return "?"
    return type(v).__name__


def wrap_kernel_error(e: Exception, step: Step, device: str, inputs: list) -> errors.OpError:
    """The ``tm.errors`` exception for a kernel failure: class by cause, message naming the op."""
    op = step.op
    if isinstance(e, errors.OpError) and e.op is not None:
        return e  # already names the innermost failing op (e.g. inside a cond branch)
    cls = errors.UnknownError
    for py_types, tf_cls in _PY_TO_TF:
        if isinstance(e, py_types):
            cls = type(e) if tf_cls is None else tf_cls
            break
    message = e.message if isinstance(e, errors.OpError) else f"{type(e).__name__}: {e}"
    names = []
    i = 0
    for arg, g in zip(op.op_def.inputs, _input_groups(op)):
        n = g.stop - g.start if isinstance(g, slice) else 1
        for j in range(n):
            label = arg.name if not isinstance(g, slice) else f"{arg.name}[{j}]"
            names.append(f"{label}: {_describe_value(inputs[i] if i < len(inputs) else None)}")
            i += 1
    described = f" [inputs: {', '.join(names)}]" if names else ""
    text = (
        f"{op.type} '{op.name}' on {device}: {message}{described} (defined at {op.defined_at})"
    )
    return cls(None, op, text)
