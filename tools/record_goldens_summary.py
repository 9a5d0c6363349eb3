"""Records TensorFlow's summaries and an event file into tests/goldens/summary*.

Run with a Python that has TensorFlow (tfmini itself never imports it)::

    /tmp/tfenv/bin/python tools/record_goldens_summary.py

Writes ``tests/goldens/summary.json`` (serialized ``Summary`` bytes of scalar, histogram,
tensor/text and merged summaries, the decoded pixels and samples of image and audio
summaries, error classes and messages) and ``tests/goldens/summary/tf_events`` (an event
file written by ``tf.compat.v1.summary.FileWriter``: the graph, 3 scalars, 3 histograms).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import struct
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "goldens"

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


def _wav_samples(data: bytes) -> list:
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    i = 12
    while i < len(data):
        kind, size = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        if kind == b"data":
            return np.frombuffer(data[i + 8:i + 8 + size], "<i2").tolist()
        i += 8 + size
    raise ValueError("no data chunk")


def main() -> None:
    rec: dict = {"histograms": {}, "images": {}, "errors": {}}
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        rec["scalar"] = sess.run(tf.summary.scalar("loss", tf.constant(0.0))).hex()
        rec["scalar_vector"] = sess.run(tf.raw_ops.ScalarSummary(
            tags=["a", "b/c"], values=tf.constant([1.5, -2.25], tf.float64))).hex()
        for name, arr in HIST_INPUTS.items():
            rec["histograms"][name] = sess.run(
                tf.summary.histogram("h_" + name, tf.constant(arr))).hex()
        for name, arr in IMAGES.items():
            s = tf.Summary.FromString(sess.run(tf.summary.image("img_" + name, arr,
                                                                max_outputs=2)))
            rec["images"][name] = [
                {"tag": v.tag, "height": v.image.height, "width": v.image.width,
                 "colorspace": v.image.colorspace,
                 "pixels": sess.run(tf.image.decode_png(v.image.encoded_image_string)).tolist()}
                for v in s.value]
        one = tf.Summary.FromString(sess.run(tf.summary.image("one", IMAGES["positive"],
                                                              max_outputs=1)))
        rec["image_one_tags"] = [v.tag for v in one.value]
        s = tf.Summary.FromString(sess.run(tf.summary.audio("clip", AUDIO, 8000.0)))
        rec["audio"] = [{"tag": v.tag, "sample_rate": v.audio.sample_rate,
                         "num_channels": v.audio.num_channels,
                         "length_frames": v.audio.length_frames,
                         "content_type": v.audio.content_type,
                         "samples": _wav_samples(v.audio.encoded_audio_string)}
                        for v in s.value]
        rec["text"] = sess.run(tf.summary.text("note", tf.constant(["hi", "there"]))).hex()
        rec["tensor"] = sess.run(tf.summary.tensor_summary(
            "t", tf.constant([[1, 2], [3, 4]], tf.int32), summary_description="desc")).hex()
        rec["tensor_scalar"] = sess.run(tf.summary.tensor_summary(
            "ts", tf.constant(2.5), display_name="shown")).hex()
        fam = tf.summary.scalar("acc", tf.constant(0.75), family="eval")
        rec["family_name"], rec["family"] = fam.op.name, sess.run(fam).hex()
        with tf.name_scope("outer"):
            inner = tf.summary.scalar("x y", tf.constant(1.0))
        rec["scoped_name"], rec["scoped"] = inner.op.name, sess.run(inner).hex()
        merged = tf.summary.merge_all()
        rec["merge_all_name"] = merged.op.name
        rec["merged"] = sess.run(tf.summary.merge(
            [tf.summary.scalar("m1", tf.constant(1.0)),
             tf.summary.histogram("m2", tf.constant([1.0, 2.0]))])).hex()
        for key, op in {
            "histogram_nan": tf.summary.histogram("bad", tf.constant([1.0, np.nan])),
            "histogram_inf": tf.summary.histogram("bad_inf", tf.constant([np.inf])),
            "scalar_shape": tf.raw_ops.ScalarSummary(tags=["a", "b"], values=[1.0]),
            "merge_duplicate": tf.summary.merge([
                tf.raw_ops.ScalarSummary(tags="dup", values=1.0),
                tf.raw_ops.ScalarSummary(tags="dup", values=2.0)]),
            "image_rank": tf.raw_ops.ImageSummary(tag="i", tensor=tf.zeros([2, 2, 3])),
        }.items():
            try:
                sess.run(op)
                rec["errors"][key] = None
            except tf.errors.OpError as e:
                # The kernel's own line (TF adds the node and a traceback around it).
                line = [ln for ln in e.message.splitlines() if ln and not ln.startswith(
                    ("Graph execution", "Detected at", "    ", "Node:", "\t"))][-1]
                rec["errors"][key] = {"class": type(e).__name__, "op": op.op.name,
                                      "message": line}
    (OUT / "summary.json").write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")

    # An event file TensorFlow wrote: graph, 3 scalars, 3 histograms.
    logdir = tempfile.mkdtemp()
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.name_scope("stats"):
            mean = tf.reduce_mean(x)
        tf.summary.scalar("mean", mean)
        tf.summary.histogram("x", x)
        merged = tf.summary.merge_all()
        writer = tf.summary.FileWriter(logdir, g)
        with tf.Session() as sess:
            for step in range(3):
                values = np.linspace(-1, 1, 11).astype(np.float32) * (step + 1)
                writer.add_summary(sess.run(merged, {x: values}), step)
        writer.close()
    (src,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    (OUT / "summary").mkdir(exist_ok=True)
    shutil.copy(src, OUT / "summary" / "tf_events")
    print("wrote", OUT / "summary.json", OUT / "summary" / "tf_events")


if __name__ == "__main__":
    main()
