"""``tm.graph_util``: ``convert_variables_to_constants`` (freezing) and
``graph_def_to_proto`` (TensorFlow's ``tf.compat.v1.graph_util``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tfmini.core.dtypes import as_dtype
from tfmini.ops import io as io_family

graph_proto, protos = io_family.graph_proto, io_family.protos
graph_def_to_proto = io_family.graph_def_to_proto

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "graph_def_to_proto"]

_VARIABLE_OPS = ("VariableV2", "VarHandleOp")


def extract_sub_graph(graph_def: Any, dest_nodes: Iterable[str]) -> Any:
    """The nodes of ``graph_def`` (a GraphDef message) that ``dest_nodes`` depend on, in
    their original order."""
    by_name = {n.name: n for n in graph_def.node}
    wanted: set[str] = set()
    stack = list(dest_nodes)
    for name in stack:
        if name not in by_name:
            raise AssertionError(f"{name} is not in graph")
    while stack:
        name = stack.pop()
        if name in wanted:
            continue
        wanted.add(name)
        for i in by_name[name].input:
            stack.append(i.lstrip("^").split(":")[0])
    out = protos.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for n in graph_def.node:
        if n.name in wanted:
            out.node.add().CopyFrom(n)
    return out


def convert_variables_to_constants(sess: Any, input_graph_def: Any,
                                   output_node_names: Iterable[str],
                                   variable_names_whitelist: Any = None,
                                   variable_names_blacklist: Any = None) -> Any:
    """A frozen GraphDef: the sub-graph ``output_node_names`` need, with every variable
    replaced by a ``Const`` of its current value in ``sess`` and its reads by ``Identity``.

    ``input_graph_def`` is a GraphDef message or a tfmini Graph / dict.
    """
    if not isinstance(input_graph_def, protos.GraphDef):
        input_graph_def = graph_def_to_proto(input_graph_def)
    sub = extract_sub_graph(input_graph_def, output_node_names)
    names = [n.name for n in sub.node if n.op in _VARIABLE_OPS
             and (variable_names_whitelist is None or n.name in variable_names_whitelist)
             and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = {}
    for n in sub.node:
        if n.name in names:
            if n.op == "VarHandleOp":
                fetch = next((m.name + ":0" for m in sub.node if m.op == "ReadVariableOp"
                              and m.input and m.input[0] == n.name), None)
                values[n.name] = sess.run(fetch) if fetch else None
            else:
                values[n.name] = sess.run(n.name + ":0")
    out = protos.GraphDef()
    out.versions.CopyFrom(sub.versions)
    for n in sub.node:
        node = out.node.add()
        if n.name in values and values[n.name] is not None:
            value = np.asarray(values[n.name])
            node.name, node.op, node.device = n.name, "Const", n.device
            node.attr["dtype"].type = as_dtype(value.dtype).enum
            node.attr["value"].tensor.CopyFrom(graph_proto.array_to_tensor_proto(value))
        elif n.op == "ReadVariableOp" and n.input and n.input[0] in values:
            node.CopyFrom(n)
            node.op = "Identity"
            dtype = node.attr["dtype"].type
            del node.attr["dtype"]
            node.attr["T"].type = dtype
        else:
            node.CopyFrom(n)
    return out
