"""The layers of DESIGN.md import one way only; this test parses every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tfmini"

# For each layer: the tfmini layers it must never import (directly or lazily).
FORBIDDEN = {
    "errors": {"core", "ops", "runtime", "gradients", "train", "keras", "tpu"},
    "core": {"ops", "runtime", "gradients", "train", "keras", "tpu"},
    "ops": {"runtime", "gradients", "train", "keras", "tpu"},
    "runtime": {"gradients", "train", "keras", "tpu"},
    "gradients": {"runtime", "train", "keras", "tpu"},
    # The If/While gradients call tm.gradients, so they sit at the gradients layer.
    "control_flow_grad": {"runtime", "train", "keras", "tpu"},
    # The top layers use the default session through core.context, never the runtime.
    "train": {"runtime", "keras", "tpu"},
    "contrib": {"runtime", "keras", "tpu"},
    "keras": {"runtime", "tpu"},
    "tpu": {"runtime", "keras"},
}


def _layer_of(module_path: Path) -> str | None:
    rel = module_path.relative_to(PACKAGE)
    if len(rel.parts) == 1:
        stem = rel.stem
        return stem if stem in FORBIDDEN else None
    return rel.parts[0]


def _imported_layers(path: Path) -> set[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "tfmini":
                names += [f"tfmini.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "tfmini" and len(parts) > 1:
                found.add((parts[1], node.lineno))
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_layer_reaches_up(path):
    layer = _layer_of(path)
    if layer is None or layer not in FORBIDDEN:
        return
    bad = [(mod, line) for mod, line in _imported_layers(path) if mod in FORBIDDEN[layer]]
    assert not bad, f"{path.relative_to(PACKAGE)} ({layer}) imports {bad}: layers import one way"


def test_the_parser_sees_violations(tmp_path):
    # Guard against a vacuous test: a module that reaches up must be reported.
    bad = tmp_path / "bad.py"
    bad.write_text("import tfmini.runtime.session\nfrom tfmini.ops.math import operators as math\n")
    assert {m for m, _ in _imported_layers(bad)} == {"runtime", "ops"}


def test_every_layer_has_modules():
    layers = {_layer_of(p) for p in MODULES}
    assert {"core", "ops", "runtime", "errors"} <= layers
