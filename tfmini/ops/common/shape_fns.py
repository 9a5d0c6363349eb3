"""Shape-function helpers shared by the op families.

A shape function receives an :class:`~tfmini.core.builder.InferenceContext`
and returns one shape per output. Errors are ValueErrors with TensorFlow's
wording; the builder adds the op name and the user's line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import static_value
from tfmini.core.graph import Output
from tfmini.core.opdef import flat_count
from tfmini.core.shapes import TensorShape, as_shape, unknown_shape


def unknown(ic) -> list[TensorShape]:
    """Every output of unknown shape."""
    return [unknown_shape()] * _num_outputs(ic)


def _num_outputs(ic) -> int:
    return flat_count(ic.op_def.outputs, ic.attrs)


def unchanged(ic) -> list[TensorShape]:
    """One output with the shape of input 0."""
    return [ic.input_shape(0)]


def scalar(ic) -> list[TensorShape]:
    return [TensorShape(())]


def no_outputs(ic) -> list[TensorShape]:
    return []


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy/TensorFlow broadcasting of two static shapes.

    Raises:
        ValueError: "Dimensions must be equal, but are 2 and 3".
    """
    a, b = as_shape(a), as_shape(b)
    if a.dims is None or b.dims is None:
        return unknown_shape()
    da, db = list(a.dims), list(b.dims)
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape(out)


def broadcast_binary(ic) -> list[TensorShape]:
    """One output: inputs 0 and 1 broadcast together."""
    return [broadcast_shapes(ic.input_shape(0), ic.input_shape(1))]


def with_rank(shape: TensorShape, rank: int) -> TensorShape:
    """``shape`` checked to have ``rank`` ("Shape must be rank 2 but is rank 3")."""
    shape = as_shape(shape)
    if shape.dims is None:
        return unknown_shape(rank)
    if len(shape.dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(shape.dims)}")
    return shape


def with_rank_at_least(shape: TensorShape, rank: int) -> TensorShape:
    shape = as_shape(shape)
    if shape.dims is not None and len(shape.dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(shape.dims)}")
    return shape


def with_rank_at_most(shape: Any, rank: int) -> TensorShape:
    """``shape`` checked to have at most ``rank`` dimensions ("Shape must be at most rank 1
    but is rank 2")."""
    shape = as_shape(shape)
    if shape.dims is not None and len(shape.dims) > rank:
        raise ValueError(f"Shape must be at most rank {rank} but is rank {len(shape.dims)}")
    return shape


def merge_shapes(a: Any, b: Any) -> TensorShape:
    """TensorFlow's ``InferenceContext::Merge`` of two shapes, with its messages.

    Raises:
        ValueError: "Shapes must be equal rank, but are 2 and 1", or "Dimension 1 in both
            shapes must be equal, but are 3 and 1. Shapes are [2,3] and [2,1]."
    """
    a, b = as_shape(a), as_shape(b)
    if a.dims is None:
        return b
    if b.dims is None:
        return a
    if len(a.dims) != len(b.dims):
        raise ValueError(f"Shapes must be equal rank, but are {len(a.dims)} and {len(b.dims)}")
    out = []
    for i, (x, y) in enumerate(zip(a.dims, b.dims)):
        if x is not None and y is not None and x != y:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                f"Shapes are {a.tf_str()} and {b.tf_str()}."
            )
        out.append(x if x is not None else y)
    return TensorShape(out)


def merge_both_inputs(ic) -> list[TensorShape]:
    """TensorFlow's MergeBothInputsShapeFn: both inputs share one shape, which is the output's."""
    return [merge_shapes(ic.input_shape(0), ic.input_shape(1))]


def merge_dim(a: int | None, b: int | None) -> int | None:
    """Two dimensions that must agree ("Dimensions must be equal, but are 2 and 3")."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


def multiply_dims(a: int | None, b: int | None) -> int | None:
    """TensorFlow's ``InferenceContext::Multiply`` (a known 0 wins over an unknown)."""
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    if a is None or b is None:
        return None
    return a * b


def _shape_from_vector(value: np.ndarray) -> TensorShape:
    dims: list[int | None] = []
    for v in np.asarray(value).ravel().tolist():
        if v >= 0:
            dims.append(int(v))
        elif v == -1:
            dims.append(None)
        else:
            raise ValueError(f"Invalid value in tensor used for shape: {v}")
    return TensorShape(dims)


def _scalar_or_none(t: Output) -> int | None:
    v = static_value(t)
    if v is None or np.ndim(v) != 0:
        return None
    return int(v)


def _partial_shape_of_tensor(t: Output) -> TensorShape | None:
    """The shape a 1-D int tensor describes, as far as it is known at build time.

    TensorFlow's ``ConstantPartialShape``: a constant; ``tf.shape(x)`` (x's
    static shape); a ``Pack`` of scalars, some unknown; a ``ConcatV2`` of such
    pieces; a simple ``StridedSlice`` of one of them; a ``Cast`` of one. None
    when nothing is known.
    """
    value = static_value(t)
    if value is not None:
        return _shape_from_vector(value) if np.ndim(value) == 1 else None
    op = t.op
    if op.type == "Shape":
        shape = op.inputs[0].shape
        return shape if shape.dims is not None else None
    if op.type == "Cast":
        return _partial_shape_of_tensor(op.inputs[0])
    if op.type == "Pack" and t.shape.rank == 1:
        dims: list[int | None] = []
        for inp in op.inputs:
            v = _scalar_or_none(inp)
            if v is not None and v < -1:
                raise ValueError(f"Invalid value in tensor used for shape: {v}")
            dims.append(v if v is not None and v >= 0 else None)
        return TensorShape(dims)
    if op.type == "ConcatV2":
        dims = []
        for inp in op.inputs[:-1]:
            piece = _partial_shape_of_tensor(inp)
            if piece is None:
                if inp.shape.rank != 1 or inp.shape.dims[0] is None:
                    return None
                piece = unknown_shape(inp.shape.dims[0])
            dims.extend(piece.dims)
        return TensorShape(dims)
    if op.type == "StridedSlice":
        return _partial_strided_slice_shape(op)
    return None


def _partial_strided_slice_shape(op) -> TensorShape | None:
    # TensorFlow only looks through 1-D slices with plain begin/end masks (x[1:], x[:-1]...).
    attrs = op.attrs
    if attrs["ellipsis_mask"] or attrs["new_axis_mask"] or attrs["shrink_axis_mask"]:
        return None
    if attrs["begin_mask"] not in (0, 1) or attrs["end_mask"] not in (0, 1):
        return None
    spec = []
    for inp in op.inputs[1:]:
        v = static_value(inp)
        if v is None or np.size(v) != 1:
            return None
        spec.append(int(np.asarray(v).ravel()[0]))
    source = _partial_shape_of_tensor(op.inputs[0])
    if source is None:
        return None
    begin = None if attrs["begin_mask"] else spec[0]
    end = None if attrs["end_mask"] else spec[1]
    if spec[2] == 0:
        return None
    return TensorShape(list(source.dims)[begin:end:spec[2]])


def shape_from_shape_tensor(ic, key: int | str) -> TensorShape:
    """The output shape that a shape-tensor input describes (TF's ``MakeShapeFromShapeTensor``).

    Known entries become dimensions, ``-1`` or unknown entries unknown
    dimensions; an input of known length but unknown value gives that many
    unknown dimensions.

    Raises:
        ValueError: the input is not a vector, or holds a value below -1.
    """
    tshape = with_rank_at_most(ic.input_shape(key), 1)
    partial = _partial_shape_of_tensor(ic.input(key))
    if partial is not None:
        return partial
    tshape = with_rank(tshape, 1)
    return unknown_shape(tshape.dims[0])


def _static_scalar_input(ic, key: int | str) -> int | None:
    """The value of a scalar input known at build time, else None."""
    v = ic.input_value(key)
    if v is None:
        return None
    if np.ndim(v) != 0:
        raise ValueError(f"Input must be scalar but has rank {np.ndim(v)}")
    return int(v)


def dim_from_scalar_input(ic, key: int | str, index: int) -> int | None:
    """TF's ``MakeDimForScalarInput``: a non-negative static scalar, else None."""
    v = _static_scalar_input(ic, key)
    if v is None:
        return None
    if v < 0:
        raise ValueError(
            f"Dimension size, given by scalar input {index}, must be non-negative but is {v}"
        )
    return v


def axis_from_scalar_input(ic, key: int | str, rank: int | None) -> int | None:
    """TF's ``MakeDimForScalarInputWithNegativeIndexing``: a static axis in [-rank, rank)."""
    v = _static_scalar_input(ic, key)
    if v is None:
        return None
    if rank is None:
        return v if v >= 0 else None
    if v < -rank or v >= rank:
        raise ValueError(
            f"Dimension size, given by scalar input {v} must be in range [{-rank}, {rank})"
        )
    return v + rank if v < 0 else v
