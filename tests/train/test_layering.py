"""tm.train and tm.contrib sit above tfmini.gradients: they never import the runtime (the
default session is in tfmini.core.context) nor tm.keras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_layering import PACKAGE, _imported_layers

FORBIDDEN = {"runtime", "keras", "tpu"}
MODULES = sorted(p for sub in ("train", "contrib") for p in (PACKAGE / sub).rglob("*.py"))


def test_there_are_modules_to_check():
    names = {p.name for p in MODULES}
    assert {"optimizer.py", "drop_stale.py", "__init__.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_train_imports_no_higher_layer(path: Path):
    bad = [(mod, line) for mod, line in _imported_layers(path) if mod in FORBIDDEN]
    assert not bad, f"{path.relative_to(PACKAGE)} imports {bad}"
