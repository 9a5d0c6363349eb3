"""examples/recommender.py trains with small sizes: the loss falls and throughput is reported."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "recommender.py"


def test_recommender_loss_falls(capsys):
    spec = importlib.util.spec_from_file_location("recommender_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.main(["--users", "200", "--items", "100", "--batch", "64", "--steps", "150",
                       "--report-every", "50", "--interactions", "5000", "--seed", "0"])
    losses = out["losses"]
    assert len(losses) == 3
    # Starts near log(2) (an untrained logistic model) and must learn the synthetic clicks.
    assert 0.6 < losses[0] < 0.72
    assert losses[-1] < losses[0] - 0.15
    assert out["lookups_per_second"] > 0
    printed = capsys.readouterr().out
    assert "step   150  loss" in printed and "lookups/s" in printed
