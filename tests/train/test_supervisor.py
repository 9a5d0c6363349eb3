"""tm.train.Supervisor against TensorFlow 2.21 (tests/goldens/supervisor.json, recorded by
tools/record_goldens_supervisor.py): default ops and the collections they fill, the
checkpoint files a managed session leaves, the non-chief's bounded wait, the local init op
waiting on ready_for_local_init_op, and a thread's exception re-raised on leaving."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR
from tfmini.train.monitored_session import report_uninitialized_variables

GOLDEN = json.loads((GOLDEN_DIR / "supervisor.json").read_text())
_KEYS = ("INIT_OP", "LOCAL_INIT_OP", "READY_OP", "READY_FOR_LOCAL_INIT_OP", "SAVERS",
         "SUMMARY_OP")


def _model():
    gs = tm.train.get_or_create_global_step()
    w = tm.Variable(5.0, name="w")
    loss = tm.square(w, name="loss")
    tm.summary.scalar("loss", loss)
    train = tm.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, train


def _kind(x):
    # As the recorder: an op by its type, a tensor by its op's type, else its class name.
    if x is None:
        return None
    if isinstance(x, tm.Operation):
        return x.type
    if isinstance(x, tm.Tensor):
        return f"tensor of {x.op.type}"
    return type(x).__name__


def _ready_kind(kind):
    # report_uninitialized_variables ends in TF's boolean_mask (GatherV2) and in tfmini's
    # own Select; the names it reports are what counts (tests/train/test_monitored_session.py).
    return kind.split(" of ")[0] if kind else kind


def _collections(g):
    out = {k: [_kind(i) for i in g.get_collection(getattr(tm.GraphKeys, k))] for k in _KEYS}
    out["READY_OP"] = [_ready_kind(k) for k in out["READY_OP"]]
    return out


def _golden_collections(want):
    return {**want, "READY_OP": [_ready_kind(k) for k in want["READY_OP"]]}


def _files(d):
    return sorted(f for f in os.listdir(d) if not f.startswith("events."))


def test_defaults_and_collections_match_tensorflow(tmp_path):
    want = GOLDEN["defaults"]
    with tm.Graph().as_default() as g:
        _model()
        assert _collections(g) == want["before"]
        sv = tm.train.Supervisor(logdir=str(tmp_path))
        assert _collections(g) == _golden_collections(want["after"])
        got = {"init_op": _kind(sv.init_op), "ready_op": _ready_kind(_kind(sv.ready_op)),
               "ready_for_local_init_op": _kind(sv.ready_for_local_init_op),
               "summary_op": _kind(sv.summary_op), "saver": _kind(sv.saver),
               "global_step": sv.global_step.op.name, "is_chief": sv.is_chief,
               "save_path": os.path.basename(sv.save_path), "finalized": g.finalized}
        assert got == {**{k: want[k] for k in got}, "ready_op": _ready_kind(want["ready_op"])}
        # A second Supervisor of the same graph takes the collections' ops, adding none.
        g._finalized = False
        sv2 = tm.train.Supervisor(logdir=str(tmp_path))
        assert sv2.init_op is sv.init_op and sv2.saver is sv.saver
        assert _collections(g) == _golden_collections(want["after"])
        sv.summary_writer.close()
        sv2.summary_writer.close()


@pytest.mark.parametrize("name,secs,steps", [("off", 0, 2), ("on", 600, 0)])
def test_checkpoint_files_and_restore_match_tensorflow(tmp_path, name, secs, steps):
    want = GOLDEN["checkpoints"]
    with tm.Graph().as_default():
        gs, w, train = _model()
        sv = tm.train.Supervisor(logdir=str(tmp_path), save_model_secs=secs,
                                 save_summaries_secs=0)
        with sv.managed_session() as sess:
            for _ in range(steps):
                sess.run(train)
            # The checkpoint thread's first save is at its start (a LooperThread).
            deadline = time.time() + 10
            while secs and time.time() < deadline and \
                    tm.train.latest_checkpoint(str(tmp_path)) is None:
                time.sleep(0.01)
    # No checkpoint is saved when the session ends: only the thread saves.
    assert _files(tmp_path) == want[name]
    with tm.Graph().as_default():
        gs, w, train = _model()
        sv = tm.train.Supervisor(logdir=str(tmp_path), save_model_secs=0,
                                 save_summaries_secs=0)
        with sv.managed_session() as sess:
            assert sess.run(gs) == want[name + "_restored_step"]
            assert sess.run(w) == pytest.approx(want[name + "_restored_w"])


def test_non_chief_wait_is_bounded_with_tensorflows_error(tmp_path):
    with tm.Graph().as_default():
        _model()
        sv = tm.train.Supervisor(is_chief=False, logdir=str(tmp_path), recovery_wait_secs=0.2)
        t0 = time.time()
        with pytest.raises(tm.errors.DeadlineExceededError) as e:
            sv.prepare_or_wait_for_session(max_wait_secs=0.5)
        assert time.time() - t0 >= 0.2
    assert f"{type(e.value).__name__}: {e.value.message}" == GOLDEN["non_chief_wait"]["error"]


def test_local_init_op_runs_once_the_model_is_ready_for_it():
    with tm.Graph().as_default():
        g = tm.Variable(3.0, name="g")
        loc = tm.Variable(0.0, name="loc", trainable=False,
                          collections=[tm.GraphKeys.LOCAL_VARIABLES])
        local_init = loc.assign(g * 2.0)
        sv = tm.train.Supervisor(
            logdir=None, local_init_op=local_init,
            ready_for_local_init_op=report_uninitialized_variables(tm.global_variables()),
            ready_op=report_uninitialized_variables())
        with sv.managed_session() as sess:
            assert sess.run(loc) == GOLDEN["local_init_order"]["loc"]


def test_non_chief_waits_for_the_chief_then_runs_its_local_init_op():
    # Nothing initialises the model here (each in-process Session has variables of its
    # own; tests/distribute/test_dist_mnist.py has a chief to wait for): every poll asks
    # ready_for_local_init_op, and the wait ends at max_wait_secs.
    with tm.Graph().as_default():
        g = tm.Variable(3.0, name="g")
        sv = tm.train.Supervisor(is_chief=False, logdir=None, recovery_wait_secs=0.05,
                                 local_init_op=tm.no_op(),
                                 ready_for_local_init_op=report_uninitialized_variables(
                                     tm.global_variables()))
        calls = []
        real = sv.session_manager._model_ready

        def spy(sess, *args):
            calls.append(args)
            return real(sess, *args)

        sv.session_manager._model_ready = spy
        with pytest.raises(tm.errors.DeadlineExceededError):
            sv.prepare_or_wait_for_session(max_wait_secs=0.3)
        assert calls and all(a and a[0] is sv.ready_for_local_init_op for a in calls)
        del g


def test_exception_of_a_thread_is_reraised_when_the_session_ends():
    with tm.Graph().as_default():
        _model()
        sv = tm.train.Supervisor(logdir=None)

        def fail():
            raise ValueError("from a thread")

        with pytest.raises(ValueError) as e:
            with sv.managed_session():
                sv.loop(0.01, fail)
                deadline = time.time() + 10
                while not sv.should_stop() and time.time() < deadline:
                    time.sleep(0.01)
        assert f"{type(e.value).__name__}: {e.value}" == GOLDEN["stop_reraises"]["error"]


def test_queue_runners_start_and_stop_with_the_supervisor():
    with tm.Graph().as_default():
        q = tm.FIFOQueue(4, tm.float32, shapes=())
        qr = tm.train.QueueRunner(q, [q.enqueue(1.0)])
        tm.train.add_queue_runner(qr)
        size = q.size()
        sv = tm.train.Supervisor(logdir=None, stop_grace_secs=5)
        with sv.managed_session() as sess:
            deadline = time.time() + 10
            while sess.run(size) < 4 and time.time() < deadline:
                time.sleep(0.01)
            assert sess.run(size) == 4  # the runner filled the queue, now blocked on it
        assert sv.should_stop()
        # The runner's threads ended: the stop cancelled its blocked enqueue.
        assert not [t for t in threading.enumerate() if t.name.startswith("QueueRunnerThread")
                    and t.is_alive()]


def test_chief_services_write_checkpoints_summaries_and_step_rate(tmp_path):
    with tm.Graph().as_default():
        gs, w, train = _model()
        sv = tm.train.Supervisor(logdir=str(tmp_path), save_model_secs=0.05,
                                 save_summaries_secs=0.05)
        with sv.managed_session() as sess:
            for _ in range(3):
                sess.run(train)
            time.sleep(0.3)
    assert tm.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-3")
    tags = set()
    for path in tmp_path.glob("events.*"):
        for event in tm.train.summary_iterator(str(path)):
            tags.update(v.tag for v in event.summary.value)
    assert "global_step/sec" in tags and any(t.startswith("loss") for t in tags)
    assert (tmp_path / "graph.pbtxt").exists()


def test_start_standard_services_is_for_the_chief_only():
    with tm.Graph().as_default():
        _model()
        sv = tm.train.Supervisor(is_chief=False, logdir=None)
        with pytest.raises(RuntimeError, match="Only chief supervisor"):
            sv.start_standard_services(None)


def test_chief_waits_for_a_checkpoint_when_asked(tmp_path):
    # prepare_or_wait_for_session(wait_for_checkpoint=True) looks for a checkpoint every
    # recovery_wait_secs (TensorFlow's SessionManager._restore_checkpoint): one written
    # meanwhile is restored; none within max_wait_secs and the model is initialised.
    with tm.Graph().as_default():
        gs, w, train = _model()
        saver = tm.train.Saver()
        with tm.Session() as sess:
            sess.run(tm.global_variables_initializer())
            sess.run(gs.assign(7))

            def write():
                saver.save(sess, str(tmp_path / "model.ckpt"), global_step=7)

            timer = threading.Timer(0.2, write)
            timer.start()
            with tm.Graph().as_default():
                gs2, _, _ = _model()
                sv = tm.train.Supervisor(logdir=str(tmp_path), recovery_wait_secs=0.05,
                                         save_model_secs=0, save_summaries_secs=0)
                restored = sv.prepare_or_wait_for_session(wait_for_checkpoint=True,
                                                          max_wait_secs=10)
                assert restored.run(gs2) == 7
                sv.stop()
                restored.close()
            timer.join()
    with tm.Graph().as_default():
        gs3, _, _ = _model()
        empty = tmp_path / "empty"
        empty.mkdir()
        sv = tm.train.Supervisor(logdir=str(empty), recovery_wait_secs=0.05,
                                 save_model_secs=0, save_summaries_secs=0)
        t0 = time.time()
        sess = sv.prepare_or_wait_for_session(wait_for_checkpoint=True, max_wait_secs=0.3)
        assert time.time() - t0 >= 0.3
        assert sess.run(gs3) == 0  # initialised
        sv.stop()
        sess.close()
