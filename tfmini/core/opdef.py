"""OpDef: the one definition of an op type (arguments, attrs, shape function, kernels, gradient).

Arguments and attrs are written in TensorFlow's REGISTER_OP spelling, so an
op reads as it does in TensorFlow's registry::

    inputs=["x: T", "y: T"], outputs=["z: T"],
    attrs=["T: {half, float, double, int32, int64}"]
    attrs=["N: int >= 1", "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "epsilon: float = 0.0001"]

An argument is ``name: <type>`` where type is a fixed dtype (``float``,
``int32``, ``resource``), a type attr (``T``), a list of N of a type
(``N * T``), a list of types (``Tcomponents`` of a ``list(type)`` attr), or a
reference (``Ref(string)``).
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from attrs import field, frozen

from tfmini.core import dtypes
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.core.source import UNKNOWN_LOCATION, SourceLocation
from tfmini.core.tensor_json import array_to_json


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()

ATTR_TYPES = (
    "int", "float", "bool", "string", "type", "shape", "tensor", "func",
    "list(int)", "list(float)", "list(bool)", "list(string)", "list(type)", "list(shape)",
    "list(tensor)", "list(func)", "any",
)


@frozen
class ArgDef:
    """One input or output argument of an op."""

    name: str
    dtype: DType | None = None
    type_attr: str | None = None
    number_attr: str | None = None
    type_list_attr: str | None = None
    is_ref: bool = False

    @property
    def is_list(self) -> bool:
        return self.number_attr is not None or self.type_list_attr is not None

    def spec(self) -> str:
        t = self.dtype.name if self.dtype is not None else (self.type_attr or self.type_list_attr)
        if self.is_ref:
            t = f"Ref({t})"
        if self.number_attr:
            t = f"{self.number_attr} * {t}"
        return f"{self.name}: {t}"


@frozen
class AttrDef:
    """One attr: its type, default, allowed values and minimum."""

    name: str
    type: str
    default: Any = NO_DEFAULT
    allowed_values: tuple | None = None
    minimum: int | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT


@frozen
class Kernel:
    """A kernel function and how to call it.

    ``takes_ctx`` is true when the function's first parameter is named
    ``ctx``; ``attr_names`` are the keyword attrs it accepts (``None`` means
    all, for a function with ``**kwargs``); ``wants_node`` is true when it has a
    keyword-only ``node`` parameter, which receives the Operation.
    """

    fn: Callable
    takes_ctx: bool
    attr_names: tuple[str, ...] | None
    wants_node: bool = False

    @classmethod
    def wrap(cls, fn: Callable) -> Kernel:
        if isinstance(fn, np.ufunc):
            # NumPy 2 gives ufuncs a signature whose keywords (dtype, order, ...) would
            # collide with attrs of the same name: a ufunc kernel takes inputs only.
            return cls(fn, False, ())
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):  # builtins such as np.add
            return cls(fn, False, ())
        params = list(sig.parameters.values())
        takes_ctx = bool(params) and params[0].name == "ctx" and params[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        names = tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)
        # A keyword-only `node` receives the Operation (for its name), with or without **kwargs.
        wants_node = "node" in names
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return cls(fn, takes_ctx, None, wants_node)
        return cls(fn, takes_ctx, names, wants_node)


@frozen
class OpDef:
    """Everything tfmini knows about one op type.

    Attributes:
        name: The op type string (``OP_NAME``), e.g. ``"FusedBatchNormGradV3"``.
        inputs / outputs: ArgDefs in order.
        attrs: AttrDefs (including inferred type and length attrs).
        shape_fn: ``fn(ic) -> list of shapes`` run at build time (see
            :class:`tfmini.core.builder.InferenceContext`); None gives unknown shapes.
        kernels: device type (``"CPU"``, ``"TPU"``) to Kernel; CPU is the fallback.
        grad_fn: the registered gradient function, or None.
        no_gradient: True when the op is explicitly not differentiable.
        is_stateful: the op touches state or has side effects (never pruned as
            duplicate, never constant-folded).
        is_blocking: the kernel may wait (e.g. an accumulator take).
        value_fn: optional ``fn(output) -> ndarray | None`` giving an output's value
            when known at build time (constant folding for shape functions).
        defined_at: where the op was registered.
        api_names: OpDef input/attr name -> the name Python callers use, where
            TensorFlow's api_def renames it (``{"reduction_indices": "axis"}``).
        doc: a one-paragraph description.
    """

    name: str
    inputs: tuple[ArgDef, ...] = field(default=(), converter=tuple)
    outputs: tuple[ArgDef, ...] = field(default=(), converter=tuple)
    attrs: tuple[AttrDef, ...] = field(default=(), converter=tuple)
    shape_fn: Callable | None = None
    kernels: Mapping[str, Kernel] = field(factory=dict)
    grad_fn: Callable | None = None
    no_gradient: bool = False
    is_stateful: bool = False
    is_blocking: bool = False
    value_fn: Callable | None = None
    only_devices: tuple[str, ...] | None = None
    api_names: Mapping[str, str] = field(factory=dict)
    defined_at: SourceLocation = UNKNOWN_LOCATION
    doc: str = ""

    def attr(self, name: str) -> AttrDef | None:
        for a in self.attrs:
            if a.name == name:
                return a
        return None

    @property
    def attr_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attrs)

    @property
    def inferred_attr_names(self) -> frozenset[str]:
        """Attrs that the builder infers from inputs (type and length attrs of inputs)."""
        names = set()
        for arg in self.inputs:
            for a in (arg.type_attr, arg.number_attr, arg.type_list_attr):
                if a:
                    names.add(a)
        return frozenset(names)

    def api_name(self, name: str) -> str:
        """The name Python callers use for an input or attr (TensorFlow's api_def
        ``visible_name``; e.g. Sum's ``reduction_indices`` is ``axis`` in ``tf.raw_ops``)."""
        return self.api_names.get(name, name)

    def kernel_for(self, device_type: str) -> Kernel | None:
        k = self.kernels.get(device_type)
        if k is None and self.only_devices is None:
            k = self.kernels.get("CPU")
        return k


def arg_slices(args: Sequence[ArgDef], attrs: Mapping[str, Any]) -> list[int | slice]:
    """Where each argument's tensors sit among an op's flat inputs (or outputs): an index for
    a single tensor, a slice for a list argument (its length from the N or list(type) attr)."""
    out: list[int | slice] = []
    i = 0
    for arg in args:
        if arg.type_list_attr:
            n = len(attrs[arg.type_list_attr])
        elif arg.number_attr:
            n = attrs[arg.number_attr]
        else:
            out.append(i)
            i += 1
            continue
        out.append(slice(i, i + n))
        i += n
    return out


def group_flat(args: Sequence[ArgDef], attrs: Mapping[str, Any], flat: Sequence) -> list:
    """Flat values regrouped per argument: the value itself, or a list for a list argument."""
    return [list(flat[s]) if isinstance(s, slice) else flat[s] for s in arg_slices(args, attrs)]


def flat_count(args: Sequence[ArgDef], attrs: Mapping[str, Any]) -> int:
    """How many tensors the arguments hold in all."""
    slices = arg_slices(args, attrs)
    if not slices:
        return 0
    last = slices[-1]
    return last.stop if isinstance(last, slice) else last + 1


# --------------------------------------------------------------------------------------
# Parsing TensorFlow's REGISTER_OP spelling.

_ARG_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+?)\s*$")
_ATTR_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+?)\s*(?:=\s*(.+?))?\s*$")


def parse_arg(spec: str, type_attrs: set[str], list_type_attrs: set[str]) -> ArgDef:
    """Parses ``"x: T"``, ``"values: N * T"``, ``"handle: resource"``, ``"h: Ref(string)"``."""
    m = _ARG_RE.match(spec)
    if not m:
        raise ValueError(f"Cannot parse argument spec {spec!r}: expected 'name: type'")
    name, t = m.group(1), m.group(2).strip()
    number_attr = None
    if "*" in t:
        number_attr, _, t = (s.strip() for s in t.partition("*"))
    is_ref = False
    ref = re.match(r"^Ref\((.+)\)$", t)
    if ref:
        is_ref, t = True, ref.group(1).strip()
    if t in list_type_attrs and number_attr is None:
        return ArgDef(name, type_list_attr=t, is_ref=is_ref)
    if t in type_attrs:
        return ArgDef(name, type_attr=t, number_attr=number_attr, is_ref=is_ref)
    try:
        dt = as_dtype(t)
    except TypeError:
        raise ValueError(
            f"Argument spec {spec!r}: {t!r} is neither a dtype nor a type attr of this op"
        ) from None
    return ArgDef(name, dtype=dt, number_attr=number_attr, is_ref=is_ref)


def _parse_literal(text: str) -> Any:
    text = text.strip()
    lowered = {"true": "True", "false": "False"}
    if text in lowered:
        text = lowered[text]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # bare words such as DT_FLOAT or float


def parse_attr(spec: str) -> AttrDef:
    """Parses ``"T: {float, double}"``, ``"N: int >= 1"``, ``"eps: float = 0.0001"``,
    ``"data_format: {'NHWC', 'NCHW'} = 'NHWC'"``, ``"shape: shape = {unknown_rank: true}"``."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or not rest.strip():
        raise ValueError(f"Cannot parse attr spec {spec!r}: expected 'name: type [= default]'")
    rest = rest.strip()
    default_text = None
    # Split on the first "=" not inside braces and not part of ">=".
    depth = 0
    for i, ch in enumerate(rest):
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == "=" and depth == 0 and (i == 0 or rest[i - 1] not in "<>"):
            rest, default_text = rest[:i].strip(), rest[i + 1 :].strip()
            break
    minimum = None
    m = re.match(r"^(.*?)\s*>=\s*(-?\d+)$", rest)
    if m:
        rest, minimum = m.group(1).strip(), int(m.group(2))
    allowed = None
    if rest.startswith("{") and rest.endswith("}"):
        items = [s.strip() for s in rest[1:-1].split(",") if s.strip()]
        if items and items[0][0] in "'\"":
            attr_type = "string"
            allowed = tuple(_parse_literal(s) for s in items)
        else:
            attr_type = "type"
            allowed = tuple(as_dtype(s) for s in items)
    else:
        lm = re.match(r"^list\(\s*\{(.*)\}\s*\)$", rest)
        if lm:
            attr_type = "list(type)"
            allowed = tuple(as_dtype(s.strip()) for s in lm.group(1).split(",") if s.strip())
        else:
            attr_type = rest
    if attr_type not in ATTR_TYPES:
        raise ValueError(f"Attr spec {spec!r}: unknown attr type {attr_type!r}")
    default: Any = NO_DEFAULT
    if default_text is not None:
        # The default must itself be a legal value (TensorFlow's OpDef validation).
        default = normalize_attr_value(
            AttrDef(name, attr_type, NO_DEFAULT, allowed, minimum),
            _parse_default(attr_type, default_text),
            op_type="<spec>",
        )
    return AttrDef(name, attr_type, default, allowed, minimum)


def _parse_default(attr_type: str, text: str) -> Any:
    if attr_type == "shape":
        if text.replace(" ", "") in ("{unknown_rank:true}", "None"):
            return None
        return _parse_literal(text)
    if attr_type == "type":
        return as_dtype(text.strip())
    return _parse_literal(text)


def attr_from_python(name: str, value: Any) -> AttrDef:
    """Builds an AttrDef from the dict form used by ``tm.register_op``:
    ``"type"``, ``("float", 1.0)``, or a full spec string without the name."""
    if isinstance(value, AttrDef):
        return value
    if isinstance(value, str):
        return parse_attr(f"{name}: {value}")
    if isinstance(value, tuple) and len(value) == 2:
        attr_type, default = value
        base = parse_attr(f"{name}: {attr_type}")
        return AttrDef(
            name,
            base.type,
            normalize_attr_value(base, default, op_type="<spec>"),
            base.allowed_values,
            base.minimum,
        )
    raise ValueError(f"Attr {name!r}: cannot understand {value!r}")


# --------------------------------------------------------------------------------------
# Attr value checking.


def _type_error(op_type: str, attr: AttrDef, value: Any) -> TypeError:
    return TypeError(
        f"Attr '{attr.name}' of '{op_type}' Op expected {attr.type}, got {value!r} "
        f"of type '{type(value).__name__}'"
    )


def _scalar(attr: AttrDef, t: str, v: Any, op_type: str) -> Any:
    if t == "int":
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise _type_error(op_type, attr, v)
        if not -(1 << 63) <= int(v) < 1 << 63:
            # TensorFlow's AttrValue.i is an int64.
            raise ValueError(
                f"Attr '{attr.name}' of '{op_type}' Op passed {int(v)}, which does not fit "
                "in int64."
            )
        return int(v)
    if t == "float":
        if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)
        ):
            raise _type_error(op_type, attr, v)
        # TensorFlow stores float attrs as 32-bit floats (AttrValue.f): epsilon=0.001 is
        # really 0.0010000000474974513, and kernels computing in float64 see that value.
        return float(np.float32(v))
    if t == "bool":
        if not isinstance(v, (bool, np.bool_)):
            raise _type_error(op_type, attr, v)
        return bool(v)
    if t == "string":
        if isinstance(v, bytes):
            return v.decode("utf-8", "surrogateescape")
        if not isinstance(v, str):
            raise _type_error(op_type, attr, v)
        return v
    if t == "type":
        try:
            return as_dtype(v)
        except TypeError:
            raise _type_error(op_type, attr, v) from None
    if t == "shape":
        try:
            return as_shape(v)
        except (TypeError, ValueError):
            raise _type_error(op_type, attr, v) from None
    if t == "tensor":
        try:
            arr = np.asarray(v)
            as_dtype(arr.dtype)  # a value tfmini has no tensor type for cannot be an attr
        except (TypeError, ValueError):
            raise _type_error(op_type, attr, v) from None
        return arr
    return v  # func, any


def normalize_attr_value(attr: AttrDef, value: Any, op_type: str) -> Any:
    """Checks an attr value against its AttrDef and returns its canonical form.

    Raises:
        TypeError: the value has the wrong type.
        ValueError: the value is outside the allowed values or below the minimum.
    """
    t = attr.type
    if t.startswith("list("):
        inner = t[5:-1]
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise _type_error(op_type, attr, value)
        out = tuple(_scalar(attr, inner, v, op_type) for v in value)
        if attr.minimum is not None and len(out) < attr.minimum:
            raise ValueError(
                f"Attr '{attr.name}' of '{op_type}' Op passed list of length {len(out)} "
                f"less than minimum {attr.minimum}."
            )
        if attr.allowed_values is not None:
            for v in out:
                if v not in attr.allowed_values:
                    raise TypeError(
                        f"Value passed to attr '{attr.name}' of '{op_type}' Op has DataType "
                        f"{dtypes.tf_type_name(v)} not in list of allowed values: "
                        f"{', '.join(dtypes.tf_type_name(a) for a in attr.allowed_values)}"
                    )
        return out
    out = _scalar(attr, t, value, op_type)
    if attr.minimum is not None and t == "int" and out < attr.minimum:
        raise ValueError(
            f"Attr '{attr.name}' of '{op_type}' Op passed {out} less than minimum {attr.minimum}."
        )
    if attr.allowed_values is not None and out not in attr.allowed_values:
        if t == "type":
            raise TypeError(
                f"Value for attr '{attr.name}' of {dtypes.tf_type_name(out)} is not in the list "
                f"of allowed values: "
                f"{', '.join(dtypes.tf_type_name(a) for a in attr.allowed_values)}"
            )
        allowed = ", ".join(f'"{a}"' for a in attr.allowed_values)
        raise ValueError(
            f"Attr '{attr.name}' of '{op_type}' Op passed {t} '{out}' not in: {allowed}."
        )
    return out


def attr_value_to_json(value: Any) -> Any:
    """A JSON-ready encoding of an attr value (used by inspection and graph_def)."""
    if isinstance(value, DType):
        return {"type": value.name}
    if isinstance(value, TensorShape):
        return {"shape": None if value.dims is None else list(value.dims)}
    if isinstance(value, np.ndarray):
        return {"tensor": array_to_json(value)}
    if isinstance(value, tuple):
        return [attr_value_to_json(v) for v in value]
    if hasattr(value, "name") and hasattr(value, "outputs") and hasattr(value, "inputs"):
        return {"func": value.name}
    return value
