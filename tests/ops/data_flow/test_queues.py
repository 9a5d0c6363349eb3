"""Queues under threads: blocking, fairness, closing, cancellation, deadlines, contention.

The threaded cases of tools/record_goldens_queues.py (recorded from TensorFlow 2.21 with
sleeps) are rebuilt here with synchronisation on the queue's own state (a thread is known to
wait once its attempt is in the queue's line), and compared with TensorFlow's outcomes. The
rest pins down tfmini's rules where TensorFlow leaves a gap (a dequeue that ends without its
elements gives them back), the ref-handle ops, and contention.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import in_thread, wait_until
from tests.ops.data_flow.test_queues_golden import RECORDER, check_case, check_outcome

R = tm.raw_ops


def queue_of(sess, name, container=""):
    """The queue object a session holds under ``name`` (to watch its lines)."""
    return sess._device("CPU").resource_manager.lookup(container, name)


def outcome(tf, sess):
    """The recorder's runner: values, "ok", or "<ErrorClass>: <message>"."""
    return RECORDER._runner(tf, sess)


# ----------------------------------------------------------------------------------------
# TensorFlow's threaded cases, synchronised on the queue's lines


def test_session_close_cancels_waiting_enqueue_and_dequeue(golden):
    got = []
    with tm.Graph().as_default():
        q = tm.FIFOQueue(1, tm.int32, shapes=[[]])
        sess = tm.Session()
        sess.run(q.enqueue((1,)))
        run = outcome(tm, sess)
        enq = q.enqueue((2,))  # ops are built in the main thread (its default graph)
        t, box = in_thread(lambda: run(enq))
        wait_until(lambda: len(queue_of(sess, "fifo_queue").enqueuers) == 1)
        closed_at = time.monotonic()
        sess.close()
        t.join()
        got.append(box["value"])
        assert box["at"] - closed_at < 0.1  # within 100 ms of the close
    with tm.Graph().as_default():
        q = tm.FIFOQueue(1, tm.int32, shapes=[[]])
        sess = tm.Session()
        run = outcome(tm, sess)
        sess.run(q.size())  # creates the queue
        deq = q.dequeue()
        t, box = in_thread(lambda: run(deq))
        wait_until(lambda: len(queue_of(sess, "fifo_queue").dequeuers) == 1)
        closed_at = time.monotonic()
        sess.close()
        t.join()
        got.append(box["value"])
        assert box["at"] - closed_at < 0.1
    check_case(golden, "cancel_on_session_close", got)


def test_waiting_dequeues_are_served_in_order(golden):
    with tm.Graph().as_default():
        q = tm.FIFOQueue(10, tm.int32, shapes=[[]])
        x = tm.placeholder(tm.int32, [])
        enq = q.enqueue((x,))
        with tm.Session() as sess:
            run = outcome(tm, sess)
            sess.run(q.size())  # creates the queue
            state = queue_of(sess, "fifo_queue")
            waiting = []
            for fetch in (q.dequeue_many(2), q.dequeue(), q.dequeue()):
                waiting.append(in_thread(lambda f=fetch: run(f)))
                n = len(waiting)
                wait_until(lambda n=n: len(state.dequeuers) == n)
            run(enq, {x: 10})
            wait_until(lambda: len(state.dequeuers[0].taken) == 1)  # A holds 10
            released = [t.is_alive() for t, _ in waiting]
            for v in (11, 12, 13):
                run(enq, {x: v})
            for t, _ in waiting:
                t.join()
            got = [np.array(released), *(box["value"] for _, box in waiting)]
    check_case(golden, "fifo_fairness", got)


@pytest.mark.parametrize("cancel", [False, True])
def test_close_with_pending_enqueues(golden, cancel):
    with tm.Graph().as_default():
        q = tm.FIFOQueue(1, tm.int32, shapes=[[]])
        with tm.Session() as sess:
            run = outcome(tm, sess)
            run(q.enqueue((1,)))
            state = queue_of(sess, "fifo_queue")
            enq, close = q.enqueue((2,)), q.close(cancel_pending_enqueues=cancel)
            te, be = in_thread(lambda: run(enq))
            wait_until(lambda: len(state.enqueuers) == 1)
            tc, bc = in_thread(lambda: run(close))
            if cancel:
                tc.join()
                te.join()
            else:
                wait_until(lambda: len(state.enqueuers) == 2)  # the close waits behind it
            waiting = [te.is_alive(), tc.is_alive()]
            first = run(q.dequeue())
            te.join()
            tc.join()
            got = [np.array(waiting), first, be["value"], bc["value"], run(q.dequeue()),
                   run(q.dequeue()), run(q.size()), run(q.is_closed())]
    check_case(golden, f"close_pending_cancel_{cancel}", got)


def test_close_puts_back_what_a_waiting_dequeue_many_held(golden):
    with tm.Graph().as_default():
        q = tm.FIFOQueue(10, tm.int32, shapes=[[]])
        with tm.Session() as sess:
            run = outcome(tm, sess)
            sess.run(q.size())  # creates the queue
            state = queue_of(sess, "fifo_queue")
            many = q.dequeue_many(3)
            t, box = in_thread(lambda: run(many))
            wait_until(lambda: len(state.dequeuers) == 1)
            run(q.enqueue((7,)))
            held = run(q.size())
            run(q.close())
            t.join()
            got = [held, box["value"], run(q.size()), run(q.dequeue())]
    check_case(golden, "close_returns_partial", got)


def test_close_ends_a_waiting_dequeue_up_to_with_the_rest(golden):
    with tm.Graph().as_default():
        q = tm.FIFOQueue(10, tm.int32, shapes=[[]])
        with tm.Session() as sess:
            run = outcome(tm, sess)
            sess.run(q.size())  # creates the queue
            state = queue_of(sess, "fifo_queue")
            up_to = q.dequeue_up_to(3)
            t, box = in_thread(lambda: run(up_to))
            wait_until(lambda: len(state.dequeuers) == 1)
            run(q.enqueue_many(([7, 8],)))
            wait_until(lambda: len(state.dequeuers[0].taken) == 2 if state.dequeuers else True)
            run(q.close())
            t.join()
            got = [box["value"], run(q.size())]
    check_case(golden, "close_up_to_partial", got)


def test_runner_error_goes_to_the_coordinator(golden):
    with tm.Graph().as_default():
        q = tm.FIFOQueue(10, tm.float32, shapes=[[]])
        bad = q.enqueue((tm.gather(tm.constant([1.0, 2.0]), tm.constant(5)),))
        qr = tm.train.QueueRunner(q, [bad])
        with tm.Session() as sess:
            coord = tm.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            with pytest.raises(tm.errors.InvalidArgumentError) as info:
                coord.join(threads, stop_grace_period_secs=5)
            got = [type(info.value).__name__, threads[-1].name]
    check_case(golden, "runner_error_to_coordinator", got)


# ----------------------------------------------------------------------------------------
# Blocking inside one run, deadlines


def test_one_run_that_enqueues_and_dequeues_does_not_deadlock(graph):
    q = tm.FIFOQueue(2, tm.int32, shapes=[[]])
    enq = q.enqueue_many((np.arange(5, dtype=np.int32),))  # needs the dequeues to make room
    deq = q.dequeue_many(5)
    with tm.Session() as sess:
        _, got = sess.run([enq, deq], options=tm.RunOptions(timeout_in_ms=5000))
        np.testing.assert_array_equal(got, np.arange(5))
        assert sess.run(q.size()) == 0


def test_a_deadline_ends_a_wait_on_time(graph):
    q = tm.FIFOQueue(1, tm.int32, shapes=[[]])
    with tm.Session() as sess:
        for fetch in (q.dequeue(), q.dequeue_many(3)):
            start = time.monotonic()
            with pytest.raises(tm.errors.DeadlineExceededError,
                               match="Timed out waiting for notification"):
                sess.run(fetch, options=tm.RunOptions(timeout_in_ms=150))
            elapsed = time.monotonic() - start
            assert 0.15 <= elapsed < 0.25, elapsed  # within 100 ms of the deadline
        assert sess.run(q.size()) == 0  # the session stays usable


def test_a_dequeue_that_times_out_gives_back_what_it_held(graph):
    # TensorFlow drops the elements a timed-out dequeue_many held; tfmini loses nothing.
    q = tm.FIFOQueue(5, tm.int32, shapes=[[]])
    with tm.Session() as sess:
        sess.run(q.enqueue_many(([4, 5],)))
        with pytest.raises(tm.errors.DeadlineExceededError):
            sess.run(q.dequeue_many(3), options=tm.RunOptions(timeout_in_ms=30))
        assert sess.run(q.size()) == 2
        np.testing.assert_array_equal(sess.run(q.dequeue_many(2)), [4, 5])


def test_a_failed_run_gives_back_its_dequeued_elements(graph):
    q = tm.FIFOQueue(5, tm.float32, shapes=[[]])
    idx = tm.placeholder(tm.int32, [])
    deq = q.dequeue()
    bad = tm.gather(tm.constant([1.0, 2.0]), idx) + deq
    with tm.Session() as sess:
        sess.run(q.enqueue_many(([1.0, 2.0],)))
        with pytest.raises(tm.errors.InvalidArgumentError):
            sess.run(bad, {idx: 7})
        assert sess.run(q.size()) == 2
        assert sess.run(deq) == 1.0  # still first


def test_enqueue_many_that_times_out_keeps_the_rows_inserted(graph):
    q = tm.FIFOQueue(2, tm.int32, shapes=[[]])
    with tm.Session() as sess:
        with pytest.raises(tm.errors.DeadlineExceededError):
            sess.run(q.enqueue_many(([1, 2, 3],)), options=tm.RunOptions(timeout_in_ms=30))
        np.testing.assert_array_equal(sess.run(q.dequeue_many(2)), [1, 2])  # as TensorFlow


# ----------------------------------------------------------------------------------------
# tfmini's rules where TensorFlow's kernels misbehave


def test_priority_dequeue_up_to_after_close_returns_the_rest(graph):
    # TensorFlow's PriorityQueue fails here and drops what it took; tfmini returns the rest.
    q = tm.PriorityQueue(10, tm.int32, shapes=[[]])
    with tm.Session() as sess:
        sess.run(q.enqueue_many(([3, 1], [30, 10])))
        sess.run(q.close())
        prio, vals = sess.run(q.dequeue_up_to(5))
        np.testing.assert_array_equal(prio, [1, 3])
        np.testing.assert_array_equal(vals, [10, 30])
        with pytest.raises(tm.errors.OutOfRangeError):
            sess.run(q.dequeue_up_to(5))


def test_a_scalar_fed_to_enqueue_many_is_refused(graph):
    q = tm.FIFOQueue(10, tm.int32, shapes=[[]])
    x = tm.placeholder(tm.int32)
    with tm.Session() as sess:
        with pytest.raises(tm.errors.InvalidArgumentError, match="rank at least 1"):
            sess.run(q.enqueue_many((x,)), {x: 3})
        assert sess.run(q.size()) == 0


# ----------------------------------------------------------------------------------------
# Ref-handle ops and raw ops


def test_ref_handle_ops(graph):
    h = R.FIFOQueue(component_types=[tm.int32, tm.float32], shapes=[[], [2]], capacity=4)
    assert h.op.type == "FIFOQueue"
    enq = R.QueueEnqueueMany(handle=h, components=[np.array([1, 2], np.int32),
                                                   np.ones((2, 2), np.float32)])
    deq = R.QueueDequeue(handle=h, component_types=[tm.int32, tm.float32])
    up_to = R.QueueDequeueUpTo(handle=h, n=5, component_types=[tm.int32, tm.float32])
    with tm.Session() as sess:
        sess.run(enq)
        assert sess.run(R.QueueSize(handle=h)) == 2
        a, b = sess.run(deq)
        assert a == 1 and b.tolist() == [1.0, 1.0]
        sess.run(R.QueueClose(handle=h))
        assert sess.run(R.QueueIsClosed(handle=h))
        a, b = sess.run(up_to)
        assert a.tolist() == [2] and b.shape == (1, 2)


def test_a_queue_kind_cannot_be_shared_with_another(graph):
    a = tm.FIFOQueue(5, tm.int32, shared_name="q")
    b = tm.RandomShuffleQueue(5, 0, tm.int32, shared_name="q")
    with tm.Session() as sess:
        sess.run(a.size())
        with pytest.raises(tm.errors.InvalidArgumentError, match="does not match type"):
            sess.run(b.size())


def test_from_list_selects_a_queue_at_run_time(graph):
    qs = [tm.FIFOQueue(5, tm.int32, shapes=[[]], name=f"q{i}") for i in range(2)]
    i = tm.placeholder(tm.int32, [])
    chosen = tm.QueueBase.from_list(i, qs)
    with tm.Session() as sess:
        sess.run(chosen.enqueue((7,)), {i: 1})
        assert sess.run(qs[1].size()) == 1 and sess.run(qs[0].size()) == 0
    with pytest.raises(TypeError):
        tm.QueueBase.from_list(i, [qs[0], tm.FIFOQueue(5, tm.float32)])


# ----------------------------------------------------------------------------------------
# Contention


def test_eight_producers_eight_consumers_move_100k_elements(graph):
    total, batch, workers = 100_000, 500, 8
    q = tm.FIFOQueue(4 * batch, tm.int64, shapes=[[]])
    x = tm.placeholder(tm.int64, [batch])
    enq = q.enqueue_many((x,))
    deq = q.dequeue_many(batch)
    per_worker = total // batch // workers  # 25 runs of 500 each
    got: list[np.ndarray] = []
    lock = threading.Lock()
    failures: list[BaseException] = []
    with tm.Session() as sess:
        options = tm.RunOptions(timeout_in_ms=20_000)

        def produce(k):
            try:
                for r in range(per_worker):
                    start = (k * per_worker + r) * batch
                    sess.run(enq, {x: np.arange(start, start + batch, dtype=np.int64)},
                             options=options)
            except BaseException as e:  # pragma: no cover - reported below
                failures.append(e)

        def consume():
            try:
                for _ in range(per_worker):
                    values = sess.run(deq, options=options)
                    with lock:
                        got.append(values)
            except BaseException as e:  # pragma: no cover - reported below
                failures.append(e)

        threads = [threading.Thread(target=produce, args=(k,)) for k in range(workers)]
        threads += [threading.Thread(target=consume) for _ in range(workers)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
        assert not failures, failures
        assert sess.run(q.size()) == 0
    everything = np.sort(np.concatenate(got))
    np.testing.assert_array_equal(everything, np.arange(total))  # none lost, none twice
    assert elapsed < 10  # about 1-2 s; a generous bound only against hangs


def test_random_shuffle_queue_under_threads_loses_nothing(graph):
    q = tm.RandomShuffleQueue(256, 8, tm.int32, shapes=[[]], seed=3)
    x = tm.placeholder(tm.int32, [10])
    enq = q.enqueue_many((x,))
    deq = q.dequeue_up_to(10)
    with tm.Session() as sess:
        producers = [in_thread(lambda k=k: [sess.run(enq, {x: np.arange(10) + 10 * (5 * k + r)})
                                            for r in range(5)]) for k in range(4)]
        for t, _ in producers:
            t.join()
        sess.run(q.close())
        got = []
        while True:
            try:
                got.extend(sess.run(deq).tolist())
            except tm.errors.OutOfRangeError:
                break
    assert sorted(got) == list(range(200))


def test_golden_helper_masks_kernel_counters():
    check_outcome("k", "OutOfRangeError: FIFOQueue '_12_q' is closed",
                  np.array("OutOfRangeError: FIFOQueue '_3_q' is closed"))
