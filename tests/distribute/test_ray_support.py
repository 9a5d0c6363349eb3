"""Without Ray, tfmini imports and a cluster request says what to install."""

from __future__ import annotations

import sys

import pytest

from tfmini.distribute import ray_support


def test_missing_ray_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'tfmini\[dist\]'"):
        ray_support.import_ray()
    with pytest.raises(ImportError, match="dist"):
        ray_support.ensure_ray()


def test_tfmini_does_not_import_ray_until_asked():
    import subprocess

    code = "import sys, tfmini; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "False"
