"""Data types: TensorFlow's names, mapped onto NumPy.

``tm.float32`` and friends are frozen :class:`DType` values; ``as_dtype``
accepts a DType, a NumPy dtype or scalar type, or a name (``"float32"``,
``"float"``, ``"DT_FLOAT"``).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from attrs import field, frozen


@frozen(repr=False, eq=False)
class DType:
    """A tensor element type.

    Attributes:
        name: TensorFlow's name (``"float32"``).
        np_dtype: The NumPy dtype that holds values of this type (``object``
            for string, resource and variant).
        enum: TensorFlow's DataType enum value (used in serialised graphs).
    """

    name: str
    np_dtype: np.dtype = field(converter=np.dtype)
    enum: int

    @property
    def as_numpy_dtype(self) -> type:
        """The NumPy scalar type (TensorFlow's ``as_numpy_dtype``)."""
        return self.np_dtype.type

    @property
    def is_floating(self) -> bool:
        return self.name in ("float16", "float32", "float64", "bfloat16")

    @property
    def is_complex(self) -> bool:
        return self.name in ("complex64", "complex128")

    @property
    def real_dtype(self) -> DType:
        """The type of the real and imaginary parts of a complex type; other types: itself."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_integer(self) -> bool:
        return self.name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                             "uint64")

    @property
    def is_unsigned(self) -> bool:
        return self.name in ("uint8", "uint16", "uint32", "uint64")

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_numeric(self) -> bool:
        return self.is_floating or self.is_integer or self.is_complex

    @property
    def is_object(self) -> bool:
        """True for types held in NumPy object arrays (string, resource, variant)."""
        return self.name in ("string", "resource", "variant")

    @property
    def min(self):
        return _limits(self)[0]

    @property
    def max(self):
        return _limits(self)[1]

    @property
    def base_dtype(self) -> DType:
        return self

    def is_compatible_with(self, other: Any) -> bool:
        return self == as_dtype(other)

    def __eq__(self, other: Any) -> bool:
        # TensorFlow compares through as_dtype, so ``tm.float32 == "float32"`` and
        # ``tm.float32 == np.float32`` hold; anything unconvertible is simply unequal.
        if other is None:
            return False
        if type(other) is not DType:
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self.enum == other.enum

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.enum)

    def __repr__(self) -> str:
        return f"tm.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"


def _limits(dt: DType):
    if dt.is_floating:
        info = ml_dtypes.finfo(dt.np_dtype)
        return float(info.min), float(info.max)
    if dt.is_integer:
        info = np.iinfo(dt.np_dtype)
        return int(info.min), int(info.max)
    # As TensorFlow: bool, string and handle types have no numeric range.
    raise TypeError(f"Cannot find minimum/maximum value of {dt} with type {dt}.")


float16 = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool_ = DType("bool", np.bool_, 10)
string = DType("string", object, 7)
resource = DType("resource", object, 20)
variant = DType("variant", object, 21)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
# bfloat16 is held in ml_dtypes' NumPy extension type, as TensorFlow itself does.
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 14)

half = float16
double = float64

ALL_DTYPES: tuple[DType, ...] = (
    float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
    string, resource, variant, complex64, complex128, bfloat16,
)

_BY_NAME: dict[str, DType] = {dt.name: dt for dt in ALL_DTYPES}
# TensorFlow's OpDef spelling (``float``, ``double``, ``half``) and enum names (``DT_FLOAT``).
_BY_NAME.update({"float": float32, "double": float64, "half": float16})
_BY_NAME.update({"DT_" + k.upper(): v for k, v in list(_BY_NAME.items())})
_BY_NP: dict[np.dtype, DType] = {
    dt.np_dtype: dt for dt in ALL_DTYPES if not dt.is_object
}
_BY_ENUM: dict[int, DType] = {dt.enum: dt for dt in ALL_DTYPES}

# The spelling TensorFlow uses in OpDefs and error messages ("float", not "float32").
_TF_SPELLING = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dt: DType) -> str:
    """TensorFlow's OpDef spelling of a type, as it appears in its messages."""
    return _TF_SPELLING.get(dt.name, dt.name)


def as_dtype(value: Any) -> DType:
    """Converts ``value`` to a :class:`DType`.

    Raises:
        TypeError: ``value`` names no supported type.
    """
    if isinstance(value, DType):
        return value
    if value is None:  # np.dtype(None) would silently mean float64
        raise TypeError("Cannot convert None to a tfmini DType")
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise TypeError(f"Cannot convert {value!r} to a tfmini DType") from None
    if isinstance(value, int) and not isinstance(value, bool) and value in _BY_ENUM:
        return _BY_ENUM[value]
    if value is bytes or value is str:
        return string
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    try:
        npd = np.dtype(value)
    except (TypeError, ValueError, SyntaxError):
        # NumPy parses strings like b',' as dtype specs and raises SyntaxError (found by
        # tests/test_fuzz.py): any spelling NumPy cannot read is no tfmini type.
        raise TypeError(f"Cannot convert {value!r} to a tfmini DType") from None
    if npd.kind in ("S", "U", "O"):
        return string
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"Cannot convert NumPy dtype {npd} to a tfmini DType") from None


FLOATING = (float16, float32, float64)
INTEGER = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
NUMERIC = FLOATING + INTEGER
COMPLEX = (complex64, complex128)
