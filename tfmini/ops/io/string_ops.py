"""Text string ops: StringJoin, the regular-expression ops (StaticRegexFullMatch,
RegexFullMatch, RegexReplace, StaticRegexReplace), StringLower/StringUpper, StringStrip,
StringLength, Substr and ReduceJoin, with ``string_join``, ``regex_replace``, ``substr``,
``reduce_join`` and the ``tm.strings`` functions.

TensorFlow registers them in ``tensorflow/core/ops/string_ops.cc`` (kernels in
``tensorflow/core/kernels/*string*`` and ``regex_*_op.cc``). They live in the io family,
beside the checkpoint ops that first needed two of them (a sharded Saver's graph); the
conversions are in ``string_convert`` and the splitting ops in ``string_split``.
Patterns are RE2 syntax in TensorFlow; Python's ``re`` (on bytes) runs them here, which agrees
for the common subset (no backreferences in RE2; RE2's ``\\C``, ``\\pN`` are not supported).
"""

from __future__ import annotations

import builtins  # Substr's kernel argument ``len`` (TensorFlow's name) shadows the builtin
import re
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.io.string_util import as_bytes, as_text, map_strings, utf8_char_starts

__all__ = ["reduce_join", "regex_replace", "string_join", "string_strip", "substr"]


def _join_shape(ic) -> list[TensorShape]:
    out = TensorShape(())
    shapes = ic.input_shape("inputs") if ic.attrs.get("N") else []
    for shape in shapes:
        if shape.rank == 0:
            continue
        out = shape if out.rank == 0 else shape_fns.merge_shapes(out, shape)
    return [out]


@register_op(
    "StringJoin",
    inputs=["inputs: N * string"],
    outputs=["output: string"],
    attrs=["N: int >= 0", "separator: string = ''"],
    shape_fn=_join_shape,
)
def string_join_kernel(inputs, *, separator):
    """Joins the inputs elementwise; scalars are repeated to the others' shape."""
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shapes = {a.shape for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise invalid_argument(
            f"Input shapes do not match: {' vs. '.join(str(list(s)) for s in sorted(shapes))}")
    shape = shapes.pop() if shapes else ()
    flat = [np.broadcast_to(a, shape).ravel() for a in arrays]
    sep = as_bytes(separator)
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    for i in range(out.size):
        out[i] = sep.join(as_bytes(f[i]) for f in flat)
    return out.reshape(shape)


# ----------------------------------------------------------------------------------------
# Regular expressions


def _compile(pattern: Any) -> re.Pattern:
    try:
        return re.compile(as_bytes(pattern))
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {as_text(pattern)}, error: {e}") from None


def _full_match(input, pattern):  # noqa: A002 (TensorFlow's input name)
    regex = _compile(pattern)
    return map_strings(lambda s: regex.fullmatch(s) is not None, input, np.bool_)


@register_op(
    "StaticRegexFullMatch",
    inputs=["input: string"],
    outputs=["output: bool"],
    attrs=["pattern: string"],
    shape_fn=shape_fns.unchanged,
)
def static_regex_full_match_kernel(input, *, pattern):  # noqa: A002
    """Whether each element matches ``pattern`` entirely."""
    return _full_match(input, pattern)


def _scalar_args_shape(ic, *names: str) -> list[TensorShape]:
    for name in names:
        shape_fns.with_rank(ic.input_shape(name), 0)
    return [ic.input_shape("input")]


def _pattern_scalar_shape(ic) -> list[TensorShape]:
    return _scalar_args_shape(ic, "pattern")


@register_op(
    "RegexFullMatch",
    inputs=["input: string", "pattern: string"],
    outputs=["output: bool"],
    shape_fn=_pattern_scalar_shape,
)
def regex_full_match_kernel(input, pattern):  # noqa: A002
    """Whether each element matches the (tensor) ``pattern`` entirely."""
    return _full_match(input, pattern.item() if hasattr(pattern, "item") else pattern)


def _rewrite_parts(rewrite: bytes) -> list:
    """RE2's rewrite string as literal bytes and group numbers (``\\0`` .. ``\\9``)."""
    parts: list = []
    i, lit = 0, b""
    while i < len(rewrite):
        c = rewrite[i:i + 1]
        if c == b"\\" and i + 1 < len(rewrite):
            nxt = rewrite[i + 1:i + 2]
            if nxt.isdigit():
                parts.append(lit)
                parts.append(int(nxt))
                lit = b""
                i += 2
                continue
            if nxt == b"\\":
                lit += b"\\"
                i += 2
                continue
            raise invalid_argument(
                f"Invalid rewrite pattern: {as_text(rewrite)}: invalid rewrite pattern")
        lit += c
        i += 1
    parts.append(lit)
    return parts


def _replace(input, pattern, rewrite, replace_global):  # noqa: A002
    regex = _compile(pattern)
    parts = _rewrite_parts(as_bytes(rewrite))
    if any(isinstance(p, int) and p > regex.groups for p in parts):
        # RE2 refuses such a rewrite and TensorFlow's kernel then leaves each string as is.
        return map_strings(lambda s: s, input)

    def repl(m):
        return b"".join(p if isinstance(p, bytes) else (m.group(p) or b"") for p in parts)

    count = 0 if replace_global else 1
    return map_strings(lambda s: regex.sub(repl, s, count=count), input)


@register_op(
    "RegexReplace",
    inputs=["input: string", "pattern: string", "rewrite: string"],
    outputs=["output: string"],
    attrs=["replace_global: bool = true"],
    shape_fn=lambda ic: _scalar_args_shape(ic, "pattern", "rewrite"),
)
def regex_replace_kernel(input, pattern, rewrite, *, replace_global):  # noqa: A002
    """Replaces matches of ``pattern`` with ``rewrite`` (``\\1`` names a group)."""
    return _replace(input, np.asarray(pattern).item(), np.asarray(rewrite).item(),
                    replace_global)


@register_op(
    "StaticRegexReplace",
    inputs=["input: string"],
    outputs=["output: string"],
    attrs=["pattern: string", "rewrite: string", "replace_global: bool = true"],
    shape_fn=shape_fns.unchanged,
)
def static_regex_replace_kernel(input, *, pattern, rewrite, replace_global):  # noqa: A002
    """RegexReplace with the pattern and rewrite fixed when the graph is built."""
    return _replace(input, pattern, rewrite, replace_global)


# ----------------------------------------------------------------------------------------
# Case, whitespace, length


def _case_op(op_type: str, ascii_fn, text_fn) -> None:
    def kernel(input, *, encoding):  # noqa: A002
        if as_text(encoding) == "":
            return map_strings(ascii_fn, input)  # bytes methods touch ASCII letters only
        return map_strings(lambda s: text_fn(s.decode("utf-8")).encode("utf-8"), input)

    register_op(op_type, inputs=["input: string"], outputs=["output: string"],
                attrs=["encoding: string = ''"], shape_fn=shape_fns.unchanged,
                doc=f"{op_type[6:]}-cases each element (Unicode with encoding='utf-8')."
                )(kernel)


_case_op("StringLower", bytes.lower, str.lower)
_case_op("StringUpper", bytes.upper, str.upper)


@register_op("StringStrip", inputs=["input: string"], outputs=["output: string"],
             shape_fn=shape_fns.unchanged)
def string_strip_kernel(input):  # noqa: A002
    """Strips leading and trailing ASCII whitespace."""
    return map_strings(bytes.strip, input)


@register_op(
    "StringLength",
    inputs=["input: string"],
    outputs=["output: int32"],
    attrs=["unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
    shape_fn=shape_fns.unchanged,
)
def string_length_kernel(input, *, unit):  # noqa: A002
    """The length of each element in bytes or in UTF-8 characters."""
    if unit == "BYTE":
        return map_strings(len, input, np.int32)
    return map_strings(lambda s: len(utf8_char_starts(s)), input, np.int32)


# ----------------------------------------------------------------------------------------
# Substr


def _substr_shape(ic) -> list[TensorShape]:
    pos, length = ic.input_shape("pos"), ic.input_shape("len")
    shape_fns.merge_shapes(pos, length)
    return [shape_fns.broadcast_shapes(ic.input_shape("input"), pos)]


@register_op(
    "Substr",
    inputs=["input: string", "pos: T", "len: T"],
    outputs=["output: string"],
    attrs=["T: {int32, int64}", "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
    shape_fn=_substr_shape,
)
def substr_kernel(input, pos, len, *, unit):  # noqa: A002
    """Substrings of ``len`` units from ``pos`` (negative: from the end); pos and len
    broadcast against input."""
    if np.shape(pos) != np.shape(len):
        raise invalid_argument(
            f"pos and len should have the same shape, got: {dims_str(np.shape(pos))} vs. "
            f"{dims_str(np.shape(len))}")
    arr = np.asarray(input, dtype=object)
    try:
        shape = np.broadcast_shapes(arr.shape, np.shape(pos))
    except ValueError:
        raise invalid_argument(
            f"Incompatible shapes: {dims_str(arr.shape)} vs. {dims_str(np.shape(pos))}"
        ) from None
    strings = np.broadcast_to(arr, shape).ravel()
    ps = np.broadcast_to(pos, shape).ravel()
    ls = np.broadcast_to(len, shape).ravel()
    out = np.empty(strings.size, dtype=object)
    for i, (s, p, n) in enumerate(zip(strings, ps.tolist(), ls.tolist())):
        s = as_bytes(s)
        starts = utf8_char_starts(s) if unit == "UTF8_CHAR" else None
        size = builtins.len(starts) if starts is not None else builtins.len(s)
        if p < -size or p > size:
            raise invalid_argument(f"pos {p} out of range for string {s!r} at index {i}")
        p = p + size if p < 0 else p
        end = min(p + max(n, 0), size)
        if starts is None:
            out[i] = s[p:end]
        else:
            bounds = [*starts, builtins.len(s)]
            out[i] = s[bounds[p]:bounds[end]]
    return out.reshape(shape)


# ----------------------------------------------------------------------------------------
# ReduceJoin


def _reduce_join_shape(ic) -> list[TensorShape]:
    shape = ic.input_shape("inputs")
    axes = ic.input_value("reduction_indices")
    if shape.rank is None or axes is None:
        return [unknown_shape()]
    rank = shape.rank
    dims = list(shape.dims)
    reduced = set()
    for a in np.asarray(axes).reshape(-1).tolist():
        if a < -rank or a >= rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        reduced.add(a % rank)
    if ic.attrs["keep_dims"]:
        return [TensorShape([1 if i in reduced else d for i, d in enumerate(dims)])]
    return [TensorShape([d for i, d in enumerate(dims) if i not in reduced])]


@register_op(
    "ReduceJoin",
    inputs=["inputs: string", "reduction_indices: int32"],
    outputs=["output: string"],
    attrs=["keep_dims: bool = false", "separator: string = ''"],
    shape_fn=_reduce_join_shape,
)
def reduce_join_kernel(inputs, reduction_indices, *, keep_dims, separator):
    """Joins the strings along the given axes, in the order given."""
    arr = np.asarray(inputs, dtype=object)
    rank = arr.ndim
    axes = []
    for a in np.asarray(reduction_indices).reshape(-1).tolist():
        if a < -rank or a >= rank:
            raise invalid_argument(
                f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        a %= rank
        if a in axes:
            raise invalid_argument(f"Duplicate reduction dimension {a}")
        axes.append(a)
    sep = as_bytes(separator)
    out = arr
    for a in axes:
        moved = np.moveaxis(out, a, -1)
        rows = moved.reshape(-1, moved.shape[-1]) if moved.size else np.empty(
            (int(np.prod(moved.shape[:-1])), moved.shape[-1]), object)
        joined = np.empty(rows.shape[0], dtype=object)
        for i, row in enumerate(rows):
            joined[i] = sep.join(as_bytes(v) for v in row)
        out = np.moveaxis(joined.reshape(moved.shape[:-1] + (1,)), -1, a)
    if not keep_dims:
        out = out.reshape([d for i, d in enumerate(out.shape) if i not in axes])
    return out.copy()


for _op in ("StringJoin", "StaticRegexFullMatch", "RegexFullMatch", "RegexReplace",
            "StaticRegexReplace", "StringLower", "StringUpper", "StringStrip", "StringLength",
            "Substr", "ReduceJoin"):
    no_gradient(_op)
del _op


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _strings(x: Any) -> Output:
    return as_operand(x, dtypes.string)


def string_join(inputs: list, separator: str = "", name: str | None = None) -> Output:
    """Joins a list of string tensors elementwise (``tf.strings.join``); scalars broadcast.

    Args:
        inputs: String tensors of one shape, or scalars.
        separator: Put between the joined strings.
        name: Optional op name.

    Returns:
        A string tensor.
    """
    return build_output("StringJoin", [[_strings(x) for x in inputs]],
                        {"separator": separator}, name=name)


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Output:  # noqa: A002
    """Whether each string matches ``pattern`` entirely (``tf.strings.regex_full_match``).

    A Python string pattern builds StaticRegexFullMatch, a tensor RegexFullMatch.

    Args:
        input: A string tensor.
        pattern: A regular expression (str or scalar string tensor).
        name: Optional op name.

    Returns:
        A bool tensor of input's shape.
    """
    if isinstance(pattern, (str, bytes)):
        return build_output("StaticRegexFullMatch", [_strings(input)],
                            {"pattern": as_text(pattern)}, name=name)
    return build_output("RegexFullMatch", [_strings(input), _strings(pattern)], name=name)


def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Output:
    """Replaces the matches of ``pattern`` with ``rewrite`` (``tf.strings.regex_replace``).

    Python strings for both pattern and rewrite build StaticRegexReplace, as TensorFlow does;
    otherwise RegexReplace. ``\\1`` in rewrite inserts a group, ``\\0`` the whole match.

    Args:
        input: A string tensor.
        pattern: A regular expression.
        rewrite: The replacement.
        replace_global: Replace every match (else only the first).
        name: Optional op name.

    Returns:
        A string tensor of input's shape.
    """
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return build_output("StaticRegexReplace", [_strings(input)],
                            {"pattern": as_text(pattern), "rewrite": as_text(rewrite),
                             "replace_global": replace_global}, name=name)
    return build_output("RegexReplace", [_strings(input), _strings(pattern), _strings(rewrite)],
                        {"replace_global": replace_global}, name=name)


def lower(input: Any, encoding: str = "", name: str | None = None) -> Output:  # noqa: A002
    """Lower-cases each string (``tf.strings.lower``): ASCII, or Unicode with ``"utf-8"``."""
    return build_output("StringLower", [_strings(input)], {"encoding": encoding}, name=name)


def upper(input: Any, encoding: str = "", name: str | None = None) -> Output:  # noqa: A002
    """Upper-cases each string (``tf.strings.upper``): ASCII, or Unicode with ``"utf-8"``."""
    return build_output("StringUpper", [_strings(input)], {"encoding": encoding}, name=name)


def string_strip(input: Any, name: str | None = None) -> Output:  # noqa: A002
    """Strips leading and trailing ASCII whitespace (``tf.strings.strip``)."""
    return build_output("StringStrip", [_strings(input)], name=name)


def length(input: Any, name: str | None = None, unit: str = "BYTE") -> Output:  # noqa: A002
    """The length of each string in bytes or UTF-8 characters (``tf.strings.length``).

    Args:
        input: A string tensor.
        name: Optional op name.
        unit: ``"BYTE"`` or ``"UTF8_CHAR"``.

    Returns:
        An int32 tensor of input's shape.
    """
    return build_output("StringLength", [_strings(input)], {"unit": unit}, name=name)


def substr(input: Any, pos: Any, len: Any, name: str | None = None,  # noqa: A002
           unit: str = "BYTE") -> Output:
    """Substrings (``tf.strings.substr``): ``len`` units from ``pos`` (negative from the end).

    Args:
        input: A string tensor.
        pos: int32/int64 start positions, broadcast against input.
        len: Lengths, of pos's shape; a substring stops at the string's end.
        name: Optional op name.
        unit: ``"BYTE"`` or ``"UTF8_CHAR"``.

    Returns:
        A string tensor.

    Raises:
        InvalidArgumentError: (when run) a position lies outside its string.
    """
    pos = as_operand(pos)
    return build_output("Substr", [_strings(input), pos, as_operand(len, pos.dtype)],
                        {"unit": unit}, name=name)


def reduce_join(inputs: Any, axis: Any = None, keep_dims: bool | None = None,
                separator: str = "", name: str | None = None, reduction_indices: Any = None,
                keepdims: bool | None = None) -> Output:
    """Joins strings across dimensions (``tf.strings.reduce_join``).

    Args:
        inputs: A string tensor.
        axis: The dimensions to join over, in order; None joins all (last first, so the
            result reads in row-major order).
        keep_dims: Keep reduced dimensions with size 1 (TF1 spelling of keepdims).
        separator: Put between joined strings.
        name: Optional op name.
        reduction_indices: Old name of ``axis``.
        keepdims: Keep reduced dimensions with size 1.

    Returns:
        A string tensor.
    """
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
    axis = reduction_indices if axis is None else axis
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "ReduceJoin", [inputs, axis]):
        return _reduce_join(_strings(inputs), axis, keep, separator)


def _reduce_join(x: Output, axis: Any, keep: bool, separator: str) -> Output:
    if axis is None:
        if x.shape.rank is not None:
            axis = np.arange(x.shape.rank - 1, -1, -1, dtype=np.int32)
        else:
            rank = array_ops.rank(x)
            axis = array_ops.range(rank - 1, -1, -1)
    elif not isinstance(axis, Output):
        axis = np.asarray(axis, dtype=np.int32)
    return build_output("ReduceJoin", [x, as_operand(axis, dtypes.int32)],
                        {"keep_dims": keep, "separator": separator})
