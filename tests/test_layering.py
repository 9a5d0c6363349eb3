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
    # custom_gradient defines gradient functions (RegisterGradient + override map).
    "custom_gradient": {"runtime", "train", "keras", "tpu"},
    # The top layers use the default session through core.context, never the runtime.
    "train": {"runtime", "keras", "tpu"},
    "contrib": {"runtime", "keras", "tpu"},
    "keras": {"runtime", "tpu"},
    "tpu": {"runtime", "keras"},
    "layers": {"runtime", "train", "keras", "tpu"},
    "rnn": {"runtime", "train", "keras", "tpu"},
    "losses": {"runtime", "train", "keras", "tpu", "layers", "metrics"},
    "metrics": {"runtime", "train", "keras", "tpu", "layers", "losses"},
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



# ------------------------------------------------------------------------------------------
# Op families (DESIGN.md, ops/): a family is a package (or a single module) under tfmini/ops;
# other code reaches it only through its front (``from tfmini.ops.nn import relu``,
# ``from tfmini.ops import nn``), never ``tfmini.ops.<family>.<module>``, and never a private
# name. ops/common holds shared helpers, not a family: its modules are imported directly.

SHARED = "common"


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    rel = path.relative_to(package.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _family_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["tfmini", "ops"]:
        return parts[2]
    return None


def _import_nodes(tree: ast.AST):
    """Every import statement, including function-local ones, except those under
    ``if TYPE_CHECKING:`` (annotations only: they never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(source: str, module: str, is_package: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for each import in ``source``."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names]
            continue
        target = node.module or ""
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, target] if target else base)
        found.append((target, [a.name for a in node.names], node.lineno))
    return sorted(found, key=lambda item: item[2])


def family_violations(source: str, module: str) -> list[str]:
    """What ``module`` (with this source) imports from another op family other than through
    its front, and the private names it takes from another family."""
    own = _family_of(module)
    bad = []
    for target, names, line in _imports(source, module, is_package=False):
        family = _family_of(target)
        if family is None or family == own:
            continue
        private = [n for n in names if n.startswith("_") and not n.endswith("__")]
        if private:
            bad.append(f"line {line}: private {private} from {target}")
        if family == SHARED or module == "tfmini.ops":
            continue  # shared helpers; the ops package itself imports the grad modules
        inside = [target] if target.count(".") > 2 else [
            f"{target}.{n}" for n in names if _is_module(f"{target}.{n}")
        ]
        if inside:
            bad.append(f"line {line}: {inside} inside family {family!r}; import its front")
    return bad


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_families_meet_only_through_their_fronts(path):
    bad = family_violations(path.read_text(), _module_name(path))
    assert not bad, f"{path.relative_to(PACKAGE)}: " + "; ".join(bad)


def test_the_family_rule_sees_violations():
    source = (
        "from tfmini.ops.math.elementwise import add\n"   # another family's module
        "from tfmini.ops.array import _private\n"          # a private name
        "from tfmini.ops.math import cast\n"                # the front: fine
        "from tfmini.ops.common.kernel_util import invalid_argument\n"  # shared: fine
        "from tfmini.ops.nn.nn_ops import relu\n"          # its own family: fine
        "from . import grad\n"                             # relative, own family: fine
        "from tfmini.ops.math import grad\n"                # another family's module
    )
    bad = family_violations(source, "tfmini.ops.nn.probe")
    assert len(bad) == 3
    assert "math.elementwise" in bad[0] and "_private" in bad[1] and "math.grad" in bad[2]


# ------------------------------------------------------------------------------------------
# No import cycle anywhere in tfmini: the graph of module -> imported tfmini module, from every
# import statement (function-local ones too), must be acyclic. ``from pkg import sub`` is an
# edge to the submodule ``pkg.sub``; a front that imports its parts is not in a cycle with them
# unless a part imports the front back.


def import_graph(paths: list[Path], package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = {_module_name(p, package): p for p in paths}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for me, path in modules.items():
        for target, names, _ in _imports(path.read_text(), me, path.name == "__init__.py"):
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            edges = subs if subs and len(subs) == len(names) else [*subs, target]
            graph[me] |= {e for e in edges if e in modules and e != me}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first == last), or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path, stack = [root], [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


def test_no_import_cycle_in_tfmini():
    cycle = find_cycle(import_graph(MODULES))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_sees_a_cycle(tmp_path):
    pkg = tmp_path / "tfmini"
    (pkg / "ops").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "ops/__init__.py": "from tfmini.ops import a\n",  # a front importing its part: fine
        "ops/a.py": "from tfmini.ops import b\n",
        "ops/b.py": "def f():\n    from tfmini.ops.c import g\n",  # function-local
        "ops/c.py": "import tfmini.ops.a\n",
        "ops/d.py": "if TYPE_CHECKING:\n    import tfmini.ops.d2\n",
        "ops/d2.py": "import tfmini.ops.d\n",  # d -> d2 only for annotations: no cycle
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    graph = import_graph(sorted(pkg.rglob("*.py")), pkg)
    assert find_cycle(graph) == ["tfmini.ops.a", "tfmini.ops.b", "tfmini.ops.c", "tfmini.ops.a"]
    graph["tfmini.ops.c"].clear()
    assert find_cycle(graph) is None


def test_ops_top_level_stays_small():
    # Issue 9: families are packages; ops/ holds at most 12 entries (families, common, front).
    entries = sorted(p.name for p in (PACKAGE / "ops").iterdir() if p.name != "__pycache__")
    assert len(entries) <= 12, f"tfmini/ops has {len(entries)} entries: {entries}"
