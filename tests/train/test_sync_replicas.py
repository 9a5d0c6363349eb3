"""SyncReplicasOptimizer in one process: replicas as threads sharing a Session, against
TensorFlow 2.21 (tools/record_goldens_sync_replicas.py, whose cases run here on tfmini)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm
from tests.helpers import wait_for


def _recorder():
    path = Path(__file__).resolve().parents[2] / "tools" / "record_goldens_sync_replicas.py"
    spec = importlib.util.spec_from_file_location("record_goldens_sync_replicas", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REC = _recorder()


@pytest.mark.parametrize("key", sorted(REC.SCHEDULES))
def test_constant_gradients_match_tf(golden, key):
    want = golden("sync_replicas")
    r, n, schedule = REC.SCHEDULES[key]
    # A step TensorFlow gave a token may wait as long as a loaded machine needs for the
    # chief's queue runner to enqueue it; a step that timed out in TensorFlow keeps its
    # 300 ms deadline (a token arriving within it would be a wrong answer). After each step
    # the chief's queue runner takes any complete round before the next step applies its
    # gradient, as TensorFlow's did when recorded: otherwise that gradient can race into the
    # round (seen in a CI run: w = [-4.67, -7.33], the first round averaging 3 gradients).
    # The final values are read once the chief applied the last round (its global step).
    timeouts = [300 if t == -1 else 20_000 for t in want[f"{key}/tokens"]]

    def between(sess, counts):
        wait_for(lambda: all(int(c) < r for c in sess.run(counts)), timeout=20.0,
                 interval=0.002, message="the chief's take of a complete round")

    def settle(sess, gs_tensor):
        wait_for(lambda: int(sess.run(gs_tensor)) >= int(want[f"{key}/gs"]), timeout=20.0,
                 interval=0.01, message="the chief's last update")

    tokens, w, gs = REC.constant_gradients(tm, r, n, schedule, timeouts, settle, between)
    np.testing.assert_array_equal(tokens, want[f"{key}/tokens"])
    np.testing.assert_allclose(w, want[f"{key}/w"])
    assert gs == want[f"{key}/gs"]


def test_linear_model_matches_tf(golden):
    want = golden("sync_replicas")
    loss, tokens, w, b, gs = REC.linear_model(tm)
    np.testing.assert_allclose(loss, want["linear/loss"], rtol=1e-5)
    np.testing.assert_array_equal(tokens, want["linear/tokens"])
    np.testing.assert_allclose(w, want["linear/w"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, want["linear/b"], rtol=1e-5, atol=1e-6)
    assert gs == want["linear/gs"]


def _built(r=2, n=2):
    w = tm.Variable([0.0, 0.0], name="w")
    gs = tm.train.get_or_create_global_step()
    opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(1.0), r, n)
    train = opt.apply_gradients([(tm.constant([1.0, 1.0]), w)], global_step=gs)
    return w, gs, opt, train


def test_graph_as_tensorflow_builds_it(graph):
    w, gs, opt, train = _built()
    ops = graph.get_operations()
    types = {op.name: op.type for op in ops}
    assert types["sync_token_q"] == "FIFOQueueV2"
    accum = [op for op in ops if op.type == "ResourceConditionalAccumulator"]
    # TensorFlow names it after var.name, ":0" included.
    assert [op.get_attr("shared_name") for op in accum] in (["w:0/grad_accum"],
                                                            [b"w:0/grad_accum"])
    assert [v.op.name for v in tm.local_variables()] == ["sync_rep_local_step"]
    assert tm.local_variables()[0].dtype.base_dtype == gs.dtype.base_dtype
    queue = opt.get_chief_queue_runner()
    assert queue.queue.name == "sync_token_q"
    assert len(queue.enqueue_ops) == 1


def test_errors(graph):
    w = tm.Variable([0.0], name="w")
    gs = tm.train.get_or_create_global_step()
    opt = tm.train.SyncReplicasOptimizer(tm.train.GradientDescentOptimizer(1.0), 3, 1)
    with pytest.raises(ValueError, match="Should be called after apply_gradients"):
        opt.get_chief_queue_runner()
    with pytest.raises(ValueError, match="should be called after apply_gradients"):
        opt.get_init_tokens_op()
    with pytest.raises(ValueError, match="Must supply at least one variable"):
        opt.apply_gradients([], global_step=gs)
    with pytest.raises(ValueError, match="Global step is required to check staleness"):
        opt.apply_gradients([(tm.constant([1.0]), w)])
    opt.apply_gradients([(tm.constant([1.0]), w)], global_step=gs)
    with pytest.raises(ValueError, match=r"Too few tokens to finish the first step: 1 \(given\) "
                                         r"vs 2 \(needed\)"):
        opt.get_init_tokens_op(1)
    assert opt.get_init_tokens_op(2).type == "QueueEnqueueManyV2"


def test_no_init_tokens(graph):
    w, gs, opt, train = _built(r=1, n=2)
    assert opt.get_init_tokens_op(0).type == "NoOp"


def test_hook_chief_and_worker(graph):
    w, gs, opt, train = _built(r=1, n=1)
    hook = opt.make_session_run_hook(is_chief=True)
    # The chief's queue runner waits in take_grad until the session closes (as in
    # TensorFlow): a short grace period keeps the close quick.
    with tm.train.MonitoredTrainingSession(is_chief=True, hooks=[hook],
                                           stop_grace_period_secs=0.5) as sess:
        assert sess.run(train) == 0
        assert sess.run(train) == 1
        assert sess.run(train) == 2
        np.testing.assert_allclose(sess.run(w), [-2.0, -2.0])
