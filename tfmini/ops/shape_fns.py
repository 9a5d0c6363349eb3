"""Shape-function helpers shared by the op families.

A shape function receives an :class:`~tfmini.core.builder.InferenceContext`
and returns one shape per output. Errors are ValueErrors with TensorFlow's
wording; the builder adds the op name and the user's line.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.shapes import TensorShape, as_shape, unknown_shape


def unknown(ic) -> list[TensorShape]:
    """Every output of unknown shape."""
    return [unknown_shape()] * _num_outputs(ic)


def _num_outputs(ic) -> int:
    n = 0
    for arg in ic.op_def.outputs:
        if arg.type_list_attr:
            n += len(ic.attrs[arg.type_list_attr])
        elif arg.number_attr:
            n += ic.attrs[arg.number_attr]
        else:
            n += 1
    return n


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
