"""Plans whose waits run inline (``Plan(inline_waits=...)``, a Session's ``_inline_waits``),
and the reuse of the dataflow executor's wait threads.

A part of a distributed step whose ``_Recv`` ops its partitioner ordered (see
tfmini/distribute/sequencing.py) runs compiled, each ``_Recv`` waiting in turn; here the
local rendezvous stands in for another task: a ``_Send`` earlier in the plan's order
satisfies the ``_Recv``.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm
from tests.runtime import counter_ops
from tfmini.runtime import executors

_KEY = dict(send_device="/job:localhost/replica:0/task:0/device:CPU:0",
            recv_device="/job:localhost/replica:0/task:0/device:CPU:0",
            send_device_incarnation=1)


class _InlineSession(tm.Session):
    _inline_waits = frozenset({"_Recv"})


def _send_then_recv(name: str):
    x = tm.placeholder(tm.float32, [2], name="x")
    send = tm.raw_ops._Send(tensor=x * 2.0, tensor_name=name, **_KEY)
    with tm.control_dependencies([send]):  # the order the partitioner would give
        got = tm.raw_ops._Recv(tensor_type=tm.float32, tensor_name=name, **_KEY)
    return x, got


def test_a_plan_whose_only_waits_are_inline_runs_compiled():
    g = tm.Graph()
    with g.as_default():
        x, got = _send_then_recv("inline_a")
    with _InlineSession(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(got, {x: [1.0, 2.0]}), [2.0, 4.0])
        (plan,) = sess._plans.values()
        assert not plan.has_blocking and plan.program is not None
    with tm.Session(graph=g) as sess:  # a plain session: the dataflow executor, same value
        np.testing.assert_array_equal(sess.run(got, {x: [3.0, 4.0]}), [6.0, 8.0])
        (plan,) = sess._plans.values()
        assert plan.has_blocking and plan.program is None


def test_an_inline_wait_keeps_the_run_deadline():
    g = tm.Graph()
    with g.as_default():
        lonely = tm.raw_ops._Recv(tensor_type=tm.float32, tensor_name="never_sent", **_KEY)
    with _InlineSession(graph=g) as sess:
        try:
            sess.run(lonely, options=tm.RunOptions(timeout_in_ms=50))
        except tm.errors.DeadlineExceededError as e:
            assert "_Recv" in str(e) and "never_sent" in str(e)
        else:  # pragma: no cover
            raise AssertionError("the wait did not end at the deadline")


def test_another_blocking_op_keeps_the_dataflow_executor():
    g = tm.Graph()
    with g.as_default():
        x, got = _send_then_recv("inline_b")
        waited = counter_ops.wait_op(1)
        sig = counter_ops.signal(tm.constant(0.0))
    with _InlineSession(graph=g) as sess:
        out = sess.run([got, waited, sig], {x: [1.0, 1.0]})
        assert out[1] == 1
        (plan,) = sess._plans.values()
        assert plan.has_blocking  # an inline BlkWaitFor could wait for ever


def test_wait_threads_are_reused_across_runs():
    g = tm.Graph()
    with g.as_default():
        waited = counter_ops.wait_op(1)
        sig = counter_ops.signal(tm.constant(0.0))

    def idle():
        return [t for t in threading.enumerate() if t.name == executors.IDLE_THREAD_NAME]

    with tm.Session(graph=g) as sess:
        sess.run([waited, sig])
        assert idle(), "the wait thread stays for the next blocking step"
        threads = {t.ident for t in threading.enumerate()}
        for _ in range(5):
            sess.run([waited, sig])
        assert {t.ident for t in threading.enumerate()} <= threads  # no new thread


def _sync_round_graph():
    """Two variables, one accumulator each; ``apply`` adds a gradient to both, ``chief``
    takes 2-way means from both and applies them (a synchronous round's two runs)."""
    x = tm.placeholder(tm.float32, [2], name="x")
    step = tm.placeholder(tm.int64, [], name="local_step")
    vs = [tm.Variable(np.zeros(2, np.float32), name=f"v{i}") for i in range(2)]
    accs = [tm.ConditionalAccumulator(tm.float32, shape=[2], name=f"acc{i}") for i in range(2)]
    apply = tm.group(*[a.apply_grad(x * float(i + 1), local_step=step)
                       for i, a in enumerate(accs)])
    chief = tm.group(*[v.assign_sub(a.take_grad(2)) for v, a in zip(vs, accs)])
    return x, step, vs, accs, apply, chief


def test_takes_that_only_other_runs_can_serve_run_inline_in_plan_order():
    g = tm.Graph()
    with g.as_default():
        x, step, vs, accs, apply, chief = _sync_round_graph()
        both = tm.group(apply, chief)  # one run holding the applies its takes wait for
        init = tm.global_variables_initializer()
    with tm.Session(graph=g) as sess:
        sess.run(init)
        for v in ([1.0, 2.0], [3.0, 4.0]):
            sess.run(apply, {x: v, step: 0})
        sess.run(chief)  # served at once: 2 gradients in each accumulator
        plan = next(p for p in sess._plans.values() if p.program is not None and any(
            s.op.type == "ResourceAccumulatorTakeGradient" for s in p.schedule.steps))
        assert not plan.has_blocking  # the compiled executor: no wait thread, no hand-off
        np.testing.assert_allclose(sess.run(vs[0]), [-2.0, -3.0])
        np.testing.assert_allclose(sess.run(vs[1]), [-4.0, -6.0])

        # Waiting inline: the takes end when another thread's runs apply the gradients.
        result = []
        t = threading.Thread(target=lambda: result.append(sess.run(chief)))
        t.start()
        for v in ([1.0, 1.0], [1.0, 1.0]):
            sess.run(apply, {x: v, step: 1})
        t.join(10)
        assert not t.is_alive() and result == [None]
        np.testing.assert_allclose(sess.run(vs[1]), [-6.0, -8.0])

        # A run whose own steps could serve its takes keeps the dataflow executor.
        sess.run(apply, {x: [0.0, 0.0], step: 2})
        t = threading.Thread(target=lambda: sess.run(both, {x: [2.0, 2.0], step: 2}))
        t.start()
        t.join(10)
        assert not t.is_alive()
        plan = next(p for p in sess._plans.values() if p.schedule.targets == [both])
        assert plan.has_blocking
        # A take stops waiting at the run's deadline, inline as on a thread.
        with pytest.raises(tm.errors.DeadlineExceededError):
            sess.run(chief, options=tm.RunOptions(timeout_in_ms=50))
        assert [a.num_accumulated().eval(session=sess) for a in accs] == [0, 0]
