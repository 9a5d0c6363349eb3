"""MetaGraphDef export and import (TensorFlow's ``tensorflow/python/framework/meta_graph.py``).

A MetaGraphDef holds the GraphDef, the ``SaverDef`` and the graph's collections: variable
collections as ``bytes_list`` of serialized ``VariableDef`` messages, collections of tensors
and ops as ``node_list`` of names, numbers as ``int64_list``/``float_list``, strings as
``bytes_list``. Collections holding anything else are skipped (TensorFlow logs a warning).
"""

from __future__ import annotations

import os
from typing import Any

from google.protobuf import text_format

from tfmini import errors
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import get_default_graph
from tfmini.ops import io as io_family
from tfmini.ops import variables as variables_lib

graph_proto, protos = io_family.graph_proto, io_family.protos

__all__ = ["export_meta_graph", "import_meta_graph_def"]

_VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "local_variables",
                         "model_variables", "global_step", "moving_average_variables")


def _variable_def(var: Any, export_scope: str | None) -> bytes:
    d = var.to_proto(export_scope)
    proto = protos.VariableDef(
        variable_name=d["variable_name"], initializer_name=d["initializer_name"],
        snapshot_name=d["snapshot_name"], trainable=bool(d.get("trainable", True)),
        is_resource=bool(d.get("is_resource", False)))
    if d.get("initial_value_name"):
        proto.initial_value_name = d["initial_value_name"]
    return proto.SerializeToString()


def _strip(name: str, export_scope: str | None) -> str:
    if export_scope and name.startswith(export_scope + "/"):
        return name[len(export_scope) + 1:]
    return name


def _collection_def(items: list, export_scope: str | None) -> Any:
    out = protos.CollectionDef()
    if all(isinstance(v, variables_lib.Variable) for v in items):
        out.bytes_list.value.extend(_variable_def(v, export_scope) for v in items)
    elif all(isinstance(v, (Output, Operation)) for v in items):
        out.node_list.value.extend(_strip(v.name, export_scope) for v in items)
    elif all(isinstance(v, bool) is False and isinstance(v, int) for v in items):
        out.int64_list.value.extend(items)
    elif all(isinstance(v, float) for v in items):
        out.float_list.value.extend(items)
    elif all(isinstance(v, (str, bytes)) for v in items):
        out.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in items)
    else:
        return None
    return out


def export_meta_graph(filename: str | None = None, meta_info_def: Any = None,
                      graph_def: Any = None, saver_def: Any = None,
                      collection_list: Any = None, as_text: bool = False, graph: Any = None,
                      export_scope: str | None = None, clear_devices: bool = False,
                      clear_extraneous_savers: bool = False, strip_default_attrs: bool = False,
                      save_debug_info: bool = False, **kwargs: Any) -> Any:
    """Builds a ``MetaGraphDef`` of ``graph`` (default graph) and writes it if ``filename``.

    Returns:
        The MetaGraphDef message.
    """
    del clear_extraneous_savers, strip_default_attrs, save_debug_info, kwargs
    graph = graph or get_default_graph()
    meta = protos.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.meta_info_def.tensorflow_version = "tfmini"
    meta.meta_info_def.stripped_op_list.SetInParent()
    gd = graph_def if graph_def is not None else graph_proto.graph_to_proto(graph)
    meta.graph_def.CopyFrom(gd if isinstance(gd, protos.GraphDef)
                            else protos.GraphDef.FromString(gd.SerializeToString()))
    if export_scope:
        kept = [n for n in meta.graph_def.node if n.name.startswith(export_scope + "/")]
        del meta.graph_def.node[:]
        for n in kept:
            n.name = _strip(n.name, export_scope)
            n.input[:] = [("^" if i.startswith("^") else "") + _strip(i.lstrip("^"),
                                                                       export_scope)
                          for i in n.input]
            meta.graph_def.node.add().CopyFrom(n)
    if clear_devices:
        for n in meta.graph_def.node:
            n.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in sorted(keys):
        items = graph.get_collection(key)
        if export_scope:
            items = [v for v in items if getattr(v, "name", "").startswith(export_scope + "/")]
        if not items:
            continue
        coll = _collection_def(items, export_scope)
        if coll is not None:
            meta.collection_def[key].CopyFrom(coll)
    if filename:
        directory = os.path.dirname(filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        tmp = filename + ".tmp"
        if as_text:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text_format.MessageToString(meta))
        else:
            with open(tmp, "wb") as f:
                f.write(meta.SerializeToString())
        os.replace(tmp, filename)
    return meta


def read_meta_graph_file(filename: str) -> Any:
    """The MetaGraphDef of a binary or text ``.meta`` file.

    Raises:
        NotFoundError: no such file.
        InvalidArgumentError: neither a binary nor a text MetaGraphDef (naming the file).
    """
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError:
        raise errors.NotFoundError(None, None, f"File {filename} does not exist.") from None
    meta = protos.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except Exception:  # not binary: try text
        pass
    try:
        text_format.Parse(data.decode("utf-8"), meta, allow_unknown_field=True)
    except Exception as e:
        raise errors.InvalidArgumentError(
            None, None, f"{filename}: not a MetaGraphDef (binary or text): {e}") from None
    return meta


def import_meta_graph_def(meta_graph_or_file: Any, clear_devices: bool = False,
                          import_scope: str | None = None) -> Any:
    """Imports a MetaGraphDef (message or file) into the default graph and restores its
    collections; returns the MetaGraphDef (``tm.train.import_meta_graph`` makes the Saver).
    """
    if isinstance(meta_graph_or_file, str):
        meta = read_meta_graph_file(meta_graph_or_file)
    elif isinstance(meta_graph_or_file, protos.MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = protos.MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    gd = protos.GraphDef()
    gd.CopyFrom(meta.graph_def)
    if clear_devices:
        for n in gd.node:
            n.device = ""
    io_family.import_graph_def(gd, name=import_scope or "")
    graph = get_default_graph()

    def full(name: str) -> str:
        return f"{import_scope}/{name}" if import_scope else name

    for key, coll in sorted(meta.collection_def.items()):
        kind = coll.WhichOneof("kind")
        if kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
            for raw in coll.bytes_list.value:
                vd = protos.VariableDef.FromString(raw)
                d = {"variable_name": vd.variable_name, "initializer_name": vd.initializer_name,
                     "snapshot_name": vd.snapshot_name, "trainable": vd.trainable,
                     "initial_value_name": vd.initial_value_name or None,
                     "is_resource": vd.is_resource}
                graph.add_to_collection(key, _variable_from_def(d, import_scope))
        elif kind == "node_list":
            for name in coll.node_list.value:
                graph.add_to_collection(key, graph.as_graph_element(full(name)))
        elif kind == "bytes_list":
            for raw in coll.bytes_list.value:
                graph.add_to_collection(key, raw)
        elif kind == "int64_list":
            for v in coll.int64_list.value:
                graph.add_to_collection(key, int(v))
        elif kind == "float_list":
            for v in coll.float_list.value:
                graph.add_to_collection(key, float(v))
    return meta


def _variable_from_def(d: dict, import_scope: str | None) -> Any:
    """The Python variable object over an imported variable's ops (one per name)."""
    graph = get_default_graph()
    name = f"{import_scope}/{d['variable_name']}" if import_scope else d["variable_name"]
    cache = graph.get_collection_ref("__tfmini_imported_variables__")
    for v in cache:
        if v.op.name == name.split(":")[0]:
            return v
    if d["is_resource"]:
        var = variables_lib.Variable(variable_def=d, import_scope=import_scope)
    else:
        var = variables_lib.RefVariable(variable_def=d, import_scope=import_scope)
    cache.append(var)
    return var
