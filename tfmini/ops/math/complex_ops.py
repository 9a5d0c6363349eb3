"""Complex numbers: Complex, Real, Imag, Angle, ComplexAbs and Conj, with ``tm.complex``,
``tm.real``, ``tm.imag``, ``tm.angle`` and ``tm.conj``.

The OpDefs are TensorFlow's (``tensorflow/core/ops/math_ops.cc``); the functions follow
``tensorflow/python/ops/math_ops.py``: ``real``/``conj`` of a real tensor return it unchanged
(no op), ``imag`` of a real tensor is ``zeros_like``, ``angle`` of a real tensor is
``where(x < 0, pi, 0)``. Gradients are in ``grad``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.ops import array as array_ops
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.math.select import where

_PART_ATTRS = ["T: {complex64, complex128} = complex64", "Tout: {float, double} = float"]


@register_op(
    "Complex",
    inputs=["real: T", "imag: T"],
    outputs=["out: Tout"],
    attrs=["T: {float, double} = float", "Tout: {complex64, complex128} = complex64"],
    shape_fn=shape_fns.broadcast_binary,
)
def complex_kernel(real, imag, *, Tout):  # noqa: N803  (TensorFlow's attr name)
    """real + imag * 1j, elementwise with broadcasting."""
    out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), Tout.np_dtype)
    out.real = real
    out.imag = imag
    return out


def _part(op_type: str, fn, doc: str) -> None:
    register_op(op_type, inputs=["input: T"], outputs=["output: Tout"], attrs=_PART_ATTRS,
                shape_fn=shape_fns.unchanged, doc=doc)(fn)


def _real(input):  # noqa: A002  (TensorFlow's argument name)
    return np.ascontiguousarray(np.real(input))


def _imag(input):  # noqa: A002
    return np.ascontiguousarray(np.imag(input))


_part("Real", _real, "The real part of each element.")
_part("Imag", _imag, "The imaginary part of each element.")
_part("Angle", np.angle, "The argument of each element, atan2(imag, real).")


@register_op(
    "ComplexAbs",
    inputs=["x: T"],
    outputs=["y: Tout"],
    attrs=_PART_ATTRS,
    shape_fn=shape_fns.unchanged,
)
def complex_abs_kernel(x):
    """|x| = hypot(real, imag), of the real type."""
    return np.abs(x)


@register_op(
    "Conj",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {complex64, complex128, variant} = complex64"],
    shape_fn=shape_fns.unchanged,
)
def conj_kernel(input):  # noqa: A002
    """The complex conjugate of each element."""
    return np.conj(input)


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _numeric_or_raise(x: Output) -> None:
    if not (x.dtype.is_numeric or x.dtype.is_bool):
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")


def complex(real: Any, imag: Any, name: str | None = None) -> Output:  # noqa: A001  (tf.complex)
    """Builds complex numbers from real and imaginary parts (``tf.complex``).

    Args:
        real: A float32 or float64 tensor.
        imag: A tensor of real's dtype.
        name: Optional op name.

    Returns:
        A complex64 (from float32) or complex128 (from float64) tensor.

    Raises:
        TypeError: the parts' dtypes differ or are not float32/float64.
    """
    with name_scope(name, "Complex", [real, imag]) as scope_name:
        real, imag = as_operand(real), as_operand(imag)
        pair = (real.dtype, imag.dtype)
        if pair == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif pair == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(
                "The `real` and `imag` components have incorrect types: "
                f"{real.dtype.name} {imag.dtype.name}. They must be consistent, and one of "
                "[tf.float32, tf.float64]"
            )
        return build_op(current_scope(), "Complex", [real, imag], {"Tout": tout},
                        name=scope_name).outputs[0]


def real(input: Any, name: str | None = None) -> Output:  # noqa: A002
    """The real part of a complex tensor (``tf.math.real``); a real tensor is returned as is.

    Args:
        input: A numeric tensor.
        name: Optional op name.

    Returns:
        A float32 (complex64) or float64 (complex128) tensor, or ``input`` itself.

    Raises:
        TypeError: ``input`` is not numeric.
    """
    x = as_operand(input)
    if x.dtype.is_complex:
        return build_output("Real", [x], {"Tout": x.dtype.real_dtype}, name=name)
    _numeric_or_raise(x)
    return x


def imag(input: Any, name: str | None = None) -> Output:  # noqa: A002
    """The imaginary part of a complex tensor (``tf.math.imag``); zeros for a real tensor.

    Args:
        input: A numeric tensor.
        name: Optional op name.

    Returns:
        A float32 (complex64) or float64 (complex128) tensor, or zeros of ``input``'s dtype.
    """
    x = as_operand(input)
    if x.dtype.is_complex:
        return build_output("Imag", [x], {"Tout": x.dtype.real_dtype}, name=name)
    _numeric_or_raise(x)
    with name_scope(name, "Imag", [x]):
        return array_ops.zeros_like(x)


def angle(input: Any, name: str | None = None) -> Output:  # noqa: A002
    """The argument of each element (``tf.math.angle``): pi for negative reals, else 0.

    Args:
        input: A numeric tensor.
        name: Optional op name.

    Returns:
        A real tensor.
    """
    x = as_operand(input)
    if x.dtype.is_complex:
        return build_output("Angle", [x], {"Tout": x.dtype.real_dtype}, name=name)
    _numeric_or_raise(x)
    with name_scope(name, "Angle", [x]):
        neg = build_output("Less", [x, np.zeros((), x.dtype.np_dtype)])
        return where(neg, np.pi * array_ops.ones_like(x), array_ops.zeros_like(x))


def conj(x: Any, name: str | None = None) -> Output:
    """The complex conjugate (``tf.math.conj``); a real tensor is returned as is (no op).

    Args:
        x: A numeric or variant tensor.
        name: Optional op name.

    Returns:
        The conjugate, of x's dtype.

    Raises:
        TypeError: x is neither numeric nor variant.
    """
    x = as_operand(x)
    if x.dtype.is_complex or x.dtype == dtypes.variant:
        return build_output("Conj", [x], name=name)
    if x.dtype.is_numeric:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


__all__ = ["angle", "complex", "conj", "imag", "real"]
