"""Reading and writing TensorFlow's GraphDef files: ``write_graph``, ``read_graph_def``,
``graph_def_to_proto`` and an ``import_graph_def`` that takes protobuf as well as tfmini's
JSON dict."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import text_format

from tfmini import errors
from tfmini.core import registry
from tfmini.core.graph import Graph
from tfmini.core.serialize import import_graph_def as _import_dict
from tfmini.ops.io import protos
from tfmini.ops.io.graph_proto import (
    graph_to_proto,
    parse_graph_def,
    proto_to_dict,
    unknown_op_error,
)

# Only import_graph_def reaches tm.*; tm.io and tm.train hold the others by name.
__all__ = ["import_graph_def"]

# A GraphDef file larger than this is refused before it is read (frozen graphs hold weights,
# so the bound is generous; protobuf itself refuses messages over 2 GiB).
MAX_GRAPH_FILE_BYTES = 2**31 - 1


def _as_proto(graph_def: Any) -> Any:
    """Our GraphDef message for a GraphDef of any protobuf class (e.g. TensorFlow's)."""
    if isinstance(graph_def, protos.GraphDef):
        return graph_def
    return parse_graph_def(graph_def.SerializeToString(), "graph_def", as_text=False)


def graph_def_to_proto(graph: Any = None) -> Any:
    """TensorFlow's ``GraphDef`` message for a tfmini Graph (default: the default graph) or
    for a dict from ``Graph.as_graph_def()``.

    Raises:
        UnimplementedError: the graph holds functions (see ``graph_proto.graph_to_proto``).
    """
    if graph is None:
        from tfmini.core.scope import get_default_graph

        graph = get_default_graph()
    if isinstance(graph, Mapping):
        g = Graph()
        with g.as_default():
            _import_dict(graph, name="")
        graph = g
    return graph_to_proto(graph)


def _check_dict_op_types(graph_def: Mapping[str, Any]) -> None:
    missing: dict[str, list[str]] = {}
    for node in graph_def.get("node", []) or []:
        if isinstance(node, Mapping) and isinstance(node.get("op"), str):
            if registry.lookup(node["op"]) is None:
                missing.setdefault(node["op"], []).append(str(node.get("name")))
    if missing:
        raise unknown_op_error(missing, "graph_def")


def import_graph_def(
    graph_def: Any,
    input_map: Mapping[str, Any] | None = None,
    return_elements: Iterable[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
) -> list | None:
    """Imports a graph into the default graph, as ``tf.compat.v1.import_graph_def``.

    ``graph_def`` may be tfmini's dict (``Graph.as_graph_def()``), a TensorFlow ``GraphDef``
    message (tfmini's or TensorFlow's own class), its binary serialization (``bytes``) or its
    text form (``str``). See :func:`tfmini.core.serialize.import_graph_def` for the rest.

    Raises:
        NotFoundError: op types tfmini does not have; the message lists every one of them
            with the nodes that use it.
        InvalidArgumentError: bytes or text that are not a GraphDef.
        ValueError, TypeError: as the dict importer.
    """
    if isinstance(graph_def, Mapping):
        _check_dict_op_types(graph_def)
        as_dict = graph_def
    else:
        if isinstance(graph_def, (bytes, bytearray, memoryview, str)):
            proto = parse_graph_def(graph_def if isinstance(graph_def, str) else
                                    bytes(graph_def))
        elif hasattr(graph_def, "SerializeToString"):
            proto = _as_proto(graph_def)
        else:
            raise TypeError("graph_def must be a GraphDef message, its bytes or text, or a dict "
                            f"from Graph.as_graph_def(); got {type(graph_def).__name__}")
        as_dict = proto_to_dict(proto)
    return _import_dict(as_dict, input_map=input_map, return_elements=return_elements,
                        name=name, op_dict=op_dict)


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a graph as a TensorFlow GraphDef file, as ``tf.io.write_graph``.

    Args:
        graph_or_graph_def: A tfmini Graph, a GraphDef message, or a dict from
            ``Graph.as_graph_def()``.
        logdir: Directory (created if needed).
        name: File name (``model.pb``, ``model.pbtxt``).
        as_text: Text format (``.pbtxt``) if True, else binary.

    Returns:
        The path written.
    """
    if isinstance(graph_or_graph_def, (Graph, Mapping)):
        proto = graph_def_to_proto(graph_or_graph_def)
    else:
        proto = _as_proto(graph_or_graph_def)
    os.makedirs(logdir or ".", exist_ok=True)
    path = os.path.join(logdir, name)
    tmp = path + ".tmp"
    if as_text:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(proto))
    else:
        with open(tmp, "wb") as f:
            f.write(proto.SerializeToString())
    os.replace(tmp, path)
    return path


def read_graph_def(path: str) -> Any:
    """The GraphDef message of a ``.pb`` / ``.pbtxt`` file (text when the name says so or the
    bytes are not a binary GraphDef), or of a tfmini ``.json`` graph.

    Raises:
        NotFoundError: no such file.
        InvalidArgumentError: not a GraphDef (naming the file).
    """
    try:
        size = os.path.getsize(path)
    except OSError:
        raise errors.NotFoundError(None, None, f"{path}: no such file") from None
    if size > MAX_GRAPH_FILE_BYTES:
        raise errors.InvalidArgumentError(
            None, None, f"{path}: {size} bytes is larger than a GraphDef can be")
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        try:
            return graph_def_to_proto(json.loads(data))
        except (ValueError, TypeError) as e:
            raise errors.InvalidArgumentError(None, None, f"{path}: not a tfmini JSON graph: "
                                              f"{e}") from None
    if path.endswith((".pbtxt", ".txt")):
        return parse_graph_def(data, path, as_text=True)
    try:
        return parse_graph_def(data, path, as_text=False)
    except errors.InvalidArgumentError:
        try:
            return parse_graph_def(data, path, as_text=True)
        except errors.InvalidArgumentError:
            raise errors.InvalidArgumentError(
                None, None, f"{path}: neither a binary nor a text GraphDef") from None
