"""tm.train.Coordinator, LooperThread, QueueRunner and the input pipeline helpers under a
Session (TensorFlow's coordinator_test.py, queue_runner_test.py and input_test.py shapes).
Op names and graph structure are compared with TensorFlow in
tests/ops/data_flow/test_queues_golden.py (input_helpers_graph)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tfmini as tm


def _stopper(coord, event):
    """A thread body that waits for the coordinator and then ends."""
    coord.wait_for_stop()
    event.set()


# ----------------------------------------------------------------------------------------
# Coordinator


def test_request_stop_wakes_waiters_and_join_returns():
    coord = tm.train.Coordinator()
    ended = [threading.Event() for _ in range(3)]
    threads = [threading.Thread(target=_stopper, args=(coord, e)) for e in ended]
    for t in threads:
        t.start()
    assert not coord.should_stop() and not coord.wait_for_stop(0.01)
    coord.request_stop()
    coord.join(threads)
    assert coord.should_stop() and coord.joined and all(e.is_set() for e in ended)


def test_join_reraises_the_first_exception_and_out_of_range_is_clean():
    coord = tm.train.Coordinator()
    coord.request_stop(tm.errors.OutOfRangeError(None, None, "done"))
    coord.join([])  # a clean stop: nothing raised
    coord = tm.train.Coordinator()

    def fail():
        with coord.stop_on_exception():
            raise RuntimeError("first")

    t = threading.Thread(target=fail)
    t.start()
    coord.request_stop(ValueError("second"))  # may come after: the first recorded wins
    with pytest.raises((RuntimeError, ValueError)):
        coord.join([t])
    coord.clear_stop()
    assert not coord.should_stop()


def test_join_names_threads_alive_after_the_grace_period():
    coord = tm.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, name="stuck-thread", daemon=True)
    t.start()
    coord.register_thread(t)
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running: stuck-thread"):
        coord.join(stop_grace_period_secs=0.05)
    release.set()
    t.join()


def test_looper_thread_runs_until_stop():
    coord = tm.train.Coordinator()
    calls = []

    def step():
        calls.append(1)
        if len(calls) == 5:
            coord.request_stop()

    looper = tm.train.LooperThread.loop(coord, None, step)
    coord.join([looper])
    assert len(calls) == 5


# ----------------------------------------------------------------------------------------
# QueueRunner and start_queue_runners


def test_queue_runner_fills_and_closes_the_queue_at_the_end_of_input(graph):
    data = tm.train.limit_epochs(tm.constant(np.arange(4, dtype=np.int32)), num_epochs=3)
    q = tm.FIFOQueue(5, tm.int32, shapes=[[]])
    tm.train.add_queue_runner(tm.train.QueueRunner(q, [q.enqueue_many((data,))]))
    deq = q.dequeue()
    with tm.Session() as sess:
        sess.run(tm.local_variables_initializer())
        coord = tm.train.Coordinator()
        threads = tm.train.start_queue_runners(sess, coord)
        got = []
        with pytest.raises(tm.errors.OutOfRangeError, match="is closed and has insufficient"):
            while True:
                got.append(int(sess.run(deq)))
        coord.request_stop()
        coord.join(threads)
    assert got == [0, 1, 2, 3] * 3


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_queue_runner_without_coordinator_records_errors(graph):
    q = tm.FIFOQueue(5, tm.float32, shapes=[[]])
    bad = q.enqueue((tm.gather(tm.constant([1.0]), tm.constant(3)),))
    qr = tm.train.QueueRunner(q, [bad])
    with tm.Session() as sess:
        threads = qr.create_threads(sess, start=True)
        for t in threads:
            t.join()
        assert len(qr.exceptions_raised) == 1
        assert isinstance(qr.exceptions_raised[0], tm.errors.InvalidArgumentError)
        assert qr.create_threads(sess) != []  # finished: may start again


def test_start_queue_runners_needs_a_session(graph):
    with pytest.raises(ValueError, match="No default session"):
        tm.train.start_queue_runners()
    with pytest.raises(ValueError, match="Must provide queue and enqueue_ops"):
        tm.train.QueueRunner()


def test_stop_cancels_enqueues_blocked_on_a_full_queue(graph):
    q = tm.FIFOQueue(2, tm.int32, shapes=[[]])
    tm.train.add_queue_runner(tm.train.QueueRunner(q, [q.enqueue((1,))] * 2))
    with tm.Session() as sess:
        coord = tm.train.Coordinator()
        threads = tm.train.start_queue_runners(sess, coord)
        assert sess.run(q.dequeue()) == 1  # the runners keep it filled
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)  # close_on_stop freed the waiters
        assert sess.run(q.is_closed())


# ----------------------------------------------------------------------------------------
# Input helpers


def test_slice_input_producer_and_batch_train_data_in_order(graph):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6, dtype=np.int64)
    xs, ys = tm.train.slice_input_producer([x, y], num_epochs=2, shuffle=False)
    bx, by = tm.train.batch([xs, ys], 4)
    assert bx.shape.as_list() == [4, 2] and by.op.type == "QueueDequeueManyV2"
    with tm.Session() as sess:
        sess.run(tm.local_variables_initializer())
        coord = tm.train.Coordinator()
        threads = tm.train.start_queue_runners(sess, coord)
        got = [sess.run(by) for _ in range(3)]
        with pytest.raises(tm.errors.OutOfRangeError):
            sess.run(by)
        coord.request_stop()
        coord.join(threads)
    np.testing.assert_array_equal(np.concatenate(got), np.tile(y, 2))


def test_batch_with_smaller_final_batch_and_dynamic_pad(graph):
    n = tm.train.limit_epochs(tm.constant(np.array([1, 3, 2], np.int32)), 1)
    q = tm.FIFOQueue(5, tm.int32, shapes=[[]])
    tm.train.add_queue_runner(tm.train.QueueRunner(q, [q.enqueue_many((n,))]))
    k = q.dequeue()
    padded = tm.train.batch([tm.range(k)], 2, dynamic_pad=True, allow_smaller_final_batch=True)
    with tm.Session() as sess:
        sess.run(tm.local_variables_initializer())
        coord = tm.train.Coordinator()
        threads = tm.train.start_queue_runners(sess, coord)
        first = sess.run(padded)
        last = sess.run(padded)
        coord.request_stop()
        coord.join(threads)
    np.testing.assert_array_equal(first, [[0, 0, 0], [0, 1, 2]])
    np.testing.assert_array_equal(last, [[0, 1]])


def test_input_helpers_refuse_bad_arguments(graph):
    with pytest.raises(ValueError, match="must be bigger than min_after_dequeue"):
        tm.train.shuffle_batch([tm.constant(1)], 2, capacity=4, min_after_dequeue=4)
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tm.train.limit_epochs(tm.constant(1), 0)
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        tm.train.string_input_producer([])
    with pytest.raises(TypeError, match="Expected types to be consistent"):
        tm.train.batch_join([[tm.constant(1)], [tm.constant(1.0)]], 2)


def test_count_up_to_on_both_variable_kinds(graph):
    for use_resource in (True, False):
        v = tm.Variable(np.int32(3), use_resource=use_resource)
        c = tm.count_up_to(v, 5)
        with tm.Session() as sess:
            sess.run(v.initializer)
            assert [int(sess.run(c)) for _ in range(2)] == [3, 4]
            with pytest.raises(tm.errors.OutOfRangeError, match="Reached limit of 5"):
                sess.run(c)
            assert int(sess.run(v)) == 5  # unchanged by the failed run
