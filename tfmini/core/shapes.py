"""Static tensor shapes with unknown dimensions and unknown rank (TensorFlow's TensorShape)."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Any

from attrs import field, frozen


def _dim_value(d: Any) -> int:
    # operator.index, as TensorFlow's Dimension: 1.5 or "3" are refused, not truncated.
    try:
        return operator.index(d)
    except TypeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got value "
            f"{d!r} with type {type(d)!r}"
        ) from None


def _convert_dims(value: Any) -> tuple[int | None, ...] | None:
    if value is None:
        return None
    if isinstance(value, TensorShape):
        return value.dims
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        value = [value]  # TensorFlow treats a non-iterable as a single dimension
    dims = []
    for d in value:
        if d is None:
            dims.append(None)
            continue
        d = _dim_value(d)
        if d < 0:
            if d == -1:  # TensorFlow's "unknown" in serialised shapes
                dims.append(None)
                continue
            raise ValueError(f"Dimension {d} must be >= 0")
        if d >= 1 << 63:
            # TensorFlow's dims are int64 (tensor_shape.proto); a bigger one cannot exist.
            raise ValueError(f"Dimension {d} must be less than 2**63 (it is an int64)")
        dims.append(d)
    return tuple(dims)


@frozen(repr=False, eq=False)
class TensorShape:
    """A possibly partial shape.

    ``dims`` is ``None`` for an unknown rank, else a tuple whose items are
    ints or ``None`` for an unknown dimension.
    """

    dims: tuple[int | None, ...] | None = field(converter=_convert_dims)

    # -- queries ----------------------------------------------------------------
    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    ndims = rank

    def is_fully_defined(self) -> bool:
        return self.dims is not None and all(d is not None for d in self.dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self.dims:
            n *= d
        return n

    def as_list(self) -> list[int | None]:
        if self.dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self.dims)

    def __len__(self) -> int:
        if self.dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self.dims)

    def __iter__(self) -> Iterator[int | None]:
        if self.dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key):
        if self.dims is None:
            if isinstance(key, slice):
                return unknown_shape()
            return None
        if isinstance(key, slice):
            return TensorShape(self.dims[key])
        return self.dims[key]

    def __bool__(self) -> bool:
        return self.dims is not None

    # -- compatibility ----------------------------------------------------------
    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return True
        if len(self.dims) != len(other.dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self.dims, other.dims))

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both; ValueError if incompatible."""
        other = as_shape(other)
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        if len(self.dims) != len(other.dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        out = []
        for a, b in zip(self.dims, other.dims):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Shapes {self} and {other} are not compatible")
            out.append(a if a is not None else b)
        return TensorShape(out)

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def with_rank(self, rank: int) -> TensorShape:
        if self.dims is None:
            return unknown_shape(rank)
        if len(self.dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def concatenate(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self.dims is None or other.dims is None:
            return unknown_shape()
        return TensorShape(self.dims + other.dims)

    # -- equality ---------------------------------------------------------------
    def __eq__(self, other: Any) -> bool:
        # As TensorFlow: ``x.shape == [2, 3]`` compares dims; unknown ranks are equal.
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self.dims == other.dims

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.dims)

    # -- printing ---------------------------------------------------------------
    def __repr__(self) -> str:
        if self.dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self.dims)})"

    def __str__(self) -> str:
        if self.dims is None:
            return "<unknown>"
        if len(self.dims) == 1:
            return f"({self.dims[0]},)"
        return "(" + ", ".join(str(d) for d in self.dims) + ")"

    def tf_str(self) -> str:
        """TensorFlow's bracket spelling used in kernel messages: ``[2,?,3]``."""
        if self.dims is None:
            return "<unknown>"
        return "[" + ",".join("?" if d is None else str(d) for d in self.dims) + "]"


def unknown_shape(rank: int | None = None) -> TensorShape:
    """A shape of unknown rank, or of known rank with unknown dimensions."""
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape(())


def as_shape(value: Any) -> TensorShape:
    """Converts a TensorShape, a list/tuple of dims, or ``None`` (unknown) to TensorShape."""
    if isinstance(value, TensorShape):
        return value
    if value is None:
        return unknown_shape()
    if isinstance(value, (str, bytes)) or not (
        isinstance(value, Iterable) or hasattr(value, "__index__")
    ):
        raise TypeError(f"Cannot convert {value!r} to a TensorShape")
    return TensorShape(value)  # an integer (NumPy's too) is a one-dimensional shape


def dims_str(shape: tuple) -> str:
    """``[2,3]`` spelling of a concrete NumPy shape, as TensorFlow's messages print it."""
    return "[" + ",".join(str(d) for d in shape) + "]"
