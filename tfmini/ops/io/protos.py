"""TensorFlow's protocol-buffer messages that tfmini reads and writes, built at import.

The messages (``GraphDef``, ``NodeDef``, ``AttrValue``, ``TensorProto``, ``MetaGraphDef``,
``SaverDef``, ``VariableDef``, ``BundleHeaderProto``, ``BundleEntryProto``,
``CheckpointState``, ``Summary``, ``Event``, ``HistogramProto``, ``RunMetadata``, ...) are
declared below in a compact table with TensorFlow's message
names and field numbers (from ``tensorflow/core/framework/*.proto``,
``tensorflow/core/protobuf/{meta_graph,saver,tensor_bundle}.proto``,
``tensorflow/core/util/event.proto`` and
``tensorflow/python/training/checkpoint_state.proto``), and turned into message classes by
the ``protobuf`` runtime. Only the fields tfmini uses are declared; the runtime keeps any
other field of a parsed message as an unknown field, so nothing read is lost on re-writing.

Why not generated ``*_pb2`` modules (see ``docs/checkpoints.md``): generated code is tied to
the ``protoc`` version that made it (newer runtimes refuse older or newer gencode across a
major version), and a second module defining ``tensorflow.GraphDef`` in the default
descriptor pool clashes with TensorFlow's own when both are imported in one process. Here the
descriptors live in a private pool under the package ``tfmini.tf`` (the wire format and the
text format do not depend on the package name), and work with any protobuf runtime >= 4.21.

Example::

    from tfmini.ops.io import protos
    gd = protos.GraphDef()
    gd.ParseFromString(open("frozen.pb", "rb").read())
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = [
    "AttrValue", "BundleEntryProto", "BundleHeaderProto", "CheckpointState", "CollectionDef",
    "FunctionDef", "GraphDef", "MetaGraphDef", "NameAttrList", "NodeDef", "OpDef", "OpList",
    "SaverDef", "TensorProto", "TensorShapeProto", "TensorSliceProto", "VariableDef",
    "VersionDef", "PACKAGE", "proto_source", "HistogramProto", "SummaryMetadata", "Summary",
    "SessionLog", "LogMessage", "TaggedRunMetadata", "Event", "StepStats", "RunMetadata",
    "JobDef", "ClusterDef",
]

PACKAGE = "tfmini.tf"

# TensorFlow's DataType enum (tensorflow/core/framework/types.proto).
DATA_TYPES = {
    "DT_INVALID": 0, "DT_FLOAT": 1, "DT_DOUBLE": 2, "DT_INT32": 3, "DT_UINT8": 4,
    "DT_INT16": 5, "DT_INT8": 6, "DT_STRING": 7, "DT_COMPLEX64": 8, "DT_INT64": 9,
    "DT_BOOL": 10, "DT_QINT8": 11, "DT_QUINT8": 12, "DT_QINT32": 13, "DT_BFLOAT16": 14,
    "DT_QINT16": 15, "DT_QUINT16": 16, "DT_UINT16": 17, "DT_COMPLEX128": 18, "DT_HALF": 19,
    "DT_RESOURCE": 20, "DT_VARIANT": 21, "DT_UINT32": 22, "DT_UINT64": 23,
}
# Reference types are the value + 100 (DT_FLOAT_REF = 101, ...).
DATA_TYPES.update({name + "_REF": num + 100 for name, num in list(DATA_TYPES.items()) if num})

_ENUMS = {
    "DataType": DATA_TYPES,
    "BundleHeaderProto.Endianness": {"LITTLE": 0, "BIG": 1},
    "SessionLog.SessionStatus": {"STATUS_UNSPECIFIED": 0, "START": 1, "STOP": 2,
                                 "CHECKPOINT": 3},
    "LogMessage.Level": {"UNKNOWN": 0, "DEBUGGING": 10, "INFO": 20, "WARN": 30, "ERROR": 40,
                         "FATAL": 50},
    "DataClass": {"DATA_CLASS_UNKNOWN": 0, "DATA_CLASS_SCALAR": 1, "DATA_CLASS_TENSOR": 2,
                  "DATA_CLASS_BLOB_SEQUENCE": 3},
    "SaverDef.CheckpointFormatVersion": {"LEGACY": 0, "V1": 1, "V2": 2},
}

# message -> fields: (name, number, type, label) with type a scalar type name, a message or
# enum name (relative to the package), or "map<key, value>"; label "" | "repeated" | a oneof
# name prefixed "oneof:".
_MESSAGES: dict[str, list[tuple[str, int, str, str]]] = {
    # tensorflow/core/protobuf/cluster.proto
    "JobDef": [("name", 1, "string", ""), ("tasks", 2, "map<int32, string>", "")],
    "ClusterDef": [("job", 1, "JobDef", "repeated")],
    "VersionDef": [("producer", 1, "int32", ""), ("min_consumer", 2, "int32", ""),
                   ("bad_consumers", 3, "int32", "repeated")],
    "TensorShapeProto": [("dim", 2, "TensorShapeProto.Dim", "repeated"),
                         ("unknown_rank", 3, "bool", "")],
    "TensorShapeProto.Dim": [("size", 1, "int64", ""), ("name", 2, "string", "")],
    "TensorProto": [
        ("dtype", 1, "DataType", ""), ("tensor_shape", 2, "TensorShapeProto", ""),
        ("version_number", 3, "int32", ""), ("tensor_content", 4, "bytes", ""),
        ("float_val", 5, "float", "repeated"), ("double_val", 6, "double", "repeated"),
        ("int_val", 7, "int32", "repeated"), ("string_val", 8, "bytes", "repeated"),
        ("scomplex_val", 9, "float", "repeated"), ("int64_val", 10, "int64", "repeated"),
        ("bool_val", 11, "bool", "repeated"), ("dcomplex_val", 12, "double", "repeated"),
        ("half_val", 13, "int32", "repeated"),
        # ResourceHandleProto / VariantTensorDataProto: kept as raw bytes, never interpreted.
        ("resource_handle_val", 14, "bytes", "repeated"),
        ("variant_val", 15, "bytes", "repeated"),
        ("uint32_val", 16, "uint32", "repeated"), ("uint64_val", 17, "uint64", "repeated"),
    ],
    "AttrValue": [
        ("list", 1, "AttrValue.ListValue", "oneof:value"), ("s", 2, "bytes", "oneof:value"),
        ("i", 3, "int64", "oneof:value"), ("f", 4, "float", "oneof:value"),
        ("b", 5, "bool", "oneof:value"), ("type", 6, "DataType", "oneof:value"),
        ("shape", 7, "TensorShapeProto", "oneof:value"),
        ("tensor", 8, "TensorProto", "oneof:value"),
        ("placeholder", 9, "string", "oneof:value"),
        ("func", 10, "NameAttrList", "oneof:value"),
    ],
    "AttrValue.ListValue": [
        ("s", 2, "bytes", "repeated"), ("i", 3, "int64", "repeated"),
        ("f", 4, "float", "repeated"), ("b", 5, "bool", "repeated"),
        ("type", 6, "DataType", "repeated"), ("shape", 7, "TensorShapeProto", "repeated"),
        ("tensor", 8, "TensorProto", "repeated"), ("func", 9, "NameAttrList", "repeated"),
    ],
    "NameAttrList": [("name", 1, "string", ""), ("attr", 2, "map<string, AttrValue>", "")],
    "NodeDef": [("name", 1, "string", ""), ("op", 2, "string", ""),
                ("input", 3, "string", "repeated"), ("device", 4, "string", ""),
                ("attr", 5, "map<string, AttrValue>", "")],
    "OpDef": [("name", 1, "string", ""), ("input_arg", 2, "OpDef.ArgDef", "repeated"),
              ("output_arg", 3, "OpDef.ArgDef", "repeated"),
              ("attr", 4, "OpDef.AttrDef", "repeated"), ("summary", 5, "string", ""),
              ("description", 6, "string", ""), ("is_commutative", 18, "bool", ""),
              ("is_aggregate", 16, "bool", ""), ("is_stateful", 17, "bool", ""),
              ("allows_uninitialized_input", 19, "bool", ""),
              ("control_output", 20, "string", "repeated")],
    "OpDef.ArgDef": [("name", 1, "string", ""), ("description", 2, "string", ""),
                     ("type", 3, "DataType", ""), ("type_attr", 4, "string", ""),
                     ("number_attr", 5, "string", ""), ("type_list_attr", 6, "string", ""),
                     ("is_ref", 16, "bool", "")],
    "OpDef.AttrDef": [("name", 1, "string", ""), ("type", 2, "string", ""),
                      ("default_value", 3, "AttrValue", ""), ("description", 4, "string", ""),
                      ("has_minimum", 5, "bool", ""), ("minimum", 6, "int64", ""),
                      ("allowed_values", 7, "AttrValue", "")],
    "OpList": [("op", 1, "OpDef", "repeated")],
    "FunctionDef": [("signature", 1, "OpDef", ""), ("attr", 5, "map<string, AttrValue>", ""),
                    ("node_def", 3, "NodeDef", "repeated"),
                    ("ret", 4, "map<string, string>", ""),
                    ("control_ret", 6, "map<string, string>", "")],
    "GradientDef": [("function_name", 1, "string", ""), ("gradient_func", 2, "string", "")],
    "FunctionDefLibrary": [("function", 1, "FunctionDef", "repeated"),
                           ("gradient", 2, "GradientDef", "repeated")],
    "GraphDef": [("node", 1, "NodeDef", "repeated"), ("library", 2, "FunctionDefLibrary", ""),
                 ("version", 3, "int32", ""), ("versions", 4, "VersionDef", "")],
    "SaverDef": [("filename_tensor_name", 1, "string", ""),
                 ("save_tensor_name", 2, "string", ""), ("restore_op_name", 3, "string", ""),
                 ("max_to_keep", 4, "int32", ""), ("sharded", 5, "bool", ""),
                 ("keep_checkpoint_every_n_hours", 6, "float", ""),
                 ("version", 7, "SaverDef.CheckpointFormatVersion", "")],
    "SaveSliceInfoDef": [("full_name", 1, "string", ""),
                         ("full_shape", 2, "int64", "repeated"),
                         ("var_offset", 3, "int64", "repeated"),
                         ("var_shape", 4, "int64", "repeated")],
    "VariableDef": [("variable_name", 1, "string", ""), ("initial_value_name", 6, "string", ""),
                    ("initializer_name", 2, "string", ""), ("snapshot_name", 3, "string", ""),
                    ("save_slice_info_def", 4, "SaveSliceInfoDef", ""),
                    ("is_resource", 5, "bool", ""), ("trainable", 7, "bool", ""),
                    ("synchronization", 8, "int32", ""), ("aggregation", 9, "int32", "")],
    "CollectionDef": [("node_list", 1, "CollectionDef.NodeList", "oneof:kind"),
                      ("bytes_list", 2, "CollectionDef.BytesList", "oneof:kind"),
                      ("int64_list", 3, "CollectionDef.Int64List", "oneof:kind"),
                      ("float_list", 4, "CollectionDef.FloatList", "oneof:kind")],
    "CollectionDef.NodeList": [("value", 1, "string", "repeated")],
    "CollectionDef.BytesList": [("value", 1, "bytes", "repeated")],
    "CollectionDef.Int64List": [("value", 1, "int64", "repeated")],
    "CollectionDef.FloatList": [("value", 1, "float", "repeated")],
    "MetaGraphDef": [("meta_info_def", 1, "MetaGraphDef.MetaInfoDef", ""),
                     ("graph_def", 2, "GraphDef", ""), ("saver_def", 3, "SaverDef", ""),
                     ("collection_def", 4, "map<string, CollectionDef>", "")],
    "MetaGraphDef.MetaInfoDef": [("meta_graph_version", 1, "string", ""),
                                 ("stripped_op_list", 2, "OpList", ""),
                                 ("tags", 4, "string", "repeated"),
                                 ("tensorflow_version", 5, "string", ""),
                                 ("tensorflow_git_version", 6, "string", ""),
                                 ("stripped_default_attrs", 7, "bool", "")],
    # tensorflow/core/protobuf/tensor_bundle.proto and framework/tensor_slice.proto
    "TensorSliceProto": [("extent", 1, "TensorSliceProto.Extent", "repeated")],
    "TensorSliceProto.Extent": [("start", 1, "int64", ""),
                                ("length", 2, "int64", "oneof:has_length")],
    "BundleHeaderProto": [("num_shards", 1, "int32", ""),
                          ("endianness", 2, "BundleHeaderProto.Endianness", ""),
                          ("version", 3, "VersionDef", "")],
    "BundleEntryProto": [("dtype", 1, "DataType", ""), ("shape", 2, "TensorShapeProto", ""),
                         ("shard_id", 3, "int32", ""), ("offset", 4, "int64", ""),
                         ("size", 5, "int64", ""), ("crc32c", 6, "fixed32", ""),
                         ("slices", 7, "TensorSliceProto", "repeated")],
    # tensorflow/core/framework/summary.proto, histogram.proto and tensorflow/core/util/event.proto
    "HistogramProto": [("min", 1, "double", ""), ("max", 2, "double", ""),
                       ("num", 3, "double", ""), ("sum", 4, "double", ""),
                       ("sum_squares", 5, "double", ""), ("bucket_limit", 6, "double", "repeated"),
                       ("bucket", 7, "double", "repeated")],
    "SummaryMetadata": [("plugin_data", 1, "SummaryMetadata.PluginData", ""),
                        ("display_name", 2, "string", ""),
                        ("summary_description", 3, "string", ""),
                        ("data_class", 4, "DataClass", "")],
    "SummaryMetadata.PluginData": [("plugin_name", 1, "string", ""), ("content", 2, "bytes", "")],
    "Summary": [("value", 1, "Summary.Value", "repeated")],
    "Summary.Image": [("height", 1, "int32", ""), ("width", 2, "int32", ""),
                      ("colorspace", 3, "int32", ""), ("encoded_image_string", 4, "bytes", "")],
    "Summary.Audio": [("sample_rate", 1, "float", ""), ("num_channels", 2, "int64", ""),
                      ("length_frames", 3, "int64", ""), ("encoded_audio_string", 4, "bytes", ""),
                      ("content_type", 5, "string", "")],
    "Summary.Value": [("tag", 1, "string", ""), ("simple_value", 2, "float", "oneof:value"),
                      ("obsolete_old_style_histogram", 3, "bytes", "oneof:value"),
                      ("image", 4, "Summary.Image", "oneof:value"),
                      ("histo", 5, "HistogramProto", "oneof:value"),
                      ("audio", 6, "Summary.Audio", "oneof:value"),
                      ("node_name", 7, "string", ""),
                      ("tensor", 8, "TensorProto", "oneof:value"),
                      ("metadata", 9, "SummaryMetadata", "")],
    "LogMessage": [("level", 1, "LogMessage.Level", ""), ("message", 2, "string", "")],
    "SessionLog": [("status", 1, "SessionLog.SessionStatus", ""),
                   ("checkpoint_path", 2, "string", ""), ("msg", 3, "string", "")],
    "TaggedRunMetadata": [("tag", 1, "string", ""), ("run_metadata", 2, "bytes", "")],
    "SourceMetadata": [("writer", 1, "string", "")],
    "Event": [("wall_time", 1, "double", ""), ("step", 2, "int64", ""),
              ("file_version", 3, "string", "oneof:what"), ("graph_def", 4, "bytes", "oneof:what"),
              ("summary", 5, "Summary", "oneof:what"),
              ("log_message", 6, "LogMessage", "oneof:what"),
              ("session_log", 7, "SessionLog", "oneof:what"),
              ("tagged_run_metadata", 8, "TaggedRunMetadata", "oneof:what"),
              ("meta_graph_def", 9, "bytes", "oneof:what"),
              ("source_metadata", 10, "SourceMetadata", "")],
    # tensorflow/core/framework/step_stats.proto, tensor_description.proto,
    # allocation_description.proto and the step_stats field of protobuf/config.proto
    "AllocationDescription": [("requested_bytes", 1, "int64", ""),
                              ("allocated_bytes", 2, "int64", ""),
                              ("allocator_name", 3, "string", "")],
    "TensorDescription": [("dtype", 1, "DataType", ""), ("shape", 2, "TensorShapeProto", ""),
                          ("allocation_description", 4, "AllocationDescription", "")],
    "NodeOutput": [("slot", 1, "int32", ""), ("tensor_description", 3, "TensorDescription", "")],
    "NodeExecStats": [("node_name", 1, "string", ""), ("all_start_micros", 2, "int64", ""),
                      ("op_start_rel_micros", 3, "int64", ""),
                      ("op_end_rel_micros", 4, "int64", ""),
                      ("all_end_rel_micros", 5, "int64", ""),
                      ("output", 7, "NodeOutput", "repeated"),
                      ("timeline_label", 8, "string", ""), ("scheduled_micros", 9, "int64", ""),
                      ("thread_id", 10, "uint32", "")],
    "DeviceStepStats": [("device", 1, "string", ""),
                        ("node_stats", 2, "NodeExecStats", "repeated"),
                        ("thread_names", 3, "map<uint32, string>", "")],
    "StepStats": [("dev_stats", 1, "DeviceStepStats", "repeated")],
    "RunMetadata": [("step_stats", 1, "StepStats", ""),
                    ("partition_graphs", 3, "GraphDef", "repeated")],
    # tensorflow/python/training/checkpoint_state.proto
    "CheckpointState": [("model_checkpoint_path", 1, "string", ""),
                        ("all_model_checkpoint_paths", 2, "string", "repeated"),
                        ("all_model_checkpoint_timestamps", 3, "double", "repeated"),
                        ("last_preserved_timestamp", 4, "double", "")],
}

_FDP = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _FDP.TYPE_DOUBLE, "float": _FDP.TYPE_FLOAT, "int64": _FDP.TYPE_INT64,
    "uint64": _FDP.TYPE_UINT64, "int32": _FDP.TYPE_INT32, "fixed32": _FDP.TYPE_FIXED32,
    "bool": _FDP.TYPE_BOOL, "string": _FDP.TYPE_STRING, "bytes": _FDP.TYPE_BYTES,
    "uint32": _FDP.TYPE_UINT32,
}


def _set_type(field, type_name: str) -> None:
    if type_name in _SCALARS:
        field.type = _SCALARS[type_name]
    else:
        field.type = _FDP.TYPE_ENUM if type_name in _ENUMS else _FDP.TYPE_MESSAGE
        field.type_name = f".{PACKAGE}.{type_name}"


def _build_file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="tfmini/tf_messages.proto", package=PACKAGE,
                                             syntax="proto3")
    protos: dict[str, descriptor_pb2.DescriptorProto] = {}

    def message(path: str) -> descriptor_pb2.DescriptorProto:
        if path not in protos:
            parent, _, leaf = path.rpartition(".")
            container = message(parent).nested_type if parent else fdp.message_type
            protos[path] = container.add(name=leaf)
        return protos[path]

    for enum_path, values in _ENUMS.items():
        parent, _, leaf = enum_path.rpartition(".")
        container = message(parent).enum_type if parent else fdp.enum_type
        enum = container.add(name=leaf)
        for name, number in values.items():
            enum.value.add(name=name, number=number)
    for path, fields in _MESSAGES.items():
        msg = message(path)
        oneofs: dict[str, int] = {}
        for name, number, type_name, label in fields:
            field = msg.field.add(name=name, number=number, label=_FDP.LABEL_OPTIONAL)
            if type_name.startswith("map<"):
                key, value = (t.strip() for t in type_name[4:-1].split(","))
                entry_name = "".join(p.capitalize() for p in name.split("_")) + "Entry"
                entry = msg.nested_type.add(name=entry_name)
                entry.options.map_entry = True
                _set_type(entry.field.add(name="key", number=1, label=_FDP.LABEL_OPTIONAL), key)
                _set_type(entry.field.add(name="value", number=2, label=_FDP.LABEL_OPTIONAL),
                          value)
                field.label = _FDP.LABEL_REPEATED
                field.type = _FDP.TYPE_MESSAGE
                field.type_name = f".{PACKAGE}.{path}.{entry_name}"
                continue
            _set_type(field, type_name)
            if label == "repeated":
                field.label = _FDP.LABEL_REPEATED
            elif label.startswith("oneof:"):
                oneof = label[len("oneof:"):]
                if oneof not in oneofs:
                    oneofs[oneof] = len(msg.oneof_decl)
                    msg.oneof_decl.add(name=oneof)
                field.oneof_index = oneofs[oneof]
    return fdp


_FILE = _build_file()
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_FILE)


def _cls(name: str):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.{name}"))


VersionDef = _cls("VersionDef")
TensorShapeProto = _cls("TensorShapeProto")
TensorProto = _cls("TensorProto")
AttrValue = _cls("AttrValue")
NameAttrList = _cls("NameAttrList")
NodeDef = _cls("NodeDef")
OpDef = _cls("OpDef")
OpList = _cls("OpList")
FunctionDef = _cls("FunctionDef")
GraphDef = _cls("GraphDef")
SaverDef = _cls("SaverDef")
VariableDef = _cls("VariableDef")
CollectionDef = _cls("CollectionDef")
MetaGraphDef = _cls("MetaGraphDef")
TensorSliceProto = _cls("TensorSliceProto")
BundleHeaderProto = _cls("BundleHeaderProto")
BundleEntryProto = _cls("BundleEntryProto")
CheckpointState = _cls("CheckpointState")
HistogramProto = _cls("HistogramProto")
SummaryMetadata = _cls("SummaryMetadata")
Summary = _cls("Summary")
SessionLog = _cls("SessionLog")
LogMessage = _cls("LogMessage")
TaggedRunMetadata = _cls("TaggedRunMetadata")
Event = _cls("Event")
StepStats = _cls("StepStats")
RunMetadata = _cls("RunMetadata")
JobDef = _cls("JobDef")
ClusterDef = _cls("ClusterDef")


def proto_source() -> str:
    """The declared messages as ``.proto`` text (for reading and for ``docs/``)."""
    lines = ['syntax = "proto3";', f"package {PACKAGE};", ""]
    for enum_path, values in _ENUMS.items():
        lines.append(f"enum {enum_path.replace('.', '_')} {{")
        lines += [f"  {k} = {v};" for k, v in values.items()]
        lines.append("}")
    for path, fields in _MESSAGES.items():
        lines.append(f"message {path} {{")
        for name, number, type_name, label in fields:
            prefix = "repeated " if label == "repeated" else ""
            suffix = f"  // oneof {label[6:]}" if label.startswith("oneof:") else ""
            lines.append(f"  {prefix}{type_name} {name} = {number};{suffix}")
        lines.append("}")
    return "\n".join(lines) + "\n"
