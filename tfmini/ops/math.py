"""Math ops: elementwise arithmetic, comparisons, reductions, matmul, casts.

Elementwise ops come from two small factories (:func:`unary_op`,
:func:`binary_op`) so each reads as one line: type string, NumPy function,
allowed types. The kernels are the NumPy ufuncs themselves where NumPy's
semantics equal TensorFlow's, which keeps the interpreter overhead per op low.

Signatures (input, output and attr names, allowed types) are TensorFlow's
OpDefs, restricted to the dtypes tfmini has. Where TensorFlow's OpDef allows a
type for which TensorFlow registers no CPU kernel (``RealDiv`` on integers,
``MatMul`` on uint8), the op builds and its kernel fails at run time as
TensorFlow's does.

Warnings: TensorFlow returns inf/nan silently. The Session runs every plan under
one ``np.errstate(all="ignore")``, so kernels need no warning handling of their own
and most stay bare ufunc calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor, is_symbolic
from tfmini.core.dtypes import DType, as_dtype
from tfmini.core.graph import Output, register_operator_override
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, as_shape, dims_str, unknown_shape
from tfmini.ops import shape_fns
from tfmini.ops.kernel_util import invalid_argument

# TensorFlow's allowed-type lists, in TensorFlow's spelling, cut to the dtypes tfmini has.
FLOAT_TYPES = "half, float, double"
INT_TYPES = "int8, int16, int32, int64, uint8"
NUMERIC_TYPES = f"{FLOAT_TYPES}, {INT_TYPES}"
SIGNED_TYPES = f"{FLOAT_TYPES}, int8, int16, int32, int64"  # Neg, Abs, Sign, Pow: no uint8
REAL_TYPES = NUMERIC_TYPES  # comparisons, Maximum/Minimum, reductions, FloorMod
MATMUL_TYPES = f"{FLOAT_TYPES}, int32, int64, uint8"
BATCH_MATMUL_TYPES = f"{FLOAT_TYPES}, int16, int32, int64, uint8"
ARG_TYPES = f"{NUMERIC_TYPES}, bool"


def binary_op(op_type: str, kernel: Callable, types: str | None = NUMERIC_TYPES, doc: str = "",
              out_type: str | None = None, attrs: Sequence[str] = (),
              shape_fn: Callable = shape_fns.broadcast_binary) -> None:
    """Registers ``z = kernel(x, y)`` with broadcasting.

    Args:
        op_type: The op's type string.
        kernel: ``fn(x, y, **attrs)``; a ufunc is the fastest.
        types: Allowed values of ``T`` (TensorFlow's spelling); None allows any type.
        doc: One-line description.
        out_type: Fixes z's dtype (``"bool"`` for comparisons); default ``T``.
        attrs: Extra attr specs.
        shape_fn: Shape function; default: broadcast x with y.
    """
    register_op(
        op_type,
        inputs=["x: T", "y: T"],
        outputs=[f"z: {out_type or 'T'}"],
        attrs=["T: type" if types is None else f"T: {{{types}}}", *attrs],
        shape_fn=shape_fn,
        doc=doc,
    )(kernel)


def unary_op(op_type: str, kernel: Callable, types: str = NUMERIC_TYPES, doc: str = "") -> None:
    """Registers ``y = kernel(x)``, same shape and dtype."""
    register_op(
        op_type,
        inputs=["x: T"],
        outputs=["y: T"],
        attrs=[f"T: {{{types}}}"],
        shape_fn=shape_fns.unchanged,
        doc=doc,
    )(kernel)


# ----------------------------------------------------------------------------------------
# Kernel helpers


def _is_int(x) -> bool:
    return x.dtype.kind in "iu"


def _check_divisor(y) -> None:
    if not np.all(y):
        raise invalid_argument("Integer division by zero")


def _attr_text(value: Any) -> str:
    if isinstance(value, DType):
        return "DT_" + value.name.upper()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _no_kernel(node) -> errors.InvalidArgumentError:
    # TensorFlow's OpDef admits these types but TensorFlow registers no CPU kernel for them.
    attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in sorted(node.attrs.items()))
    return invalid_argument(
        f"No OpKernel was registered to support Op '{node.type}' used by {{{{node {node.name}}}}} "
        f"with these attrs: [{attrs}]",
    )


def _real_div(x, y, *, node):
    if _is_int(x):
        raise _no_kernel(node)
    return np.true_divide(x, y)


def _div(x, y):
    """TF's ``Div``: true division for floats, C-style (truncating) division for integers."""
    if not _is_int(x):
        return np.true_divide(x, y)
    _check_divisor(y)
    q = np.floor_divide(x, y)  # INT_MIN / -1 wraps, as in C
    if x.dtype.kind == "u":
        return q
    # Floor and truncation differ when the signs differ and the division is inexact.
    inexact = np.not_equal(np.multiply(q, y), x)
    return np.add(q, inexact & np.less(np.bitwise_xor(x, y), 0), dtype=q.dtype)


def _floor_div(x, y):
    """TF's ``FloorDiv``: ``floor(x / y)`` for floats (not NumPy's fmod-based ``//``)."""
    if _is_int(x):
        _check_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


def _floor_mod(x, y):
    """TF's ``FloorMod``: the result takes the divisor's sign (Python's ``%``)."""
    if _is_int(x):
        _check_divisor(y)
    return np.remainder(x, y)


def _pow(x, y):
    if _is_int(x) and np.any(np.less(y, 0)):
        raise invalid_argument("Integers to negative integer powers are not allowed")
    return np.power(x, y)


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _sigmoid(x):
    # Half precision is computed in float and rounded once, as TensorFlow's kernel does.
    if x.dtype == np.float16:
        return _sigmoid(x.astype(np.float32)).astype(np.float16)
    return np.reciprocal(np.add(1, np.exp(np.negative(x))))


# ----------------------------------------------------------------------------------------
# Elementwise binary ops


def _add(x, y):
    """TF's ``Add`` (V1): also concatenates strings, which NumPy's add does element by element."""
    if x.dtype == object:
        return np.frompyfunc(_concat, 2, 1)(x, y)
    return np.add(x, y)


def _concat(a, b) -> bytes:
    # Strings may arrive as bytes (fed, fetched) or str (Python literals); TF's are bytes.
    a = a.encode() if isinstance(a, str) else a
    return a + (b.encode() if isinstance(b, str) else b)


binary_op("Add", _add, f"{NUMERIC_TYPES}, string", doc="x + y (strings concatenate).")
binary_op("AddV2", np.add, doc="x + y, elementwise with broadcasting.")
binary_op("Sub", np.subtract, doc="x - y, elementwise with broadcasting.")
binary_op("Mul", np.multiply, doc="x * y, elementwise with broadcasting.")
binary_op("RealDiv", _real_div, doc="x / y for real types.")
binary_op("Div", _div, doc="x / y; integers divide truncating toward zero.")
binary_op("FloorDiv", _floor_div, doc="floor(x / y).")
binary_op("FloorMod", _floor_mod, REAL_TYPES, doc="x - floor(x / y) * y (sign of y).")
binary_op("Pow", _pow, SIGNED_TYPES, doc="x ** y.")
binary_op("Maximum", np.maximum, REAL_TYPES, doc="max(x, y), NaN propagating.")
binary_op("Minimum", np.minimum, REAL_TYPES, doc="min(x, y), NaN propagating.")
binary_op("Less", np.less, REAL_TYPES, doc="x < y.", out_type="bool")
binary_op("LessEqual", np.less_equal, REAL_TYPES, doc="x <= y.", out_type="bool")
binary_op("Greater", np.greater, REAL_TYPES, doc="x > y.", out_type="bool")
binary_op("GreaterEqual", np.greater_equal, REAL_TYPES, doc="x >= y.", out_type="bool")


def _equal_shape(ic) -> list[TensorShape]:
    try:
        return shape_fns.broadcast_binary(ic)
    except ValueError:
        if ic.attrs["incompatible_shape_error"]:
            raise
        return [TensorShape(())]  # incompatible shapes compare as a scalar


def _comparison(ufunc: Callable, when_incompatible: bool) -> Callable:
    def kernel(x, y, *, incompatible_shape_error):
        try:
            z = ufunc(x, y)
        except ValueError:
            if incompatible_shape_error:
                raise invalid_argument(
                    f"Incompatible shapes: {dims_str(np.shape(x))} vs. {dims_str(np.shape(y))}",
                ) from None
            return np.bool_(when_incompatible)
        # Object operands (strings) may compare to Python bools or object arrays.
        return z if getattr(z, "dtype", None) == np.bool_ else np.asarray(z, dtype=np.bool_)

    kernel.__name__ = f"{ufunc.__name__}_kernel"
    return kernel


_EQ_ATTRS = ["incompatible_shape_error: bool = true"]
binary_op("Equal", _comparison(np.equal, False), None, doc="x == y.", out_type="bool",
          attrs=_EQ_ATTRS, shape_fn=_equal_shape)
binary_op("NotEqual", _comparison(np.not_equal, True), None, doc="x != y.", out_type="bool",
          attrs=_EQ_ATTRS, shape_fn=_equal_shape)

register_op("LogicalAnd", inputs=["x: bool", "y: bool"], outputs=["z: bool"],
            shape_fn=shape_fns.broadcast_binary, doc="x AND y.")(np.logical_and)
register_op("LogicalOr", inputs=["x: bool", "y: bool"], outputs=["z: bool"],
            shape_fn=shape_fns.broadcast_binary, doc="x OR y.")(np.logical_or)
register_op("LogicalNot", inputs=["x: bool"], outputs=["y: bool"],
            shape_fn=shape_fns.unchanged, doc="NOT x.")(np.logical_not)

# ----------------------------------------------------------------------------------------
# Elementwise unary ops

unary_op("Neg", np.negative, SIGNED_TYPES, doc="-x.")
unary_op("Abs", np.absolute, SIGNED_TYPES, doc="|x|.")
unary_op("Sign", np.sign, SIGNED_TYPES, doc="-1, 0 or 1 by the sign of x (NaN stays NaN).")
unary_op("Square", np.square, NUMERIC_TYPES, doc="x * x.")
unary_op("Sqrt", np.sqrt, FLOAT_TYPES, doc="sqrt(x); NaN for x < 0.")
unary_op("Rsqrt", _rsqrt, FLOAT_TYPES, doc="1 / sqrt(x).")
unary_op("Exp", np.exp, FLOAT_TYPES, doc="e ** x.")
unary_op("Log", np.log, FLOAT_TYPES, doc="Natural logarithm; -inf at 0, NaN below.")
unary_op("Log1p", np.log1p, FLOAT_TYPES, doc="log(1 + x).")
unary_op("Sin", np.sin, FLOAT_TYPES, doc="sin(x).")
unary_op("Cos", np.cos, FLOAT_TYPES, doc="cos(x).")
unary_op("Tanh", np.tanh, FLOAT_TYPES, doc="tanh(x).")
unary_op("Sigmoid", _sigmoid, FLOAT_TYPES, doc="1 / (1 + exp(-x)).")


# ----------------------------------------------------------------------------------------
# AddN


def _add_n_shape(ic) -> list[TensorShape]:
    shapes = ic.input_shape(0)
    cur = shapes[-1]
    for i in range(len(shapes) - 2, -1, -1):
        try:
            cur = shape_fns.merge_shapes(shapes[i], cur)
        except ValueError as e:
            raise ValueError(f"{e} \tFrom merging shape {i} with other shapes.") from None
    return [cur]


@register_op(
    "AddN",
    inputs=["inputs: N * T"],
    outputs=["sum: T"],
    attrs=["N: int >= 1", f"T: {{{NUMERIC_TYPES}}}"],
    shape_fn=_add_n_shape,
)
def add_n_kernel(inputs):
    """Sums its inputs, which must all have the same shape (no broadcasting)."""
    first = inputs[0]
    shape = np.shape(first)
    for i, v in enumerate(inputs[1:], 1):
        if np.shape(v) != shape:
            raise invalid_argument(
                "Inputs to operation AddN of type AddN must have the same size and shape.  "
                f"Input 0: {dims_str(shape)} != input {i}: {dims_str(np.shape(v))}",
            )
    total = first
    for v in inputs[1:]:
        total = np.add(total, v)
    return total


# ----------------------------------------------------------------------------------------
# Select, SelectV2


def _select_shape(ic) -> list[TensorShape]:
    # TensorFlow's SelectShapeFn: 'then' and 'else' merge; cond is a scalar, a vector over
    # the first dimension, or of the same shape.
    data = shape_fns.merge_shapes(ic.input_shape(1), ic.input_shape(2))
    cond = as_shape(ic.input_shape(0))
    if cond.rank is None or data.rank is None or cond.rank == 0:
        return [data]
    if cond.rank != 1 or data.rank == 0:
        return [shape_fns.merge_shapes(data, cond)]
    shape_fns.merge_shapes(cond, TensorShape([data.dims[0]]))
    return [data]


def _check_then_else(t_shape: tuple, e_shape: tuple) -> None:
    if t_shape != e_shape:
        raise invalid_argument(
            f"'then' and 'else' must have the same size.  but received: {dims_str(t_shape)} "
            f"vs. {dims_str(e_shape)}",
        )


@register_op(
    "Select",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_shape,
    api_names={"t": "x", "e": "y"},
)
def select_kernel(condition, t, e):
    """Picks from ``t`` where ``condition`` else ``e``; a vector condition picks rows."""
    c = np.asarray(condition)
    t_shape, e_shape = np.shape(t), np.shape(e)
    if c.ndim == 0:
        _check_then_else(t_shape, e_shape)
        return t if c else e
    if c.ndim == 1 and len(t_shape) != 1:
        if not t_shape:
            raise invalid_argument(
                f"'then' must be at least a vector, but saw shape: {dims_str(t_shape)}"
            )
        if t_shape[0] != c.shape[0]:
            raise invalid_argument(
                "Number of batches of 'then' must match size of 'cond', but saw: "
                f"{t_shape[0]} vs. {c.shape[0]}",
            )
        _check_then_else(t_shape, e_shape)
        return np.where(c.reshape(c.shape + (1,) * (len(t_shape) - 1)), t, e)
    for i, s in ((1, t_shape), (2, e_shape)):
        if s != c.shape:
            raise invalid_argument(
                "Inputs to operation Select of type Select must have the same size and shape.  "
                f"Input 0: {dims_str(c.shape)} != input {i}: {dims_str(s)}",
            )
    return np.where(c, t, e)


def _select_v2_shape(ic) -> list[TensorShape]:
    other = shape_fns.broadcast_shapes(ic.input_shape(1), ic.input_shape(2))
    return [shape_fns.broadcast_shapes(ic.input_shape(0), other)]


@register_op(
    "SelectV2",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_select_v2_shape,
)
def select_v2_kernel(condition, t, e):
    """Picks from ``t`` where ``condition`` else ``e``; all three broadcast."""
    try:
        return np.where(condition, t, e)
    except ValueError:
        raise invalid_argument(
            f"condition {dims_str(np.shape(condition))}, then {dims_str(np.shape(t))}, and "
            f"else {dims_str(np.shape(e))} must be broadcastable",
        ) from None


# ----------------------------------------------------------------------------------------
# Cast

# Mantissa bits dropped when a float narrows to another float: (source, target) -> mask.
_TRUNCATE = {
    (np.dtype(np.float64), np.dtype(np.float32)): (np.uint64, 29),
    (np.dtype(np.float64), np.dtype(np.float16)): (np.uint64, 42),
    (np.dtype(np.float32), np.dtype(np.float16)): (np.uint32, 13),
}


def _float_to_int(x: np.ndarray, target: np.dtype) -> np.ndarray:
    # x86's conversion, which TensorFlow inherits: NaN and values out of the 32-bit (64-bit
    # for int64) range give the most negative integer; narrower types wrap from 32 bits.
    wide = np.int64 if target == np.int64 else np.int32
    info = np.iinfo(wide)
    t = np.trunc(np.asarray(x, dtype=np.float64))
    ok = (t >= float(info.min)) & (t < -float(info.min))
    safe = np.where(ok, t, 0).astype(wide)
    return np.where(ok, safe, wide(info.min)).astype(target)


@register_op(
    "Cast",
    inputs=["x: SrcT"],
    outputs=["y: DstT"],
    attrs=["SrcT: type", "DstT: type", "Truncate: bool = false"],
    shape_fn=shape_fns.unchanged,
)
def cast_kernel(x, *, SrcT, DstT, Truncate):  # noqa: N803  (TensorFlow's attr names)
    """Converts ``x`` to ``DstT`` (floats truncate toward zero into integers)."""
    if SrcT == DstT:
        return x
    if SrcT.is_object or DstT.is_object:
        raise errors.UnimplementedError(
            None, None,
            f"Cast {dtypes.tf_type_name(SrcT)} to {dtypes.tf_type_name(DstT)} is not supported",
        )
    target = DstT.np_dtype
    if SrcT.is_floating and DstT.is_integer:
        return _float_to_int(x, target)
    if Truncate and (x.dtype, target) in _TRUNCATE:
        bits, n = _TRUNCATE[(x.dtype, target)]
        mask = bits(~((1 << n) - 1) & np.iinfo(bits).max)
        src = np.asarray(x)
        chopped = np.bitwise_and(src.view(bits), mask).view(src.dtype)
        x = np.where(np.isnan(src), src, chopped)  # keep NaN payloads NaN
    # float narrowing overflows to inf silently
    return np.asarray(x).astype(target)


# ----------------------------------------------------------------------------------------
# MatMul, BatchMatMulV2


def _mat_mul_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank(ic.input_shape(0), 2)
    b = shape_fns.with_rank(ic.input_shape(1), 2)
    ta, tb = ic.attrs["transpose_a"], ic.attrs["transpose_b"]
    rows, inner_a = (a[1], a[0]) if ta else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if tb else (b[0], b[1])
    shape_fns.merge_dim(inner_a, inner_b)
    return [TensorShape([rows, cols])]


def _matmul(a, b):
    if a.dtype == np.float16:  # accumulate in float, as TensorFlow's half kernels do
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    return np.matmul(a, b)


@register_op(
    "MatMul",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=["transpose_a: bool = false", "transpose_b: bool = false", f"T: {{{MATMUL_TYPES}}}",
           "grad_a: bool = false", "grad_b: bool = false"],
    shape_fn=_mat_mul_shape,
)
def mat_mul_kernel(a, b, *, transpose_a, transpose_b, node):
    """Matrix product of two rank-2 tensors, either transposed first."""
    if a.dtype == np.uint8:
        raise _no_kernel(node)
    for i, m in enumerate((a, b)):
        if m.ndim != 2:
            raise invalid_argument(
                f"In[{i}] is not a matrix. Instead it has shape {dims_str(m.shape)}"
            )
    x = a.T if transpose_a else a
    y = b.T if transpose_b else b
    if x.shape[1] != y.shape[0]:
        raise invalid_argument(
            f"Matrix size-incompatible: In[0]: {dims_str(a.shape)}, In[1]: {dims_str(b.shape)}",
        )
    return _matmul(x, y)


def _batch_mat_mul_shape(ic) -> list[TensorShape]:
    a = shape_fns.with_rank_at_least(ic.input_shape(0), 2)
    b = shape_fns.with_rank_at_least(ic.input_shape(1), 2)
    if a.rank is None or b.rank is None:
        return [unknown_shape()]
    adj_x, adj_y = ic.attrs["adj_x"], ic.attrs["adj_y"]
    rows, inner_a = (a[-1], a[-2]) if adj_x else (a[-2], a[-1])
    inner_b, cols = (b[-1], b[-2]) if adj_y else (b[-2], b[-1])
    shape_fns.merge_dim(inner_a, inner_b)
    batch = shape_fns.broadcast_shapes(a[:-2], b[:-2])
    return [batch.concatenate([rows, cols])]


@register_op(
    "BatchMatMulV2",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=[f"T: {{{BATCH_MATMUL_TYPES}}}", "adj_x: bool = false", "adj_y: bool = false",
           "grad_x: bool = false", "grad_y: bool = false"],
    shape_fn=_batch_mat_mul_shape,
)
def batch_mat_mul_v2_kernel(x, y, *, adj_x, adj_y, node):
    """Batched matrix product over the last two dimensions; batch dimensions broadcast."""
    if x.dtype == np.uint8:
        raise _no_kernel(node)
    for i, m in enumerate((x, y)):
        if m.ndim < 2:
            raise invalid_argument(f"In[{i}] ndims must be >= 2: {m.ndim}")
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise invalid_argument(
            "In[0] and In[1] must have compatible batch dimensions: "
            f"{dims_str(x.shape)} vs. {dims_str(y.shape)}",
        ) from None
    a = np.swapaxes(x, -1, -2) if adj_x else x
    b = np.swapaxes(y, -1, -2) if adj_y else y
    if a.shape[-1] != b.shape[-2]:
        raise invalid_argument(
            f"Matrix size-incompatible: In[0]: {dims_str(x.shape)}, In[1]: {dims_str(y.shape)}",
        )
    return _matmul(a, b)


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


def _accumulator(dt: np.dtype) -> np.dtype:
    # Half sums accumulate in float (and round once); other types in their own type, which
    # wraps on integer overflow as TensorFlow's kernels do (NumPy would widen small ints).
    return np.dtype(np.float32) if dt == np.float16 else dt


def _round_half(x):
    with np.errstate(over="ignore"):  # a float sum beyond half's range is inf, silently
        return np.asarray(x).astype(np.float16)


def _reduction(op_type: str, doc: str):
    return register_op(
        op_type,
        inputs=["input: T", "reduction_indices: Tidx"],
        outputs=["output: T"],
        attrs=["keep_dims: bool = false", f"T: {{{REAL_TYPES}}}", "Tidx: {int32, int64} = int32"],
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
        return out if acc == input.dtype else _round_half(out)

    kernel.__name__ = f"{np_reduce.__name__}_kernel"
    return kernel


_reduction("Sum", "Sum over the given axes.")(_accumulating_reduction(np.sum))
_reduction("Prod", "Product over the given axes.")(_accumulating_reduction(np.prod))


@_reduction("Mean", "Mean over the given axes; integer means truncate toward zero.")
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
    s = _round_half(s) if dt == np.float16 else s
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


# ========================================================================================
# TF1-style functions


def _build(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None):
    return build_op(current_scope(), op_type, inputs, attrs, name=name).outputs[0]


def _tensor(value: Any, dtype: DType | None = None) -> Output:
    """``value`` as an Output; a literal takes ``dtype`` (TypeError if it cannot)."""
    if isinstance(value, Output):
        return value
    if is_symbolic(value):
        return convert_to_tensor(value)
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as e:
        raise TypeError(str(e)) from e


def _tensor_pair(x: Any, y: Any) -> tuple[Output, Output]:
    """``x`` and ``y`` as Outputs; a literal takes the dtype of the other operand (of ``x``
    when both are literals or both tensors)."""
    if not is_symbolic(x) and is_symbolic(y):
        y = _tensor(y)
        return _tensor(x, y.dtype), y
    x = _tensor(x)
    return x, _tensor(y, x.dtype)


def _binary_fn(op_type: str, public_name: str, doc: str, default_name: str | None = None):
    # default_name: the name TensorFlow's Python function gives the op (tf.add -> "Add").
    def fn(x: Any, y: Any, name: str | None = None) -> Output:
        return _build(op_type, [x, y], name=name or default_name)

    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"{doc} (op ``{op_type}``).\n\n"
        "Args:\n"
        "    x: A tensor or literal.\n"
        "    y: A tensor or literal of the same dtype (literals take the other's dtype).\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    The result tensor.\n\n"
        "Raises:\n"
        "    TypeError: x and y have different dtypes, or a dtype the op does not allow.\n"
        "    ValueError: the static shapes do not broadcast.\n"
    )
    return fn


def _unary_fn(op_type: str, public_name: str, doc: str):
    def fn(x: Any, name: str | None = None) -> Output:
        return _build(op_type, [x], name=name)

    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"{doc} (op ``{op_type}``).\n\n"
        "Args:\n"
        "    x: A tensor or literal.\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    A tensor of x's shape and dtype.\n"
    )
    return fn


add = _binary_fn("AddV2", "add", "x + y, elementwise with broadcasting", "Add")
subtract = _binary_fn("Sub", "subtract", "x - y, elementwise with broadcasting")
multiply = _binary_fn("Mul", "multiply", "x * y, elementwise with broadcasting")
realdiv = _binary_fn("RealDiv", "realdiv", "x / y for real (floating) types")
floordiv = _binary_fn("FloorDiv", "floordiv", "floor(x / y), elementwise", "floordiv")
floor_div = _binary_fn("FloorDiv", "floor_div", "floor(x / y), elementwise")
floormod = _binary_fn("FloorMod", "floormod", "x mod y with the divisor's sign")
mod = _binary_fn("FloorMod", "mod", "x mod y with the divisor's sign")
pow = _binary_fn("Pow", "pow", "x ** y, elementwise")  # noqa: A001  (tf.pow)
maximum = _binary_fn("Maximum", "maximum", "max(x, y), elementwise")
minimum = _binary_fn("Minimum", "minimum", "min(x, y), elementwise")
less = _binary_fn("Less", "less", "x < y, elementwise (bool)")
less_equal = _binary_fn("LessEqual", "less_equal", "x <= y, elementwise (bool)")
greater = _binary_fn("Greater", "greater", "x > y, elementwise (bool)")
greater_equal = _binary_fn("GreaterEqual", "greater_equal", "x >= y, elementwise (bool)")
equal = _binary_fn("Equal", "equal", "x == y, elementwise (bool)")
not_equal = _binary_fn("NotEqual", "not_equal", "x != y, elementwise (bool)")
logical_and = _binary_fn("LogicalAnd", "logical_and", "x AND y for bool tensors")
logical_or = _binary_fn("LogicalOr", "logical_or", "x OR y for bool tensors")

negative = _unary_fn("Neg", "negative", "-x")
abs = _unary_fn("Abs", "abs", "|x|")  # noqa: A001  (tf.abs)
sign = _unary_fn("Sign", "sign", "The sign of x (-1, 0, 1)")
square = _unary_fn("Square", "square", "x * x")
sqrt = _unary_fn("Sqrt", "sqrt", "Square root (NaN below 0)")
rsqrt = _unary_fn("Rsqrt", "rsqrt", "1 / sqrt(x)")
exp = _unary_fn("Exp", "exp", "e ** x")
log = _unary_fn("Log", "log", "Natural logarithm (-inf at 0, NaN below)")
log1p = _unary_fn("Log1p", "log1p", "log(1 + x)")
sin = _unary_fn("Sin", "sin", "Sine")
cos = _unary_fn("Cos", "cos", "Cosine")
tanh = _unary_fn("Tanh", "tanh", "Hyperbolic tangent")
sigmoid = _unary_fn("Sigmoid", "sigmoid", "1 / (1 + exp(-x))")
logical_not = _unary_fn("LogicalNot", "logical_not", "NOT x for bool tensors")


def logical_xor(x: Any, y: Any, name: str | None = None) -> Output:
    """x XOR y for bool tensors, built as TensorFlow builds it: (x OR y) AND NOT (x AND y).

    Args:
        x: A bool tensor.
        y: A bool tensor.
        name: Optional name of the final LogicalAnd.

    Returns:
        A bool tensor.
    """
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)),
                       name=name or "LogicalXor")


def add_n(inputs: Sequence[Any], name: str | None = None) -> Output:
    """Sums a list of tensors of one dtype and shape (``tf.math.add_n``).

    Args:
        inputs: A non-empty list of tensors of the same shape and dtype.
        name: Optional op name.

    Returns:
        The elementwise sum. A single input is returned itself (no op), as TensorFlow does
        when no name is given.

    Raises:
        ValueError: ``inputs`` is empty or not a list.
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same "
            "dtype and shape."
        )
    if len(inputs) == 1 and name is None:
        return _tensor(inputs[0])
    if len(inputs) == 1:
        return build_op(current_scope(), "Identity", [inputs[0]], name=name).outputs[0]
    return _build("AddN", [list(inputs)], name=name)


def _truediv_cast(dt: DType) -> DType | None:
    # tf.math.truediv: narrow ints divide in float32, int32/int64 in float64.
    if dt in (dtypes.int8, dtypes.int16, dtypes.uint8):
        return dtypes.float32
    if dt in (dtypes.int32, dtypes.int64):
        return dtypes.float64
    return None


def truediv(x: Any, y: Any, name: str | None = None) -> Output:
    """x / y with Python 3 semantics (``tf.math.truediv``): integers are divided as floats.

    int8, int16 and uint8 are cast to float32, int32 and int64 to float64, then ``RealDiv``.

    Args:
        x: A numeric tensor or literal.
        y: A tensor or literal; a literal takes x's dtype.
        name: Optional name of the RealDiv op.

    Returns:
        A floating tensor.

    Raises:
        TypeError: x and y have different dtypes.
    """
    x, y = _tensor_pair(x, y)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    target = _truediv_cast(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return _build("RealDiv", [x, y], name=name or "truediv")


def divide(x: Any, y: Any, name: str | None = None) -> Output:
    """x / y (``tf.math.divide``): :func:`truediv`, so integers give floats.

    Args:
        x: A numeric tensor or literal.
        y: A tensor or literal.
        name: Optional op name.

    Returns:
        A floating tensor.
    """
    return truediv(x, y, name=name)


def div(x: Any, y: Any, name: str | None = None) -> Output:
    """TF1 ``tf.div``: Python 2 division, ``RealDiv`` for floats and ``FloorDiv`` for integers.

    Args:
        x: A numeric tensor or literal.
        y: A tensor or literal; a literal takes x's dtype.
        name: Optional op name.

    Returns:
        A tensor of x's dtype.

    Raises:
        ValueError: y is a tensor of another dtype.
        TypeError: y is a literal that x's dtype cannot hold.
    """
    x = _tensor(x)
    # As TensorFlow: y is converted with x's dtype, which refuses a tensor of another dtype.
    y = convert_to_tensor(y, dtype=x.dtype)
    return _build("RealDiv" if x.dtype.is_floating else "FloorDiv", [x, y], name=name or "div")


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Output:
    """Multiplies a tensor by a scalar (``tf.math.scalar_mul``).

    Args:
        scalar: A rank-0 value; a literal takes x's dtype.
        x: A tensor.
        name: Optional op name.

    Returns:
        ``scalar * x``.

    Raises:
        ValueError: ``scalar`` is not rank 0.
    """
    x = _tensor(x)
    s = _tensor(scalar, x.dtype)
    if s.shape.rank not in (0, None):
        raise ValueError(
            f"The input scalar must be a 0-D value. Received shape {tuple(s.shape.dims)}."
        )
    return _build("Mul", [s, x], name=name)


def _select(op_type: str, condition: Any, x: Any, y: Any, name: str | None) -> Output:
    # Without x and y, tf.where is the coordinates of true elements (the array family's Where).
    if x is None and y is None:
        return _build("Where", [condition], name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _build(op_type, [condition, x, y], name=name)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Output:
    """TF1 ``tf.where``: ``Select`` (a vector condition picks rows of x and y).

    With neither x nor y it returns the coordinates of true elements (op ``Where``,
    which the array family provides).

    Args:
        condition: A bool tensor: a scalar, a vector over x's first dimension, or x's shape.
        x: Values where condition is true.
        y: Values where condition is false (same shape and dtype as x).
        name: Optional op name.

    Returns:
        A tensor of x's shape and dtype.

    Raises:
        ValueError: only one of x and y is given, or the shapes do not fit.
    """
    return _select("Select", condition, x, y, name)


def where_v2(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Output:
    """``tf.where`` of TensorFlow 2: ``SelectV2``, condition, x and y broadcast together.

    Args:
        condition: A bool tensor.
        x: Values where condition is true.
        y: Values where condition is false.
        name: Optional op name.

    Returns:
        A tensor of the broadcast shape.

    Raises:
        ValueError: only one of x and y is given, or the shapes do not broadcast.
    """
    return _select("SelectV2", condition, x, y, name)


def cast(x: Any, dtype: Any, name: str | None = None) -> Output:
    """Casts a tensor to ``dtype`` (``tf.cast``); a tensor already of that dtype is returned.

    Floats truncate toward zero into integers; NaN and out-of-range values become the most
    negative integer, as on TensorFlow's CPU.

    Args:
        x: A tensor or literal (a literal keeps its default dtype, then is cast).
        dtype: The target dtype.
        name: Optional op name.

    Returns:
        A tensor of x's shape and ``dtype``.
    """
    base = as_dtype(dtype)
    if is_symbolic(x):
        x = _tensor(x)
        if x.dtype == base:
            return x
    return _build("Cast", [x], {"DstT": base}, name=name)


def _cast_fn(dtype: DType, public_name: str, default_name: str):
    def fn(x: Any, name: str = default_name) -> Output:
        return cast(x, dtype, name=name)

    article = "An" if dtype.name[0] in "aeiou" else "A"
    fn.__name__ = fn.__qualname__ = public_name
    fn.__doc__ = (
        f"Casts to {dtype.name} (TF1 ``tf.{public_name}``).\n\n"
        "Args:\n"
        "    x: A tensor.\n"
        "    name: Op name.\n\n"
        "Returns:\n"
        f"    {article} {dtype.name} tensor.\n"
    )
    return fn


to_float = _cast_fn(dtypes.float32, "to_float", "ToFloat")
to_int32 = _cast_fn(dtypes.int32, "to_int32", "ToInt32")
to_int64 = _cast_fn(dtypes.int64, "to_int64", "ToInt64")


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> Output:
    """Matrix product (``tf.linalg.matmul``).

    Rank-2 operands give a ``MatMul``; when either operand has a higher or unknown rank the
    product is a ``BatchMatMulV2`` whose batch dimensions broadcast. For real types the
    adjoint is the transpose.

    Args:
        a: A tensor of rank >= 2.
        b: A tensor of a's dtype (a literal takes a's dtype).
        transpose_a: Transpose a's last two dimensions first.
        transpose_b: Transpose b's last two dimensions first.
        adjoint_a: Same as transpose_a for real types.
        adjoint_b: Same as transpose_b for real types.
        a_is_sparse: Ignored (a hint in TensorFlow).
        b_is_sparse: Ignored.
        name: Optional op name.

    Returns:
        The product tensor.

    Raises:
        ValueError: both transpose and adjoint are set for one operand, or the inner
            dimensions differ ("Dimensions must be equal, but are 3 and 4").
        TypeError: a and b have different dtypes.
    """
    del a_is_sparse, b_is_sparse  # hints for TensorFlow's sparse kernels; dense here
    if transpose_a and adjoint_a:
        raise ValueError(
            "Only one of `transpose_a` and `adjoint_a` can be True. Received "
            f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}."
        )
    if transpose_b and adjoint_b:
        raise ValueError(
            "Only one of `transpose_b` and `adjoint_b` can be True. Received "
            f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}."
        )
    a, b = _tensor_pair(a, b)
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None or ra > 2 or rb > 2:
        return _build("BatchMatMulV2", [a, b], {"adj_x": ta, "adj_y": tb},
                      name=name or "MatMul")
    return _build("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, name=name)


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
    rank = _build("Rank", [x])
    return _build("Range", [np.int32(0), rank, np.int32(1)])


def _reduce(op_type: str, public_name: str, doc: str):
    def fn(input_tensor: Any, axis: Any = None, keepdims: bool | None = None,
           name: str | None = None, reduction_indices: Any = None,
           keep_dims: bool | None = None) -> Output:
        axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
        keepdims = _pick(keepdims, keep_dims, "keepdims", "keep_dims")
        x = _tensor(input_tensor)
        if axis is None:
            axis = _all_axes(x)
        return _build(op_type, [x, axis], {"keep_dims": bool(keepdims)}, name=name)

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
        return _build(op_type, [input, axis], {"output_type": as_dtype(output_type)}, name=name)

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


# ----------------------------------------------------------------------------------------
# Python operators on Outputs (x + y, -x, x @ y, x < y, ...)


def _add_dispatch(x: Any, y: Any, name: str | None = None) -> Output:
    # TensorFlow's __add__: strings concatenate with Add, everything else is AddV2.
    xs = x if isinstance(x, Output) else y
    return _build("Add" if xs.dtype == dtypes.string else "AddV2", [x, y], name=name)


def _operator(fn: Callable, name: str, reflected: bool = False) -> Callable:
    # TensorFlow names the op after the operator ("add", "truediv"); the builder uniquifies.
    if reflected:
        return lambda self, other: fn(other, self, name=name)
    return lambda self, other: fn(self, other, name=name)


_BINARY_OPERATORS = {
    "add": _add_dispatch,
    "sub": subtract,
    "mul": multiply,
    "truediv": truediv,
    "floordiv": floordiv,
    "mod": floormod,
    "pow": pow,
    "matmul": matmul,
    "and": logical_and,
    "or": logical_or,
    "xor": logical_xor,
}
for _name, _fn in _BINARY_OPERATORS.items():
    register_operator_override(f"__{_name}__", _operator(_fn, _name))
    register_operator_override(f"__r{_name}__", _operator(_fn, _name, reflected=True))
for _name, _fn in {"lt": less, "le": less_equal, "gt": greater, "ge": greater_equal}.items():
    register_operator_override(f"__{_name}__", _operator(_fn, None))
register_operator_override("__neg__", lambda x: negative(x))
register_operator_override("__abs__", lambda x: abs(x))
register_operator_override("__invert__", lambda x: logical_not(x))
del _name, _fn


__all__ = [
    "abs",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "cast",
    "cos",
    "div",
    "divide",
    "equal",
    "exp",
    "floor_div",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "realdiv",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "rsqrt",
    "scalar_mul",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "to_float",
    "to_int32",
    "to_int64",
    "truediv",
    "where",
    "where_v2",
]
