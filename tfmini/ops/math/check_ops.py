"""The check family: ``tm.assert_equal`` ... ``tm.assert_scalar`` (``tf.compat.v1`` and
``tf.compat.v1.debugging``), built as ``tensorflow/python/ops/check_ops.py`` builds them in
graph mode.

* A comparison (``assert_equal``, ``assert_less``, ...) whose inputs both have values known
  while building is decided then: a failure raises ``InvalidArgumentError`` at the caller's
  line with the message data joined by newlines (constant values as NumPy prints them). The
  ``Assert`` op is built either way, so a passing check still returns it.
* Otherwise the check is an ``Assert`` op with TensorFlow's message data
  (``"Condition x < y did not hold element-wise:"``, ``"x (<name>) = "``, x, ...), failing
  the run with ``InvalidArgumentError``.
* Rank, dtype and scalar checks decided by static shapes and dtypes raise ``ValueError`` /
  ``TypeError`` while building, and return a ``NoOp`` when they pass.

TensorFlow guards an ``Assert`` whose data holds other dtypes than int32 and string with a
``cond`` (``AssertGuard``); tfmini always builds the plain ``Assert`` (same message, same
error). See docs/checks.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core import dtypes
from tfmini.core.builder import static_value
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.scope import control_dependencies, name_scope
from tfmini.ops import array, control_flow
from tfmini.ops.common.sparse_tensor import SparseTensor
from tfmini.ops.math import elementwise as math_ops  # this family's parts, not its front
from tfmini.ops.math.reduction import reduce_all

__all__ = [
    "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer", "assert_less",
    "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
    "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable",
    "assert_rank", "assert_rank_at_least", "assert_rank_in", "assert_scalar", "assert_type",
]


def _message_prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _tf_str(t: Any) -> str:
    # How TensorFlow's Python prints a graph tensor; its messages embed that text.
    if isinstance(t, Output):
        return f'Tensor("{t.name}", shape={t.shape}, dtype={t.dtype.name})'
    return str(t)


def _tf_dtype_repr(dtype: dtypes.DType) -> str:
    return f"tf.{dtype.name}"


def _assert_static(condition: bool, data: list) -> None:
    """A check decided while building: raise with the data, constants shown as values."""
    if not condition:
        shown = []
        for d in data:
            v = static_value(d) if isinstance(d, Output) else None
            shown.append(str(v) if v is not None else _tf_str(d))
        raise errors.InvalidArgumentError(None, None, "\n".join(shown))


# ------------------------------------------------------------------------------------------
# Element-wise comparisons


def _binary_assert(sym: str, opname: str, op_func: Callable, static_func: Callable, x: Any,
                   y: Any, data: list | None, summarize: int | None, message: str | None,
                   name: str | None) -> Operation:
    with name_scope(name, opname):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message, *data]
        condition = reduce_all(op_func(x, y))
        x_static, y_static = static_value(x), static_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return control_flow.Assert(condition, data, summarize=summarize)


def assert_equal(x: Any, y: Any, data: list | None = None, summarize: int | None = None,
                 message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x == y`` element-wise (``tf.compat.v1.assert_equal``).

    Args:
        x: A numeric tensor.
        y: A tensor of ``x``'s dtype, broadcastable with it.
        data: Tensors to show on failure (default: the condition, ``x`` and ``y``).
        summarize: How many entries of each tensor to show.
        message: A string prefixed to the failure message.
        name: Name scope (default ``assert_equal``).

    Returns:
        The ``Assert`` op (a ``NoOp`` when ``x`` is ``y``); use it as a control dependency.

    Raises:
        InvalidArgumentError: both values are known while building and differ.
    """
    with name_scope(name, "assert_equal"):
        if x is y:
            return array.no_op()
    return _binary_assert("==", "assert_equal", math_ops.equal, np.equal, x, y, data,
                          summarize, message, name)


def assert_none_equal(x: Any, y: Any, data: list | None = None, summarize: int | None = None,
                      message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x != y`` element-wise (``tf.compat.v1.assert_none_equal``); see
    :func:`assert_equal` for the arguments."""
    return _binary_assert("!=", "assert_none_equal", math_ops.not_equal, np.not_equal, x, y,
                          data, summarize, message, name)


def assert_less(x: Any, y: Any, data: list | None = None, summarize: int | None = None,
                message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x < y`` element-wise (``tf.compat.v1.assert_less``); see
    :func:`assert_equal` for the arguments."""
    return _binary_assert("<", "assert_less", math_ops.less, np.less, x, y, data, summarize,
                          message, name)


def assert_less_equal(x: Any, y: Any, data: list | None = None, summarize: int | None = None,
                      message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x <= y`` element-wise (``tf.compat.v1.assert_less_equal``); see
    :func:`assert_equal` for the arguments."""
    return _binary_assert("<=", "assert_less_equal", math_ops.less_equal, np.less_equal, x, y,
                          data, summarize, message, name)


def assert_greater(x: Any, y: Any, data: list | None = None, summarize: int | None = None,
                   message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x > y`` element-wise (``tf.compat.v1.assert_greater``); see
    :func:`assert_equal` for the arguments."""
    return _binary_assert(">", "assert_greater", math_ops.greater, np.greater, x, y, data,
                          summarize, message, name)


def assert_greater_equal(x: Any, y: Any, data: list | None = None,
                         summarize: int | None = None, message: str | None = None,
                         name: str | None = None) -> Operation:
    """Asserts ``x >= y`` element-wise (``tf.compat.v1.assert_greater_equal``); see
    :func:`assert_equal` for the arguments."""
    return _binary_assert(">=", "assert_greater_equal", math_ops.greater_equal,
                          np.greater_equal, x, y, data, summarize, message, name)


def _sign_assert(opname: str, condition_text: str, compare: Callable, x: Any,
                 data: list | None, summarize: int | None, message: str | None,
                 name: str | None) -> Operation:
    message = _message_prefix(message)
    with name_scope(name, opname):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, *condition_text(x.name), x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return compare(x, zero, data=data, summarize=summarize)


def assert_positive(x: Any, data: list | None = None, summarize: int | None = None,
                    message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x > 0`` element-wise (``tf.compat.v1.assert_positive``), as
    ``assert_less(0, x)``; see :func:`assert_equal` for the arguments."""
    return _sign_assert(
        "assert_positive",
        lambda n: ["Condition x > 0 did not hold element-wise:", f"x ({n}) = "],
        lambda x, zero, **kw: assert_less(zero, x, **kw), x, data, summarize, message, name)


def assert_negative(x: Any, data: list | None = None, summarize: int | None = None,
                    message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x < 0`` element-wise (``tf.compat.v1.assert_negative``), as
    ``assert_less(x, 0)``; see :func:`assert_equal` for the arguments."""
    return _sign_assert(
        "assert_negative",
        lambda n: ["Condition x < 0 did not hold element-wise:", f"x ({n}) = "],
        assert_less, x, data, summarize, message, name)


def assert_non_negative(x: Any, data: list | None = None, summarize: int | None = None,
                        message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x >= 0`` element-wise (``tf.compat.v1.assert_non_negative``), as
    ``assert_less_equal(0, x)``; see :func:`assert_equal` for the arguments."""
    return _sign_assert(
        "assert_non_negative",
        lambda n: ["Condition x >= 0 did not hold element-wise:", f"x ({n}) = "],
        lambda x, zero, **kw: assert_less_equal(zero, x, **kw), x, data, summarize, message,
        name)


def assert_non_positive(x: Any, data: list | None = None, summarize: int | None = None,
                        message: str | None = None, name: str | None = None) -> Operation:
    """Asserts ``x <= 0`` element-wise (``tf.compat.v1.assert_non_positive``), as
    ``assert_less_equal(x, 0)``; see :func:`assert_equal` for the arguments.

    TensorFlow's data joins the condition and the ``x (...) =`` label into one string
    (a missing comma in check_ops.py); tfmini's message keeps that text.
    """
    return _sign_assert(
        "assert_non_positive",
        lambda n: [f"Condition x <= 0 did not hold element-wise:x ({n}) = "],
        assert_less_equal, x, data, summarize, message, name)


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, data: list | None = None,
                summarize: int | None = None, message: str | None = None,
                name: str | None = None) -> Operation:
    """Asserts ``|x - y| < atol + rtol * |y|`` element-wise (``tf.compat.v1.assert_near``).

    Always a run-time check (TensorFlow decides nothing while building here).

    Args:
        x: A float tensor.
        y: A tensor converted to ``x``'s dtype.
        rtol: Relative tolerance (default 10 eps of the dtype).
        atol: Absolute tolerance (default 10 eps of the dtype).
        data: Tensors to show on failure.
        summarize: How many entries of each tensor to show.
        message: A string prefixed to the failure message.
        name: Name scope (default ``assert_near``).

    Returns:
        The ``Assert`` op.
    """
    message = _message_prefix(message)
    with name_scope(name, "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        # Complex inputs compare magnitudes against tolerances of their real type (complex
        # dtypes come with the sparse branch; getattr keeps this module working before).
        dtype = getattr(x.dtype, "real_dtype", x.dtype)
        eps = np.finfo(dtype.np_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message,
                    f"x and y not equal to tolerance rtol = {_tf_str(rtol)}, "
                    f"atol = {_tf_str(atol)}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = reduce_all(math_ops.less(diff, tol))
        return control_flow.Assert(condition, data, summarize=summarize)


# ------------------------------------------------------------------------------------------
# Ranks


class _StaticRankFailed(Exception):
    def __init__(self, actual: int, given: Any):
        super().__init__(actual, given)
        self.actual, self.given = actual, given


def _with_dependencies(deps: list, output: Output) -> Output:
    with control_dependencies(deps):
        return array.identity(output)


def _assert_ranks_condition(x: Any, ranks: tuple, static_condition: Callable,
                            dynamic_condition: Callable, data: list,
                            summarize: int | None) -> Operation:
    for rank in ranks:
        assert_type(rank, dtypes.int32)
    ranks_static = tuple(static_value(r) for r in ranks)
    if not any(r is None for r in ranks_static):
        for r in ranks_static:
            if np.ndim(r) != 0:
                raise ValueError("Rank must be a scalar.")
        x_rank = x.shape.rank
        if x_rank is not None:
            given = tuple(int(r) for r in ranks_static)
            if not static_condition(x_rank, given):
                raise _StaticRankFailed(x_rank, given)
            return array.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array.rank(x), ranks)
    for rank, r_static in zip(ranks, ranks_static):
        if r_static is None:
            rank_check = assert_rank(rank, 0,
                                     data=["Rank must be a scalar. Received rank: ", rank])
            condition = _with_dependencies([rank_check], condition)
    return control_flow.Assert(condition, data, summarize=summarize)


def _x_name(x: Any) -> str:
    return "" if isinstance(x, SparseTensor) else x.name


def assert_rank(x: Any, rank: Any, data: list | None = None, summarize: int | None = None,
                message: str | None = None, name: str | None = None) -> Operation:
    """Asserts that ``x`` has rank ``rank`` (``tf.compat.v1.assert_rank``).

    Args:
        x: A tensor (or SparseTensor).
        rank: An int32 scalar.
        data: Tensors to show on failure (default: the rank and ``x``'s shape).
        summarize: How many entries of each tensor to show.
        message: A string prefixed to the failure message.
        name: Name scope (default ``assert_rank``).

    Returns:
        A ``NoOp`` when the static rank decides the check, else the ``Assert`` op.

    Raises:
        ValueError: the static rank is wrong, or ``rank`` is not a scalar.
        TypeError: ``rank`` is not int32.
    """
    with name_scope(name, "assert_rank"):
        if not isinstance(x, SparseTensor):
            x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {_x_name(x)} must have rank", rank, "Received shape: ",
                    array.shape(x)]
        try:
            return _assert_ranks_condition(x, (rank,),
                                           lambda actual, given: actual == given[0],
                                           lambda actual, given: math_ops.equal(actual,
                                                                                given[0]),
                                           data, summarize)
        except _StaticRankFailed as e:
            raise ValueError(f"{message}Tensor {_x_name(x)} must have rank {e.given[0]}.  "
                             f"Received rank {e.actual}, shape {x.shape}") from None


def assert_rank_at_least(x: Any, rank: Any, data: list | None = None,
                         summarize: int | None = None, message: str | None = None,
                         name: str | None = None) -> Operation:
    """Asserts that ``x`` has rank ``rank`` or more (``tf.compat.v1.assert_rank_at_least``);
    see :func:`assert_rank` for the arguments."""
    with name_scope(name, "assert_rank_at_least"):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have rank at least", rank,
                    "Received shape: ", array.shape(x)]
        try:
            return _assert_ranks_condition(
                x, (rank,), lambda actual, given: actual >= given[0],
                lambda actual, given: math_ops.greater_equal(actual, given[0]), data,
                summarize)
        except _StaticRankFailed as e:
            raise ValueError(f"{message}Tensor {x.name} must have rank at least {e.given[0]}."
                             f"  Received rank {e.actual}, shape {x.shape}") from None


def _dynamic_rank_in(actual: Output, given: tuple) -> Output:
    if not given:
        return convert_to_tensor(False)
    result = math_ops.equal(given[0], actual)
    for r in given[1:]:
        result = math_ops.logical_or(result, math_ops.equal(r, actual))
    return result


def assert_rank_in(x: Any, ranks: Any, data: list | None = None, summarize: int | None = None,
                   message: str | None = None, name: str | None = None) -> Operation:
    """Asserts that the rank of ``x`` is one of ``ranks`` (``tf.compat.v1.assert_rank_in``);
    see :func:`assert_rank` for the arguments (``ranks``: int32 scalars)."""
    with name_scope(name, "assert_rank_in"):
        if not isinstance(x, SparseTensor):
            x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(r, name="rank") for r in ranks)
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {_x_name(x)} must have rank in", *ranks,
                    "Received shape: ", array.shape(x)]
        try:
            return _assert_ranks_condition(x, ranks, lambda actual, given: actual in given,
                                           _dynamic_rank_in, data, summarize)
        except _StaticRankFailed as e:
            raise ValueError(f"{message}Tensor {_x_name(x)} must have rank in {e.given}.  "
                             f"Received rank {e.actual}, shape {x.shape}") from None


# ------------------------------------------------------------------------------------------
# Checks decided by dtypes and static shapes


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> Operation:
    """Asserts that ``x`` has an integer dtype (``tf.compat.v1.assert_integer``).

    Returns:
        A ``NoOp`` named ``statically_determined_was_integer``.

    Raises:
        TypeError: ``x`` is not of an integer dtype.
    """
    with name_scope(name, "assert_integer"):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  '
                            f"Found: {x.name} of dtype {x.dtype}")
        return array.no_op("statically_determined_was_integer")


def assert_type(tensor: Any, tf_type: Any, message: str | None = None,
                name: str | None = None) -> Operation:
    """Asserts that ``tensor`` has dtype ``tf_type`` (``tf.compat.v1.assert_type``).

    Returns:
        A ``NoOp`` named ``statically_determined_correct_type``.

    Raises:
        TypeError: the dtypes differ.
    """
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type"):
        if not isinstance(tensor, SparseTensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{_message_prefix(message)}{getattr(tensor, 'name', 'tensor')} "
                            f"must be of type {_tf_dtype_repr(tf_type)}; got "
                            f"{_tf_dtype_repr(tensor.dtype)}")
        return array.no_op("statically_determined_correct_type")


def assert_scalar(tensor: Any, name: str | None = None, message: str | None = None) -> Output:
    """Asserts that ``tensor``'s static shape is a scalar (``tf.compat.v1.assert_scalar``).

    Returns:
        ``tensor`` itself (converted).

    Raises:
        ValueError: its static rank is not 0 (an unknown rank fails too, as in TensorFlow).
    """
    with name_scope(name, "assert_scalar"):
        tensor = convert_to_tensor(tensor)
        if tensor.shape.rank != 0:
            raise ValueError(f"{_message_prefix(message)}Expected scalar shape for "
                             f"{tensor.name}, saw shape: {tensor.shape}.")
        return tensor


def assert_proper_iterable(values: Any) -> None:
    """Raises TypeError unless ``values`` is an iterable that is not a tensor, an array or
    a string (``tf.compat.v1.assert_proper_iterable``)."""
    if isinstance(values, (Output, SparseTensor, np.ndarray, bytes, str)):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')
