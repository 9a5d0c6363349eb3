"""Records TensorFlow 2.21's queue results into tests/goldens/queues.npz.

Ports the single-threaded parts of TensorFlow's own queue tests
(``tensorflow/python/kernel_tests/data_structures/fifo_queue_test.py``,
``padding_fifo_queue_test.py``, ``random_shuffle_queue_test.py``, ``priority_queue_test.py``)
as cases defined here once, against the module under test (``tensorflow.compat.v1`` when
recording, ``tfmini`` when tests/ops/data_flow/test_queues.py replays them): both spell the
calls the same way. Each case returns a list of outcomes: fetched values (an array, or a
tuple of arrays), ``"ok"`` for a run that fetched nothing, a string of names, or
``"<ErrorClass>: <message>"`` for a failure (TensorFlow's kernel message; the Python
message for a build-time error). Blocking is bounded by ``RunOptions(timeout_in_ms)``.

``THREADED`` cases need a second thread (cancellation by ``Session.close``, waiters served
in order, a close behind pending enqueues); TensorFlow's outcomes are recorded here with
sleeps, and the tests rebuild them with their own synchronisation (no sleeps).

Queue names in messages carry a per-process kernel counter (``'_3_fifo_queue'``); the tests
compare them with the counter masked.

Run:  /tmp/tfenv/bin/python tools/record_goldens_queues.py
"""

from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "queues.npz")
TIMEOUT_MS = 50


def _message(e: Exception) -> str:
    """The kernel's own message: TensorFlow wraps it in "Graph execution error" lines."""
    text = getattr(e, "message", str(e))
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: '") and i + 1 < len(lines):
            return lines[i + 1]
    if lines[0].startswith("Graph execution error:"):
        rest = [line for line in lines[1:] if line.strip()]
        return rest[0] if rest else lines[0]
    return lines[0]


def _runner(tf, sess):
    def run(fetch, feed=None, timeout_ms=None):
        options = None if timeout_ms is None else tf.RunOptions(timeout_in_ms=timeout_ms)
        try:
            out = sess.run(fetch, feed_dict=feed, options=options)
        except tf.errors.OpError as e:
            return f"{type(e).__name__}: {_message(e)}"
        if out is None:
            return "ok"
        if isinstance(out, tuple | list):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)

    return run


def _build(fn):
    """A build-time outcome: "built", or the Python error TensorFlow raises."""
    try:
        fn()
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return "built"


def _shape(t) -> str:
    """A static shape, spelled the same under both modules: ``[4, None]`` or ``None``."""
    dims = t.shape.dims
    return "None" if dims is None else str([None if d is None else int(d) for d in
                                            (getattr(x, "value", x) for x in dims)])


def _names(ops) -> str:
    return " ".join(f"{op.type}:{op.name}" for op in ops)


# ----------------------------------------------------------------------------------------
# fifo_queue_test.py


def fifo_basics(tf):
    q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    enq = q.enqueue((10.0,))
    enq_many = q.enqueue_many(([20.0, 30.0, 40.0],))
    deq = q.dequeue()
    out = [_names([q.queue_ref.op, enq, enq_many, deq.op, q.size().op, q.close(),
                   q.is_closed().op])]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq), run(enq_many), run(q.size()), run(deq), run(deq),
                run(q.dequeue_many(2)), run(q.size()), run(q.is_closed())]
    out.append(_shape(deq))
    return out


def fifo_multi_components(tf):
    q = tf.FIFOQueue(10, (tf.int32, tf.float32, tf.int64), shapes=((), (2,), (1, 2)))
    enq = q.enqueue_many(([1, 2, 3], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                          np.arange(6, dtype=np.int64).reshape(3, 1, 2)))
    many = q.dequeue_many(2)
    one = q.dequeue()
    out = [" ".join(_shape(t) for t in many), " ".join(_shape(t) for t in one)]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq), run(many), run(one), run(q.dequeue_many(0))]
    return out


def fifo_names_dict(tf):
    q = tf.FIFOQueue(10, (tf.int32, tf.float32), shapes=((), ()), names=("i", "f"))
    enq = q.enqueue({"f": 2.5, "i": 7})
    deq = q.dequeue()
    out = [" ".join(sorted(deq)), _build(lambda: q.enqueue((1, 2.0))),
           _build(lambda: q.enqueue({"i": 1, "x": 2.0})),
           _build(lambda: tf.FIFOQueue(10, (tf.int32, tf.float32), names=("a",)))]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        run(enq)
        got = sess.run(deq)
        out += [np.asarray(got["i"]), np.asarray(got["f"])]
    return out


def fifo_dequeue_up_to_and_close(tf):
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    enq = q.enqueue_many(([1, 2, 3, 4, 5],))
    up_to = q.dequeue_up_to(3)
    many = q.dequeue_many(3)
    out = [_shape(up_to), _shape(many)]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq), run(up_to), run(q.close()), run(q.is_closed()), run(many),
                run(q.size()), run(up_to), run(up_to), run(many), run(q.dequeue()),
                run(q.enqueue((9,))), run(q.close()), run(q.close(cancel_pending_enqueues=True))]
    return out


def fifo_timeouts(tf):
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    enq = q.enqueue((1,))
    out = []
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(q.dequeue(), timeout_ms=TIMEOUT_MS), run(q.dequeue_many(1),
                                                              timeout_ms=TIMEOUT_MS)]
        out += [run(enq), run(enq), run(enq, timeout_ms=TIMEOUT_MS), run(q.size())]
        out += [run(q.dequeue_many(2)),
                run(q.enqueue_many(([5, 6, 7],)), timeout_ms=TIMEOUT_MS), run(q.size()),
                run(q.dequeue_many(2))]
        # (A dequeue_many that times out holding elements: TensorFlow drops them, tfmini
        # gives them back; tests/ops/data_flow/test_queues.py checks tfmini's rule.)
    return out


def fifo_runtime_errors(tf):
    q = tf.FIFOQueue(10, (tf.int32, tf.float32), shapes=((), (2,)))
    a = tf.placeholder(tf.int32)
    b = tf.placeholder(tf.float32)
    enq = q.enqueue((a, b))
    enq_many = q.enqueue_many((a, b))
    p = tf.FIFOQueue(10, (tf.int32, tf.float32))
    p_many = p.enqueue_many((a, b))
    short = q.enqueue((1,))
    out = []
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq, {a: 1, b: [1.0, 2.0, 3.0]}), run(enq, {a: [1], b: [1.0, 2.0]}),
                run(enq_many, {a: [1, 2], b: [[1.0, 2.0]] * 3}),
                run(enq_many, {a: [1, 2], b: [[1.0, 2.0, 3.0]] * 2}), run(q.size()),
                run(p_many, {a: [1, 2], b: [1.0, 2.0, 3.0]}),
                run(p.size()), run(p.dequeue_many(1)), run(p.dequeue_up_to(1)), run(short)]
        # (A scalar fed to enqueue_many: TensorFlow's kernel reads a 0th dimension that is not
        # there; tfmini refuses it, see test_queues.py.)
    return out


def fifo_build_errors(tf):
    q = tf.FIFOQueue(10, (tf.int32, tf.float32), shapes=((), (2,)))
    return [
        _build(lambda: q.enqueue((1, [1.0, 2.0, 3.0]))),
        _build(lambda: q.enqueue((1.5, [1.0, 2.0]))),
        _build(lambda: q.enqueue_many(([1, 2], [[1.0, 2.0]] * 3))),
        _build(lambda: q.enqueue_many((1, [1.0, 2.0]))),
        _build(lambda: q.enqueue_many(([1, 2], [[1.0, 2.0, 3.0]] * 2))),
        _build(lambda: tf.FIFOQueue(10, tf.int32, shapes=[[None]])),
        _build(lambda: tf.FIFOQueue(10, (tf.int32, tf.float32), shapes=((), (2,), (3,)))),
        _build(lambda: tf.PaddingFIFOQueue(10, tf.int32, shapes=None)),
        _build(lambda: tf.PaddingFIFOQueue(10, tf.int32, shapes=[2])),
        _build(lambda: tf.PriorityQueue(10, tf.int32, shapes=[[None]])),
        _build(lambda: tf.train.shuffle_batch([tf.constant(1)], 2, capacity=4,
                                              min_after_dequeue=4)),
        _build(lambda: tf.train.limit_epochs(tf.constant(1), 0)),
        _build(lambda: tf.train.slice_input_producer([])),
    ]


def fifo_shared_name(tf):
    q1 = tf.FIFOQueue(10, tf.int32, shapes=[[]], shared_name="shared_q", name="q1")
    q2 = tf.FIFOQueue(10, tf.int32, shapes=[[]], shared_name="shared_q", name="q2")
    q3 = tf.FIFOQueue(10, tf.float32, shapes=[[]], shared_name="shared_q", name="q3")
    out = []
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(q1.enqueue((5,))), run(q2.size()), run(q2.dequeue()), run(q2.close()),
                run(q1.dequeue()), run(q3.size())]
    return out


def fifo_unbounded(tf):
    q = tf.FIFOQueue(-1, tf.int32, shapes=[[]])
    enq = q.enqueue_many((np.arange(100, dtype=np.int32),))
    with tf.Session() as sess:
        run = _runner(tf, sess)
        return [run(enq), run(enq), run(q.size()), run(q.dequeue_many(150))]


# ----------------------------------------------------------------------------------------
# padding_fifo_queue_test.py


def padding_basics(tf):
    q = tf.PaddingFIFOQueue(10, (tf.int32, tf.float32), shapes=((None,), (None, 2)))
    a = tf.placeholder(tf.int32, [None])
    b = tf.placeholder(tf.float32)
    am = tf.placeholder(tf.int32, [None, None])
    enq = q.enqueue((a, b))
    many = q.dequeue_many(3)
    out = [" ".join(_shape(t) for t in many), q.queue_ref.op.type]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        run(enq, {a: [1], b: np.ones((2, 2))})
        run(enq, {a: [2, 3, 4], b: np.ones((1, 2)) * 2})
        run(enq, {a: [], b: np.zeros((0, 2))})
        out += [run(many)]
        run(enq, {a: [5, 6], b: np.ones((3, 2))})
        out += [run(q.dequeue()), run(q.dequeue_many(0)),
                run(enq, {a: [1], b: np.ones((1, 3))}),
                run(q.enqueue_many((am, b)), {am: [[1], [2]], b: np.ones((3, 1, 2))})]
        run(enq, {a: [7], b: np.ones((1, 2))})
        run(q.close())
        out += [run(q.dequeue_up_to(4)), run(q.dequeue_up_to(4))]
    return out


def padding_enqueue_many(tf):
    q = tf.PaddingFIFOQueue(10, tf.int32, shapes=[(None, None)])
    enq = q.enqueue_many((np.arange(12, dtype=np.int32).reshape(3, 2, 2),))
    one = tf.placeholder(tf.int32, [None, None])
    with tf.Session() as sess:
        run = _runner(tf, sess)
        run(enq)
        run(q.enqueue((one,)), {one: [[9, 9, 9]]})
        return [run(q.dequeue_many(4)), run(q.size())]


# ----------------------------------------------------------------------------------------
# priority_queue_test.py


def priority_order(tf):
    q = tf.PriorityQueue(10, (tf.int32, tf.float32), shapes=((), (2,)))
    enq = q.enqueue_many(([5, 1, 9, 3, 7], [10, 20, 30, 40, 50],
                          np.arange(10, dtype=np.float32).reshape(5, 2)))
    deq = q.dequeue()
    many = q.dequeue_many(2)
    out = [q.queue_ref.op.type, " ".join(t.dtype.name for t in deq)]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq), run(deq), run(many), run(q.size()), run(q.enqueue((0, 1, [1.0, 1.0]))),
                run(q.dequeue_many(2))]
        # (dequeue_up_to after close: TensorFlow's PriorityQueue fails and drops the
        # elements it took; tfmini returns them as the FIFO queues do, see test_queues.py.)
        out += [run(q.close()), run(deq), run(deq)]
    return out


# ----------------------------------------------------------------------------------------
# random_shuffle_queue_test.py


def _shuffle_order(graph_seed, op_seed, n):
    def case(tf):
        tf.set_random_seed(graph_seed)
        q = tf.RandomShuffleQueue(100, 0, tf.int32, shapes=[[]], seed=op_seed)
        enq = q.enqueue_many((np.arange(n, dtype=np.int32),))
        deq = q.dequeue()
        out = [f"{q.queue_ref.op.get_attr('seed')} {q.queue_ref.op.get_attr('seed2')}"]
        with tf.Session() as sess:
            run = _runner(tf, sess)
            run(enq)
            run(q.close())
            out.append(np.array([int(sess.run(deq)) for _ in range(n)]))
            out.append(run(deq))
        return out

    return case


def shuffle_min_after_dequeue(tf):
    tf.set_random_seed(11)
    q = tf.RandomShuffleQueue(10, 3, (tf.int32, tf.float32), shapes=((), (2,)), seed=4)
    enq = q.enqueue_many((np.arange(6, dtype=np.int32),
                          np.arange(12, dtype=np.float32).reshape(6, 2)))
    out = [q.queue_ref.op.type]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out += [run(enq), run(q.dequeue_many(2)), run(q.size()), run(q.dequeue()),
                run(q.dequeue(), timeout_ms=TIMEOUT_MS), run(q.dequeue_many(2),
                                                              timeout_ms=TIMEOUT_MS),
                run(q.size()), run(q.close()), run(q.dequeue_many(2)), run(q.dequeue_up_to(5)),
                run(q.dequeue_up_to(5)), run(q.dequeue_many(0)),
                run(q.enqueue((1, [1.0, 2.0])))]
    return out


def shuffle_capacity(tf):
    tf.set_random_seed(2)
    q = tf.RandomShuffleQueue(3, 0, tf.int32, shapes=[[]], seed=9)
    with tf.Session() as sess:
        run = _runner(tf, sess)
        return [run(q.enqueue_many((np.arange(5, dtype=np.int32),)), timeout_ms=TIMEOUT_MS),
                run(q.size()), run(q.dequeue_many(3)), run(q.dequeue_many(3),
                                                            timeout_ms=TIMEOUT_MS)]


# ----------------------------------------------------------------------------------------
# input.py helpers and queue runners (single-threaded parts)


def input_helpers_graph(tf):
    tf.set_random_seed(3)
    x = tf.constant(np.arange(6, dtype=np.int32))
    y = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    xs, ys = tf.train.slice_input_producer([x, y], num_epochs=2, seed=5)
    b = tf.train.batch([xs, ys], 4)
    sb = tf.train.shuffle_batch([xs, ys], 4, capacity=20, min_after_dequeue=5, seed=1)
    bu = tf.train.batch([xs], 3, allow_smaller_final_batch=True, name="smaller")
    bp = tf.train.batch([tf.range(xs)], 2, dynamic_pad=True, name="padded")
    bj = tf.train.batch_join([[xs, ys], [xs + 1, ys]], 2)
    sj = tf.train.shuffle_batch_join([[xs], [xs]], 2, capacity=8, min_after_dequeue=2)
    ops = tf.get_default_graph().get_operations()
    kinds = ("Queue", "CountUpTo", "RandomShuffle")
    out = [_names([op for op in ops if any(k in op.type for k in kinds)])]
    out.append(" ".join(f"{t.op.type}:{t.op.name}:{_shape(t)}"
                        for t in [b[0], b[1], sb[0], bu, bp, bj[0], sj]))
    runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    out.append(" ".join(f"{qr.name}:{len(qr.enqueue_ops)}:{qr.close_op.name}:"
                        f"{qr.cancel_op.name}" for qr in runners))
    out.append(" ".join(v.op.name for v in tf.local_variables()))
    return out


def limit_epochs_counts(tf):
    t = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2)
    out = [t.op.type + ":" + t.op.name]
    with tf.Session() as sess:
        run = _runner(tf, sess)
        sess.run(tf.local_variables_initializer())
        out += [run(t), run(t), run(t)]
    return out


def string_input_producer_unshuffled(tf):
    q = tf.train.string_input_producer(["a", "bb", "c"], num_epochs=1, shuffle=False)
    deq = q.dequeue()
    out = [q.name]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        run = _runner(tf, sess)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out += [run(deq), run(deq), run(deq), run(deq)]
        coord.request_stop()
        coord.join(threads)
    return out


def input_helpers_summaries(tf):
    """The fill-level summaries the helpers create (name, type and tag of each op), and
    string_input_producer's run-time Assert."""
    names = tf.placeholder(tf.string, [None], name="names")
    sq = tf.train.string_input_producer(names, capacity=8)
    (xs,) = tf.train.slice_input_producer([tf.constant(np.arange(6, dtype=np.int32))])
    tf.train.batch([xs], 4)
    tf.train.shuffle_batch([xs], 4, capacity=20, min_after_dequeue=5, name="sb")
    tf.train.batch_join([[xs], [xs + 1]], 2, capacity=10)
    tf.train.shuffle_batch_join([[xs], [xs]], 2, capacity=8, min_after_dequeue=2)
    graph = tf.get_default_graph()
    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
    out = [" ".join(f"{t.op.type}:{t.op.name}" for t in summaries)]
    tags = [t.op.inputs[0] for t in summaries]
    asserts = [op for op in graph.get_operations() if op.type == "Assert"]
    out.append(_names(asserts))
    runner = next(qr for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
                  if qr.queue.name == sq.name)
    with tf.Session() as sess:
        run = _runner(tf, sess)
        out.append(run(tags))
        out.append(run(runner.enqueue_ops[0], {names: np.array([], object)}))
        out.append(run(sq.size()))
        out.append(run(runner.enqueue_ops[0], {names: np.array([b"a", b"b"], object)}))
        out.append(run(sq.size()))
        out.append(run(summaries[0]))  # the string queue's summary: 2 of 8 full
    return out


def slice_input_producer_shuffled(tf):
    """slice_input_producer(shuffle=True), graph seed 3, op seed 5, n=6, 2 epochs."""
    tf.set_random_seed(3)
    (xs,) = tf.train.slice_input_producer([tf.constant(np.arange(6, dtype=np.int32))],
                                          num_epochs=2, seed=5)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        run = _runner(tf, sess)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out = [np.array([run(xs) for _ in range(12)]), run(xs)]
        coord.request_stop()
        coord.join(threads)
    return out


CASES = {
    "fifo_basics": fifo_basics,
    "fifo_multi_components": fifo_multi_components,
    "fifo_names_dict": fifo_names_dict,
    "fifo_dequeue_up_to_and_close": fifo_dequeue_up_to_and_close,
    "fifo_timeouts": fifo_timeouts,
    "fifo_runtime_errors": fifo_runtime_errors,
    "fifo_build_errors": fifo_build_errors,
    "fifo_shared_name": fifo_shared_name,
    "fifo_unbounded": fifo_unbounded,
    "padding_basics": padding_basics,
    "padding_enqueue_many": padding_enqueue_many,
    "priority_order": priority_order,
    "shuffle_order_7_0": _shuffle_order(7, 0, 10),
    "shuffle_order_default_5": _shuffle_order(None, 5, 10),
    "shuffle_order_1234_42": _shuffle_order(1234, 42, 20),
    "shuffle_min_after_dequeue": shuffle_min_after_dequeue,
    "shuffle_capacity": shuffle_capacity,
    "input_helpers_graph": input_helpers_graph,
    "limit_epochs_counts": limit_epochs_counts,
    "string_input_producer_unshuffled": string_input_producer_unshuffled,
    "input_helpers_summaries": input_helpers_summaries,
    "slice_input_producer_shuffled": slice_input_producer_shuffled,
}


# ----------------------------------------------------------------------------------------
# Threaded cases (recorded with sleeps; the tests synchronise on the queue's state instead)


def _in_thread(fn):
    box = {}

    def work():
        try:
            box["value"] = fn()
        except Exception as e:  # noqa: BLE001
            box["value"] = f"{type(e).__name__}: {_message(e)}"

    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t, box


def threaded_cases(tf) -> dict[str, list]:
    out = {}
    pause = 0.3

    # Session.close() cancels a waiting dequeue and a waiting enqueue.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        sess = tf.Session()
        sess.run(q.enqueue((1,)))
        run = _runner(tf, sess)
        enq = q.enqueue((2,))  # built here: the default graph is per thread
        t1, b1 = _in_thread(lambda: run(enq))
        time.sleep(pause)
        sess.close()
        t1.join()
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        sess = tf.Session()
        run = _runner(tf, sess)
        deq = q.dequeue()
        t2, b2 = _in_thread(lambda: run(deq))
        time.sleep(pause)
        sess.close()
        t2.join()
    out["cancel_on_session_close"] = [b1["value"], b2["value"]]

    # Waiters are served first come, first served.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        x = tf.placeholder(tf.int32, [])
        enq = q.enqueue((x,))
        with tf.Session() as sess:
            run = _runner(tf, sess)
            many, deq_b, deq_c = q.dequeue_many(2), q.dequeue(), q.dequeue()
            ta, ba = _in_thread(lambda: run(many))
            time.sleep(pause)
            tb, bb = _in_thread(lambda: run(deq_b))
            time.sleep(pause)
            tc, bc = _in_thread(lambda: run(deq_c))
            time.sleep(pause)
            run(enq, {x: 10})
            time.sleep(pause)
            released = [ta.is_alive(), tb.is_alive(), tc.is_alive()]
            for v in (11, 12, 13):
                run(enq, {x: v})
            for t in (ta, tb, tc):
                t.join()
            out["fifo_fairness"] = [np.array(released), ba["value"], bb["value"], bc["value"]]

    # A plain close waits behind pending enqueues, which complete; with
    # cancel_pending_enqueues they fail.
    for cancel in (False, True):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
            with tf.Session() as sess:
                run = _runner(tf, sess)
                run(q.enqueue((1,)))
                enq, close = q.enqueue((2,)), q.close(cancel_pending_enqueues=cancel)
                te, be = _in_thread(lambda run=run, enq=enq: run(enq))
                time.sleep(pause)
                tcl, bcl = _in_thread(lambda run=run, close=close: run(close))
                time.sleep(pause)
                waiting = [te.is_alive(), tcl.is_alive()]
                first = run(q.dequeue())
                te.join()
                tcl.join()
                out[f"close_pending_cancel_{cancel}"] = [
                    np.array(waiting), first, be["value"], bcl["value"], run(q.dequeue()),
                    run(q.dequeue()), run(q.size()), run(q.is_closed())]

    # A dequeue_many waiting at close puts back what it held.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        with tf.Session() as sess:
            run = _runner(tf, sess)
            many = q.dequeue_many(3)
            tm_, bm = _in_thread(lambda: run(many))
            time.sleep(pause)
            run(q.enqueue((7,)))
            time.sleep(pause)
            size_while_held = run(q.size())
            run(q.close())
            tm_.join()
            out["close_returns_partial"] = [size_while_held, bm["value"], run(q.size()),
                                            run(q.dequeue())]

    # A dequeue_up_to waiting at close returns the partial batch.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        with tf.Session() as sess:
            run = _runner(tf, sess)
            up_to = q.dequeue_up_to(3)
            tu, bu = _in_thread(lambda: run(up_to))
            time.sleep(pause)
            run(q.enqueue_many(([7, 8],)))
            time.sleep(pause)
            run(q.close())
            tu.join()
            out["close_up_to_partial"] = [bu["value"], run(q.size())]

    # Queue runners with a coordinator: an error other than OutOfRange stops it and join
    # re-raises it.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
        bad = q.enqueue((tf.gather(tf.constant([1.0, 2.0]), tf.constant(5)),))
        qr = tf.train.QueueRunner(q, [bad])
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            names = [t.name for t in threads][-1:]
            try:
                coord.join(threads, stop_grace_period_secs=5)
                result = "no error"
            except Exception as e:  # noqa: BLE001
                result = f"{type(e).__name__}"
            out["runner_error_to_coordinator"] = [result, " ".join(names)]
    return out


def flatten(case: str, outcomes: list) -> dict[str, np.ndarray]:
    """The npz entries of one case: ``<case>/<i>`` or ``<case>/<i>/<part>``."""
    entries = {}
    for i, o in enumerate(outcomes):
        if isinstance(o, tuple):
            for k, part in enumerate(o):
                entries[f"{case}/{i}/{k}"] = np.asarray(part)
        else:
            entries[f"{case}/{i}"] = np.asarray(o)
    return entries


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf_root

    tf = tf_root.compat.v1
    tf.disable_v2_behavior()
    arrays: dict[str, np.ndarray] = {}
    for name, case in CASES.items():
        with tf.Graph().as_default():
            arrays.update(flatten(name, case(tf)))
        print("recorded", name, file=sys.stderr, flush=True)
    for name, outcomes in threaded_cases(tf).items():
        arrays.update(flatten(name, outcomes))
    np.savez_compressed(GOLDEN, **arrays)
    print(f"wrote {len(arrays)} arrays to {os.path.normpath(GOLDEN)}", file=sys.stderr)


if __name__ == "__main__":
    main()
