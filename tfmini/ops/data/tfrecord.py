"""TFRecord framing and the masked CRC32C (TensorFlow's ``tensorflow/core/lib/io/record_writer.cc``,
``record_reader.cc`` and ``tensorflow/core/lib/hash/crc32c.h``).

A record is::

    uint64 length (little endian) | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)

There is no file header. Files are untrusted input: every field is checked, and a length field
is compared with the bytes left in the file *before* anything is allocated, so a corrupt or
hostile length fails with ``DataLossError`` instead of asking for gigabytes.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator

from tfmini import errors
from tfmini.ops.common.crc32c import masked_crc32c  # shared with the checkpoint files

__all__: list[str] = []


def encode_record(data: bytes) -> bytes:
    """One record in TFRecord framing."""
    header = struct.pack("<Q", len(data))
    return b"".join((header, struct.pack("<I", masked_crc32c(header)), data,
                     struct.pack("<I", masked_crc32c(data))))


def _loss(path: str, what: str, offset: int) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"{what} in file {path!r} at byte {offset}")


def read_records(path: str) -> Iterator[bytes]:
    """Yields the records of the TFRecord file ``path``, checking both CRCs of each.

    Raises:
        NotFoundError: the file does not exist.
        DataLossError: a truncated record, a length that does not fit the file, or a CRC
            mismatch; the message names the file and the byte offset.
    """
    try:
        f = open(path, "rb")  # noqa: SIM115  (held across yields)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    with f:
        size = os.fstat(f.fileno()).st_size
        offset = 0
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise _loss(path, "truncated record header", offset)
            (length,) = struct.unpack("<Q", header[:8])
            (length_crc,) = struct.unpack("<I", header[8:])
            if masked_crc32c(header[:8]) != length_crc:
                raise _loss(path, "corrupted record (length CRC mismatch)", offset)
            left = size - offset - 12
            if length + 4 > left:
                raise _loss(path, f"truncated record (length {length}, {max(left, 0)} bytes "
                            "left)", offset)
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise _loss(path, "truncated record", offset)
            if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
                raise _loss(path, "corrupted record (data CRC mismatch)", offset)
            offset += 16 + length
            yield data


def read_lines(path: str) -> Iterator[bytes]:
    """Yields the lines of a text file without their ``\\n`` (or ``\\r\\n``), as
    ``TextLineDataset`` does (``tensorflow/core/kernels/data/text_line_dataset_op.cc``)."""
    try:
        f = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    with f:
        for line in f:
            if line.endswith(b"\n"):
                line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
            yield line
