"""examples/async_workers.py runs: threads sharing one Session train through
DropStaleGradientOptimizer; every attempt is applied or dropped, and the loss falls."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "async_workers.py"


def test_async_workers_example_runs_as_a_script(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "4", "60", "1"])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("4 workers x 60 steps, staleness bound 1")
    assert out[1].startswith("updates applied: ") and out[1].endswith("(of 240)")
    assert out[2].startswith("loss: ")


def test_async_workers_example_result():
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(num_workers=3, steps=80, staleness=0, verbose=False)
    assert result["applied"] + result["dropped"] == result["attempted"] == 240
    assert result["applied"] > 0
    assert result["final_loss"] < result["initial_loss"] / 10
    assert result["seconds"] < 10
