"""Real graph_defs and random mutations of them, for tests/test_fuzz.py and
tools/fuzz_graph_defs.py (the 10,000-mutation run)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import numpy as np

import tfmini as tm


def real_graph_defs() -> list[dict]:
    """graph_defs of small but real graphs: variables and gradients, cond and while_loop,
    split/unstack/concat, strings, a splat constant, an IdentityN (JSON round-tripped)."""
    defs = []
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, [None, 3], name="x")
        w = tm.Variable(np.ones((3, 2), np.float32), name="w")
        y = tm.nn.relu(tm.matmul(x, w) + 0.5)
        loss = tm.reduce_mean(tm.square(y))
        tm.gradients(loss, [w])
    defs.append(g.as_graph_def())
    g = tm.Graph()
    with g.as_default():
        p = tm.placeholder(tm.bool, [], name="p")
        a = tm.constant([1.0, 2.0, 3.0, 4.0], name="a")
        c = tm.cond(p, lambda: a * 2.0, lambda: a - 1.0)
        i = tm.constant(0)
        tm.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + c), [i, c])
    defs.append(g.as_graph_def())
    g = tm.Graph()
    with g.as_default():
        v = tm.constant(np.arange(12, dtype=np.float32).reshape(4, 3), name="v")
        parts = tm.split(v, 2, axis=0)
        rows = tm.unstack(v, num=4)
        tm.concat(parts + [tm.expand_dims(rows[0], 0)], axis=0, name="cat")
        tm.identity_n([v, rows[1]]) if hasattr(tm, "identity_n") else None
        tm.constant(np.array([b"ab", b"\xff\x00"], dtype=object), name="s")
        tm.constant(1.5, shape=[100, 100], name="splat")
        tm.gather(v, [0, 2], name="gath")
    defs.append(g.as_graph_def())
    return [json.loads(json.dumps(d)) for d in defs]


_JUNK: list[Any] = [
    None, True, 0, -1, 1, 2**31, 2**63, 2**64, -(2**63) - 1, 1.5, float("inf"), "nan", "", "x",
    "x:1", "^x", "x:99999999999", [], {}, [1, 2], {"type": "float32"}, {"type": "int32"},
    {"type": "resource"}, {"type": "nope"}, {"shape": [2**63]}, {"shape": None},
    {"shape": [-5]}, {"func": "nope"}, {"tensor": {"dtype": "float32", "shape": [10**12],
                                                   "values": [1.0]}},
    {"tensor": {"dtype": "int32", "shape": [2], "values": [1.5, 2]}},
    {"tensor": {"dtype": "string", "shape": [1], "values": [{"bytes": "%%"}]}},
    {"tensor": {"dtype": "float32", "shape": [3], "values": [1.0]}},
]


def _junk(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(_JUNK))  # a copy: later mutations must not change _JUNK


def _nodes(gd: dict) -> list[list]:
    out = [gd.get("node", [])]
    for fd in (gd.get("library") or {}).get("function", []):
        out.append(fd.get("node", []))
    return [n for n in out if isinstance(n, list) and n]


def mutate(gd: dict, rng: random.Random, steps: int = 1) -> dict:
    """A copy of ``gd`` with ``steps`` random structural mutations."""
    gd = copy.deepcopy(gd)
    for _ in range(steps):
        lists = _nodes(gd)
        if not lists:
            return gd
        nodes = rng.choice(lists)
        node = rng.choice(nodes)
        if not isinstance(node, dict):
            continue
        kind = rng.randrange(12)
        names = [n.get("name") for n in nodes if isinstance(n, dict)]
        if kind == 0:  # drop a field
            if node:
                node.pop(rng.choice(list(node)), None)
        elif kind == 1:  # a field becomes junk
            node[rng.choice(["name", "op", "input", "attr", "device"])] = _junk(rng)
        elif kind == 2 and isinstance(node.get("attr"), dict) and node["attr"]:
            node["attr"][rng.choice(list(node["attr"]))] = _junk(rng)
        elif kind == 3 and isinstance(node.get("attr"), dict):  # an int attr made huge
            for k, v in node["attr"].items():
                if isinstance(v, int) and not isinstance(v, bool):
                    node["attr"][k] = rng.choice([0, -1, 10**6, 10**9, 2**62, 2**63])
        elif kind == 4 and isinstance(node.get("input"), list) and node["input"]:
            i = rng.randrange(len(node["input"]))
            node["input"][i] = rng.choice(
                [f"{rng.choice(names)}:{rng.randrange(5)}", f"^{rng.choice(names)}",
                 _junk(rng)])
        elif kind == 5:  # inputs as a string
            if isinstance(node.get("input"), list):
                node["input"] = "".join(str(s) for s in node["input"])
        elif kind == 6:  # change the op type
            node["op"] = rng.choice(["Identity", "AddV2", "Split", "Unpack", "Const", "NoOp",
                                     "Placeholder", "Fill", "ConcatV2", "StatelessIf", "Nope"])
        elif kind == 7:  # duplicate a node
            nodes.append(copy.deepcopy(node))
        elif kind == 8:  # delete a node
            nodes.remove(node)
        elif kind == 9 and isinstance(node.get("attr"), dict):  # deep nesting
            deep: Any = 1
            for _ in range(rng.choice([10, 100, 5000])):
                deep = [deep]
            keys = list(node["attr"]) or ["T"]
            node["attr"]["zz" if rng.random() < 0.3 else rng.choice(keys)] = deep
            break  # the last mutation: copying a value this deep would itself recurse
        elif kind == 10 and isinstance(node.get("attr"), dict):  # tensor values tampered
            for v in node["attr"].values():
                if isinstance(v, dict) and isinstance(v.get("tensor"), dict):
                    t = v["tensor"]
                    t[rng.choice(["dtype", "shape", "values"])] = copy.deepcopy(
                        rng.choice([*_JUNK, [2**40], ["a"], [10**9, 10**9]]))
        else:  # swap the dtype attr of a Const
            attr = node.get("attr")
            if isinstance(attr, dict) and "dtype" in attr:
                attr["dtype"] = rng.choice([{"type": "int32"}, {"type": "resource"},
                                            {"type": "string"}, {"type": "bool"}])
    return gd


def node_names(gd: Any) -> set[str]:
    names: set[str] = set()
    for nodes in _nodes(gd) if isinstance(gd, dict) else []:
        for n in nodes:
            if isinstance(n, dict) and isinstance(n.get("name"), str):
                names.add(n["name"])
    return names


def import_or_fail_clearly(gd: dict) -> BaseException | None:
    """Imports ``gd`` into a fresh graph. Returns None on success or the (clear) exception.

    Raises:
        AssertionError: the failure is not a clear one (wrong class, no node named, or the
            graph was left changed).
    """
    g = tm.Graph()
    with g.as_default():
        try:
            tm.import_graph_def(gd, name="")
        except (ValueError, TypeError, tm.errors.OpError) as e:
            assert g.get_operations() == [], "a failed import left ops behind"
            text = str(e)
            named = "graph_def" in text or "function '" in text or any(
                f"'{n}'" in text or f"node {n}" in text for n in node_names(gd))
            assert named, f"{type(e).__name__} names no node: {text[:300]}"
            return e
    return None
