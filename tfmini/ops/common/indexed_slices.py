"""IndexedSlices: a sparse, slice-wise tensor, as gradients of gathers produce it.

Rows ``values[i]`` belong at ``indices[i]`` of a dense tensor of shape ``dense_shape``
(repeated indices add up). Gradients stay in this form until something needs them dense;
converting to a tensor sums the rows into place (``UnsortedSegmentSum``), as TensorFlow does.
Fetching one from ``Session.run`` gives an :class:`IndexedSlicesValue`.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, register_tensor_conversion_function
from tfmini.core.graph import Output
from tfmini.core.scope import current_scope, name_scope

IndexedSlicesValue = collections.namedtuple(
    "IndexedSlicesValue", ["values", "indices", "dense_shape"]
)
IndexedSlicesValue.__doc__ = "The value of an IndexedSlices fetched from Session.run."


class IndexedSlices:
    """A sparse representation of a set of tensor slices at given indices.

    Args:
        values: The slices, shape ``[len(indices)] + dense_shape[1:]``.
        indices: 1-D integer tensor of row indices into the dense tensor.
        dense_shape: Optional 1-D integer tensor, the dense tensor's shape.
    """

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    @property
    def values(self) -> Output:
        return self._values

    @property
    def indices(self) -> Output:
        return self._indices

    @property
    def dense_shape(self) -> Output | None:
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._values.graph

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def shape(self):
        """The static dense shape when known (from ``dense_shape``), else from ``values``."""
        from tfmini.core.builder import static_value
        from tfmini.core.shapes import TensorShape, unknown_shape

        if self._dense_shape is not None:
            known = static_value(self._dense_shape)
            if known is not None:
                return TensorShape([int(d) for d in np.asarray(known)])
        values = self._values.shape
        if values.dims is None:
            return unknown_shape()
        return TensorShape((None,) + tuple(values.dims[1:]))

    def _tm_fetch_components(self) -> tuple[list, Any]:
        """The parts Session.run fetches, and how to put their values back together."""
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)

        def build(values):
            dense = values[2] if len(values) > 2 else None
            return IndexedSlicesValue(values[0], values[1], dense)

        return parts, build

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        return (
            f"IndexedSlices(indices={self._indices!r}, values={self._values!r}"
            + (f", dense_shape={self._dense_shape!r})" if self._dense_shape is not None else ")")
        )


def indexed_slices_to_tensor(value: IndexedSlices, dtype=None, name=None, as_ref=False) -> Output:
    """The dense tensor an IndexedSlices stands for (rows summed into place)."""
    del as_ref
    if dtype is not None and dtype != value.dtype:
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for IndexedSlices with dtype "
            f"{value.dtype.name}"
        )
    if value.dense_shape is None:
        raise ValueError(
            f"Tensor conversion requested for IndexedSlices without dense_shape: {value!r}"
        )
    with name_scope(name, "IndexedSlicesToDense"):
        scope = current_scope()
        rows = build_op(scope, "StridedSlice",
                        [value.dense_shape, [0], [1], [1]], {"shrink_axis_mask": 1}).outputs[0]
        return build_op(scope, "UnsortedSegmentSum",
                        [value.values, value.indices, rows]).outputs[0]


register_tensor_conversion_function(IndexedSlices, indexed_slices_to_tensor)


__all__ = ["IndexedSlices", "IndexedSlicesValue"]
