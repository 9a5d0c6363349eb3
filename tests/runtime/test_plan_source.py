"""Plans you can debug: the generated source in tracebacks and in Session.plan_source,
user strings kept out of compile(), the linecache entry's lifetime, one step-call protocol."""

from __future__ import annotations

import builtins
import gc
import inspect
import linecache
import re
import traceback
import types

import numpy as np
import pytest

import tfmini as tm
from tests.runtime.counter_ops import wait_op
from tfmini.runtime import codegen, executors
from tfmini.runtime.executors import DataflowExecutor, StepwiseExecutor
from tfmini.runtime.plan import Plan


def _failing_matmul():
    """A graph whose MatMul 'dense/MatMul' fails at run time (shapes known only then)."""
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, name="x")
        with tm.name_scope("dense"):
            w = tm.constant(np.ones((4, 2), np.float32), name="w")
            y = tm.raw_ops.MatMul(a=x, b=w, name="MatMul")
    return g, x, y


def _plan_line_pattern(op_type: str, op_name: str) -> str:
    # How Python prints a frame of the plan: the file, then the line's (annotated) text.
    return (r'File "<tfmini plan \d+>", line \d+, in _plan\n'
            rf"\s+r\d+ = k\d+\([^)]*\)  # {op_type} '{re.escape(op_name)}'\n")


def test_kernel_failure_traceback_shows_the_plan_line_and_the_op():
    g, x, y = _failing_matmul()
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(y, {x: np.ones((2, 3), np.float32)})
    err = info.value
    # Formatted after the session closed (its plans dropped) and after checkcache(): the
    # traceback holds the plan's code, which keeps its source registered.
    gc.collect()
    linecache.checkcache()
    text = "".join(traceback.format_exception(err))
    print(text)
    assert isinstance(err.__cause__, Exception)  # the kernel's own exception, chained
    assert re.search(_plan_line_pattern("MatMul", "dense/MatMul"), text), text
    assert "MatMul 'dense/MatMul' on /device:CPU:0" in str(err)


def test_traceback_shows_the_line_after_linecache_was_cleared():
    g, x, y = _failing_matmul()
    with tm.Session(graph=g) as sess:
        sess.run(y, {x: np.ones((2, 4), np.float32)})  # builds the plan, which works here
        linecache.clearcache()
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(y, {x: np.ones((2, 3), np.float32)})
    text = "".join(traceback.format_exception(info.value))
    assert re.search(_plan_line_pattern("MatMul", "dense/MatMul"), text), text


def test_failure_inside_a_cond_branch_shows_both_plans_lines():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, name="x")
        p = tm.placeholder(tm.bool, shape=(), name="p")
        w = tm.constant(np.ones((4, 2), np.float32))
        y = tm.cond(p, lambda: tm.raw_ops.MatMul(a=x, b=w, name="inner"), lambda: x,
                    name="branchy")
    with tm.Session(graph=g) as sess:
        with pytest.raises(tm.errors.InvalidArgumentError) as info:
            sess.run(y, {x: np.ones((2, 3), np.float32), p: True})
    text = "".join(traceback.format_exception(info.value))
    assert re.search(r"# MatMul '[^']*inner'", text), text  # the branch's plan line
    assert re.search(r"# (If|StatelessIf) 'branchy[^']*'", text), text  # the outer plan's


def test_no_user_string_reaches_compile(monkeypatch):
    compiled: list[tuple[str, str]] = []
    real_compile = builtins.compile

    def spy(source, filename, *args, **kwargs):
        compiled.append((source, filename))
        return real_compile(source, filename, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", spy)
    g = tm.Graph()
    with g.as_default():
        # Every odd character a name may hold, and words that would be code if they got in.
        x = tm.placeholder(tm.float32, name="import_os.system-x")
        with tm.name_scope("evil>scope-1.2/__import__"):
            with tm.device("/device:CPU:0"):
                y = tm.identity(tm.raw_ops.AddV2(x=x, y=x, name="exec-print.1"), name="eval>x")
    with tm.Session(graph=g) as sess:
        assert sess.run(y, {x: np.float32(1)}) == 2.0
        annotated = sess.plan_source(y, {x: 0})
        (plan,) = sess._plans.values()
    plans = [(s, f) for s, f in compiled if f.startswith("<tfmini plan")]
    assert len(plans) == 1
    source, filename = plans[0]
    assert source == plan.source
    assert re.fullmatch(r"<tfmini plan \d+>", filename)
    for word in ("evil", "exec", "eval", "import", "print", "scope", "system"):
        assert word not in source, word
        assert word in annotated, word  # the names do show where they are only read
    # The compiled text is made of generated names only: every line fits this grammar.
    name = r"(?:[cfrk]\d+|_)"
    arg = rf"(?:{name}|\[{name}(?:, {name})*\])"  # a value, or a list of them
    call = rf"k\d+\((?:{arg}(?:, {arg})*)?\)"
    grammar = re.compile(
        rf"def _plan\((?:[cf]\d+, )*\*, _K\):"
        rf"|    (?:k\d+, )+= _K"
        rf"|    (?:(?:{name}, )*{name},? = )?{call}(?:; del {name}(?:, {name})*)?"
        rf"|    return \((?:{name}, )*(?:{name},)?\)"
    )
    for line in source.splitlines():
        assert grammar.fullmatch(line), line

    def strings(code: types.CodeType):
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                yield from strings(c)
            elif isinstance(c, str):
                yield c
        yield from code.co_names
        yield from code.co_varnames

    assert all(re.fullmatch(r"_plan|_K|_|[cfrk]\d+", s) for s in strings(plan.program.code))


def test_comments_cannot_break_out_of_their_line():
    assert codegen._comment("a\nb\r\tc\x00") == "a\\nb\\r\\tc\\x00"


def test_linecache_entry_lives_with_the_plan():
    g, x, y = _failing_matmul()
    sess = tm.Session(graph=g)
    sess.run(y, {x: np.ones((1, 4), np.float32)})
    (plan,) = sess._plans.values()
    filename = plan.program.filename
    entry = linecache.cache[filename]
    assert entry[1] is None and entry[3] == filename  # the (size, None, lines, name) form
    assert "".join(entry[2]) == plan.annotated_source
    linecache.checkcache()
    assert linecache.getline(filename, plan.steps[-1].lineno).rstrip().endswith(
        "# MatMul 'dense/MatMul'"
    )
    del plan, entry
    sess.close()  # drops the plans: nothing holds the code any more
    gc.collect()
    assert filename not in linecache.cache


def test_plans_do_not_grow_linecache_without_bound():
    g, x, y = _failing_matmul()
    before = sum(1 for k in linecache.cache if k.startswith("<tfmini plan"))
    for _ in range(20):
        with tm.Session(graph=g) as sess:
            sess.run(y, {x: np.ones((1, 4), np.float32)})
    gc.collect()
    after = sum(1 for k in linecache.cache if k.startswith("<tfmini plan"))
    assert after <= before


def test_plan_source_is_the_text_tracebacks_show():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, shape=(4,), name="x")
        y = tm.raw_ops.Mul(x=tm.raw_ops.AddV2(x=x, y=x, name="twice"), y=x, name="times")
    with tm.Session(graph=g) as sess:
        text = sess.plan_source(y, {x: np.zeros(4, np.float32)})
        assert text == sess.plan_source(y, [x])  # feed keys alone will do
        sess.run(y, {x: np.zeros(4, np.float32)})
        (plan,) = sess._plans.values()  # the one plan run uses
        assert "".join(linecache.getlines(plan.program.filename)) == text
    assert text.splitlines() == [
        "def _plan(c0, f0, *, _K):  # c0: /device:CPU:0; f0: feed 'x:0'",
        "    k0, k1, = _K",
        "    r0 = k0(f0, f0)  # AddV2 'twice'",
        "    r0 = k1(r0, f0)  # Mul 'times'",
        "    return (r0,)  # fetch 'times:0'",
    ]
    # Comments only: the compiled text has the same lines without them.
    assert [line.split("  #")[0] for line in text.splitlines()] == plan.source.splitlines()


def test_plan_source_of_targets_and_of_a_closed_session():
    g = tm.Graph()
    with g.as_default():
        op = tm.no_op(name="nothing")
    sess = tm.Session(graph=g)
    assert "# NoOp 'nothing'" in sess.plan_source(op)
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.plan_source(op)


def test_plan_source_of_a_blocking_plan_says_it_runs_by_dataflow(graph):
    n = tm.constant(0, tm.int32)
    with tm.Session(graph=graph) as sess:
        text = sess.plan_source(wait_op(n))
    assert text.startswith("# This plan holds blocking steps")
    assert "# BlkWaitFor" in text


def _raises_value_error(x):
    raise ValueError("no good")


class _Ctx:
    run = None  # the dataflow executor cancels the run through ctx.run on failure


def test_all_executors_report_a_failure_alike(graph):
    tm.register_op("PlanSrcFail", inputs=["x: float"], outputs=["y: float"])(
        _raises_value_error
    )
    try:
        x = tm.placeholder(tm.float32, name="x")
        y = tm.raw_ops.PlanSrcFail(x=tm.identity(x), name="fails")
        plan = Plan([y], [x], [])
        runs = {
            "compiled": plan.run,
            "stepwise": StepwiseExecutor(plan.schedule).run,
            "dataflow": DataflowExecutor(plan.schedule).run,
        }
        messages = {}
        for kind, run in runs.items():
            with pytest.raises(tm.errors.InvalidArgumentError) as info:
                run([_Ctx()] * len(plan.devices), [np.float32([1, 2])])
            assert isinstance(info.value.__cause__, ValueError), kind
            messages[kind] = str(info.value)
        assert len(set(messages.values())) == 1, messages
        assert "PlanSrcFail 'fails'" in messages["compiled"]
        assert "[inputs: x: float32[2]]" in messages["compiled"]
    finally:
        tm.core.registry.unregister("PlanSrcFail")


def test_executors_call_kernels_only_through_the_step_protocol():
    # The protocol (arguments, call and unpack, failure) is written once, in steps.py; the
    # executors use it. Only the generated line calls a kernel directly (codegen's docstring).
    text = inspect.getsource(executors)
    assert ".fn(" not in text and "unpack(" not in text and "wrap_kernel_error" not in text
    for method in ("arguments(", "call(", "store(", "raise_kernel_error("):
        assert method in text
