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
