"""Summary ops (``tensorflow/core/ops/logging_ops.cc``) and the TF1 ``tf.summary`` functions.

Each op outputs a serialized ``Summary`` protocol buffer as a scalar string tensor:

* ``ScalarSummary(tags, values)``: one ``simple_value`` per element
  (``tensorflow/core/kernels/summary_op.cc``);
* ``HistogramSummary(tag, values)``: a ``HistogramProto`` with TensorFlow's default buckets
  (``tensorflow/core/lib/histogram/histogram.cc``); NaN or infinity is refused;
* ``ImageSummary(tag, tensor)``: PNG images, float images normalised per image
  (``tensorflow/core/kernels/summary_image_op.cc``);
* ``AudioSummaryV2(tag, tensor, sample_rate)``: 16-bit WAV clips
  (``tensorflow/core/kernels/summary_audio_op.cc``);
* ``TensorSummaryV2(tag, tensor, serialized_summary_metadata)``: the tensor itself
  (``tensorflow/core/kernels/summary_tensor_op.cc``);
* ``MergeSummary(inputs)``: the union of several summaries; a tag twice is an error.

The Python functions follow ``tensorflow/python/summary/summary.py`` and
``tensorflow/python/ops/summary_op_util.py``: the op is named after a name scope made from
``family/name``, the tag is that scope, and the op joins the ``summaries`` collection.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import float32, string
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, get_default_graph, name_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import REAL_TYPES
from tfmini.ops.io import protos
from tfmini.ops.io.encoders import encode_png, encode_wav, histogram_proto

__all__ = [
    "SUMMARIES", "audio", "histogram", "image", "merge",
    "merge_all", "scalar", "tensor_summary", "text",
]

SUMMARIES = "summaries"  # tf.compat.v1.GraphKeys.SUMMARIES


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _scalar_tag(value: Any, op: str) -> str:
    arr = np.asarray(value, dtype=object)
    if arr.shape != ():
        raise invalid_argument(f"{op}: tag must be a scalar string, got shape "
                               f"{list(arr.shape)}")
    return _text(arr.item())


def _scalar_shape(ic) -> list[TensorShape]:
    return [TensorShape(())]


def _serialized(summary: Any) -> np.ndarray:
    return np.array(summary.SerializeToString(), dtype=object)


# -- ScalarSummary ----------------------------------------------------------------------------
@register_op(
    "ScalarSummary",
    inputs=["tags: string", "values: T"],
    outputs=["summary: string"],
    attrs=[f"T: {{{REAL_TYPES}}}"],
    shape_fn=_scalar_shape,
)
def scalar_summary(tags, values):
    """One ``simple_value`` per element of ``values``, tagged by the same element of ``tags``."""
    tags_arr, vals = np.asarray(tags, dtype=object), np.asarray(values)
    if tags_arr.shape != vals.shape:
        raise invalid_argument(
            f"tags and values are not the same shape: {list(tags_arr.shape)} != "
            f"{list(vals.shape)}")
    summary = protos.Summary()
    for tag, v in zip(tags_arr.ravel(), vals.ravel(), strict=True):
        summary.value.add(tag=_text(tag), simple_value=float(v))
    return _serialized(summary)


# -- HistogramSummary -------------------------------------------------------------------------
@register_op(
    "HistogramSummary",
    inputs=["tag: string", "values: T"],
    outputs=["summary: string"],
    attrs=[f"T: {{{REAL_TYPES}}} = DT_FLOAT"],
    shape_fn=_scalar_shape,
)
def histogram_summary(tag, values):
    """A histogram of all elements of ``values`` (NaN and infinities are refused).

    TensorFlow's message names the op; a kernel here does not see its op's name, so the
    message names the tag, which ``tm.summary.histogram`` makes equal to the op's name (and
    the error raised around it names the op too).
    """
    name = _scalar_tag(tag, "HistogramSummary")
    v = np.asarray(values, dtype=np.float64).ravel()
    bad = ~np.isfinite(v)
    if bad.any():
        if np.isnan(v[bad]).any():
            raise invalid_argument(f"Nan in summary histogram for: {name}")
        raise invalid_argument(f"Infinity in Histogram for: {name}")
    summary = protos.Summary()
    histogram_proto(v, summary.value.add(tag=name).histo)
    return _serialized(summary)


# -- ImageSummary -----------------------------------------------------------------------------
def _normalise(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """One float image to uint8: summary_image_op.cc's NormalizeFloatImage."""
    image = image.astype(np.float32)
    finite = np.isfinite(image).all(axis=-1)
    if finite.any():
        values = image[finite]
        lo, hi = float(values.min()), float(values.max())
    else:
        lo = hi = 0.0
    if lo < 0:
        top = max(abs(lo), abs(hi))
        scale, offset = (0.0 if top < 1e-6 else 127.0 / top), 128.0
    else:
        scale, offset = (0.0 if hi < 1e-6 else 255.0 / hi), 0.0
    with np.errstate(invalid="ignore"):
        scaled = image * np.float32(scale) + np.float32(offset)
    out = np.zeros(image.shape, dtype=np.uint8)
    out[finite] = scaled[finite].astype(np.uint8)  # Eigen's cast truncates
    out[~finite] = bad_color[: image.shape[-1]]
    return out


@register_op(
    "ImageSummary",
    inputs=["tag: string", "tensor: T"],
    outputs=["summary: string"],
    attrs={"max_images": "int >= 1 = 3", "T": "{uint8, float, half, float64} = DT_FLOAT",
           "bad_color": ("tensor", np.array([255, 0, 0, 255], dtype=np.uint8))},
    shape_fn=_scalar_shape,
)
def image_summary(tag, tensor, *, max_images, bad_color):
    """PNG images of the first ``max_images`` of a ``[batch, height, width, channels]`` batch."""
    base = _scalar_tag(tag, "ImageSummary")
    images = np.asarray(tensor)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise invalid_argument(
            "Tensor must be 4-D with last dim 1, 3, or 4, not "
            f"[{','.join(str(d) for d in images.shape)}]")
    bad_color = np.asarray(bad_color).astype(np.uint8).ravel()
    if bad_color.size < images.shape[-1]:
        raise invalid_argument(f"bad_color has {bad_color.size} channels, the images "
                               f"{images.shape[-1]}")
    batch, height, width, channels = images.shape
    count = min(batch, max_images)
    summary = protos.Summary()
    for i in range(count):
        img = images[i] if images.dtype == np.uint8 else _normalise(images[i], bad_color)
        value = summary.value.add(tag=f"{base}/image" if max_images == 1
                                  else f"{base}/image/{i}")
        value.image.height, value.image.width, value.image.colorspace = height, width, channels
        value.image.encoded_image_string = encode_png(img)
    return _serialized(summary)


# -- AudioSummaryV2 ---------------------------------------------------------------------------
@register_op(
    "AudioSummaryV2",
    inputs=["tag: string", "tensor: float", "sample_rate: float"],
    outputs=["summary: string"],
    attrs=["max_outputs: int >= 1 = 3"],
    shape_fn=_scalar_shape,
)
def audio_summary_v2(tag, tensor, sample_rate, *, max_outputs):
    """WAV clips of the first ``max_outputs`` of ``[batch, frames]`` or
    ``[batch, frames, channels]`` float audio in [-1, 1]."""
    base = _scalar_tag(tag, "AudioSummaryV2")
    clips = np.asarray(tensor, dtype=np.float32)
    if clips.ndim not in (2, 3):
        raise invalid_argument(f"sample_rate must be rank 0, and tensor must be 2-D or 3-D: "
                               f"got shape {list(clips.shape)}")
    rate = np.asarray(sample_rate)
    if rate.shape != ():
        raise invalid_argument(f"sample_rate must be rank 0, got shape {list(rate.shape)}")
    if clips.ndim == 2:
        clips = clips[:, :, None]
    batch, frames, channels = clips.shape
    rate_f = float(rate)
    count = min(batch, max_outputs)
    summary = protos.Summary()
    for i in range(count):
        value = summary.value.add(tag=f"{base}/audio" if max_outputs == 1
                                  else f"{base}/audio/{i}")
        value.audio.sample_rate = rate_f
        value.audio.num_channels = channels
        value.audio.length_frames = frames
        value.audio.encoded_audio_string = encode_wav(clips[i], int(rate_f))
        value.audio.content_type = "audio/wav"
    return _serialized(summary)


# -- TensorSummaryV2 --------------------------------------------------------------------------
def tensor_to_summary_proto(value: np.ndarray, out: Any) -> None:
    """``value`` as the kernel writes it: ``string_val`` for strings, else ``tensor_content``
    (``Tensor::AsProtoTensorContent``, even for a scalar)."""
    from tfmini.core.dtypes import as_dtype

    arr = np.asarray(value)
    dt = as_dtype(arr.dtype)
    out.dtype = dt.enum
    out.tensor_shape.SetInParent()  # written even for a scalar, as TensorFlow does
    for d in arr.shape:
        out.tensor_shape.dim.add(size=d)
    if dt.is_object:
        out.string_val.extend(v.encode("utf-8") if isinstance(v, str) else bytes(v)
                              for v in arr.ravel())
    else:
        out.tensor_content = np.ascontiguousarray(arr, arr.dtype.newbyteorder("<")).tobytes()


@register_op(
    "TensorSummaryV2",
    inputs=["tag: string", "tensor: T", "serialized_summary_metadata: string"],
    outputs=["summary: string"],
    attrs=["T: type"],
    shape_fn=_scalar_shape,
)
def tensor_summary_v2(tag, tensor, serialized_summary_metadata):
    """The tensor itself, with the summary metadata given as a serialized protobuf."""
    summary = protos.Summary()
    value = summary.value.add(tag=_scalar_tag(tag, "TensorSummaryV2"))
    meta = np.asarray(serialized_summary_metadata, dtype=object)
    raw = meta.item() if meta.shape == () else b""
    raw = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    try:
        value.metadata.ParseFromString(raw)
    except Exception:  # noqa: BLE001  (protobuf's DecodeError)
        raise invalid_argument("Could not parse serialized_summary_metadata") from None
    tensor_to_summary_proto(tensor, value.tensor)
    return _serialized(summary)


# -- MergeSummary -----------------------------------------------------------------------------
@register_op(
    "MergeSummary",
    inputs=["inputs: N * string"],
    outputs=["summary: string"],
    attrs=["N: int >= 1"],
    shape_fn=_scalar_shape,
)
def merge_summary(inputs):
    """The values of all input summaries in one; a tag seen twice is an error."""
    merged = protos.Summary()
    seen: set[str] = set()
    for arr in inputs:
        for raw in np.asarray(arr, dtype=object).ravel():
            part = protos.Summary()
            try:
                part.ParseFromString(raw.encode("utf-8") if isinstance(raw, str) else raw)
            except Exception:  # noqa: BLE001  (protobuf's DecodeError)
                raise invalid_argument("Could not parse one of the summary inputs") from None
            for value in part.value:
                # summary_op.cc: histograms and scalars with the same tag collide too.
                if value.tag in seen:
                    raise invalid_argument(
                        f"Duplicate tag {value.tag} found in summary inputs ")
                seen.add(value.tag)
                merged.value.add().CopyFrom(value)
    return _serialized(merged)


for _op in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
            "TensorSummaryV2", "MergeSummary"):
    no_gradient(_op)


# -- tf.compat.v1.summary ---------------------------------------------------------------------
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name: str | None) -> str | None:
    """A tag with the characters TensorBoard refuses replaced by ``_`` and no leading ``/``
    (``summary_op_util.clean_tag``)."""
    if name is None:
        return None
    new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    return new_name


class _SummaryScope:
    """``summary_op_util.summary_scope``: yields ``(tag, scope)``."""

    def __init__(self, name: str, family: str | None, default_name: str | None = None):
        self._name, self._family = clean_tag(name), clean_tag(family)
        self._default = default_name
        self._cm = None

    def __enter__(self) -> tuple[str, str]:
        base = self._name if self._family is None else f"{self._family}/{self._name}"
        self._cm = name_scope(base, self._default)
        scope = self._cm.__enter__()
        tag = scope.rstrip("/")
        if self._family is not None:
            tag = f"{self._family}/{tag}"  # shown in the family's tab in TensorBoard
        return tag, scope

    def __exit__(self, *exc) -> None:
        self._cm.__exit__(*exc)


def _collect(value: Any, collections: Sequence[str] | None, default: Sequence[str]) -> None:
    graph = value.graph
    for key in default if collections is None else collections:
        graph.add_to_collection(key, value)


def scalar(name: str, tensor: Any, collections: Sequence[str] | None = None,
           family: str | None = None) -> Any:
    """``tf.compat.v1.summary.scalar``: a ``ScalarSummary`` of a real scalar.

    Raises:
        ValueError: ``tensor`` is not a scalar.
    """
    with _SummaryScope(name, family) as (tag, scope):
        tensor = convert_to_tensor(tensor)
        if tensor.shape.rank is not None and tensor.shape.rank != 0:
            raise ValueError(f"Shapes must be equal rank, but are {tensor.shape.rank} and 0 "
                             f"for '{scope.rstrip('/')}' (op: 'ScalarSummary') with input "
                             f"shapes: [], {tensor.shape}.")
        val = build_op(current_scope(), "ScalarSummary", [tag, tensor], name=scope).outputs[0]
    _collect(val, collections, [SUMMARIES])
    return val


def histogram(name: str, values: Any, collections: Sequence[str] | None = None,
              family: str | None = None) -> Any:
    """``tf.compat.v1.summary.histogram``: a ``HistogramSummary`` of all elements."""
    with _SummaryScope(name, family) as (tag, scope):
        val = build_op(current_scope(), "HistogramSummary", [tag, values],
                       name=scope).outputs[0]
    _collect(val, collections, [SUMMARIES])
    return val


def image(name: str, tensor: Any, max_outputs: int = 3,
          collections: Sequence[str] | None = None, family: str | None = None) -> Any:
    """``tf.compat.v1.summary.image``: PNGs of ``[batch, height, width, 1|3|4]`` images."""
    with _SummaryScope(name, family) as (tag, scope):
        val = build_op(current_scope(), "ImageSummary", [tag, tensor],
                       {"max_images": max_outputs}, name=scope).outputs[0]
    _collect(val, collections, [SUMMARIES])
    return val


def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3,
          collections: Sequence[str] | None = None, family: str | None = None) -> Any:
    """``tf.compat.v1.summary.audio``: WAV clips of ``[batch, frames(, channels)]`` audio."""
    with _SummaryScope(name, family) as (tag, scope):
        rate = convert_to_tensor(sample_rate, dtype=float32, name="sample_rate")
        val = build_op(current_scope(), "AudioSummaryV2", [tag, tensor, rate],
                       {"max_outputs": max_outputs}, name=scope).outputs[0]
    _collect(val, collections, [SUMMARIES])
    return val


def tensor_summary(name: str, tensor: Any, summary_description: str | None = None,
                   collections: Sequence[str] | None = None, summary_metadata: Any = None,
                   family: str | None = None, display_name: str | None = None) -> Any:
    """``tf.compat.v1.summary.tensor_summary``: the tensor itself with its metadata."""
    if summary_metadata is None:
        summary_metadata = protos.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with _SummaryScope(name, family) as (tag, scope):
        val = build_op(current_scope(), "TensorSummaryV2", [tag, tensor, serialized],
                       name=scope).outputs[0]
    _collect(val, collections, [SUMMARIES])
    return val


def text(name: str, tensor: Any, collections: Sequence[str] | None = None) -> Any:
    """``tf.compat.v1.summary.text``: a string tensor for TensorBoard's text plugin.

    Raises:
        ValueError: ``tensor`` is not a string tensor.
    """
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype.name}")
    meta = protos.SummaryMetadata()
    meta.plugin_data.plugin_name = "text"
    return tensor_summary(name, tensor, summary_metadata=meta, collections=collections)


def merge(inputs: Sequence[Any], collections: Sequence[str] | None = None,
          name: str | None = None) -> Any:
    """``tf.compat.v1.summary.merge``: one summary holding the values of ``inputs``."""
    name = clean_tag(name)
    with name_scope(name, "Merge"):
        val = build_op(current_scope(), "MergeSummary", [list(inputs)], name=name).outputs[0]
    if collections:
        _collect(val, collections, [])
    return val


def merge_all(key: str = SUMMARIES, scope: str | None = None, name: str | None = None) -> Any:
    """``tf.compat.v1.summary.merge_all``: merges the summaries of collection ``key``, or
    returns ``None`` when it is empty."""
    summary_ops = get_default_graph().get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, collections=[], name=name)

