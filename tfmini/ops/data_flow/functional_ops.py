"""``tm.map_fn``, ``tm.scan``, ``tm.foldl``, ``tm.foldr``: loops over the first axis.

Each is built as TensorFlow builds it in a graph (``tensorflow/python/ops/map_fn.py`` and
``functional_ops.py``): the elements are unstacked into TensorArrays, a ``while_loop`` with
``maximum_iterations`` reads one element per iteration, calls ``fn`` and writes its result
into output TensorArrays, which are stacked at the end. The loop is tfmini's functional While
(as TF2 builds it), so gradients flow through the TensorArrays and the loop as for any
``while_loop``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, int32
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops import array, control_flow
from tfmini.ops.data_flow.tensor_array import TensorArray
from tfmini.ops.math import less

# nest helpers shared with the control-flow family (internal, imported by name).
_flatten = control_flow.flatten_structure
_pack_as = control_flow.pack_structure
_assert_same_structure = control_flow.assert_same_structure


def _num_elements(flat: list[Output]) -> Any:
    """The static first dimension of the first element tensor, else its dynamic size."""
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    static = flat[0].shape.dims[0] if flat[0].shape.rank is not None else None
    if static is not None:
        return static
    return array.strided_slice(array.shape(flat[0]), [0], [1], [1], shrink_axis_mask=1)


def _elems(elems: Any) -> list[Output]:
    flat = _flatten(elems)
    if not flat:
        raise ValueError(
            f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}"
        )
    return [convert_to_tensor(e, name="elem") for e in flat]


def _unstacked(flat: list[Output], n: Any) -> list[TensorArray]:
    return [TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
            for e in flat]


def _set_first_dim(results: list[Output], flat: list[Output]) -> None:
    n_static = None
    for e in flat:
        if e.shape.rank is not None and e.shape.dims[0] is not None:
            n_static = e.shape.dims[0]
            break
    for r in results:
        if r.shape.rank is not None and r.shape.rank >= 1:
            r.set_shape(TensorShape([n_static] + list(r.shape.dims[1:])))


def map_fn(fn: Callable, elems: Any, dtype: Any = None, parallel_iterations: int | None = None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: str | None = None, fn_output_signature: Any = None) -> Any:
    """``fn`` applied to each slice of ``elems`` along axis 0, results stacked (``tf.map_fn``).

    Example::

        squares = tm.map_fn(lambda x: x * x, tm.constant([1.0, 2.0, 3.0]))

    Args:
        fn: Called with one slice (in ``elems``' structure); returns tensors in the structure
            of ``fn_output_signature`` (or ``dtype``; by default ``elems``').
        elems: A tensor or nested structure of tensors with the same first dimension.
        dtype: Deprecated spelling of ``fn_output_signature``.
        parallel_iterations: Kept on the While (default 10); iterations run in order.
        back_prop: When False, no gradient flows through the loop.
        swap_memory: Accepted for compatibility.
        infer_shape: Whether results must all have the same shape.
        name: Name scope (default "map").
        fn_output_signature: A dtype or nested structure of dtypes of ``fn``'s result.

    Returns:
        The stacked results, in ``fn``'s output structure.

    Raises:
        TypeError: ``fn`` not callable.
        ValueError: no elements, scalar elements, or results of another structure.
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    elif dtype is not None:
        raise ValueError("Only one of `dtype` and `fn_output_signature` should be set")
    if not callable(fn):
        raise TypeError(f"{fn} is not callable. Please provide a callable function.")
    if parallel_iterations is None:
        parallel_iterations = 10
    with name_scope(name, "map"):
        flat = _elems(elems)
        n = _num_elements(flat)
        elems_ta = _unstacked(flat, n)
        signature = elems if fn_output_signature is None else fn_output_signature
        if fn_output_signature is None:
            out_dtypes = [e.dtype for e in flat]
        else:
            out_dtypes = [as_dtype(d) if not isinstance(d, DType) else d
                          for d in _flatten(fn_output_signature)]
        accs = [TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                for dt in out_dtypes]

        def compute(i, tas):
            packed = _pack_as(elems, [ta.read(i) for ta in elems_ta])
            value = fn(packed)
            try:
                _assert_same_structure(signature, value, check_types=False)
            except (TypeError, ValueError) as e:
                raise ValueError(
                    "The two structures don't have the same nested structure: fn's output "
                    f"{value!r} and the signature {signature!r}. {e}"
                ) from None
            tas = [ta.write(i, v) for ta, v in zip(tas, _flatten(value))]
            return i + 1, tas

        i = convert_to_tensor(0, dtype=int32)
        _, r_a = control_flow.while_loop(
            lambda i, _: less(i, n), compute, (i, accs),
            parallel_iterations=parallel_iterations, back_prop=back_prop,
            swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        _set_first_dim(results, flat)
        return _pack_as(signature, results)


def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: str | None = None) -> Any:
    """Every intermediate accumulator of ``a = fn(a, x)`` over ``elems`` (``tf.scan``).

    Without ``initializer`` the first element (the last with ``reverse``) is the first
    accumulator and the first result.

    Args:
        fn: Called as ``fn(accumulator, element)``; returns the new accumulator.
        elems: A tensor or nested structure of tensors with the same first dimension.
        initializer: The first accumulator (its structure is ``fn``'s output structure).
        parallel_iterations: Kept on the While.
        back_prop: When False, no gradient flows through the loop.
        swap_memory: Accepted for compatibility.
        infer_shape: Whether results must all have the same shape.
        reverse: Scan from the last element to the first.
        name: Name scope (default "scan").

    Returns:
        The stacked accumulators, in the accumulator's structure.

    Raises:
        TypeError: ``fn`` not callable.
        ValueError: scalar elements, or ``fn`` returning another structure.
    """
    if not callable(fn):
        raise TypeError(f"{fn} is not callable. Please provide a callable function.")
    with name_scope(name, "scan"):
        flat = _elems(elems)
        n = _num_elements(flat)
        elems_ta = _unstacked(flat, n)
        last = n - 1 if isinstance(n, int) else n - 1
        if initializer is None:
            a_flat = [ta.read(last if reverse else 0) for ta in elems_ta]
            start = 1
            structure = elems
        else:
            a_flat = [convert_to_tensor(a) for a in _flatten(initializer)]
            start = 0
            structure = initializer
        accs = [TensorArray(dtype=a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                            element_shape=a.shape if infer_shape else None)
                for a in a_flat]
        if initializer is None:
            accs = [ta.write(last if reverse else 0, a) for ta, a in zip(accs, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = _pack_as(elems, [ta.read(i) for ta in elems_ta])
            packed_a = _pack_as(structure, a_flat)
            a_out = fn(packed_a, packed_elems)
            _assert_same_structure(structure, a_out, check_types=False)
            flat_out = _flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
            return (i - 1 if reverse else i + 1), flat_out, tas

        if reverse:
            initial = convert_to_tensor(n - 1 - start if isinstance(n, int) else n - 1 - start,
                                        dtype=int32)

            def condition(i, _1, _2):
                return array.identity(i) >= 0
        else:
            initial = convert_to_tensor(start, dtype=int32)

            def condition(i, _1, _2):
                return less(i, n)

        _, _, r_a = control_flow.while_loop(
            condition, compute, (initial, a_flat, accs),
            parallel_iterations=parallel_iterations, back_prop=back_prop,
            swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        _set_first_dim(results, flat)
        return _pack_as(structure, results)


def _fold(fn: Callable, elems: Any, initializer: Any, parallel_iterations: int, back_prop: bool,
          swap_memory: bool, name: str | None, default: str, reverse: bool) -> Any:
    if not callable(fn):
        raise TypeError(f"{fn} is not callable. Please provide a callable function.")
    with name_scope(name, default):
        flat = _elems(elems)
        n = _num_elements(flat)
        elems_ta = _unstacked(flat, n)
        if initializer is None:
            first = n - 1 if reverse else 0
            a = _pack_as(elems, [ta.read(first) for ta in elems_ta])
            offset = 1
        else:
            a = initializer
            offset = 0
        if reverse:
            i = convert_to_tensor(n - 1 - offset, dtype=int32)
        else:
            i = convert_to_tensor(offset, dtype=int32)

        def compute(i, a):
            elem = _pack_as(elems, [ta.read(i) for ta in elems_ta])
            return [(i - 1) if reverse else (i + 1), fn(a, elem)]

        if reverse:
            def condition(i, a):
                return array.identity(i) >= 0
        else:
            def condition(i, a):
                return less(i, n)

        _, r_a = control_flow.while_loop(
            condition, compute, [i, a], parallel_iterations=parallel_iterations,
            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n,
            return_same_structure=True)
        return r_a


def foldl(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """``a = fn(a, x)`` over ``elems`` from first to last; returns the final ``a`` (``tf.foldl``).

    Args:
        fn: Called as ``fn(accumulator, element)``.
        elems: A tensor or nested structure of tensors with the same first dimension.
        initializer: The first accumulator (default: the first element, then from the second).
        parallel_iterations: Kept on the While.
        back_prop: When False, no gradient flows through the loop.
        swap_memory: Accepted for compatibility.
        name: Name scope (default "foldl").

    Returns:
        The final accumulator.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldl", reverse=False)


def foldr(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
          back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
    """``a = fn(a, x)`` over ``elems`` from last to first; returns the final ``a`` (``tf.foldr``).

    Args: as :func:`foldl`, starting from the last element.

    Returns:
        The final accumulator.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 "foldr", reverse=True)


__all__ = ["foldl", "foldr", "map_fn", "scan"]
