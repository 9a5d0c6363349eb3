"""Array ops: constants, placeholders, identities and shape manipulation.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string.
"""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.builder import build_op, static_value
from tfmini.core.convert import convert_to_tensor, is_symbolic, set_literal_conversion
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.function import set_argument_op
from tfmini.core.graph import Output, register_operator_override
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, name_scope, scope_context
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import shape_fns
from tfmini.ops.build_util import (
    autopack,
    build_autopacked,
    constant_value,
    has_symbolic,
    op_scope,
)
from tfmini.ops.constant_folding import fold_constant
from tfmini.ops.kernel_util import (
    as_int_list,
    check_indices,
    check_non_negative_dims,
    invalid_argument,
    scalar_value,
    slice_debug_string,
)

# ----------------------------------------------------------------------------------------
# Literals -> NumPy values with TensorFlow's default dtypes.


def _default_array(value: Any) -> np.ndarray:
    """A NumPy array for a literal, with TensorFlow's defaults (float32, int32)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype.kind == "i":
        info = np.iinfo(np.int32)
        if arr.size == 0 or (arr.min() >= info.min and arr.max() <= info.max):
            return arr.astype(np.int32)
        return arr.astype(np.int64)
    if arr.dtype.kind in ("U", "S"):
        return arr.astype(object)
    if arr.dtype == object:
        raise TypeError(f"Cannot convert {value!r} to a tensor: ragged or mixed-type value")
    return arr


def literal_to_array(value: Any, dtype: DType | None = None) -> np.ndarray:
    """The NumPy value of a literal as a tensor of ``dtype`` (TensorFlow's conversion rules).

    Raises:
        TypeError: the value cannot be represented in ``dtype`` without loss
            ("Cannot convert 1.5 to EagerTensor of dtype int32").
    """
    if dtype is None:
        return _default_array(value)
    if dtype.is_object:
        arr = np.asarray(value, dtype=object)
        return arr
    src = value if isinstance(value, np.ndarray) else np.asarray(value)
    if src.dtype == object or src.dtype.kind in ("U", "S"):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if not isinstance(value, (np.ndarray, np.generic)) and (dtype.is_integer or dtype.is_bool):
        # TensorFlow refuses Python floats for integer types and mixes of bools and ints,
        # even when the value is exact (tf.constant(1.0, tf.int32) is a TypeError).
        if src.size and (src.dtype.kind == "f" or (src.dtype.kind == "b") != dtype.is_bool):
            raise TypeError(
                f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'."
            )
    arr = src.astype(dtype.np_dtype, copy=False)
    if not isinstance(value, np.ndarray) or src.dtype.kind == "f":
        # Python literals (and floats into ints) must survive the conversion unchanged.
        if dtype.is_integer or dtype.is_bool:
            with np.errstate(invalid="ignore"):
                if src.size and not np.array_equal(arr.astype(src.dtype), src):
                    raise TypeError(
                        f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}"
                    )
    return arr


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, copy=True) if arr.flags.writeable or arr.base is not None else arr
    arr.flags.writeable = False
    return arr


# ----------------------------------------------------------------------------------------
# Const


def _const_shape(ic):
    return [TensorShape(ic.attrs["value"].shape)]


def _const_value(output):
    return output.op.attrs["value"]


@register_op(
    "Const",
    outputs=["output: dtype"],
    attrs=["value: tensor", "dtype: type"],
    shape_fn=_const_shape,
    value_fn=_const_value,
)
def const_kernel(*, value):
    """A constant tensor."""
    return value


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False):
    """A constant tensor (``tf.constant``).

    A scalar ``value`` with a ``shape`` is broadcast to it; a value with the
    same number of elements is reshaped.
    """
    dt = as_dtype(dtype) if dtype is not None else None
    arr = literal_to_array(value, dt)
    if shape is not None:
        shp = as_shape(shape)
        if not shp.is_fully_defined():
            raise ValueError(f"Shape of a constant must be fully defined, got {shp}")
        dims = tuple(shp.dims)
        if arr.shape != dims:
            if verify_shape:
                raise TypeError(f"Expected Tensor's shape: {dims}, got {arr.shape}.")
            if arr.size == 1:
                arr = np.broadcast_to(arr.reshape(()), dims)
            elif arr.size == int(np.prod(dims)):
                arr = arr.reshape(dims)
            else:
                raise TypeError(
                    f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                    f"(converted from {value!r}) has {arr.size} elements, but got `shape` {dims} "
                    f"with {int(np.prod(dims))} elements)."
                )
    out_dtype = dt if dt is not None else as_dtype(arr.dtype)
    if out_dtype.is_object:
        arr = np.asarray(arr, dtype=object)
    op = build_op(current_scope(), "Const", [], {"value": _frozen(arr), "dtype": out_dtype},
                  name=name)
    return op.outputs[0]


set_literal_conversion(lambda value, dtype, name: constant(value, dtype, name=name or "Const"))


# ----------------------------------------------------------------------------------------
# Placeholder, PlaceholderWithDefault


def _placeholder_shape(ic):
    return [ic.attrs["shape"]]


@register_op(
    "Placeholder",
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape = {unknown_rank: true}"],
    shape_fn=_placeholder_shape,
)
def placeholder_kernel(*, dtype, shape, node):
    """A value that must be fed."""
    raise errors.InvalidArgumentError(
        None,
        None,
        f"You must feed a value for placeholder tensor '{node.name}' with dtype "
        f"{dtypes.tf_type_name(dtype)} and shape {shape.tf_str()}",
    )


set_argument_op("Placeholder")


def placeholder(dtype: Any, shape: Any = None, name: str | None = None):
    """A tensor whose value is fed at run time (``tf.compat.v1.placeholder``)."""
    op = build_op(current_scope(), "Placeholder", [],
                  {"dtype": as_dtype(dtype), "shape": as_shape(shape)}, name=name)
    return op.outputs[0]


def _pwd_shape(ic):
    declared = ic.attrs["shape"]
    given = ic.input_shape(0)
    if not declared.is_compatible_with(given):
        raise ValueError(f"Shapes {given} and {declared} are incompatible")
    return [declared]


@register_op(
    "PlaceholderWithDefault",
    inputs=["input: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape_fn=_pwd_shape,
)
def placeholder_with_default_kernel(input):
    """Passes ``input`` through unless fed."""
    return input


def placeholder_with_default(input: Any, shape: Any, name: str | None = None):
    """``tf.compat.v1.placeholder_with_default``."""
    op = build_op(current_scope(), "PlaceholderWithDefault", [input], {"shape": as_shape(shape)},
                  name=name)
    return op.outputs[0]


# ----------------------------------------------------------------------------------------
# Identity, IdentityN, StopGradient, NoOp


def _identity_value(output):

    return static_value(output.op.inputs[0])


@register_op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged, value_fn=_identity_value)
def identity_kernel(input):
    """Returns its input."""
    return input


@register_op("IdentityN", inputs=["input: T"], outputs=["output: T"], attrs=["T: list(type) >= 1"],
             shape_fn=lambda ic: list(ic.input_shape(0)))
def identity_n_kernel(input):
    """Returns its inputs."""
    return list(input)


@register_op("StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged)
def stop_gradient_kernel(input):
    """Identity for values; gradients stop here."""
    return input


@register_op("NoOp", shape_fn=shape_fns.no_outputs)
def no_op_kernel():
    """Does nothing; useful as a control-dependency anchor."""
    return None


def identity(input: Any, name: str | None = None):
    """``tf.identity``."""
    return build_op(current_scope(), "Identity", [input], name=name).outputs[0]


def identity_n(input: list, name: str | None = None) -> list:
    return list(build_op(current_scope(), "IdentityN", [list(input)], name=name).outputs)


def stop_gradient(input: Any, name: str | None = None):
    """``tf.stop_gradient``."""
    return build_op(current_scope(), "StopGradient", [input], name=name).outputs[0]


def no_op(name: str | None = None):
    """``tf.no_op``: an Operation that does nothing."""
    return build_op(current_scope(), "NoOp", [], name=name)


# ========================================================================================
# Shape manipulation, one section per op. TensorFlow's shape-inference vocabulary is in
# shape_fns (merging shapes, shapes described by tensors); build-time constant folding in
# constant_folding.

def _num_str(v: Any) -> str:
    """A number as TensorFlow's StrCat prints it (``5``, ``0.5``)."""
    v = np.asarray(v).item()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


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
# ConcatV2


def _concat_shape(ic):
    shapes = [as_shape(s) for s in ic.input_shape("values")]
    shape_fns.with_rank(ic.input_shape("axis"), 0)
    rank = next((s.rank for s in shapes if s.rank is not None), None)
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if rank is not None:
        for s in shapes:
            shape_fns.with_rank(s, rank)
    axis = ic.input_value("axis")
    if axis is None:
        return [unknown_shape(rank)]
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    for s in shapes:
        shape_fns.with_rank_at_least(s, min_rank)
    if rank is None:
        return [unknown_shape()]
    axis = axis + rank if axis < 0 else axis
    # Merge everything but the axis; add up the axis (unknown if any piece is unknown).
    before = TensorShape(shapes[-1].dims[:axis])
    after = TensorShape(shapes[-1].dims[axis + 1 :])
    middle = shapes[-1].dims[axis]
    for s in reversed(shapes[:-1]):
        before = shape_fns.merge_shapes(TensorShape(s.dims[:axis]), before)
        d = s.dims[axis]
        middle = None if d is None or middle is None else d + middle
        after = shape_fns.merge_shapes(TensorShape(s.dims[axis + 1 :]), after)
    return [TensorShape(before.dims + (middle,) + after.dims)]


@register_op(
    "ConcatV2",
    inputs=["values: N * T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape_fn=_concat_shape,
    value_fn=fold_constant,
)
def concat_v2_kernel(values, axis):
    """The ``values`` joined along ``axis``."""
    concat_dim = int(scalar_value(axis, "axis tensor should be a scalar integer, but got shape"))
    values = [np.asarray(v) for v in values]
    first = values[0].shape
    rank = len(first)
    ax = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= ax < rank and concat_dim != 0:
        raise invalid_argument(
            f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), "
            f"but got {concat_dim}"
        )
    for i, v in enumerate(values):
        if v.ndim != rank:
            raise invalid_argument(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                f"{dims_str(first)} vs. shape[{i}] = {dims_str(v.shape)}"
            )
        for j in builtins.range(rank):
            if j != ax and v.shape[j] != first[j]:
                raise invalid_argument(
                    f"ConcatOp : Dimension {j} in both shapes must be equal: shape[0] = "
                    f"{dims_str(first)} vs. shape[{i}] = {dims_str(v.shape)}"
                )
    if rank == 0:
        raise invalid_argument("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    return np.concatenate(values, axis=ax)


def concat(values: Any, axis: Any, name: str = "concat") -> Output:
    """Joins tensors along a dimension (``tf.concat``).

    Args:
        values: A list of tensors of equal rank (a single tensor is returned as an
            ``Identity``).
        axis: The dimension, in ``[-rank, rank)``.
        name: Op name.

    Returns:
        The concatenation.

    Raises:
        ValueError: ranks or non-axis dimensions differ statically.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        # As TensorFlow: check the axis, then an Identity named "<name>/<name>".
        with name_scope(name):
            axis_t = convert_to_tensor(axis, dtype=dtypes.int32, name="concat_dim")
            shape_fns.with_rank(axis_t.shape, 0)
            return build_op(current_scope(), "Identity", [values[0]], name=name).outputs[0]
    return build_autopacked("ConcatV2", [list(values), axis], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# Pack, Unpack


def _pack_axis(axis: int, rank: int) -> int:
    if axis < -rank or axis >= rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    return axis + rank if axis < 0 else axis


def _pack_shape(ic):
    shapes = ic.input_shape("values")
    cur = as_shape(shapes[-1])
    for i in builtins.range(len(shapes) - 2, -1, -1):
        try:
            cur = shape_fns.merge_shapes(shapes[i], cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if cur.dims is None:
        return [unknown_shape()]
    axis = _pack_axis(ic.attrs["axis"], cur.rank + 1)
    return [TensorShape(cur.dims[:axis] + (len(shapes),) + cur.dims[axis:])]


@register_op(
    "Pack",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "axis: int = 0"],
    shape_fn=_pack_shape,
    value_fn=fold_constant,
)
def pack_kernel(values, *, axis):
    """The ``N`` equally shaped ``values`` stacked into one tensor along a new ``axis``."""
    values = [np.asarray(v) for v in values]
    rank = values[0].ndim + 1
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    for i, v in enumerate(values[1:], 1):
        if v.shape != values[0].shape:
            raise invalid_argument(
                f"Shapes of all inputs must match: values[0].shape = {dims_str(values[0].shape)} "
                f"!= values[{i}].shape = {dims_str(v.shape)}"
            )
    return np.stack(values, axis=axis)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Output:
    """Stacks equally shaped tensors along a new dimension (``tf.stack``).

    With ``axis=0`` and no tensor among ``values`` the result is a ``Const``, as
    in TensorFlow.

    Args:
        values: A list of tensors (or literals) of one shape and dtype.
        axis: Where the new dimension goes, in ``[-(rank+1), rank+1)``.
        name: Op name.

    Raises:
        ValueError: ``axis`` is out of range or the shapes differ statically.
    """
    if axis == 0 and not has_symbolic(values):
        try:
            return constant(values, name=name)
        except (TypeError, ValueError):
            pass  # ragged literals: let Pack report the mismatch
    value_shape = convert_to_tensor(values[0]).shape if is_symbolic(values[0]) else (
        TensorShape(np.shape(values[0]))
    )
    if value_shape.rank is not None:
        n = value_shape.rank + 1
        if axis < -n or axis >= n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return build_autopacked("Pack", [list(values)], {"axis": axis}, name=name).outputs[0]


def _unpack_shape(ic):
    s = ic.input_shape(0)
    num = ic.attrs["num"]
    if s.dims is None:
        return [unknown_shape()] * num
    axis = _pack_axis(ic.attrs["axis"], s.rank)
    d = s.dims[axis]
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    return [TensorShape(s.dims[:axis] + s.dims[axis + 1 :])] * num


@register_op(
    "Unpack",
    inputs=["value: T"],
    outputs=["output: num * T"],
    attrs=["num: int >= 0", "T: type", "axis: int = 0"],
    shape_fn=_unpack_shape,
    value_fn=fold_constant,
)
def unpack_kernel(value, *, num, axis):
    """``value`` split into ``num`` tensors along ``axis``, which is removed."""
    value = np.asarray(value)
    rank = value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    ax = axis + rank if axis < 0 else axis
    if value.shape[ax] != num:
        raise invalid_argument(
            f"Input shape axis {ax} must equal {num}, got shape {dims_str(value.shape)}"
        )
    lead = (builtins.slice(None),) * ax
    return [value[lead + (i,)] for i in builtins.range(num)]


def unstack(value: Any, num: int | None = None, axis: int = 0,
            name: str = "unstack") -> list[Output]:
    """Splits a tensor into a list along a dimension, removing it (``tf.unstack``).

    Args:
        value: A tensor of rank >= 1.
        num: The length of ``axis``; inferred from the static shape if None.
        axis: The dimension to unstack along.
        name: Op name.

    Returns:
        A list of ``num`` tensors.

    Raises:
        ValueError: ``num`` is None and cannot be inferred, or ``axis`` is out of range.
    """
    if num is None:
        value = convert_to_tensor(value)
        s = value.shape
        if s.rank is not None:
            if axis < -s.rank or axis >= s.rank:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-s.rank}, {s.rank})")
            num = s.dims[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    op = build_autopacked("Unpack", [value], {"num": num, "axis": axis}, name=name)
    return list(op.outputs)


# ----------------------------------------------------------------------------------------
# Split, SplitV


def _split_shape(ic):
    inp = ic.input_shape("value")
    num = ic.attrs["num_split"]
    axis = shape_fns.axis_from_scalar_input(ic, "split_dim", inp.rank)
    if axis is None:
        return [unknown_shape(inp.rank)] * num
    inp = shape_fns.with_rank_at_least(inp, axis + 1)
    if inp.dims is None:
        return [unknown_shape()] * num
    d = inp.dims[axis]
    if d is not None and d % num:
        raise ValueError(
            f"Dimension size must be evenly divisible by {num} but is {d}\n\t"
            "Number of ways to split should evenly divide the split dimension"
        )
    dims = list(inp.dims)
    dims[axis] = None if d is None else d // num
    return [TensorShape(dims)] * num


def _split_axis(value: np.ndarray, split_dim: Any) -> int:
    d = int(np.asarray(split_dim).ravel()[0])
    rank = value.ndim
    ax = d + rank if d < 0 else d
    if not 0 <= ax < rank:
        raise invalid_argument(
            f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {d}"
        )
    return ax


@register_op(
    "Split",
    inputs=["split_dim: int32", "value: T"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type"],
    shape_fn=_split_shape,
    value_fn=fold_constant,
)
def split_kernel(split_dim, value, *, num_split):
    """``value`` split into ``num_split`` equal pieces along ``split_dim``."""
    value = np.asarray(value)
    ax = _split_axis(value, split_dim)
    if value.shape[ax] % num_split:
        raise invalid_argument(
            f"Number of ways to split should evenly divide the split dimension, but got "
            f"split_dim {ax} (size = {value.shape[ax]}) and num_split {num_split}"
        )
    return np.split(value, num_split, axis=ax)


def _split_v_shape(ic):
    inp = ic.input_shape("value")
    num = ic.attrs["num_split"]
    axis = shape_fns.axis_from_scalar_input(ic, "split_dim", inp.rank)
    sizes = ic.input_value("size_splits")
    if inp.dims is None:
        return [unknown_shape()] * num
    if inp.rank == 0:
        raise ValueError("Can't split scalars")
    if axis is None:
        return [unknown_shape(inp.rank)] * num
    if sizes is None:
        dims = list(inp.dims)
        dims[axis] = None
        return [TensorShape(dims)] * num
    sizes = as_int_list(sizes)
    if len(sizes) != num:
        raise ValueError(
            f"Length of size_splits should be equal to num_outputs: {num} vs. {len(sizes)}"
        )
    total, has_neg_one = 0, False
    for s in sizes:
        if s == -1:
            if has_neg_one:
                raise ValueError("size_splits can only have one -1")
            has_neg_one = True
        else:
            total += s
    dim = inp.dims[axis]
    shapes = []
    for i, s in enumerate(sizes):
        if s == -1 and dim is not None:
            s = dim - total
        if s < -1 or (s == -1 and dim is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {s}")
        dims = list(inp.dims)
        dims[axis] = None if s == -1 else s
        shapes.append(TensorShape(dims))
    if dim is not None and (total > dim if has_neg_one else total != dim):
        raise ValueError(
            f"can't split axis of size {dim} into pieces of size "
            f"[{','.join(str(s) for s in sizes)}]"
        )
    return shapes


@register_op(
    "SplitV",
    inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"],
    shape_fn=_split_v_shape,
    value_fn=fold_constant,
)
def split_v_kernel(value, size_splits, split_dim, *, num_split):
    """``value`` split along ``split_dim`` into pieces of ``size_splits`` (one may be -1)."""
    value, sizes_arr = np.asarray(value), np.asarray(size_splits)
    if sizes_arr.ndim != 1 or sizes_arr.size != num_split:
        raise invalid_argument(
            f"size of the split_tensor must be 1-D and have the same elements as outputs got "
            f"{sizes_arr.ndim} -D and {sizes_arr.size} elements"
        )
    ax = _split_axis(value, split_dim)
    n = value.shape[ax]
    sizes = as_int_list(sizes_arr)
    if num_split == 1:
        return [value]  # TensorFlow passes the input through without checking the size
    neg_one, determined = -1, 0
    for d, s in enumerate(sizes):
        if s == -1:
            if neg_one != -1:
                raise invalid_argument("There can only be one -1 in the input.")
            neg_one = d
        else:
            determined += s
    if not ((neg_one == -1 and determined == n) or (neg_one >= 0 and determined <= n)):
        raise invalid_argument(
            "Determined shape must either match input shape along split_dim exactly if fully "
            "specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {determined}"
        )
    if neg_one >= 0:
        sizes[neg_one] = n - determined
    for i, s in enumerate(sizes):
        if s < 0:
            raise invalid_argument(f"Split size at index {i} must be >= 0. Got: {s}")
    bounds = np.cumsum(sizes)[:-1]
    return np.split(value, bounds, axis=ax)


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list[Output]:
    """Splits a tensor into pieces (``tf.split``).

    Args:
        value: The tensor to split.
        num_or_size_splits: An int (``Split`` into that many equal pieces) or a 1-D list or
            tensor of sizes, one of which may be -1 (``SplitV``).
        axis: The dimension to split, in ``[-rank, rank)``.
        num: The number of pieces when it cannot be inferred from ``num_or_size_splits``.
        name: Op name.

    Returns:
        A list of tensors.

    Raises:
        ValueError: the sizes are a scalar tensor, ``num`` cannot be inferred, or the static
            shapes do not divide.
    """
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(
        num_or_size_splits, bool
    ):
        op = build_autopacked("Split", [axis, value], {"num_split": int(num_or_size_splits)},
                              name=name)
        return list(op.outputs)
    size_splits = convert_to_tensor(autopack(num_or_size_splits))
    if size_splits.shape.rank == 0:
        raise ValueError(
            "Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
            f"Argument provided: {num_or_size_splits}"
        )
    if num is None:
        if size_splits.shape.rank is not None:
            num = size_splits.shape.dims[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    op = build_autopacked("SplitV", [value, size_splits, axis], {"num_split": num}, name=name)
    return list(op.outputs)


# ----------------------------------------------------------------------------------------
# Slice


def _slice_shape(ic):
    inp = ic.input_shape("input")
    begin_shape = shape_fns.with_rank(ic.input_shape("begin"), 1)
    size_shape = shape_fns.with_rank(ic.input_shape("size"), 1)
    begin_shape = shape_fns.merge_shapes(begin_shape, size_shape)
    ndims = begin_shape.dims[0]
    if ndims is not None:
        inp = shape_fns.with_rank(inp, ndims)
    # Sizes read as a shape: -1 ("to the end") becomes an unknown dimension.
    sizes = shape_fns.shape_from_shape_tensor(ic, "size")
    if sizes.dims is None:
        return [unknown_shape(ndims)]
    begin = ic.input_value("begin")
    dims: list[int | None] = []
    for i, d in enumerate(sizes.dims):
        if d is not None or begin is None or inp.dims is None or inp.dims[i] is None:
            dims.append(d)
            continue
        b = as_int_list(begin)[i]
        if inp.dims[i] - b < 0:
            raise ValueError(
                f"Negative dimension size caused by subtracting {b} from {inp.dims[i]}"
            )
        dims.append(inp.dims[i] - b)
    return [TensorShape(dims)]


@register_op(
    "Slice",
    inputs=["input: T", "begin: Index", "size: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"],
    shape_fn=_slice_shape,
    value_fn=fold_constant,
)
def slice_kernel(input, begin, size):
    """The block of ``input`` starting at ``begin`` with ``size`` (-1: to the end)."""
    input, begin, size = np.asarray(input), np.asarray(begin), np.asarray(size)
    rank = input.ndim
    if begin.ndim != 1 or size.ndim != 1 or begin.size != rank or size.size != rank:
        raise invalid_argument(
            f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got "
            f"shapes {dims_str(begin.shape)} and {dims_str(size.shape)} instead."
        )
    index = []
    for i, (b, s) in enumerate(zip(as_int_list(begin), as_int_list(size))):
        dim = input.shape[i]
        if s == -1:
            s = dim - b
        if dim == 0:
            if b != 0 or s != 0:
                raise invalid_argument(
                    f"Expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {s}) when "
                    f"input.dim_size({i}) == 0"
                )
        else:
            if not 0 <= b <= dim:
                raise invalid_argument(f"Expected begin[{i}] in [0, {dim}], but got {b}")
            if not (0 <= s and b + s <= dim):
                raise invalid_argument(f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        index.append(builtins.slice(b, b + s))
    return input[tuple(index)]


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Output:  # noqa: A001
    """Extracts a block (``tf.slice``).

    Args:
        input_: A tensor.
        begin: The start of the block in every dimension.
        size: The block's size in every dimension; -1 takes the rest of the dimension.
        name: Op name (default ``"Slice"``).
    """
    return build_autopacked("Slice", [input_, begin, size], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# StridedSlice

_NEW_AXIS = -1
_SHRINK_AXIS = -2


def _strided_slice_plan(dims, begin, end, strides, masks, fail: Callable[[str], Exception]):
    """TensorFlow's ``ValidateStridedSliceOp``, shared by the shape function and the kernel.

    Args:
        dims: The input's dimensions (None where unknown).
        begin, end: Lists of ints, or None when not known at build time.
        strides: A list of ints.
        masks: ``(begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)``.
        fail: Makes the exception to raise from a message.

    Returns:
        ``(slices, processing, final, is_identity)``: one ``(begin, end, stride)`` per input
        dimension (canonical: in range, end exclusive), the shape of the strided block, the
        shape after new axes are added and shrunk ones removed, and whether the op returns
        its input unchanged.
    """
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask = masks
    if ellipsis_mask & (ellipsis_mask - 1):
        raise fail("Multiple ellipses in slice spec not allowed")
    n = len(strides)
    # Step 1: count new axes after the ellipsis; add an implicit ellipsis at the end.
    after_ellipsis, seen = 0, False
    for i in builtins.range(n):
        if seen and (1 << i) & new_axis_mask:
            after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            seen = True
    sparse_ellipsis, sparse_dims = ellipsis_mask, n
    if not seen:
        sparse_ellipsis |= 1 << n
        sparse_dims += 1
    # Step 2: the sparse spec (one entry per index item) into a dense one (one per dimension).
    rank = len(dims)
    d_begin, d_end, d_strides = [0] * rank, [0] * rank, [1] * rank
    d_begin_mask = d_end_mask = d_shrink = 0
    gather: list[int] = []  # per final dimension: a dense dimension, _NEW_AXIS or _SHRINK_AXIS
    full = 0
    for i in builtins.range(sparse_dims):
        bit = 1 << i
        if bit & sparse_ellipsis:
            stop = min(rank - (sparse_dims - i) + 1 + after_ellipsis, rank)
            while full < stop:
                d_begin_mask |= 1 << full
                d_end_mask |= 1 << full
                gather.append(full)
                full += 1
        elif bit & new_axis_mask:
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise fail(f"Index out of range using input dim {full}; input has only {rank} dims")
            if begin is not None:
                d_begin[full] = begin[i]
            if end is not None:
                d_end[full] = end[i]
            d_strides[full] = strides[i]
            if begin_mask & bit:
                d_begin_mask |= 1 << full
            if end_mask & bit:
                d_end_mask |= 1 << full
            if shrink_axis_mask & bit:
                gather.append(_SHRINK_AXIS)
                d_shrink |= 1 << full
            else:
                gather.append(full)
            full += 1
    # Step 3: make masked and negative bounds explicit, check them, size each dimension.
    known = begin is not None and end is not None
    is_identity = True
    slices, processing = [], []
    for i in builtins.range(rank):
        b, e, s, dim = d_begin[i], d_end[i], d_strides[i], dims[i]
        if s == 0:
            raise fail(f"strides[{i}] must be non-zero")
        shrink = bool(d_shrink & (1 << i))
        if dim is None:
            processing.append(1 if shrink else None)
            slices.append(None)
            is_identity = False
            continue
        bm, em = bool(d_begin_mask & (1 << i)), bool(d_end_mask & (1 << i))
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

        def canonical(x, masked, is_end, s=s, dim=dim, lo=lo, hi=hi):
            if masked:
                return (hi if is_end else lo) if s > 0 else (lo if is_end else hi)
            x = x + dim if x < 0 else x
            return lo if x < lo else hi if x > hi else x

        if shrink and s <= 0:
            raise fail("only stride 1 allowed on non-range indexing.")
        if known:
            if shrink:
                b = b + dim if b < 0 else b
                e = b + 1
                if b < 0 or b >= dim:
                    raise fail(f"slice index {b} of dimension {i} out of bounds.")
            else:
                b, e = canonical(b, bm, False), canonical(e, em, True)
            is_identity = is_identity and s == 1 and b == 0 and e == dim
            interval = e - b
        else:
            is_identity = is_identity and s == 1 and bm and em
            interval = 1 if shrink else (-dim if s < 0 else dim) if bm and em else None
        if interval is None:
            processing.append(None)
        elif interval == 0 or (interval < 0) != (s < 0):
            processing.append(0)
        else:
            processing.append(-(-abs(interval) // abs(s)))
        slices.append((b, e, s))
    # Step 4: the final shape: new axes are 1, shrunk dimensions disappear.
    final = [processing[g] if g >= 0 else 1 for g in gather if g != _SHRINK_AXIS]
    return slices, processing, final, is_identity


def _strided_slice_masks(attrs) -> tuple[int, int, int, int, int]:
    return (attrs["begin_mask"], attrs["end_mask"], attrs["ellipsis_mask"],
            attrs["new_axis_mask"], attrs["shrink_axis_mask"])


def _strided_slice_shape(ic):
    begin_shape = shape_fns.with_rank(ic.input_shape("begin"), 1)
    end_shape = shape_fns.with_rank(ic.input_shape("end"), 1)
    strides_shape = shape_fns.with_rank(ic.input_shape("strides"), 1)
    begin_shape = shape_fns.merge_shapes(begin_shape, end_shape)
    begin_shape = shape_fns.merge_shapes(begin_shape, strides_shape)
    inp = ic.input_shape("input")
    strides = ic.input_value("strides")
    if inp.dims is None or begin_shape.dims[0] is None or strides is None:
        return [unknown_shape()]
    begin, end = ic.input_value("begin"), ic.input_value("end")
    _, _, final, _ = _strided_slice_plan(
        list(inp.dims),
        None if begin is None else as_int_list(begin),
        None if end is None else as_int_list(end),
        as_int_list(strides),
        _strided_slice_masks(ic.attrs),
        ValueError,
    )
    return [TensorShape(final)]


@register_op(
    "StridedSlice",
    inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
    outputs=["output: T"],
    attrs=[
        "T: type",
        "Index: {int16, int32, int64}",
        "begin_mask: int = 0",
        "end_mask: int = 0",
        "ellipsis_mask: int = 0",
        "new_axis_mask: int = 0",
        "shrink_axis_mask: int = 0",
    ],
    shape_fn=_strided_slice_shape,
    value_fn=fold_constant,
)
def strided_slice_kernel(input, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask):
    """Python-style ``input[begin:end:strides]`` per dimension, steered by the masks."""
    input = np.asarray(input)
    begin, end, strides = np.asarray(begin), np.asarray(end), np.asarray(strides)
    if (begin.ndim != 1 or end.ndim != 1 or strides.ndim != 1
            or not begin.size == end.size == strides.size):
        raise invalid_argument(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{dims_str(begin.shape)}, {dims_str(end.shape)}, and {dims_str(strides.shape)} "
            "instead."
        )
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    slices, processing, final, is_identity = _strided_slice_plan(
        list(input.shape), as_int_list(begin), as_int_list(end), as_int_list(strides),
        masks, invalid_argument,
    )
    if is_identity:
        return input.reshape(final)
    index = []
    for (b, e, s), size_ in zip(slices, processing):
        # Canonical bounds: with a negative stride, end == -1 means "past index 0".
        stop = e if e >= 0 else None
        index.append(builtins.slice(0, 0) if size_ == 0 else builtins.slice(b, stop, s))
    return input[tuple(index)].reshape(final)


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> Output:
    """Strided slice (``tf.strided_slice``); ``x[...]`` on a tensor builds one.

    Args:
        input_: A tensor.
        begin, end: 1-D int tensors or lists, one entry per index item.
        strides: Per-item steps; default all 1.
        begin_mask, end_mask: Bit i set: ignore ``begin[i]`` / ``end[i]`` (slice from the start
            / to the end).
        ellipsis_mask: Bit i set: item i is ``...``.
        new_axis_mask: Bit i set: item i is ``tf.newaxis``.
        shrink_axis_mask: Bit i set: item i is an index, its dimension removed.
        var: Unused (TensorFlow's sliced-variable assignment hook).
        name: Op name (default ``"StridedSlice"``).

    Raises:
        ValueError: the static shapes show an index out of range or a bad spec.
    """
    del var
    begin, end = autopack(begin), autopack(end)
    if strides is None:
        strides = ones_like(begin)
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    op = build_autopacked("StridedSlice", [input_, begin, end, strides], attrs, name=name)
    return op.outputs[0]


# -- x[...] on tensors: TensorFlow's _slice_helper ------------------------------------------

_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)
_SLICE_DTYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _check_index(idx: Any) -> None:
    if isinstance(idx, numbers.Integral):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and as_dtype(dtype) in _SLICE_DTYPES
    except TypeError:
        ok = False
    shape = getattr(idx, "shape", None)
    if isinstance(shape, tuple):
        shape = TensorShape(shape)
    if not ok or (shape and len(shape) == 1):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _index_dtype(x: Any) -> DType | None:
    return x.dtype if isinstance(x, Output) else None


def slice_helper(tensor: Any, slice_spec: Any, var: Any = None) -> Output:
    """``tensor[slice_spec]``: ints, slices (any step), ``...``, ``None`` (new axis) and
    scalar int tensors, translated into one ``StridedSlice`` exactly as TensorFlow does.

    Args:
        tensor: The tensor (or anything convertible) being indexed.
        slice_spec: What is inside the brackets.
        var: Unused (TensorFlow's hook for sliced variable assignment).

    Raises:
        TypeError: an index of another kind (floats, lists, rank-1 tensors, booleans).
        ValueError: the static shape shows an index out of range.
    """
    del var
    tensor = convert_to_tensor(tensor)
    if isinstance(slice_spec, (bool, np.bool_)) or (
        isinstance(slice_spec, (Output, np.ndarray)) and as_dtype(slice_spec.dtype).is_bool
    ):
        raise TypeError("Boolean-mask indexing (tf.boolean_mask) is not supported by tfmini")
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin: list = []
    end: list = []
    strides: list = []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
            # The best dtype for the packed begin/end/strides among tensors in the slice.
            dtype = None
            for t in (s.start, s.stop, s.step):
                t_dtype = _index_dtype(t)
                if t_dtype == dtypes.int64:
                    dtype = dtypes.int64
                elif t_dtype == dtypes.int32 and dtype != dtypes.int64:
                    dtype = dtypes.int32
                elif t_dtype == dtypes.int16 and dtype is None:
                    dtype = dtypes.int16
            if s.start is not None:
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0 if dtype is None else constant(0, dtype=dtype))
                begin_mask |= 1 << index
            if s.stop is not None:
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0 if dtype is None else constant(0, dtype=dtype))
                end_mask |= 1 << index
            if s.step is not None:
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1 if dtype is None else constant(1, dtype=dtype))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            if isinstance(s, Output) and s.dtype in (dtypes.int16, dtypes.int64):
                strides.append(constant(1, dtype=s.dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= 1 << index
    with op_scope(None, "strided_slice") as (outer, base):
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(p.dtype == dtypes.int64 for p in packed):
                packed = [
                    p if p.dtype == dtypes.int64
                    else build_op(current_scope(), "Cast", [p], {"DstT": dtypes.int64}).outputs[0]
                    for p in packed
                ]
        else:
            empty = constant([], dtype=dtypes.int32)
            packed = [empty, empty, empty]
        attrs = {"begin_mask": begin_mask, "end_mask": end_mask,
                 "ellipsis_mask": ellipsis_mask, "new_axis_mask": new_axis_mask,
                 "shrink_axis_mask": shrink_axis_mask}
        return build_op(outer, "StridedSlice", [tensor] + packed, attrs, name=base).outputs[0]


register_operator_override("__getitem__", slice_helper)

newaxis = None  # ``x[:, tm.newaxis]``, as ``tf.newaxis``


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
# Fill


def _fill_shape(ic):
    shape_fns.with_rank(ic.input_shape("dims"), 1)
    shape_fns.with_rank(ic.input_shape("value"), 0)
    dims = ic.input_value("dims")
    if dims is not None and any(d < 0 for d in as_int_list(dims)):
        raise ValueError("Fill dimensions must be >= 0")
    return [shape_fns.shape_from_shape_tensor(ic, "dims")]


@register_op(
    "Fill",
    inputs=["dims: index_type", "value: T"],
    outputs=["output: T"],
    attrs=["T: type", "index_type: {int32, int64} = DT_INT32"],
    shape_fn=_fill_shape,
    value_fn=fold_constant,
)
def fill_kernel(dims, value):
    """A tensor of shape ``dims`` with every element ``value``."""
    dims, value = np.asarray(dims), np.asarray(value)
    if dims.ndim != 1:
        raise invalid_argument(f"dims must represent a vector, got shape {dims_str(dims.shape)}")
    value = scalar_value(value, "value must represent a scalar, got shape")
    shape_ = as_int_list(dims)
    check_non_negative_dims(shape_)
    return np.full(shape_, value, dtype=value.dtype)


def fill(dims: Any, value: Any, name: str | None = None) -> Output:
    """A tensor filled with a scalar (``tf.fill``).

    Args:
        dims: The output shape (1-D int tensor or list).
        value: The scalar to fill with; its dtype is the output's.
        name: Op name (default ``"Fill"``).
    """
    return build_autopacked("Fill", [dims, value], name=name).outputs[0]


def _filled(shape_: Any, value: Any, dtype: DType, outer, base: str) -> Output:
    """``zeros``/``ones``: a ``Const`` when the shape is static and small (under 1000
    elements, as TensorFlow decides), else ``Fill``; built as ``base`` in ``outer``."""
    if not is_symbolic(shape_) and not has_symbolic(shape_):
        try:
            static = as_shape(shape_)
        except (TypeError, ValueError):
            static = None
        if static is not None and static.is_fully_defined():
            dims = list(static.dims)
            if int(np.prod(dims, dtype=np.int64)) < 1000:
                with scope_context(outer):
                    return constant(value, dtype=dtype, shape=dims, name=base)
            big = any(d > np.iinfo(np.int32).max for d in dims)
            shape_ = constant(dims, dtype=dtypes.int64 if big else dtypes.int32)
    shape_t = convert_to_tensor(autopack(shape_), dtype_hint=dtypes.int32)
    if shape_t.shape.rank == 0:
        shape_t = reshape(shape_t, [-1])
    fill_value = constant(value, dtype=dtype)
    return build_op(outer, "Fill", [shape_t, fill_value], name=base).outputs[0]


def _zero_of(dtype: DType) -> Any:
    return False if dtype.is_bool else b"" if dtype == dtypes.string else 0


def _one_of(dtype: DType) -> Any:
    return True if dtype.is_bool else 1


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Output:
    """A tensor of zeros (``tf.zeros``); a ``Const`` when small, else ``Fill``.

    Args:
        shape: A list, TensorShape or 1-D int tensor.
        dtype: The element type (default float32).
        name: Op name (default ``"zeros"``).
    """
    dtype = as_dtype(dtype)
    with op_scope(name, "zeros") as (outer, base):
        return _filled(shape, _zero_of(dtype), dtype, outer, base)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Output:
    """A tensor of ones (``tf.ones``); a ``Const`` when small, else ``Fill``.

    Args:
        shape: A list, TensorShape or 1-D int tensor.
        dtype: The element type (default float32).
        name: Op name (default ``"ones"``).
    """
    dtype = as_dtype(dtype)
    with op_scope(name, "ones") as (outer, base):
        return _filled(shape, _one_of(dtype), dtype, outer, base)


# ----------------------------------------------------------------------------------------
# ZerosLike, OnesLike


@register_op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
             shape_fn=shape_fns.unchanged, value_fn=fold_constant)
def zeros_like_kernel(x):
    """Zeros with the shape and dtype of ``x``."""
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


@register_op(
    "OnesLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: {half, float, double, int8, uint8, int16, int32, int64, bool}"],
    shape_fn=shape_fns.unchanged,
    value_fn=fold_constant,
)
def ones_like_kernel(x):
    """Ones with the shape and dtype of ``x``."""
    return np.ones_like(np.asarray(x))


def _shape_internal(x: Output) -> Output:
    # TF's shape_internal(optimize=True): a Const when the shape is static.
    if x.shape.is_fully_defined():
        return constant(list(x.shape.dims), dtypes.int32)
    return build_op(current_scope(), "Shape", [x]).outputs[0]


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None,
               optimize: bool = True) -> Output:
    """Zeros shaped like ``tensor`` (``tf.zeros_like``).

    As in TensorFlow, a fully defined static shape gives ``zeros(shape)`` (a
    ``Const`` when small) rather than a ``ZerosLike`` op.

    Args:
        tensor: A tensor.
        dtype: The result's dtype (default: ``tensor``'s).
        name: Op name (default ``"zeros_like"``).
        optimize: Use the static shape when it is fully defined.
    """
    with op_scope(name, "zeros_like") as (outer, base):
        x = convert_to_tensor(tensor)
        dt = as_dtype(dtype) if dtype is not None else x.dtype
        if optimize and x.shape.is_fully_defined() and x.dtype != dtypes.variant:
            return _filled(list(x.shape.dims), _zero_of(dt), dt, outer, base)
        if dt != x.dtype and dt != dtypes.variant:
            shape_t = _shape_internal(x) if optimize else build_op(
                current_scope(), "Shape", [x]).outputs[0]
            return _filled(shape_t, _zero_of(dt), dt, outer, base)
        return build_op(outer, "ZerosLike", [x], name=base).outputs[0]


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None,
              optimize: bool = True) -> Output:
    """Ones shaped like ``tensor`` (``tf.ones_like``): a ``Fill`` of its shape, as in TF.

    Args:
        tensor: A tensor.
        dtype: The result's dtype (default: ``tensor``'s).
        name: Op name (default ``"ones_like"``).
        optimize: Use the static shape when it is fully defined.
    """
    with op_scope(name, "ones_like") as (outer, base):
        x = convert_to_tensor(tensor)
        shape_t = _shape_internal(x) if optimize else build_op(
            current_scope(), "Shape", [x]).outputs[0]
        dt = as_dtype(dtype) if dtype is not None else x.dtype
        out = _filled(shape_t, _one_of(dt), dt, outer, base)
    out.set_shape(x.shape)
    return out


# ----------------------------------------------------------------------------------------
# Range


def _range_size(start, limit, delta, fail: Callable[[str], Exception], shape_time: bool) -> int:
    """The length of ``range(start, limit, delta)``, in the op's own arithmetic."""
    if delta == 0:
        raise fail("Requires delta != 0" + ("" if shape_time else f": {_num_str(delta)}"))
    if delta > 0 and start > limit:
        raise fail(f"Requires start <= limit when delta > 0: {_num_str(start)}/{_num_str(limit)}")
    if delta < 0 and start < limit:
        raise fail(f"Requires start >= limit when delta < 0: {_num_str(start)}/{_num_str(limit)}")
    if np.issubdtype(np.asarray(start).dtype, np.integer):
        s, lim, d = int(start), int(limit), int(delta)
        return (abs(lim - s) + abs(d) - 1) // abs(d)
    # Floats: ceil(|(limit - start) / delta|) computed in the element type, as TensorFlow.
    return int(np.ceil(np.abs((limit - start) / delta)))


def _range_shape(ic):
    for key in ("start", "limit", "delta"):
        try:
            shape_fns.with_rank(ic.input_shape(key), 0)
        except ValueError as e:
            raise ValueError(f"{e} for '{key}'") from None
    values = [ic.input_value(k) for k in ("start", "limit", "delta")]
    if any(v is None for v in values):
        return [TensorShape([None])]
    dtype = ic.attrs["Tidx"]
    if dtype not in (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64):
        # TensorFlow's shape function sizes only these types (a known quirk, kept).
        raise ValueError(f"Unsupported dtype{dtype.enum}")
    start, limit, delta = (np.asarray(v).reshape(()) for v in values)
    return [TensorShape([_range_size(start, limit, delta, ValueError, shape_time=True)])]


@register_op(
    "Range",
    inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
    outputs=["output: Tidx"],
    attrs=["Tidx: {half, float, double, int8, int16, int32, int64} = DT_INT32"],
    shape_fn=_range_shape,
    value_fn=fold_constant,
)
def range_kernel(start, limit, delta, *, Tidx):  # noqa: N803  (TensorFlow's attr name)
    """``start, start + delta, ...`` up to but excluding ``limit``."""
    start = scalar_value(start, "start must be a scalar, not shape")
    limit = scalar_value(limit, "limit must be a scalar, not shape")
    delta = scalar_value(delta, "delta must be a scalar, not shape")
    n = _range_size(start[()], limit[()], delta[()], invalid_argument, shape_time=False)
    t = Tidx.np_dtype
    # TensorFlow computes start + i * delta in the element type (no accumulated rounding).
    return (start.astype(t) + np.arange(n).astype(t) * delta.astype(t)).astype(t)


_RANGE_DTYPE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32,
                      dtypes.float64)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Output:
    """A sequence of numbers (``tf.range``); ``range(n)`` is ``0 .. n-1``.

    Without ``dtype`` the result takes the widest of the arguments' dtypes in
    TensorFlow's order int32 < int64 < float16 < float32 < float64 (Python ints
    are int32, floats float32); the others are cast to it.

    Args:
        start: First value (or the limit, when ``limit`` is None).
        limit: Exclusive upper (or, with negative ``delta``, lower) bound.
        delta: Step; not 0.
        dtype: The element type.
        name: Op name.

    Raises:
        TypeError: an argument's dtype is not a number type TensorFlow allows here.
        ValueError: the static arguments make an empty-by-contradiction range (delta 0,
            start > limit with delta > 0, ...).
    """
    if limit is None:
        start, limit = 0, start
    want = as_dtype(dtype) if dtype is not None else None
    with op_scope(name, "Range") as (outer, base):
        named = (("start", start), ("limit", limit), ("delta", delta))
        args = {k: convert_to_tensor(v) for k, v in named if is_symbolic(v)}
        if want is None:
            # A literal counts with the dtype it would convert to (int32, float32...).
            kinds = [args[k].dtype if k in args else as_dtype(literal_to_array(v).dtype)
                     for k, v in named]
            for dt in kinds:
                if dt not in _RANGE_DTYPE_ORDER:
                    raise TypeError(
                        f"tf.range arguments must be int32, int64, float16, float32 or float64, "
                        f"got {dt.name}"
                    )
            want = max(kinds, key=_RANGE_DTYPE_ORDER.index)
        inputs = []
        for k, v in named:
            if k not in args:
                # Converted straight to the result dtype (TensorFlow converts, then casts), so
                # the value stays known at build time and the static length with it.
                inputs.append(convert_to_tensor(v, dtype=want, name=k))
            elif args[k].dtype != want:
                inputs.append(build_op(current_scope(), "Cast", [args[k]], {"DstT": want},
                                       name="Cast").outputs[0])
            else:
                inputs.append(args[k])
        return build_op(outer, "Range", inputs, name=base).outputs[0]


# ----------------------------------------------------------------------------------------
# GatherV2


def _gather_v2_shape(ic):
    params = shape_fns.with_rank_at_least(ic.input_shape("params"), 1)
    indices = ic.input_shape("indices")
    shape_fns.with_rank(ic.input_shape("axis"), 0)
    batch_dims = ic.attrs["batch_dims"]
    axis = ic.input_value("axis")
    if axis is None:
        if params.rank is not None and indices.rank is not None:
            return [unknown_shape(params.rank + indices.rank - 1 - batch_dims)]
        return [unknown_shape()]
    axis = int(axis)
    shape_fns.with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    shape_fns.with_rank_at_least(indices, abs(batch_dims))
    if params.dims is None or indices.dims is None:
        return [unknown_shape()]
    if batch_dims < 0:
        batch_dims += indices.rank
    shape_fns.with_rank_at_least(params, batch_dims + 1)
    ax = axis + params.rank if axis < 0 else axis
    return [TensorShape(params.dims[:ax] + indices.dims[batch_dims:] + params.dims[ax + 1 :])]


@register_op(
    "GatherV2",
    inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
    outputs=["output: Tparams"],
    attrs=["batch_dims: int = 0", "Tparams: type", "Tindices: {int16, int32, int64}",
           "Taxis: {int32, int64}"],
    shape_fn=_gather_v2_shape,
    value_fn=fold_constant,
)
def gather_v2_kernel(params, indices, axis, *, batch_dims):
    """Slices of ``params`` along ``axis`` picked by ``indices`` (per batch when
    ``batch_dims > 0``): ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``."""
    params, indices, axis = np.asarray(params), np.asarray(indices), np.asarray(axis)
    if params.ndim < 1:
        raise invalid_argument("params must be at least 1 dimensional")
    if axis.ndim != 0:
        raise invalid_argument("axis must be scalar")
    ax = int(axis)
    min_dims = -ax if ax < 0 else ax + 1
    if params.ndim < min_dims:
        raise invalid_argument(f"Shape must be at least rank {min_dims} but is rank {params.ndim}")
    if ax < 0:
        ax += params.ndim
    b = batch_dims
    if b != 0:
        if not -indices.ndim <= b <= indices.ndim:
            raise invalid_argument(
                f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got {b}"
            )
        if b < 0:
            b += indices.ndim
        if b >= params.ndim:
            raise invalid_argument(
                f"batch_dims ({b}) must be less than rank(params) ({params.ndim})."
            )
        if ax < b:
            raise invalid_argument(f"batch_dims ({b}) must be less than or equal to axis ({ax}).")
        for i in builtins.range(b):
            if params.shape[i] != indices.shape[i]:
                raise invalid_argument(
                    f"params.shape[{i}]: {params.shape[i]} should be equal to "
                    f"indices.shape[{i}]: {indices.shape[i]}"
                )
    check_indices(indices, params.shape[ax])
    if b == 0:
        return np.take(params, indices, axis=ax)
    batch = params.shape[:b]
    out_shape = batch + params.shape[b:ax] + indices.shape[b:] + params.shape[ax + 1 :]
    n = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((n,) + params.shape[b:])
    ind = indices.reshape((n,) + indices.shape[b:])
    if n == 0:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack([np.take(p[k], ind[k], axis=ax - b) for k in builtins.range(n)]).reshape(
        out_shape
    )


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
           axis: Any = None, batch_dims: int = 0) -> Output:
    """Gathers slices (TF1 ``tf.gather``).

    As in TensorFlow, ``axis`` defaults to ``batch_dims``, and when ``axis`` is
    0 ``batch_dims`` is not passed on; a variable (anything with
    ``sparse_read``) is read with its own gather then.

    Args:
        params: The tensor (or variable) to gather from.
        indices: int32/int64 indices into ``params``'s ``axis``.
        validate_indices: Ignored (TensorFlow's deprecated argument).
        name: Op name (default ``"GatherV2"``).
        axis: The dimension to gather along.
        batch_dims: The number of leading batch dimensions shared by params and indices.
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    axis_value = constant_value(axis)
    if axis_value is None or np.ndim(axis_value) != 0 or int(axis_value) != 0:
        attrs = {"batch_dims": batch_dims}
        return build_autopacked("GatherV2", [params, indices, axis], attrs, name=name).outputs[0]
    sparse_read = getattr(params, "sparse_read", None)
    if sparse_read is not None:
        return sparse_read(indices, name=name)
    return build_autopacked("GatherV2", [params, indices, axis], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# ScatterNd


def _scatter_nd_shape(ic):
    indices = shape_fns.with_rank_at_least(ic.input_shape("indices"), 1)
    updates = ic.input_shape("updates")
    out = shape_fns.shape_from_shape_tensor(ic, "shape")
    out = shape_fns.with_rank_at_least(out, 1)
    if out.num_elements() == 0 and (indices.num_elements() or updates.num_elements()):
        raise ValueError("Indices and updates specified for empty input")
    if indices.dims is None or updates.dims is None or updates.rank == 0:
        return [out]
    outer = indices.rank - 1
    ix = indices.dims[-1]
    if ix is None:
        return [out]
    prefix_i, prefix_u = TensorShape(indices.dims[:outer]), TensorShape(updates.dims[:outer])
    try:
        shape_fns.merge_shapes(prefix_i, prefix_u)
    except ValueError as e:
        raise ValueError(
            f"Dimensions [0,{outer}) of indices[shape={indices.tf_str()}] = {prefix_i.tf_str()} "
            f"must match dimensions [0,{outer}) of updates[shape={updates.tf_str()}] = "
            f"{prefix_u.tf_str()}: {e}"
        ) from None
    if out.dims is None:
        return [out]
    suffix_o, suffix_u = TensorShape(out.dims[ix:]), TensorShape(updates.dims[outer:])
    try:
        shape_fns.merge_shapes(suffix_o, suffix_u)
    except ValueError as e:
        raise ValueError(
            f"Dimensions [{ix},{out.rank}) of input[shape={out.tf_str()}] = {suffix_o.tf_str()} "
            f"must match dimensions [{outer},{updates.rank}) of updates[shape={updates.tf_str()}]"
            f" = {suffix_u.tf_str()}: {e}"
        ) from None
    return [out]


@register_op(
    "ScatterNd",
    inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
    outputs=["output: T"],
    attrs=["T: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_scatter_nd_shape,
    value_fn=fold_constant,
)
def scatter_nd_kernel(indices, updates, shape, *, bad_indices_policy):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add up)."""
    indices, updates, shape = np.asarray(indices), np.asarray(updates), np.asarray(shape)
    if indices.ndim < 1:
        raise invalid_argument(
            f"Indices shape must have rank at least one. Found:{dims_str(indices.shape)}"
        )
    if updates.ndim < 1:
        raise invalid_argument(
            f"Updates shape must have rank at least one. Found:{dims_str(updates.shape)}"
        )
    out_shape = tuple(as_int_list(shape))
    check_non_negative_dims(out_shape)
    if shape.size == 0 and (indices.size or updates.size):
        raise invalid_argument("Indices and updates specified for empty output shape")
    outer = indices.ndim - 1
    for i in builtins.range(outer):
        if indices.shape[i] != updates.shape[i]:
            raise invalid_argument(
                f"Dimensions [0,{outer}) of indices[shape={dims_str(indices.shape)}] must match "
                f"dimensions [0,{outer}) of updates[shape={dims_str(updates.shape)}]"
            )
    ix = indices.shape[-1]
    inner = updates.shape[outer:]
    if len(inner) != len(out_shape) - ix or inner != out_shape[ix:]:
        raise invalid_argument(
            f"Dimensions [{ix},{len(out_shape)}) of input[shape={dims_str(out_shape)}] must match "
            f"dimensions [{outer},{updates.ndim}) of updates[shape={dims_str(updates.shape)}]"
        )
    if shape.ndim != 1:
        raise invalid_argument("Shape must be a vector")
    if int(np.prod(out_shape, dtype=np.int64)) == 0 and indices.size:
        raise invalid_argument(
            f"Indices and updates specified for empty output.  indices shape: "
            f"{dims_str(indices.shape)}"
        )
    rows = indices.reshape(-1, ix).astype(np.int64)
    upd = updates.reshape((rows.shape[0],) + inner)
    bad = ((rows < 0) | (rows >= np.array(out_shape[:ix], dtype=np.int64))).any(axis=1)
    if bad.any():
        if bad_indices_policy != "IGNORE":
            i = int(np.argmax(bad))
            raise invalid_argument(
                f"indices{slice_debug_string(indices.shape[:-1], i)} = "
                f"[{', '.join(str(v) for v in rows[i].tolist())}] does not index into shape "
                f"{dims_str(out_shape)}"
            )
        rows, upd = rows[~bad], upd[~bad]
    out = np.zeros(out_shape, dtype=updates.dtype)
    if ix == 0:
        out += upd.sum(axis=0, dtype=updates.dtype)
    else:
        np.add.at(out, tuple(rows.T), upd)
    return out


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Output:
    """Scatters ``updates`` into zeros of ``shape`` at ``indices`` (``tf.scatter_nd``).

    Duplicate indices add up. Out-of-range indices are an InvalidArgumentError at run time.

    Args:
        indices: int ``[..., K]`` indices into the first K dimensions of the output.
        updates: Values of shape ``indices.shape[:-1] + shape[K:]``.
        shape: The output shape.
        name: Op name (default ``"ScatterNd"``).
    """
    return build_autopacked("ScatterNd", [indices, updates, shape], name=name).outputs[0]


# ----------------------------------------------------------------------------------------
# UnsortedSegmentSum


def _unsorted_segment_shape(ic):
    data = ic.input_shape("data")
    ids = ic.input_shape("segment_ids")
    shape_fns.with_rank(ic.input_shape("num_segments"), 0)
    if ids.dims is None:
        return [unknown_shape()]
    if data.dims is not None:
        data = shape_fns.with_rank_at_least(data, ids.rank)
        for a, b in zip(data.dims, ids.dims):
            shape_fns.merge_dim(a, b)
    num = shape_fns.dim_from_scalar_input(ic, "num_segments", 2)
    if data.dims is None:
        return [unknown_shape()]
    return [TensorShape((num,) + data.dims[ids.rank :])]


@register_op(
    "UnsortedSegmentSum",
    inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
    outputs=["output: T"],
    attrs=["T: {float, double, int32, uint8, int16, int8, int64, half}",
           "Tindices: {int16, int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"],
    shape_fn=_unsorted_segment_shape,
    value_fn=fold_constant,
)
def unsorted_segment_sum_kernel(data, segment_ids, num_segments):
    """Sums of the rows of ``data`` per segment id; negative ids are dropped."""
    data, ids, num = np.asarray(data), np.asarray(segment_ids), np.asarray(num_segments)
    if num.ndim != 0:
        raise invalid_argument(f"num_segments should be a scalar, not shape {dims_str(num.shape)}")
    if data.shape[: ids.ndim] != ids.shape:
        raise invalid_argument(
            f"data.shape = {dims_str(data.shape)} does not start with segment_ids.shape = "
            f"{dims_str(ids.shape)}"
        )
    n = int(num)
    if n < 0:
        raise invalid_argument(f"Input num_segments == {n} must not be negative.")
    flat_ids = ids.ravel().astype(np.int64)
    over = flat_ids >= n
    if over.any():
        i = int(np.argmax(over))
        raise invalid_argument(
            f"segment_ids{slice_debug_string(ids.shape, i)} = {flat_ids[i]} is out of range "
            f"[0, {n})"
        )
    inner = data.shape[ids.ndim :]
    rows = data.reshape((flat_ids.size,) + inner)
    keep = flat_ids >= 0
    out = np.zeros((n,) + inner, dtype=data.dtype)
    np.add.at(out, flat_ids[keep], rows[keep])
    return out


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> Output:
    """Sums ``data`` by segment (``tf.math.unsorted_segment_sum``).

    ``output[i] = sum(data[j] for j where segment_ids[j] == i)``; rows with a
    negative id are dropped, ids ``>= num_segments`` are an InvalidArgumentError.

    Args:
        data: A tensor whose leading dimensions match ``segment_ids``'s shape.
        segment_ids: int ids.
        num_segments: The number of output rows.
        name: Op name (default ``"UnsortedSegmentSum"``).
    """
    op = build_autopacked("UnsortedSegmentSum", [data, segment_ids, num_segments], name=name)
    return op.outputs[0]


# ----------------------------------------------------------------------------------------
# OneHot


def _one_hot_shape(ic):
    axis = ic.attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = shape_fns.dim_from_scalar_input(ic, "depth", 1)
    inp = ic.input_shape("indices")
    if inp.dims is None:
        return [unknown_shape()]
    new_rank = inp.rank + 1
    at = (axis + new_rank) % new_rank
    return [TensorShape(inp.dims[:at] + (depth,) + inp.dims[at:])]


@register_op(
    "OneHot",
    inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
    outputs=["output: T"],
    attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"],
    shape_fn=_one_hot_shape,
    value_fn=fold_constant,
)
def one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    """``on_value`` where ``indices`` hits a position along the new ``axis`` of length
    ``depth``, ``off_value`` elsewhere (out-of-range indices give an all-off row)."""
    indices, depth = np.asarray(indices), np.asarray(depth)
    on_value, off_value = np.asarray(on_value), np.asarray(off_value)
    out_rank = indices.ndim + 1
    if not (axis == -1 or 0 <= axis < out_rank):
        raise invalid_argument(
            f"Expected axis to be -1 or between [0, {out_rank}).  But received: {axis}"
        )
    for what, v in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if v.ndim != 0:
            raise invalid_argument(f"{what} must be a scalar, but got: {dims_str(v.shape)}")
    d = int(depth)
    if d < 0:
        raise invalid_argument(f"depth must be non-negative, got: {d}")
    hot = indices.astype(np.int64)[..., None] == np.arange(d)
    out = np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    return np.moveaxis(out, -1, indices.ndim if axis == -1 else axis)


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: int | None = None, dtype: Any = None, name: str | None = None) -> Output:
    """One-hot encoding (``tf.one_hot``).

    The dtype comes from ``dtype``, else ``on_value``/``off_value``, else float32.

    Args:
        indices: int indices; out-of-range ones (negative included) give all ``off_value``.
        depth: The length of the one-hot dimension.
        on_value, off_value: The fill values (default 1 and 0).
        axis: Where the new dimension goes (default -1, last).
        dtype: The output dtype.
        name: Op name (default ``"one_hot"``).

    Raises:
        TypeError: ``dtype``, ``on_value`` and ``off_value`` disagree.
    """
    want = as_dtype(dtype) if dtype is not None else None
    with op_scope(name, "one_hot") as (outer, base):
        on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=want)
        off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=want)
        if on is not None or off is not None:
            if want is not None:
                if on is not None and on.dtype != want:
                    raise TypeError(f"dtype {on.dtype} of on_value does not match dtype "
                                    f"parameter {want}")
                if off is not None and off.dtype != want:
                    raise TypeError(f"dtype {off.dtype} of off_value does not match dtype "
                                    f"parameter {want}")
            else:
                want = on.dtype if on is not None else off.dtype
        elif want is None:
            want = dtypes.float32
        if on is None:
            on = convert_to_tensor(1, want, name="on_value")
        if off is None:
            off = convert_to_tensor(0, want, name="off_value")
        if on.dtype != off.dtype:
            raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of "
                            "off_value")
        attrs = {} if axis is None else {"axis": axis}
        inputs = [autopack(indices), autopack(depth), on, off]
        return build_op(outer, "OneHot", inputs, attrs, name=base).outputs[0]


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


__all__ = [
    "broadcast_to",
    "concat",
    "constant",
    "convert_to_tensor",
    "expand_dims",
    "fill",
    "gather",
    "identity",
    "identity_n",
    "newaxis",
    "no_op",
    "one_hot",
    "ones",
    "ones_like",
    "placeholder",
    "placeholder_with_default",
    "range",
    "rank",
    "reshape",
    "scatter_nd",
    "shape",
    "size",
    "slice",
    "split",
    "squeeze",
    "stack",
    "stop_gradient",
    "strided_slice",
    "tile",
    "transpose",
    "unsorted_segment_sum",
    "unstack",
    "zeros",
    "zeros_like",
]
