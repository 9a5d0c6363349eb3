"""Elementwise math ops: arithmetic, comparisons, logical ops and AddN.

Elementwise ops come from two small factories (:func:`unary_op`,
:func:`binary_op`) so each reads as one line: type string, NumPy function,
allowed types. The kernels are the NumPy ufuncs themselves where NumPy's
semantics equal TensorFlow's, which keeps the interpreter overhead per op low.
The allowed-type lists here (``NUMERIC_TYPES``, ...) are the math family's.

Each op reads the same: its registration (OpDef, with the shape function),
then its NumPy kernel, greppable by the op's type string; the TF1-style
functions (``add``, ``truediv``, ``add_n``, ...) follow. They are re-exported by
``tfmini.ops.math.operators``, the family's front module, which also installs the
operator overloads (``x + y``, ``-x``, ``x < y``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_output, operand_pair
from tfmini.ops.common.kernel_util import invalid_argument, no_kernel
from tfmini.ops.common.type_lists import (
    FLOAT_COMPLEX_TYPES,
    NUMBER_TYPES,
    NUMERIC_TYPES,
    REAL_TYPES,
    SIGNED_COMPLEX_TYPES,
    SIGNED_TYPES,
)
from tfmini.ops.math.cast_ops import cast

# TensorFlow's allowed-type lists, in TensorFlow's spelling, cut to the dtypes tfmini has.


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


def _check_divisor(x, y) -> None:
    # An empty result divides nothing, so TensorFlow's kernel has nothing to refuse: the
    # gradient of reduce_sum over a scalar computes ``range(0) % 0`` this way.
    if not np.all(y) and np.size(x) and np.size(y):
        raise invalid_argument("Integer division by zero")


def _real_div(x, y, *, node):
    if _is_int(x):
        raise no_kernel(node)
    return np.true_divide(x, y)


def _div(x, y):
    """TF's ``Div``: true division for floats, C-style (truncating) division for integers."""
    if not _is_int(x):
        return np.true_divide(x, y)
    _check_divisor(x, y)
    q = np.floor_divide(x, y)  # INT_MIN / -1 wraps, as in C
    if x.dtype.kind == "u":
        return q
    # Floor and truncation differ when the signs differ and the division is inexact.
    inexact = np.not_equal(np.multiply(q, y), x)
    return np.add(q, inexact & np.less(np.bitwise_xor(x, y), 0), dtype=q.dtype)


def _floor_div(x, y, *, node):
    """TF's ``FloorDiv``: ``floor(x / y)`` for floats (not NumPy's fmod-based ``//``)."""
    if x.dtype.kind == "c":  # in the OpDef, but TensorFlow has no CPU kernel for it
        raise no_kernel(node)
    if _is_int(x):
        _check_divisor(x, y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


def _floor_mod(x, y):
    """TF's ``FloorMod``: the result takes the divisor's sign (Python's ``%``)."""
    if _is_int(x):
        _check_divisor(x, y)
    return np.remainder(x, y)


def _pow(x, y):
    if _is_int(x) and np.any(np.less(y, 0)):
        raise invalid_argument("Integers to negative integer powers are not allowed")
    return np.power(x, y)


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _sign(x):
    """-1, 0 or 1 for real x; x / |x| (0 at 0) for complex x, as TensorFlow's Sign."""
    if x.dtype.kind != "c":
        return np.sign(x)
    mag = np.abs(x)
    return np.divide(x, mag, out=np.zeros_like(x), where=mag != 0)


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


binary_op("Add", _add, f"{NUMBER_TYPES}, string", doc="x + y (strings concatenate).")
binary_op("AddV2", np.add, NUMBER_TYPES, doc="x + y, elementwise with broadcasting.")
binary_op("Sub", np.subtract, NUMBER_TYPES, doc="x - y, elementwise with broadcasting.")
binary_op("Mul", np.multiply, NUMBER_TYPES, doc="x * y, elementwise with broadcasting.")
binary_op("RealDiv", _real_div, NUMBER_TYPES, doc="x / y for real types.")
binary_op("Div", _div, NUMBER_TYPES, doc="x / y; integers divide truncating toward zero.")
binary_op("FloorDiv", _floor_div, NUMBER_TYPES, doc="floor(x / y).")
binary_op("FloorMod", _floor_mod, REAL_TYPES, doc="x - floor(x / y) * y (sign of y).")
binary_op("Pow", _pow, SIGNED_COMPLEX_TYPES, doc="x ** y.")
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

unary_op("Neg", np.negative, SIGNED_COMPLEX_TYPES, doc="-x.")
unary_op("Abs", np.absolute, SIGNED_TYPES, doc="|x|.")
unary_op("Sign", _sign, SIGNED_COMPLEX_TYPES, doc="-1, 0 or 1 by the sign of x (NaN stays NaN).")
unary_op("Square", np.square, NUMBER_TYPES, doc="x * x.")
unary_op("Sqrt", np.sqrt, FLOAT_COMPLEX_TYPES, doc="sqrt(x); NaN for x < 0.")
unary_op("Rsqrt", _rsqrt, FLOAT_COMPLEX_TYPES, doc="1 / sqrt(x).")
unary_op("Exp", np.exp, FLOAT_COMPLEX_TYPES, doc="e ** x.")
unary_op("Log", np.log, FLOAT_COMPLEX_TYPES, doc="Natural logarithm; -inf at 0, NaN below.")
unary_op("Log1p", np.log1p, FLOAT_COMPLEX_TYPES, doc="log(1 + x).")
unary_op("Sin", np.sin, FLOAT_COMPLEX_TYPES, doc="sin(x).")
unary_op("Cos", np.cos, FLOAT_COMPLEX_TYPES, doc="cos(x).")
unary_op("Tanh", np.tanh, FLOAT_COMPLEX_TYPES, doc="tanh(x).")
unary_op("Sigmoid", _sigmoid, FLOAT_COMPLEX_TYPES, doc="1 / (1 + exp(-x)).")


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
    attrs=["N: int >= 1", f"T: {{{NUMBER_TYPES}}}"],
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
# TF1-style functions


def _binary_fn(op_type: str, public_name: str, doc: str, default_name: str | None = None):
    # default_name: the name TensorFlow's Python function gives the op (tf.add -> "Add").
    def fn(x: Any, y: Any, name: str | None = None) -> Output:
        return build_output(op_type, [x, y], name=name or default_name)

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
        return build_output(op_type, [x], name=name)

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


def abs(x: Any, name: str | None = None) -> Output:  # noqa: A001  (tf.abs)
    """|x| (op ``Abs``); for a complex x, ``ComplexAbs`` of the real type, as TensorFlow.

    Args:
        x: A tensor or literal.
        name: Optional op name.

    Returns:
        A tensor of x's shape; of x's dtype, or its real type for complex x.
    """
    x = as_operand(x)
    if x.dtype.is_complex:
        return build_output("ComplexAbs", [x], {"Tout": x.dtype.real_dtype}, name=name or "Abs")
    return build_output("Abs", [x], name=name)




def sign(x: Any, name: str | None = None) -> Output:
    """The sign of x: -1, 0 or 1 (op ``Sign``); for complex x, ``x / |x|`` (0 at 0).

    As TensorFlow's ``tf.math.sign``, a complex x is built as
    ``div_no_nan(x, cast(complex_abs(x), x.dtype))`` so that it has a gradient.

    Args:
        x: A tensor or literal.
        name: Optional op name.

    Returns:
        A tensor of x's shape and dtype.
    """
    x = as_operand(x)
    if x.dtype.is_complex:
        mag = build_output("ComplexAbs", [x], {"Tout": x.dtype.real_dtype})
        return build_output("DivNoNan", [x, cast(mag, x.dtype)], name=name)
    return build_output("Sign", [x], name=name)


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
        return as_operand(inputs[0])
    if len(inputs) == 1:
        return build_op(current_scope(), "Identity", [inputs[0]], name=name).outputs[0]
    return build_output("AddN", [list(inputs)], name=name)


def accumulate_n(inputs: Sequence[Any], shape: Any = None, tensor_dtype: Any = None,
                 name: str | None = None) -> Output:
    """Sums a list of tensors of one dtype and shape (``tf.math.accumulate_n``); TensorFlow 2
    builds it as :func:`add_n` after checking the inputs.

    Args:
        inputs: A non-empty list of tensors of one dtype and compatible shapes.
        shape: Optional expected shape of each input.
        tensor_dtype: Optional expected dtype of the inputs.
        name: Optional op name.

    Returns:
        The elementwise sum.

    Raises:
        ValueError: ``inputs`` is empty, not a list, mixes dtypes, or shapes do not merge.
        TypeError: ``tensor_dtype`` differs from the inputs' dtype.
    """
    message = "inputs must be a list of at least one Tensor with the same dtype and shape"
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(message)
    inputs = [as_operand(x) for x in inputs]
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise ValueError(message)
    merged = TensorShape(None) if shape is None else TensorShape(shape)
    for x in inputs:
        merged = shape_fns.merge_shapes(merged, x.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {dtypes.as_dtype(tensor_dtype)!r}, but `input` is "
            f"of type {inputs[0].dtype!r}. These must be equal. Try casting the input to the "
            "desired type.")
    return add_n(inputs, name=name)


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
    x, y = operand_pair(x, y)
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    target = _truediv_cast(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return build_output("RealDiv", [x, y], name=name or "truediv")


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
    x = as_operand(x)
    # As TensorFlow: y is converted with x's dtype, which refuses a tensor of another dtype.
    y = convert_to_tensor(y, dtype=x.dtype)
    return build_output("RealDiv" if x.dtype.is_floating else "FloorDiv", [x, y],
                        name=name or "div")


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
    x = as_operand(x)
    s = as_operand(scalar, x.dtype)
    if s.shape.rank not in (0, None):
        raise ValueError(
            f"The input scalar must be a 0-D value. Received shape {tuple(s.shape.dims)}."
        )
    return build_output("Mul", [s, x], name=name)


__all__ = [
    "abs",
    "accumulate_n",
    "add",
    "add_n",
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
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "realdiv",
    "rsqrt",
    "scalar_mul",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "truediv",
]
