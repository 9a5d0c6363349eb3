"""DType: TensorFlow's names, enums and properties, mapped onto NumPy."""

from __future__ import annotations

import attrs
import numpy as np
import pytest

import tfmini as tm
from tfmini.core import dtypes

# TensorFlow's DataType enum values (tensorflow/core/framework/types.proto).
TF_ENUMS = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "int64": 9, "bool": 10, "uint16": 17, "float16": 19, "resource": 20, "variant": 21,
    "uint32": 22, "uint64": 23, "complex64": 8, "complex128": 18, "bfloat16": 14,
}


@pytest.mark.parametrize(
    "value, expected",
    [
        ("float32", tm.float32),
        ("float", tm.float32),
        ("DT_FLOAT", tm.float32),
        ("double", tm.float64),
        ("DT_DOUBLE", tm.float64),
        ("half", tm.float16),
        ("DT_HALF", tm.float16),
        ("int32", tm.int32),
        ("DT_INT64", tm.int64),
        ("uint8", tm.uint8),
        ("bool", tm.bool),
        ("DT_BOOL", tm.bool),
        ("string", tm.string),
        ("resource", tm.resource),
        ("variant", tm.variant),
    ],
)
def test_as_dtype_from_names(value, expected):
    assert tm.as_dtype(value) is expected


@pytest.mark.parametrize(
    "value, expected",
    [
        (np.float32, tm.float32),
        (np.dtype("float64"), tm.float64),
        (np.float16, tm.float16),
        (np.dtype("int8"), tm.int8),
        (np.int16, tm.int16),
        (np.int64, tm.int64),
        (np.uint8, tm.uint8),
        (np.bool_, tm.bool),
        (np.str_, tm.string),
        (np.bytes_, tm.string),
        (object, tm.string),
        (np.dtype("U3"), tm.string),
    ],
)
def test_as_dtype_from_numpy(value, expected):
    assert tm.as_dtype(value) is expected


@pytest.mark.parametrize("name, enum", sorted(TF_ENUMS.items()))
def test_enum_values_are_tensorflows(name, enum):
    dt = tm.as_dtype(name)
    assert dt.enum == enum
    assert tm.as_dtype(enum) is dt


@pytest.mark.parametrize(
    "value, expected",
    [(float, tm.float32), (int, tm.int32), (bool, tm.bool), (str, tm.string),
     (bytes, tm.string)],
)
def test_as_dtype_from_python_types_uses_tf_defaults(value, expected):
    assert tm.as_dtype(value) is expected


def test_as_dtype_of_a_dtype_is_itself():
    assert tm.as_dtype(tm.int16) is tm.int16


@pytest.mark.parametrize(
    "value",
    ["float128", "", "Float32", 99, 0, None, [1], True, np.float128, np.complex256, 1.5],
)
def test_as_dtype_rejects_unknown_values(value):
    with pytest.raises(TypeError, match="Cannot convert"):
        tm.as_dtype(value)


def test_aliases():
    assert tm.half is tm.float16
    assert tm.double is tm.float64
    assert tm.bool is tm.bool_


@pytest.mark.parametrize(
    "dt, floating, integer, unsigned, is_bool, numeric",
    [
        (tm.float16, True, False, False, False, True),
        (tm.float32, True, False, False, False, True),
        (tm.float64, True, False, False, False, True),
        (tm.int8, False, True, False, False, True),
        (tm.int64, False, True, False, False, True),
        (tm.uint8, False, True, True, False, True),
        (tm.bool, False, False, False, True, False),
        (tm.string, False, False, False, False, False),
        (tm.resource, False, False, False, False, False),
    ],
)
def test_predicates(dt, floating, integer, unsigned, is_bool, numeric):
    assert dt.is_floating is floating
    assert dt.is_integer is integer
    assert dt.is_unsigned is unsigned
    assert dt.is_bool is is_bool
    assert dt.is_numeric is numeric


def test_object_types_are_held_in_object_arrays():
    for dt in (tm.string, tm.resource, tm.variant):
        assert dt.is_object
        assert dt.np_dtype == np.dtype(object)
    assert not tm.float32.is_object


def test_numpy_views():
    assert tm.float32.as_numpy_dtype is np.float32
    assert tm.int64.as_numpy_dtype is np.int64
    assert tm.bool.np_dtype == np.dtype(bool)
    assert tm.float16.base_dtype is tm.float16


@pytest.mark.parametrize(
    "dt, lo, hi",
    [
        (tm.int8, -128, 127),
        (tm.uint8, 0, 255),
        (tm.int16, -32768, 32767),
        (tm.int32, -(2**31), 2**31 - 1),
        (tm.int64, -(2**63), 2**63 - 1),
        (tm.float16, -65504.0, 65504.0),
        (tm.float32, float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)),
        (tm.float64, float(np.finfo(np.float64).min), float(np.finfo(np.float64).max)),
    ],
)
def test_limits(dt, lo, hi):
    assert dt.min == lo
    assert dt.max == hi
    assert type(dt.min) is type(lo)


@pytest.mark.parametrize("dt", [tm.bool, tm.string, tm.resource])
def test_limits_of_non_numeric_types_raise_type_error(dt):
    # TensorFlow: "Cannot find minimum value of <dtype: 'bool'> ..."
    with pytest.raises(TypeError, match="Cannot find minimum"):
        _ = dt.min
    with pytest.raises(TypeError):
        _ = dt.max


def test_str_and_repr():
    assert str(tm.float32) == "<dtype: 'float32'>"
    assert str(tm.bool) == "<dtype: 'bool'>"
    assert repr(tm.int64) == "tm.int64"


def test_equality_converts_like_tensorflow():
    assert tm.float32 == tm.as_dtype("float")
    assert tm.float32 == "float32"
    assert tm.float32 == np.float32
    assert tm.float32 == np.dtype("float32")
    assert tm.float32 != "int32"
    assert tm.float32 != tm.float64
    assert tm.float32 != "not a type"
    assert tm.float32 != None  # noqa: E711  (TensorFlow's DType == None is False)
    assert not (tm.int32 == [1, 2])


def test_hash_is_consistent_with_equality():
    table = {tm.float32: "f", tm.int32: "i"}
    assert table[tm.as_dtype("DT_FLOAT")] == "f"
    assert table[tm.as_dtype(np.int32)] == "i"
    assert len({tm.float32, tm.as_dtype("float"), tm.as_dtype(1)}) == 1


def test_is_compatible_with():
    assert tm.float32.is_compatible_with(np.float32)
    assert tm.float32.is_compatible_with("float")
    assert not tm.float32.is_compatible_with(tm.float64)
    with pytest.raises(TypeError):
        tm.float32.is_compatible_with("nope")


def test_dtypes_are_frozen():
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        tm.float32.name = "float64"


@pytest.mark.parametrize(
    "dt, spelling",
    [(tm.float32, "float"), (tm.float64, "double"), (tm.float16, "half"), (tm.int32, "int32"),
     (tm.bool, "bool")],
)
def test_tf_type_name_is_the_opdef_spelling(dt, spelling):
    assert dtypes.tf_type_name(dt) == spelling


def test_type_groups():
    assert set(dtypes.FLOATING) == {tm.float16, tm.float32, tm.float64}
    assert set(dtypes.COMPLEX) == {tm.complex64, tm.complex128}
    assert tm.uint8 in dtypes.INTEGER and tm.bool not in dtypes.NUMERIC
    assert len(dtypes.ALL_DTYPES) == len(TF_ENUMS)


def test_unsigned_types():
    for name, np_type in (("uint16", np.uint16), ("uint32", np.uint32), ("uint64", np.uint64)):
        dt = tm.as_dtype(name)
        assert dt is getattr(tm, name) and tm.as_dtype(np_type) is dt
        assert tm.as_dtype("DT_" + name.upper()) is dt
        assert dt.is_integer and dt.is_unsigned and not dt.is_floating
        assert (dt.min, dt.max) == (0, int(np.iinfo(np_type).max))
        assert dtypes.tf_type_name(dt) == name
    assert not tm.int64.is_unsigned and tm.uint8.is_unsigned


def test_unsigned_constants_and_casts():
    with tm.Graph().as_default():
        big = tm.constant(np.array([0, 2**64 - 1], np.uint64))
        to_u32 = tm.cast(tm.constant([3.7, 4294967301.0], tm.float64), tm.uint32)
        to_u64 = tm.cast(tm.constant([1.5, 2.0**63, 1.8e19], tm.float64), tm.uint64)
        back = tm.cast(tm.constant(np.array([2**32 - 1], np.uint32)), tm.int64)
        with tm.Session() as sess:
            b, a32, a64, bk = sess.run([big, to_u32, to_u64, back])
    assert big.dtype == tm.uint64 and b.dtype == np.uint64 and b[1] == 2**64 - 1
    np.testing.assert_array_equal(a32, np.array([3, 5], np.uint32))  # low 32 bits
    np.testing.assert_array_equal(a64, np.array([1, 2**63, 18000000000000000000], np.uint64))
    assert bk.tolist() == [2**32 - 1]


@pytest.mark.parametrize("spec", [b",", ",", "i4,i4,", "(", object()])
def test_unreadable_dtype_specs_are_type_errors(spec):
    # Found by tests/test_fuzz.py: np.dtype(b",") raises SyntaxError.
    with pytest.raises(TypeError, match="Cannot convert"):
        tm.as_dtype(spec)
