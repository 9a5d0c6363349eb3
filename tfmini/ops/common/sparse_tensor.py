"""SparseTensor: a tensor given by the coordinates and values of its non-default entries.

``indices`` is an int64 ``[N, rank]`` matrix of coordinates, ``values`` the ``N`` entries and
``dense_shape`` the int64 ``[rank]`` shape of the dense tensor it stands for (TensorFlow's
``tensorflow/python/framework/sparse_tensor.py``). It is a composite of three Outputs: fetching
one from ``Session.run`` gives a :class:`SparseTensorValue`, and a SparseTensor (such as the
one ``tm.sparse_placeholder`` makes) can be fed a SparseTensorValue or an
``(indices, values, dense_shape)`` tuple. The type is kept general (any rank, any value dtype),
so the sparse ops can grow around it.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, unknown_shape
from tfmini.ops.common.build_util import op_scope

SparseTensorValue = collections.namedtuple(
    "SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "The value of a SparseTensor fetched from Session.run."


class SparseTensor:
    """A sparse tensor: ``values[i]`` is the entry at coordinates ``indices[i]``.

    Args:
        indices: int64 ``[N, rank]`` coordinates (row-major order is what most ops expect).
        values: ``[N]`` entries, any dtype.
        dense_shape: int64 ``[rank]`` shape of the dense tensor.

    Example::

        st = tm.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
        tm.sparse.to_dense(st)  # [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    """

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        self._indices = convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
        self._values = convert_to_tensor(values, name="values")
        self._dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64,
                                              name="dense_shape")
        for part, rank, what in ((self._indices, 2, "indices"), (self._values, 1, "values"),
                                 (self._dense_shape, 1, "dense_shape")):
            if part.shape.dims is not None and part.shape.rank != rank:
                raise ValueError(
                    f"SparseTensor {what} must have rank {rank}, got shape {part.shape}")

    @classmethod
    def from_value(cls, value: Any) -> SparseTensor:
        """A SparseTensor of constants from a :class:`SparseTensorValue` (or a SparseTensor,
        returned as it is)."""
        if isinstance(value, SparseTensor):
            return value
        return cls(np.asarray(value.indices, np.int64), np.asarray(value.values),
                   np.asarray(value.dense_shape, np.int64))

    @property
    def indices(self) -> Output:
        return self._indices

    @property
    def values(self) -> Output:
        return self._values

    @property
    def dense_shape(self) -> Output:
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: ``dense_shape``'s value where known at build time."""
        known = static_value(self._dense_shape)
        if known is not None:
            return TensorShape([int(d) if d >= 0 else None for d in np.asarray(known)])
        rank = self._dense_shape.shape
        if rank.dims is None or rank.dims[0] is None:
            return unknown_shape()
        return TensorShape([None] * rank.dims[0])

    def get_shape(self) -> TensorShape:
        return self.shape

    def _tm_fetch_components(self) -> tuple[list, Any]:
        """The parts Session.run fetches, and how to put their values back together."""
        def build(values):
            return SparseTensorValue(values[0], values[1], values[2])
        return [self._indices, self._values, self._dense_shape], build

    def _tm_feed_components(self, value: Any) -> list[tuple[Output, Any]]:
        """The (Output, value) feeds that feeding ``value`` to this SparseTensor means."""
        if isinstance(value, SparseTensorValue) or (
                isinstance(value, (tuple, list)) and len(value) == 3):
            indices, values, dense_shape = value
            return [(self._indices, indices), (self._values, values),
                    (self._dense_shape, dense_shape)]
        raise TypeError(
            f"A SparseTensor is fed a SparseTensorValue or an (indices, values, dense_shape) "
            f"tuple, got {type(value).__name__}")

    # sp * dense, sp / dense: TensorFlow's operator overloads (sparse_tensor.py), the dense
    # side broadcast to the sparse shape, the result a SparseTensor on the same indices.
    def _cwise(self, op_type: str, y: Any, scope_name: str, cast_to=None) -> SparseTensor:
        # As TensorFlow: helpers inside the "mul" (...) scope, the op itself named "mul".
        with op_scope(None, scope_name) as (outer, base):
            y = convert_to_tensor(y, dtype=self.dtype, name="y")
            values = self._values
            if cast_to is not None:
                values = build_op(current_scope(), "Cast", [values], {"DstT": cast_to}).outputs[0]
                y = build_op(current_scope(), "Cast", [y], {"DstT": cast_to}).outputs[0]
            out = build_op(outer, op_type, [self._indices, values, self._dense_shape, y],
                           name=base).outputs[0]
        return SparseTensor(self._indices, out, self._dense_shape)

    def __mul__(self, y: Any) -> SparseTensor:
        return self._cwise("SparseDenseCwiseMul", y, "mul")

    def __truediv__(self, y: Any) -> SparseTensor:
        # As TensorFlow's __truediv__: small ints divide in float32, 32/64-bit ints in float64.
        dt = self.dtype
        cast_to = None
        if dt.is_integer:
            cast_to = dtypes.float32 if dt.np_dtype.itemsize <= 2 else dtypes.float64
        return self._cwise("SparseDenseCwiseDiv", y, "truediv", cast_to)

    def __div__(self, y: Any) -> SparseTensor:
        return self._cwise("SparseDenseCwiseDiv", y, "div")

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")


__all__ = ["SparseTensor", "SparseTensorValue"]
