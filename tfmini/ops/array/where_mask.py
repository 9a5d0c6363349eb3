"""Where (coordinates of true elements), and the masks built on it: ``boolean_mask`` and
``sequence_mask``, as TensorFlow's ``array_ops.py`` builds them.

``Where``'s kernel follows ``tensorflow/core/kernels/where_op.cc``: one int64 row per
non-zero element, in row-major order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape, as_shape
from tfmini.ops.array.concat_split import concat
from tfmini.ops.array.gather_scatter import gather
from tfmini.ops.array.shape_ops import expand_dims, reshape, shape, squeeze
from tfmini.ops.common.build_util import build_output


def _where_shape(ic) -> list[TensorShape]:
    rank = as_shape(ic.input_shape(0)).rank
    return [TensorShape([None, rank])]


@register_op(
    "Where",
    inputs=["input: T"],
    outputs=["index: int64"],
    attrs=["T: {half, float, double, int8, int16, int32, int64, uint8, bool} = DT_BOOL"],
    shape_fn=_where_shape,
)
def where_kernel(input):  # noqa: A002  (TensorFlow's argument name)
    """The coordinates of the non-zero (true) elements, one row each, row-major."""
    return np.argwhere(np.asarray(input)).astype(np.int64)


def _cast(x: Output, dtype) -> Output:
    # The math family's cast, by op type: the array family does not import math (math's
    # broadcasting helpers import array).
    if x.dtype == dtype:
        return x
    return build_output("Cast", [x], {"DstT": dtype, "Truncate": False}, name="Cast")


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Output:
    """The elements (or slices along ``axis``) of ``tensor`` where ``mask`` is true
    (``tf.boolean_mask``): Reshape, Where, Squeeze and GatherV2.

    Args:
        tensor: N-D tensor.
        mask: K-D bool tensor, K <= N, of known rank; its shape must match
            ``tensor.shape[axis:axis + K]``.
        name: Name scope.
        axis: The first dimension of ``tensor`` the mask covers (default 0).

    Returns:
        ``(N - K + 1)``-D tensor.

    Raises:
        ValueError: the mask is a scalar, has unknown rank, or does not match the tensor.
    """
    with name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask, shape_tensor = mask.shape, tensor.shape
        ndims_mask = shape_mask.rank
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are "
                "None.  E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else axis
        axis_value = static_value(convert_to_tensor(axis)) if isinstance(axis, Output) \
            else np.asarray(axis)
        if axis_value is not None:
            axis = int(axis_value)
            if shape_tensor.rank is not None:
                part = TensorShape(shape_tensor.dims[axis:axis + ndims_mask])
                if not part.is_compatible_with(shape_mask):
                    raise ValueError(
                        f"Shapes {part} and {shape_mask} are incompatible")
        full = shape(tensor)
        leading = build_output(
            "Prod", [full[axis:axis + ndims_mask], [0]], {"keep_dims": False})
        tensor = reshape(tensor, concat([full[:axis], [leading], full[axis + ndims_mask:]],
                                        0))
        if isinstance(axis, int) and shape_tensor.rank is not None:
            dims = shape_tensor.dims
            covered = dims[axis:axis + ndims_mask]
            first = None if None in covered else int(np.prod(covered, dtype=np.int64))
            tensor.set_shape([*dims[:axis], first, *dims[axis + ndims_mask:]])
        mask = reshape(mask, [-1])
        indices = squeeze(build_output("Where", [mask]), axis=[1])
        return gather(tensor, indices, axis=axis)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool_,
                  name: str | None = None) -> Output:
    """``mask[i..., j] = j < lengths[i...]`` (``tf.sequence_mask``).

    Args:
        lengths: int tensor of lengths.
        maxlen: scalar length of the last dimension (default: the largest length).
        dtype: Output dtype (bool unless given).
        name: Name scope (default ``SequenceMask``).

    Returns:
        A tensor of ``lengths.shape + [maxlen]``.

    Raises:
        ValueError: ``maxlen`` is not a scalar.
    """
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            axes = np.arange(lengths.shape.rank, dtype=np.int32) if lengths.shape.rank is not None \
                else build_output("Range", [0, build_output("Rank", [lengths]), 1])
            maxlen = build_output("Max", [lengths, axes], {"keep_dims": False})
            maxlen = build_output("Maximum", [convert_to_tensor(0, maxlen.dtype), maxlen])
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank is not None and maxlen.shape.rank != 0:
            raise ValueError(
                "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                f"{maxlen} with shape '{maxlen.shape}' instead")
        row = build_output("Range", [convert_to_tensor(0, maxlen.dtype), maxlen,
                                     convert_to_tensor(1, maxlen.dtype)])
        matrix = _cast(expand_dims(lengths, -1), maxlen.dtype)
        result = build_output("Less", [row, matrix])
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        if dtype is None or dtype == dtypes.bool_:
            return result
        return _cast(result, dtype)


__all__ = ["boolean_mask", "sequence_mask"]
