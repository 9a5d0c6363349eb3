"""Recv is a blocking op: it waits for an Enqueue of the same run or of another thread, times
out, and is cancelled by close(). A run that fails after Send leaves the device as it was."""

from __future__ import annotations

import time

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import run_in_thread, wait_until_waiting
from tests.ops.tpu_embedding import worked as W

T, R = W.T, W.R
CFG = W.config(W.opt_params(0.5, adagrad=T.AdagradParameters()), batch=2)
S = CFG.SerializeToString()
GRADS = [np.ones((4, 4), np.float32), np.full((2, 2), 2.0, np.float32)]


def _graph():
    g = tm.Graph()
    with g.as_default():
        ops = {
            "configure": R.ConfigureTPUEmbedding(config=S),
            "enqueue": R.EnqueueTPUEmbeddingIntegerBatch(
                batch=[np.array([0, 1, 1, 7], np.int32), np.array([3, 3], np.int32)],
                mode_override="unspecified"),
            "recv": list(R.RecvTPUEmbeddingActivations(num_outputs=2, config=S)),
            "send": R.SendTPUEmbeddingGradients(inputs=GRADS, learning_rates=[], config=S),
            "video": R.RetrieveTPUEmbeddingAdagradParameters(table_name="video", num_shards=1,
                                                             shard_id=0),
            "user": R.RetrieveTPUEmbeddingAdagradParameters(table_name="user", num_shards=1,
                                                            shard_id=0),
        }
        ops["load"] = W.load_ops(CFG, {n: [np.full(t.shape, 0.1, np.float32)]
                                       for n, t in W.TABLES.items()})
    sess = tm.Session(graph=g)
    sess.run(ops["configure"])
    sess.run(ops["load"])
    return sess, ops


def test_recv_waits_for_the_enqueue_of_the_same_run():
    sess, ops = _graph()
    # Recv comes first in the fetches and has no data dependency on the Enqueue.
    acts, _ = sess.run([ops["recv"], ops["enqueue"]])
    np.testing.assert_array_equal(acts[0], W.VIDEO[[0, 1, 1, 7]])
    np.testing.assert_array_equal(acts[1], W.USER[[3, 3]])
    sess.close()


def test_recv_waits_for_an_enqueue_from_another_thread():
    sess, ops = _graph()
    thread = run_in_thread(sess.run, ops["recv"])
    wait_until_waiting(sess)  # Recv is parked in its wait for a batch
    assert thread.is_alive()  # still waiting
    sess.run(ops["enqueue"])
    acts = thread.result(5)
    assert not thread.is_alive()
    np.testing.assert_array_equal(acts[1], W.USER[[3, 3]])
    sess.close()


def test_batches_queue_in_order_and_each_recv_takes_one():
    sess, ops = _graph()
    with sess.graph.as_default():
        second = R.EnqueueTPUEmbeddingIntegerBatch(
            batch=[np.array([2, 2, 2, 2], np.int32), np.array([0, 1], np.int32)],
            mode_override="unspecified")
    sess.run(ops["enqueue"])
    sess.run(second)
    first_acts = sess.run(ops["recv"])
    second_acts = sess.run(ops["recv"])
    np.testing.assert_array_equal(first_acts[1], W.USER[[3, 3]])
    np.testing.assert_array_equal(second_acts[1], W.USER[[0, 1]])
    sess.close()


def test_recv_times_out_with_deadline_exceeded():
    sess, ops = _graph()
    start = time.monotonic()
    with pytest.raises(tm.errors.DeadlineExceededError,
                       match="Timed out waiting for an enqueued TPU embedding batch"):
        sess.run(ops["recv"], options=tm.RunOptions(timeout_in_ms=50))
    assert time.monotonic() - start < 2.0
    sess.close()


def test_close_cancels_a_waiting_recv():
    sess, ops = _graph()
    thread = run_in_thread(sess.run, ops["recv"])
    wait_until_waiting(sess)  # until Recv is waiting
    sess.close()
    error = thread.exception(5)
    assert not thread.is_alive()
    assert isinstance(error, tm.errors.CancelledError)
    assert "was cancelled" in str(error)


def _failing_after(op):
    """An op that runs after ``op`` and fails (an out-of-range gather on the CPU)."""
    with tm.control_dependencies([op]):
        with tm.device("/device:CPU:0"):
            return tm.gather(tm.constant([1.0, 2.0]), tm.constant(5))


def test_a_failed_step_after_send_rolls_everything_back():
    sess, ops = _graph()
    before = {n: sess.run(ops[n]) for n in ("video", "user")}
    with sess.graph.as_default():
        bad = _failing_after(ops["send"])
    with pytest.raises(tm.errors.InvalidArgumentError):
        sess.run([ops["enqueue"], ops["recv"], ops["send"], bad])
    for name in ("video", "user"):
        for x, y in zip(before[name], sess.run(ops[name])):
            np.testing.assert_array_equal(x, y)
    # The batch is gone again (the Enqueue was undone), and nothing awaits gradients.
    with pytest.raises(tm.errors.DeadlineExceededError):
        sess.run(ops["recv"], options=tm.RunOptions(timeout_in_ms=30))
    with pytest.raises(tm.errors.FailedPreconditionError, match="without Recv"):
        sess.run(ops["send"])
    # The same step then succeeds and trains.
    sess.run([ops["enqueue"], ops["recv"], ops["send"]])
    assert not np.array_equal(sess.run(ops["user"])[0][3], W.USER[3])
    sess.close()


def test_a_failed_send_run_keeps_the_received_batch_for_the_next_send():
    sess, ops = _graph()
    sess.run([ops["enqueue"], ops["recv"]])
    user = sess.run(ops["user"])
    with sess.graph.as_default():
        bad = _failing_after(ops["send"])
    with pytest.raises(tm.errors.InvalidArgumentError):
        sess.run(bad)
    np.testing.assert_array_equal(sess.run(ops["user"])[0], user[0])
    sess.run(ops["send"])  # still has activations to send gradients for
    after = sess.run(ops["user"])
    # Row 3 (hit twice): A = 0.1 + (2 + 2)**2 = 16.1, E -= 0.5 * 4 / sqrt(16.1).
    np.testing.assert_allclose(after[1][3], 16.1, rtol=1e-6)
    np.testing.assert_allclose(after[0][3], W.USER[3] - 0.5 * 4 / np.sqrt(16.1), rtol=1e-6)
    np.testing.assert_array_equal(after[0][[0, 1, 2, 4]], W.USER[[0, 1, 2, 4]])
    sess.close()


def test_a_failed_run_undoes_a_load():
    sess, ops = _graph()
    with sess.graph.as_default():
        load = R.LoadTPUEmbeddingAdagradParameters(
            parameters=np.zeros((8, 4), np.float32), accumulators=np.ones((8, 4), np.float32),
            table_name="video", num_shards=1, shard_id=0)
        bad = _failing_after(load)
    with pytest.raises(tm.errors.InvalidArgumentError):
        sess.run(bad)
    np.testing.assert_array_equal(sess.run(ops["video"])[0], W.VIDEO)
    sess.close()
