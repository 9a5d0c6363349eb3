"""The checkpoint ops of TensorFlow's ``io_ops`` (``tensorflow/core/ops/io_ops.cc``).

* ``SaveV2(prefix, tensor_names, shape_and_slices, tensors)`` writes a V2 bundle
  (:mod:`tfmini.ops.io.bundle`): ``PREFIX.index`` and ``PREFIX.data-00000-of-00001``;
* ``RestoreV2(prefix, tensor_names, shape_and_slices)`` reads tensors back (with their
  ``dtypes``), all of them or a failure: a missing key, a wrong dtype or a corrupted file
  raises before any value is produced, so the assignments after it never run;
* ``MergeV2Checkpoints(checkpoint_prefixes, destination_prefix)`` merges per-device bundles
  of a sharded save into one (renaming their data files, writing one index);
* ``ShardedFilename`` / ``ShardedFilespec`` spell shard file names.

A slice spec (``"4 3 0,2:-"``: full shape, then per dimension ``start,length`` or ``-``) in
``shape_and_slices`` restores part of a tensor, as TensorFlow's ``TensorSlice`` does.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.io import protos
from tfmini.ops.io.bundle import (
    BundleReader,
    BundleWriter,
    data_filename,
    dtype_name,
)
from tfmini.ops.io.table import TableBuilder

__all__: list[str] = []


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _strings(value: Any) -> list[str]:
    return [_text(v) for v in np.asarray(value, dtype=object).ravel()]


def _scalar_string(value: Any, what: str) -> str:
    arr = np.asarray(value, dtype=object)
    if arr.size != 1:
        raise invalid_argument(f"Input {what} must be a scalar string, got shape {arr.shape}")
    return _text(arr.reshape(-1)[0])


def _check_names(names: list[str], slices: list[str], n_tensors: int) -> None:
    if len(names) != n_tensors or len(slices) != n_tensors:
        raise invalid_argument(
            f"Expected {n_tensors} tensor names and slice specs, got tensor_names of size "
            f"{len(names)} and shape_and_slices of size {len(slices)}")


def _save_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(0), 0)
    shape_fns.with_rank(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 1)
    return []


@register_op(
    "SaveV2",
    inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string",
            "tensors: dtypes"],
    attrs=["dtypes: list(type) >= 1"],
    shape_fn=_save_shape,
    stateful=True,
)
def save_v2(prefix, tensor_names, shape_and_slices, tensors):
    """Writes ``tensors`` under ``tensor_names`` to the bundle at ``prefix``."""
    path = _scalar_string(prefix, "prefix")
    names, slices = _strings(tensor_names), _strings(shape_and_slices)
    _check_names(names, slices, len(tensors))
    for name, spec in zip(names, slices):
        if spec:
            raise errors.UnimplementedError(
                None, None, f"SaveV2: saving a slice ({spec!r}) of {name!r} is not supported")
    writer = BundleWriter(path)
    try:
        for name, value in zip(names, tensors):
            writer.add(name, value)
        writer.finish()
    except BaseException:
        writer.abort()
        raise


def _restore_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(0), 0)
    n = len(ic.attrs["dtypes"])
    for i in (1, 2):
        shape = shape_fns.with_rank(ic.input_shape(i), 1)
        if shape.dims[0] is not None and shape.dims[0] != n:
            raise ValueError(f"Dimension 0 in both shapes must be equal, but are "
                             f"{shape.dims[0]} and {n}")
    # The shapes are the stored tensors' (or slices'): known only when the file is read.
    return [TensorShape(None)] * n


def _parse_slice(spec: str, full: list[int], name: str) -> tuple:
    """The index tuple of a ``"d0 d1 ... s0:s1..."`` slice spec checked against ``full``."""
    parts = spec.split(" ")
    try:
        dims = [int(p) for p in parts[:-1]]
        extents = parts[-1].split(":")
        if dims != full or len(extents) != len(full):
            raise ValueError
        index = []
        for ext, size in zip(extents, full):
            if ext == "-":
                index.append(slice(None))
                continue
            start, length = (int(v) for v in ext.split(","))
            if start < 0 or length < 0 or start + length > size:
                raise ValueError
            index.append(slice(start, start + length))
    except ValueError:
        raise invalid_argument(
            f"Can't parse or does not match the saved shape {full}: slice spec {spec!r} of "
            f"tensor {name!r}") from None
    return tuple(index)


@register_op(
    "RestoreV2",
    inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string"],
    outputs=["tensors: dtypes"],
    attrs=["dtypes: list(type) >= 1"],
    shape_fn=_restore_shape,
    stateful=True,
)
def restore_v2(prefix, tensor_names, shape_and_slices, *, dtypes):
    """The tensors ``tensor_names`` of the bundle at ``prefix``, checked against ``dtypes``."""
    path = _scalar_string(prefix, "prefix")
    names, slices = _strings(tensor_names), _strings(shape_and_slices)
    _check_names(names, slices, len(dtypes))
    reader = BundleReader(path)
    # Check every key and dtype before reading any bytes: all or nothing.
    for name, dt in zip(names, dtypes):
        stored = reader.dtype_enum(name)  # NotFoundError naming the closest keys
        if stored != dt.enum:
            raise invalid_argument(
                f"tensor_name = {name}; expected dtype {dt.name} does not equal original "
                f"dtype {dtype_name(stored)[3:].lower()} in checkpoint {path}")
    out = []
    for name, spec, dt in zip(names, slices, dtypes):
        value = reader.get_tensor(name)
        if spec:
            value = np.ascontiguousarray(value[_parse_slice(spec, list(value.shape), name)])
        if dt.enum == 7:
            value = value.astype(object)
        # Nobody else holds this fresh array: read-only, an Assign takes it without a copy
        # (a fetch still hands the user a writable copy).
        value.flags.writeable = False
        out.append(value)
    return out


def _merge_shape(ic) -> list[TensorShape]:
    shape_fns.with_rank(ic.input_shape(1), 0)
    return []


@register_op(
    "MergeV2Checkpoints",
    inputs=["checkpoint_prefixes: string", "destination_prefix: string"],
    attrs=["delete_old_dirs: bool = true", "allow_missing_files: bool = false"],
    shape_fn=_merge_shape,
    stateful=True,
)
def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, *, delete_old_dirs,
                         allow_missing_files):
    """Merges the bundles ``checkpoint_prefixes`` into one at ``destination_prefix``."""
    sources = _strings(checkpoint_prefixes)
    dest = _scalar_string(destination_prefix, "destination_prefix")
    readers = []
    for src in sources:
        if allow_missing_files and not os.path.exists(src + ".index"):
            continue
        readers.append(BundleReader(src))
    if not readers:
        raise invalid_argument(f"MergeV2Checkpoints: no checkpoint found among {sources}")
    entries: dict[str, Any] = {}
    for shard_id, reader in enumerate(readers):
        if reader.num_shards != 1:
            raise invalid_argument(f"{reader.index_name}: can only merge single-shard bundles")
        for key, entry in reader.entries.items():
            if key in entries:
                raise invalid_argument(f"Duplicate tensor key {key!r} in {reader.prefix}")
            merged = protos.BundleEntryProto()
            merged.CopyFrom(entry)
            merged.shard_id = shard_id
            entries[key] = merged
    n = len(readers)
    directory = os.path.dirname(dest)
    if directory:
        os.makedirs(directory, exist_ok=True)
    for shard_id, reader in enumerate(readers):
        os.replace(data_filename(reader.prefix, 0, 1), data_filename(dest, shard_id, n))
    header = protos.BundleHeaderProto(num_shards=n)
    header.version.producer = 1
    table = TableBuilder()
    table.add(b"", header.SerializeToString())
    for key in sorted(k.encode("utf-8") for k in entries):
        table.add(key, entries[key.decode("utf-8")].SerializeToString())
    with open(dest + ".index.tempstate", "wb") as f:
        f.write(table.finish())
    os.replace(dest + ".index.tempstate", dest + ".index")
    for reader in readers:
        os.remove(reader.index_name)
        if delete_old_dirs:
            parent = os.path.dirname(reader.prefix)
            if parent and parent != (directory or ".") and os.path.isdir(parent):
                try:
                    os.rmdir(parent)  # only when empty, as TensorFlow does
                except OSError:
                    pass


@register_op(
    "ShardedFilename",
    inputs=["basename: string", "shard: int32", "num_shards: int32"],
    outputs=["filename: string"],
    shape_fn=shape_fns.scalar,
)
def sharded_filename(basename, shard, num_shards):
    """``"%s-%05d-of-%05d" % (basename, shard, num_shards)``."""
    base = _scalar_string(basename, "basename")
    return np.array(f"{base}-{int(shard):05d}-of-{int(num_shards):05d}", dtype=object)


@register_op(
    "ShardedFilespec",
    inputs=["basename: string", "num_shards: int32"],
    outputs=["filename: string"],
    shape_fn=shape_fns.scalar,
)
def sharded_filespec(basename, num_shards):
    """``"%s-?????-of-%05d" % (basename, num_shards)``."""
    base = _scalar_string(basename, "basename")
    return np.array(f"{base}-?????-of-{int(num_shards):05d}", dtype=object)


for _type in ("SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
              "ShardedFilespec"):
    no_gradient(_type)
