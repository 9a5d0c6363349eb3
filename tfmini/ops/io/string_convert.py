"""Conversions between strings and numbers: StringToNumber, AsString, StringFormat, DecodeRaw
and StringToHashBucketFast, with ``string_to_number``, ``as_string``, ``decode_raw``,
``string_to_hash_bucket_fast`` and ``tm.strings.format``.

TensorFlow's kernels: ``tensorflow/core/kernels/string_to_number_op.cc`` (absl's
SimpleAtof/SimpleAtoi: surrounding whitespace allowed, the whole rest must parse),
``as_string_op.cc`` (a printf format built from the attrs), ``string_format_op.cc`` with
``Tensor::SummarizeValue`` (``tensor.cc``), ``decode_raw_op.cc`` and
``string_to_hash_bucket_op.cc`` (FarmHash Fingerprint64 modulo the bucket count).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.shapes import TensorShape, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.io.farmhash import fingerprint64
from tfmini.ops.io.string_util import as_bytes, as_text, map_strings
from tfmini.ops.io.tf_hash import hash64

__all__ = ["as_string", "decode_raw", "string_to_hash_bucket", "string_to_hash_bucket_fast",
           "string_to_number"]

# ----------------------------------------------------------------------------------------
# StringToNumber

_DECIMAL = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_SPECIAL = re.compile(rb"[+-]?(inf|infinity|nan)", re.IGNORECASE)
_HEX = re.compile(rb"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")


def _parse_float(s: bytes) -> float | None:
    t = s.strip()
    if _DECIMAL.fullmatch(t) or _SPECIAL.fullmatch(t):
        return float(t)
    if _HEX.fullmatch(t):
        return float.fromhex(t.decode())
    return None


def _parse_int(s: bytes, bits: int) -> int | None:
    t = s.strip()
    if not _INTEGER.fullmatch(t):
        return None
    v = int(t)
    return v if -(1 << (bits - 1)) <= v < (1 << (bits - 1)) else None


@register_op(
    "StringToNumber",
    inputs=["string_tensor: string"],
    outputs=["output: out_type"],
    attrs=["out_type: {float, double, int32, int64} = float"],
    shape_fn=shape_fns.unchanged,
)
def string_to_number_kernel(string_tensor, *, out_type):
    """Parses each string as a number of ``out_type``."""
    def parse(s: bytes):
        if out_type.is_integer:
            v = _parse_int(s, 8 * out_type.np_dtype.itemsize)
        else:
            v = _parse_float(s)
        if v is None:
            raise invalid_argument(
                f"StringToNumberOp could not correctly convert string: {as_text(s)}")
        return v

    out = map_strings(parse, string_tensor)
    with np.errstate(over="ignore"):  # a double beyond float's range is inf, as strtof gives
        return out.astype(out_type.np_dtype)


# ----------------------------------------------------------------------------------------
# AsString

_AS_STRING_TYPES = ("bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
                    "uint32, uint64, bool, complex64, complex128, string, variant")


def _as_string_format(dt, precision, scientific, shortest, width, fill) -> str:
    if scientific and shortest:
        raise invalid_argument("Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise invalid_argument(f"Fill string must be one or fewer characters: {fill}")
    fmt = "%"
    if fill:
        if fill not in (" ", "+", "-", "0", "#"):
            raise invalid_argument(f'Fill argument not supported: "{fill}"')
        fmt += fill
    if width > -1:
        fmt += str(width)
    floating = dt.is_floating or dt.is_complex
    if precision > -1:
        if not floating:
            raise invalid_argument(f"precision not supported for datatype {dt.name}")
        fmt += f".{precision}"
    elif scientific or shortest:
        if not floating:
            which = "scientific" if scientific else "shortest"
            raise invalid_argument(f"{which} notation not supported for datatype {dt.name}")
    if dt.is_integer:
        return fmt + "d"
    if floating:
        return fmt + ("e" if scientific else "g" if shortest else "f")
    return fmt + "s"  # bool, string


def _c_float(fmt: str, v: float) -> str:
    # printf spells non-finite values nan/inf (Python: nan/inf too, but "-nan" never).
    return fmt % v


@register_op(
    "AsString",
    inputs=["input: T"],
    outputs=["output: string"],
    attrs=[f"T: {{{_AS_STRING_TYPES}}}", "precision: int = -1", "scientific: bool = false",
           "shortest: bool = false", "width: int = -1", "fill: string = ''"],
    shape_fn=shape_fns.unchanged,
)
def as_string_kernel(input, *, T, precision, scientific, shortest, width, fill):  # noqa: A002,N803
    """Formats each element as printf would with the format the attrs make."""
    fmt = _as_string_format(T, precision, scientific, shortest, width, as_text(fill))
    arr = np.asarray(input)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1).tolist()):
        if T.is_bool:
            text = fmt % ("true" if v else "false")
        elif T.is_complex:
            text = f"({_c_float(fmt, v.real)},{_c_float(fmt, v.imag)})"
        elif T.is_floating:
            text = _c_float(fmt, float(v))
        elif T.is_integer:
            text = fmt % int(v)
        else:
            text = fmt % as_text(v)
        flat[i] = text.encode("utf-8")
    return out


# ----------------------------------------------------------------------------------------
# StringFormat


def _shortest_float(v: float, digits: tuple[int, int], to_type) -> str:
    # TensorFlow's StrCat(float): %g with FLT_DIG (DBL_DIG) digits, more if that does not
    # read back to the same value.
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    short = f"{v:.{digits[0]}g}"
    if to_type(float(short)) == to_type(v):
        return short
    return f"{v:.{digits[1]}g}"


def _element_text(v, dt) -> str:
    if dt.is_object:
        return '"' + as_bytes(v).decode("utf-8", "backslashreplace") + '"'
    if dt.is_bool:
        return "1" if v else "0"  # TensorFlow prints bools as their integer values here
    if dt.is_complex:
        return f"({_element_text(v.real, dt.real_dtype)},{_element_text(v.imag, dt.real_dtype)})"
    if dt == dtypes.float64:
        return _shortest_float(float(v), (15, 17), float)
    if dt.is_floating:
        return _shortest_float(float(v), (6, 9), np.float32)
    return str(int(v))


def summarize_value(value: np.ndarray, dt, summarize_n: int) -> str:
    """A tensor as TensorFlow's ``SummarizeValue(n, print_v2=true)`` writes it: nested
    brackets, ``...`` where a dimension has more than ``2 n`` entries (all if n < 0)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return _element_text(arr.item() if not dt.is_object else arr[()], dt)
    ends = summarize_n if summarize_n >= 0 else max(arr.shape) + 1
    nd = arr.ndim
    parts: list[str] = []

    def spacing(dim: int) -> None:
        if dim == nd - 1:
            parts.append(" ")
        else:
            parts.append("\n" * (nd - dim - 1) + " " * (dim + 1))

    def walk(dim: int, index: tuple) -> None:
        if dim == nd:
            parts.append(_element_text(arr[index], dt))
            return
        parts.append("[")
        count = arr.shape[dim]
        for i in range(min(ends, count)):
            if i > 0:
                spacing(dim)
            walk(dim + 1, index + (i,))
        if count > 2 * ends:
            spacing(dim)
            parts.append("...")
        for i in range(max(ends, count - ends), count):
            spacing(dim)
            walk(dim + 1, index + (i,))
        parts.append("]")

    walk(0, ())
    return "".join(parts)


@register_op(
    "StringFormat",
    inputs=["inputs: T"],
    outputs=["output: string"],
    attrs=["T: list(type) >= 0", "template: string = '%s'", "placeholder: string = '%s'",
           "summarize: int = 3"],
    shape_fn=shape_fns.scalar,
)
def string_format_kernel(inputs, *, T, template, placeholder, summarize):  # noqa: N803
    """The template with each placeholder replaced by the summary of one input."""
    pieces = as_text(template).split(as_text(placeholder))
    if len(pieces) - 1 != len(inputs):
        raise invalid_argument(
            f"num placeholders in template and num inputs must match: {len(pieces) - 1} vs. "
            f"{len(inputs)}")
    out = [pieces[0]]
    for x, dt, piece in zip(inputs, T, pieces[1:]):
        out.append(summarize_value(x, dt, summarize))
        out.append(piece)
    return np.array("".join(out).encode("utf-8"), dtype=object)


# ----------------------------------------------------------------------------------------
# DecodeRaw, StringToHashBucketFast

_RAW_TYPES = ("half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, "
              "complex128, bool, bfloat16")


def _decode_raw_shape(ic) -> list[TensorShape]:
    shape = ic.input_shape("bytes")
    if shape.rank is None:
        return [unknown_shape()]
    return [shape.concatenate([None])]


@register_op(
    "DecodeRaw",
    inputs=["bytes: string"],
    outputs=["output: out_type"],
    attrs=[f"out_type: {{{_RAW_TYPES}}}", "little_endian: bool = true"],
    shape_fn=_decode_raw_shape,
)
def decode_raw_kernel(bytes, *, out_type, little_endian):  # noqa: A002  (TF's input name)
    """Reinterprets each string's bytes as a vector of ``out_type``."""
    arr = np.asarray(bytes, dtype=object)
    dt = np.dtype(out_type.np_dtype)
    if dt.itemsize > 1:
        dt = dt.newbyteorder("<" if little_endian else ">")
    raw = [as_bytes(v) for v in arr.reshape(-1)]
    size = len(raw[0]) if raw else 0
    for i, r in enumerate(raw):
        if len(r) != size:
            raise invalid_argument(
                "DecodeRaw requires input strings to all be the same size, but element "
                f"{i} has size {size} != {len(r)}")
    if size % dt.itemsize:
        raise invalid_argument(
            f"Input to DecodeRaw has length {size} that is not a multiple of {dt.itemsize}, "
            f"the size of {dtypes.tf_type_name(out_type)}")
    n = size // dt.itemsize
    out = np.frombuffer(b"".join(raw), dtype=dt).astype(out_type.np_dtype)
    return out.reshape(arr.shape + (n,))


@register_op(
    "StringToHashBucketFast",
    inputs=["input: string"],
    outputs=["output: int64"],
    attrs=["num_buckets: int >= 1"],
    shape_fn=shape_fns.unchanged,
)
def string_to_hash_bucket_fast_kernel(input, *, num_buckets):  # noqa: A002
    """FarmHash Fingerprint64 of each string, modulo ``num_buckets``."""
    return map_strings(lambda s: fingerprint64(s) % num_buckets, input, np.int64)


@register_op(
    "StringToHashBucket",
    inputs=["string_tensor: string"],
    outputs=["output: int64"],
    attrs=["num_buckets: int >= 1"],
    shape_fn=shape_fns.unchanged,
)
def string_to_hash_bucket_kernel(string_tensor, *, num_buckets):
    """TensorFlow's Hash64 of each string, modulo ``num_buckets`` (the older, slower hash)."""
    return map_strings(lambda s: hash64(s) % num_buckets, string_tensor, np.int64)


for _op in ("StringToNumber", "AsString", "StringFormat", "DecodeRaw",
            "StringToHashBucketFast", "StringToHashBucket"):
    no_gradient(_op)
del _op


# ----------------------------------------------------------------------------------------
# TF1-style functions


def string_to_number(string_tensor: Any, out_type: Any = dtypes.float32,
                     name: str | None = None) -> Output:
    """Parses strings as numbers (``tf.strings.to_number``).

    Args:
        string_tensor: A string tensor.
        out_type: float32 (default), float64, int32 or int64.
        name: Optional op name.

    Returns:
        A tensor of ``out_type`` and the input's shape.

    Raises:
        InvalidArgumentError: (when run) a string is not a number of that type.
    """
    return build_output("StringToNumber", [as_operand(string_tensor, dtypes.string)],
                        {"out_type": as_dtype(out_type)}, name=name)


def as_string(input: Any, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> Output:
    """Formats numbers, bools or strings as strings (``tf.strings.as_string``).

    Args:
        input: A tensor.
        precision: Digits after the point for floats (-1: printf's default, 6).
        scientific: ``%e`` notation for floats.
        shortest: ``%g`` notation for floats.
        width: Pad to this width (-1: no padding).
        fill: The pad character: one of ``" "``, ``"0"``, ``"-"``, ``"+"``, ``"#"``.
        name: Optional op name.

    Returns:
        A string tensor of input's shape.
    """
    return build_output("AsString", [input], {"precision": precision, "scientific": scientific,
                                              "shortest": shortest, "width": width,
                                              "fill": fill}, name=name)


def string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                  name: str | None = None) -> Output:
    """Formats tensors into a template (``tf.strings.format``), e.g. ``"x = {}"``.

    Args:
        template: Text with one ``placeholder`` per input.
        inputs: A tensor or a list of tensors.
        placeholder: The placeholder text.
        summarize: Entries shown at each end of each dimension (-1: all).
        name: Optional op name.

    Returns:
        A scalar string tensor.

    Raises:
        ValueError: the template's placeholder count differs from the number of inputs.
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    inputs = [as_operand(x) for x in inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has "
                         f"{len(inputs)}. Template: {template!r}, placeholder: {placeholder!r}")
    return build_output("StringFormat", [inputs], {"template": template,
                                                   "placeholder": placeholder,
                                                   "summarize": summarize}, name=name)


def decode_raw(input_bytes: Any = None, out_type: Any = None, little_endian: bool = True,
               name: str | None = None, bytes: Any = None) -> Output:  # noqa: A002
    """Reinterprets the bytes of each string as numbers (``tf.io.decode_raw``, TF1 form).

    Args:
        input_bytes: A string tensor; every string has the same length.
        out_type: The element type.
        little_endian: Byte order of the data.
        name: Optional op name.
        bytes: Deprecated name of ``input_bytes``.

    Returns:
        A tensor of ``out_type`` with one more dimension than the input.
    """
    if input_bytes is not None and bytes is not None:
        raise ValueError("Cannot specify both 'input_bytes' and 'bytes'.")
    data = bytes if input_bytes is None else input_bytes
    return build_output("DecodeRaw", [as_operand(data, dtypes.string)],
                        {"out_type": as_dtype(out_type), "little_endian": little_endian},
                        name=name)


def string_to_hash_bucket_fast(input: Any, num_buckets: int,  # noqa: A002
                               name: str | None = None) -> Output:
    """Hashes strings into ``num_buckets`` buckets (``tf.strings.to_hash_bucket_fast``) with
    FarmHash Fingerprint64, as TensorFlow does, so bucket numbers equal TensorFlow's.

    Args:
        input: A string tensor.
        num_buckets: The number of buckets (>= 1).
        name: Optional op name.

    Returns:
        An int64 tensor of input's shape.
    """
    return build_output("StringToHashBucketFast", [as_operand(input, dtypes.string)],
                        {"num_buckets": num_buckets}, name=name)


def string_to_hash_bucket(string_tensor: Any, num_buckets: int,
                          name: str | None = None) -> Output:
    """Hashes strings into buckets with TensorFlow's Hash64 (``tf.strings.to_hash_bucket``,
    TF1 ``tf.string_to_hash_bucket``); bucket numbers equal TensorFlow's.

    Args:
        string_tensor: A string tensor.
        num_buckets: The number of buckets (>= 1).
        name: Optional op name.

    Returns:
        An int64 tensor of the input's shape.
    """
    return build_output("StringToHashBucket", [as_operand(string_tensor, dtypes.string)],
                        {"num_buckets": num_buckets}, name=name)
