"""tm.client.timeline.tracing() and ``tfmini trace``: every run traced without touching the
code that calls Session.run."""

from __future__ import annotations

import io
import json
import threading

import numpy as np
import pytest

import tfmini as tm
from tfmini import cli
from tfmini.client import timeline
from tfmini.runtime import session as session_module


def _graph():
    g = tm.Graph()
    with g.as_default():
        with tm.name_scope("layer"):
            x = tm.placeholder(tm.float32, [None, 3], name="x")
            y = tm.reduce_sum(tm.nn.relu(x * 2.0), name="y")
    return g, x, y


def _op_events(path):
    trace = json.loads(open(path).read())
    return [e for e in trace["traceEvents"] if e["ph"] == "X"]


def test_tracing_writes_one_trace_per_run_and_stops_after(tmp_path):
    g, x, y = _graph()
    feed = np.array([[1, -2, 3]], np.float32)
    with tm.Session(graph=g) as sess:
        step = sess.make_callable(y, feed_list=[x])
        with timeline.tracing(str(tmp_path / "t")) as tracer:
            assert sess.run(y, {x: feed}) == 8.0
            assert step(feed) == 8.0  # callables are traced too
        assert sess.run(y, {x: feed}) == 8.0  # after the block: not traced
    assert tracer.runs == 2
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["run-00001.json",
                                                                  "run-00002.json"]
    events = _op_events(tracer.files[0])
    by_name = {e["args"]["name"]: e for e in events}
    assert by_name["layer/mul"]["name"] == "Mul"
    assert by_name["layer/Relu"]["args"]["output0"] == {"shape": [1, 3], "bytes": 12}
    assert all(e["dur"] >= 0 for e in events)
    assert session_module._run_tracer is None


def test_merged_trace_holds_every_run_in_order(tmp_path):
    g, x, y = _graph()
    path = tmp_path / "all.json"
    with tm.Session(graph=g) as sess:
        with timeline.tracing(str(path), merge=True) as tracer:
            for _ in range(3):
                sess.run(y, {x: np.ones((2, 3), np.float32)})
    assert tracer.runs == 3 and tracer.files == [str(path)]
    muls = sorted(e["ts"] for e in _op_events(path) if e["args"]["name"] == "layer/mul")
    assert len(muls) == 3 and muls[0] < muls[1] < muls[2]


def test_a_run_asking_for_its_own_trace_still_gets_it(tmp_path):
    g, x, y = _graph()
    meta = tm.RunMetadata()
    with tm.Session(graph=g) as sess, timeline.tracing(str(tmp_path)) as tracer:
        sess.run(y, {x: np.ones((1, 3), np.float32)},
                 options=tm.RunOptions(trace_level=tm.RunOptions.FULL_TRACE, timeout_in_ms=5000),
                 run_metadata=meta)
    names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert "layer/y" in names and tracer.runs == 1


def test_failed_runs_are_not_traced_and_leave_the_tracer_usable(tmp_path):
    g, x, y = _graph()
    with tm.Session(graph=g) as sess, timeline.tracing(str(tmp_path)) as tracer:
        with pytest.raises(ValueError):
            sess.run(y, {x: np.ones((1, 4), np.float32)})
        sess.run(y, {x: np.ones((1, 3), np.float32)})
    assert tracer.runs == 1


def test_runs_from_several_threads(tmp_path):
    g, x, y = _graph()
    with tm.Session(graph=g) as sess, timeline.tracing(str(tmp_path)) as tracer:
        def work():
            for _ in range(5):
                sess.run(y, {x: np.ones((1, 3), np.float32)})
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert tracer.runs == 20 and len(set(tracer.files)) == 20


SCRIPT = """
import sys
import numpy as np
import tfmini as tm
g = tm.Graph()
with g.as_default():
    x = tm.placeholder(tm.float32, [2], name="x")
    y = tm.square(x, name="sq")
with tm.Session(graph=g) as sess:
    for _ in range(int(sys.argv[1])):
        sess.run(y, {x: np.ones(2, np.float32)})
sys.exit(int(sys.argv[2]))
"""


def test_trace_command_runs_a_script_with_its_arguments(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    out = io.StringIO()
    status = cli.trace_script(str(script), ["3", "0"], str(tmp_path / "traces"), out=out)
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "traces").iterdir()) == [
        "run-00001.json", "run-00002.json", "run-00003.json"]
    assert {e["args"]["name"] for e in _op_events(tmp_path / "traces" / "run-00003.json")} \
        >= {"sq"}
    assert "3 Session.run calls traced" in out.getvalue()


def test_trace_command_merged_and_exit_status(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    merged = tmp_path / "one.json"
    assert cli.main(["trace", "--merge", "--out", str(merged), str(script), "2", "3"]) == 3
    assert len([e for e in _op_events(merged) if e["args"]["name"] == "sq"]) == 2
    with pytest.raises(SystemExit, match="no such script"):
        cli.main(["trace", str(tmp_path / "missing.py")])
