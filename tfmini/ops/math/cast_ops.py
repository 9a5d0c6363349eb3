"""The Cast op (TensorFlow's CPU conversions), with ``cast``, ``to_float``,
``to_int32`` and ``to_int64``.

The op's registration (OpDef, with the shape function) comes first, then its
NumPy kernel. The functions are re-exported by ``tfmini.ops.math.operators``, the family's
front module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.convert import is_symbolic
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output

# ----------------------------------------------------------------------------------------
# Cast

# Mantissa bits dropped when a float narrows to another float: (source, target) -> mask.
_TRUNCATE = {
    (np.dtype(np.float64), np.dtype(np.float32)): (np.uint64, 29),
    (np.dtype(np.float64), np.dtype(np.float16)): (np.uint64, 42),
    (np.dtype(np.float32), np.dtype(np.float16)): (np.uint32, 13),
    (np.dtype(np.float32), dtypes.bfloat16.np_dtype): (np.uint32, 16),
}


def _float_to_int(x: np.ndarray, target: np.dtype) -> np.ndarray:
    # x86's conversion, which TensorFlow inherits: NaN and values out of the 32-bit (64-bit
    # for int64) range give the most negative integer; narrower types wrap from 32 bits.
    # uint32 goes through a 64-bit conversion and keeps its low 32 bits; uint64 converts
    # values from 2**63 on by subtracting 2**63 first (the compilers' unsigned sequence).
    t = np.trunc(np.asarray(x, dtype=np.float64))
    if target == np.uint64:
        high = t >= 2.0**63
        low = _float_to_int(np.where(high, t - 2.0**63, t), np.dtype(np.int64)).view(np.uint64)
        return np.where(high, low ^ np.uint64(1 << 63), low)
    wide = np.int64 if target in (np.int64, np.uint32) else np.int32
    info = np.iinfo(wide)
    ok = (t >= float(info.min)) & (t < -float(info.min))
    safe = np.where(ok, t, 0).astype(wide)
    return np.where(ok, safe, wide(info.min)).astype(target)


@register_op(
    "Cast",
    inputs=["x: SrcT"],
    outputs=["y: DstT"],
    attrs=["SrcT: type", "DstT: type", "Truncate: bool = false"],
    shape_fn=shape_fns.unchanged,
)
def cast_kernel(x, *, SrcT, DstT, Truncate):  # noqa: N803  (TensorFlow's attr names)
    """Converts ``x`` to ``DstT`` (floats truncate toward zero into integers)."""
    if SrcT == DstT:
        return x
    if SrcT.is_object or DstT.is_object:
        raise errors.UnimplementedError(
            None, None,
            f"Cast {dtypes.tf_type_name(SrcT)} to {dtypes.tf_type_name(DstT)} is not supported",
        )
    target = DstT.np_dtype
    if SrcT.is_complex and not DstT.is_complex:
        # TensorFlow's cast keeps the real part (tf.cast documents it) and converts it.
        x, SrcT = np.real(x), SrcT.real_dtype
        if DstT.is_bool:
            return np.not_equal(x, 0)
        if SrcT == DstT:
            return np.ascontiguousarray(x)
    if SrcT.is_floating and DstT.is_integer:
        return _float_to_int(x, target)
    if Truncate and (x.dtype, target) in _TRUNCATE:
        bits, n = _TRUNCATE[(x.dtype, target)]
        mask = bits(~((1 << n) - 1) & np.iinfo(bits).max)
        src = np.asarray(x)
        chopped = np.bitwise_and(src.view(bits), mask).view(src.dtype)
        x = np.where(np.isnan(src), src, chopped)  # keep NaN payloads NaN
    # float narrowing overflows to inf silently
    if x.dtype == dtypes.bfloat16.np_dtype and target.kind == "c":
        x = x.astype(np.float32)  # ml_dtypes casts to float, not straight to complex
    return np.asarray(x).astype(target)


# ----------------------------------------------------------------------------------------
# TF1-style functions


def cast(x: Any, dtype: Any, name: str | None = None) -> Output:
    """Casts a tensor to ``dtype`` (``tf.cast``); a tensor already of that dtype is returned.

    Floats truncate toward zero into integers; NaN and out-of-range values become the most
    negative integer, as on TensorFlow's CPU.

    Args:
        x: A tensor or literal (a literal keeps its default dtype, then is cast).
        dtype: The target dtype.
        name: Optional op name.

    Returns:
        A tensor of x's shape and ``dtype``.
    """
    base = as_dtype(dtype)
    if is_symbolic(x):
        x = as_operand(x)
        if x.dtype == base:
            return x
    return build_output("Cast", [x], {"DstT": base}, name=name)


def _cast_fn(dtype: DType, public_name: str, default_name: str):
    def fn(x: Any, name: str = default_name) -> Output:
        return cast(x, dtype, name=name)

    article = "An" if dtype.name[0] in "aeiou" else "A"
    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"Casts to {dtype.name} (TF1 ``tf.{public_name}``).\n\n"
        "Args:\n"
        "    x: A tensor.\n"
        "    name: Op name.\n\n"
        "Returns:\n"
        f"    {article} {dtype.name} tensor.\n"
    )
    return fn


to_float = _cast_fn(dtypes.float32, "to_float", "ToFloat")
to_int32 = _cast_fn(dtypes.int32, "to_int32", "ToInt32")
to_int64 = _cast_fn(dtypes.int64, "to_int64", "ToInt64")
to_bfloat16 = _cast_fn(dtypes.bfloat16, "to_bfloat16", "ToBFloat16")
to_complex64 = _cast_fn(dtypes.complex64, "to_complex64", "ToComplex64")
to_complex128 = _cast_fn(dtypes.complex128, "to_complex128", "ToComplex128")
to_double = _cast_fn(dtypes.float64, "to_double", "ToDouble")


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Output:
    """Casts, first clipping values to ``dtype``'s range (``tf.saturate_cast``).

    Args:
        value: A numeric tensor.
        dtype: The target dtype.
        name: Name scope (default ``saturate_cast``).

    Returns:
        A tensor of ``dtype``.
    """
    from tfmini.core.scope import name_scope
    from tfmini.ops.common.build_util import build_output

    target = as_dtype(dtype)
    with name_scope(name, "saturate_cast", [value]):
        x = as_operand(value)
        if x.dtype != target and not target.is_object:
            lo_t = np.finfo(target.np_dtype).min if target.is_floating else \
                np.iinfo(target.np_dtype).min
            hi_t = np.finfo(target.np_dtype).max if target.is_floating else \
                np.iinfo(target.np_dtype).max
            info = np.finfo(x.dtype.np_dtype) if x.dtype.is_floating else \
                np.iinfo(x.dtype.np_dtype)
            if lo_t > info.min:
                x = build_output("Maximum", [x, np.asarray(lo_t).astype(x.dtype.np_dtype)])
            if hi_t < info.max:
                # A float bound may round up past the target's maximum; nextafter stays below.
                hi = np.asarray(hi_t).astype(x.dtype.np_dtype)
                if x.dtype.is_floating and float(hi) > float(hi_t):
                    hi = np.nextafter(hi, x.dtype.np_dtype.type(0))
                x = build_output("Minimum", [x, hi])
        return cast(x, target)


__all__ = [
    "cast",
    "to_bfloat16",
    "to_complex64",
    "to_complex128",
    "to_float",
    "to_int32",
    "saturate_cast",
    "to_double",
    "to_int64",
]
