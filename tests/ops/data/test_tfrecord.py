"""TFRecord files: TensorFlow's framing and masked CRC32C (record_writer.cc), a file written
by TensorFlow 2.21 (tests/goldens/data_tf.tfrecord, by tools/record_goldens_data.py) read back
and written again byte for byte, and corrupt files failing with DataLossError."""

from __future__ import annotations

import struct

import pytest

import tfmini as tm
from tests.conftest import GOLDEN_DIR
from tests.ops.data import data_cases as C
from tfmini.ops.common.crc32c import crc32c
from tfmini.ops.data import tfrecord

TF_FILE = GOLDEN_DIR / C.TF_RECORD_FILE


def test_crc32c_check_values():
    # RFC 3720 (iSCSI) B.4 test vectors for CRC-32C.
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(bytes([0xFF] * 32)) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E


def test_empty_record_framing():
    assert tfrecord.encode_record(b"").hex() == "000000000000000029039807d8ea82a2"


def test_reads_tensorflows_file():
    assert list(tm.io.tf_record_iterator(str(TF_FILE))) == C.RECORDS
    assert list(tm.python_io.tf_record_iterator(str(TF_FILE))) == C.RECORDS


def test_writes_the_same_bytes_as_tensorflow(tmp_path):
    path = tmp_path / "mine.tfrecord"
    with tm.io.TFRecordWriter(str(path)) as w:
        for r in C.RECORDS:
            w.write(r)
    assert path.read_bytes() == TF_FILE.read_bytes()


def _read_all(path):
    g = tm.Graph()
    with g.as_default():
        nxt = tm.data.make_one_shot_iterator(tm.data.TFRecordDataset(str(path))).get_next()
    out = []
    with tm.Session(graph=g) as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tm.errors.OutOfRangeError:
                return out


def _corrupt(tmp_path, data: bytes):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("how", ["truncated_header", "truncated_data", "data_crc",
                                 "length_crc", "hostile_length"])
def test_corrupt_files_fail_cleanly(tmp_path, how):
    good = TF_FILE.read_bytes()
    first = tfrecord.encode_record(b"a")
    if how == "truncated_header":
        data = good + b"\x01\x02\x03"
    elif how == "truncated_data":
        data = good[:-3]
    elif how == "data_crc":
        data = first[:-1] + bytes([first[-1] ^ 1])
    elif how == "length_crc":
        data = first[:8] + bytes([first[8] ^ 1]) + first[9:]
    else:
        # a length of 2**60 with a valid CRC: must be refused before allocating anything
        header = struct.pack("<Q", 1 << 60)
        data = header + struct.pack("<I", tfrecord.masked_crc32c(header)) + b"xx"
    path = _corrupt(tmp_path, data)
    with pytest.raises(tm.errors.DataLossError, match="bad.tfrecord"):
        list(tm.io.tf_record_iterator(str(path)))
    with pytest.raises(tm.errors.DataLossError, match="bad.tfrecord"):
        _read_all(path)


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(tm.errors.NotFoundError, match="nope"):
        _read_all(tmp_path / "nope.tfrecord")


def test_records_read_by_the_dataset_after_a_failure(tmp_path):
    path = tmp_path / "ok.tfrecord"
    with tm.io.TFRecordWriter(str(path)) as w:
        w.write(b"one")
        w.write("two")
    assert _read_all(path) == [b"one", b"two"]
