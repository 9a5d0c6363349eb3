"""TensorShape: unknown rank and dimensions, compatibility, merging, printing, errors."""

from __future__ import annotations

import attrs
import numpy as np
import pytest

import tfmini as tm
from tfmini.core.shapes import TensorShape, as_shape, dims_str, scalar, unknown_shape


def test_unknown_rank():
    s = TensorShape(None)
    assert s.rank is None and s.ndims is None and s.dims is None
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    assert not s  # only an unknown rank is falsy; a scalar is not
    assert s[0] is None
    assert s[1:3] == unknown_shape()
    with pytest.raises(ValueError, match="unknown TensorShape"):
        s.as_list()
    with pytest.raises(ValueError, match="unknown rank"):
        len(s)
    with pytest.raises(ValueError, match="unknown rank"):
        list(s)


def test_unknown_dimensions():
    s = TensorShape([None, 3])
    assert s.rank == 2
    assert s.as_list() == [None, 3]
    assert s[0] is None and s[1] == 3
    assert len(s) == 2
    assert list(s) == [None, 3]
    assert not s.is_fully_defined()
    assert s.num_elements() is None


def test_scalar_and_fully_defined():
    assert scalar() == TensorShape([])
    assert scalar().rank == 0
    assert scalar().num_elements() == 1
    assert scalar().is_fully_defined()
    assert bool(scalar())
    s = TensorShape((2, 3, 4))
    assert s.is_fully_defined()
    assert s.num_elements() == 24
    assert s[1:] == TensorShape([3, 4])
    with pytest.raises(IndexError):
        s[5]


def test_unknown_shape_helper():
    assert unknown_shape().rank is None
    assert unknown_shape(3) == TensorShape([None, None, None])


def test_dimension_conversion():
    assert TensorShape([np.int64(2), np.int32(3)]).dims == (2, 3)
    assert all(type(d) is int for d in TensorShape([np.int64(2)]).dims)
    assert TensorShape([-1, 2]) == [None, 2]  # -1 is "unknown" in serialised shapes
    assert TensorShape(3) == [3]  # a non-iterable is one dimension, as TensorFlow
    assert TensorShape(TensorShape([1, None])) == [1, None]


def test_negative_dimension_is_a_value_error():
    with pytest.raises(ValueError, match="Dimension -2 must be >= 0"):
        TensorShape([-2])


@pytest.mark.parametrize("bad", [[1.5], ["3"], [object()]])
def test_non_integer_dimension_is_a_type_error(bad):
    # TensorFlow refuses 1.5 (no __index__) instead of truncating it to 1.
    with pytest.raises(TypeError, match="Dimension value must be integer"):
        TensorShape(bad)


def test_as_shape():
    assert as_shape(None).rank is None
    assert as_shape([1, None]) == TensorShape([1, None])
    assert as_shape((2,)) == TensorShape([2])
    assert as_shape(4) == TensorShape([4])
    assert as_shape(np.int64(4)) == TensorShape([4])
    s = TensorShape([5])
    assert as_shape(s) is s
    for bad in ("ab", object(), 2.5):
        with pytest.raises(TypeError):
            as_shape(bad)


@pytest.mark.parametrize(
    "a, b, compatible",
    [
        (None, [1, 2], True),
        ([1, 2], None, True),
        ([None, 2], [5, 2], True),
        ([None, None], [5, 2], True),
        ([1, 2], [1, 2], True),
        ([1, 2], [2, 2], False),
        ([1], [1, 1], False),
        ([], [], True),
        ([], [1], False),
    ],
)
def test_is_compatible_with(a, b, compatible):
    assert TensorShape(a).is_compatible_with(b) is compatible
    assert TensorShape(b).is_compatible_with(TensorShape(a)) is compatible


def test_assert_is_compatible_with():
    TensorShape([None, 2]).assert_is_compatible_with([3, 2])
    with pytest.raises(ValueError, match=r"Shapes \(1, 2\) and \(3, 2\) are incompatible"):
        TensorShape([1, 2]).assert_is_compatible_with([3, 2])


@pytest.mark.parametrize(
    "a, b, merged",
    [
        ([None, 3], [2, None], [2, 3]),
        (None, [1, None], [1, None]),
        ([1, None], None, [1, None]),
        (None, None, None),
        ([4], [4], [4]),
    ],
)
def test_merge_with(a, b, merged):
    assert TensorShape(a).merge_with(b) == TensorShape(merged)


def test_merge_with_incompatible_raises_as_tensorflow():
    with pytest.raises(ValueError, match=r"Shapes \(2, 3\) and \(3, 3\) are not compatible"):
        TensorShape([2, 3]).merge_with([3, 3])
    with pytest.raises(ValueError, match="not compatible"):
        TensorShape([2]).merge_with([2, 3])


def test_concatenate():
    assert TensorShape([1, 2]).concatenate([3]) == [1, 2, 3]
    assert TensorShape([]).concatenate([None]) == [None]
    assert TensorShape(None).concatenate([3]).rank is None
    assert TensorShape([3]).concatenate(None).rank is None


def test_with_rank():
    assert TensorShape(None).with_rank(2) == [None, None]
    s = TensorShape([1, 2])
    assert s.with_rank(2) is s
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank 3"):
        s.with_rank(3)


@pytest.mark.parametrize(
    "dims, text, rep, tf_text",
    [
        (None, "<unknown>", "TensorShape(None)", "<unknown>"),
        ([], "()", "TensorShape([])", "[]"),
        ([3], "(3,)", "TensorShape([3])", "[3]"),
        ([None, 3], "(None, 3)", "TensorShape([None, 3])", "[?,3]"),
        ([2, 3, 4], "(2, 3, 4)", "TensorShape([2, 3, 4])", "[2,3,4]"),
    ],
)
def test_printing(dims, text, rep, tf_text):
    s = TensorShape(dims)
    assert str(s) == text
    assert repr(s) == rep
    assert s.tf_str() == tf_text


def test_dims_str_of_concrete_shapes():
    assert dims_str((2, 3)) == "[2,3]"
    assert dims_str(()) == "[]"


def test_equality_accepts_lists_as_tensorflow():
    assert TensorShape([1, 2]) == [1, 2]
    assert TensorShape([1, 2]) == (1, 2)
    assert TensorShape([None]) == TensorShape([None])
    assert TensorShape(None) == TensorShape(None)
    assert TensorShape([1, 2]) != [2, 1]
    assert TensorShape([1, 2]) != TensorShape(None)
    assert TensorShape([1]) != "x"  # not convertible: simply unequal


def test_hash_follows_equality():
    assert hash(TensorShape([1, None])) == hash(TensorShape((1, None)))
    assert len({TensorShape([2]), TensorShape((2,)), as_shape(2)}) == 1


def test_shapes_are_frozen():
    s = TensorShape([1])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        s.dims = (2,)


def test_public_name():
    assert tm.TensorShape is TensorShape
