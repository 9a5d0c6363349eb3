"""TensorFlow's V2 checkpoint ("tensor bundle"): ``PREFIX.index`` + ``PREFIX.data-*``.

Format (``tensorflow/core/util/tensor_bundle/tensor_bundle.cc``, ``tensor_bundle.proto``):

* ``PREFIX.index`` is a table (:mod:`tfmini.ops.io.table`) whose first key ``""`` holds a
  ``BundleHeaderProto`` (number of shards, endianness, version) and whose other keys are
  tensor names, each holding a ``BundleEntryProto`` (dtype, shape, shard id, offset, size and
  the masked CRC-32C of the tensor's bytes).
* ``PREFIX.data-SSSSS-of-NNNNN`` holds the tensors' raw little-endian C-order bytes, one after
  the other in the order they were added, without padding. A string tensor is stored as the
  varint64 length of each element, the masked CRC-32C of those lengths (each taken as a u32,
  or u64 past 2**32 - 1), then the elements' bytes.

:class:`BundleWriter` writes files byte-identical to TensorFlow's ``BundleWriter``;
:class:`BundleReader` reads TensorFlow's files. Files on disk are untrusted: every offset,
size, shape and checksum is checked before bytes are read or memory is allocated, and a
problem is a :class:`~tfmini.errors.DataLossError` (or ``NotFoundError`` for a missing key or
file) naming the file.
"""

from __future__ import annotations

import difflib
import os
import struct
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.ops.common.crc32c import extend, mask, unmask
from tfmini.ops.io import protos
from tfmini.ops.io.table import TableBuilder, get_varint, put_varint, read_table

__all__ = ["BundleReader", "BundleWriter", "data_filename", "NUMPY_BY_ENUM", "ENUM_BY_NUMPY"]

# TensorFlow DataType number <-> NumPy dtype (little-endian) for tensors in bundles.
NUMPY_BY_ENUM: dict[int, np.dtype] = {
    1: np.dtype("<f4"), 2: np.dtype("<f8"), 3: np.dtype("<i4"), 4: np.dtype("u1"),
    5: np.dtype("<i2"), 6: np.dtype("i1"), 8: np.dtype("<c8"), 9: np.dtype("<i8"),
    10: np.dtype("?"), 17: np.dtype("<u2"), 18: np.dtype("<c16"), 19: np.dtype("<f2"),
    22: np.dtype("<u4"), 23: np.dtype("<u8"), 14: np.dtype("bfloat16"),
}
ENUM_BY_NUMPY = {dt.newbyteorder("="): e for e, dt in NUMPY_BY_ENUM.items()}
DT_STRING = 7
_NAMES = {v: k for k, v in protos.DATA_TYPES.items()}
# Big tensors are checksummed and copied in pieces of this size: each piece is summed while
# it is still in the CPU cache from the copy next to it, instead of streaming the whole
# tensor through memory twice (about a third less time at 64 MB per tensor).
_CHUNK = 1 << 20


def dtype_name(enum: int) -> str:
    """TensorFlow's name of a DataType number (``DT_FLOAT``)."""
    return _NAMES.get(enum, f"DataType({enum})")


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    """``PREFIX.data-SSSSS-of-NNNNN`` (TensorFlow's DataFilename)."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


def _enum_of(array: np.ndarray) -> int:
    if array.dtype == object or array.dtype.kind in "SU":
        return DT_STRING
    enum = ENUM_BY_NUMPY.get(array.dtype.newbyteorder("="))
    if enum is None:
        raise errors.InvalidArgumentError(
            None, None, f"cannot save a tensor of NumPy dtype {array.dtype} in a checkpoint")
    return enum


def _string_bytes(array: np.ndarray) -> tuple[list[bytes], int]:
    """(the byte runs of a string tensor's stored form, their masked CRC-32C)."""
    elems = [e.encode("utf-8") if isinstance(e, str) else bytes(e) for e in array.ravel()]
    lengths = bytearray()
    crc = 0
    for e in elems:
        put_varint(lengths, len(e))
        n = len(e)
        crc = extend(crc, struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n))
    length_crc = struct.pack("<I", mask(crc))
    crc = extend(crc, length_crc)
    runs = [bytes(lengths), length_crc]
    for e in elems:
        crc = extend(crc, e)
    return runs + elems, mask(crc)


class BundleWriter:
    """Writes one bundle (one data shard), as TensorFlow's ``BundleWriter``.

    Tensors go to a temporary data file as they are added; ``finish()`` writes the index
    and renames both into place, so readers never see half-written files.

    Args:
        prefix: The checkpoint prefix (``dir/model.ckpt-41``); the directory is created.
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        directory = os.path.dirname(prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._tag = f".tempstate{uuid.uuid4().int % 10**19}"
        self._data_name = data_filename(prefix, 0, 1)
        self._data = open(self._data_name + self._tag, "wb")  # noqa: SIM115 (closed in finish)
        self._offset = 0
        self._entries: dict[bytes, Any] = {}

    def add(self, name: str | bytes, value: Any) -> None:
        """Appends one tensor under ``name`` (a variable's op name)."""
        key = name.encode("utf-8") if isinstance(name, str) else bytes(name)
        if not key:
            raise errors.InvalidArgumentError(None, None, "a checkpoint key must not be empty")
        if key in self._entries:
            raise errors.InvalidArgumentError(
                None, None, f"Adding duplicate key: {key.decode('utf-8', 'replace')}")
        array = np.asarray(value)
        entry = protos.BundleEntryProto(dtype=_enum_of(array))
        entry.shape.SetInParent()
        for d in array.shape:
            entry.shape.dim.add(size=d)
        entry.offset = self._offset
        if entry.dtype == DT_STRING:
            runs, crc = _string_bytes(array)
            for run in runs:
                self._data.write(run)
            size = sum(len(r) for r in runs)
        else:
            array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
            raw = array.reshape(-1).view(np.uint8)
            crc = 0
            for start in range(0, raw.size, _CHUNK):
                piece = raw[start:start + _CHUNK]
                crc = extend(crc, piece)
                self._data.write(memoryview(piece))  # no bytes copy of the tensor
            crc = mask(crc)
            size = array.nbytes
        entry.size = size
        entry.crc32c = crc
        self._offset += size
        self._entries[key] = entry

    def finish(self) -> None:
        """Writes the index, renames the files into place."""
        self._data.close()
        header = protos.BundleHeaderProto(num_shards=1)
        header.version.producer = 1
        table = TableBuilder()
        table.add(b"", header.SerializeToString())
        for key in sorted(self._entries):
            table.add(key, self._entries[key].SerializeToString())
        index_name = self.prefix + ".index"
        with open(index_name + self._tag, "wb") as f:
            f.write(table.finish())
        os.replace(self._data_name + self._tag, self._data_name)
        os.replace(index_name + self._tag, index_name)

    def abort(self) -> None:
        """Removes the temporary files of an unfinished bundle."""
        self._data.close()
        for name in (self._data_name + self._tag, self.prefix + ".index" + self._tag):
            if os.path.exists(name):
                os.remove(name)


def write_bundle(prefix: str, tensors: Sequence[tuple[str, Any]]) -> None:
    """Writes ``tensors`` (name, value pairs, in this order in the data file) as a bundle."""
    writer = BundleWriter(prefix)
    try:
        for name, value in tensors:
            writer.add(name, value)
        writer.finish()
    except BaseException:
        writer.abort()
        raise


class BundleReader:
    """Reads a bundle written by TensorFlow or :class:`BundleWriter`.

    Args:
        prefix: The checkpoint prefix (the path without ``.index``).

    Raises:
        NotFoundError: there is no ``PREFIX.index``.
        DataLossError: the index is corrupted or not a bundle.
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.index_name = prefix + ".index"
        try:
            with open(self.index_name, "rb") as f:
                buf = f.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise errors.NotFoundError(
                None, None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
                f"for {prefix}") from None
        rows = read_table(buf, self.index_name)
        if not rows or rows[0][0] != b"":
            self._corrupt("the first entry is not the bundle header")
        header = protos.BundleHeaderProto()
        self._parse(header, rows[0][1], "bundle header")
        if header.endianness != 0:
            raise errors.UnimplementedError(
                None, None, f"{self.index_name}: big-endian checkpoints are not supported")
        if header.version.min_consumer > 1 or 1 in header.version.bad_consumers:
            self._corrupt(f"written for a newer reader (version {header.version})")
        if header.num_shards < 1:
            self._corrupt(f"bad number of shards {header.num_shards}")
        self.num_shards = header.num_shards
        self.entries: dict[str, Any] = {}
        for key, value in rows[1:]:
            entry = protos.BundleEntryProto()
            name = key.decode("utf-8", "replace")
            self._parse(entry, value, f"entry {name!r}")
            self.entries[name] = entry
        self._sizes: dict[int, int] = {}

    def _corrupt(self, what: str):
        raise errors.DataLossError(None, None, f"{self.index_name}: {what}")

    def _parse(self, message: Any, value: bytes, what: str) -> None:
        try:
            message.ParseFromString(value)
        except Exception as e:  # protobuf's DecodeError and friends
            self._corrupt(f"cannot parse {what}: {e}")

    # -- what is there ----------------------------------------------------------------------
    def keys(self) -> list[str]:
        """The names of the whole tensors (not the parts of partitioned variables)."""
        return [k for k in self.entries if not k.startswith("\x00")]

    def has_tensor(self, name: str) -> bool:
        """Whether ``name`` is in the bundle."""
        return name in self.entries and not name.startswith("\x00")

    def dtype_enum(self, name: str) -> int:
        """The DataType number of ``name``."""
        return self._entry(name).dtype

    def shape(self, name: str) -> list[int]:
        """The shape of ``name``."""
        entry = self._entry(name)
        if entry.shape.unknown_rank:
            self._corrupt(f"tensor {name!r} has an unknown rank")
        return [d.size for d in entry.shape.dim]

    def variable_to_shape_map(self) -> dict[str, list[int]]:
        """``{name: shape}`` for every tensor."""
        return {k: self.shape(k) for k in self.keys()}

    def variable_to_dtype_map(self) -> dict[str, int]:
        """``{name: DataType number}`` for every tensor."""
        return {k: self.dtype_enum(k) for k in self.keys()}

    def closest_keys(self, name: str, n: int = 3) -> list[str]:
        """Up to ``n`` keys that look most like ``name`` (for error messages)."""
        return difflib.get_close_matches(name, self.keys(), n=n, cutoff=0.4)

    def _entry(self, name: str) -> Any:
        entry = self.entries.get(name)
        if entry is None or name.startswith("\x00"):
            close = self.closest_keys(name)
            hint = f" Closest keys in the checkpoint: {', '.join(close)}." if close else ""
            raise errors.NotFoundError(
                None, None, f"Key {name} not found in checkpoint {self.prefix}.{hint}")
        return entry

    # -- reading values ---------------------------------------------------------------------
    def _data_file(self, shard_id: int) -> tuple[str, int]:
        if not 0 <= shard_id < self.num_shards:
            self._corrupt(f"shard id {shard_id} not below the {self.num_shards} shards")
        name = data_filename(self.prefix, shard_id, self.num_shards)
        if shard_id not in self._sizes:
            try:
                self._sizes[shard_id] = os.path.getsize(name)
            except OSError:
                raise errors.NotFoundError(
                    None, None, f"{name}: data file of checkpoint {self.prefix} is missing"
                ) from None
        return name, self._sizes[shard_id]

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of ``name`` as a NumPy array (strings: an object array of bytes)."""
        entry = self._entry(name)
        if entry.slices:
            return self._assemble(name, entry)
        shape = self.shape(name)
        if any(d < 0 for d in shape):
            self._corrupt(f"tensor {name!r} has a negative dimension in {shape}")
        count = int(np.prod(shape, dtype=object)) if shape else 1
        filename, file_size = self._data_file(entry.shard_id)
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > file_size:
            raise errors.DataLossError(
                None, None,
                f"{filename}: tensor {name!r} at offset {entry.offset}, size {entry.size} runs "
                f"past the end of the file ({file_size} bytes); the checkpoint is truncated")
        if entry.dtype == DT_STRING:
            return self._read_strings(name, entry, filename, shape, count)
        dtype = NUMPY_BY_ENUM.get(entry.dtype)
        if dtype is None:
            raise errors.UnimplementedError(
                None, None, f"{self.index_name}: tensor {name!r} has unsupported dtype "
                f"{dtype_name(entry.dtype)}")
        if count * dtype.itemsize != entry.size:
            self._corrupt(f"tensor {name!r} of shape {shape} and dtype "
                          f"{dtype_name(entry.dtype)} needs {count * dtype.itemsize} bytes, "
                          f"the entry says {entry.size}")
        out = np.empty(shape, dtype.newbyteorder("="))
        raw = out.reshape(-1).view(np.uint8)
        crc = 0
        # Unbuffered: readinto fills the array straight from the file, with no copy through
        # Python's buffer.
        with open(filename, "rb", buffering=0) as f:
            f.seek(entry.offset)
            for start in range(0, raw.size, _CHUNK):
                piece = raw[start:start + _CHUNK]
                got = f.readinto(memoryview(piece))
                if got != piece.size:
                    raise errors.DataLossError(
                        None, None, f"{filename}: truncated reading {name!r}")
                crc = extend(crc, piece)
        if unmask(entry.crc32c) != crc:
            raise errors.DataLossError(
                None, None, f"{filename}: checksum does not match for tensor {name!r}; "
                "the checkpoint is corrupted")
        return out

    def _read_strings(self, name: str, entry: Any, filename: str, shape: list[int],
                      count: int) -> np.ndarray:
        with open(filename, "rb") as f:
            f.seek(entry.offset)
            raw = f.read(entry.size)
        try:
            pos, lengths, crc = 0, [], 0
            for _ in range(count):
                n, pos = get_varint(raw, pos, len(raw), f"string lengths of {name!r}")
                lengths.append(n)
                crc = extend(crc, struct.pack("<I", n) if n <= 0xFFFFFFFF
                             else struct.pack("<Q", n))
            if pos + 4 > len(raw):
                raise ValueError("truncated")
            (stored,) = struct.unpack_from("<I", raw, pos)
            if unmask(stored) != crc:
                raise ValueError("length checksum mismatch")
            crc = extend(crc, raw[pos:pos + 4])
            pos += 4
            if pos + sum(lengths) != len(raw):
                raise ValueError("element bytes do not add up to the entry's size")
            out = np.empty(count, object)
            for i, n in enumerate(lengths):
                out[i] = raw[pos:pos + n]
                pos += n
            crc = extend(crc, raw[pos - sum(lengths):pos])
        except ValueError as e:
            raise errors.DataLossError(
                None, None, f"{filename}: string tensor {name!r} is corrupted: {e}") from None
        if unmask(entry.crc32c) != crc:
            raise errors.DataLossError(
                None, None, f"{filename}: checksum does not match for tensor {name!r}")
        return out.reshape(shape)

    def _assemble(self, name: str, entry: Any) -> np.ndarray:
        raise errors.UnimplementedError(
            None, None, f"{self.index_name}: {name!r} is a partitioned variable; reading "
            "partitioned variables is not supported")
