"""Summary ops and event files against TensorFlow 2.21 (tools/record_goldens_summary.py)."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import tfmini as tm
from tfmini.ops.io import encoders, events

GOLDENS = Path(__file__).resolve().parents[2] / "goldens"
REC = json.loads((GOLDENS / "summary.json").read_text())
TF_EVENTS = GOLDENS / "summary" / "tf_events"

HIST_INPUTS = {
    "vector": np.array([-1, 0, 0.5, 2, 2, 1e-13], np.float32),
    "zeros": np.zeros(7, np.float32),
    "normals": np.random.RandomState(0).randn(1000).astype(np.float32),
    "empty": np.zeros(0, np.float32),
    "ints": np.array([3, -7, 100000, 0], np.int32),
}
IMAGES = {
    "positive": np.random.RandomState(1).rand(2, 3, 4, 3).astype(np.float32) * 5,
    "signed": (np.random.RandomState(2).randn(1, 4, 3, 1)).astype(np.float32),
    "uint8": np.random.RandomState(3).randint(0, 256, (3, 2, 2, 4)).astype(np.uint8),
    "nan": np.array([[[[0.5], [np.nan]], [[np.inf], [1.0]]]], np.float32),
}
AUDIO = (np.random.RandomState(4).rand(2, 10, 2).astype(np.float32) * 2.4 - 1.2)


@pytest.fixture
def sess(graph):
    with tm.Session(graph=graph) as s:
        yield s


def _png_pixels(data: bytes) -> np.ndarray:
    """Decodes the PNGs tfmini writes (8-bit, filter 0) to check them independently."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat, header = 8, b"", None
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        assert struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    width, height, depth, color = header[:4]
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, -1)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_scalar_bytes_equal_tensorflow(sess):
    assert sess.run(tm.summary.scalar("loss", tm.constant(0.0))).hex() == REC["scalar"]
    vec = tm.raw_ops.ScalarSummary(tags=["a", "b/c"],
                                   values=tm.constant([1.5, -2.25], tm.float64))
    assert sess.run(vec).hex() == REC["scalar_vector"]


@pytest.mark.parametrize("name", sorted(HIST_INPUTS))
def test_histogram_bytes_equal_tensorflow(sess, name):
    op = tm.summary.histogram("h_" + name, tm.constant(HIST_INPUTS[name]))
    got = tm.summary.Summary.FromString(sess.run(op))
    want = tm.summary.Summary.FromString(bytes.fromhex(REC["histograms"][name]))
    assert got == want  # every field, every bucket
    assert sess.run(op).hex() == REC["histograms"][name]


def test_default_bucket_limits():
    limits = encoders.default_bucket_limits()
    assert limits[0] == -np.finfo(np.float64).max and limits[-1] == np.finfo(np.float64).max
    assert limits[len(limits) // 2] == 0.0
    assert np.all(np.diff(limits) > 0)


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_image_pixels_equal_tensorflow(sess, name):
    op = tm.summary.image("img_" + name, IMAGES[name], max_outputs=2)
    got = tm.summary.Summary.FromString(sess.run(op))
    want = REC["images"][name]
    assert [v.tag for v in got.value] == [w["tag"] for w in want]
    for v, w in zip(got.value, want, strict=True):
        assert (v.image.height, v.image.width, v.image.colorspace) == (
            w["height"], w["width"], w["colorspace"])
        np.testing.assert_array_equal(_png_pixels(v.image.encoded_image_string),
                                      np.array(w["pixels"], np.uint8))


def test_image_tag_with_one_output(sess):
    got = tm.summary.Summary.FromString(
        sess.run(tm.summary.image("one", IMAGES["positive"], max_outputs=1)))
    assert [v.tag for v in got.value] == REC["image_one_tags"]


def test_audio_equals_tensorflow(sess):
    got = tm.summary.Summary.FromString(sess.run(tm.summary.audio("clip", AUDIO, 8000.0)))
    assert len(got.value) == len(REC["audio"])
    for v, w in zip(got.value, REC["audio"], strict=True):
        assert v.tag == w["tag"] and v.audio.content_type == w["content_type"]
        assert (v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames) == (
            w["sample_rate"], w["num_channels"], w["length_frames"])
        wav = v.audio.encoded_audio_string
        assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
        samples = np.frombuffer(wav[44:], "<i2")
        np.testing.assert_array_equal(samples, w["samples"])


def test_text_and_tensor_summaries_equal_tensorflow(sess):
    assert sess.run(tm.summary.text("note", tm.constant(["hi", "there"]))).hex() == REC["text"]
    t = tm.summary.tensor_summary("t", tm.constant([[1, 2], [3, 4]], tm.int32),
                                  summary_description="desc")
    assert sess.run(t).hex() == REC["tensor"]
    ts = tm.summary.tensor_summary("ts", tm.constant(2.5), display_name="shown")
    assert sess.run(ts).hex() == REC["tensor_scalar"]
    with pytest.raises(ValueError, match="to have dtype string"):
        tm.summary.text("bad", tm.constant(1.0))


def test_names_families_and_merge_equal_tensorflow(sess):
    fam = tm.summary.scalar("acc", tm.constant(0.75), family="eval")
    assert fam.op.name == REC["family_name"] and sess.run(fam).hex() == REC["family"]
    with tm.name_scope("outer"):
        inner = tm.summary.scalar("x y", tm.constant(1.0))
    assert inner.op.name == REC["scoped_name"] and sess.run(inner).hex() == REC["scoped"]
    assert tm.summary.merge_all().op.name == REC["merge_all_name"]
    merged = tm.summary.merge([tm.summary.scalar("m1", tm.constant(1.0)),
                               tm.summary.histogram("m2", tm.constant([1.0, 2.0]))])
    assert sess.run(merged).hex() == REC["merged"]


def test_merge_all_of_nothing_is_none(graph):
    assert tm.summary.merge_all() is None


@pytest.mark.parametrize("key", sorted(REC["errors"]))
def test_errors_match_tensorflow(sess, key):
    ops = {
        "histogram_nan": lambda: tm.summary.histogram("bad", tm.constant([1.0, np.nan])),
        "histogram_inf": lambda: tm.summary.histogram("bad_inf", tm.constant([np.inf])),
        "scalar_shape": lambda: tm.raw_ops.ScalarSummary(tags=["a", "b"], values=[1.0]),
        "merge_duplicate": lambda: tm.summary.merge([
            tm.raw_ops.ScalarSummary(tags="dup", values=1.0),
            tm.raw_ops.ScalarSummary(tags="dup", values=2.0)]),
        "image_rank": lambda: tm.raw_ops.ImageSummary(tag="i", tensor=tm.zeros([2, 2, 3])),
    }
    want = REC["errors"][key]
    with pytest.raises(getattr(tm.errors, want["class"])) as info:
        sess.run(ops[key]())
    assert want["message"].strip() in str(info.value)


# -- event files ------------------------------------------------------------------------------
def test_tensorflow_event_file_parses():
    evs = list(tm.summary.summary_iterator(str(TF_EVENTS)))
    assert evs[0].file_version == "brain.Event:2"
    kinds = [e.WhichOneof("what") for e in evs]
    assert kinds[1:3] == ["graph_def", "meta_graph_def"]
    gd = tm.io.graph_def_to_proto.__globals__["protos"].GraphDef.FromString(evs[1].graph_def)
    assert "stats/Mean" in {n.name for n in gd.node}
    summaries = [e for e in evs if e.WhichOneof("what") == "summary"]
    assert [e.step for e in summaries] == [0, 1, 2]
    for e in summaries:
        # The placeholder took "x": the summary's scope (and tag) is "x_1".
        assert [v.tag for v in e.summary.value] == ["mean", "x_1"]


def test_same_summaries_as_tensorflow_wrote(graph, tmp_path):
    """tfmini's records for the TF file's summaries equal TF's serialized Summary bytes."""
    x = tm.placeholder(tm.float32, [None], name="x")
    with tm.name_scope("stats"):
        mean = tm.reduce_mean(x)
    tm.summary.scalar("mean", mean)
    tm.summary.histogram("x", x)
    merged = tm.summary.merge_all()
    want = [e.summary for e in tm.summary.summary_iterator(str(TF_EVENTS))
            if e.WhichOneof("what") == "summary"]
    writer = tm.summary.FileWriter(str(tmp_path), graph)
    with tm.Session(graph=graph) as sess:
        for step in range(3):
            values = np.linspace(-1, 1, 11).astype(np.float32) * (step + 1)
            s = sess.run(merged, {x: values})
            got = tm.summary.Summary.FromString(s)
            assert [v.tag for v in got.value] == [v.tag for v in want[step].value]
            # The histogram's bytes are TF's; the mean may differ in its last bit (the sum's
            # order is reduce_mean's business, not the summary's).
            assert got.value[1].SerializeToString() == want[step].value[1].SerializeToString()
            assert got.value[0].simple_value == pytest.approx(want[step].value[0].simple_value,
                                                              abs=1e-6)
            writer.add_summary(s, step)
    writer.close()
    (path,) = tmp_path.glob("events.out.tfevents.*")
    got = list(tm.summary.summary_iterator(str(path)))
    assert got[0].file_version == "brain.Event:2" and got[0].wall_time == int(got[0].wall_time)
    assert [e.WhichOneof("what") for e in got] == [
        "file_version", "graph_def", "meta_graph_def", "summary", "summary", "summary"]
    assert [e.summary.value[1] for e in got[3:]] == [s.value[1] for s in want]


def test_event_file_name_and_version(tmp_path):
    w = tm.summary.FileWriter(str(tmp_path / "logs"), filename_suffix=".x")
    w.close()
    (path,) = (tmp_path / "logs").iterdir()
    prefix, seconds, host = path.name[:-2].split(".")[0:4:1][0], None, None
    parts = path.name.split(".")
    assert parts[:3] == ["events", "out", "tfevents"] and len(parts[3]) == 10
    assert path.name.endswith(".x") and prefix == "events"
    del seconds, host
    (ev,) = tm.summary.summary_iterator(str(path))
    assert ev.file_version == "brain.Event:2"


def test_writer_flush_close_reopen_and_logs(tmp_path, graph):
    w = tm.summary.FileWriter(str(tmp_path), max_queue=2, flush_secs=1000)
    assert w.get_logdir() == str(tmp_path)
    s = tm.summary.Summary()
    for step in range(5):
        s.value.add(tag=f"t{step}", simple_value=step)
        w.add_summary(s, step)
    w.add_session_log(tm.summary.SessionLog(status=tm.summary.SessionLog.START), 0)
    w.flush()
    (path,) = tmp_path.iterdir()
    evs = list(tm.summary.summary_iterator(str(path)))
    assert len(evs) == 7 and evs[-1].session_log.status == tm.summary.SessionLog.START
    with pytest.raises(ValueError, match="already used"):
        w.add_run_metadata(tm.RunMetadata(), "a")
        w.add_run_metadata(tm.RunMetadata(), "a")
    w.close()
    w.add_summary(s, 9)  # ignored once closed, as in TensorFlow
    w.reopen()
    w.add_summary(s, 10)
    w.close()
    assert len(list(tmp_path.iterdir())) in (1, 2)  # a second file unless in the same second
    with pytest.raises(TypeError, match="MetaGraphDef"):
        w.add_meta_graph("nope")
    with pytest.raises(ValueError, match="not both"):
        w.add_graph(graph, graph_def=tm.io.graph_def_to_proto(graph))


def test_summary_metadata_written_once_per_tag(tmp_path, sess):
    w = tm.summary.FileWriter(str(tmp_path))
    text = tm.summary.text("note", tm.constant("hello"))
    for step in range(2):
        w.add_summary(sess.run(text), step)
    w.close()
    (path,) = tmp_path.iterdir()
    values = [e.summary.value[0] for e in tm.summary.summary_iterator(str(path))
              if e.WhichOneof("what") == "summary"]
    assert values[0].metadata.plugin_data.plugin_name == "text"
    assert not values[1].HasField("metadata")


def _write_file(tmp_path) -> Path:
    w = tm.summary.FileWriter(str(tmp_path))
    s = tm.summary.Summary()
    s.value.add(tag="loss", simple_value=1.0)
    w.add_summary(s, 1)
    w.close()
    (path,) = tmp_path.glob("events.out.tfevents.*")
    return path


@pytest.mark.parametrize("damage", ["truncate", "flip_data", "flip_length", "garbage"])
def test_damaged_event_file_is_data_loss(tmp_path, damage):
    path = _write_file(tmp_path)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[:-5]
    elif damage == "flip_data":
        data[-6] ^= 0xFF
    elif damage == "flip_length":
        data[len(data) - 20] ^= 0x01
    else:
        data += b"\x07" * 30
    path.write_bytes(bytes(data))
    with pytest.raises(tm.errors.DataLossError, match=str(path.name)):
        list(tm.summary.summary_iterator(str(path)))


def test_record_that_is_not_an_event(tmp_path):
    path = tmp_path / "events.out.tfevents.0.h"
    from tfmini.ops import data

    path.write_bytes(data.encode_record(b"\xff\xff\xff"))
    with pytest.raises(tm.errors.DataLossError, match="not an Event"):
        list(tm.summary.summary_iterator(str(path)))
    with pytest.raises(tm.errors.NotFoundError):
        list(tm.summary.summary_iterator(str(tmp_path / "missing")))


def test_background_writer_flushes_on_its_own(tmp_path):
    import time

    w = events.EventFileWriter(str(tmp_path), flush_secs=0.05)
    ev = tm.summary.Event(step=3)
    w.add_event(ev)
    deadline = time.time() + 5
    while time.time() < deadline:
        if len(list(tm.summary.summary_iterator(w.path))) == 2:
            break
        time.sleep(0.02)
    assert [e.step for e in tm.summary.summary_iterator(w.path)] == [0, 3]
    w.close()


# -- TensorBoard's own reader (optional) -------------------------------------------------------
def test_tensorboard_reads_tfmini_event_file(graph, tmp_path):
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    x = tm.placeholder(tm.float32, [None], name="x")
    with tm.name_scope("stats"):
        mean = tm.reduce_mean(x)
    tm.summary.scalar("mean", mean)
    tm.summary.histogram("x", x)
    merged = tm.summary.merge_all()
    w = tm.summary.FileWriter(str(tmp_path), graph)
    with tm.Session(graph=graph) as sess:
        for step in range(3):
            w.add_summary(sess.run(merged, {x: np.arange(5, dtype=np.float32) * step}), step)
    w.close()
    acc = ea_mod.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})  # keep all
    acc.Reload()
    assert [e.value for e in acc.Scalars("mean")] == [0.0, 2.0, 4.0]
    hist = acc.Histograms("x_1")  # the placeholder took "x"
    assert [h.step for h in hist] == [0, 1, 2] and hist[2].histogram_value.max == 8.0
    assert "stats/Mean" in {n.name for n in acc.Graph().node}

