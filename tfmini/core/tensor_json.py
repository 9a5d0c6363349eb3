"""Tensor values as JSON data: the encoding graph_defs and inspection use for array attrs.

Lives below both :mod:`tfmini.core.opdef` (attr values) and :mod:`tfmini.core.serialize`
(graph_defs), which share it.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.splat import is_splat, splat, splat_element

NON_FINITE_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# --------------------------------------------------------------------------------------
# Arrays


def float_to_json(x: float) -> float | str:
    if math.isfinite(x):
        return x  # json writes repr(x), which reads back to the same double
    if math.isnan(x):
        return "nan"
    return "inf" if x > 0 else "-inf"


def float_from_json(v: Any) -> float:
    if isinstance(v, str):
        try:
            return NON_FINITE_FLOATS[v]
        except KeyError:
            raise ValueError(
                f"{v!r} is not a number (expected a number, 'nan', 'inf' or '-inf')"
            ) from None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{v!r} is not a number")
    return float(v)


def _string_to_json(v: Any) -> Any:
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        # Bytes need not be UTF-8; base64 keeps them exact and apart from str elements.
        return {"bytes": base64.b64encode(v).decode("ascii")}
    raise TypeError(
        f"Cannot serialise a string tensor element of type {type(v).__name__} ({v!r}); "
        "only str and bytes elements have a JSON form"
    )


def _string_from_json(v: Any) -> Any:
    if isinstance(v, str):
        return v
    if isinstance(v, dict) and set(v) == {"bytes"} and isinstance(v["bytes"], str):
        try:
            return base64.b64decode(v["bytes"], validate=True)
        except (binascii.Error, ValueError) as e:
            raise ValueError(f"{v!r} is not a string tensor element: bad base64 ({e})") from None
    raise ValueError(f"{v!r} is not a string tensor element (a str or {{'bytes': base64}})")


def array_to_json(array: Any) -> dict[str, Any]:
    """A NumPy array as ``{"dtype": name, "shape": [...], "values": [...]}`` (JSON-ready).

    ``values`` is the flat list of elements in C order. Floats are exact:
    every float16/32/64 value is a double that ``json`` writes with ``repr``,
    which reads back to the same bits; NaN and infinities are written as
    ``"nan"``, ``"inf"``, ``"-inf"`` (a NaN's payload is not kept). String
    (object) arrays hold ``str`` elements as strings and ``bytes`` elements as
    ``{"bytes": <base64>}``. A splat array (:mod:`tfmini.core.splat`: one element stored
    for many) is written with its shape and that one value, as TensorFlow's TensorProto
    keeps ``tf.constant(1.0, shape=[10**9])``.

    Args:
        array: An ndarray, or anything ``np.asarray`` accepts.

    Returns:
        The dict; :func:`array_from_json` is its inverse.

    Raises:
        TypeError: the dtype has no tfmini DType, or an object array holds
            something other than str/bytes.
    """
    arr = np.asarray(array)
    dt = as_dtype(arr.dtype)
    flat = splat_element(arr).reshape(1) if is_splat(arr) else arr.ravel()
    if dt.is_object:
        values = [_string_to_json(v) for v in flat.tolist()]
    elif dt.is_complex:  # [real, imag] pairs
        values = [[float_to_json(float(v.real)), float_to_json(float(v.imag))]
                  for v in flat.tolist()]
    elif dt.is_floating and not np.isfinite(flat.astype(np.float64)).all():
        values = [float_to_json(float(v)) for v in flat.tolist()]
    elif dt.is_floating:
        values = [float(v) for v in flat.tolist()]
    else:
        values = flat.tolist()
    return {"dtype": dt.name, "shape": list(arr.shape), "values": values}


def array_from_json(data: Mapping[str, Any]) -> np.ndarray:
    """The read-only ndarray described by :func:`array_to_json`'s dict.

    One value for a shape of several elements gives a splat array (TensorFlow's TensorProto
    convention for a repeated value), stored as that one element.

    Raises:
        ValueError: the dict is malformed (missing keys, a value count that
            does not match the shape, a value that does not fit the dtype).
        TypeError: the dtype name is unknown.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"Tensor JSON must be a dict, got {type(data).__name__}")
    try:
        dt: DType = as_dtype(data["dtype"])
        raw_shape = data["shape"]
        values = data["values"]
    except KeyError as e:
        raise ValueError(f"Tensor JSON is missing the key {e.args[0]!r}") from None
    if not isinstance(raw_shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 62 for d in raw_shape
    ):
        raise ValueError(
            f"Tensor JSON 'shape' must be a list of non-negative ints, got {_short(raw_shape)}"
        )
    shape = tuple(raw_shape)
    if not isinstance(values, list):
        raise ValueError(f"Tensor JSON 'values' must be a list, got {type(values).__name__}")
    count = math.prod(shape)
    if count >= 1 << 62:
        raise ValueError(f"Tensor JSON of shape {list(shape)} has too many elements ({count})")
    if len(values) == 1 and count > 1:
        return splat(array_from_json({"dtype": dt.name, "shape": [], "values": values}), shape)
    if len(values) != count:
        raise ValueError(
            f"Tensor JSON of shape {list(shape)} needs {count} values, got {len(values)}"
        )
    if dt.is_object:
        arr = np.empty(count, dtype=object)
        for i, v in enumerate(values):
            arr[i] = _string_from_json(v)
    elif dt.is_floating:
        arr = np.array([float_from_json(v) for v in values], dtype=dt.np_dtype)
    elif dt.is_complex:
        if not all(isinstance(v, list) and len(v) == 2 for v in values):
            raise ValueError(f"Tensor JSON of dtype {dt.name} holds values that are not "
                             f"[real, imag] pairs: {values[:10]!r}")
        arr = np.array([complex(float_from_json(re), float_from_json(im)) for re, im in values],
                       dtype=dt.np_dtype)
    elif dt.is_bool:
        if not all(isinstance(v, bool) for v in values):
            raise ValueError(f"Tensor JSON of dtype bool holds non-bool values: {values[:10]!r}")
        arr = np.array(values, dtype=np.bool_)
    else:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise ValueError(
                f"Tensor JSON of dtype {dt.name} holds non-integer values: {values[:10]!r}"
            )
        info = np.iinfo(dt.np_dtype)
        if values and (min(values) < info.min or max(values) > info.max):
            raise ValueError(f"Tensor JSON values do not fit in {dt.name}")
        arr = np.array(values, dtype=dt.np_dtype)
    arr = arr.reshape(shape)
    arr.flags.writeable = False
    return arr


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = [
    "NON_FINITE_FLOATS", "array_from_json", "array_to_json", "float_from_json", "float_to_json",
]
