"""MonitoredSession, MonitoredTrainingSession, hooks, Supervisor, traces."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tfmini as tm


def _model():
    gs = tm.train.get_or_create_global_step()
    w = tm.Variable(5.0, name="w")
    loss = tm.square(w)
    train = tm.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, loss, train


def test_stop_at_step_checkpoints_and_restart_vector(graph, tmp_path):
    # TF 2.21: w=5, loss w^2, SGD 0.1, last_step=3 -> w 2.56; ckpt-0 and ckpt-3 written.
    gs, w, loss, train = _model()
    with tm.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), hooks=[tm.train.StopAtStepHook(last_step=3)]) as s:
        while not s.should_stop():
            s.run(train)
        assert s._tf_sess.run([gs, w]) == [3, pytest.approx(2.56)]
    files = sorted(os.listdir(tmp_path))
    assert "model.ckpt-0.index" in files and "model.ckpt-3.index" in files
    assert any(f.startswith("events.out.tfevents") for f in files) and "graph.pbtxt" in files
    with tm.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), hooks=[tm.train.StopAtStepHook(num_steps=2)]) as s:
        assert s._tf_sess.run([gs, w]) == [3, pytest.approx(2.56)]  # restored
        n = 0
        while not s.should_stop():
            s.run(train)
            n += 1
    assert n == 2 and tm.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-5")
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        tm.train.StopAtStepHook(num_steps=1, last_step=2)


class _Preempt(tm.train.SessionRunHook):
    """Raises ``error`` in the next run once armed (a task lost, as a cluster reports it)."""

    def __init__(self):
        self.error = None

    def before_run(self, run_context):
        error, self.error = self.error, None
        if error is not None:
            raise error


@pytest.mark.parametrize("error", [tm.errors.UnavailableError, tm.errors.AbortedError])
def test_recovery_restores_the_checkpoint_and_reports_updates_lost(graph, tmp_path, error,
                                                                   caplog):
    # A preemption (Unavailable: a task died; Aborted: it restarted) makes a new session,
    # which restores the last checkpoint (step 3); the saver hook reports the 2 updates since
    # as lost. The failed run is made from another thread: the new session is still built on
    # this graph.
    import threading

    gs, w, loss, train = _model()
    saver_hook = tm.train.CheckpointSaverHook(str(tmp_path), save_steps=3)
    preempt = _Preempt()
    with tm.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), chief_only_hooks=[saver_hook], hooks=[preempt],
            save_checkpoint_secs=None, save_summaries_steps=None,
            save_summaries_secs=None) as s:
        for _ in range(5):
            s.run(train)
        assert s.run(gs) == 5
        preempt.error = error(None, None, "Task /job:ps/task:0 is unavailable")
        got = []
        t = threading.Thread(target=lambda: got.append(s.run([gs, w])))
        t.start()
        t.join(30)
        assert got[0] == [3, pytest.approx(5.0 * 0.8 ** 3)]
        assert saver_hook.recoveries == [
            tm.train.basic_session_run_hooks.CheckpointRecovery(5, 3, 2)]
        assert "the 2 update(s) made since" in caplog.text
        s.run(train)
        assert s.run(gs) == 4


def test_hooks_order_fetch_feed_and_stop(graph):
    x = tm.placeholder(tm.float32, [], name="x")
    gs, w, loss, train = _model()
    x2 = x * 2
    calls = []

    class Recorder(tm.train.SessionRunHook):
        def begin(self):
            calls.append("begin")

        def after_create_session(self, session, coord):
            calls.append("created")

        def before_run(self, run_context):
            calls.append("before")
            return tm.train.SessionRunArgs({"w": w, "x2": x2}, feed_dict={x: 3.0})

        def after_run(self, run_context, run_values):
            calls.append(("after", float(run_values.results["x2"])))
            if len(calls) > 6:
                run_context.request_stop()

        def end(self, session):
            calls.append("end")

    with tm.train.MonitoredSession(hooks=[Recorder()]) as s:
        while not s.should_stop():
            s.run(train)
        with pytest.raises(RuntimeError, match="should_stop"):
            s.run(train)
    assert calls[:3] == ["begin", "created", "before"] and calls[-1] == "end"
    assert ("after", 6.0) in calls


def test_out_of_range_ends_cleanly_and_end_not_called_on_error(graph):
    it = tm.data.make_one_shot_iterator(tm.data.Dataset.from_tensor_slices([1.0, 2.0]))
    nxt = it.get_next()
    gs, *_ = _model()
    final = tm.train.FinalOpsHook(gs)
    seen = []
    with tm.train.MonitoredSession(hooks=[final]) as s:
        while True:
            seen.append(s.run(nxt))
    assert seen == [1.0, 2.0]
    assert final.final_ops_values == 0  # OutOfRangeError counts as a clean end: end() ran


def test_nan_hook_and_logging_hook(graph, caplog):
    gs = tm.train.get_or_create_global_step()
    inc = tm.assign_add(gs, 1)
    nan = tm.constant(np.nan)
    with pytest.raises(tm.train.NanLossDuringTrainingError):
        with tm.train.MonitoredSession(hooks=[tm.train.NanTensorHook(nan)]) as s:
            s.run(inc)
    with tm.train.MonitoredSession(hooks=[tm.train.NanTensorHook(nan, fail_on_nan_loss=False)]
                                   ) as s:
        s.run(inc)
        assert s.should_stop()
    caplog.set_level("INFO", logger="tfmini")
    with tm.train.MonitoredSession(
            hooks=[tm.train.LoggingTensorHook({"step": gs}, every_n_iter=2)]) as s:
        for _ in range(3):
            s.run(inc)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("step = ")]
    assert len(logged) == 2
    with pytest.raises(ValueError, match="every_n_iter"):
        tm.train.LoggingTensorHook({"a": gs})


def test_summary_and_profiler_hooks(graph, tmp_path):
    gs, w, loss, train = _model()
    tm.summary.scalar("loss", loss)
    hooks = [tm.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path)),
             tm.train.StepCounterHook(every_n_steps=1, output_dir=str(tmp_path))]
    with tm.train.MonitoredTrainingSession(summary_dir=str(tmp_path), hooks=hooks,
                                           save_summaries_steps=1) as s:
        for _ in range(5):
            s.run(train)
    tm.train.SummaryWriterCache.clear()
    timelines = sorted(p for p in os.listdir(tmp_path) if p.startswith("timeline-"))
    assert timelines, os.listdir(tmp_path)
    trace = json.loads((tmp_path / timelines[0]).read_text())
    ops = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert any("ApplyGradientDescent" in n for n in ops)
    (ev_path,) = tmp_path.glob("events.out.tfevents.*")
    evs = list(tm.summary.summary_iterator(str(ev_path)))
    tags = {v.tag for e in evs for v in e.summary.value}
    assert {"loss", "global_step/sec"} <= tags
    assert any(e.WhichOneof("what") == "tagged_run_metadata" for e in evs)
    losses = [v.simple_value for e in evs for v in e.summary.value if v.tag == "loss"]
    np.testing.assert_allclose(losses, 25.0 * 0.64 ** np.arange(len(losses)), rtol=1e-5)


def test_full_trace_step_stats_and_timeline(graph):
    a = tm.constant(np.ones((3, 4), np.float32), name="a")
    b = tm.matmul(a, a, transpose_b=True, name="mm")
    meta = tm.RunMetadata()
    with tm.Session() as sess:
        sess.run(b, options=tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    (dev,) = meta.step_stats.dev_stats
    mm = next(n for n in dev.node_stats if n.node_name == "mm")
    assert mm.output_shapes == [[3, 3]] and mm.output_bytes == [36]
    assert abs(mm.all_start_micros / 1e6 - time.time()) < 60 and mm.thread_id
    trace = json.loads(tm.client.timeline.Timeline(meta.step_stats)
                       .generate_chrome_trace_format())
    x = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["args"]["name"] == "mm"]
    assert x[0]["name"] == "MatMul" and x[0]["args"]["input0"] == "a"
    assert any(e["ph"] == "s" for e in trace["traceEvents"])  # dataflow arrows


def test_supervisor_managed_session(graph, tmp_path):
    gs, w, loss, train = _model()
    sv = tm.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    with sv.managed_session() as sess:
        for _ in range(2):
            sess.run(train)
        # TensorFlow's Supervisor saves no checkpoint when the session ends
        # (tests/train/test_supervisor.py): save one here to restore below.
        sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
    assert tm.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-2")
    graph._finalized = False
    sv2 = tm.train.Supervisor(logdir=str(tmp_path), save_model_secs=0)
    with sv2.managed_session() as sess:
        assert sess.run(gs) == 2  # restored
        sv2.request_stop()
        assert sv2.should_stop()


_TRAINER = textwrap.dedent("""
    import sys, time
    import tfmini as tf
    ckpt, total = sys.argv[1], int(sys.argv[2])
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(5.0, name="w")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=gs)
    hooks = [tf.train.StopAtStepHook(last_step=total),
             tf.train.CheckpointSaverHook(ckpt, save_steps=5)]
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=hooks,
                                           save_checkpoint_secs=None) as sess:
        print("start", sess._tf_sess.run(gs), flush=True)
        while not sess.should_stop():
            sess.run(train)
            print("step", sess._tf_sess.run(gs), flush=True)
            time.sleep(0.02)
    print("done", flush=True)
""")


def test_killed_training_resumes_from_last_checkpoint(tmp_path):
    script = tmp_path / "trainer.py"
    script.write_text(_TRAINER)
    ckpt = tmp_path / "ckpt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, str(script), str(ckpt), "40"],
                            stdout=subprocess.PIPE, text=True, env=env)
    last = 0
    for line in proc.stdout:
        if line.startswith("step"):
            last = int(line.split()[1])
            if last >= 13:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    saved = int(tm.train.latest_checkpoint(str(ckpt)).rsplit("-", 1)[1])
    assert saved % 5 == 0 and last - 5 < saved <= last  # nothing lost beyond the last save
    out = subprocess.run([sys.executable, str(script), str(ckpt), "40"], capture_output=True,
                         text=True, env=env, timeout=120, check=True).stdout
    assert f"start {saved}" in out and "step 40" in out and "done" in out
    w = tm.train.load_variable(str(ckpt), "w")
    assert w == pytest.approx(5.0 * 0.8 ** 40, rel=1e-4)
    assert tm.train.load_variable(str(ckpt), "global_step") == 40
