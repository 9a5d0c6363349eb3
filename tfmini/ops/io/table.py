"""The sorted key/value table of a checkpoint's ``.index`` file (LevelDB's table format).

Layout (``tensorflow/core/lib/io/format.h``, ``table_builder.cc``, ``block_builder.cc``):
data blocks, an (empty) metaindex block, an index block, and a 48-byte footer. A block holds
prefix-compressed entries (``varint32 shared, varint32 non_shared, varint32 value_len,
key[shared:], value``), then ``u32`` restart offsets and their count; each block is followed
by a 5-byte trailer, the compression type (0: none, what TensorFlow writes) and the masked
CRC-32C of block + type. The footer holds the metaindex and index block handles (varint64
offset and size), zero padded to 40 bytes, then the magic number.

The reader treats the file as untrusted: every offset and length is checked against the
bytes actually present before it is used, so a corrupt or hostile file gives a
:class:`~tfmini.errors.DataLossError` naming the file, never a huge allocation or a hang.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from tfmini import errors
from tfmini.ops.common.crc32c import extend, mask, unmask

__all__ = ["TableBuilder", "read_table", "TABLE_MAGIC"]

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_SIZE = 262144  # TensorFlow's table_options.h default
RESTART_INTERVAL = 16
_TRAILER = 5


def put_varint(out: bytearray, value: int) -> None:
    """Appends ``value`` (non-negative) as a base-128 varint."""
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def get_varint(buf: bytes, pos: int, limit: int, what: str, max_bytes: int = 10) -> tuple:
    """Reads a varint at ``pos`` (before ``limit``); returns (value, new position)."""
    result = shift = 0
    for i in range(max_bytes):
        if pos + i >= limit:
            raise ValueError(f"truncated varint in {what}")
        b = buf[pos + i]
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos + i + 1
        shift += 7
    raise ValueError(f"varint in {what} is longer than {max_bytes} bytes")


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """LevelDB's BytewiseComparator::FindShortestSeparator."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """LevelDB's BytewiseComparator::FindShortSuccessor."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


class _BlockBuilder:
    def __init__(self, restart_interval: int):
        self.interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""
        self.empty = True

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            last = self.last_key
            n = min(len(last), len(key))
            while shared < n and last[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        put_varint(self.buf, shared)
        put_varint(self.buf, len(key) - shared)
        put_varint(self.buf, len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.counter += 1
        self.empty = False

    def size_estimate(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        out = self.buf + struct.pack(f"<{len(self.restarts)}I", *self.restarts)
        out += struct.pack("<I", len(self.restarts))
        return bytes(out)


class TableBuilder:
    """Writes a table as TensorFlow's ``table::TableBuilder`` does, uncompressed.

    Keys must be added in strictly increasing bytewise order. ``finish()`` returns the file's
    bytes (an index file is small: one entry per tensor).
    """

    def __init__(self, block_size: int = BLOCK_SIZE):
        self.block_size = block_size
        self.out = bytearray()
        self.data = _BlockBuilder(RESTART_INTERVAL)
        self.index = _BlockBuilder(1)
        self.last_key: bytes | None = None
        self.pending: tuple[int, int] | None = None  # handle of the block just written

    def _write_block(self, contents: bytes) -> tuple[int, int]:
        handle = (len(self.out), len(contents))
        self.out += contents
        trailer_type = b"\x00"
        crc = mask(extend(extend(0, contents), trailer_type))
        self.out += trailer_type + struct.pack("<I", crc)
        return handle

    @staticmethod
    def _handle(handle: tuple[int, int]) -> bytes:
        out = bytearray()
        put_varint(out, handle[0])
        put_varint(out, handle[1])
        return bytes(out)

    def _flush(self) -> None:
        if self.data.empty:
            return
        self.pending = self._write_block(self.data.finish())
        self.data.reset()

    def add(self, key: bytes, value: bytes) -> None:
        """Adds one entry; keys must increase."""
        if self.last_key is not None and key <= self.last_key:
            raise ValueError(f"table keys must increase: {key!r} after {self.last_key!r}")
        if len(key) + len(value) >= 2 * self.block_size and not self.data.empty:
            self._flush()
        if self.pending is not None:
            self.index.add(_shortest_separator(self.last_key, key), self._handle(self.pending))
            self.pending = None
        self.data.add(key, value)
        self.last_key = key
        if self.data.size_estimate() >= self.block_size:
            self._flush()

    def finish(self) -> bytes:
        """The complete table (data, metaindex, index blocks and footer)."""
        self._flush()
        meta = self._write_block(_BlockBuilder(RESTART_INTERVAL).finish())
        if self.pending is not None:
            self.index.add(_short_successor(self.last_key), self._handle(self.pending))
            self.pending = None
        index = self._write_block(self.index.finish())
        footer = bytearray(self._handle(meta) + self._handle(index))
        footer += bytes(40 - len(footer))
        footer += struct.pack("<Q", TABLE_MAGIC)
        self.out += footer
        return bytes(self.out)


def _read_block(buf: bytes, offset: int, size: int, what: str) -> bytes:
    if offset < 0 or size < 0 or offset + size + _TRAILER > len(buf) - FOOTER_SIZE:
        raise ValueError(f"{what} at offset {offset}, size {size} lies outside the file")
    contents = buf[offset:offset + size]
    kind = buf[offset + size]
    (stored,) = struct.unpack_from("<I", buf, offset + size + 1)
    actual = extend(extend(0, contents), bytes([kind]))
    if unmask(stored) != actual:
        raise ValueError(f"block checksum mismatch in {what} at offset {offset}")
    if kind == 1:
        raise ValueError(f"{what} is Snappy-compressed, which tfmini does not read")
    if kind != 0:
        raise ValueError(f"{what} has unknown compression type {kind}")
    return contents


def _block_entries(block: bytes, what: str) -> Iterator[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise ValueError(f"{what} is too short ({len(block)} bytes)")
    (n_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * n_restarts
    if n_restarts < 1 or limit < 0:
        raise ValueError(f"{what} has a bad restart count {n_restarts}")
    pos, key = 0, b""
    while pos < limit:
        shared, pos = get_varint(block, pos, limit, what, 5)
        non_shared, pos = get_varint(block, pos, limit, what, 5)
        value_len, pos = get_varint(block, pos, limit, what, 5)
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise ValueError(f"{what} has an entry running past its end")
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        yield key, block[pos:pos + value_len]
        pos += value_len


def read_table(buf: bytes, filename: str) -> list[tuple[bytes, bytes]]:
    """All entries of a table file's bytes, in order.

    Raises:
        DataLossError: the bytes are not a well-formed table (naming ``filename``).
    """
    try:
        if len(buf) < FOOTER_SIZE:
            raise ValueError(f"file is too short ({len(buf)} bytes) to be a table")
        (magic,) = struct.unpack_from("<Q", buf, len(buf) - 8)
        if magic != TABLE_MAGIC:
            raise ValueError("not an sstable (bad magic number)")
        footer_start = len(buf) - FOOTER_SIZE
        end = footer_start + 40
        _, pos = get_varint(buf, footer_start, end, "footer")
        _, pos = get_varint(buf, pos, end, "footer")
        index_off, pos = get_varint(buf, pos, end, "footer")
        index_size, pos = get_varint(buf, pos, end, "footer")
        index = _read_block(buf, index_off, index_size, "index block")
        entries: list[tuple[bytes, bytes]] = []
        for _, handle in _block_entries(index, "index block"):
            off, p = get_varint(handle, 0, len(handle), "block handle")
            size, _ = get_varint(handle, p, len(handle), "block handle")
            block = _read_block(buf, off, size, "data block")
            for key, value in _block_entries(block, "data block"):
                if entries and key <= entries[-1][0]:
                    raise ValueError(f"keys out of order at {key!r}")
                entries.append((key, value))
        return entries
    except (ValueError, struct.error) as e:
        raise errors.DataLossError(None, None, f"{filename}: corrupted table: {e}") from None
