"""Array ops: literals, constants, placeholders and identities.

Here: literal conversion (TensorFlow's default dtypes), Const, Placeholder,
PlaceholderWithDefault, Identity, IdentityN, StopGradient and NoOp; the rest of the array
family (see its front, ``tfmini/ops/array/__init__.py``) builds on these.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import (
    convert_to_tensor,  # re-exported, as tf.convert_to_tensor
    is_symbolic,
    set_literal_conversion,
)
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.function import set_argument_op
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.core.splat import is_splat, splat
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, has_symbolic
from tfmini.ops.common.constant_folding import fold_constant  # noqa: F401  (imported from here by others)
from tfmini.ops.common.kernel_util import invalid_argument

# ----------------------------------------------------------------------------------------
# Literals -> NumPy values with TensorFlow's default dtypes.


def _default_array(value: Any) -> np.ndarray:
    """A NumPy array for a literal, with TensorFlow's defaults (float32, int32)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype.kind == "i":
        info = np.iinfo(np.int32)
        if arr.size == 0 or (arr.min() >= info.min and arr.max() <= info.max):
            return arr.astype(np.int32)
        return arr.astype(np.int64)
    if arr.dtype.kind in ("U", "S"):
        # Straight to object: NumPy's fixed-width bytes would drop trailing NUL bytes.
        return np.array(value, dtype=object)
    if arr.dtype == object:
        raise TypeError(f"Cannot convert {value!r} to a tensor: ragged or mixed-type value")
    return arr


def literal_to_array(value: Any, dtype: DType | None = None) -> np.ndarray:
    """The NumPy value of a literal as a tensor of ``dtype`` (TensorFlow's conversion rules).

    Raises:
        TypeError: the value cannot be represented in ``dtype`` without loss
            ("Cannot convert 1.5 to EagerTensor of dtype int32").
    """
    if dtype is None:
        return _default_array(value)
    if dtype.is_object:
        arr = np.asarray(value, dtype=object)
        return arr
    src = value if isinstance(value, np.ndarray) else np.asarray(value)
    if src.dtype == object or src.dtype.kind in ("U", "S"):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if not isinstance(value, (np.ndarray, np.generic)) and (dtype.is_integer or dtype.is_bool):
        # TensorFlow refuses Python floats for integer types and mixes of bools and ints,
        # even when the value is exact (tf.constant(1.0, tf.int32) is a TypeError).
        if src.size and (src.dtype.kind == "f" or (src.dtype.kind == "b") != dtype.is_bool):
            raise TypeError(
                f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'."
            )
    arr = src.astype(dtype.np_dtype, copy=False)
    if not isinstance(value, np.ndarray) or src.dtype.kind == "f":
        # Python literals (and floats into ints) must survive the conversion unchanged.
        if dtype.is_integer or dtype.is_bool:
            with np.errstate(invalid="ignore"):
                if src.size and not np.array_equal(arr.astype(src.dtype), src):
                    raise TypeError(
                        f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}"
                    )
    return arr


def _frozen(arr: np.ndarray) -> np.ndarray:
    if is_splat(arr) and not arr.flags.writeable:
        return arr  # a private, read-only splat (see tfmini.core.splat): keep one element
    arr = np.array(arr, copy=True) if arr.flags.writeable or arr.base is not None else arr
    arr.flags.writeable = False
    return arr


# ----------------------------------------------------------------------------------------
# Const


def _const_shape(ic):
    # TensorFlow's ConstantOp (tensorflow/core/kernels/constant_op.cc) refuses a value whose
    # type is not the op's dtype; tfmini refuses it when the node is built (tm.raw_ops.Const
    # and import_graph_def alike), so no kernel ever hands out a value of the wrong type.
    value = ic.attrs["value"]
    want = ic.attrs["dtype"]
    have = dtypes.as_dtype(value.dtype)
    # Object arrays hold strings and variants alike; a resource handle is made by its op,
    # never stored in a graph (a constant one would be a forged handle).
    if want.name == "variant" and have.is_object:
        have = want
    if have != want or want.name == "resource":
        raise errors.InvalidArgumentError(
            None, None,
            f"Type mismatch between value ({dtypes.tf_type_name(have)}) and dtype "
            f"({dtypes.tf_type_name(want)}) for node '{ic.name}' (Const)",
        )
    return [TensorShape(value.shape)]


def _const_value(output):
    return output.op.attrs["value"]


@register_op(
    "Const",
    outputs=["output: dtype"],
    attrs=["value: tensor", "dtype: type"],
    shape_fn=_const_shape,
    value_fn=_const_value,
)
def const_kernel(*, value):
    """A constant tensor."""
    return value


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False):
    """A constant tensor (``tf.constant``).

    A scalar ``value`` with a ``shape`` is broadcast to it; a value with the
    same number of elements is reshaped. A broadcast value is stored once (a splat
    array, :mod:`tfmini.core.splat`), as TensorFlow's TensorProto stores it:
    ``constant(1.0, shape=[10**9])`` costs a few bytes until a kernel computes with it.
    """
    dt = as_dtype(dtype) if dtype is not None else None
    arr = literal_to_array(value, dt)
    if shape is not None:
        shp = as_shape(shape)
        if not shp.is_fully_defined():
            raise ValueError(f"Shape of a constant must be fully defined, got {shp}")
        dims = tuple(shp.dims)
        if arr.shape != dims:
            if verify_shape:
                raise TypeError(f"Expected Tensor's shape: {dims}, got {arr.shape}.")
            if arr.size == 1:
                arr = splat(arr, dims)
            elif arr.size == int(np.prod(dims)):
                arr = arr.reshape(dims)
            else:
                raise TypeError(
                    f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                    f"(converted from {value!r}) has {arr.size} elements, but got `shape` {dims} "
                    f"with {int(np.prod(dims))} elements)."
                )
    out_dtype = dt if dt is not None else as_dtype(arr.dtype)
    if out_dtype.is_object:
        arr = np.asarray(arr, dtype=object)
    op = build_op(current_scope(), "Const", [], {"value": _frozen(arr), "dtype": out_dtype},
                  name=name)
    return op.outputs[0]


def _convert_literal(value: Any, dtype: DType | None, name: str | None):
    # A (nested) list holding tensors is packed (TensorFlow's autopacking conversion), so
    # tm.convert_to_tensor([x, 2.0]) is a Pack of x and a constant; other literals are Consts.
    if isinstance(value, (list, tuple)) and has_symbolic(value):
        for item in _flat(value):
            if is_symbolic(item):
                t = convert_to_tensor(item)
                if dtype is not None and t.dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {t.dtype.name} to "
                        f"{dtype.name} (Tensor is: {t!r})")
        return autopack(list(value), dtype)
    return constant(value, dtype, name=name or "Const")


def _flat(value: Any):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


set_literal_conversion(_convert_literal)


# ----------------------------------------------------------------------------------------
# Placeholder, PlaceholderWithDefault


def _placeholder_shape(ic):
    return [ic.attrs["shape"]]


@register_op(
    "Placeholder",
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape = {unknown_rank: true}"],
    shape_fn=_placeholder_shape,
)
def placeholder_kernel(*, dtype, shape, node):
    """A value that must be fed."""
    raise invalid_argument(
        f"You must feed a value for placeholder tensor '{node.name}' with dtype "
        f"{dtypes.tf_type_name(dtype)} and shape {shape.tf_str()}",
    )


set_argument_op("Placeholder")


def placeholder(dtype: Any, shape: Any = None, name: str | None = None):
    """A tensor whose value is fed at run time (``tf.compat.v1.placeholder``)."""
    op = build_op(current_scope(), "Placeholder", [],
                  {"dtype": as_dtype(dtype), "shape": as_shape(shape)}, name=name)
    return op.outputs[0]


def _pwd_shape(ic):
    declared = ic.attrs["shape"]
    given = ic.input_shape(0)
    if not declared.is_compatible_with(given):
        raise ValueError(f"Shapes {given} and {declared} are incompatible")
    return [declared]


@register_op(
    "PlaceholderWithDefault",
    inputs=["input: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape_fn=_pwd_shape,
)
def placeholder_with_default_kernel(input):
    """Passes ``input`` through unless fed."""
    return input


def placeholder_with_default(input: Any, shape: Any, name: str | None = None):
    """``tf.compat.v1.placeholder_with_default``."""
    op = build_op(current_scope(), "PlaceholderWithDefault", [input], {"shape": as_shape(shape)},
                  name=name)
    return op.outputs[0]


# ----------------------------------------------------------------------------------------
# Identity, IdentityN, StopGradient, NoOp


def _identity_value(output):
    return static_value(output.op.inputs[0])


@register_op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged, value_fn=_identity_value)
def identity_kernel(input):
    """Returns its input."""
    return input


@register_op("IdentityN", inputs=["input: T"], outputs=["output: T"], attrs=["T: list(type) >= 1"],
             shape_fn=lambda ic: list(ic.input_shape(0)))
def identity_n_kernel(input):
    """Returns its inputs."""
    return list(input)


@register_op("StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged)
def stop_gradient_kernel(input):
    """Identity for values; gradients stop here."""
    return input


@register_op("Snapshot", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged)
def snapshot_kernel(input):  # noqa: A002
    """A copy of ``input`` (values are never modified in place here, so the input itself)."""
    return input


@register_op("PreventGradient", inputs=["input: T"], outputs=["output: T"],
             attrs=["T: type", "message: string = ''"], shape_fn=shape_fns.unchanged)
def prevent_gradient_kernel(input):  # noqa: A002
    """Identity for values; asking for its gradient is an error."""
    return input


@register_op("NoOp", shape_fn=shape_fns.no_outputs)
def no_op_kernel():
    """Does nothing; useful as a control-dependency anchor."""
    return None


def identity(input: Any, name: str | None = None):
    """``tf.identity``."""
    return build_op(current_scope(), "Identity", [input], name=name).outputs[0]


def identity_n(input: list, name: str | None = None) -> list:
    return list(build_op(current_scope(), "IdentityN", [list(input)], name=name).outputs)


def stop_gradient(input: Any, name: str | None = None):
    """``tf.stop_gradient``."""
    return build_op(current_scope(), "StopGradient", [input], name=name).outputs[0]


def no_op(name: str | None = None):
    """``tf.no_op``: an Operation that does nothing."""
    return build_op(current_scope(), "NoOp", [], name=name)


__all__ = [
    "constant",
    "convert_to_tensor",
    "identity",
    "identity_n",
    "no_op",
    "placeholder",
    "placeholder_with_default",
    "stop_gradient",
]
