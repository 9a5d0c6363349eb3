"""Screenshots of TensorBoard showing a tfmini run: docs/tensorboard_scalars.png and
docs/tensorboard_graph.png (shown in docs/summaries.md).

    .venv/bin/python tools/screenshot_tensorboard.py [--out docs] [--keep-logdir DIR]

Needs TensorBoard (``pip install -e ".[tensorboard]"``) and Chromium (Debian:
``apt-get install -y chromium``). Steps: ``tfmini demo`` trains into a temporary log
directory (event file with the graph and the loss per step, checkpoint); TensorBoard serves it
on 127.0.0.1 at a free port; a bounded poll waits until its data API lists the run's scalars
and graph; headless Chromium screenshots ``#scalars`` and ``#graphs`` (the pages are rendered
by JavaScript: ``--virtual-time-budget`` lets them load); TensorBoard is stopped by its PID.
The PNGs are re-encoded with a small palette (Pillow, when installed) to keep them small.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as r:  # noqa: S310 (127.0.0.1 only)
        return json.loads(r.read().decode())


def _wait_for_data(base: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    """Polls TensorBoard's data API until the run's scalars and graph are loaded."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"tensorboard exited early with status {proc.returncode}")
        try:
            tags = _get_json(f"{base}/data/plugin/scalars/tags")
            runs = _get_json(f"{base}/data/plugin/graphs/info")
            if any("training_loss" in t for t in tags.values()) and runs:
                return
            last = (tags, runs)
        except OSError as e:
            last = e
        time.sleep(1.0)
    raise SystemExit(f"tensorboard did not serve the run within {timeout:.0f} s (last: {last})")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    raise SystemExit("no Chromium found: apt-get install -y chromium")


def _screenshot(exe: str, url: str, path: str, budget_ms: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tfmini_chromium_") as profile:
        subprocess.run(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", f"--screenshot={path}", "--window-size=1400,900",
             f"--virtual-time-budget={budget_ms}", url],
            check=True, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _shrink(path: str) -> None:
    try:
        from PIL import Image
    except ImportError:  # the PNG stays as Chromium wrote it
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=64)
    buf = io.BytesIO()
    small.save(buf, format="PNG", optimize=True)
    if buf.tell() < os.path.getsize(path):
        with open(path, "wb") as f:
            f.write(buf.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"))
    parser.add_argument("--keep-logdir", help="train into this directory and keep it")
    parser.add_argument("--budget-ms", type=int, default=10000)
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    from tfmini import cli

    logdir = args.keep_logdir or tempfile.mkdtemp(prefix="tfmini_tb_")
    cli.demo(steps=300, dot_path=None, log_dir=logdir, out=io.StringIO())
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", logdir, "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_data(base, proc)
        exe = _chromium()
        os.makedirs(args.out, exist_ok=True)
        for page, name in (("scalars", "tensorboard_scalars.png"),
                           ("graphs", "tensorboard_graph.png")):
            path = os.path.join(args.out, name)
            _screenshot(exe, f"{base}/#{page}", path, args.budget_ms)
            _shrink(path)
            print(f"{path}: {os.path.getsize(path) // 1024} KB")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not args.keep_logdir:
            shutil.rmtree(logdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
