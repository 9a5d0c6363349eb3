"""Reductions: Sum, Prod, Mean, Max, Min, ArgMax and ArgMin, with ``reduce_sum``,
``reduce_mean``, ``reduce_max``, ``reduce_min``, ``reduce_prod``, ``argmax`` and ``argmin``.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string. The functions are
re-exported by ``tfmini.ops.math.operators``, the family's front module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.dtypes import as_dtype
from tfmini.core.graph import Output
from tfmini.core.registry import register_fusion, register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import NUMBER_TYPES
from tfmini.ops.math import rows_native
from tfmini.ops.math.elementwise import NUMERIC_TYPES, REAL_TYPES

# ArgMax/ArgMin also take bool (TensorFlow's allowed types, cut to tfmini's dtypes).
ARG_TYPES = f"{NUMERIC_TYPES}, bool"


# ----------------------------------------------------------------------------------------
# Reductions: Sum, Mean, Max, Min, Prod


def _reduction_shape(ic) -> list[TensorShape]:
    inp = as_shape(ic.input_shape(0))
    shape_fns.with_rank_at_most(ic.input_shape(1), 1)
    keep = ic.attrs["keep_dims"]
    if inp.rank is None:
        return [unknown_shape()]
    axes = ic.input_value(1)
    if axes is None:
        return [unknown_shape(inp.rank) if keep else unknown_shape()]
    rank = inp.rank
    reduced = set()
    for a in np.asarray(axes).reshape(-1).tolist():
        if a < -rank or a >= rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        reduced.add(a % rank)
    dims = []
    for i, d in enumerate(inp.dims):
        if i not in reduced:
            dims.append(d)
        elif keep:
            dims.append(1)
    return [TensorShape(dims)]


def _reduction_axes(x, axes) -> tuple[int, ...]:
    """Checked, non-negative axes (TensorFlow's ReductionHelper errors)."""
    nd = np.ndim(x)
    out: list[int] = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if a < -nd or a >= nd:
            raise invalid_argument(
                f"Invalid reduction dimension ({a} for input with {nd} dimension(s)"
            )
        a = a + nd if a < 0 else a
        if a in out:
            raise invalid_argument(
                f"Invalid reduction arguments: Axes contains duplicate dimension: {a}",
            )
        out.append(a)
    return tuple(out)


_NARROW_FLOATS = (np.dtype(np.float16), dtypes.bfloat16.np_dtype)


def _accumulator(dt: np.dtype) -> np.dtype:
    # Half and bfloat16 sums accumulate in float (and round once); other types in their own
    # type, which wraps on integer overflow as TensorFlow's kernels do (NumPy would widen
    # small ints).
    return np.dtype(np.float32) if dt in _NARROW_FLOATS else dt


def _round_half(x, dt=np.float16):
    with np.errstate(over="ignore"):  # a float sum beyond half's range is inf, silently
        return np.asarray(x).astype(dt)


def _reduction(op_type: str, doc: str, types: str = REAL_TYPES):
    return register_op(
        op_type,
        inputs=["input: T", "reduction_indices: Tidx"],
        outputs=["output: T"],
        attrs=["keep_dims: bool = false", f"T: {{{types}}}", "Tidx: {int32, int64} = int32"],
        shape_fn=_reduction_shape,
        api_names={"reduction_indices": "axis"},
        doc=doc,
    )


def _accumulating_reduction(np_reduce: Callable) -> Callable:
    """A Sum/Prod kernel: ``np_reduce`` in the accumulator type, rounded once for half."""

    def kernel(input, reduction_indices, *, keep_dims):  # noqa: A002  (TF's argument name)
        axes = _reduction_axes(input, reduction_indices)
        acc = _accumulator(input.dtype)
        out = np_reduce(input, axis=axes, dtype=acc, keepdims=keep_dims)
        return out if acc == input.dtype else _round_half(out, input.dtype)

    kernel.__name__ = f"{np_reduce.__name__}_kernel"
    return kernel


@_reduction("Sum", "Sum over the given axes.", NUMBER_TYPES)
def sum_kernel(input, reduction_indices, *, keep_dims):  # noqa: A002  (TF's argument name)
    """Sum over the given axes; over all but the last of a large array (a bias gradient),
    one compiled loop where available, with the NumPy reduction's order and bits
    (rows_native.py)."""
    axes = _reduction_axes(input, reduction_indices)
    if input.size >= rows_native.MIN_ELEMENTS:
        nd = input.ndim
        if nd >= 2 and len(axes) == nd - 1 and sorted(axes) == list(range(nd - 1)):
            out = rows_native.column_sums(input)
            if out is not None:
                return out.reshape([1] * (nd - 1) + [-1]) if keep_dims else out
    acc = _accumulator(input.dtype)
    out = np.sum(input, axis=axes, dtype=acc, keepdims=keep_dims)
    return out if acc == input.dtype else _round_half(out, input.dtype)


def _fuse_sum_reshape(reshape, total):
    """A Reshape of a Sum to a constant shape (a broadcast gradient's un-broadcasting:
    ``reshape(reduce_sum(grad, axes, keepdims=True), shape)``, math/broadcasting.py) as one
    step: Sum's kernel, then NumPy's reshape, without the Reshape kernel's checks, which
    the static shapes already passed: the Sum's is fully known and holds as many elements
    as the constant shape (the same bits either way; a Reshape of a value of any other
    shape is left to its own kernel)."""
    target = reshape.inputs[1]
    if target.op.type != "Const":
        return None
    shape = np.asarray(target.op.attrs.get("value"))
    dims = total.outputs[0].shape.dims
    if (shape.ndim != 1 or dims is None or any(d is None for d in dims)
            or any(int(v) < 0 for v in shape.tolist())
            or int(np.prod(shape, dtype=np.int64)) != int(np.prod(dims, dtype=np.int64))):
        return None
    keep_dims = bool(total.attrs.get("keep_dims", False))
    new_shape = tuple(int(v) for v in shape.tolist())

    def sum_then_reshape(input, reduction_indices):  # noqa: A002  (TF's argument name)
        return sum_kernel(input, reduction_indices, keep_dims=keep_dims).reshape(new_shape)

    return sum_then_reshape, list(total.inputs)


register_fusion("Reshape", "Sum", _fuse_sum_reshape)
_reduction("Prod", "Product over the given axes.", NUMBER_TYPES)(
    _accumulating_reduction(np.prod))


@_reduction("Mean", "Mean over the given axes; integer means truncate toward zero.",
            NUMBER_TYPES)
def mean_kernel(input, reduction_indices, *, keep_dims):  # noqa: A002
    """Mean over the given axes; integer means truncate toward zero."""
    axes = _reduction_axes(input, reduction_indices)
    shape = np.shape(input)
    n = 1
    for a in axes:
        n *= shape[a]
    dt = input.dtype
    if dt.kind in "iu":
        # TensorFlow sums narrow integers without overflow (int64 wraps), then divides in C.
        s = np.sum(input, axis=axes, dtype=np.int64, keepdims=keep_dims)
        if n == 0:
            return np.zeros_like(s, dtype=dt)
        q = np.floor_divide(s, n)
        q = np.add(q, np.not_equal(np.multiply(q, n), s) & np.less(s, 0))
        return np.asarray(q).astype(dt)
    s = np.sum(input, axis=axes, dtype=_accumulator(dt), keepdims=keep_dims)
    s = _round_half(s, dt) if dt in _NARROW_FLOATS else s
    if n == 0:
        return np.full_like(s, np.nan)
    return np.true_divide(s, n, dtype=dt)


def _extreme_reduction(ufunc: np.ufunc, float_identity: float, int_identity: str):
    def kernel(input, reduction_indices, *, keep_dims):  # noqa: A002
        axes = _reduction_axes(input, reduction_indices)
        if np.size(input) == 0:
            dt = input.dtype
            init = float_identity if dt.kind == "f" else getattr(np.iinfo(dt), int_identity)
            return ufunc.reduce(input, axis=axes, keepdims=keep_dims, initial=init)
        return ufunc.reduce(input, axis=axes, keepdims=keep_dims)

    return kernel


_reduction("Max", "Maximum over the given axes (-inf or the type's minimum when empty).")(
    _extreme_reduction(np.maximum, -np.inf, "min")
)
_reduction("Min", "Minimum over the given axes (inf or the type's maximum when empty).")(
    _extreme_reduction(np.minimum, np.inf, "max")
)


# ----------------------------------------------------------------------------------------
# All, Any (bool), EuclideanNorm


def _bool_reduction(op_type: str, np_reduce: Callable, doc: str) -> None:
    def kernel(input, reduction_indices, *, keep_dims):  # noqa: A002
        axes = _reduction_axes(input, reduction_indices)
        return np.asarray(np_reduce(input, axis=axes, keepdims=keep_dims), dtype=np.bool_)

    kernel.__name__ = f"{op_type.lower()}_kernel"
    register_op(
        op_type,
        inputs=["input: bool", "reduction_indices: Tidx"],
        outputs=["output: bool"],
        attrs=["keep_dims: bool = false", "Tidx: {int32, int64} = int32"],
        shape_fn=_reduction_shape,
        api_names={"reduction_indices": "axis"},
        doc=doc,
    )(kernel)


_bool_reduction("All", np.all, "Logical AND over the given axes (true when empty).")
_bool_reduction("Any", np.any, "Logical OR over the given axes (false when empty).")


@_reduction("EuclideanNorm", "sqrt(sum(x^2)) over the given axes.")
def euclidean_norm_kernel(input, reduction_indices, *, keep_dims):  # noqa: A002
    """sqrt of the sum of squares over the given axes (integers: truncated)."""
    axes = _reduction_axes(input, reduction_indices)
    x = np.asarray(input)
    if x.dtype.kind in "iu":
        s = np.sum(x.astype(np.float64) ** 2, axis=axes, keepdims=keep_dims)
        return np.sqrt(s).astype(x.dtype)
    acc = _accumulator(x.dtype)
    s = np.sum(np.square(x.astype(acc)), axis=axes, keepdims=keep_dims)
    return np.sqrt(s).astype(x.dtype)


# ----------------------------------------------------------------------------------------
# ArgMax, ArgMin


def _arg_shape(ic) -> list[TensorShape]:
    inp = as_shape(ic.input_shape(0))
    shape_fns.with_rank(ic.input_shape(1), 0)
    if inp.rank is None:
        return [unknown_shape()]
    if inp.rank == 0:
        return [TensorShape(())]
    d = ic.input_value(1)
    if d is None:
        return [unknown_shape(inp.rank - 1)]
    d = int(np.asarray(d).reshape(()))
    rank = inp.rank
    if d < -rank or d >= rank:
        raise ValueError(
            f"Dimension ({d}) must be in the range [{-rank}, {rank}), where {rank} is the number "
            "of dimensions in the input."
        )
    d %= rank
    return [TensorShape(inp.dims[:d] + inp.dims[d + 1 :])]


def _arg_reduction(np_arg: Callable, nan_as: float) -> Callable:
    def kernel(input, dimension, *, output_type):  # noqa: A002
        dim = np.asarray(dimension)
        if dim.ndim != 0:
            raise invalid_argument(
                f"dim must be a scalar, but received tensor of shape: {dims_str(dim.shape)}",
            )
        x = np.asarray(input)
        nd = x.ndim
        d = int(dim)
        if d < -nd or d >= nd:
            raise invalid_argument(f"Expected dimension in the range [{-nd}, {nd}), but got {d}")
        d %= nd
        if x.shape[d] == 0:
            raise invalid_argument(f"Reduction axis {d} is empty in shape {dims_str(x.shape)}")
        if x.dtype.kind == "f":
            nan = np.isnan(x)
            if nan.any():
                # TensorFlow compares with > (<), so NaN never wins; NumPy would pick it.
                x = np.where(nan, nan_as, x)
        return np_arg(x, axis=d).astype(output_type.np_dtype)

    return kernel


register_op(
    "ArgMax",
    inputs=["input: T", "dimension: Tidx"],
    outputs=["output: output_type"],
    attrs=[f"T: {{{ARG_TYPES}}}", "Tidx: {int16, int32, int64} = int32",
           "output_type: {int16, int32, int64} = int64"],
    shape_fn=_arg_shape,
    doc="Index of the largest value along ``dimension`` (the first on ties).",
)(_arg_reduction(np.argmax, -np.inf))
register_op(
    "ArgMin",
    inputs=["input: T", "dimension: Tidx"],
    outputs=["output: output_type"],
    attrs=[f"T: {{{ARG_TYPES}}}", "Tidx: {int32, int64} = int32",
           "output_type: {int32, int64} = int64"],
    shape_fn=_arg_shape,
    doc="Index of the smallest value along ``dimension`` (the first on ties).",
)(_arg_reduction(np.argmin, np.inf))


# ----------------------------------------------------------------------------------------
# TF1-style functions


def _pick(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    """One of two spellings of an argument (TF1's deprecated aliases)."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old
    return new


def _all_axes(x: Output) -> Any:
    if x.shape.rank is not None:
        return np.arange(x.shape.rank, dtype=np.int32)
    # Unknown rank: TensorFlow builds range(0, rank(x)); those ops are the array family's.
    rank = build_output("Rank", [x])
    return build_output("Range", [np.int32(0), rank, np.int32(1)])


def _reduce(op_type: str, public_name: str, doc: str):
    def fn(input_tensor: Any, axis: Any = None, keepdims: bool | None = None,
           name: str | None = None, reduction_indices: Any = None,
           keep_dims: bool | None = None) -> Output:
        axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
        keepdims = _pick(keepdims, keep_dims, "keepdims", "keep_dims")
        x = as_operand(input_tensor)
        if axis is None:
            axis = _all_axes(x)
        return build_output(op_type, [x, axis], {"keep_dims": bool(keepdims)}, name=name)

    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"{doc} (TF1 ``tf.{public_name}``, op ``{op_type}``).\n\n"
        "Args:\n"
        "    input_tensor: The tensor to reduce.\n"
        "    axis: Axes to reduce (int, list or int32/int64 tensor; negative counts from the\n"
        "        end); None reduces all.\n"
        "    keepdims: Keep reduced axes with length 1.\n"
        "    name: Optional op name.\n"
        "    reduction_indices: Deprecated alias of axis.\n"
        "    keep_dims: Deprecated alias of keepdims.\n\n"
        "Returns:\n"
        "    The reduced tensor, of the input's dtype.\n\n"
        "Raises:\n"
        "    ValueError: both an argument and its alias are given, or an axis is out of range.\n"
    )
    return fn


reduce_sum = _reduce("Sum", "reduce_sum", "Sum of elements across axes")
reduce_mean = _reduce("Mean", "reduce_mean",
                      "Mean of elements across axes (integer means truncate toward zero)")
reduce_max = _reduce("Max", "reduce_max", "Maximum of elements across axes")
reduce_min = _reduce("Min", "reduce_min", "Minimum of elements across axes")
reduce_prod = _reduce("Prod", "reduce_prod", "Product of elements across axes")


def _arg_fn(op_type: str, public_name: str, doc: str):
    def fn(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
           dimension: Any = None, output_type: Any = dtypes.int64) -> Output:
        axis = _pick(axis, dimension, "axis", "dimension")
        if axis is None:
            axis = 0
        return build_output(op_type, [input, axis], {"output_type": as_dtype(output_type)},
                            name=name)

    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"{doc} (TF1 ``tf.{public_name}``, op ``{op_type}``).\n\n"
        "Args:\n"
        "    input: A numeric or bool tensor.\n"
        "    axis: The axis to reduce (default 0); negative counts from the end.\n"
        "    name: Optional op name.\n"
        "    dimension: Deprecated alias of axis.\n"
        "    output_type: int32 or int64 (default).\n\n"
        "Returns:\n"
        "    Indices, the first one on ties; NaN never wins.\n"
    )
    return fn


argmax = _arg_fn("ArgMax", "argmax", "Index of the largest value along an axis")
argmin = _arg_fn("ArgMin", "argmin", "Index of the smallest value along an axis")


reduce_all = _reduce("All", "reduce_all", "Logical AND over the given axes")
reduce_any = _reduce("Any", "reduce_any", "Logical OR over the given axes")
reduce_euclidean_norm = _reduce("EuclideanNorm", "reduce_euclidean_norm",
                                "sqrt(sum(x^2)) over the given axes")


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool | None = None,
                     name: str | None = None, reduction_indices: Any = None,
                     keep_dims: bool | None = None) -> Output:
    """log(sum(exp(x))) over axes, computed stably (``tf.reduce_logsumexp``), as TensorFlow
    builds it: the finite max is subtracted (behind a StopGradient) and added back.

    Args:
        input_tensor: A float tensor.
        axis: Axes to reduce; None reduces all.
        keepdims: Keep reduced axes with length 1.
        name: Name of the final Add (and of the scope).
        reduction_indices: Deprecated alias of axis.
        keep_dims: Deprecated alias of keepdims.

    Returns:
        The reduced tensor.
    """
    from tfmini.core.scope import name_scope

    axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
    keepdims = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = as_operand(input_tensor)
        axes = _all_axes(x) if axis is None else axis
        raw_max = build_output("Max", [x, axes], {"keep_dims": True})
        finite = build_output("IsFinite", [raw_max])
        my_max = build_output("StopGradient", [build_output(
            "SelectV2", [finite, raw_max, build_output("ZerosLike", [raw_max])])])
        summed = build_output("Sum", [build_output("Exp", [build_output("Sub", [x, my_max])]),
                                      axes], {"keep_dims": keepdims})
        result = build_output("Log", [summed])
        if not keepdims:
            my_max = build_output("Reshape", [my_max, build_output("Shape", [result])])
        del scope
        return build_output("AddV2", [result, my_max])


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: bool | None = None,
                  dtype: Any = dtypes.int64, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: bool | None = None,
                  input: Any = None) -> Output:  # noqa: A002
    """The number of non-zero elements over axes (``tf.math.count_nonzero``): NotEqual to
    zero, cast to int64, summed, cast to ``dtype``.

    Args:
        input_tensor: A numeric or bool tensor (``input`` is its alias).
        axis: Axes to reduce; None reduces all.
        keepdims: Keep reduced axes with length 1.
        dtype: Output dtype (int64 by default).
        name: Name scope (default ``count_nonzero``).
        reduction_indices: Deprecated alias of axis.
        keep_dims: Deprecated alias of keepdims.
        input: Deprecated alias of input_tensor.

    Returns:
        The counts.
    """
    from tfmini.core.scope import name_scope
    from tfmini.ops.math.cast_ops import cast

    input_tensor = _pick(input_tensor, input, "input_tensor", "input")
    axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
    keepdims = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = as_operand(input_tensor)
        zero = as_operand(np.zeros((), x.dtype.np_dtype) if not x.dtype.is_object else b"")
        nonzero = cast(build_output("NotEqual", [x, zero],
                                    {"incompatible_shape_error": True}), dtypes.int64)
        axes = _all_axes(nonzero) if axis is None else axis
        total = build_output("Sum", [nonzero, axes], {"keep_dims": keepdims})
        return cast(total, dtype)


__all__ = [
    "argmax",
    "argmin",
    "count_nonzero",
    "reduce_all",
    "reduce_any",
    "reduce_euclidean_norm",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
]
