"""Graph inspection: the networkx view and the DOT text made from it."""

from __future__ import annotations

import json
import re

import networkx as nx
import numpy as np
import pydot
import pytest

import tfmini as tm
from tfmini.core.registry import register_op, unregister

# pydot's parser calls pyparsing's deprecated camelCase API; that noise is not ours.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")


@pytest.fixture
def small_graph():
    """x, c -> AddV2 -> train (control); IdentityN with two outputs feeding an Identity."""
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (None, 3), name="x")
        c = tm.constant(np.arange(3, dtype=np.float32).reshape(1, 3), name="c")
        y = tm.raw_ops.AddV2(x=x, y=c, name="y")
        with tm.control_dependencies([y]):
            train = tm.no_op(name="train")
        pair = tm.identity_n([x, c], name="pair")
        second = tm.identity(pair[1], name="second")
    return g, {"x": x, "c": c, "y": y, "train": train, "pair": pair, "second": second}


def _edges(nxg, src, dst):
    return [d for u, v, d in nxg.edges(data=True) if (u, v) == (src, dst)]


def test_one_node_per_op_keyed_by_name(small_graph):
    g, _ = small_graph
    nxg = g.to_networkx()
    assert isinstance(nxg, nx.MultiDiGraph)
    assert list(nxg.nodes) == [op.name for op in g.get_operations()]
    assert nxg.nodes["y"]["type"] == "AddV2"
    assert nxg.nodes["train"]["type"] == "NoOp"


def test_node_attributes(small_graph):
    g, t = small_graph
    nxg = g.to_networkx()
    x = nxg.nodes["x"]
    assert x["device"] == ""
    assert x["attrs"] == {"dtype": {"type": "float32"}, "shape": {"shape": [None, 3]}}
    assert x["outputs"] == [{"dtype": "float32", "shape": [None, 3]}]
    # defined_at is the user's file:line, not a tfmini frame
    assert x["defined_at"] == str(t["x"].op.defined_at)
    assert x["defined_at"].startswith("test_inspect.py:")
    c = nxg.nodes["c"]
    assert c["attrs"]["value"] == {
        "tensor": {"dtype": "float32", "shape": [1, 3], "values": [0.0, 1.0, 2.0]}
    }
    assert nxg.nodes["train"]["outputs"] == []
    assert nxg.nodes["pair"]["outputs"] == [
        {"dtype": "float32", "shape": [None, 3]},
        {"dtype": "float32", "shape": [1, 3]},
    ]
    assert nxg.nodes["pair"]["attrs"]["T"] == [{"type": "float32"}, {"type": "float32"}]
    # Everything is JSON-ready, as promised for scripts that dump the node data.
    json.dumps(dict(nxg.nodes(data=True)), allow_nan=False)


def test_unknown_rank_shape_is_none():
    g = tm.Graph()
    with g.as_default():
        tm.placeholder(tm.int32, name="p")
    nxg = g.to_networkx()
    assert nxg.nodes["p"]["outputs"] == [{"dtype": "int32", "shape": None}]
    assert nxg.nodes["p"]["attrs"]["shape"] == {"shape": None}


def test_data_edges_carry_indices_and_dtype(small_graph):
    g, _ = small_graph
    nxg = g.to_networkx()
    assert _edges(nxg, "x", "y") == [
        {"kind": "data", "src_output": 0, "dst_input": 0, "dtype": "float32"}
    ]
    assert _edges(nxg, "c", "y") == [
        {"kind": "data", "src_output": 0, "dst_input": 1, "dtype": "float32"}
    ]
    # The second output of a multi-output op: src_output says which.
    assert _edges(nxg, "pair", "second") == [
        {"kind": "data", "src_output": 1, "dst_input": 0, "dtype": "float32"}
    ]


def test_control_edges(small_graph):
    g, _ = small_graph
    nxg = g.to_networkx()
    assert _edges(nxg, "y", "train") == [{"kind": "control"}]
    kinds = sorted(d["kind"] for _, _, d in nxg.edges(data=True))
    assert kinds.count("control") == 1
    # one edge per data input over the whole graph
    assert kinds.count("data") == sum(len(op.inputs) for op in g.get_operations())


def test_parallel_edges_for_the_same_tensor_used_twice():
    g = tm.Graph()
    with g.as_default():
        x = tm.placeholder(tm.float32, (2,), name="x")
        tm.raw_ops.AddV2(x=x, y=x, name="double")
    nxg = g.to_networkx()
    edges = sorted(_edges(nxg, "x", "double"), key=lambda d: d["dst_input"])
    assert [d["dst_input"] for d in edges] == [0, 1]
    assert nxg.number_of_edges("x", "double") == 2


def test_networkx_view_is_a_copy(small_graph):
    g, _ = small_graph
    nxg = g.to_networkx()
    nxg.remove_node("y")
    assert "y" in g
    assert "y" in g.to_networkx()


def test_topological_sort_matches_dependencies(small_graph):
    g, _ = small_graph
    order = list(nx.topological_sort(g.to_networkx()))
    assert order.index("x") < order.index("y") < order.index("train")
    assert order.index("pair") < order.index("second")


def test_func_attrs_are_references():
    from tfmini.core.function import FuncGraph

    register_op("_InspectCall", outputs=["out: float"], attrs=["f: func"],
                shape_fn=lambda ic: [()])(lambda *, f: np.float32(0))
    try:
        g = tm.Graph()
        fn = FuncGraph(name="body_fn", outer_graph=g)
        with fn.as_default():
            tm.identity(fn.add_argument(tm.float32, ()), name="inner")
        g._register_function(fn)
        with g.as_default():
            tm.raw_ops._InspectCall(f=fn, name="call")
        nxg = g.to_networkx()
        assert nxg.nodes["call"]["attrs"] == {"f": {"func": "body_fn"}}
        assert nxg.graph["functions"] == ["body_fn"]
        assert "inner" not in nxg  # not inlined
        assert "inner" in fn.to_networkx()
    finally:
        unregister("_InspectCall")


# ----------------------------------------------------------------------------------------
# DOT


def _parse(dot: str) -> pydot.Dot:
    graphs = pydot.graph_from_dot_data(dot)
    assert graphs is not None and len(graphs) == 1
    return graphs[0]


def _unquote(s: str) -> str:
    assert s.startswith('"') and s.endswith('"'), s
    return s[1:-1]


def test_dot_parses_back_with_labels_and_dashed_control(small_graph):
    g, _ = small_graph
    dot = g.to_dot()
    assert isinstance(dot, str) and dot.lstrip().startswith("digraph")
    p = _parse(dot)
    labels = {_unquote(n.get_name()): n.get("label") for n in p.get_nodes() if n.get("label")}
    assert set(labels) == {op.name for op in g.get_operations()}
    assert labels["y"] == '"y\\nAddV2"'
    assert labels["train"] == '"train\\nNoOp"'
    edges = [(_unquote(e.get_source()), _unquote(e.get_destination()), e) for e in p.get_edges()]
    assert len(edges) == g.to_networkx().number_of_edges()
    control = [e for s, d, e in edges if (s, d) == ("y", "train")]
    assert [e.get("style") for e in control] == ["dashed"]
    data = [e for s, d, e in edges if (s, d) == ("x", "y")]
    assert data[0].get("style") is None
    assert "float32[?,3]" in data[0].get("label")
    second = [e for s, d, e in edges if (s, d) == ("pair", "second")]
    assert ":1" in second[0].get("label")


def test_dot_quotes_names_and_attr_text():
    """Names with '/', '-', '.', '>' and attrs holding quotes and backslashes survive."""
    register_op(
        "_InspectEcho",
        inputs=["x: T"],
        outputs=["y: T"],
        attrs=["T: type", "message: string = ''"],
        shape_fn=lambda ic: [ic.input_shape(0)],
    )(lambda x: x)
    try:
        g = tm.Graph()
        tricky = 'say "hi" \\ then {"json": [1, 2]}: done\\'
        with g.as_default():
            with tm.name_scope("outer-1.5"):
                x = tm.placeholder(tm.float32, (), name="in>put")
                tm.raw_ops._InspectEcho(x=x, message=tricky, name="echo")
        dot = g.to_dot()
        p = _parse(dot)
        names = {_unquote(n.get_name()) for n in p.get_nodes() if n.get("label")}
        assert names == {"outer-1.5/in>put", "outer-1.5/echo"}
        (edge,) = p.get_edges()
        assert _unquote(edge.get_source()) == "outer-1.5/in>put"
        assert _unquote(edge.get_destination()) == "outer-1.5/echo"
        echo = next(n for n in p.get_nodes() if n.get_name() == '"outer-1.5/echo"')
        tooltip = _unquote(echo.get("tooltip"))
        # pydot hands back the escaped text; undoing DOT's escapes gives the attr's repr.
        unescaped = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), tooltip)
        assert repr(tricky) in unescaped
    finally:
        unregister("_InspectEcho")


def test_dot_of_empty_graph():
    p = _parse(tm.Graph().to_dot())
    assert [n for n in p.get_nodes() if n.get("label")] == []


def test_inspection_doc_runs(monkeypatch):
    """The python blocks of docs/inspection.md run, in order (so the doc cannot rot)."""
    from pathlib import Path

    from tfmini.core import serialize

    if not hasattr(tm, "import_graph_def"):
        # The public name is wired in tfmini/__init__.py; until then the doc uses the function.
        monkeypatch.setattr(tm, "import_graph_def", serialize.import_graph_def, raising=False)
    doc = Path(__file__).resolve().parents[2] / "docs" / "inspection.md"
    text = doc.read_text(encoding="utf-8")
    namespace: dict = {}
    blocks = list(re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M))
    assert len(blocks) == 4
    for m in blocks:
        offset = text.count("\n", 0, m.start(1))
        exec(compile("\n" * offset + m.group(1), str(doc), "exec"), namespace)
    assert namespace["nxg"].nodes["y"]["outputs"] == [{"dtype": "float32", "shape": [None, 3]}]
    assert namespace["y2"].name == "import/y:0"
    assert namespace["done2"].name == "import/done"
    assert namespace["done2"].control_inputs == (namespace["y2"].op,)
    shown = re.search(r"^```text\n(.*?)^```", text[blocks[3].end():], re.S | re.M).group(1)
    assert namespace["source"] == shown  # the plan_source output the doc shows
