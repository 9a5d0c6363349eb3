"""Array ops that report or change a tensor's shape: Shape, Size, Rank, Reshape,
ExpandDims, Squeeze, Transpose, Tile and BroadcastTo.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.array.basic``, the family's front module.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import no_gradient, register_op
from tfmini.core.scope import current_scope, scope_context
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.array.basic import constant
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import autopack, build_autopacked, op_scope
from tfmini.ops.common.constant_folding import fold_constant
from tfmini.ops.common.kernel_util import as_int_list, check_non_negative_dims, invalid_argument
from tfmini.ops.common.memory import check_allocation

# ----------------------------------------------------------------------------------------
# Shape, Size, Rank


def _shape_shape(ic):
    rank = ic.input_shape(0).rank
    return [TensorShape([rank])]


def _shape_value(output):
    shape = output.op.inputs[0].shape
    if shape.is_fully_defined():
        return np.array(shape.dims, dtype=output.dtype.np_dtype)
    return None


@register_op(
    "Shape",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
    shape_fn=_shape_shape,
    value_fn=_shape_value,
)
def shape_kernel(input, *, out_type):
    """The shape of ``input`` as a 1-D tensor."""
    return np.array(np.shape(input), dtype=out_type.np_dtype)


def _size_value(output):
    n = output.op.inputs[0].shape.num_elements()
    return None if n is None else np.array(n, dtype=output.dtype.np_dtype)


@register_op(
    "Size",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
    shape_fn=shape_fns.scalar,
    value_fn=_size_value,
)
def size_kernel(input, *, out_type):
    """The number of elements of ``input``."""
    n = int(np.size(input))
    if out_type == dtypes.int32 and n > np.iinfo(np.int32).max:
        raise invalid_argument(
            "Number of elements was larger than representable by 32-bit output type"
        )
    return np.array(n, dtype=out_type.np_dtype)


def _rank_value(output):
    rank = output.op.inputs[0].shape.rank
    return None if rank is None else np.array(rank, dtype=np.int32)


@register_op(
    "Rank",
    inputs=["input: T"],
    outputs=["output: int32"],
    attrs=["T: type"],
    shape_fn=shape_fns.scalar,
    value_fn=_rank_value,
)
def rank_kernel(input):
    """The number of dimensions of ``input``."""
    return np.array(np.ndim(input), dtype=np.int32)


def shape(input: Any, name: str | None = None, out_type: Any = None) -> Output:
    """The shape of a tensor (``tf.compat.v1.shape``).

    As in TensorFlow, a fully defined static shape gives a ``Const`` instead of a
    ``Shape`` op.

    Args:
        input: A tensor or anything convertible.
        name: Op name (default ``"Shape"``).
        out_type: ``int32`` (default) or ``int64``.

    Returns:
        A 1-D ``out_type`` tensor.
    """
    out_type = as_dtype(out_type) if out_type is not None else dtypes.int32
    with op_scope(name, "Shape") as (outer, base):
        x = convert_to_tensor(input)
        if x.shape.is_fully_defined():
            with scope_context(outer):
                return constant(list(x.shape.dims), out_type, name=base)
        return build_op(outer, "Shape", [x], {"out_type": out_type}, name=base).outputs[0]


def size(input: Any, name: str | None = None, out_type: Any = None) -> Output:
    """The number of elements of a tensor (``tf.compat.v1.size``); a ``Const`` when known.

    Args:
        input: A tensor or anything convertible.
        name: Op name (default ``"Size"``).
        out_type: ``int32`` (default) or ``int64``.

    Returns:
        A scalar ``out_type`` tensor.
    """
    out_type = as_dtype(out_type) if out_type is not None else dtypes.int32
    with op_scope(name, "Size") as (outer, base):
        x = convert_to_tensor(input)
        dims = x.shape.dims
        if x.shape.is_fully_defined() or (dims and any(d == 0 for d in dims)):
            with scope_context(outer):
                return constant(x.shape.num_elements() or 0, out_type, name=base)
        return build_op(outer, "Size", [x], {"out_type": out_type}, name=base).outputs[0]


def rank(input: Any, name: str | None = None) -> Output:
    """The rank of a tensor (``tf.rank``); a ``Const`` when the static rank is known.

    Args:
        input: A tensor or anything convertible.
        name: Op name (default ``"Rank"``).

    Returns:
        A scalar int32 tensor.
    """
    with op_scope(name, "Rank") as (outer, base):
        x = convert_to_tensor(input)
        if x.shape.rank is not None:
            with scope_context(outer):
                return constant(x.shape.rank, dtypes.int32, name=base)
        return build_op(outer, "Rank", [x], name=base).outputs[0]


# ----------------------------------------------------------------------------------------
# Reshape


def _reshape_shape(ic):
    out = shape_fns.shape_from_shape_tensor(ic, 1)
    inp = ic.input_shape(0)
    if out.dims is None or inp.dims is None:
        return [out]
    # Infer the one missing dimension on either side, as TensorFlow's shape function does.
    too_many_unknown = False
    out_unknown, known_out = -1, out.num_elements()
    if known_out is None:
        known_out = 1
        for i, d in enumerate(out.dims):
            if d is None:
                if out_unknown >= 0:
                    too_many_unknown = True
                    break
                out_unknown = i
            else:
                known_out *= d
    in_unknown, known_in = -1, inp.num_elements()
    if known_in is None:
        known_in = 1
        for i, d in enumerate(inp.dims):
            if d is None:
                if in_unknown >= 0:
                    too_many_unknown = True
                    break
                in_unknown = i
            else:
                known_in *= d
    if too_many_unknown:
        return [out]
    dims = list(out.dims)
    if in_unknown < 0 and out_unknown < 0:
        if known_in != known_out:
            raise ValueError(
                f"Cannot reshape a tensor with {known_in} elements to shape {out.tf_str()} "
                f"({known_out} elements)"
            )
    elif in_unknown < 0 and out_unknown >= 0 and known_out > 0:
        if known_in % known_out:
            raise ValueError(
                f"Dimension size must be evenly divisible by {known_out} but is {known_in}"
            )
        dims[out_unknown] = known_in // known_out
    elif in_unknown >= 0 and out_unknown < 0 and known_in != 0:
        if known_out % known_in:
            raise ValueError(
                f"Dimension size must be evenly divisible by {known_in} but is {known_out}"
            )
    elif in_unknown >= 0 and out_unknown >= 0 and known_in == known_out:
        dims[out_unknown] = inp.dims[in_unknown]
    return [TensorShape(dims)]


@register_op(
    "Reshape",
    inputs=["tensor: T", "shape: Tshape"],
    outputs=["output: T"],
    attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"],
    shape_fn=_reshape_shape,
    value_fn=fold_constant,
)
def reshape_kernel(tensor, shape):
    """``tensor`` with the same elements in ``shape`` (one entry may be -1)."""
    tensor, sizes = np.asarray(tensor), np.asarray(shape)
    if sizes.ndim > 1:
        raise invalid_argument(f"sizes input must be 1-D, not {dims_str(sizes.shape)}")
    dims: list[int] = []
    product, unknown, has_zero = 1, -1, False
    for d, size_ in enumerate(as_int_list(sizes)):
        if size_ == -1:
            if unknown != -1:
                raise invalid_argument(f"Only one input size may be -1, not both {unknown} and {d}")
            unknown = d
            dims.append(1)
        elif size_ < 0:
            raise invalid_argument(f"Size {d} must be non-negative, not {size_}")
        elif size_ == 0:
            # Zeros stay out of the product so the -1 dimension can still be inferred.
            dims.append(0)
            has_zero = True
        else:
            dims.append(size_)
            product *= size_
    if unknown != -1:
        n_in, in_has_zero = 1, False
        for d in tensor.shape:
            if d > 0 or not has_zero:
                n_in *= d
            else:
                in_has_zero = True
        missing = n_in // product
        if not in_has_zero and product * missing != n_in:
            raise invalid_argument(
                f"Input to reshape is a tensor with {n_in} values, but the requested shape "
                f"requires a multiple of {product}"
            )
        dims[unknown] = missing
    n_out = int(np.prod(dims, dtype=np.int64))
    if n_out != tensor.size:
        raise invalid_argument(
            f"Input to reshape is a tensor with {tensor.size} values, but the requested shape "
            f"has {n_out}"
        )
    return tensor.reshape(dims)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Output:
    """Reshapes a tensor (``tf.reshape``).

    Args:
        tensor: A tensor.
        shape: A 1-D int32/int64 tensor or list (entries may be tensors); one entry may be -1.
        name: Op name (default ``"Reshape"``).

    Returns:
        The reshaped tensor; its static shape uses whatever of ``shape`` is known.

    Raises:
        ValueError: the static shapes cannot match ("Cannot reshape a tensor with 6
            elements to shape [4] (4 elements)").
    """
    return build_autopacked("Reshape", [tensor, shape], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# ExpandDims


def _expand_dims_shape(ic):
    inp = ic.input_shape(0)
    dim = ic.input_value(1)
    if dim is not None and np.size(dim) != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    if dim is None or inp.dims is None:
        return [unknown_shape()]
    d, rank = int(np.asarray(dim).ravel()[0]), inp.rank
    if d < -rank - 1 or d > rank:
        raise ValueError(f"dim {d} not in the interval [{-rank - 1}, {rank}].")
    if d < 0:
        d += rank + 1
    return [TensorShape(inp.dims[:d] + (1,) + inp.dims[d:])]


@register_op(
    "ExpandDims",
    inputs=["input: T", "dim: Tdim"],
    outputs=["output: T"],
    attrs=["T: type", "Tdim: {int32, int64} = DT_INT32"],
    shape_fn=_expand_dims_shape,
    value_fn=fold_constant,
)
def expand_dims_kernel(input, dim):
    """``input`` with a 1-sized dimension inserted at ``dim``."""
    input, dim = np.asarray(input), np.asarray(dim)
    if dim.size != 1:
        raise invalid_argument("'dim' must be a tensor with a single value")
    d, rank = int(dim.ravel()[0]), input.ndim
    if d < -1 - rank or d > rank:
        raise invalid_argument(f"Tried to expand dim index {d} for tensor with {rank} dimensions.")
    return np.expand_dims(input, d + rank + 1 if d < 0 else d)


def expand_dims(input: Any, axis: Any = None, name: str | None = None,
                dim: Any = None) -> Output:
    """Inserts a dimension of size 1 (TF1 ``tf.expand_dims``; ``dim`` is the old name).

    Args:
        input: A tensor.
        axis: Where to insert, in ``[-rank - 1, rank]``; a scalar or tensor.
        name: Op name (default ``"ExpandDims"``).
        dim: Deprecated alias of ``axis``.

    Raises:
        ValueError: neither or both of ``axis`` and ``dim`` are given, or ``axis`` is out of range.
    """
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return build_autopacked("ExpandDims", [input, axis], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# Squeeze


def _squeeze_shape(ic):
    inp = ic.input_shape(0)
    if inp.dims is None:
        return [unknown_shape()]
    rank = inp.rank
    wrapped = []
    for i, d in enumerate(ic.attrs["squeeze_dims"]):
        if d < -rank or d >= rank:
            raise ValueError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        wrapped.append(d + rank if d < 0 else d)
    out = []
    for i, d in enumerate(inp.dims):
        explicit = i in wrapped
        if d is None:
            if explicit:
                continue  # assumed to be 1 at run time
            if not wrapped:
                return [unknown_shape()]
        elif d == 1:
            if explicit or not wrapped:
                continue
        elif explicit:
            raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
        out.append(d)
    return [TensorShape(out)]


@register_op(
    "Squeeze",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"],
    shape_fn=_squeeze_shape,
    value_fn=fold_constant,
)
def squeeze_kernel(input, *, squeeze_dims):
    """``input`` without the size-1 dimensions listed in ``squeeze_dims`` (all if empty)."""
    input = np.asarray(input)
    rank = input.ndim
    wrapped = set()
    for d in squeeze_dims:
        if d < -rank or d >= rank:
            raise invalid_argument(
                f"Tried to squeeze dim index {d} for tensor with {rank} dimensions."
            )
        wrapped.add(d + rank if d < 0 else d)
    out = []
    for i, d in enumerate(input.shape):
        if wrapped:
            if i in wrapped:
                if d != 1:
                    raise invalid_argument(
                        f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}"
                    )
                continue
        elif d == 1:
            continue
        out.append(d)
    return input.reshape(out)


def squeeze(input: Any, axis: Any = None, name: str | None = None,
            squeeze_dims: Any = None) -> Output:
    """Removes dimensions of size 1 (TF1 ``tf.squeeze``; ``squeeze_dims`` is the old name).

    Args:
        input: A tensor.
        axis: An int or list of ints: the dimensions to remove (all size-1 ones if None).
        name: Op name (default ``"Squeeze"``).
        squeeze_dims: Deprecated alias of ``axis``.

    Raises:
        ValueError: both ``axis`` and ``squeeze_dims`` given, or a listed dimension is not 1.
    """
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
    axis = squeeze_dims if axis is None else axis
    if axis is None:
        axis = []
    elif np.isscalar(axis):
        axis = [axis]
    return build_autopacked("Squeeze", [input], {"squeeze_dims": list(axis)}, name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# Transpose


def _transpose_shape(ic):
    inp = ic.input_shape(0)
    perm_shape = ic.input_shape(1)
    perm = ic.input_value(1)
    perm_elems = perm_shape.num_elements()
    if inp.dims is None and perm_elems is None and perm is None:
        return [unknown_shape()]
    if inp.dims is not None:
        rank = inp.rank
    elif perm_elems is not None:
        rank = perm_elems
    else:
        rank = np.size(perm)
    if inp.dims is None and rank < 2:
        # One permutation entry is ambiguous: a scalar or a vector, both returned unchanged.
        return [inp]
    inp = shape_fns.with_rank(inp, rank)
    perm_shape = shape_fns.with_rank(perm_shape, 1)
    if perm_shape.dims[0] is not None and perm_shape.dims[0] != rank:
        raise ValueError(f"Dimension must be {rank} but is {perm_shape.dims[0]}")
    if perm is None:
        return [unknown_shape(rank)]
    dims = []
    for p in as_int_list(perm):
        if p >= rank or p < -rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
        dims.append(inp.dims[p])
    return [TensorShape(dims)]


@register_op(
    "Transpose",
    inputs=["x: T", "perm: Tperm"],
    outputs=["y: T"],
    attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"],
    shape_fn=_transpose_shape,
    value_fn=fold_constant,
)
def transpose_kernel(x, perm):
    """``x`` with its dimensions permuted: ``y.shape[i] == x.shape[perm[i]]``."""
    x, perm = np.asarray(x), np.asarray(perm)
    if perm.ndim != 1:
        raise invalid_argument(f"perm must be rank 1, got shape {dims_str(perm.shape)}")
    if x.ndim != perm.size:
        raise invalid_argument(
            f"transpose expects a vector of size {x.ndim}. But input(1) is a vector of size "
            f"{perm.size}"
        )
    # Negative entries count from the end, as in TensorFlow's kernel.
    p = [d + x.ndim if d < 0 else d for d in as_int_list(perm)]
    for d in p:
        if not 0 <= d < x.ndim:
            raise invalid_argument(f"{d} is out of range [0 .. {x.ndim})")
    for i in builtins.range(x.ndim):
        if i not in p:
            raise invalid_argument(f"{i} is missing from {{{','.join(str(d) for d in p)}}}.")
    return np.transpose(x, p)


def transpose(a: Any, perm: Any = None, name: str = "transpose",
              conjugate: bool = False) -> Output:
    """Permutes dimensions (``tf.transpose``); ``perm=None`` reverses them.

    Args:
        a: A tensor.
        perm: A permutation of ``range(rank)``; default ``[rank-1, ..., 0]``.
        name: Op name.
        conjugate: Accepted for TensorFlow compatibility (tfmini has no complex types).

    Returns:
        The transposed tensor.
    """
    del conjugate  # only meaningful for complex types
    with op_scope(name, "transpose") as (outer, base):
        a = convert_to_tensor(a)
        if perm is None:
            if not a.shape.rank:
                # Unknown (or zero) rank: perm = (rank - 1) - range(0, rank, 1), in the graph.
                r = build_op(current_scope(), "Rank", [a]).outputs[0]
                rm1 = build_op(current_scope(), "Sub", [r, 1]).outputs[0]
                rng = build_op(current_scope(), "Range", [0, r, 1]).outputs[0]
                perm = build_op(current_scope(), "Sub", [rm1, rng]).outputs[0]
            else:
                perm = list(builtins.range(a.shape.rank - 1, -1, -1))
        perm = autopack(perm)
        return build_op(outer, "Transpose", [a, perm], name=base).outputs[0]


# ----------------------------------------------------------------------------------------
# Tile


def _tile_shape(ic):
    inp = ic.input_shape("input")
    multiples = shape_fns.shape_from_shape_tensor(ic, "multiples")
    if inp.dims is not None:
        multiples = shape_fns.with_rank(multiples, inp.rank)
        shape_fns.merge_shapes(ic.input_shape("multiples"), TensorShape([inp.rank]))
    if multiples.dims is None:
        return [unknown_shape()]
    inp = shape_fns.with_rank(inp, multiples.rank)
    return [TensorShape([shape_fns.multiply_dims(d, m) for d, m in zip(inp.dims, multiples.dims)])]


@register_op(
    "Tile",
    inputs=["input: T", "multiples: Tmultiples"],
    outputs=["output: T"],
    attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"],
    shape_fn=_tile_shape,
    value_fn=fold_constant,
)
def tile_kernel(input, multiples):
    """``input`` repeated ``multiples[i]`` times along dimension i."""
    input, multiples = np.asarray(input), np.asarray(multiples)
    if multiples.ndim != 1 or multiples.size != input.ndim:
        length = multiples.shape[0] if multiples.ndim == 1 else multiples.size
        raise invalid_argument(
            f"Expected multiples argument to be a vector of length {input.ndim} but got length "
            f"{length}"
        )
    reps = as_int_list(multiples)
    for i, m in enumerate(reps):
        if m < 0:
            raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {m}")
    if reps:
        check_allocation([d * m for d, m in zip(input.shape, reps)], as_dtype(input.dtype))
    return np.tile(input, reps) if reps else input


def tile(input: Any, multiples: Any, name: str | None = None) -> Output:
    """Repeats a tensor along each dimension (``tf.tile``).

    Args:
        input: A tensor.
        multiples: One non-negative repeat count per dimension.
        name: Op name (default ``"Tile"``).
    """
    return build_autopacked("Tile", [input, multiples], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# BroadcastTo


def _broadcast_to_shape(ic):
    shape_fns.with_rank(ic.input_shape("shape"), 1)
    out = shape_fns.shape_from_shape_tensor(ic, "shape")
    inp = ic.input_shape("input")
    if out.dims is None or inp.dims is None:
        return [out]
    inp = shape_fns.with_rank_at_most(inp, out.rank)
    dims = list(out.dims)
    for i in builtins.range(inp.rank):
        d = inp.dims[inp.rank - i - 1]
        if d is not None and d > 1:
            # Broadcasting only goes from 1 to n, so a dimension > 1 must be the output's.
            dims[out.rank - i - 1] = shape_fns.merge_dim(d, dims[out.rank - i - 1])
    return [TensorShape(dims)]


@register_op(
    "BroadcastTo",
    inputs=["input: T", "shape: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_broadcast_to_shape,
    value_fn=fold_constant,
)
def broadcast_to_kernel(input, shape):
    """``input`` broadcast (NumPy rules) to ``shape``."""
    input, shape = np.asarray(input), np.asarray(shape)
    if shape.ndim != 1:
        raise invalid_argument(
            f"shape must be a vector of {{int32,int64}}, got shape {dims_str(shape.shape)}"
        )
    out_shape = tuple(as_int_list(shape))
    check_non_negative_dims(out_shape)
    if input.ndim > len(out_shape):
        raise invalid_argument(
            f"Rank of input ({input.ndim}) must be no greater than rank of output shape "
            f"({len(out_shape)})."
        )
    try:
        joint = np.broadcast_shapes(input.shape, out_shape)
    except ValueError:
        raise invalid_argument(
            f"Incompatible shapes: {dims_str(input.shape)} vs. {dims_str(out_shape)}"
        ) from None
    if joint != out_shape:
        raise invalid_argument(
            f"Unable to broadcast tensor of shape {dims_str(input.shape)} to tensor of shape "
            f"{dims_str(out_shape)}"
        )
    return np.broadcast_to(input, out_shape)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Output:
    """Broadcasts a tensor to a shape (``tf.broadcast_to``).

    Args:
        input: A tensor.
        shape: The target shape (1-D int tensor or list).
        name: Op name (default ``"BroadcastTo"``).
    """
    return build_autopacked("BroadcastTo", [input, shape], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# InvertPermutation (built by Transpose's gradient)


def _invert_permutation_shape(ic) -> list[TensorShape]:
    return [shape_fns.with_rank(ic.input_shape(0), 1)]


def _invert_permutation_value(output: Output) -> np.ndarray | None:
    # Known permutations fold, so the gradient of a Transpose keeps a static shape.
    x = static_value(output.op.inputs[0])
    if x is None:
        return None
    return invert_permutation_kernel(np.asarray(x))


@register_op(
    "InvertPermutation",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape_fn=_invert_permutation_shape,
    value_fn=_invert_permutation_value,
)
def invert_permutation_kernel(x):
    """The inverse permutation: ``y[x[i]] = i``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("invert_permutation expects a 1D vector.")
    n = x.shape[0]
    y = np.full(n, -1, dtype=x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise invalid_argument(f"{d} is not between 0 and {n}")
        if y[d] != -1:
            raise invalid_argument(f"{d} is duplicated in the input.")
        y[d] = i
    return y


no_gradient("InvertPermutation")


def invert_permutation(x: Any, name: str | None = None) -> Output:
    """The inverse of a permutation vector (``tf.math.invert_permutation``)."""
    return build_autopacked("InvertPermutation", [x], name=name).outputs[0]


__all__ = [
    "invert_permutation",
    "broadcast_to",
    "expand_dims",
    "rank",
    "reshape",
    "shape",
    "size",
    "squeeze",
    "tile",
    "transpose",
]
