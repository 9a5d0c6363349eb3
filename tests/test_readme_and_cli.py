"""The README's example and the ``tfmini`` command work as documented."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pydot

from tfmini import cli

ROOT = Path(__file__).resolve().parents[1]


def test_readme_example_runs(capsys):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has a Python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "'loss'" in out and "'double'" in out and "digraph" in out


def test_demo_trains_and_writes_dot(tmp_path):
    out = io.StringIO()
    dot_path = tmp_path / "g.dot"
    final = cli.demo(steps=200, dot_path=str(dot_path), out=out, log_dir=None)
    text = out.getvalue()
    first = float(re.search(r"step\s+0\s+loss ([0-9.]+)", text).group(1))
    assert final < first / 5, "the loss falls"
    assert "final loss" in text
    graphs = pydot.graph_from_dot_data(dot_path.read_text())
    names = {n.get_name().strip('"') for n in graphs[0].get_nodes()}
    assert "model/w1" in names and "train/step" in names


def test_demo_writes_an_event_file_and_a_checkpoint(tmp_path):
    import numpy as np

    import tfmini as tm
    from tfmini.ops.io import protos

    out = io.StringIO()
    log_dir = tmp_path / "logs"
    final = cli.demo(steps=30, dot_path=None, out=out, log_dir=str(log_dir))
    text = out.getvalue()
    ckpt = str(log_dir / "model.ckpt-30")
    assert f"tensorboard --logdir {log_dir}" in text
    assert f"tfmini inspect-checkpoint {ckpt}" in text
    assert tm.train.latest_checkpoint(str(log_dir)) == ckpt
    assert dict(tm.train.list_variables(ckpt)) == {
        "model/w1": [8, 16], "model/b1": [16], "model/w2": [16, 1], "model/b2": [1]}
    # The printed losses are the event file's scalars; the graph has the name scopes.
    printed = {int(m.group(1)): float(m.group(2))
               for m in re.finditer(r"step\s+(\d+)\s+loss ([0-9.]+)", text)}
    events = sorted(log_dir.glob("events.out.tfevents.*"))
    scalars, graph_nodes = {}, set()
    for event in tm.summary.summary_iterator(str(events[-1])):
        if event.HasField("graph_def"):
            graph_nodes = {n.name for n in protos.GraphDef.FromString(event.graph_def).node}
        for value in event.summary.value:
            assert value.tag == "training_loss"
            scalars[event.step] = value.simple_value
    assert sorted(scalars) == list(range(30))
    for step, loss in printed.items():
        assert abs(scalars[step] - loss) < 1e-5
    assert {"model/w1", "loss/mse", "train/step"} <= graph_nodes
    assert np.isfinite(final)


def test_demo_command_line_takes_logdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo", "--steps", "5", "--logdir", "runs"]) == 0
    assert (tmp_path / "runs" / "model.ckpt-5.index").exists()
    assert list((tmp_path / "runs").glob("events.out.tfevents.*"))
    assert cli.main(["demo", "--steps", "5", "--logdir", "", "--dot", "other.dot"]) == 0
    assert (tmp_path / "other.dot").exists()
    assert len(list((tmp_path / "runs").iterdir())) == 5  # no second event file or checkpoint


def test_python_dash_m_tfmini_lists_ops():
    result = subprocess.run([sys.executable, "-m", "tfmini", "ops"], capture_output=True,
                            text=True, check=True, cwd=ROOT)
    assert re.search(r"^AddV2\(x: T, y: T\) -> \(z: T\)$", result.stdout, re.M)


def test_tf2_switches_are_accepted_as_no_ops():
    # A ported script keeps `tf.disable_v2_behavior()` after swapping the import.
    import tfmini as tf

    tf.disable_v2_behavior()
    tf.disable_eager_execution()
    tf.enable_resource_variables()
    assert tf.executing_eagerly() is False
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0)
    assert v.handle.dtype == tf.resource  # still resource variables
