"""TensorFlow's protobuf GraphDef (binary ``.pb``, text ``.pbtxt``) to and from tfmini graphs.

``graph_to_proto(graph)`` gives a ``GraphDef`` message TensorFlow reads; ``proto_to_dict``
turns one (TensorFlow's or ours) into the dict :func:`tfmini.core.serialize.import_graph_def`
reads, with attr values already decoded. Attr values map as TensorFlow's ``AttrValue``:
``s`` (bytes) <-> str, ``i``/``f``/``b``, ``type`` <-> DType, ``shape`` <-> TensorShape,
``tensor`` (a ``TensorProto``: ``tensor_content`` or the typed value fields) <-> ndarray,
``func`` <-> a function name, ``list`` <-> tuple. Attrs a node carries that tfmini's OpDef
does not declare (``_class``, ``_output_shapes``, TF 2.x's ``grad_a``...) are dropped on
import, as TensorFlow's consumers ignore unknown attrs.

Graphs read from files are untrusted: a malformed message is an ``InvalidArgumentError``
naming the file, and a tensor attr may not expand (by TensorFlow's "repeat the last value"
rule) past :data:`MAX_EXPANDED_BYTES`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from google.protobuf import text_format

from tfmini import errors
from tfmini.core import registry
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.shapes import TensorShape
from tfmini.ops.io import protos

__all__ = [
    "array_to_tensor_proto", "tensor_proto_to_array", "graph_to_proto", "proto_to_dict",
    "parse_graph_def", "unknown_op_error", "MAX_EXPANDED_BYTES",
]

MAX_EXPANDED_BYTES = 1 << 30
_PRODUCER = 1

# Typed TensorProto value field for each DataType number (TensorFlow's tensor_util).
_FIELD = {1: "float_val", 2: "double_val", 3: "int_val", 4: "int_val", 5: "int_val",
          6: "int_val", 9: "int64_val", 10: "bool_val", 19: "half_val", 17: "int_val",
          22: "uint32_val", 23: "uint64_val", 7: "string_val", 8: "scomplex_val",
          18: "dcomplex_val", 14: "half_val"}
_BITS16 = (14, 19)  # bfloat16 and half: their 16 bits in half_val, as TensorFlow writes them


def _np_dtype(enum: int) -> np.dtype:
    from tfmini.ops.io.bundle import NUMPY_BY_ENUM

    if enum not in NUMPY_BY_ENUM:
        raise errors.UnimplementedError(
            None, None, f"tensors of DataType {enum} are not supported in graphs")
    return NUMPY_BY_ENUM[enum]


def shape_to_proto(shape: TensorShape, out: Any) -> None:
    """Fills a ``TensorShapeProto`` (unknown dims are -1)."""
    out.SetInParent()
    if shape.dims is None:
        out.unknown_rank = True
        return
    for d in shape.dims:
        out.dim.add(size=-1 if d is None else d)


def shape_from_proto(proto: Any) -> TensorShape:
    """The TensorShape of a ``TensorShapeProto``."""
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def array_to_tensor_proto(value: Any) -> Any:
    """A ``TensorProto`` as TensorFlow's Python writes it: ``tensor_content`` for numeric
    arrays of more than one element, the typed field for scalars, ``string_val`` always."""
    arr = np.asarray(value)
    dt = as_dtype(arr.dtype)
    proto = protos.TensorProto(dtype=dt.enum)
    shape_to_proto(TensorShape(arr.shape), proto.tensor_shape)
    if dt.is_object:
        proto.string_val.extend(
            v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in arr.ravel())
    elif arr.size > 1:
        proto.tensor_content = np.ascontiguousarray(arr, arr.dtype.newbyteorder("<")).tobytes()
    elif arr.size == 1:
        v = arr.reshape(())
        if dt.enum in _BITS16:
            proto.half_val.append(int(v.view(np.uint16)))
        elif dt.is_complex:
            getattr(proto, _FIELD[dt.enum]).extend([float(v.real), float(v.imag)])
        else:
            getattr(proto, _FIELD[dt.enum]).append(v.item())
    return proto


def tensor_proto_to_array(proto: Any, where: str = "tensor") -> np.ndarray:
    """The read-only ndarray a ``TensorProto`` describes (TensorFlow's MakeNdarray rules)."""
    shape = shape_from_proto(proto.tensor_shape)
    if shape.dims is None or any(d is None for d in shape.dims):
        raise errors.InvalidArgumentError(None, None, f"{where}: tensor shape {shape} is not "
                                          "fully defined")
    dims = list(shape.dims)
    count = math.prod(dims)
    if proto.dtype == 7:
        values = list(proto.string_val)
        if len(values) not in (0, 1, count):
            raise errors.InvalidArgumentError(
                None, None, f"{where}: {len(values)} strings for a tensor of shape {dims}")
        out = np.empty(count, dtype=object)
        for i in range(count):
            out[i] = (values[min(i, len(values) - 1)] if values else b"").decode(
                "utf-8", "surrogateescape")
        out = out.reshape(dims)
        out.flags.writeable = False
        return out
    dtype = _np_dtype(proto.dtype)
    if count * dtype.itemsize > MAX_EXPANDED_BYTES:
        raise errors.InvalidArgumentError(
            None, None, f"{where}: a tensor of shape {dims} ({count * dtype.itemsize} bytes) "
            f"is larger than the {MAX_EXPANDED_BYTES} bytes tfmini reads from a graph")
    if proto.tensor_content:
        if len(proto.tensor_content) != count * dtype.itemsize:
            raise errors.InvalidArgumentError(
                None, None, f"{where}: tensor_content has {len(proto.tensor_content)} bytes, "
                f"shape {dims} of {dtype} needs {count * dtype.itemsize}")
        arr = np.frombuffer(proto.tensor_content, dtype=dtype).astype(dtype.newbyteorder("="))
    else:
        values = list(getattr(proto, _FIELD[proto.dtype]))
        if proto.dtype in _BITS16:
            values = np.array(values, np.uint16).view(dtype)
        elif dtype.kind == "c":  # (real, imag) pairs
            pairs = np.array(values, np.float64).reshape(-1, 2)
            values = pairs[:, 0] + 1j * pairs[:, 1]
        if len(values) > count:
            raise errors.InvalidArgumentError(
                None, None, f"{where}: {len(values)} values for a tensor of shape {dims}")
        arr = np.zeros(count, dtype.newbyteorder("="))
        if len(values):
            arr[:len(values)] = values
            arr[len(values):] = values[-1]  # TensorFlow repeats the last value
    arr = arr.reshape(dims)
    arr.flags.writeable = False
    return arr


# -- attrs ------------------------------------------------------------------------------------
def _fill_attr(value: Any, attr_type: str | None, out: Any) -> None:
    """Fills ``AttrValue`` ``out`` from a tfmini attr value."""
    if attr_type and attr_type.startswith("list("):
        out.list.SetInParent()
        inner = attr_type[5:-1]
        for v in value:
            _fill_list_item(v, inner, out.list)
        return
    if isinstance(value, (tuple, list)):
        out.list.SetInParent()
        for v in value:
            _fill_list_item(v, None, out.list)
        return
    if isinstance(value, DType):
        out.type = value.enum
    elif isinstance(value, TensorShape):
        shape_to_proto(value, out.shape)
    elif isinstance(value, np.ndarray):
        out.tensor.CopyFrom(array_to_tensor_proto(value))
    elif isinstance(value, bool):
        out.b = value
    elif isinstance(value, int) and attr_type != "float":
        out.i = value
    elif isinstance(value, (int, float)):
        out.f = float(value)
    elif isinstance(value, (str, bytes)):
        out.s = value.encode("utf-8") if isinstance(value, str) else value
    elif hasattr(value, "outputs") and hasattr(value, "name"):
        out.func.name = value.name
    else:
        raise TypeError(f"attr value {value!r} has no TensorFlow AttrValue form")


def _fill_list_item(v: Any, inner: str | None, lst: Any) -> None:
    if isinstance(v, DType):
        lst.type.append(v.enum)
    elif isinstance(v, TensorShape):
        shape_to_proto(v, lst.shape.add())
    elif isinstance(v, np.ndarray):
        lst.tensor.add().CopyFrom(array_to_tensor_proto(v))
    elif isinstance(v, bool):
        lst.b.append(v)
    elif isinstance(v, int) and inner != "float":
        lst.i.append(v)
    elif isinstance(v, (int, float)):
        lst.f.append(float(v))
    elif isinstance(v, (str, bytes)):
        lst.s.append(v.encode("utf-8") if isinstance(v, str) else v)
    elif hasattr(v, "outputs") and hasattr(v, "name"):
        lst.func.add(name=v.name)
    else:
        raise TypeError(f"attr list item {v!r} has no TensorFlow AttrValue form")


def _attr_from_proto(value: Any, attr_type: str | None, where: str) -> Any:
    kind = value.WhichOneof("value")
    if kind == "list":
        lst = value.list
        if lst.type:
            return [as_dtype(t) for t in lst.type]
        if lst.shape:
            return [shape_from_proto(s) for s in lst.shape]
        if lst.tensor:
            return [tensor_proto_to_array(t, where) for t in lst.tensor]
        if lst.func:
            return [{"func": f.name} for f in lst.func]
        if lst.s:
            return [s.decode("utf-8", "surrogateescape") for s in lst.s]
        if lst.i:
            return list(lst.i)
        if lst.f:
            return list(lst.f)
        if lst.b:
            return list(lst.b)
        return []
    if kind == "s":
        return value.s.decode("utf-8", "surrogateescape")
    if kind in ("i", "f", "b"):
        return getattr(value, kind)
    if kind == "type":
        return as_dtype(value.type)
    if kind == "shape":
        return shape_from_proto(value.shape)
    if kind == "tensor":
        return tensor_proto_to_array(value.tensor, where)
    if kind == "func":
        return {"func": value.func.name}
    if kind == "placeholder":
        raise errors.InvalidArgumentError(
            None, None, f"{where}: attr placeholder {value.placeholder!r} outside a function")
    # An unset AttrValue: an empty list of the declared type.
    return [] if attr_type and attr_type.startswith("list(") else None


# -- graphs -----------------------------------------------------------------------------------
def graph_to_proto(graph: Any) -> Any:
    """A ``GraphDef`` message for ``graph`` (a tfmini Graph), as TensorFlow writes one.

    Raises:
        UnimplementedError: the graph holds functions (cond/while bodies); tfmini writes
            those only in its JSON form (``Graph.as_graph_def()``).
    """
    if graph.functions:
        raise errors.UnimplementedError(
            None, None, "graphs with functions (tm.cond / tm.while_loop bodies) have no "
            "protobuf form in tfmini yet; use Graph.as_graph_def() (JSON)")
    gd = protos.GraphDef()
    gd.versions.producer = _PRODUCER
    for op in graph.get_operations():
        node = gd.node.add(name=op.name, op=op.type, device=op.device or "")
        for t in op.inputs:
            node.input.append(t.op.name if t.value_index == 0 else
                              f"{t.op.name}:{t.value_index}")
        node.input.extend(f"^{c.name}" for c in op.control_inputs)
        op_def = registry.get(op.type)
        for key in sorted(op.attrs):
            attr_def = op_def.attr(key)
            try:
                _fill_attr(op.attrs[key], attr_def.type if attr_def else None, node.attr[key])
            except TypeError as e:
                raise TypeError(f"node '{op.name}' attr '{key}': {e}") from None
    return gd


def unknown_op_types(gd: Any) -> dict[str, list[str]]:
    """``{op type: [node names]}`` for the op types of ``gd`` that are not registered."""
    missing: dict[str, list[str]] = {}
    for node in gd.node:
        if registry.lookup(node.op) is None:
            missing.setdefault(node.op, []).append(node.name)
    return missing


def unknown_op_error(missing: dict[str, list[str]], where: str) -> errors.NotFoundError:
    """One NotFoundError listing every unregistered op type, its nodes and close matches."""
    parts = []
    for op_type, names in sorted(missing.items()):
        try:
            registry.get(op_type)
            hint = ""
        except errors.NotFoundError as e:
            hint = f" [{e.message}]"
        more = ", ..." if len(names) > 5 else ""
        parts.append(f"{op_type} (nodes: {', '.join(names[:5])}{more}){hint}")
    return errors.NotFoundError(
        None, None, f"{where} uses {len(missing)} op type(s) tfmini does not have: "
        + "; ".join(parts))


def check_op_types(gd: Any, where: str = "graph_def") -> None:
    """Raises one NotFoundError listing every unregistered op type and its nodes."""
    missing = unknown_op_types(gd)
    if missing:
        raise unknown_op_error(missing, where)


def proto_to_dict(gd: Any, where: str = "graph_def") -> dict[str, Any]:
    """The dict ``import_graph_def`` reads, from a ``GraphDef`` message.

    Raises:
        NotFoundError: op types that are not registered (all of them, with their nodes).
        UnimplementedError: the graph has a function library.
    """
    check_op_types(gd, where)
    if len(gd.library.function):
        raise errors.UnimplementedError(
            None, None, f"{where}: graphs with a function library (TF2 control flow) cannot "
            "be imported from protobuf yet")
    nodes = []
    for node in gd.node:
        op_def = registry.get(node.op)
        attrs = {}
        for key, value in node.attr.items():
            attr_def = op_def.attr(key)
            if attr_def is None:
                continue  # an attr tfmini's op does not declare: ignored, as in TensorFlow
            decoded = _attr_from_proto(value, attr_def.type, f"{where}: node '{node.name}'")
            if decoded is not None:
                attrs[key] = decoded
        nodes.append({"name": node.name, "op": node.op, "input": list(node.input),
                      "device": node.device, "attr": attrs})
    return {"versions": {"producer": gd.versions.producer}, "node": nodes, "library": {}}


def parse_graph_def(data: bytes | str, filename: str = "graph_def", as_text: bool | None = None):
    """A ``GraphDef`` message from binary bytes or text; ``as_text=None`` guesses.

    Raises:
        InvalidArgumentError: the bytes or text are not a GraphDef (naming ``filename``).
    """
    gd = protos.GraphDef()
    if as_text is None:
        as_text = isinstance(data, str) or filename.endswith((".pbtxt", ".txt"))
    try:
        if as_text:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            text_format.Parse(text, gd, allow_unknown_field=True)
        else:
            gd.ParseFromString(bytes(data))
    except Exception as e:  # DecodeError, ParseError, UnicodeDecodeError
        kind = "text" if as_text else "binary"
        raise errors.InvalidArgumentError(
            None, None, f"{filename}: not a valid {kind} GraphDef: {e}") from None
    return gd
