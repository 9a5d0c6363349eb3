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
    final = cli.demo(steps=200, dot_path=str(dot_path), out=out)
    text = out.getvalue()
    first = float(re.search(r"step\s+0\s+loss ([0-9.]+)", text).group(1))
    assert final < first / 5, "the loss falls"
    assert "final loss" in text
    graphs = pydot.graph_from_dot_data(dot_path.read_text())
    names = {n.get_name().strip('"') for n in graphs[0].get_nodes()}
    assert "model/w1" in names and "train/step" in names


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
