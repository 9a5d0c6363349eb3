"""Partitioning and small shape utilities: DynamicPartition, DynamicStitch, ShapeN,
UnravelIndex, CheckNumerics, Bitcast, and ``gather_nd``, ``batch_gather``, ``repeat``,
``parallel_stack``, ``is_tensor``, ``dimension_value``, ``get_static_value`` as TensorFlow
offers them (kernels as ``dynamic_partition_op.cc``, ``dynamic_stitch_op.cc``,
``shape_ops.cc``, ``unravel_index_op.cc``, ``check_numerics_op.cc``, ``bitcast_op.cc``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_autopacked, build_output
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import invalid_argument


def _shape_n_shape(ic) -> list[TensorShape]:
    return [TensorShape([as_shape(s).rank]) for s in ic.input_shape(0)]


@register_op(
    "ShapeN",
    inputs=["input: N * T"],
    outputs=["output: N * out_type"],
    attrs=["N: int >= 1", "T: type", "out_type: {int32, int64} = DT_INT32"],
    shape_fn=_shape_n_shape,
    value_fn=fold_constant,
)
def shape_n_kernel(input, *, out_type):  # noqa: A002
    """The shapes of several tensors."""
    return [np.asarray(np.shape(x), out_type.np_dtype) for x in input]


def shape_n(input: list, out_type: Any = dtypes.int32, name: str | None = None) -> list:
    """The shapes of several tensors (``tf.shape_n``)."""
    return list(build_op(current_scope(), "ShapeN", [list(input)],
                         {"out_type": as_dtype(out_type)}, name=name).outputs)


def _unravel_shape(ic) -> list[TensorShape]:
    idx = as_shape(ic.input_shape(0))
    dims = shape_fns.with_rank(ic.input_shape(1), 1)
    if idx.dims is None:
        return [unknown_shape()]
    return [TensorShape([dims.dims[0], *idx.dims])] if idx.rank else [TensorShape([dims.dims[0]])]


@register_op(
    "UnravelIndex",
    inputs=["indices: Tidx", "dims: Tidx"],
    outputs=["output: Tidx"],
    attrs=["Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_unravel_shape,
)
def unravel_index_kernel(indices, dims):
    """The coordinates of flat ``indices`` in an array of shape ``dims``."""
    idx, d = np.asarray(indices), np.asarray(dims)
    if d.ndim != 1:
        raise invalid_argument(f"The dims input must be a 1-D tensor, got {dims_str(d.shape)}")
    if (d <= 0).any() and d.size:
        raise invalid_argument("Input dims must be positive, got: " + str(d.tolist()))
    total = int(np.prod(d, dtype=np.int64))
    if idx.size and (idx.min() < 0 or idx.max() >= total):
        raise invalid_argument(
            f"index is out of bound as with dims [{','.join(map(str, d.tolist()))}]")
    coords = np.unravel_index(idx, tuple(d.tolist()))
    return np.stack(coords).astype(idx.dtype) if idx.ndim else np.array(coords, idx.dtype)


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Output:
    """Coordinates of flat indices (``tf.unravel_index``)."""
    return build_autopacked("UnravelIndex", [indices, dims], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# CheckNumerics, Bitcast


@register_op(
    "CheckNumerics",
    inputs=["tensor: T"],
    outputs=["output: T"],
    attrs=["T: {half, float, double}", "message: string"],
    shape_fn=shape_fns.unchanged,
)
def check_numerics_kernel(tensor, *, message):
    """``tensor``, after checking it holds no NaN or infinity."""
    x = np.asarray(tensor)
    nan, inf = bool(np.isnan(x).any()), bool(np.isinf(x).any())
    if nan or inf:
        what = "Inf and NaN" if nan and inf else ("NaN" if nan else "Inf")
        raise invalid_argument(f"{message} : Tensor had {what} values")
    return tensor


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Output:
    """``tensor``, failing at run time if it holds NaN or infinity
    (``tf.debugging.check_numerics``)."""
    return build_output("CheckNumerics", [tensor], {"message": message}, name=name)


def verify_tensor_all_finite(t: Any = None, msg: str | None = None, name: str | None = None,
                             x: Any = None, message: str | None = None) -> Output:
    """TF1 ``tf.verify_tensor_all_finite``: :func:`check_numerics` in a ``VerifyFinite`` scope."""
    t = x if t is None else t
    msg = message if msg is None else msg
    with name_scope(name, "VerifyFinite", [t]):
        t = convert_to_tensor(t, name="x")
        return check_numerics(t, message=msg)


_BITCAST_TYPES = "{half, float, double, int64, int32, uint8, int8, int16}"


def _bitcast_shape(ic) -> list[TensorShape]:
    s = as_shape(ic.input_shape(0))
    src = ic.attrs["T"].np_dtype.itemsize
    dst = ic.attrs["type"].np_dtype.itemsize
    if s.dims is None:
        return [s]
    if src == dst:
        return [s]
    if src > dst:
        return [TensorShape([*s.dims, src // dst])]
    if s.rank == 0 or (s.dims[-1] is not None and s.dims[-1] * src != dst):
        raise ValueError(f"Cannot bitcast from {ic.attrs['T'].name} to {ic.attrs['type'].name}")
    return [TensorShape(s.dims[:-1])]


@register_op(
    "Bitcast",
    inputs=["input: T"],
    outputs=["output: type"],
    attrs=[f"T: {_BITCAST_TYPES}", f"type: {_BITCAST_TYPES}"],
    shape_fn=_bitcast_shape,
)
def bitcast_kernel(input, *, type):  # noqa: A002
    """The same bytes read as another dtype (a wider type eats the last dimension)."""
    x = np.ascontiguousarray(input)
    dst = type.np_dtype
    if x.dtype.itemsize == dst.itemsize:
        return x.view(dst)
    if x.dtype.itemsize > dst.itemsize:
        return x.view(dst).reshape(x.shape + (x.dtype.itemsize // dst.itemsize,))
    if x.ndim == 0 or x.shape[-1] * x.dtype.itemsize != dst.itemsize:
        raise invalid_argument(f"Cannot bitcast from {x.dtype.name} to {dst.name}: shape "
                               f"{dims_str(x.shape)}")
    return x.view(dst).reshape(x.shape[:-1])


def bitcast(input: Any, type: Any, name: str | None = None) -> Output:  # noqa: A002
    """Reinterprets bytes as another dtype (``tf.bitcast``)."""
    return build_output("Bitcast", [input], {"type": as_dtype(type)}, name=name)


# ----------------------------------------------------------------------------------------
# Functions over existing ops


def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0) -> Output:
    """Slices of ``params`` addressed by the last dimension of ``indices`` (``tf.gather_nd``).

    Raises:
        NotImplementedError: ``batch_dims`` other than 0.
    """
    if batch_dims:
        raise NotImplementedError("gather_nd with batch_dims > 0 is not implemented in tfmini")
    return build_autopacked("GatherNd", [params, indices], name=name).outputs[0]


def batch_gather(params: Any, indices: Any, name: str | None = None) -> Output:
    """TF1 ``tf.batch_gather``: gather with ``batch_dims = rank(indices) - 1``."""
    from tfmini.ops.array.gather_scatter import gather

    with name_scope(name or "BatchGather"):
        indices = as_operand(indices)
        params = as_operand(params)
        if indices.shape.rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        return gather(params, indices, batch_dims=indices.shape.rank - 1)


def parallel_stack(values: list, name: str = "parallel_stack") -> Output:
    """Stacks tensors of one shape (``tf.parallel_stack``; here an ordinary Pack)."""
    return build_op(current_scope(), "Pack", [list(values)], {"axis": 0}, name=name).outputs[0]


def repeat(input: Any, repeats: Any, axis: int | None = None,  # noqa: A002
           name: str | None = None) -> Output:
    """Repeats elements (``tf.repeat``): with no axis, of the flattened input.

    Built from ExpandDims/Tile/Reshape and a boolean mask, as TensorFlow's
    ``repeat_with_axis`` builds it from sequence_mask and boolean_mask.
    """
    from tfmini.ops.array.shape_ops import expand_dims, reshape, shape, tile
    from tfmini.ops.array.where_mask import boolean_mask, sequence_mask

    with name_scope(name, "Repeat", [input, repeats]):
        x = as_operand(input)
        reps = as_operand(repeats, dtypes.int32)
        if axis is None:
            x = reshape(x, [-1])
            axis = 0
        rank = x.shape.rank
        if rank is None:
            raise ValueError("repeat needs an input of known rank")
        axis %= rank
        if reps.shape.rank == 0:
            reps = build_output("Fill", [shape(x)[axis:axis + 1], reps])
        max_rep = build_output("Max", [reps, [0]], {"keep_dims": False})
        moved = x
        if axis:
            perm = [axis] + [i for i in range(rank) if i != axis]
            moved = build_output("Transpose", [x, perm])
        expanded = tile(expand_dims(moved, 1),
                        build_output("Pack", [[1, max_rep] + [1] * (rank - 1)], {"axis": 0}))
        mask = sequence_mask(reps, max_rep)
        out = boolean_mask(expanded, mask)
        if axis:
            inv = [i for i in range(1, axis + 1)] + [0] + list(range(axis + 1, rank))
            out = build_output("Transpose", [out, inv])
        return out


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a graph tensor (``tf.is_tensor``)."""
    return is_symbolic(x)


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a graph tensor of a numeric (or bool) dtype
    (``tf.is_numeric_tensor``)."""
    if not is_symbolic(tensor):
        return False
    dt = convert_to_tensor(tensor).dtype
    return dt.is_floating or dt.is_integer or dt == dtypes.bool_


def dimension_value(dimension: Any) -> int | None:
    """The int (or None) of a dimension (``tf.compat.dimension_value``)."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape: Any, index: int) -> int | None:
    """Dimension ``index`` of ``shape``, None when unknown (``tf.compat.dimension_at_index``)."""
    s = as_shape(shape)
    return None if s.dims is None else s.dims[index]


def get_static_value(tensor: Any, partial: bool = False) -> np.ndarray | None:
    """The value of a tensor when known at build time, else None (``tf.get_static_value``)."""
    from tfmini.ops.common.build_util import constant_value

    del partial
    return constant_value(tensor)


__all__ = ["batch_gather", "bitcast", "check_numerics", "dimension_at_index", "dimension_value",
           "gather_nd", "get_static_value",
           "is_numeric_tensor", "is_tensor",
           "parallel_stack", "repeat", "shape_n", "unravel_index", "verify_tensor_all_finite"]
