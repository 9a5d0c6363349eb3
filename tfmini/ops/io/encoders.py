"""The small encoders summaries need: TensorFlow's default histogram, PNG and WAV.

* ``histogram_proto`` fills a ``HistogramProto`` as ``tensorflow/core/lib/histogram/histogram.cc``
  does (its default bucket limits, sequential double sums, runs of empty buckets collapsed);
* ``encode_png`` writes an 8-bit grayscale, RGB or RGBA PNG (unfiltered rows, zlib from the
  standard library), as the image summary needs (``tensorflow/core/lib/png/png_io.cc`` writes
  the same pixels; its bytes may differ by compression choices);
* ``encode_wav`` writes 16-bit PCM WAV as ``tensorflow/core/lib/wav/wav_io.cc`` does.
"""

from __future__ import annotations

import struct
import sys
import zlib
from functools import lru_cache

import numpy as np

__all__: list[str] = []

DBL_MAX = sys.float_info.max


@lru_cache(maxsize=1)
def default_bucket_limits() -> np.ndarray:
    """TensorFlow's default histogram limits: ±1e-12·1.1^k below 1e20, ±DBL_MAX, and 0."""
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1  # repeated multiplication, as histogram.cc does: limits equal TF's bits
    positive.append(DBL_MAX)
    limits = np.array([-x for x in reversed(positive)] + [0.0] + positive, dtype=np.float64)
    limits.flags.writeable = False
    return limits


def histogram_proto(values: np.ndarray, out) -> None:
    """Fills the ``HistogramProto`` ``out`` with the histogram of ``values`` (finite)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    limits = default_bucket_limits()
    if v.size:
        # histogram.cc adds values one by one: sums are sequential (cumsum), not pairwise.
        out.min = float(v.min())
        out.max = float(v.max())
        out.num = float(v.size)
        out.sum = float(np.cumsum(v)[-1])
        out.sum_squares = float(np.cumsum(v * v)[-1])
        index = np.minimum(np.searchsorted(limits, v, side="right"), limits.size - 1)
        counts = np.bincount(index, minlength=limits.size).astype(np.float64)
    else:
        out.min, out.max = DBL_MAX, -DBL_MAX
        counts = np.zeros(limits.size)
    bucket_limit, bucket = [], []
    last = -1  # the index of the last bucket emitted
    for i in np.flatnonzero(counts):
        if i > last + 1:  # a run of empty buckets: one entry at the run's last limit
            bucket_limit.append(float(limits[i - 1]))
            bucket.append(0.0)
        bucket_limit.append(float(limits[i]))
        bucket.append(float(counts[i]))
        last = int(i)
    if last < limits.size - 1:
        bucket_limit.append(float(limits[-1]))
        bucket.append(0.0)
    out.bucket_limit.extend(bucket_limit)
    out.bucket.extend(bucket)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


_PNG_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def encode_png(image: np.ndarray) -> bytes:
    """A PNG of the ``uint8`` array ``image`` of shape ``[height, width, channels]``."""
    image = np.ascontiguousarray(image, dtype=np.uint8)
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPES[channels], 0, 0, 0)
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)  # filter byte 0: none
    rows[:, 1:] = image.reshape(height, width * channels)
    return b"".join((b"\x89PNG\r\n\x1a\n", _png_chunk(b"IHDR", header),
                     _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
                     _png_chunk(b"IEND", b"")))


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV of float ``samples`` ``[frames, channels]`` in [-1, 1] (clipped)."""
    samples = np.asarray(samples, dtype=np.float32)
    frames, channels = samples.shape
    # wav_io.cc: round(x * 32768), clamped to the int16 range.
    pcm = np.clip(np.rint(samples * np.float32(32768.0)), -32768, 32767).astype("<i2")
    data = pcm.tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2,
                      channels * 2, 16)
    return b"".join((b"RIFF", struct.pack("<I", 36 + len(data)), b"WAVE",
                     b"fmt ", struct.pack("<I", 16), fmt,
                     b"data", struct.pack("<I", len(data)), data))
