"""``tfmini dist-demo`` in a subprocess: it starts its own Ray on 127.0.0.1 (this package's
tests share another Ray instance, and Ray cannot start twice in one process), trains, and
ends every process it started; the test ends the subprocess by PID if it overruns.

Skipped without Ray (the ``dist`` extra).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

pytest.importorskip("ray")

from tests.helpers import wait_for  # noqa: E402


def _run_demo(tmp_path, *args: str) -> str:
    env = {**os.environ, "HOME": str(tmp_path), "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "tfmini", "dist-demo", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # overran: end it and what it started, by its PID
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out
    return out


def _actor_pids(out: str) -> list[int]:
    found = re.search(r"Ray actor processes \[([\d, ]+)\]", out)
    assert found, out
    return [int(p) for p in found.group(1).split(",")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a killed process whose parent has not reaped it yet is a zombie: it has ended
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except OSError:
        return False


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_dist_demo_trains_and_ends_its_processes(tmp_path, mode):
    out = _run_demo(tmp_path, "--workers", "2", "--ps", "1", "--mode", mode, "--steps", "4")
    pids = _actor_pids(out)
    assert len(pids) == 3 and os.getpid() not in pids
    # The demo kills its actors by PID as it exits; their ending is asynchronous, so wait
    # (bounded) instead of checking at once.
    wait_for(lambda: not any(_alive(p) for p in pids), timeout=15.0,
             message=lambda: f"actor processes still alive: {[p for p in pids if _alive(p)]}")
    losses = [float(v) for v in re.findall(r"^\s+\d+\s+([\d.]+)$", out, re.M)]
    assert len(losses) == 4 and losses[-1] < losses[0]
    got = re.search(r"gradients: (\d+) computed, (\d+) accepted, (\d+) dropped", out)
    computed, accepted, dropped = map(int, got.groups())
    applied = int(re.search(r"global steps applied: (\d+)", out).group(1))
    assert computed == 8
    if mode == "sync":
        # Lockstep: the first step's update follows its tokens, the last one's is pending.
        assert dropped == 0 and applied == 3 and accepted == 2 * applied
        assert "2 aggregated but not yet applied" in out
    else:
        assert accepted + dropped == computed and accepted == applied
    assert re.search(r"[\d.]+ worker steps/s", out)


def test_dist_demo_refuses_bad_counts():
    from tfmini.distribute.demo import dist_demo

    with pytest.raises(ValueError, match="at least 1, got 0, 1 and 4"):
        dist_demo(workers=0, ps=1, steps=4)
    with pytest.raises(ValueError, match="sync or async, got 'both'"):
        dist_demo(mode="both")
