"""The ``tfmini inspect-checkpoint`` and ``tfmini graph`` commands."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from tests.conftest import GOLDEN_DIR
from tfmini import cli

IO = GOLDEN_DIR / "io"


def test_inspect_checkpoint_matches_tensorflow_listing():
    out = io.StringIO()
    cli.inspect_checkpoint(str(IO / "tfmini_ckpt" / "model.ckpt"), out=out)
    verdict = json.loads((IO / "tfmini_verdict.json").read_text())
    tf_lines = [line for line in verdict["inspect_checkpoint"] if "(DT_" in line]
    assert out.getvalue().splitlines() == tf_lines


def test_inspect_one_value():
    out = io.StringIO()
    cli.inspect_checkpoint(str(IO / "tfmini_ckpt" / "model.ckpt"), name="global_step", out=out)
    assert out.getvalue().splitlines() == ["global_step (DT_INT64) []", "17"]


def test_graph_command_writes_dot(tmp_path):
    src = tmp_path / "m.pb"
    shutil.copy(IO / "frozen_mlp.pb", src)
    assert cli.main(["graph", str(src)]) == 0
    assert (tmp_path / "m.dot").read_text().startswith("digraph")


def test_graph_svg_without_graphviz_names_it(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="Graphviz"):
        cli.main(["graph", str(IO / "frozen_mix.pbtxt"), "--format", "svg",
                  "-o", str(tmp_path / "x.svg")])


def test_cli_reports_a_bad_file_in_one_line(tmp_path, capsys):
    # A file that is not a graph, or a checkpoint that is not there: an error line and exit 1,
    # not a traceback.
    from tfmini import cli

    not_a_graph = tmp_path / "graph.dot"
    not_a_graph.write_text("digraph { a -> b }\n")
    assert cli.main(["graph", str(not_a_graph)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tfmini graph: error: ") and "graph.dot" in err
    assert "Traceback" not in err
    assert cli.main(["inspect-checkpoint", str(tmp_path / "missing")]) == 1
    assert "tfmini inspect-checkpoint: error: " in capsys.readouterr().err
