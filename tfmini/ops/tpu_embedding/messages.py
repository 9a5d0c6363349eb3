"""How the TPU embedding configuration's messages are made: typed fields and their encoding.

A message is a frozen attrs class derived from :class:`Message` and registered with
:func:`register_message`; its fields are declared with the helpers here (``int_field``,
``float_field``, ``enum_field``, ``message_field``, ...), which convert and check the value
when the message is built (TypeError for a wrong type, naming the field) and record the
field's kind for the encoding. :meth:`Message.SerializeToString` writes a versioned JSON text
that :meth:`Message.FromString` parses back exactly. The messages themselves are in
``optimization`` and ``config``.
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any

import attrs
import numpy as np

# The version SerializeToString writes and FromString reads.
FORMAT_VERSION = 1

# --------------------------------------------------------------------------------------------
# Field helpers: converters that check the type (TypeError) and name the field.
# --------------------------------------------------------------------------------------------


def _int_conv(value: Any, self_: Any, field: attrs.Attribute) -> int:
    # bool is an int subclass in Python but never a valid count or id.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be an int, got "
            f"{type(value).__name__} {value!r}"
        )
    return int(value)


def _float_conv(value: Any, self_: Any, field: attrs.Attribute) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a float, got "
            f"{type(value).__name__} {value!r}"
        )
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{type(self_).__name__}.{field.name} must not be NaN")
    return value


def _bool_conv(value: Any, self_: Any, field: attrs.Attribute) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a bool, got "
            f"{type(value).__name__} {value!r}"
        )
    return bool(value)


def _str_conv(value: Any, self_: Any, field: attrs.Attribute) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"{type(self_).__name__}.{field.name} must be a str, got "
            f"{type(value).__name__} {value!r}"
        )
    return value


def int_field(default: int = 0, minimum: int | None = None) -> Any:
    validators = [] if minimum is None else [attrs.validators.ge(minimum)]
    return attrs.field(
        default=default,
        converter=attrs.Converter(_int_conv, takes_self=True, takes_field=True),
        validator=validators,
        metadata={"kind": "int"},
    )


def float_field(default: float = 0.0, *checks: Any, finite: bool = True) -> Any:
    def check(inst: Any, field: attrs.Attribute, value: float) -> None:
        if finite and not math.isfinite(value):
            raise ValueError(
                f"{type(inst).__name__}.{field.name} must be finite, got {value!r}"
            )

    return attrs.field(
        default=default,
        converter=attrs.Converter(_float_conv, takes_self=True, takes_field=True),
        validator=[check, *checks],
        metadata={"kind": "float"},
    )


def bool_field(default: bool = False) -> Any:
    return attrs.field(
        default=default,
        converter=attrs.Converter(_bool_conv, takes_self=True, takes_field=True),
        metadata={"kind": "bool"},
    )


def str_field(default: str = "") -> Any:
    return attrs.field(
        default=default,
        converter=attrs.Converter(_str_conv, takes_self=True, takes_field=True),
        metadata={"kind": "str"},
    )


def enum_field(names: tuple[str, ...], default: str) -> Any:
    """An enum field: stores the value's name; accepts the name (any case) or its number."""

    def conv(value: Any, self_: Any, field: attrs.Attribute) -> str:
        owner = f"{type(self_).__name__}.{field.name}"
        if isinstance(value, str):
            if value.upper() in names:
                return value.upper()
            raise ValueError(f"{owner} must be one of {names}, got {value!r}")
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            if 0 <= int(value) < len(names):
                return names[int(value)]
            raise ValueError(
                f"{owner} must be one of {names} or their numbers 0..{len(names) - 1}, "
                f"got {value!r}"
            )
        raise TypeError(f"{owner} must be a str, got {type(value).__name__} {value!r}")

    return attrs.field(
        default=default,
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "enum", "names": names},
    )


def message_field(cls_name: str) -> Any:
    def check(inst: Any, field: attrs.Attribute, value: Any) -> None:
        if value is not None and type(value).__name__ != cls_name:
            raise TypeError(
                f"{type(inst).__name__}.{field.name} must be a {cls_name} or None, got "
                f"{type(value).__name__} {value!r}"
            )

    return attrs.field(default=None, validator=check, metadata={"kind": "msg", "cls": cls_name})


def repeated_message_field(cls_name: str) -> Any:
    def conv(value: Any, self_: Any, field: attrs.Attribute) -> tuple:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(
                f"{type(self_).__name__}.{field.name} must be a list of {cls_name}, got "
                f"{type(value).__name__} {value!r}"
            )
        items = tuple(value)
        for i, item in enumerate(items):
            if type(item).__name__ != cls_name:
                raise TypeError(
                    f"{type(self_).__name__}.{field.name}[{i}] must be a {cls_name}, got "
                    f"{type(item).__name__} {item!r}"
                )
        return items

    return attrs.field(
        default=(),
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "repeated_msg", "cls": cls_name},
    )


def repeated_int_field() -> Any:
    def conv(value: Any, self_: Any, field: attrs.Attribute) -> tuple[int, ...]:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(
                f"{type(self_).__name__}.{field.name} must be a list of ints, got "
                f"{type(value).__name__} {value!r}"
            )
        out = []
        for i, item in enumerate(value):
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral):
                raise TypeError(
                    f"{type(self_).__name__}.{field.name}[{i}] must be an int, got "
                    f"{type(item).__name__} {item!r}"
                )
            out.append(int(item))
        return tuple(out)

    return attrs.field(
        default=(),
        converter=attrs.Converter(conv, takes_self=True, takes_field=True),
        metadata={"kind": "repeated_int"},
    )


# --------------------------------------------------------------------------------------------
# Serialisation: every message has SerializeToString / FromString (versioned JSON).
# --------------------------------------------------------------------------------------------

_MESSAGES: dict[str, type] = {}


def register_message(cls: type) -> type:
    """Registers a message class so nested fields can be decoded by class name."""
    _MESSAGES[cls.__name__] = cls
    return cls


def _encode_float(value: float) -> Any:
    # JSON has no infinities; float repr (what json uses) round-trips every finite double.
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _to_dict(msg: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in attrs.fields(type(msg)):
        value = getattr(msg, field.name)
        kind = field.metadata["kind"]
        if kind == "msg":
            out[field.name] = None if value is None else _to_dict(value)
        elif kind == "repeated_msg":
            out[field.name] = [_to_dict(v) for v in value]
        elif kind == "repeated_int":
            out[field.name] = list(value)
        elif kind == "float":
            out[field.name] = _encode_float(value)
        elif kind == "opt_float":
            out[field.name] = None if value is None else _encode_float(value)
        else:
            out[field.name] = value
    return out


def _decode_float(value: Any, path: str) -> float:
    if value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{path}: expected a number, got {value!r}")
    return float(value)


def _from_dict(cls: type, data: Any, path: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object for {cls.__name__}, got {data!r}")
    fields = {f.name: f for f in attrs.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(
            f"{path}: unknown field(s) {unknown} for {cls.__name__}; known: {sorted(fields)}"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        field = fields[name]
        kind = field.metadata["kind"]
        where = f"{path}.{name}"
        if kind == "msg":
            kwargs[name] = (
                None if value is None
                else _from_dict(_MESSAGES[field.metadata["cls"]], value, where)
            )
        elif kind == "repeated_msg":
            if not isinstance(value, list):
                raise ValueError(f"{where}: expected a JSON list, got {value!r}")
            sub = _MESSAGES[field.metadata["cls"]]
            kwargs[name] = [_from_dict(sub, v, f"{where}[{i}]") for i, v in enumerate(value)]
        elif kind == "repeated_int":
            if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            ):
                raise ValueError(f"{where}: expected a JSON list of integers, got {value!r}")
            kwargs[name] = value
        elif kind == "float":
            kwargs[name] = _decode_float(value, where)
        elif kind == "opt_float":
            kwargs[name] = None if value is None else _decode_float(value, where)
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{where}: expected an integer, got {value!r}")
            kwargs[name] = value
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: expected true or false, got {value!r}")
            kwargs[name] = value
        elif kind == "enum":
            if value not in field.metadata["names"]:
                raise ValueError(
                    f"{where}: expected one of {field.metadata['names']}, got {value!r}"
                )
            kwargs[name] = value
        else:  # str
            if not isinstance(value, str):
                raise ValueError(f"{where}: expected a string, got {value!r}")
            kwargs[name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        # A well-formed document can still describe an invalid configuration.
        raise ValueError(f"{path}: invalid {cls.__name__}: {e}") from e


class Message:
    """Serialisation shared by every configuration message (proto-style method names)."""

    def SerializeToString(self) -> bytes:  # noqa: N802  (the proto method's name)
        """Serialises this message to bytes that :meth:`FromString` parses back exactly.

        Returns:
            UTF-8 JSON: ``{"format": <class name>, "version": 1, "message": {...}}`` with
            sorted keys, floats written with ``repr`` precision and infinities as strings.
        """
        doc = {
            "format": f"tfmini.tpu.{type(self).__name__}",
            "version": FORMAT_VERSION,
            "message": _to_dict(self),
        }
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()

    @classmethod
    def FromString(cls, serialized: bytes | str) -> Any:  # noqa: N802  (the proto's name)
        """Parses what :meth:`SerializeToString` wrote.

        Args:
            serialized: bytes or str (a string attr of an op arrives as str).

        Returns:
            An instance of this class, equal to the one serialised.

        Raises:
            ValueError: the input is not such a document (not UTF-8, not JSON, another message
                type or version, an unknown field, a wrong value type) or describes an invalid
                configuration; the message names the offending field.
        """
        if isinstance(serialized, (bytes, bytearray, memoryview)):
            try:
                text = bytes(serialized).decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{cls.__name__}.FromString: input is not UTF-8 text ({e})"
                ) from None
        elif isinstance(serialized, str):
            text = serialized
        else:
            raise ValueError(
                f"{cls.__name__}.FromString expects bytes or str, got "
                f"{type(serialized).__name__}"
            )
        head = text[:40] + ("..." if len(text) > 40 else "")
        try:
            doc = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as e:
            raise ValueError(
                f"{cls.__name__}.FromString: input is not a serialized {cls.__name__} "
                f"(not JSON: {e.msg} at position {e.pos}; input starts {head!r})"
            ) from None
        except (ValueError, RecursionError) as e:
            raise ValueError(
                f"{cls.__name__}.FromString: input is not a serialized {cls.__name__} "
                f"({e}; input starts {head!r})"
            ) from None
        if not isinstance(doc, dict) or set(doc) != {"format", "version", "message"}:
            raise ValueError(
                f"{cls.__name__}.FromString: expected an object with keys 'format', 'version' "
                f"and 'message', got {str(doc)[:80]!r}"
            )
        expected = f"tfmini.tpu.{cls.__name__}"
        if doc["format"] != expected:
            raise ValueError(
                f"{cls.__name__}.FromString: format is {doc['format']!r}, expected {expected!r}"
            )
        if doc["version"] != FORMAT_VERSION:
            raise ValueError(
                f"{cls.__name__}.FromString: unsupported version {doc['version']!r} "
                f"(this tfmini reads version {FORMAT_VERSION})"
            )
        return _from_dict(cls, doc["message"], cls.__name__)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"NaN and Infinity literals are not valid here, got {name}")
