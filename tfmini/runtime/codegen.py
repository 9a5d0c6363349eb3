"""Code generation: a plan's steps as straight-line Python, one line per step.

For ``y = (x + x) * x`` fed ``x`` the generated function reads::

    def _plan(c0, f0, *, _K):  # c0: /device:CPU:0; f0: feed 'x:0'
        k0, k1, = _K
        r0 = k0(f0, f0)  # AddV2 'add'
        r0 = k1(r0, f0)  # Mul 'mul'
        return (r0,)  # fetch 'mul:0'

Values live in local variables ("registers") that are reused once their value is dead, so
memory is freed as early as in a hand-written NumPy program, and the per-op cost is one
local-variable call. A kernel is called exactly as ``steps.Step.call`` calls it.

Two texts with the same lines are made:

* ``source`` is what ``compile()`` sees. It holds only names the generator makes up
  (``c<i>`` contexts, ``f<i>`` feeds, ``r<i>`` registers, ``k<i>`` kernels, ``_K``, ``_``)
  and is compiled under the file name ``<tfmini plan N>`` (a counter): no user string (an op
  name, a device) ever reaches ``compile()``, so none can change what runs.
* ``annotated`` is ``source`` with a comment ending each line that names the step's op type
  and name (the feeds and devices on the ``def`` line, the fetches on the ``return`` line).
  It is registered in ``linecache`` under the code's file name, so a traceback through the
  plan shows the failing line and its op; ``Session.plan_source`` returns it.

The ``linecache`` entry is in the ``(size, None, lines, name)`` form, which
``linecache.checkcache()`` keeps (it skips entries without an mtime instead of looking for a
file of that name). It lives as long as the compiled code object: a ``weakref.finalize`` on
the code removes it, so it goes when the plan is dropped (``Session.close()`` clears the plan
caches) and no traceback still holds a frame of the plan. ``linecache.clearcache()`` removes
it too; the compiled executor registers it again before it raises a kernel failure.
"""

from __future__ import annotations

import itertools
import linecache
import weakref
from typing import Any

from tfmini.runtime.analysis import Schedule

_plan_numbers = itertools.count(1)


class GeneratedSource:
    """The generated function's text and what each line means.

    Attributes:
        source: The text compiled (generated names only).
        annotated: The same lines, each ending with a comment naming its op.
        line_to_step: Step index per line number (1-based) of a step's line.
        local_name: The local variable holding each slot's value where it is read (feeds and
            registers; a register is reused, but at a reading line it holds that slot).
    """

    __slots__ = ("source", "annotated", "line_to_step", "local_name")

    def __init__(self, source: str, annotated: str, line_to_step: dict[int, int],
                 local_name: dict[int, str]):
        self.source = source
        self.annotated = annotated
        self.line_to_step = line_to_step
        self.local_name = local_name


def _comment(text: str) -> str:
    """``text`` safe for a one-line comment: non-printable characters escaped."""
    if text.isprintable():  # always, for names the graph validated: the quick way
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def generate(schedule: Schedule) -> GeneratedSource:
    """Writes ``schedule`` as the function ``_plan(c0.., f0.., *, _K)``; sets ``Step.lineno``.

    The function takes one kernel context per device and one value per feed, positionally,
    and the tuple of kernels as ``_K``; it returns a tuple of the fetched values.
    """
    steps = schedule.steps
    nfeeds = len(schedule.feeds)
    fetch_set = set(schedule.fetch_slots)
    last_use = schedule.last_use
    ctx_args = [f"c{i}" for i in range(len(schedule.devices))]
    feed_args = [f"f{i}" for i in range(nfeeds)]
    name: dict[int, str] = dict(enumerate(feed_args))
    free: list[str] = []
    counter = 0
    # (code, comment) per line; the comment goes to the annotated text only.
    heading = [f"{c}: {dev}" for c, (dev, _) in zip(ctx_args, schedule.devices)]
    heading += [f"{f}: feed {out.name!r}" for f, out in zip(feed_args, schedule.feeds)]
    lines: list[tuple[str, str]] = [
        (f"def _plan({', '.join(ctx_args + feed_args + ['*', '_K'])}):", "; ".join(heading))
    ]
    if steps:
        lines.append(("    " + ", ".join(f"k{i}" for i in range(len(steps))) + ", = _K", ""))
    line_to_step: dict[int, int] = {}
    for si, step in enumerate(steps):
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
        nout = len(step.outputs)  # one per op output, or per value of a memo step
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
        comment = f"{step.op.type} {step.op.name!r}"
        if step.fused is not None:
            comment += f" (fused with {step.fused.type} {step.fused.name!r})"
        if step.note:
            comment += f" ({step.note})"
        lines.append(("    " + line, comment))
        step.lineno = len(lines)
        line_to_step[step.lineno] = si
    ret = ", ".join(name[s] for s in schedule.fetch_slots)
    fetched = ", ".join(repr(o.name) for o in schedule.fetches)
    lines.append((f"    return ({ret}{',' if schedule.fetch_slots else ''})",
                  f"fetch {fetched}" if fetched else ""))
    source = "\n".join(code for code, _ in lines) + "\n"
    annotated = "\n".join(
        f"{code}  # {_comment(comment)}" if comment else code for code, comment in lines
    ) + "\n"
    return GeneratedSource(source, annotated, line_to_step, name)


class CompiledPlan:
    """The generated function, compiled, with its source registered in ``linecache``.

    Attributes:
        function: ``_plan(*contexts, *feed_values)`` with the kernels bound as ``_K``.
        code: Its code object (what a traceback frame of the plan runs).
        filename: ``<tfmini plan N>``, the code's file name and the ``linecache`` key.
        generated: The GeneratedSource it was compiled from.
    """

    __slots__ = ("function", "code", "filename", "generated", "_entry")

    def __init__(self, generated: GeneratedSource, kernels: tuple):
        self.generated = generated
        # A counter, not id(): ids are reused, and the name must not collide with the entry
        # of an older plan whose traceback is still around. No user string goes in.
        self.filename = f"<tfmini plan {next(_plan_numbers)}>"
        namespace: dict[str, Any] = {}
        exec(compile(generated.source, self.filename, "exec"), namespace)
        # Taken out of its globals, the function is in no reference cycle: dropping the plan
        # frees it (and its code, and the linecache entry) at once, without waiting for gc.
        fn = namespace.pop("_plan")
        # Kernels as a keyword default rather than a functools.partial: one call layer less.
        fn.__kwdefaults__ = {"_K": kernels}
        self.function = fn
        self.code = fn.__code__
        lines = generated.annotated.splitlines(keepends=True)
        self._entry = (len(generated.annotated), None, lines, self.filename)
        self.register_source()
        weakref.finalize(self.code, _release, self.filename, self._entry).atexit = False

    def register_source(self) -> None:
        """(Re-)registers the annotated source in ``linecache`` (after a ``clearcache()``)."""
        if linecache.cache.get(self.filename) is not self._entry:
            linecache.cache[self.filename] = self._entry


def _release(filename: str, entry: tuple) -> None:
    # Only our own entry: never one someone else put there meanwhile.
    if linecache.cache.get(filename) is entry:
        linecache.cache.pop(filename, None)
