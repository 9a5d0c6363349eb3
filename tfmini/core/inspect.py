"""Graph inspection: a graph as a networkx MultiDiGraph, and as DOT text made through networkx.

``to_networkx`` is the data view (everything JSON-ready, for scripts and
analyses); ``to_dot`` is the picture (labels, dashed control edges) made
from it with ``networkx.drawing.nx_pydot``. See docs/inspection.md.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from tfmini.core.graph import Graph, Operation, Output, install_graph_service
from tfmini.core.opdef import attr_value_to_json

__all__ = ["to_dot", "to_networkx"]


def output_info(output: Output) -> dict[str, Any]:
    """``{"dtype": "float32", "shape": [None, 3]}`` (``shape`` None for an unknown rank)."""
    dims = output.shape.dims
    return {"dtype": output.dtype.name, "shape": None if dims is None else list(dims)}


def _node_data(op: Operation) -> dict[str, Any]:
    return {
        "type": op.type,
        "device": op.device,
        "attrs": {k: attr_value_to_json(v) for k, v in op.attrs.items()},
        "outputs": [output_info(o) for o in op.outputs],
        "defined_at": str(op.defined_at),
    }


def to_networkx(graph: Graph) -> nx.MultiDiGraph:
    """The graph as a ``networkx.MultiDiGraph``.

    One node per operation, keyed by the op's name, with attributes ``type``,
    ``device``, ``attrs`` (JSON-ready, as in ``as_graph_def``), ``outputs`` (a
    list of ``{"dtype", "shape"}``) and ``defined_at`` (``"file:line"``).
    One edge per data input, from producer to consumer, with ``kind="data"``,
    ``src_output``, ``dst_input`` and ``dtype``; one edge per control input
    with ``kind="control"``. Two ops joined by several inputs get several edges.

    Sub-graphs referenced by ``func`` attrs (cond branches, loop bodies) are
    not inlined: the attr holds ``{"func": name}``; the graph attribute
    ``functions`` lists the names registered on ``graph``, and each
    ``graph.functions[name]`` can itself be passed to ``to_networkx``.

    Args:
        graph: A Graph (or FuncGraph).

    Returns:
        A new MultiDiGraph; changing it does not change ``graph``.

    Example::

        nxg = g.to_networkx()
        nxg.nodes["layer/MatMul"]["outputs"]   # [{"dtype": "float32", "shape": [None, 2]}]
        [d["kind"] for _, _, d in nxg.in_edges("train", data=True)]
    """
    ops = graph.get_operations()
    nxg = nx.MultiDiGraph()
    nxg.graph["functions"] = sorted(graph.functions)
    for op in ops:
        nxg.add_node(op.name, **_node_data(op))
    for op in ops:
        for i, inp in enumerate(op.inputs):
            nxg.add_edge(
                inp.op.name,
                op.name,
                kind="data",
                src_output=inp.value_index,
                dst_input=i,
                dtype=inp.dtype.name,
            )
        for c in op.control_inputs:
            nxg.add_edge(c.name, op.name, kind="control")
    return nxg


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string whose content reads back as ``text``.

    pydot leaves an already double-quoted value alone, so quoting here keeps
    names with ``/``, ``:`` or ``-`` from being read as ports or operators,
    and attr text with quotes or backslashes from ending the string early.
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _label(*lines: str) -> str:
    # "\n" between lines is DOT's own line break escape, kept unescaped on purpose.
    return '"' + "\\n".join(_dot_quote(line)[1:-1] for line in lines) + '"'


def _tooltip(data: dict[str, Any]) -> str:
    parts = [f"{data['type']} defined at {data['defined_at']}"]
    if data["device"]:
        parts.append(f"device: {data['device']}")
    for k, v in data["attrs"].items():
        text = repr(v)
        parts.append(f"{k}: {text if len(text) <= 200 else text[:197] + '...'}")
    for i, o in enumerate(data["outputs"]):
        parts.append(f"output {i}: {o['dtype']} {o['shape']}")
    return _dot_quote("\n".join(parts))


def _shape_text(shape: list | None) -> str:
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def to_dot(graph: Graph) -> str:
    """DOT text of the graph, made from :func:`to_networkx` with ``nx_pydot.to_pydot``.

    Nodes are labelled ``"<name>\\n<type>"`` (attrs, device, outputs and
    location are in the tooltip); data edges are labelled with the tensor's
    dtype and shape (and ``:i`` for outputs other than the first); control
    edges are dashed. Every id and value is quoted and escaped, so names with
    ``/`` or ``:`` and attrs containing quotes read back with
    ``pydot.graph_from_dot_data``.

    Args:
        graph: A Graph (or FuncGraph).

    Returns:
        The DOT source (render it with Graphviz: ``dot -Tsvg``).
    """
    from networkx.drawing import nx_pydot

    data_graph = to_networkx(graph)
    outputs = {name: d["outputs"] for name, d in data_graph.nodes(data=True)}
    view = nx.MultiDiGraph()
    # Graph-level attributes go through networkx's "graph"/"node" conventions for to_pydot.
    view.graph["graph"] = {"rankdir": "TB"}
    view.graph["node"] = {"shape": "box", "style": "rounded", "fontname": "Helvetica"}
    view.graph["edge"] = {"fontname": "Helvetica", "fontsize": "10"}
    for name, d in data_graph.nodes(data=True):
        view.add_node(_dot_quote(name), label=_label(name, d["type"]), tooltip=_tooltip(d))
    for src, dst, d in data_graph.edges(data=True):
        if d["kind"] == "control":
            view.add_edge(_dot_quote(src), _dot_quote(dst), style="dashed", arrowhead="odot")
            continue
        i = d["src_output"]
        text = f"{d['dtype']}{_shape_text(outputs[src][i]['shape'])}"
        if i:
            text = f":{i} {text}"
        view.add_edge(_dot_quote(src), _dot_quote(dst), label=_dot_quote(text))
    return nx_pydot.to_pydot(view).to_string()


install_graph_service("to_networkx", to_networkx)  # Graph.to_networkx
install_graph_service("to_dot", to_dot)  # Graph.to_dot
